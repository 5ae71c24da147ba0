"""The table of knobs (tigris.knobs) is the only place a knob's default is stated: the
compiled search and evaluator have none, the stubs and the public modules restate none,
and the bots, `tigris bots --knobs` and the documentation read the table."""

import ast
import inspect
import math

import pytest

import tigris
from tigris import _eval, _search, bots, knobs, search
from tigris.commands import main
from tigris.evaluator import Evaluator

from processes import ROOT

STUBS = ROOT / "src" / "tigris"


def test_every_row_is_whole_and_its_default_valid():
    for name, knob in knobs.KNOBS.items():
        assert knob.meaning and knob.type in (int, float, str), name
        if knob.type is str and name in knobs.PATHS:
            assert knob.default == "" and not knob.choices, name       # a file; empty: the shipped one
        elif knob.type is str:
            assert knob.choices and knob.default in knob.choices, name
        elif knob.default is not None:                  # seconds: not set by default
            assert knob.low <= knob.default <= knob.high, name
            assert knobs.check_knob(name, knob.default) == knob.default, name
    for kind, kind_knobs in knobs.KINDS.items():
        assert set(kind_knobs) <= set(knobs.KNOBS), kind
        for name, (typ, default, meaning) in kind_knobs.items():
            assert (typ, default) == (knobs.KNOBS[name].type, knobs.KNOBS[name].default), (kind, name)
    assert set(knobs.SEARCH_CONFIG) <= set(knobs.KINDS["ismcts"])
    assert set(knobs.WEIGHTS) <= set(knobs.SEARCH_CONFIG)


def test_the_compiled_search_and_evaluator_have_no_defaults():
    g = tigris.Game(players=2, seed=1)
    full = knobs.search_config({})
    with pytest.raises(TypeError):
        _search.Search(g)                               # no configuration at all
    with pytest.raises(TypeError):
        _search.Search(g, full)                         # nor a seed
    for name in knobs.SEARCH_CONFIG:                    # nor any knob left out
        with pytest.raises((KeyError, ValueError), match=name):
            _search.Search(g, {k: v for k, v in full.items() if k != name}, seed=0)
    with pytest.raises(TypeError):
        _eval.Evaluator()
    for name in knobs.WEIGHTS:
        with pytest.raises(ValueError, match=name):
            _eval.Evaluator({k: v for k, v in knobs.default_weights().items() if k != name})


def test_the_public_search_and_evaluator_take_the_tables_defaults():
    g = tigris.Game(players=2, seed=4)
    for kind in ("ismcts", "pimc", "cheat"):            # what the bots hand the search
        assert bots.make(kind).options == knobs.search_config({}), kind
    assert Evaluator().weights == knobs.default_weights()
    assert bots.make("greedy").evaluator.weights == knobs.default_weights()
    # The public Search is the compiled one with the table's defaults, no more.
    ours = search.Search(g, seed=3)
    theirs = _search.Search(g, knobs.search_config({}), seed=3)
    ours.step(300)
    theirs.step(300)
    assert ours.stats().to_dict() == theirs.stats() and ours.final == knobs.KNOBS["final"].default
    for name in knobs.SEARCH_CONFIG:
        assert name not in inspect.signature(search.Search).parameters, name
        assert name not in inspect.signature(search.run).parameters, name
    assert set(search.PLAIN) <= set(knobs.SEARCH_CONFIG)
    assert knobs.search_config(search.PLAIN)["rollout"] == "random"


def _stub_defaults(path, cls):
    """The parameters of `cls.__init__` in the stub at `path`, with their defaults (None
    for none)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return _stub_defaults_of(next(f for c in tree.body if isinstance(c, ast.ClassDef) and c.name == cls
                                  for f in c.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"))


def _stub_defaults_of(function):
    """A stub function's parameters with their defaults (None for none)."""
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = dict(zip((a.arg for a in positional), defaults))
    out.update(zip((a.arg for a in args.kwonlyargs), args.kw_defaults))
    return out


def test_the_stubs_state_no_knob_and_no_default_of_one():
    params = _stub_defaults(STUBS / "_search.pyi", "Search")
    assert params["config"] is None and params["seed"] is None
    assert not set(params) & set(knobs.SEARCH_CONFIG)
    assert set(_stub_defaults(STUBS / "_eval.pyi", "Evaluator")) == {"self", "weights"}
    for stub in ("_search.pyi", "_eval.pyi"):          # no function has a knob's default
        for node in ast.walk(ast.parse((STUBS / stub).read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                for arg, default in _stub_defaults_of(node).items():
                    assert arg not in knobs.SEARCH_CONFIG or default is None, (stub, node.name, arg)
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                assert not {getattr(t, "id", None) for t in targets} & {"WEIGHTS", "DEFAULTS"}, stub


def test_bots_knobs_lists_the_table(capsys):
    assert main(["bots", "--knobs"]) == 0
    kind, listed = None, {}
    for line in capsys.readouterr().out.splitlines():
        if not line.startswith(" "):
            kind = line.rstrip(":")
            continue
        name, typ, default = line.split()[:3]
        listed[kind, name] = (typ, default)
    expected = {(kind, name): (typ.__name__, '""' if default == "" else str(default))
                for kind, kind_knobs in knobs.KINDS.items()
                for name, (typ, default, _) in kind_knobs.items()}
    assert listed == expected


def test_the_documentation_draws_its_knob_tables_from_the_table():
    conf = (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    assert "knobs.KINDS" in conf and "knobs.valid" in conf
    assert "```{bot-knobs}" in (ROOT / "docs" / "FORMATS.md").read_text(encoding="utf-8")
    # No page states a default of its own: "KNOB = VALUE" in the text, outside examples
    # of bot files and commands, would be one.
    for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        for line in page.read_text(encoding="utf-8").splitlines():
            if "default" in line:
                for name in knobs.KNOBS:
                    assert f"`{name}` defaults" not in line and f"{name} defaults to" not in line, \
                        (page.name, line)


def test_the_valid_values_are_words_for_every_knob():
    assert knobs.valid("epsilon") == "0.0 to 1.0"
    assert knobs.valid("rollout") == "random or greedy"
    assert knobs.valid("eval_leader") == "any finite number"
    assert all(knobs.valid(name) for name in knobs.KNOBS)
    assert math.isinf(knobs.KNOBS["exploration"].high)
