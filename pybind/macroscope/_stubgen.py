"""The package's type stub, ``__init__.pyi``, written from the Go registry.

The ``read_<format>`` functions are built at import from the registry's
descriptions of the formats (:mod:`macroscope._readers`), so neither an
editor nor a type checker can see their signatures in the source. The stub
spells them out, with their options' types and defaults and their
docstrings, and re-exports the rest of the public API from the modules that
define it, whose annotations the type checkers read there.

    python -m macroscope._stubgen [PATH]           write the stub
    python -m macroscope._stubgen --check [PATH]   exit 1 if PATH is not what it writes

PATH defaults to pybind/macroscope/__init__.pyi, from the repository's
root (``make stubs``). The tests fail when the checked-in stub is not what
the registry gives: a format or an option added in Go, or a name added to
``macroscope.__all__``, asks for the stub to be written again.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import macroscope

from . import _formats, _readers

DEFAULT_PATH = pathlib.Path("pybind", "macroscope", "__init__.pyi")

_HEADER = '''\
# The type stub of macroscope, written by `python -m macroscope._stubgen`
# from the package and the Go registry of formats: do not edit it, write it
# again (make stubs) when a format, an option or an export changes.
'''

# The Python type of each kind of option the registry declares.
_KINDS = {"bool": "bool", "int": "int", "float": "float", "str": "str", "list[str]": "list[str]"}

# The names the stub uses without exporting them, by module.
_PRIVATE = {"._reading": ["Progress"]}

# Names of __all__ that are values, not classes or functions, by module.
_VALUES = {"FORMATS": _formats}


def render() -> str:
    """The text of the stub, from the package as imported and the registry."""
    generated = _readers.GENERATED
    imports: dict[str, list[str]] = {}
    for name in macroscope.__all__:
        if name in generated:
            continue
        obj = getattr(macroscope, name)
        module = _VALUES[name].__name__ if name in _VALUES else obj.__module__
        if not module.startswith("macroscope."):
            raise ValueError(f"{name} comes from {module}, not from a module of macroscope")
        imports.setdefault(module.removeprefix("macroscope"), []).append(name)
    lines = [_HEADER, "import os", "from typing import Literal", ""]
    for module in sorted(imports.keys() | _PRIVATE.keys()):
        # "X as X" re-exports X; the names of _PRIVATE are the stub's own.
        names = sorted([f"{n} as {n}" for n in imports.get(module, ())] + _PRIVATE.get(module, []))
        line = f"from {module} import {', '.join(names)}"
        if len(line) <= 100:
            lines.append(line)
        else:
            lines += [f"from {module} import ("] + [f"    {n}," for n in names] + [")"]
    lines += ["", "__version__: str", "", "__all__ = ["]
    lines += [f'    "{name}",' for name in macroscope.__all__]
    lines.append("]")
    for format_name, d in _formats.DESCRIPTIONS.items():
        function = _formats.function_name(format_name)
        if function in generated:
            lines += ["", ""] + _reader(function, d, generated[function].__doc__)
    return "\n".join(lines) + "\n"


def _reader(function: str, d: dict, doc: str) -> list[str]:
    """The stub of one generated read_<format>: its signature and docstring."""
    params = ["path: str | os.PathLike[str]", "*"]
    for o in d["options"] or ():
        params.append(f"{o['name']}: {_annotation(function, o)} = {_literal(o.get('default'))}")
    params += ["progress: Progress = None", "memory_budget: int | None = None"]
    lines = [f"def {function}("]
    lines += [f"    {p}," for p in params]
    lines.append(") -> Trace:")
    body = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').splitlines()
    lines.append(f'    """{body[0]}')
    lines += [f"    {line}".rstrip() for line in body[1:]]
    lines += ['    """', "    ..."]
    return lines


def _annotation(function: str, option: dict) -> str:
    """The type of an option: its kind's, a Literal of its choices, and
    None allowed when it has no default."""
    kind = option["kind"]
    if kind not in _KINDS:
        raise ValueError(f"{function}: option {option['name']} is of kind {kind!r}, which the stub does not "
                         f"know: add it to macroscope._stubgen._KINDS")
    annotation = _KINDS[kind]
    if option.get("choices"):
        annotation = "Literal[" + ", ".join(_literal(c) for c in option["choices"]) + "]"
    if option.get("default") is None:
        annotation += " | None"
    return annotation


def _literal(value) -> str:
    """A default or a choice as the source spells it (strings in double quotes)."""
    return json.dumps(value) if isinstance(value, str) else repr(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m macroscope._stubgen",
                                     description="Write macroscope's type stub from the Go registry.")
    parser.add_argument("path", nargs="?", type=pathlib.Path, default=DEFAULT_PATH,
                        help=f"the stub to write (default: {DEFAULT_PATH}, from the repository's root)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the stub differs")
    args = parser.parse_args(argv)
    if not args.path.parent.is_dir():
        parser.error(f"{args.path.parent} is not a directory: run from the repository's root or give the path")
    text = render()
    if args.check:
        current = args.path.read_text() if args.path.exists() else ""
        if current != text:
            print(f"{args.path} is not what the registry gives: run python -m macroscope._stubgen",
                  file=sys.stderr)
            return 1
        return 0
    args.path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
