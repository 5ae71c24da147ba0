"""The package's layers: docs/DESIGN.md's table ("Layers") is the contract, and every
import of every module (compiled ones and imports inside functions included) points to
the module's own layer or one below it."""

import ast
import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "tigris"
COMPILED = ROOT / "cython_core" / "tigris"
DESIGN = ROOT / "docs" / "DESIGN.md"

# A Cython module's Python and C imports of the package: `from tigris.X import`,
# `from tigris.X cimport`, `from tigris import X`, `cimport tigris.X`, `import tigris.X`.
CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+(tigris(?:\.\w+)*)\s+c?import\s+([\w, *]+)|c?import\s+(tigris(?:\.\w+)*))",
                           re.MULTILINE)


def layer_table():
    """The layers from the top down, as DESIGN.md's table gives them: a list of
    (layer, [module patterns])."""
    text = DESIGN.read_text(encoding="utf-8")
    section = text.split("## Layers\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    layers = []
    for row in rows[1:]:                       # the first row is the header
        layer, modules = [cell.strip() for cell in row.strip("|").split("|")][:2]
        layers.append((layer, re.findall(r"`([\w.*]+)`", modules)))
    return layers


def package_modules():
    """Every module of the package by dotted name without the ``tigris.`` prefix (the
    package itself is ``tigris``), with its source file."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts) or "tigris"] = path
    for path in COMPILED.glob("*.pyx"):
        found[path.stem] = path
    return found


def imported_modules(name, path, anywhere=True):
    """The package's modules that `path` imports anywhere in it (a name imported from a
    package counts as its module where it is one); with ``anywhere`` false, only those it
    imports when it is imported (not inside a function)."""
    modules = package_modules()
    targets = set()

    def add(module, names=()):
        dotted = module.removeprefix("tigris").removeprefix(".")
        for n in names:
            sub = f"{dotted}.{n}" if dotted else n
            if sub in modules:
                targets.add(sub)
                break
        else:
            targets.add(dotted or "tigris")

    if path.suffix == ".py":
        for node in _nodes(ast.parse(path.read_text(encoding="utf-8")), anywhere):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "tigris":
                        add(alias.name)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and node.module.split(".")[0] == "tigris":
                for alias in node.names:
                    add(node.module, [alias.name])
    else:
        sources = [path] + sorted(COMPILED.glob(f"{path.stem}_*.pxi"))
        for source in sources:
            text = source.read_text(encoding="utf-8")
            if not anywhere:         # a statement of the module itself starts its line
                text = "\n".join(line for line in text.splitlines() if not line[:1].isspace())
            for module, names, plain in CYTHON_IMPORT.findall(text):
                if plain:
                    add(plain)
                for n in [n.strip() for n in names.split(",") if n.strip()] or [None]:
                    if module:
                        add(module, [n] if n else [])
    targets.discard(name)
    return {t for t in targets if t in modules}


def _nodes(tree, anywhere):
    """Every node of `tree`, or (``anywhere`` false) those outside function bodies."""
    if anywhere:
        yield from ast.walk(tree)
        return
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(child for child in ast.iter_child_nodes(node)
                    if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))


def import_cycles(anywhere):
    """The groups of modules that import one another, directly or through others (the
    strongly connected components of the import graph with more than one module)."""
    graph = {name: imported_modules(name, path, anywhere) for name, path in package_modules().items()}
    order, low, stack, cycles = {}, {}, [], []

    def visit(v):                 # Tarjan's algorithm
        order[v] = low[v] = len(order)
        stack.append(v)
        for w in graph[v]:
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
            if len(group) > 1:
                cycles.append(sorted(group))

    for v in sorted(graph):
        if v not in order:
            visit(v)
    return cycles


def layer_of(table):
    """Module name -> its layer's rank (0 at the bottom) in `table` (see layer_table)."""
    modules = package_modules()
    rank = {}
    for height, (layer, patterns) in enumerate(reversed(table)):
        for pattern in patterns:
            if pattern.endswith(".*"):
                base = pattern[:-2]
                names = [m for m in modules if m == base or m.startswith(base + ".")]
            else:
                names = [pattern] if pattern in modules else []
            assert names, f"DESIGN.md's layer {layer!r} names {pattern!r}, which is no module"
            for m in names:
                assert m not in rank, f"{m} stands in two layers of DESIGN.md's table"
                rank[m] = height
    return rank


def upward_imports(table):
    """Every import that points from a module to a layer above its own in `table`."""
    rank = layer_of(table)
    names = [layer for layer, _ in reversed(table)]
    upward = []
    for name, path in sorted(package_modules().items()):
        for target in sorted(imported_modules(name, path)):
            if rank[target] > rank[name]:
                upward.append(f"{name} ({names[rank[name]]}) imports {target} ({names[rank[target]]})")
    return upward


def test_the_table_names_every_module_once():
    rank = layer_of(layer_table())
    missing = sorted(set(package_modules()) - set(rank))
    assert not missing, f"modules in no layer of DESIGN.md's table: {', '.join(missing)}"
    assert len(layer_table()) >= 5


def test_no_module_imports_a_layer_above_its_own():
    upward = upward_imports(layer_table())
    assert not upward, "imports that point up the layers:\n" + "\n".join(upward)


def folders_in_two_layers(table):
    """The package's folders whose modules stand in more than one layer of `table`: a
    folder is one layer's room."""
    rank = layer_of(table)
    layers = {}
    for name in package_modules():
        folder = name.split(".")[0]
        if (PACKAGE / folder).is_dir():            # its modules and its __init__.py
            layers.setdefault(folder, set()).add(rank[name])
    return sorted(folder for folder, ranks in layers.items() if len(ranks) > 1)


def test_each_folder_is_one_layer():
    assert folders_in_two_layers(layer_table()) == []


def test_a_folder_split_over_two_layers_is_caught():
    folder = sorted(m for m in package_modules() if m == "runs" or m.startswith("runs."))
    table = [(layer, [m for m in modules if m != "runs.*"] + (folder[:-1] if "tournament" in modules else []))
             for layer, modules in layer_table()]
    table[-1][1].append(folder[-1])                # one of its modules among the foundations
    assert folders_in_two_layers(table) == ["runs"]



def test_the_games_between_bots_sit_below_the_runs_that_play_them():
    """``play/`` is what tournaments, matches, tuning and analyses play their games with,
    and ``runs/`` (self-play, learning, the benchmarks) runs tournaments and tunings: three
    layers in that order, so no arrow can point from ``play/`` up or from the contests to
    ``runs/``."""
    rank = layer_of(layer_table())
    folder = {name: {rank[m] for m in rank if m == name or m.startswith(name + ".")} for name in ("play", "runs")}
    contests = {rank[m] for m in ("tournament", "match", "tune", "analysis", "ratings")}
    assert max(folder["play"]) < min(contests) and max(contests) < min(folder["runs"])


def test_an_arrow_from_the_games_up_to_the_runs_is_caught(tmp_path, monkeypatch):
    path = tmp_path / "up.py"
    path.write_text("from tigris import tune\nfrom tigris.tournament import MAX_GAMES\n"
                    "def f():\n    from tigris.match import check_sprt\n    from tigris.runs import selfplay\n")
    found = package_modules()
    monkeypatch.setattr(sys.modules[__name__], "package_modules", lambda: {**found, "play.up": path})
    arrows = [arrow for arrow in upward_imports(layer_table()) if arrow.startswith("play.up ")]
    assert arrows == ["play.up (games between bots) imports match (contests)",
                      "play.up (games between bots) imports runs.selfplay (runs)",
                      "play.up (games between bots) imports tournament (contests)",
                      "play.up (games between bots) imports tune (contests)"]


@pytest.mark.parametrize("name", ["runner", "schedule", "results", "seeds", "luck"])
def test_the_old_paths_of_the_games_still_import_with_a_warning(name, monkeypatch):
    new = importlib.import_module(f"tigris.play.{name}")
    monkeypatch.delitem(sys.modules, f"tigris.runs.{name}", raising=False)
    with pytest.warns(DeprecationWarning, match=f"tigris.play.{name}"):
        old = importlib.import_module(f"tigris.runs.{name}")
    assert old is new                   # one module: a patch of either name patches both

def test_the_top_level_holds_what_people_import():
    """At most 30 modules at the top of the package (the compiled ones apart: each has its
    stub there); the rest live in the folders of their layer."""
    top = [name for name in package_modules() if "." not in name and name != "tigris"
           and not (COMPILED / f"{name}.pyx").exists() and (PACKAGE / f"{name}.py").exists()]
    assert len(top) + 1 <= 30, f"{len(top) + 1} modules at the top: {', '.join(sorted(top))}"


def test_no_import_cycle():
    """No module imports, as it is imported, one that imports it back; and in functions
    only ``Game.to_position``/``from_position`` reach their format's module, which builds
    a ``Game`` (the format in a module of its own, the class's methods deferring to it)."""
    assert import_cycles(anywhere=False) == []
    assert import_cycles(anywhere=True) == [["_game", "position"]]


def test_a_module_placed_too_low_is_caught():
    table = [(layer, [m for m in modules if m != "position"]) for layer, modules in layer_table()]
    table[-1][1].append("position")                # among the foundations, below Game
    assert "position (foundations) imports _game (the game and its formats)" in upward_imports(table)


@pytest.mark.parametrize("source, expected", [
    ("from tigris.position import to_position\n", {"position"}),
    ("from tigris import record, errors\n", {"record", "errors"}),
    ("def f():\n    import tigris.view\n", {"view"}),
    ("import tigris\n", {"tigris"}),
    ("from tigris.commands.options import SEED\n", {"commands.options"}),
])
def test_the_reader_finds_imports_anywhere(tmp_path, source, expected):
    path = tmp_path / "m.py"
    path.write_text(source)
    assert imported_modules("m", path) == expected


def test_the_reader_tells_imports_in_functions_apart(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("from tigris import errors\ndef f():\n    import tigris.view\n"
                    "class C:\n    def g(self):\n        from tigris import record\n")
    assert imported_modules("m", path, anywhere=False) == {"errors"}
    assert imported_modules("m", path) == {"errors", "view", "record"}
    pyx = tmp_path / "_x.pyx"
    pyx.write_text("from tigris._plumbing import checks\ndef f():\n    from tigris.legality import why_illegal\n")
    assert imported_modules("_x", pyx, anywhere=False) == {"_plumbing.checks"}


def test_the_reader_finds_compiled_imports(tmp_path):
    path = tmp_path / "_x.pyx"
    path.write_text("from tigris._core cimport *\nfrom tigris._plumbing import checks\n"
                    "def f():\n    from tigris.legality import why_illegal\n")
    assert imported_modules("_x", path) == {"_core", "_plumbing.checks", "legality"}


def function_lengths():
    """(where, lines) of every function of the package outside the rules (``_core.pyx``):
    Python's by its syntax tree, the compiled modules' from one ``def``/``cdef`` line to
    the next statement at its indentation or less."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}", node.end_lineno - node.lineno + 1
    header = re.compile(r"^( *)(?:cdef|cpdef|def) \w[^=]*\(")       # a signature, not a declaration
    for path in sorted(COMPILED.glob("*.p[yx][xi]")):
        if path.name == "_core.pyx":
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            m = header.match(line)
            if not m:
                continue
            indent, end = len(m.group(1)), i + 1
            while end < len(lines) and (not lines[end].strip() or lines[end].startswith(" " * (indent + 1))):
                end += 1
            while not lines[end - 1].strip():
                end -= 1
            yield f"{path.name}:{i + 1}", end - i


def test_no_function_outside_the_rules_is_over_80_lines():
    long = [f"{where} ({n} lines)" for where, n in function_lengths() if n > 80]
    assert not long, "functions over 80 lines: " + ", ".join(long)
    assert max(n for _, n in function_lengths()) > 40          # the reader finds whole functions
