"""Game records (``tigris-game/1``): setup, every decision, every draw, the result.

A record replays without the random number generator: the deal and every draw are
stored, so a replay reproduces the final state exactly even if the RNG changes.

>>> g = tigris.Game(players=2, seed=1)                      # doctest: +SKIP
>>> ...play...
>>> rec = to_record(g, bots=["random", "greedy"])
>>> replay(rec)._state_bytes() == g._state_bytes()           # except the RNG state
"""

import json

from tigris._game import Game
from tigris.errors import IllegalActionError, RecordError
from tigris.notation import COLOURS

FORMAT = "tigris-game/1"


def _draws_to_json(draws):
    return [[p, COLOURS[c]] for p, c in draws]


def _draws_from_json(draws, where):
    out = []
    for item in draws:
        if (not isinstance(item, (list, tuple)) or len(item) != 2 or not isinstance(item[0], int)
                or item[1] not in COLOURS):
            raise RecordError(f"{where}: a draw is [player, colour], not {item!r}")
        out.append((item[0], COLOURS.index(item[1])))
    return out


def to_record(game, bots=None, timings=None, extra=None):
    """The record of a game played from its setup with ``Game(players, seed, ...)``."""
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


def result(game):
    """Ranking and scores of a finished game, or None while it runs."""
    if not game.is_over:
        return None
    return {
        "ranking": game.ranking(),
        "scores": [game.score(p) for p in range(game.players)],
        "final": [game.final_score(p) for p in range(game.players)],
    }


def replay(rec, upto=None):
    """Rebuild the game of a record, checking every move; ``upto`` stops after that many
    moves.  Raises RecordError naming the move number and the reason."""
    if isinstance(rec, (str, bytes)):
        try:
            rec = json.loads(rec)
        except json.JSONDecodeError as e:
            raise RecordError(f"not JSON: {e}") from None
    if not isinstance(rec, dict) or rec.get("format") != FORMAT:
        raise RecordError(f"format: expected {FORMAT!r}, got {rec.get('format') if isinstance(rec, dict) else rec!r}")
    for key in ("players", "deal", "moves"):
        if key not in rec:
            raise RecordError(f"{key}: missing")
    try:
        game = Game(players=rec["players"], seed=rec.get("seed") or 0,
                    board=rec.get("board", "classic"), variants=tuple(rec.get("variants", ())))
    except (ValueError, TypeError) as e:
        raise RecordError(f"setup: {e}") from None
    _redeal(game, _draws_from_json(rec["deal"], "deal"))
    moves = rec["moves"]
    if not isinstance(moves, list):
        raise RecordError("moves: expected a list")
    for n, move in enumerate(moves[:upto] if upto is not None else moves, start=1):
        _replay_move(game, n, move)
    if upto is None and rec.get("result") is not None and result(game) != rec["result"]:
        raise RecordError(f"result: the replay ends with {result(game)}, the record says {rec['result']}")
    return game


def steps(rec):
    """Yield ``(n, game)`` after 0, 1, 2, ... moves of a record: one replay, each move
    checked as in ``replay``.  The same Game object is yielded each time."""
    game = replay(rec, upto=0)
    yield 0, game
    for n, move in enumerate(rec["moves"], start=1):
        _replay_move(game, n, move)
        yield n, game


def _replay_move(game, n, move):
    if not isinstance(move, dict) or "move" not in move:
        raise RecordError(f"move {n}: expected an object with a 'move', got {move!r}")
    where = f"move {n} ({move['move']})"
    if game.is_over:
        raise RecordError(f"{where}: the game is already over")
    if move.get("player", game.current_player) != game.current_player:
        raise RecordError(f"{where}: recorded for player {move['player']}, "
                          f"but player {game.current_player} is to decide")
    try:
        a = game.parse_action(move["move"])
    except IllegalActionError as e:
        raise RecordError(f"move {n}: {e}") from None
    draws = _draws_from_json(move.get("draws", []), where)
    try:
        game._apply_with_draws(a, draws)
    except ValueError as e:
        raise RecordError(f"{where}: {e}") from None
    forced = [game.action_str(f) for f in game.history[-1][2]]
    if "forced" in move and move["forced"] != forced:
        game.undo()
        raise RecordError(f"{where}: the record says the engine then played {move['forced']}, "
                          f"the engine plays {forced}")


def _redeal(game, deal):
    """Replace the deal made by the RNG with the recorded one."""
    raw = game._raw()
    for p in range(game.players):
        for c in range(4):
            raw["bag"][c] += raw["hand"][p][c]
            raw["hand"][p][c] = 0
    for p, c in deal:
        if not 0 <= p < game.players:
            raise RecordError(f"deal: player {p} is not in this game")
        if raw["bag"][c] == 0:
            raise RecordError(f"deal: no {COLOURS[c]} tile left to deal")
        raw["bag"][c] -= 1
        raw["hand"][p][c] += 1
    for p in range(game.players):
        if sum(raw["hand"][p]) != 6:
            raise RecordError(f"deal: player {p} is dealt {sum(raw['hand'][p])} tiles, not 6")
    seed, deal_pairs = game.seed, list(deal)
    game._load_raw(raw)
    game._set_deal(deal_pairs)
    game.seed = seed


def load(path):
    """Read a JSON file (a record or a position), or one game of a tournament's
    games.jsonl as ``FILE:K`` (the K-th game, 1-based)."""
    text_path, index = str(path), None
    head, sep, tail = text_path.rpartition(":")
    if sep and tail.isdigit():
        text_path, index = head, int(tail)
    try:
        with open(text_path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise RecordError(f"{text_path}: {e.strerror}") from None
    if index is not None:
        lines = [line for line in text.splitlines() if line.strip()]
        k = index
        if not 1 <= k <= len(lines):
            raise RecordError(f"{text_path}: game {k} asked for, the file holds {len(lines)}")
        text = lines[k - 1]
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: not JSON ({e})") from None
