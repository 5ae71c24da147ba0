"""Game records (``tigris-game/1``): setup, every decision, every draw, the result.

A record replays without the random number generator: the deal and every draw are
stored, so a replay reproduces the final state exactly even if the RNG changes.

>>> import tigris
>>> from tigris.record import replay, to_record
>>> g = tigris.Game(players=2, seed=1)
>>> for move in ["tile red A1", "tile black B1"]:
...     g.apply(move)
>>> rec = to_record(g, bots=["random", "greedy"])
>>> rec["moves"][1]["draws"]                                 # the end-of-turn refill
[[0, 'blue'], [0, 'green']]
>>> replay(rec).to_position() == g.to_position()             # the same game, RNG aside
True
"""

import functools
import math
import os
import re
from collections.abc import Sequence
from typing import Any

from tigris._game import Game
from tigris.boards import BOARD_NAMES
from tigris.errors import IllegalActionError, RecordError, difference, excerpt, newer_format
from tigris.files import split_source
from tigris.notation import str_to_action
from tigris.sources import MAX_LINE, open_source, parse_json, read_source
from tigris.constants import COLOURS

__all__ = ["FORMAT", "KEYS", "RUN_KEYS", "MOVE_KEYS", "MAX_NAME", "to_record", "replay", "load", "result", "steps", "check_result"]

FORMAT = "tigris-game/1"
# The keys of a record, and of each of its moves; a run's games add their number, deal
# seed, run name, time and its worker's CPU time, and a failed game its error
# (``play.runner.play_game``).
KEYS = ("format", "board", "variants", "players", "bots", "seed", "deal", "moves", "result")
RUN_KEYS = ("game", "deal_seed", "tournament", "seconds", "cpu_seconds", "error", "traceback")
MOVE_KEYS = ("player", "move", "forced", "draws", "seconds")
SEEDS = (-2**63, 2**63)            # a seed is a signed 64-bit number: every run's fits
MAX_NAME = 200                     # characters of a bot's name in a record
_SURROGATE = re.compile("[\ud800-\udfff]")


def _draws_to_json(draws):
    return [[p, COLOURS[c]] for p, c in draws]


_COLOUR_IDS = {name: c for c, name in enumerate(COLOURS)}


def _draws_from_json(draws, where):
    """[(player, colour id)] of a record's draws; RecordError naming `where` (text, or
    a function that gives it: a replay names its move only when one is wrong)."""
    if not isinstance(draws, list):
        where = where() if callable(where) else where
        raise RecordError(f"{where}: expected a list of [player, colour] draws, not "
                          f"{excerpt(draws)}")
    out = []
    for item in draws:
        # the types as JSON gives them: an int that is not a bool, a colour's name
        if type(item) in (list, tuple) and len(item) == 2 and type(item[0]) is int \
                and type(item[1]) is str and item[1] in _COLOUR_IDS:
            out.append((item[0], _COLOUR_IDS[item[1]]))
            continue
        where = where() if callable(where) else where
        raise RecordError(f"{where}: a draw is [player, colour], not {excerpt(item)}")
    return out


def to_record(game: Game, bots: Sequence[str] | None = None,
              timings: Sequence[float] | None = None,
              extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The record of a game played from its setup with ``Game(players, seed, ...)``, or
    replayed from a record.  RecordError for a game whose history does not go back to its
    deal (loaded from a position, a ``copy(stack=False)``, after ``random_playout``): its
    record would not replay; write its position instead."""
    if not game.history_complete:
        raise RecordError("to_record: this game's moves since its deal are unknown (it was "
                          "loaded from a position, copied without its history or played on "
                          "by random_playout), so its record would not replay; save its "
                          "position (to_position) instead")
    moves = []
    for i, (a, player, forced, draws) in enumerate(game.history):
        move = {"player": player, "move": game.action_str(a)}
        if forced:
            move["forced"] = [game.action_str(f) for f in forced]
        if draws:
            move["draws"] = _draws_to_json(draws)
        if timings is not None and i < len(timings):
            move["seconds"] = round(timings[i], 6)
        moves.append(move)
    rec = {
        "format": FORMAT,
        "board": game.board,
        "variants": list(game.variants),
        "players": game.players,
        "bots": list(bots) if bots is not None else None,
        "seed": game.seed,
        "deal": _draws_to_json(game.deal),
        "moves": moves,
        "result": result(game),
    }
    if extra:
        rec.update(extra)
    return rec


def result(game, adjudicated=None, resigned=None):
    """Ranking and scores of a finished game, or None while it runs.  ``adjudicated`` (why)
    ranks a game stopped before its end as it stands, by R89 on the scores so far, and
    says so in the result's ``adjudicated``; a player who ``resigned`` is ranked last
    (the result's ``resigned``)."""
    if not game.is_over and adjudicated is None:
        return None
    ranking = game.ranking()
    if resigned is not None:
        ranking = [kept for kept in ([p for p in tied if p != resigned] for tied in ranking) if kept]
        ranking.append([resigned])
    out = {
        "ranking": ranking,
        "scores": [game.score(p) for p in range(game.players)],
        "final": [game.final_score(p) for p in range(game.players)],
    }
    if adjudicated is not None:
        out["adjudicated"] = adjudicated
    if resigned is not None:
        out["resigned"] = resigned
    return out


def replay(rec: dict[str, Any] | str | bytes, upto: int | None = None) -> Game:
    """Rebuild the game of a record, checking every move; ``upto`` stops after that many
    moves (0 to the number of moves).  Raises RecordError naming the field or the move
    number, and the reason."""
    if isinstance(rec, (str, bytes)):
        rec = parse_json(rec, RecordError, "record")
    if not isinstance(rec, dict) or rec.get("format") != FORMAT:
        got = rec.get("format") if isinstance(rec, dict) else rec
        said = newer_format(got, FORMAT) or f"expected {FORMAT!r}, got {excerpt(got)}"
        raise RecordError(f"format: {said}")
    for key in ("players", "deal", "moves"):
        if key not in rec:
            raise RecordError(f"{key}: missing")
    unknown = [key for key in rec if key not in KEYS and key not in RUN_KEYS]
    if unknown:
        raise RecordError(f"{excerpt(unknown[0], 30)}: not a field of a record (they are "
                          f"{', '.join(KEYS)}, and a run's {', '.join(RUN_KEYS)})")
    for key, (fits, what) in _RUN_FIELDS.items():
        if key in rec and not fits(rec[key]):
            raise RecordError(f"{key}: expected {what}, not {excerpt(rec[key])}")
    try:
        game = Game(**_setup(rec))
    except ValueError as e:
        if isinstance(e, RecordError):
            raise
        raise RecordError(f"variants: {e}") from None      # the other fields are checked
    _check_bots(rec.get("bots"), game.players)
    try:
        game.redeal(_draws_from_json(rec["deal"], "deal"))
    except ValueError as e:
        if isinstance(e, RecordError):
            raise
        raise RecordError(f"deal: {e}") from None
    moves = rec["moves"]
    if not isinstance(moves, list):
        raise RecordError(f"moves: expected a list, not {excerpt(moves)}")
    if upto is not None and (isinstance(upto, bool) or not isinstance(upto, int)
                             or not 0 <= upto <= len(moves)):
        raise RecordError(f"move {excerpt(upto)}: out of range; the record holds {len(moves)} "
                          f"moves (ask for 0 to {len(moves)})")
    for n, move in enumerate(moves[:upto] if upto is not None else moves, start=1):
        _replay_move(game, n, move)
    if upto is None:
        check_result(rec, game)
    return game


def check_result(rec, game):
    """RecordError unless the record's result (if it has one) is that of `game`, the game
    after all its moves: what ``replay`` checks last, for a caller that went through the
    moves with ``steps``."""
    said = rec.get("result")
    if said is not None:
        why = said.get("adjudicated") if isinstance(said, dict) else None
        resigned = said.get("resigned") if isinstance(said, dict) else None
        if resigned is not None and not (isinstance(resigned, int) and not isinstance(resigned, bool)
                                         and 0 <= resigned < game.players and isinstance(why, str)):
            raise RecordError(f"result: resigned must be a player of the game, with the reason in "
                              f"adjudicated, not {excerpt(resigned)}")
        replayed = result(game, why if isinstance(why, str) else None, resigned)
        if replayed != said:
            field, ours, theirs = difference(replayed, said, "result")
            raise RecordError(f"{field}: the replay gives {excerpt(ours, 120)}, the record "
                              f"says {excerpt(theirs, 120)}")


def _setup(rec):
    """The Game arguments of a record, each checked: RecordError names the field."""
    players = rec["players"]
    if isinstance(players, bool) or not isinstance(players, int) or players not in (2, 3, 4):
        raise RecordError(f"players: expected 2, 3 or 4, not {excerpt(players)}")
    seed = rec.get("seed")
    if seed is None:
        seed = 0
    elif isinstance(seed, bool) or not isinstance(seed, int) or not SEEDS[0] <= seed < SEEDS[1]:
        raise RecordError(f"seed: expected a whole number from -2**63 to 2**63 - 1, or null, "
                          f"not {excerpt(seed)}")
    board = rec.get("board", "classic")
    if not isinstance(board, str) or board not in BOARD_NAMES:
        raise RecordError(f"board: expected one of {', '.join(BOARD_NAMES)}, not {excerpt(board)}")
    variants = rec.get("variants", [])
    if variants is None:
        variants = []
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise RecordError(f"variants: expected a list of variant names, not {excerpt(variants)}")
    return {"players": players, "seed": seed, "board": board, "variants": tuple(variants)}


def _whole(x, low, high):
    return type(x) is int and low <= x < high


def _seconds(x):
    """A time as JSON gives it: a finite number from 0 (a NaN fails every comparison)."""
    return type(x) is float and 0.0 <= x < math.inf or type(x) is int and 0 <= x < 2**53


# What a run's fields of a record may hold (``play.runner.play_game`` writes them).
_RUN_FIELDS = {
    "game": (lambda x: _whole(x, 0, 2**53), "a game number from 0"),
    "deal_seed": (lambda x: _whole(x, *SEEDS), "a whole number from -2**63 to 2**63 - 1"),
    "tournament": (lambda x: isinstance(x, str) and not _SURROGATE.search(x), "the run's name"),
    "seconds": (_seconds, "a number of seconds from 0"),
    "cpu_seconds": (_seconds, "a number of seconds from 0"),
    "error": (lambda x: x is None or isinstance(x, str), "text or null"),
    "traceback": (lambda x: isinstance(x, str), "text"),
}


def _check_bots(bots, players):
    """RecordError unless `bots` is null or a name per seat: text of 1 to MAX_NAME
    printable characters (no NUL, no control character, no lone surrogate)."""
    if bots is None:
        return
    if not isinstance(bots, list) or len(bots) != players:
        raise RecordError(f"bots: expected a list of {players} names (one per seat) or null, "
                          f"not {excerpt(bots)}")
    for seat, name in enumerate(bots):
        if not (isinstance(name, str) and 0 < len(name) <= MAX_NAME and name.isprintable()
                and not _SURROGATE.search(name)):
            raise RecordError(f"bots[{seat}]: a name is 1 to {MAX_NAME} printable characters, "
                              f"not {excerpt(name)}")


def steps(rec, start=None):
    """Yield ``(n, game)`` after 0, 1, 2, ... moves of a record: one replay, each move
    checked as in ``replay``.  The same Game object is yielded each time.  ``start``:
    ``(k, game)``, the game after the record's first k moves (an earlier replay of them):
    only the steps after move k, from a copy of that game."""
    if start is None:
        k, game = 0, replay(rec, upto=0)
        yield 0, game
    else:
        k, game = start[0], start[1].copy()
    for n, move in enumerate(rec["moves"][k:], start=k + 1):
        _replay_move(game, n, move)
        yield n, game


def _replay_move(game, n, move):
    if not isinstance(move, dict) or "move" not in move:
        raise RecordError(f"move {n}: expected an object with a 'move', got {excerpt(move)}")
    text = move["move"]
    if not isinstance(text, str):
        raise RecordError(f"move {n}: the move is notation such as 'tile red G5', not "
                          f"{excerpt(text)}")
    unknown = [key for key in move if key not in MOVE_KEYS]
    if unknown:
        raise RecordError(f"{_where(n, text)}: {excerpt(unknown[0], 30)} is not a field of a "
                          f"move (they are {', '.join(MOVE_KEYS)})")
    if "seconds" in move:
        x = move["seconds"]
        if not _seconds(x):
            raise RecordError(f"{_where(n, text)}: seconds must be a number from 0, not "
                              f"{excerpt(x)}")
    if game.is_over:
        raise RecordError(f"{_where(n, text)}: the game is already over")
    if "player" in move and move["player"] != game.current_player:
        raise RecordError(f"{_where(n, text)}: recorded for player {excerpt(move['player'])}, "
                          f"but player {game.current_player} is to decide")
    try:
        a = _action_id(text)
    except IllegalActionError as e:
        raise RecordError(f"move {n}: {e}") from None
    draws = move.get("draws", [])
    if draws != []:
        draws = _draws_from_json(draws, lambda: _where(n, text))
    try:
        game.apply(a, draws=draws)           # checks that the move is legal, and its draws
    except IllegalActionError as e:
        raise RecordError(f"move {n}: {e}") from None
    except ValueError as e:
        raise RecordError(f"{_where(n, text)}: {e}") from None
    if "forced" in move:
        forced = [game.action_str(f) for f in game.history[-1][2]]
        if move["forced"] != forced:
            game.undo()
            raise RecordError(f"{_where(n, text)}: the record says the engine then played "
                              f"{excerpt(move['forced'], 200)}, the engine plays {forced}")


def _where(n, text):
    """Move `n` as errors name it, with its notation."""
    return f"move {n} ({text if len(text) <= 40 else excerpt(text)})"


def _action_id(text):
    """The action id of a move's notation (IllegalActionError if it is malformed); a
    short one is remembered, as a replay reads the same few hundred texts again and
    again."""
    return _known_action(text) if len(text) <= 40 else str_to_action(text)


@functools.lru_cache(maxsize=8192)
def _known_action(text):
    return str_to_action(text)


def load(path: str | os.PathLike[str]) -> Any:
    """Read a JSON file (a record or a position), or one game of a tournament's
    games.jsonl as ``FILE:K`` (the K-th game, 1-based).  Only a regular file is read (a
    pipe would block, a device never end): RecordError names anything else."""
    text_path, tail = split_source(path)
    if tail is not None:
        return parse_json(_line_of(text_path, tail), RecordError, str(path))
    try:
        text = read_source(path, RecordError).decode("utf-8")
    except UnicodeDecodeError as e:
        raise RecordError(f"{text_path}: not UTF-8 text (byte {e.start})") from None
    return parse_json(text, RecordError, str(path))


def _line_of(path, tail):
    """The bytes of the K-th line that is not blank of the JSON-lines file `path` (K
    the digits `tail`), read a line at a time (``sources.MAX_LINE`` at most)."""
    k = int(tail) if len(tail) < 19 else -1          # never int() 5,000 digits
    count = 0
    with open_source(path, RecordError) as f:
        for line in iter(lambda: f.readline(MAX_LINE + 1), b""):
            if len(line) > MAX_LINE:
                raise RecordError(f"{path}: game {count + 1} is longer than "
                                  f"{MAX_LINE // 2**20} MB, not a game of tigris's")
            if line.strip():
                count += 1
                if count == k:
                    return line
    raise RecordError(f"{path}: game {tail if len(tail) < 19 else excerpt(tail, 12)} "
                      f"asked for, the file holds {count}")
