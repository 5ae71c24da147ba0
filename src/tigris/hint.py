"""Move hints for the player to move: the best moves by ISMCTS, with visit share, an
estimated win probability and the expected continuation.

>>> import tigris
>>> g = tigris.Game(players=2, seed=7)
>>> for h in tigris.hint(g, iterations=2000, top=3, progress=False):   # doctest: +SKIP
...     print(h["move"], h["share"], h["win"], h["continuation"])
"""

import sys

from tqdm import tqdm

from tigris import bots
from tigris.bots import config
from tigris import parallel as workers
from tigris.bots.search import _grow, merge
from tigris.errors import excerpt

CHUNKS = 20          # progress steps of a single-worker search


def hint(game, seconds=None, iterations=None, top=5, jobs=1, bot="ismcts-fast", seed=None,
         progress=None):
    """Rank the moves of ``game.current_player``.

    Give ``seconds`` (default 5) or ``iterations``.  ``bot`` names the configuration whose
    search knobs are used.  Returns up to ``top`` dicts, best first: ``move`` (notation),
    ``action``, ``visits``, ``share`` (of the root visits), ``win`` (mean reward of the
    player: the estimated chance to win in 2-player games) and ``continuation`` (the
    expected next decisions, as "player N: move" strings)."""
    if game.is_over:
        raise ValueError("the game is over: there is no move to hint")
    if game.current_player in game.unknown["hands"]:
        raise ValueError(f"player {game.current_player}'s hand is unknown (null in the "
                         "position): a hint would recommend tiles the player may not hold; "
                         "give the hand to get a hint")
    if seconds is None and iterations is None:
        seconds = 5.0
    # A bot's budget checks: finite positive seconds, an iteration count a tree holds.
    if seconds is not None:
        seconds = config.check_value("ismcts", "seconds", seconds)
    if iterations is not None:
        iterations = config.check_value("ismcts", "iterations", iterations)
    if not isinstance(top, int) or isinstance(top, bool) or top < 1:
        raise ValueError(f"top must be a whole number of moves, at least 1, not {excerpt(top)}")
    overrides = {"workers": config.check_value("ismcts", "workers", jobs, where="jobs")}
    if seed is not None:
        overrides["seed"] = config.check_value("ismcts", "seed", seed, where="seed")
    kind = bots.describe(bot)[0] if isinstance(bot, str) else bot.kind
    if kind != "ismcts":
        raise ValueError(f"hints need an ismcts bot configuration, not a {kind} one")
    engine = bots.load(bot, **overrides) if isinstance(bot, str) else bot
    legal = game.legal_actions()
    if len(legal) == 1:
        return [_row(game, {"action": legal[0], "visits": 1, "value": float("nan"), "pv": []}, 1)]
    show = progress if progress is not None else (seconds or 0) >= 1 or (iterations or 0) >= 20_000
    stats = _search(engine, game, seconds, iterations, jobs, show)
    total = sum(ch["visits"] for ch in stats["children"]) or 1
    return [_row(game, ch, total) for ch in stats["children"][:top]]


def _search(engine, game, seconds, iterations, jobs, show):
    view = engine.view(game)
    options = engine.options
    if jobs == 1:
        import tigris._search as search
        s = search.Search(view, seed=engine.rng.getrandbits(63), **options)
        with tqdm(total=CHUNKS, desc="searching", unit="step", disable=not show, file=sys.stderr,
                  leave=False) as bar:
            for k in range(CHUNKS):
                if iterations:
                    part = iterations * (k + 1) // CHUNKS - iterations * k // CHUNKS
                    if part:
                        s.step(iterations=part)
                else:
                    s.step(seconds=seconds / CHUNKS)
                bar.set_postfix(iterations=s.iterations)
                bar.update()
        return merge([s.stats()])
    from joblib import delayed
    seeds = [engine.rng.getrandbits(63) for _ in range(jobs)]
    share = -(-iterations // jobs) if iterations else None
    runs = workers.run(jobs, [delayed(_grow)(view, options, share, seconds, True, sd) for sd in seeds],
                       generator=True)
    done = []
    try:
        for stats in tqdm(runs, total=jobs, desc="searching", unit="worker", disable=not show,
                          file=sys.stderr, leave=False):
            done.append(stats)
    except KeyboardInterrupt:
        workers.stop(runs)
        raise
    return merge(done)


def _row(game, ch, total):
    line, g = [], game.copy(stack=False)
    g.apply(ch["action"])
    for action, player in ch.get("pv", []):
        line.append(f"player {player}: {g.action_str(action)}")
    return {"move": game.action_str(ch["action"]), "action": ch["action"], "visits": ch["visits"],
            "share": ch["visits"] / total, "win": ch["value"], "continuation": line}


def format_table(game, hints):
    """The hints as a text table."""
    rows = [f"player {game.current_player} to decide ({game.decision}); best moves:",
            f"{'#':>2}  {'move':<24} {'visits':>8} {'share':>6} {'win':>6}  continuation"]
    for k, h in enumerate(hints, start=1):
        cont = "; ".join(h["continuation"][:4])
        rows.append(f"{k:>2}  {h['move']:<24} {h['visits']:>8} {h['share']:>6.1%} "
                    f"{h['win']:>6.1%}  {cont}")
    return "\n".join(rows)
