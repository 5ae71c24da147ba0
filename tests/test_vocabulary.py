"""One word, one meaning (DESIGN.md's "Words"): the collisions removed stay removed, and
the names they had still import, with a DeprecationWarning."""

import re
import warnings
from pathlib import Path

import pytest

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
    from tigris.web.tables import Played

    assert issubclass(Terminal, Session) and issubclass(Played, Session)
    assert defining(r"^class Table\b") == []
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
