"""Every example of the documentation runs (README.md and docs/*.md): a fenced block of
JSON is loaded by what reads its format (a position, a game record), one of TOML by what
reads such a file (a bot file, a tournament spec), one of Python is run, and so are the
``{doctest}`` blocks of a page, in order, sharing their names as the documentation's
build runs them; a file a page includes (``{literalinclude}``) is loaded by its kind.
A block that cannot run alone (a recipe that reads what a command before it wrote) says
so on the line before it, ``<!-- not run: REASON -->``, hidden from readers."""

import doctest
import json
import re
import tomllib
from pathlib import Path

import pytest

import tigris
from tigris import bots, record, tournament

from processes import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(?P<note><!-- not run: [^\n]+ -->\n)?```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$",
                   re.M | re.S)
RUN = ("json", "toml", "python", "{doctest}", "{literalinclude}")
SLOW = ("python", "{doctest}")            # searches, games and a tournament


def blocks():
    """(page, line, kind, body) of every block that runs: the kinds of RUN, but those
    marked not to run; a ``{literalinclude}`` of TOML is one with the path of the file
    it includes as its body."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            kind, _, argument = m["info"].strip().partition(" ")
            body = m["body"]
            if kind == "{literalinclude}":
                if ":language: toml" not in body:
                    continue                              # the LICENSE, shown as it is
                body = str(page.parent / argument.strip())
            if kind in RUN and not m["note"]:
                line = text.count("\n", 0, m.start("body"))
                found.append((page.relative_to(ROOT).as_posix(), line, kind, body))
    return found


def load_json(text, where):
    """A position or a game record, loaded (checked whole, a record replayed)."""
    data = json.loads(text)
    kind = data.get("format", "") if isinstance(data, dict) else ""
    if kind == "tigris-position/1":
        return tigris.Game.from_position(data)
    if kind == "tigris-game/1":
        return record.replay(data)
    pytest.fail(f"{where}: a JSON example of no format the tests load ({kind!r})")


def load_toml(path, where):
    """A bot file or a tournament spec, read as ``--bots`` and ``tigris tournament`` read it."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if "kind" in data or "extends" in data:
        return bots.configuration(path)
    if "bots" in data:
        return tournament.load_spec(path)
    pytest.fail(f"{where}: a TOML example that is neither a bot file nor a tournament spec")


def test_the_documentation_has_examples_of_every_kind():
    kinds = {kind for _, _, kind, _ in blocks()}
    assert kinds == set(RUN)
    assert [(page, kind) for page, _, kind, body in blocks() if kind == "json"] == [
        ("docs/FORMATS.md", "json"), ("docs/FORMATS.md", "json")]


@pytest.mark.parametrize("page, line, kind, body", [pytest.param(*b, id=f"{b[0]}:{b[1]}")
                                                   for b in blocks() if b[2] not in SLOW])
def test_a_file_example_loads(page, line, kind, body, tmp_path):
    """Issue 55: FORMATS.md's position did not load (a leader beside no temple, one
    treasure where the board has ten, a monument on one face-down tile)."""
    where = f"{page}:{line}"
    if kind == "json":
        load_json(body, where)
    elif kind == "toml":
        path = tmp_path / "example.toml"
        path.write_text(body, encoding="utf-8")
        load_toml(path, where)
    else:                                       # a file the page includes
        load_toml(Path(body), where)


@pytest.mark.slow
@pytest.mark.parametrize("page", sorted({b[0] for b in blocks() if b[2] in SLOW}))
def test_the_python_examples_of_a_page_run(page, tmp_path, monkeypatch):
    """Its Python blocks run, and its doctest blocks give what they show, in the order of
    the page, in a fresh folder (what they write goes there)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    names = {"tigris": tigris}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.DONT_ACCEPT_TRUE_FOR_1)
    for _, line, kind, body in (b for b in blocks() if b[0] == page and b[2] in SLOW):
        if kind == "python":
            exec(compile(body, f"{page}:{line}", "exec"), names)
        else:
            test = doctest.DocTestParser().get_doctest(body, names, f"{page}:{line}", page, line)
            runner.run(test, clear_globs=False)
            names.update(test.globs)             # the page's next block goes on with them
    assert runner.failures == 0, f"{page}: {runner.failures} example(s) did not give what they show"
