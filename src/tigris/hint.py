"""Move hints for the player to move: the best moves by ISMCTS, with visit share, an
estimated win probability and the expected continuation.

>>> import tigris
>>> g = tigris.Game(players=2, seed=7)
>>> for h in tigris.hint(g, iterations=2000, top=3, progress=False):   # doctest: +SKIP
...     print(h["move"], h["share"], h["win"], h["continuation"])
"""

import os
import sys

from tqdm import tqdm

from tigris import bots
from tigris.bots.search import _grow, merge

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
    if seconds is None and iterations is None:
        seconds = 5.0
    if (seconds is not None and seconds <= 0) or (iterations is not None and iterations <= 0):
        raise ValueError("seconds and iterations must be positive")
    if top < 1 or jobs < 1:
        raise ValueError("top and jobs must be at least 1")
    overrides = {"workers": jobs}
    if seed is not None:
        overrides["seed"] = seed
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
    from joblib import Parallel, delayed

    from tigris import parallel
    seeds = [engine.rng.getrandbits(63) for _ in range(jobs)]
    share = -(-iterations // jobs) if iterations else None
    parent = os.getpid()            # workers end themselves if this process dies
    runs = Parallel(n_jobs=jobs, return_as="generator")(
        delayed(parallel.call)(parent, _grow, view, options, share, seconds, True, sd) for sd in seeds)
    done = []
    try:
        for stats in tqdm(runs, total=jobs, desc="searching", unit="worker", disable=not show,
                          file=sys.stderr, leave=False):
            done.append(stats)
    except KeyboardInterrupt:
        parallel.stop(runs)
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
