"""The architecture as documented: the layout table of docs/architecture.md gives every module a
layer, and imports only go down (or stay within a layer), never in a cycle; the package and its
analyses load without numba.  The import graph is read from the source with ``ast`` (every import
statement, also those inside functions), so nothing is imported to check it."""
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "coltsim"
LAYOUT = ROOT / "docs" / "architecture.md"  # its layout table: every module's layer
# Named in the layout table before it exists: the playout loop is moving there (engine rewrite).
COMING = {"coltsim/playout.py"}
# Modules that must load neither numba nor the compiled engine: the front door, what a setting
# or a run is checked with, the analyses, and what re-renders a report from saved results.
NUMBA_FREE = ("coltsim", "coltsim.constants", "coltsim.rules", "coltsim.setting",
              "coltsim.results", "coltsim.policies.catalog", "coltsim.runs.options",
              "coltsim.runs.storage", "coltsim.runs.load", "coltsim.runs.folder",
              "coltsim.runs.fingerprint", "coltsim.runs.match", "coltsim.analysis", "coltsim.study.experiment",
              "coltsim.study.report")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str, top_level_only: bool = False) -> set[str]:
    """What module ``name`` imports: coltsim modules by full name, others by top-level name."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(), str(path))
    nodes = tree.body if top_level_only else ast.walk(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {alias.name if alias.name.startswith("coltsim") else
                      alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module
            if not target.startswith("coltsim"):
                found.add(target.split(".")[0])
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in MODULES else target)
    return found


def documented_layers() -> tuple[dict, dict]:
    """The layout table of docs/architecture.md: path -> layer, and layer -> its name."""
    paths, names = {}, {}
    for line in LAYOUT.read_text().splitlines():
        m = re.match(r"^\|\s*(\d+)\s+([^|]+?)\s*\|([^|]*)\|", line)
        if m:
            layer = int(m.group(1))
            names[layer] = m.group(2)
            for path in re.findall(r"`(coltsim/[^`]*)`", m.group(3)):
                assert path not in paths, f"{path} is in two layers of {LAYOUT.name}"
                paths[path] = layer
    assert paths, f"{LAYOUT.name} has no layout table with layers"
    return paths, names


PATHS, LAYER_NAMES = documented_layers()


def layer_of(name: str) -> int:
    """The layer of the most specific path of the layout table that holds the module's file."""
    rel = MODULES[name].relative_to(ROOT).as_posix()
    best = max((p for p in PATHS if rel == p or (p.endswith("/") and rel.startswith(p))),
               key=len, default=None)
    assert best is not None, f"{rel} is in no layer of the layout table ({LAYOUT.name})"
    return PATHS[best]


def test_every_module_has_a_layer_and_every_listed_path_exists():
    for name in MODULES:
        layer_of(name)
    for path in PATHS:
        assert (ROOT / path).exists() or path in COMING, f"{LAYOUT.name} lists {path}, which is not there"


def test_imports_never_go_up_a_layer():
    upward = []
    for name in MODULES:
        for target in imports(name):
            if target in MODULES and layer_of(target) > layer_of(name):
                upward.append(f"{name} ({LAYER_NAMES[layer_of(name)]}) imports {target} "
                              f"({LAYER_NAMES[layer_of(target)]})")
    assert not upward, "\n".join(upward)


def test_no_import_cycles():
    graph = {name: {t for t in imports(name) if t in MODULES and t != name} for name in MODULES}
    # Tarjan's strongly connected components: a component of more than one module is a cycle.
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, cycles


def loaded_on_import(name: str) -> set[str]:
    """Everything importing ``name`` runs at module level, parent packages included."""
    seen, todo = set(), [name]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        if m in MODULES:
            parents = [m.rsplit(".", k)[0] for k in range(1, m.count(".") + 1)]
            subs = [s for s in MODULES if s.startswith(m + ".")] if m == "coltsim.analysis" \
                else []
            todo += list(imports(m, top_level_only=True)) + parents + subs
    return seen


@pytest.mark.parametrize("name", NUMBA_FREE)
def test_pure_modules_import_neither_numba_nor_the_engine(name):
    loaded = loaded_on_import(name)
    bad = sorted(m for m in loaded if m == "numba" or m.startswith("coltsim.engine")
                 or m == "coltsim._jit")
    assert not bad, f"importing {name} loads {bad}"


def test_import_coltsim_and_its_analyses_leaves_numba_unloaded():
    analyses = [m for m in MODULES if m.startswith("coltsim.analysis")]
    code = ("import sys, coltsim, coltsim.analysis\n"
            + "".join(f"import {m}\n" for m in analyses)
            + "import coltsim.study.report\n"
            + "s = coltsim.make_setting(4, policies='rollout', params={'rollout': {'budget': 8}})\n"
            + "print(sorted(m for m in sys.modules if m == 'numba' or m.startswith('numba.')"
            + " or m.startswith('coltsim.engine'))[:5])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.strip()
    assert out == "[]", f"loaded: {out}"

