"""The package's front: every public module says what it offers (``__all__``), no module
of the package reaches into another's private names or beyond its ``__all__``, no module
is shadowed by a function of the same name, and ``import tigris`` stays light."""

import ast
import importlib
from pathlib import Path

import pytest

import tigris

from processes import python

PACKAGE = Path(tigris.__file__).resolve().parent
# The compiled modules: the package's own modules may import them, not their private names.
COMPILED = {"tigris._core", "tigris._game", "tigris._search", "tigris._eval", "tigris._net", "tigris._bench"}
# What ``import tigris`` must not load: the workers, the progress bars, the numerics, and
# the package's modules that only a search, a text form or a command needs.
HEAVY = {"joblib", "tqdm", "numpy", "scipy", "choix", "tigris._plumbing.parallel", "tigris.bots",
         "tigris.position", "tigris.render", "tigris.legality", "tigris.commands",
         "tigris.interop", "pyspiel", "pettingzoo"}


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


SOURCES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
PUBLIC = sorted(name for name in SOURCES
                if not any(part.startswith("_") for part in name.split(".")[1:]))


def is_module(name):
    return name in SOURCES or name in COMPILED


def public_names(module):
    return set(importlib.import_module(module).__all__)


def problem(module, name):
    """Why using `name` of the tigris module `module` from another module is wrong, or
    None: a private name, or a public module's name it does not list in ``__all__``."""
    if is_module(f"{module}.{name}") or (name.startswith("__") and name.endswith("__")):
        return None
    if name.startswith("_"):
        return f"private name {module}.{name}"
    if module in PUBLIC and name not in public_names(module):
        return f"{module}.{name} is not in {module}.__all__"
    return None


def uses(tree):
    """(module, name) for each name of another tigris module that `tree` imports or reads
    as an attribute of an imported module."""
    aliases = {}                         # local name -> the tigris module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("tigris"):
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    else:
                        aliases["tigris"] = "tigris"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 \
                and (node.module or "").split(".")[0] == "tigris":
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if is_module(full):
                    aliases[alias.asname or alias.name] = full
                yield node.module, alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain, value = [node.attr], node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in aliases:
                module, rest = aliases[value.id], chain[::-1]
                while len(rest) > 1 and is_module(f"{module}.{rest[0]}"):
                    module, rest = f"{module}.{rest[0]}", rest[1:]
                yield module, rest[0]


@pytest.mark.parametrize("module", PUBLIC)
def test_every_public_module_lists_its_public_names(module):
    mod = importlib.import_module(module)
    assert isinstance(getattr(mod, "__all__", None), list), f"{module} has no __all__ list"
    assert len(set(mod.__all__)) == len(mod.__all__), f"{module}.__all__ repeats a name"
    missing = [name for name in mod.__all__ if not hasattr(mod, name)]
    assert not missing, f"{module}.__all__ names what it lacks: {missing}"
    assert not [name for name in mod.__all__ if name.startswith("_")]


def test_no_module_uses_what_another_keeps_to_itself():
    found = []
    for name, path in SOURCES.items():
        for module, used in uses(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            why = None if module == name else problem(module, used)
            if why:
                found.append(f"{path.relative_to(PACKAGE.parent)}: {why}")
    assert not found, "\n".join(found)


def test_the_check_sees_private_names_and_names_beyond_all():
    source = ("from tigris.hints import _engine\nfrom tigris import hints as h\n"
              "h._analyse\nimport tigris.knobs\ntigris.knobs.KINDS\n"
              "tigris.hints.nothing_public\nfrom tigris import _game\n_game.Game\n")
    found = {problem(module, name) for module, name in uses(ast.parse(source))} - {None}
    assert found == {"private name tigris.hints._engine", "private name tigris.hints._analyse",
                     "tigris.hints.nothing_public is not in tigris.hints.__all__"}


def test_no_module_is_shadowed_by_a_function_of_its_package():
    """``tigris.hint`` is the function and ``tigris.hints`` its module: a package's name
    that is both leaves one of them out of reach."""
    for package in ("tigris", "tigris.bots"):
        mod = importlib.import_module(package)
        for name in mod.__all__:
            assert not is_module(f"{package}.{name}"), f"{package}.{name}: a module and a name"
    assert tigris.hint is importlib.import_module("tigris.hints").hint
    assert importlib.import_module("tigris.hints").Hints.__module__ == "tigris.hints"


def test_import_tigris_is_light():
    done = python("import sys, tigris\nprint(' '.join(sorted(sys.modules)))")
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert "tigris._game" in loaded and "tigris.hints" in loaded
    assert not loaded & HEAVY, sorted(loaded & HEAVY)


def test_the_command_line_parses_without_the_parallel_machinery():
    # tigris --help and every command's options: the handlers import what they run
    done = python("import sys\nfrom tigris import commands\ncommands.build_parser()\n"
                  "print(' '.join(sorted(sys.modules)))")
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert "tigris.commands.tournament" in loaded
    assert not loaded & {"joblib", "tqdm", "numpy", "scipy", "tigris._plumbing.parallel"}, loaded


def test_what_import_tigris_leaves_out_still_works_when_used():
    done = python("import tigris\ng = tigris.Game(players=2, seed=3)\n"
                  "h = tigris.Game.from_position(g.to_position())\n"
                  "assert str(h) == str(g)\n"
                  "print(len(tigris.hint(g, iterations=200, top=2, workers=2, progress=False)))")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "2\n"
