"""Property-based attacks on everything a user can type or load (hypothesis).

Each property takes valid data -- positions, records, action ids, bot settings, search
budgets -- breaks it in generated ways and asserts the contract: the documented error
(``PositionError``, ``RecordError``, ``IllegalActionError``, or the ``ValueError`` of a
bad setting) or a valid object that then plays on without breaking an invariant.
Nothing else: no ``TypeError``, ``OverflowError``, crash or hang.

The properties run in child processes (``test_properties.py``), so an input that
crashes the interpreter fails its test instead of ending the test run.  Run one by
hand with ``python tests/properties.py NAME [EXAMPLES]``.
"""

import functools
import json
import math
import os
import random
import sys

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import tigris
from tigris import bots, constants, notation, record
from tigris.constants import COLOURS, DECISIONS, LEADERS, N_ACTIONS, NSQ

from helpers import random_game

SUPPLY = list(constants.SUPPLY)
SQUARES = [notation.square_name(i) for i in range(NSQ)]

# 200 a property keeps the whole test run within CI's time; set more for a deeper run.
EXAMPLES = int(os.environ.get("TIGRIS_PROPERTY_EXAMPLES", "200"))


def _settings(examples=None):
    # Derandomized: the same inputs on every run, so CI is reproducible; set
    # TIGRIS_PROPERTY_EXPLORE=1 to draw new ones.
    return settings(max_examples=examples or EXAMPLES, deadline=None, database=None,
                    derandomize=not os.environ.get("TIGRIS_PROPERTY_EXPLORE"),
                    suppress_health_check=list(HealthCheck), print_blob=True)


# ---------------------------------------------------------------------------------------
# Valid material to break
# ---------------------------------------------------------------------------------------

SETUPS = [dict(players=2), dict(players=3, variants=("english",)),
          dict(players=4, board="advanced", variants=("buildings",)),
          dict(players=2, board="advanced", variants=("english", "buildings"))]


def _played(seed, setup, moves):
    """A game after `moves` random decisions (fewer if it ends)."""
    return random_game(seed, moves, **setup)


def _games():
    """Games at every kind of decision, on both boards, with the variants."""
    found, wanted = [], set(DECISIONS) - {"over"}
    seen = set()
    for seed in range(40):
        setup = SETUPS[seed % len(SETUPS)]
        g = tigris.Game(seed=seed, **setup)
        rnd = random.Random(seed)
        while not g.is_over:
            if g.decision not in seen or rnd.random() < 0.01:
                seen.add(g.decision)
                found.append(g.copy())
            g.apply(rnd.choice(g.legal_actions()))
        if seed < 4:
            found.append(g.copy())
        if wanted <= seen and len(found) > 60:
            break
    return found


GAMES = _games()
POSITIONS = [g.to_position() for g in GAMES] + [g.to_position(player=g.current_player)
                                                 for g in GAMES if not g.is_over]
RECORDS = [record.to_record(_played(seed, SETUPS[seed % 4], 60 + 40 * seed), bots=["a"] * 4)
           for seed in range(4)]


# ---------------------------------------------------------------------------------------
# Nasty values
# ---------------------------------------------------------------------------------------

huge_ints = st.sampled_from([2**31, 2**31 - 1, -2**31 - 1, 2**63, -2**63 - 1, 2**64, 255, 256,
                             65535, 65536, 10**4000])
numbers = st.one_of(st.integers(-3, 300), huge_ints, st.booleans(),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0.5, 1.5, 2.7, -0.0, float("nan"), float("inf")]))
words = st.one_of(st.sampled_from(COLOURS + LEADERS + DECISIONS + tuple(SQUARES[::7]) +
                                  ("king:0", "king:²", "red:down", "red+treasure", "catastrophe",
                                   "red+building", "trader:9", "king:" + "9" * 5000, "",
                                   "classic", "advanced", "english", "buildings", "war", "revolt",
                                   "x" * 100_000, "nul\x00name", "\ud800", "lone \udcff", "\n",
                                   "tab\there")),
                  st.text(max_size=12))
scalars = st.one_of(st.none(), numbers, words)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.one_of(words, st.sampled_from(COLOURS)),
                                                 inner, max_size=4)), max_leaves=8)


def _paths(obj, prefix=()):
    """Every path into a JSON tree (dict keys and list indices)."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for k, v in enumerate(obj):
            yield from _paths(v, prefix + (k,))


@st.composite
def mutated(draw, originals, keys=()):
    """A deep copy of one of `originals` with one to three parts replaced, removed or
    added.  `keys` are extra field names worth adding."""
    doc = json.loads(json.dumps(draw(st.sampled_from(originals))))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        how = draw(st.sampled_from(("replace", "replace", "replace", "remove", "add", "nudge")))
        if how == "remove":
            del parent[path[-1]]
        elif how == "add" and isinstance(parent, dict):
            parent[draw(st.one_of(st.sampled_from(keys or ("x",)), words))] = draw(values)
        elif how == "nudge" and isinstance(parent[path[-1]], int) and not isinstance(
                parent[path[-1]], bool):
            parent[path[-1]] += draw(st.sampled_from((-1, 1, 100, -100, 2**32)))
        else:
            parent[path[-1]] = draw(values)
    return doc


def _side(draw, players):
    return draw(st.fixed_dictionaries(
        {"player": st.one_of(st.integers(-1, players), numbers),
         "leader": st.sampled_from(SQUARES)},
        optional={"strength": st.one_of(st.integers(0, 8), numbers),
                  "committed": st.one_of(st.none(), st.integers(0, 7))}))


@st.composite
def pending_blocks(draw):
    """A position with a generated pending decision whose fields mostly fit its kind
    (a tile to unite on, leaders to fight, a trader), so that many load and are played."""
    doc = json.loads(json.dumps(draw(st.sampled_from(POSITIONS))))
    n = len(doc["players"])
    kinds = {s: t.split(":")[0].split("+")[0] for s, t in doc["squares"].items()}
    leaders = [s for s, k in kinds.items() if k in LEADERS]
    traders = [s for s, k in kinds.items() if k == "trader"]
    tiles = [s for s, t in doc["squares"].items() if t.split("+")[0] in COLOURS]
    some = lambda squares: st.one_of(st.sampled_from(squares or SQUARES), st.sampled_from(SQUARES))
    decision = draw(st.sampled_from(DECISIONS))
    fits = draw(st.integers(0, 9)) > 0          # mostly the fields this decision needs
    pending = {"decision": decision}
    if decision in ("war_order", "support") and fits or draw(st.integers(0, 9)) == 0:
        pending["unification"] = draw(some(tiles))
        pending["wars_left"] = draw(st.lists(st.sampled_from(COLOURS), unique=True,
                                             min_size=2 if decision == "war_order" else 0,
                                             max_size=4))
    if decision in ("monument", "building", "treasure") and fits or draw(st.integers(0, 9)) == 0:
        pending["placed"] = draw(some(tiles))
    if decision == "treasure" and fits or draw(st.integers(0, 19)) == 0:
        pending["trader"] = draw(some(traders))
    if decision == "support" and fits or draw(st.integers(0, 19)) == 0:
        sides = {}
        for role in ("attacker", "defender"):
            side = _side(draw, n)
            side["leader"] = draw(some(leaders))
            token = doc["squares"].get(side["leader"], "")
            if fits and ":" in token and token.split(":")[1].isdigit():
                side["player"] = int(token.split(":")[1])
            sides[role] = side
        leader = kinds.get(sides["attacker"]["leader"])
        colour = COLOURS[LEADERS.index(leader)] if leader in LEADERS and fits else \
            draw(st.sampled_from(COLOURS))
        kind = "war" if "unification" in pending else "revolt"
        pending["conflict"] = {"kind": kind if fits else draw(st.sampled_from(("war", "revolt"))),
                               "colour": colour, **sides}
    doc["pending"] = pending
    doc["actions_left"] = draw(st.sampled_from((0, 1, 1, 2)))
    return doc


# ---------------------------------------------------------------------------------------
# What a valid game must survive
# ---------------------------------------------------------------------------------------

def tile_totals(g):
    raw = g.raw_state()
    totals = [0, 0, 0, 0]
    for code in raw["squares"]:
        if 1 <= code <= 8:
            totals[(code - 1) % 4] += 1
    for c in range(4):
        totals[c] += raw["bag"][c] + raw["out"][c]
        for p in range(raw["players"]):
            totals[c] += raw["hand"][p][c] + raw["swapped"][p][c]
    return totals


def exercise(g, seed=0):
    """Everything a loaded game must stand: every legal action applied and undone exactly,
    its own position read back, rendering, and play to the end with tiles conserved."""
    assert tile_totals(g) == SUPPLY
    str(g)
    before = g.state_bytes()
    legal = g.legal_actions()
    for a in legal[:40]:
        assert 0 <= a < N_ACTIONS
        g.apply(a)
        assert tile_totals(g) == SUPPLY
        g.undo()
        assert g.state_bytes() == before
    again = tigris.Game.from_position(g.to_position(), seed=seed)
    assert again.legal_actions() == legal
    rnd = random.Random(seed)
    h = g.copy()
    for _ in range(30):
        if h.is_over:
            break
        h.apply(rnd.choice(h.legal_actions()))
        assert tile_totals(h) == SUPPLY
    h.random_playout(seed)
    assert h.is_over and tile_totals(h) == SUPPLY
    h.ranking()


# ---------------------------------------------------------------------------------------
# The properties
# ---------------------------------------------------------------------------------------

def _load_position(doc, seed):
    try:
        g = tigris.Game.from_position(doc, seed=seed)
    except tigris.PositionError as e:
        assert str(e) and len(str(e)) < 600, "the message quotes too much"
        return
    exercise(g, seed)


@_settings()
@given(mutated(POSITIONS, keys=("pending", "bag", "hand", "hand_size", "turn", "variants")),
       st.integers(0, 2**32))
def positions(doc, seed):
    """A broken position loads as a valid game or raises PositionError."""
    _load_position(doc, seed)


@_settings()
@given(pending_blocks(), st.integers(0, 3))
def pending(doc, seed):
    """A generated pending decision loads only if the board supports it."""
    _load_position(doc, seed)


@_settings()
@given(mutated(RECORDS, keys=("draws", "forced", "seed", "deal", "bots", "seconds", "result")))
def records(doc):
    """A broken record replays to a valid game or raises RecordError; one that replays
    holds every field to the format (docs/FORMATS.md): a seed of 64 bits, a printable
    name per seat, finite times, no field the format does not have."""
    try:
        g = record.replay(doc)
    except tigris.RecordError as e:
        assert str(e) and len(str(e)) < 600, "the message quotes too much"
        return
    seed = doc.get("seed")
    assert seed is None or (type(seed) is int and -2**63 <= seed < 2**63), seed
    bots = doc.get("bots")
    assert bots is None or (type(bots) is list and len(bots) == g.players and all(
        type(b) is str and b and b.isprintable() and b.encode("utf-8") for b in bots)), bots
    assert set(doc) <= set(record.KEYS) | set(record.RUN_KEYS), sorted(doc)
    for m in doc["moves"]:
        assert set(m) <= set(record.MOVE_KEYS), sorted(m)
        assert "seconds" not in m or (type(m["seconds"]) in (int, float)
                                      and 0 <= m["seconds"] < math.inf), m["seconds"]
    exercise(g)


action_values = st.one_of(scalars, st.integers(-10, N_ACTIONS + 10), huge_ints,
                          st.floats(), st.sampled_from([True, False, 0.9, 12.5, b"tile", [1]]),
                          st.builds(lambda k: notation.action_to_str(k),
                                    st.integers(0, N_ACTIONS - 1)))


@_settings()
@given(st.sampled_from(GAMES), st.lists(action_values, min_size=1, max_size=5))
def actions(game, attempts):
    """apply, is_legal, action_str and parse_action take any value: a legal action is
    applied, anything else raises IllegalActionError and leaves the game as it was."""
    g = game.copy()
    for v in attempts:
        before = g.state_bytes()
        legal = g.legal_actions()
        is_action = type(v) is int and v in legal
        is_text = isinstance(v, str)
        try:
            g.apply(v)
        except tigris.IllegalActionError:
            assert not is_action
            assert g.state_bytes() == before
        else:
            assert is_action or (is_text and g.history[-1][0] in legal)
        try:
            assert g.is_legal(v) in (True, False)
        except tigris.IllegalActionError:
            pass
        try:
            assert isinstance(g.action_str(v), str)
        except tigris.IllegalActionError:
            pass
        if isinstance(v, str):
            try:
                assert g.parse_action(v) in g.legal_actions()
            except tigris.IllegalActionError:
                pass


@_settings()
@given(st.dictionaries(st.sampled_from(("players", "seed", "board", "variants")),
                       st.one_of(values, st.sampled_from([("english",), ["buildings"], "english",
                                                          ("english", "english"), 2, 3, 4])),
                       max_size=4))
def setups(kwargs):
    """Game(...) builds a game or refuses the setting with a ValueError."""
    try:
        g = tigris.Game(**kwargs)
    except ValueError as e:
        assert str(e)
        return
    assert g.players in (2, 3, 4) and isinstance(g.seed, int)
    h = g.copy()
    h.random_playout(1)
    assert h.is_over and tile_totals(h) == SUPPLY


BOT_KEYS = ("iterations", "seconds", "exploration", "rollout", "epsilon", "rollout_depth",
            "final", "widening", "workers", "seed", "determinizations", "colour", "random_share",
            "margin_share", "margin_scale")
SMALL = tigris.Game(players=2, seed=5)


@_settings()
@given(st.sampled_from(bots.KINDS),
       st.dictionaries(st.sampled_from(BOT_KEYS), st.one_of(values, st.floats(0, 3)), max_size=3))
def bot_settings(kind, knobs):
    """bots.make accepts sound knobs and refuses the rest with a ValueError; a bot it makes
    chooses a legal action."""
    base = {"iterations": 30} if kind in ("ismcts", "pimc", "cheat") else {}
    if kind in ("ismcts", "pimc", "cheat") and "seconds" in knobs and "iterations" not in knobs:
        base = {}
    try:
        bot = bots.make(kind, **{**base, **knobs})
    except ValueError as e:
        assert str(e) and len(str(e)) < 600
        return
    p = bot.params
    if kind in ("ismcts", "pimc", "cheat"):
        assert all(math.isfinite(p[k]) for k in ("exploration", "epsilon", "widening"))
        if (p["iterations"] or 0) > 100 or (p["seconds"] or 0) > 0.02 or p["workers"] > 1 \
                or p.get("determinizations", 1) > 8:
            return                      # valid, but too slow to play here
    assert bot.choose(SMALL) in SMALL.legal_actions()


BAD = [None, True, False, -1, 0, -0.5, 1.5, float("nan"), float("inf"), float("-inf"), "3",
       2**63, -2**63, 2**64, 10**4000, [], {}]


@_settings(examples=max(30, EXAMPLES // 3))
@given(st.fixed_dictionaries({}, optional={
    "seconds": st.sampled_from(BAD + [0.01, 0.02]),
    "iterations": st.sampled_from(BAD + [2**31, 2**62, 20, 100]),
    "top": st.sampled_from(BAD + [1, 3, 10_000]),
    "jobs": st.sampled_from(BAD + [1]),
    "seed": st.sampled_from(BAD + [0, 7, 2**70])}))
def hints(kwargs):
    """tigris.hint runs on a sound budget and refuses a bad one with a ValueError; every
    sound value drawn here is small, so a hint that runs away is a failure."""
    if kwargs.get("seconds") is None and kwargs.get("iterations") is None:
        kwargs["iterations"] = 20           # not the default budget of 5 seconds
    try:
        rows = tigris.hint(SMALL, progress=False, **kwargs)
    except ValueError as e:
        assert str(e)
        return
    assert rows and all(r["action"] in SMALL.legal_actions() for r in rows)


def _typed_lines():
    """What a person may type at the table's prompt: anything, near-moves, and commands
    with any argument (but save, which writes files, and hint, which searches)."""
    legal = [SMALL.action_str(a) for a in SMALL.legal_actions()]
    near = st.builds(lambda move, cut, extra: move[:cut] + extra, st.sampled_from(legal),
                     st.integers(0, 30), st.text(max_size=8))
    command = st.builds(lambda word, rest: f"{word} {rest}",
                        st.sampled_from(["moves", "undo", "board", "help", "?", "MOVES"]),
                        st.text(max_size=20))
    line = st.one_of(st.text(max_size=60), near, command, st.sampled_from(legal))
    return st.lists(line.filter(lambda t: not t.strip().lower().startswith(("save", "hint"))),
                    max_size=6)


@_settings(examples=max(50, EXAMPLES // 10))
@given(_typed_lines())
def prompt_lines(lines):
    """The human seat's prompt takes any line: a legal move is played, anything else is
    answered and asked again; nothing raises but the way out."""
    from tigris.seat import Terminal

    game = SMALL.copy()
    queue = list(lines)
    said = []

    def read(prompt):
        if not queue:
            raise EOFError
        return queue.pop(0)

    table = Terminal(game, [None] * game.players, ["human"] * game.players, "unused.json",
                     read=read, write=said.append)
    table.save = lambda path=None: None           # a position's game has no record
    assert table.play() is False                   # the input ran out before the end
    assert all(isinstance(text, str) for text in said)


# ---------------------------------------------------------------------------------------
# Files read back: analyses and tuning runs
# ---------------------------------------------------------------------------------------

def _analysis_lines():
    """A valid analysis (header and rows, as its lines) of a short game, its rows made
    up rather than searched, and the game's decisions {move: (player, played)}."""
    from tigris import analysis

    g = _played(7, SETUPS[0], 12)
    fields, tasks = analysis.decisions(record.to_record(g, bots=["a", "b"]))
    header = {"format": analysis.FORMAT, "record": fields["record"], "source": "game.json",
              "moves": fields["moves"], "decisions": fields["decisions"], "bot": "ismcts-fast",
              "iterations": 50, "seed": 0, "players": fields["players"],
              "measure": analysis.DEFAULT_MEASURE,
              "thresholds": dict(analysis.THRESHOLDS[analysis.DEFAULT_MEASURE])}
    rows, game = [], {}
    for k, t in enumerate(tasks):
        before, played = t.before, t.before.action_str(t.action)
        game[t.move] = (before.current_player, played)
        forced = k == 2                 # one forced row, as a game's single legal moves are
        chance = None if forced else round(0.3 + 0.04 * k, 4)
        chances = None
        if not forced:
            chances = [round(1 - chance, 4)] * 2
            chances[before.current_player] = chance
        rows.append({"move": t.move, "player": before.current_player,
                     "decision": before.decision, "played": played, "best": played,
                     "chances": chances, "win_before": chance, "win_after": chance,
                     "margin_before": None if forced else round(-3.5 + k, 4),
                     "margin_after": None if forced else round(-3.5 + k, 4), "drop": 0.0, "noise": None if forced else 0.0, "rank": 1, "equal": True,
                     "legal": 1 if forced else 9, "mark": None, "visits": 0 if forced else 30,
                     "iterations": 0 if forced else 50,
                     "after_from": "forced" if forced else "best",
                     "continuation": [] if forced else ["player 1: pass"]})
    return [header] + rows, game


ANALYSIS, ANALYSED = _analysis_lines()


def _lines_file(lines, cut):
    """A temporary file of `lines` (JSON lines, or text lines as they are), cut to the
    first `cut` bytes when `cut` is not None; its path."""
    import tempfile

    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    data = text.encode("utf-8", "surrogatepass")
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    with os.fdopen(fd, "wb") as f:
        f.write(data if cut is None else data[:cut])
    return path


def _one_line_naming(error, path):
    message = str(error)
    assert message.startswith(str(path)) and "\n" not in message, message
    assert len(message) < 600, "the message quotes too much"


@_settings(examples=max(50, EXAMPLES // 10))
@given(mutated([ANALYSIS], keys=("win_before", "chances", "noise", "equal", "rank", "mark",
                                  "after_from", "players", "margin_before", "margin_after",
                                  "measure", "thresholds")),
       st.one_of(st.none(), st.integers(0, 4000)))
def analysis_files(lines, cut):
    """An analysis file broken in generated ways (fields replaced, removed or added, lines
    lost, the file cut short) reads back as a valid analysis whose summary prints, or
    raises the documented one-line UsageError naming the file; held to its game, every
    row is one of the game's decisions."""
    import warnings

    from tigris import analysis
    from tigris.errors import UsageError

    path = _lines_file(lines if isinstance(lines, list) else [lines], cut)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")            # a torn last line
            header, rows = analysis.read_analysis(path, game=(ANALYSIS[0], ANALYSED))
    except UsageError as e:
        _one_line_naming(e, path)
        return
    finally:
        os.unlink(path)
    if header is None:
        assert rows == []
        return
    assert len({r["move"] for r in rows}) == len(rows)
    assert analysis.format_summary(analysis.summarize(header, rows))
    if all(header.get(k) == ANALYSIS[0].get(k) for k in analysis.SAME):
        assert all(ANALYSED[r["move"]] == (r["player"], r["played"]) for r in rows)
        assert len(rows) <= header["decisions"]


@functools.cache
def _selfplay_lines():
    """Two valid lines of a self-play run of 2 players (a game and a failed one), as
    ``selfplay.read`` takes them, and the run's settings."""
    from tigris.runs import selfplay
    from tigris.play.runner import deal_seed

    from tigris.calibration import first_shares

    g = _played(7, SETUPS[0], 10**6)                 # played to its end, as self-play's games
    rec = record.to_record(g, bots=["a", "b"])
    s = {"players": 2, "positions": 16, "seed": 0, "games": 4, "format": selfplay.FORMAT}
    line = {"game": 0, "deal_seed": deal_seed(0, 0), "record": rec,
            "first": first_shares(g.ranking(), 2), "scores": [g.final_score(p) for p in range(2)],
            "positions": [
                {"move": 2, "player": 0, "decision": "action", "search": [0.6, 0.4],
                 "policy": [[5, 30], [7, 2]]},
                {"move": 9, "player": 1, "decision": "action", "search": [0.25, 0.75],
                 "policy": [[11, 4]]}]}
    failed = {"game": 1, "deal_seed": deal_seed(0, 1), "error": "RuntimeError: lost"}
    return [line, failed], s


def _selfplay_files():
    lines = _selfplay_lines()[0]
    return st.lists(mutated([lines[0]], keys=("search", "first", "scores", "move", "player", "error",
                                              "policy")) | st.sampled_from(lines),
                    min_size=1, max_size=3)


# Material that takes seconds to make (a played game, a tournament) is made lazily, only
# in the child process of a property that uses it.
@_settings(examples=max(50, EXAMPLES // 10))
@given(st.deferred(_selfplay_files),
       st.one_of(st.none(), st.integers(0, 4000)))
def selfplay_files(lines, cut):
    """A self-play file broken in generated ways (fields replaced, removed or added, the
    file cut short) reads back as lines that each pass the format's checks, or raises
    the documented one-line UsageError naming the file."""
    import warnings

    from tigris.runs import selfplay
    from tigris.errors import UsageError

    path = _lines_file(lines, cut)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")            # a torn last line
            read = selfplay.read(path, _selfplay_lines()[1])
    except UsageError as e:
        _one_line_naming(e, path)
        return
    finally:
        os.unlink(path)
    assert len({line["game"] for line in read}) == len(read)
    for line in read:
        assert selfplay._problem(line, _selfplay_lines()[1]) is None


def _network_bytes():
    """A small valid weights file, as bytes."""
    import tempfile

    import numpy as np

    from tigris import network

    rng = np.random.default_rng(0)
    h1, h2 = 6, 4
    shapes = {"w_sparse": (network.N_SPARSE, h1), "w_dense": (network.N_DENSE, h1), "b1": (h1,),
              "w2": (h2, h1), "b2": (h2,), "w3": (network.N_OUTPUTS, h2), "b3": (network.N_OUTPUTS,)}
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "net.npz")
        network.save(path, {k: rng.normal(0, 0.1, v).astype(np.float32) for k, v in shapes.items()}, {})
        with open(path, "rb") as f:
            return f.read()


NETWORK = _network_bytes()


@_settings(examples=max(50, EXAMPLES // 10))
@given(st.lists(st.tuples(st.integers(0, len(NETWORK) - 1), st.integers(0, 255)), max_size=8),
       st.one_of(st.none(), st.integers(0, len(NETWORK))))
def network_files(flips, cut):
    """A weights file broken in generated ways (bytes replaced, the file cut short) loads as
    a network whose chances add up to 1, or raises the one-line UsageError naming the
    file; it never crashes the interpreter."""
    import tempfile

    import tigris
    from tigris import network
    from tigris.errors import UsageError

    data = bytearray(NETWORK)
    for at, value in flips:
        data[at] = value
    data = bytes(data[:cut] if cut is not None else data)
    fd, path = tempfile.mkstemp(suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            net = network.load(path)
        except UsageError as e:
            _one_line_naming(e, path)
            return
        chances, scores = net.evaluate(tigris.Game(players=3, seed=1))
        assert abs(sum(chances) - 1) < 1e-6 and all(0 <= c <= 1 for c in chances)
    finally:
        os.unlink(path)


TUNE_PARAMS = [{"name": "exploration", "low": 0.1, "high": 2.0, "integer": False},
               {"name": "rollout_depth", "low": 0.0, "high": 6.0, "integer": True}]
TUNE_SETTINGS = {"bot": "tiny.toml", "params": TUNE_PARAMS, "opponents": ["random", "greedy"],
                 "budget": 16, "seed": 2, "name": "tiny-tuned", "verify_games": 2, "players": 2,
                 "method": "spsa"}


def _history():
    """The rows of a valid SPSA history (as lists of text, the header first)."""
    from tigris import tune

    spsa = tune.SPSA([tune.Param(**p) for p in TUNE_PARAMS], [0.7, 2], iterations=4, seed=2)
    names = [p["name"] for p in TUNE_PARAMS]
    rows = [["iteration", "games", "opponent", "score_plus", "score_minus", *names,
             *(f"{n}_plus" for n in names), *(f"{n}_minus" for n in names)]]
    for k in range(1, 5):
        delta, plus, minus = spsa.perturb(k)
        sp, sm = (1.0, 0.5) if k % 2 else (0.25, 0.75)
        spsa.update(k, delta, sp, sm)
        rows.append([str(k), str(4 * k), TUNE_SETTINGS["opponents"][(k - 1) % 2], f"{sp:.4f}",
                     f"{sm:.4f}", *(f"{x:.6g}" for x in spsa.theta + plus + minus)])
    return rows


HISTORY = _history()


def _cell(value):
    return value if isinstance(value, str) else json.dumps(value)


@_settings(examples=max(50, EXAMPLES // 10))
@given(mutated([HISTORY]), st.one_of(st.none(), st.integers(0, 600)))
def tune_histories(rows, cut):
    """A tuning history broken in generated ways (cells replaced, rows or columns lost or
    added, the file cut short) reads back as rows that replay into SPSA, or raises the
    documented one-line TuneError naming the file."""
    import csv
    import io

    from tigris import tune
    from tigris.errors import TuneError
    from tigris.tunefolder import read_history

    text = io.StringIO()
    writer = csv.writer(text)
    for row in rows if isinstance(rows, list) else [rows]:
        writer.writerow([_cell(c) for c in row] if isinstance(row, list) else [_cell(row)])
    path = _lines_file([text.getvalue()], cut)
    try:
        done = read_history(path, "spsa", TUNE_PARAMS, TUNE_SETTINGS["opponents"])
    except TuneError as e:
        _one_line_naming(e, path)
        return
    finally:
        os.unlink(path)
    assert [int(r["iteration"]) for r in done] == list(range(1, len(done) + 1))
    spec = tune.TuneSpec(bot="x", params=[tune.Param(**p) for p in TUNE_PARAMS],
                         opponents=["random"], budget=16, seed=2)
    method = tune.GAMES["spsa"](spec, [0.7, 2])
    for row in done:
        assert 0 <= float(row["score_plus"]) <= 1 and 0 <= float(row["score_minus"]) <= 1
    method.replay(done)
    assert all(p["low"] <= x <= p["high"] for p, x in zip(TUNE_PARAMS, method.theta()))


@_settings(examples=max(50, EXAMPLES // 10))
@given(mutated([TUNE_SETTINGS], keys=("method", "players", "integer")))
def tune_settings(doc):
    """A run's saved settings broken in generated ways read back as settings a run can
    be made of, or raise the documented one-line TuneError naming the file."""
    import shutil
    import tempfile

    from tigris import tune
    from tigris.errors import TuneError
    from tigris.tunefolder import SPEC_FILE, read_settings

    folder = tempfile.mkdtemp()
    try:
        with open(os.path.join(folder, SPEC_FILE), "w", encoding="utf-8") as f:
            json.dump(doc, f)
        try:
            saved = read_settings(folder)
        except TuneError as e:
            _one_line_naming(e, os.path.join(folder, SPEC_FILE))
            return
    finally:
        shutil.rmtree(folder)
    params = [tune.Param(p["name"], p["low"], p["high"], p.get("integer", False))
              for p in saved["params"]]
    assert all(p.low < p.high for p in params) and saved["method"] in tune.GAMES
    assert saved["players"] in (2, 3, 4) and saved["opponents"]


_PLAYED = {}


def _played_folder():
    """A finished tournament's files (tournament.json as a dict, the records), played once."""
    if not _PLAYED:
        import tempfile

        from tigris import tournament

        out = os.path.join(tempfile.mkdtemp(), "t")
        tournament.run(tournament.Spec(bots=["random", "greedy"], games=4, seed=3, name="t"),
                       out=out, jobs=1, progress=False)
        with open(os.path.join(out, "tournament.json"), encoding="utf-8") as f:
            _PLAYED["spec"] = json.load(f)
        _PLAYED["records"] = tournament.read_games(out)
    return _PLAYED


def _spec_files():
    return st.one_of(st.just(_played_folder()["spec"]), values,
                     mutated([_played_folder()["spec"]],
                             keys=("games", "players", "seed", "bots", "name", "board", "variants")))


def _games_lines():
    records = _played_folder()["records"]
    line = st.one_of(st.sampled_from(records).map(json.dumps),
                     mutated(records, keys=("game", "deal_seed", "tournament", "result", "error",
                                            "final", "ranking", "seconds")).map(json.dumps),
                     st.text(max_size=20), st.sampled_from(["", "null", "[]", "{}", "\udcff"]))
    return st.lists(line, max_size=6)


@_settings(examples=max(30, EXAMPLES // 40))
@given(st.deferred(_spec_files), st.deferred(_games_lines), st.booleans())
def results_folders(spec, lines, newline):
    """A results folder with a broken tournament.json or games.jsonl (lines of another
    tournament, repeated, half written, not JSON): ``tigris standings``, ``load_summary``
    and ``view.read_results`` give the standings of its games or the one-line error."""
    import contextlib
    import io
    import tempfile

    from tigris import tournament, view
    from tigris.commands import main
    from tigris.errors import UsageError

    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "tournament.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(spec))
    with open(os.path.join(folder, "games.jsonl"), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(lines) + ("\n" if newline and lines else ""))
    for read in (tournament.load_summary, view.read_results):
        try:
            summary = read(folder)
        except UsageError as e:                    # TournamentError among them
            assert str(e) and len(str(e)) < 600 and "\n" not in str(e), str(e)
            continue
        summary = summary[0] if isinstance(summary, tuple) else summary
        rows = summary["standings"]["bots"]
        assert summary["games"] <= summary["scheduled"]
        assert all(0 <= r["wins"] <= r["games"] <= summary["games"] for r in rows)
        tournament.format_summary(summary).encode("utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["standings", folder])
    assert code in (0, 1) and (code == 0 or len(err.getvalue().strip().splitlines()) == 1), err.getvalue()


@st.composite
def _lies(draw, result, seats):
    """`result` (a finished game's) changed in one generated way: what the line then says."""
    lie = json.loads(json.dumps(result))
    how = draw(st.sampled_from(["ranking", "score", "final", "drop", "add"]))
    if how == "ranking":
        order = draw(st.permutations(range(seats)))
        cuts = draw(st.sets(st.integers(1, seats - 1)))
        bounds = [0, *sorted(cuts), seats]
        ranking = [list(order[a:b]) for a, b in zip(bounds, bounds[1:])]
        if ranking == result["ranking"]:
            ranking = result["ranking"][::-1] if len(result["ranking"]) > 1 else [[s] for s in range(seats)]
        lie["ranking"] = ranking
    elif how == "score":
        p = draw(st.integers(0, seats - 1))
        part = draw(st.sampled_from(sorted(lie["scores"][p])))
        lie["scores"][p][part] += draw(st.integers(-5, 5).filter(bool))
    elif how == "final":
        p = draw(st.integers(0, seats - 1))
        lie["final"][p] += draw(st.integers(-5, 5).filter(bool))
    elif how == "drop":
        del lie[draw(st.sampled_from(sorted(lie)))]
    else:
        lie[draw(st.sampled_from(["adjudicated", "resigned", "winner"]))] = draw(scalars)
    assert lie != result
    return lie


@_settings(examples=max(30, EXAMPLES // 40))
@given(st.data())
def lying_results(data):
    """A games.jsonl line whose result was altered (another ranking, a score or a final
    score changed, a field dropped or added) is always refused, by ``standings`` and
    ``view``, in one line naming the file, the line and the result."""
    import contextlib
    import io
    import shutil
    import tempfile

    from tigris import tournament, view
    from tigris.commands import main
    from tigris.errors import TournamentError

    played = _played_folder()
    records = played["records"]
    k = data.draw(st.integers(0, len(records) - 1))
    rec = json.loads(json.dumps(records[k]))
    rec["result"] = data.draw(_lies(records[k]["result"], len(rec["bots"])))
    folder = tempfile.mkdtemp()
    try:
        with open(os.path.join(folder, "tournament.json"), "w", encoding="utf-8") as f:
            json.dump(played["spec"], f)
        lines = [json.dumps(r) for r in records]
        lines[k] = json.dumps(rec)
        games = os.path.join(folder, "games.jsonl")
        with open(games, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        for read in (tournament.load_summary, view.read_results):
            try:
                read(folder)
            except TournamentError as e:
                said = str(e)
                assert said.startswith(f"{games}:{k + 1}: ") and "result" in said, said
                assert "\n" not in said and len(said) < 600, said
            else:
                raise AssertionError(f"a lie was believed: {rec['result']}")
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            assert main(["standings", folder]) == 1
        assert len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
    finally:
        shutil.rmtree(folder)


def _nested(draw, toml=False):
    """A value nested `depth` times (lists or objects), as JSON or TOML text."""
    depth = draw(st.one_of(st.integers(1, 3000), st.sampled_from([100_000, 10_000, 999, 1000, 1001])))
    if draw(st.booleans()):
        return "[" * depth + "0" + "]" * depth
    opener = "{a = " if toml else '{"a": '
    return opener * depth + "0" + "}" * depth


@st.composite
def nested_files(draw):
    """(what is read, its text) with a value nested deeply somewhere in it."""
    what = draw(st.sampled_from(["bot", "spec", "selfplay.json", "tournament.json", "tune.json",
                                 "record", "games line", "positions line", "analysis line", "meta"]))
    toml = what in ("bot", "spec")
    value = _nested(draw, toml)
    if what == "bot":
        return what, draw(st.sampled_from([f'kind = "random"\nseed = {value}\n', f"kind = {value}\n",
                                           f'kind = "ismcts"\nnetwork = {value}\n']))
    if what == "spec":
        return what, draw(st.sampled_from([f'bots = ["random", "greedy"]\nname = {value}\n',
                                           f"bots = {value}\n"]))
    key = draw(st.sampled_from(["format", "players", "spec", "moves", "result", "params", "game", "x"]))
    return what, draw(st.sampled_from([value, f'{{"{key}": {value}}}']))


@_settings(examples=max(40, EXAMPLES // 20))
@given(nested_files())
def nested_input(case):
    """Deep nesting (to 100,000 brackets) anywhere in a file the toolkit reads back -- a
    bot or a spec (TOML), settings, a tournament's, a record, a line of a results, self-play
    or analysis file, a network's meta -- is refused in one line naming the file, or read
    as what it says; never a RecursionError."""
    import shutil
    import tempfile

    from tigris import analysis, network, tournament, tunefolder
    from tigris.runs import selfplay
    from tigris import bots as botlib
    from tigris.commands.games import game_of
    from tigris.errors import UsageError

    what, text = case
    folder = tempfile.mkdtemp()
    try:
        def put(name, content):
            path = os.path.join(folder, name)
            with open(path, "wb") as f:
                f.write(content if isinstance(content, bytes) else content.encode("utf-8"))
            return path

        valid = json.dumps(_selfplay_lines()[0][0])
        readers = {
            "bot": lambda: botlib.configuration(put("deep.toml", text)),
            "spec": lambda: tournament.load_spec(put("deep.toml", text)),
            "selfplay.json": lambda: (put("selfplay.json", text), selfplay.read_settings(folder)),
            "tournament.json": lambda: (put("tournament.json", text), tournament.load_summary(folder)),
            "tune.json": lambda: (put("tune.json", text), tunefolder.read_settings(folder)),
            "record": lambda: game_of(put("deep.json", text)),
            "games line": lambda: (put("tournament.json", json.dumps(_played_folder()["spec"])),
                                   put("games.jsonl", text + "\n" + json.dumps(_played_folder()["records"][0]) + "\n"),
                                   tournament.load_summary(folder)),
            "positions line": lambda: selfplay.read(put("p.jsonl", text + "\n" + valid + "\n"),
                                                        _selfplay_lines()[1]),
            "analysis line": lambda: analysis.read_analysis(put("a.jsonl", json.dumps(ANALYSIS[0]) + "\n"
                                                                + text + "\n" + json.dumps(ANALYSIS[1]) + "\n")),
            "meta": lambda: network.load(put("n.npz", _with_meta(text.encode("utf-8")))),
        }
        try:
            readers[what]()
        except (UsageError, ValueError) as e:          # the readers' documented errors
            said = str(e)
            assert folder in said or what == "meta" and "n.npz" in said, said
            assert "\n" not in said and len(said) < 600, said
    finally:
        shutil.rmtree(folder)


def _with_meta(meta):
    """NETWORK's arrays with `meta` (bytes) as its meta."""
    import io

    import numpy as np

    with np.load(io.BytesIO(NETWORK), allow_pickle=False) as z:
        arrays = {name: z[name] for name in z.files if name != "meta"}
    out = io.BytesIO()
    np.savez(out, meta=np.frombuffer(meta, dtype=np.uint8), **arrays)
    return out.getvalue()


# ---------------------------------------------------------------------------------------
# tigris serve: what a page may send
# ---------------------------------------------------------------------------------------

def _server():
    """A test client of a server over a folder with a record, the app's tables beside;
    the folder; a table under way (its id and a seat's key)."""
    import tempfile

    import serving
    from tigris.web.app import create_app

    folder = tempfile.mkdtemp()
    g = tigris.Game(players=2, seed=3)
    for _ in range(6):
        g.apply(g.legal_actions()[0])
    with open(os.path.join(folder, "game.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(record.to_record(g, bots=["a", "b"])))
    with open(os.path.join(folder, "saved.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(record.to_record(g, bots=["human", "human"])))
    app = create_app([folder], workers=1)
    client = serving.client(app, raise_server_exceptions=False)
    table = client.post("/api/games", json={"players": 2, "seats": ["human", "human"], "seed": 2}).json()
    key = table["seats"]["0"].split("key=")[1]
    return client, g, folder, (table["id"], key)


SERVED = {}
API_BODIES = {
    "/api/position": lambda g: g.to_position(),
    "/api/positions": lambda g: g.to_position(),
    "/api/edit": lambda g: {"position": g.to_position(), "square": "C2", "piece": "catastrophe:0"},
    "/api/hint": lambda g: {"position": g.to_position(), "seconds": 0.05},
    "/api/analysis": lambda g: {"page": "/record/0/game.json", "iterations": 5},
    "/api/games": lambda g: {"players": 2, "seats": ["human", "random"], "seed": 1, "variants": []},
    "/api/resume": lambda g: {"page": "/record/0/saved.json"},
    "/api/games/ID/move": lambda g: {"player": 0, "move": "pass", "version": 0},
    "/api/games/ID/undo": lambda g: {"player": 0, "version": 0},
    "/api/games/ID/resign": lambda g: {"player": 0, "version": 0},
    "/api/games/ID/resume": lambda g: {"player": 0},
}
JSON_TYPE = {"Content-Type": "application/json"}


def _served():
    if not SERVED:
        SERVED["client"], SERVED["game"], SERVED["folder"], SERVED["table"] = _server()
    return SERVED["client"], SERVED["game"]


def _address(path):
    """`path` with the table's id and a seat's key in it."""
    key, seat = SERVED["table"]
    return path.replace("/ID/", f"/{key}/") + (f"?key={seat}" if "/ID/" in path else "")


def _stop_searches(client):
    searches = client.app.state.tasks
    with searches._lock:                         # a search the property started: stopped
        for job in list(searches._tasks.values()):
            searches._end(job, "stopped")


def _answered_well(answer, what):
    """A 2xx, 3xx or a 4xx with a one-line message: never a 5xx."""
    assert answer.status_code < 500, (what, answer.text[:500])
    if answer.status_code >= 400 and answer.headers.get("content-type", "").startswith("application/json"):
        message = answer.json()["error"]
        assert message and "\n" not in message and "Traceback" not in message and len(message) < 1000, message


@_settings(examples=max(40, EXAMPLES // 20))
@given(st.sampled_from(sorted(API_BODIES)), st.data())
def server_requests(path, data):
    """Whatever JSON a page sends to an API route, the answer is a 2xx or a 4xx with a
    one-line message, never a 5xx: the server names what is wrong."""
    client, g = _served()
    body = data.draw(mutated([API_BODIES[path](g)], keys=("position", "seconds", "players", "seats", "page",
                                                         "version", "move", "player", "square", "piece")))
    answer = client.post(_address(path), content=json.dumps(body, allow_nan=True).encode("utf-8"),
                         headers=JSON_TYPE)
    _answered_well(answer, (path, body))
    _stop_searches(client)


def _nested_value(depth, leaf):
    """`leaf` inside `depth` lists and objects, built without recursion."""
    for k in range(depth):
        leaf = [leaf] if k % 2 else {"a": leaf}
    return leaf


hosts = st.one_of(st.sampled_from(["tigris.test:8765", "TIGRIS.test:8765", "tigris.test", "tigris.test:8766",
                                   "tigris.test.:8765", "evil.example", "evil.example:8765", "127.0.0.1:8765",
                                   "[::1]:8765", "", "tigris.test:8765:8765", "tigris.test:99999999",
                                   "tigris.test:0x21", ":8765", "[", "[]:80"]),
                  st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=30))
origins = st.one_of(st.none(), st.sampled_from(["http://tigris.test:8765", "http://TIGRIS.TEST:8765",
                                                "https://tigris.test:8765", "http://tigris.test", "null", "",
                                                "http://evil.example", "http://tigris.test:8765/",
                                                "http://tigris.test:8765.evil.example", "file://"]),
                    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30))
fetch_sites = st.one_of(st.none(), st.sampled_from(["same-origin", "none", "same-site", "cross-site", "SAME-ORIGIN"]))
content_types = st.one_of(st.none(), st.sampled_from([
    "application/json", "application/json; charset=utf-8", " Application/JSON ", "text/plain",
    "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=xyz",
    "application/json-seq", "application/jsonx", "text/json", ""]),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30))


@st.composite
def request_bodies(draw, path, g):
    """A route's body: valid, mutated, nested deep (in a field or whole), or not JSON."""
    valid = API_BODIES[path](g)
    how = draw(st.sampled_from(("valid", "mutated", "nested field", "nested", "bytes", "form")))
    if how == "valid":
        return json.dumps(valid).encode()
    if how == "mutated":
        return json.dumps(draw(mutated([valid], keys=("page", "version", "player"))), allow_nan=True).encode()
    depth = draw(st.sampled_from((2, 30, 999, 1001, 5_000, 100_000)))
    if how == "nested field":
        field = draw(st.sampled_from(sorted(valid))) if isinstance(valid, dict) else "x"
        nested = _nested_value(depth, 1)
        try:
            return json.dumps(dict(valid, **{field: nested})).encode()
        except RecursionError:                       # too deep for json.dumps: written by hand
            return ("[" * depth + "]" * depth).encode()
    if how == "nested":
        return draw(st.sampled_from(("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth))).encode()
    if how == "form":
        return b"players=2&seats=human&seats=random"
    return draw(st.binary(max_size=200))


def _state(client):
    """What a request could change: tables, positions, searches, the folder's files."""
    app = client.app
    table = app.state.tables.get(SERVED["table"][0])
    return (sorted(app.state.tables), sorted(app.state.positions), len(app.state.tasks._tasks),
            sorted(os.listdir(SERVED["folder"])), table.version if table else None)


@_settings(examples=max(40, EXAMPLES // 20))
@given(st.sampled_from(sorted(API_BODIES)), st.sampled_from(["POST"] * 6 + ["GET", "PUT", "DELETE", "OPTIONS", "PATCH"]),
       hosts, origins, fetch_sites, content_types, st.data())
def server_guards(path, method, host, origin, fetch_site, content_type, data):
    """Whatever Host, Origin, Sec-Fetch-Site and Content-Type a request names, and however
    deep its JSON nests: never a 5xx; a Host not the server's is a 400 or 421, a change
    not from the server's pages a 403, a body not sent as JSON a 415, and a refused
    request changes nothing."""
    from tigris.web.guard import authority

    client, g = _served()
    body = data.draw(request_bodies(path, g))
    headers = {"Host": host}
    for name, value in (("Origin", origin), ("Sec-Fetch-Site", fetch_site), ("Content-Type", content_type)):
        if value is not None:
            headers[name] = value
    before = _state(client)
    request = client.build_request(method, _address(path), content=body, headers=headers)
    if origin is None:
        request.headers.pop("Origin", None)          # the client's own Origin: none this time
    answer = client.send(request)
    _answered_well(answer, (method, path, headers, body[:200]))
    status = answer.status_code
    if authority(host) != "tigris.test:8765":
        assert status in (400, 421), (host, status)
    elif method not in ("GET", "OPTIONS"):           # a change: only the server's pages, as JSON
        same = origin is not None and origin.strip().lower() == "http://tigris.test:8765"
        if origin is not None and not same:
            assert status == 403, (origin, status)
        elif origin is None and fetch_site not in ("same-origin", "none"):
            assert status == 403, (fetch_site, status)
        elif content_type is None or content_type.split(";")[0].strip().lower() != "application/json":
            assert status == 415, (content_type, status)
        elif method != "POST":
            assert status == 405, (method, status)
        elif body.count(b"[") + body.count(b"{") > 900:  # nested deep: refused, whatever the route
            assert 400 <= status < 500, status
    else:
        assert status in (405, 404, 400), (method, status)
    if status >= 400:
        assert _state(client) == before, (method, path, headers, status)
    _stop_searches(client)


# ---------------------------------------------------------------------------------------
# Every reader against every kind of file: devices, pipes, sockets, folders, links
# ---------------------------------------------------------------------------------------

# The names of `_readers()`, here so that the property is made without its material.
READERS = ("record", "game K of a games.jsonl", "bot file", "tournament spec", "TOML", "network",
           "analysis", "self-play data", "tuning history", "tuning settings", "win-chance map",
           "calibration", "results folder's games", "results folder's spec")


@functools.cache
def _readers():
    """Each reader of a file the toolkit reads back: ``name -> (the file's name, its
    valid content as bytes, a function of a folder holding it that reads it)``.  A reader
    of a folder (a results folder, a tuning folder) is given the folder; the others the
    file."""
    import csv
    import io

    from tigris import analysis, bots, calibration, chance, network, tournament, tunefolder
    from tigris._plumbing.tomlfile import read_toml
    from tigris.runs import selfplay

    def jsonl(lines):
        return "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")

    history = io.StringIO()
    csv.writer(history).writerows(HISTORY)
    played = _played_folder()
    shipped = os.path.join(os.path.dirname(chance.__file__), "{}.json")
    with open(shipped.format("chance"), "rb") as f:
        chances = f.read()
    with open(shipped.format("calibration"), "rb") as f:
        calibrated = f.read()

    spec = json.dumps(played["spec"]).encode("utf-8")
    games = jsonl(played["records"])

    def results(folder):
        return tournament.load_summary(folder)

    def tune_settings(folder):
        return tunefolder.read_settings(folder)

    bot = b'kind = "ismcts"\niterations = 10\n'
    return {
        "record": ("g.json", json.dumps(RECORDS[0]).encode("utf-8"),
                   lambda d: record.load(os.path.join(d, "g.json"))),
        "game K of a games.jsonl": ("games.jsonl", games,
                                    lambda d: record.load(os.path.join(d, "games.jsonl") + ":2")),
        "bot file": ("b.toml", bot, lambda d: bots.configuration(os.path.join(d, "b.toml"))),
        "tournament spec": ("t.toml", b'bots = ["random", "greedy"]\ngames = 2\n',
                            lambda d: tournament.load_spec(os.path.join(d, "t.toml"))),
        "TOML": ("x.toml", bot, lambda d: read_toml(os.path.join(d, "x.toml"))),
        "network": ("n.npz", NETWORK, lambda d: network.load(os.path.join(d, "n.npz")).meta),
        "analysis": ("a.jsonl", jsonl(ANALYSIS),
                     lambda d: analysis.read_analysis(os.path.join(d, "a.jsonl"))),
        "self-play data": ("positions.jsonl", jsonl(_selfplay_lines()[0]),
                           lambda d: selfplay.read(os.path.join(d, "positions.jsonl"), _selfplay_lines()[1])),
        "tuning history": ("history.csv", history.getvalue().encode("utf-8"),
                           lambda d: tunefolder.read_history(os.path.join(d, "history.csv"), "spsa",
                                                             TUNE_PARAMS, TUNE_SETTINGS["opponents"])),
        "tuning settings": (tunefolder.SPEC_FILE, json.dumps(TUNE_SETTINGS).encode("utf-8"), tune_settings),
        "win-chance map": ("chance.json", chances, lambda d: chance.load(os.path.join(d, "chance.json"))),
        "calibration": ("calibration.json", calibrated,
                        lambda d: calibration.load_model(os.path.join(d, "calibration.json"))),
        "results folder's games": ("games.jsonl", games, results, {"tournament.json": spec}),
        "results folder's spec": ("tournament.json", spec, results, {"games.jsonl": games}),
    }


_KINDS = ("the file", "a symbolic link to it", "a hard link to it", "a link to /dev/zero",
          "a link to /dev/null", "a link to /dev/urandom", "a pipe", "a pipe with a writer",
          "a socket", "a folder", "a link to nothing", "a link to itself")


def _make(kind, path, data):
    """`path` made the `kind` of file (the valid bytes `data` where it has content); what
    must be closed afterwards."""
    import socket

    held = []
    if kind in ("the file", "a symbolic link to it", "a hard link to it"):
        real = path if kind == "the file" else path + ".real"
        with open(real, "wb") as f:
            f.write(data)
        if kind == "a symbolic link to it":
            os.symlink(os.path.basename(real), path)
        elif kind == "a hard link to it":
            os.link(real, path)
    elif kind.startswith("a link to /dev/"):
        os.symlink(kind[len("a link to "):], path)
    elif kind.startswith("a pipe"):
        os.mkfifo(path)
        if kind.endswith("writer"):          # a writer that never writes: a read would wait
            held.append(os.open(path, os.O_RDWR | os.O_NONBLOCK))
    elif kind == "a socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(path)
        held.append(sock)
    elif kind == "a folder":
        os.mkdir(path)
    elif kind == "a link to nothing":
        os.symlink("nowhere", path)
    else:
        os.symlink(os.path.basename(path), path)
    return held


def _every_reader(test):
    """`test` given every reader once, besides the readers hypothesis draws."""
    for name in READERS:
        test = example(name=name, cut=None)(test)
    return test


@_settings(examples=max(20, EXAMPLES // 100))
@_every_reader
@given(name=st.sampled_from(READERS), cut=st.one_of(st.none(), st.integers(0, 4000)))
def file_kinds(name, cut):
    """Every reader given each kind of file where it reads one (the valid content, or
    that content cut short): the file itself or a link to it (symbolic or hard) reads as
    the file does (or is refused alike); a device, a pipe (with or without a writer), a
    socket, a folder, a dangling or looping link is refused at once in one line naming
    the file, never read to its end, never waited on (a hang fails the run's timeout)."""
    import shutil
    import tempfile
    import warnings

    assert sorted(_readers()) == sorted(READERS)
    file, data, read, *others = _readers()[name]
    data = data if cut is None else data[:cut]
    outcome = {}
    for kind in _KINDS:
        folder = tempfile.mkdtemp()
        try:
            for other, content in (others[0] if others else {}).items():
                with open(os.path.join(folder, other), "wb") as f:
                    f.write(content)
            held = _make(kind, os.path.join(folder, file), data)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")          # a torn last line
                    outcome[kind] = ("read", repr(read(folder)).replace(folder, "FOLDER"))
            except ValueError as e:
                message = str(e)
                assert file in message and "\n" not in message and len(message) < 600, (name, kind, message)
                outcome[kind] = ("refused", None)
            finally:
                for h in held:
                    h.close() if hasattr(h, "close") else os.close(h)
        finally:
            shutil.rmtree(folder)
    linked = ("a symbolic link to it", "a hard link to it")
    assert all(outcome[k] == outcome["the file"] for k in linked), (name, outcome)
    assert all(outcome[k][0] == "refused" for k in _KINDS if k not in ("the file", *linked)), (name, outcome)
    if cut is None:
        assert outcome["the file"][0] == "read", (name, outcome)


PROPERTIES = {f.__name__: f for f in (positions, pending, records, actions, setups, bot_settings,
                                      hints, prompt_lines, analysis_files, selfplay_files,
                                      network_files, tune_histories, tune_settings, results_folders,
                                      server_requests, server_guards)}
PROPERTIES.update({f.__name__: f for f in (lying_results, nested_input, file_kinds)})


if __name__ == "__main__":
    names = sys.argv[1:2] or list(PROPERTIES)
    for name in names:
        PROPERTIES[name]()
        print(f"{name}: passed")
