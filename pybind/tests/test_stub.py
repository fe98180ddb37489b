"""The type stub, pybind/macroscope/__init__.pyi: what the Go registry gives,
and what the functions built from it take at run time."""

import ast
import inspect

import macroscope as ms
from conftest import REPO
from macroscope import _readers, _stubgen

STUB = REPO / "pybind" / "macroscope" / "__init__.pyi"


def test_stub_is_what_the_registry_gives():
    assert STUB.read_text() == _stubgen.render(), (
        "pybind/macroscope/__init__.pyi is out of date: run `make stubs` "
        "(python -m macroscope._stubgen from the repository's root)")


def _stub_functions():
    tree = ast.parse(STUB.read_text())
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_stub_exports_the_package_api():
    tree = ast.parse(STUB.read_text())
    exported = {alias.asname for node in tree.body if isinstance(node, ast.ImportFrom)
                for alias in node.names if alias.asname}
    exported |= set(_stub_functions())
    assert exported == set(ms.__all__)
    declared = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                    and node.targets[0].id == "__all__")
    assert ast.literal_eval(declared) == ms.__all__


def test_stub_signatures_are_those_of_the_readers():
    """Every generated read_<format> has its stub, with the parameters,
    kinds, defaults and docstring the function has at run time."""
    stubs = _stub_functions()
    assert set(stubs) == set(_readers.GENERATED)
    for name, function in _readers.GENERATED.items():
        stub = stubs[name]
        runtime = inspect.signature(function).parameters.values()
        args = stub.args
        assert [a.arg for a in args.args] == [p.name for p in runtime if p.kind is p.POSITIONAL_OR_KEYWORD]
        keywords = [p for p in runtime if p.kind is p.KEYWORD_ONLY]
        assert [a.arg for a in args.kwonlyargs] == [p.name for p in keywords], name
        assert [ast.literal_eval(d) for d in args.kw_defaults] == [p.default for p in keywords], name
        assert ast.get_docstring(stub) == inspect.cleandoc(function.__doc__), name
        assert ast.unparse(stub.returns) == "Trace"
