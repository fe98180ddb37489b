"""The package as a whole: what its docstring promises, and the order of its
modules (each imports only modules below it; a module imports another in a
function only for an optional dependency)."""

import ast
import pathlib

import macroscope as ms

PACKAGE = pathlib.Path(ms.__file__).parent

# What a function may import when called, and why: optional dependencies,
# imported by the features that need them.
OPTIONAL = {
    "distributed": "Dask, for the computations on a cluster",
    "tqdm": "progress bars",
    "macroscope.widgets": "the notebook widgets, built on anywidget",
    "pyarrow_hotfix": "the Arrow project's fix of pyarrow before 14.0.1 (CVE-2023-47248), looked for only there",
}


def test_docstring_lists_every_format():
    """The formats listed in the package's docstring are the registry's."""
    section = ms.__doc__.split("The formats read", 1)[1]
    listed = [line.split()[0] for line in section.splitlines() if line.startswith("    ") and line.strip()]
    assert sorted(listed) == sorted(ms.formats()["format"])
    assert len(listed) == len(set(listed))


def test_every_export_exists():
    for name in ms.__all__:
        assert getattr(ms, name) is not None, name
    assert set(ms.__all__) == {f"read_{f.replace('-', '_')}" for f in ms.FORMATS} | {
        "FORMATS", "Figure", "Aggregation", "CallTree", "Comparison", "Differences", "EmptyTraceError", "InternalError", "InvalidArgumentError", "Kaleidoscope",
        "MacroscopeError", "MicroModel", "Moments", "Topology", "Trace", "TraceFormatError", "TraceNotFoundError",
        "Treemap", "compare", "compare_series", "formats", "from_pandas", "moments", "read", "read_micro", "read_table", "synth",
        "to_parquet_dataset",
        # The performance analyses (docs/analyses.md).
        "CommMatrix", "CriticalPath", "FlatProfile", "LoadImbalance", "POP", "Stragglers", "comm_matrix",
        "critical_path", "flat_profile", "load_imbalance", "pop", "stragglers"}


def _modules():
    """Every module of the package (but gopy's generated _native), by name."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if "_native" in parts:
            continue
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        out[name] = (path, is_package)
    return out


def _imports(name, is_package, tree, modules):
    """(imported module, in a function) for every import of the module."""
    package = name if is_package else name.rpartition(".")[0]
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((alias.name, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[:len(package.split(".")) - child.level + 1]
                    base = ".".join(anchor + ([child.module] if child.module else []))
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    found.append((sub if sub in modules else base, in_function))
            visit(child, inner)

    visit(tree, False)
    return found


def test_modules_stand_leaf_first():
    modules = _modules()
    graph = {}
    late = []
    for name, (path, is_package) in modules.items():
        graph[name] = set()
        for target, in_function in _imports(name, is_package, ast.parse(path.read_text()), modules):
            if in_function:
                if not any(target == o or target.startswith(o + ".") for o in OPTIONAL):
                    late.append(f"{name} imports {target} in a function")
            elif target in modules and target != name:
                graph[name].add(target)
    assert not late, "function-level imports are for optional dependencies only:\n" + "\n".join(late)

    # No circle: every module can be given a floor above all it imports.
    floor, visiting = {}, []

    def place(name):
        if name in floor:
            return floor[name]
        assert name not in visiting, "circle: " + " -> ".join(visiting[visiting.index(name):] + [name])
        visiting.append(name)
        floor[name] = 1 + max((place(t) for t in graph[name]), default=0)
        visiting.pop()
        return floor[name]

    for name in graph:
        place(name)
    assert floor["macroscope._errors"] == 1
    assert floor["macroscope._trace"] < floor["macroscope._readers"] < floor["macroscope._to_dataset"]
