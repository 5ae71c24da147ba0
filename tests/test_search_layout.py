"""The compiled search names no part of the game: its files (``_search.pyx``, ``_search.pxd``,
``_search_*.pxi``) reach Tigris & Euphrates through ``_search_game.pxd`` alone, so that a
second game is a second such file.  Read from the sources, by their tokens: comments and
strings may speak of the game, code may not."""

import io
import re
import tokenize
from pathlib import Path

COMPILED = Path(__file__).resolve().parent.parent / "cython_core" / "tigris"
ADAPTER = COMPILED / "_search_game.pxd"
GAME_MODULES = ("_core", "_eval", "_net", "_game")


def search_files():
    """The search's own files: every ``_search*`` source but the adapter."""
    return sorted(p for p in COMPILED.glob("_search*.p[xy][xdi]") if p != ADAPTER)


def block(text, opening):
    """The indented lines under the line `opening` (a ``cpdef enum:`` or a struct)."""
    lines = text.split(opening, 1)[1].splitlines()[1:]
    return "\n".join(line for line in lines[:next((k for k, line in enumerate(lines)
                                                   if line.strip() and not line[:1].isspace()),
                                                  len(lines))])


def game_names():
    """The game's names: its constants (``_core``'s and ``_net``'s enums) and its structs
    ``State`` and ``Aux``, which code may not name at all."""
    names = {"State", "Aux"}
    for module in ("_core", "_net"):
        text = (COMPILED / f"{module}.pxd").read_text(encoding="utf-8")
        names |= set(re.findall(r"^    (\w+) = ", block(text, "cpdef enum:\n"), re.MULTILINE))
    return names


def game_functions():
    """Every function the game's modules declare, which code may not call (a field or a
    variable may share a name with one: ``prior``, ``determinize``)."""
    names = set()
    for module in ("_core", "_eval", "_net"):
        text = (COMPILED / f"{module}.pxd").read_text(encoding="utf-8")
        names |= set(re.findall(r"^cdef (?:inline )?[\w ]+?\**\s*\b(\w+)\(", text, re.MULTILINE))
    return names


def state_fields():
    """The fields of the game's ``State``, and the game object's C state (``Game.s``)."""
    core = (COMPILED / "_core.pxd").read_text(encoding="utf-8")
    fields = set(re.findall(r"^    [\w*]+\*? +(\w+)", block(core, "cdef struct State:\n"), re.MULTILINE))
    game = (COMPILED / "_game.pxd").read_text(encoding="utf-8")
    return fields | set(re.findall(r"^    cdef (?:State|Aux) (\w+)", game, re.MULTILINE))


def violations(source, where="source"):
    """Where `source` (Cython) names the game: a cimport or import of one of its modules, a
    name of ``game_names``, a call of one of ``game_functions``, a field of
    ``state_fields`` read off anything."""
    found = []
    for m in re.finditer(r"^\s*(?:from|c?import)\s+tigris\.(\w+)", source, re.MULTILINE):
        if m.group(1) in GAME_MODULES:
            found.append(f"{where}: imports tigris.{m.group(1)}")
    names, functions, fields = game_names(), game_functions(), state_fields()
    skip = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in skip]
    for k, tok in enumerate(tokens):
        if tok.type != tokenize.NAME:
            continue
        after_dot = k > 0 and tokens[k - 1].string == "."
        called = k + 1 < len(tokens) and tokens[k + 1].string == "("
        if tok.string in names:
            found.append(f"{where}:{tok.start[0]}: {tok.string}")
        elif after_dot and tok.string in fields:
            found.append(f"{where}:{tok.start[0]}: .{tok.string}")
        elif called and not after_dot and tok.string in functions:
            found.append(f"{where}:{tok.start[0]}: {tok.string}()")
    return found


def test_the_search_names_nothing_of_the_game():
    files = search_files()
    assert {p.name for p in files} >= {"_search.pyx", "_search.pxd", "_search_tree.pxi",
                                      "_search_loop.pxi", "_search_determinizations.pxi"}
    found = [v for p in files for v in violations(p.read_text(encoding="utf-8"), p.name)]
    assert not found, "the search names the game outside _search_game.pxd: " + ", ".join(found)


def test_the_search_reaches_the_game_through_the_adapter():
    text = (COMPILED / "_search.pyx").read_text(encoding="utf-8")
    assert re.search(r"^from tigris\._search_game cimport \*$", text, re.MULTILINE)
    # ... and the adapter is where the game's names are: the check reads it as the game's
    assert len(violations(ADAPTER.read_text(encoding="utf-8"))) > 20


def test_the_check_finds_the_game_in_code_alone():
    code = ("from tigris._core cimport State, NSQ\n"
            "cdef int f(const State* d, Tree* t):\n"
            "    # the bag and d.phase, in a comment\n"
            "    '''PH_OVER in a docstring'''\n"
            "    cdef uint8_t scorer[4 * NSQ]\n"
            "    if d.phase != PH_OVER or t.stop:\n"
            "        return d.nplayers + hand_size(d, 0)\n"
            "    return game_players(d)\n")
    found = violations(code)
    assert found == ["source: imports tigris._core",
                     "source:1: State", "source:1: NSQ", "source:2: State", "source:5: NSQ",
                     "source:6: .phase", "source:6: PH_OVER", "source:7: .nplayers",
                     "source:7: hand_size()"]


def test_the_game_names_are_read_from_its_declarations():
    names, functions, fields = game_names(), game_functions(), state_fields()
    assert {"NSQ", "NCOL", "MAXP", "N_ACTIONS", "PH_OVER", "ERR_NONE", "State"} <= names
    assert {"legal_actions", "apply_action", "determinize", "scorer_table", "prior", "greedy_action",
            "net_policy", "net_chances", "hand_size", "final_vector", "evaluate_chances"} <= functions
    assert {"hand", "bag", "swapped", "phase", "nplayers", "rng", "error", "s"} <= fields
    assert "splitmix" not in functions      # the project's random numbers, not the game's
