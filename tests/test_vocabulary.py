"""One word, one meaning (DESIGN.md's "Words"): the collisions removed stay removed, and
the names they had still import, with a DeprecationWarning."""

import re
import warnings
from pathlib import Path

import pytest

import tigris

SOURCE = Path(__file__).resolve().parents[1] / "src" / "tigris"


def sources():
    return {path.relative_to(SOURCE).as_posix(): path.read_text(encoding="utf-8")
            for path in SOURCE.rglob("*.py")}


def defining(pattern):
    """The source files with a line matching `pattern` (a regex, multiline)."""
    return sorted(name for name, text in sources().items() if re.search(pattern, text, re.MULTILINE))


def test_a_persons_seat_is_defined_once():
    assert defining(r'^HUMAN\s*=') == ["session/__init__.py"]
    from tigris import seat, session
    from tigris.web import tables

    assert seat.HUMAN is session.HUMAN and tables.HUMAN is session.HUMAN


def test_the_terminal_and_the_browser_share_one_session_type():
    from tigris.seat import Terminal
    from tigris.session import Session
    from tigris.web.tables import Table

    assert issubclass(Terminal, Session) and issubclass(Table, Session)
    assert defining(r"^class Table\b") == ["web/tables.py"]       # the terminal's is Terminal
    assert defining(r"^def unfinished_game\b") == ["session/__init__.py"]


def test_the_terminals_old_name_still_imports_with_a_warning():
    from tigris import seat

    with pytest.warns(DeprecationWarning, match="tigris.seat.Terminal"):
        assert seat.Table is seat.Terminal
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from tigris.seat import Terminal, unfinished_game  # noqa: F401  the new names warn not
    with pytest.raises(AttributeError):
        seat.Tabel  # noqa: B018


def test_the_browsers_old_names_still_work_with_a_warning(tmp_path):
    from tigris.web import tables

    with pytest.warns(DeprecationWarning, match="tigris.web.tables.Table"):
        assert tables.Played is tables.Table
    table = tables.Table.new(tmp_path, seats=["human", "human"])
    try:
        key = table.keys[1]
        assert table.check_key(1, key) == 1
        with pytest.raises(tables.NotYours):
            table.check_key(1, "x" * 12)
        with pytest.warns(DeprecationWarning, match="check_key"):
            assert table.seat(1, key) == 1
    finally:
        table.close()


def test_a_bots_level_is_read_in_one_place():
    from tigris.session import level_of

    assert [level_of(n) for n in ("level-1", "level-12", "level-x", "levels-2", "level-1.toml", 3)] \
        == [1, 12, None, None, None, None]
    assert defining(r"level-\(") == ["session/__init__.py"]


def test_the_docs_name_the_network_format_read_and_the_bots_shipped():
    from tigris import bots, network

    docs = SOURCE.parents[1] / "docs"
    assert f"## Networks (`{network.FORMAT}`)" in (docs / "FORMATS.md").read_text(encoding="utf-8")
    assert f"weights file (`{network.FORMAT}`" in (docs / "DESIGN.md").read_text(encoding="utf-8")
    shipped = {path.stem for path in Path(bots.PACKAGED).glob("*.toml")}
    for doc in (docs / "FORMATS.md", SOURCE.parents[1] / "README.md"):
        listed = set(re.findall(r"`((?:ismcts|level|hint)[\w.-]*)` \(", doc.read_text(encoding="utf-8")))
        assert listed <= shipped, (doc.name, listed - shipped)


def test_a_beliefs_rows_are_determinizations_not_deals():
    from tigris.belief import Belief

    assert "deals()" not in "".join(p.read_text(encoding="utf-8") for p in SOURCE.rglob("*.py"))
    game = tigris.Game(players=2, seed=1)
    for _ in range(6):
        game.apply(game.legal_actions()[0])
    belief = Belief(game.current_player, particles=8, seed=1)
    belief.update(game)
    with pytest.warns(DeprecationWarning, match="determinizations"):
        old = belief.deals()             # the former name, still answering
    assert old == belief.determinizations()


def test_the_compiled_search_says_determinization_not_deal():
    """A deal is a game's starting tiles, which the search never sees: its sources and the
    stub say determinization (``__dealloc__`` is Python's)."""
    compiled = SOURCE.parents[1] / "cython_core" / "tigris"
    files = sorted(compiled.glob("_search*.p[xy][xdi]")) + [SOURCE / "_search.pyi"]
    assert any(p.name == "_search_determinizations.pxi" for p in files)
    said = [f"{p.name}:{n}" for p in files
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"\bdeal", line, re.IGNORECASE)]
    assert not said, said
