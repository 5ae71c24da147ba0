"""A benchmark of the tuner with known answers (``tigris bench tune``).

Nobody knows whether ``tigris tune`` finds a good setting unless there is one to find.
So the benchmark plants one: a knob of the shipped ``ismcts-fast``, played at a small
fixed budget (``ITERATIONS`` a move, so that games are quick), is set to a value measured
to cost at least 100 Elo against the shipped value (``Planted.planted``), and the tuner,
started there, has to bring it back into the region measured to be about as good as the
shipped value (``Planted.good``).  ``PLANTED`` holds the knobs, each with the matches
that measured it (docs/results.md, "A benchmark with known answers").

For each planted knob, ``run`` tunes that knob alone (``tune.tune``, against the shipped
bot at the same budget) into OUT/KNOB/, then plays the tuned bot against the planted one
and against the shipped one (``tournament.run``) and reports the tuned value, whether it
lies in the good region, and the two scores with their 95% intervals.  Every step is a
folder of its own, resumed where it was left, so a killed benchmark goes on where it
stopped when run again with the same settings.

>>> from tigris.runs import tunebench
>>> [row.name for row in tunebench.PLANTED]
['rollout_depth', 'net_share', 'candidates']
>>> result = tunebench.run(method="spsa", budget=2000, out="results/bench-tune")   # doctest: +SKIP
>>> [(k["knob"], round(k["tuned"], 2), k["inside"]) for k in result["knobs"]]      # doctest: +SKIP
[('rollout_depth', 11, True), ('net_share', 0.4, True), ('candidates', 11, True)]
"""

import json
from dataclasses import dataclass, replace
from pathlib import Path

from tigris import bots as botlib
from tigris._plumbing.locks import holding
from tigris._plumbing.tomlfile import toml_string
from tigris.errors import TuneError, excerpt
from tigris.files import write_text
from tigris.sources import read_source
from tigris.tune import Param

__all__ = ["Planted", "PLANTED", "BOT", "ITERATIONS", "MATCH_SEEDS", "RESULT_FILE", "OUT",
           "shipped_value", "check", "run", "rows"]

BOT = "ismcts-fast"
ITERATIONS = 100          # a move: a game of about 170 decisions takes one to two seconds a core
# The matches' base seed is the benchmark's plus this: above every seed the command
# takes (at most 1,000,000), so no match deals a game that any tuning run of it dealt.
MATCH_SEEDS = 1_000_001
VERIFY_GAMES = 2          # tune's own check: the benchmark plays its own, larger matches
RESULT_FILE = "bench.json"
OUT = "results/bench-tune"


@dataclass(frozen=True)
class Planted:
    """A planted knob: its range for the tuner (``param``), the value the tuner starts
    from (``planted``, measured to cost at least 100 Elo against the shipped value) and
    the good region (``good``, the values measured within about 30-50 Elo of the shipped
    one), with the matches that measured both (``measured``)."""

    param: Param
    planted: float
    good: tuple[float, float]
    measured: str

    @property
    def name(self):
        """The knob's name."""
        return self.param.name

    def inside(self, x):
        """Whether `x` lies in the good region."""
        return self.good[0] <= x <= self.good[1]

    def distance(self, x):
        """How far `x` lies from the good region, in the knob's units (0 inside)."""
        return max(self.good[0] - x, x - self.good[1], 0.0)


# Every figure: ismcts-fast at ITERATIONS a move with the knob alone changed, against the
# same at the shipped value, `tigris tournament --bots VARIANT.toml SHIPPED.toml --games
# 200 --seed 12 --jobs 2` (seed 11: 100 games); the variant's score with its 95% interval,
# and the Elo gap with its own.
PLANTED = (
    Planted(Param("rollout_depth", 0, 30, integer=True), planted=0, good=(4, 15), measured=(
        "tigris tournament --bots VARIANT.toml SHIPPED.toml --games 200 --seed 12 --jobs 2, "
        "rollout_depth against the shipped 10: 0 scored 25.5% (20.0-32.0), -186 Elo (-241, "
        "-143), and 21.0% (14.2-30.0), -230 Elo (-301, -164) over 100 games of seed 11; "
        "4: 43.0% (36.3-49.9), -49 (-92, -7); 15: 46.5% (39.7-53.4), -24 (-78, +24); "
        "20: 41.0% (34.4-47.9), -63 (-108, -17); 30: 38.5% (32.0-45.4), -81 (-127, -31)")),
    Planted(Param("net_share", 0.0, 1.0), planted=0.0, good=(0.25, 0.75), measured=(
        "tigris tournament --bots VARIANT.toml SHIPPED.toml --games 200 --seed 12 --jobs 2, "
        "net_share against the shipped 0.5: 0.0 scored 36.0% (29.7-42.9), -100 Elo (-147, "
        "-49), and 33.0% (24.6-42.7), -123 Elo (-191, -56) over 100 games of seed 11; "
        "0.25: 50.5% (43.6-57.4), +3 (-42, +45); 0.75: 47.0% (40.2-53.9), -21 (-67, +24); "
        "1.0: 36.0% (29.7-42.9), -100 (-143, -56)")),
    Planted(Param("candidates", 1, 64, integer=True), planted=1, good=(4, 64), measured=(
        "tigris tournament --bots VARIANT.toml SHIPPED.toml --games 200 --seed 12 --jobs 2, "
        "candidates against the shipped 32: 1 scored 16.0% (11.6-21.7), -288 Elo (-372, "
        "-230); 2: 34.5% (28.3-41.3), -111 (-151, -70), and 35.0% (26.4-44.7), -107 (-156, "
        "-49) over 100 games of seed 11; 4: 58.0% (51.1-64.6), +56 (+7, +100); 8: 57.0% "
        "(50.1-63.7), +49 (+7, +96); 64: 48.5% (41.7-55.4), -10 (-63, +42)")),
)


def shipped_value(name):
    """The shipped BOT's value of knob `name`."""
    return botlib.configuration(BOT).params[name]


def check(method="spsa", budget=2000, knobs=None, games=200, iteration_games=0,
          backend="loky", scheduler=None):
    """The planted knobs to tune (all of PLANTED for `knobs` None), once `method`,
    `budget`, `games`, `iteration_games` and the backend are fit for a run; else
    TuneError (or UsageError, for the backend) naming the option."""
    from tigris._plumbing.backends import Backend
    from tigris.tunefolder import METHODS

    if method not in METHODS:
        raise TuneError(f"--method {excerpt(method)}: choose one of {', '.join(METHODS)}")
    Backend(backend, None, scheduler)                   # names --backend or --scheduler
    if isinstance(iteration_games, bool) or not isinstance(iteration_games, int) \
            or iteration_games < 0 or iteration_games % 4:
        raise TuneError(f"--iteration-games {excerpt(iteration_games)}: a multiple of 4 (a "
                        f"deal in both seatings, twice)")
    least = iteration_games or 4
    if not isinstance(budget, int) or budget < least:
        raise TuneError(f"--budget {excerpt(budget)}: a tuning iteration plays {least} games; "
                        f"give at least {least}")
    if not isinstance(games, int) or games < 2:
        raise TuneError(f"--games {excerpt(games)}: a match plays a deal in both seatings; "
                        f"give at least 2")
    by_name = {row.name: row for row in PLANTED}
    names = list(by_name) if knobs is None else list(knobs)
    for name in names:
        if name not in by_name:
            raise TuneError(f"--knob {excerpt(name)}: not a planted knob; planted: "
                            f"{', '.join(by_name)}")
    if not names:
        raise TuneError("--knob: name at least one planted knob")
    if len(set(names)) != len(names):
        raise TuneError("--knob: a knob is named twice")
    return [by_name[n] for n in names]


def run(method="spsa", budget=2000, knobs=None, seed=0, jobs=None, progress=True, out=None,
        games=200, iteration_games=0, backend="loky", scheduler=None):
    """Tune each planted knob (`knobs`: names, default all) from its planted value with
    `budget` games by `method` (`iteration_games` an iteration, 0 for the tuner's
    default), into OUT/KNOB/; then play `games` games of the tuned bot against the
    planted one and `games` against the shipped one.  Every game runs on `backend`
    (``tigris tune``'s and ``tigris tournament``'s: "loky", or "dask" with `scheduler`).  Returns the report
    (also written to OUT/bench.json): per knob the planted, shipped and tuned values, the
    good region, ``inside`` and ``distance`` (to the region), and the two matches' scores
    with their 95% intervals and Elo gaps; ``found``, the knobs tuned into their good
    region.  Run again with the same settings, it resumes each step where it stopped."""
    chosen = check(method, budget, knobs, games, iteration_games, backend, scheduler)
    where = {"jobs": jobs, "progress": progress, "backend": backend, "scheduler": scheduler}
    return _run(Path(out or OUT), chosen, method, budget, seed, games, iteration_games, where)


@holding("out")                   # one benchmark at a time in a folder
def _run(out, chosen, method, budget, seed, games, iteration_games, where):
    """``run`` in the folder `out`, which it holds, on the checked rows `chosen`; `where`
    the keywords of the games' runs (jobs, progress, backend, scheduler)."""
    shipped = _write_bot(out / "shipped.toml", _settings(),
                         f"{BOT} at {ITERATIONS} iterations a move: the benchmark's opponent")
    report = []
    for row in chosen:
        folder = out / row.name
        planted = _write_bot(folder / "planted.toml", _settings({row.name: row.planted}),
                             f"{BOT} at {ITERATIONS} iterations a move, {row.name} planted "
                             f"at {row.planted:g}")
        tuned, value = _tune(row, planted, shipped, folder, method, budget, seed,
                             iteration_games, where)
        report.append({
            "knob": row.name, "range": [row.param.low, row.param.high], "planted": row.planted,
            "shipped": shipped_value(row.name), "good": list(row.good), "tuned": value,
            "inside": row.inside(value), "distance": row.distance(value), "folder": str(folder),
            "against_planted": _match(folder / "against-planted", tuned, planted, games, seed,
                                      where),
            "against_shipped": _match(folder / "against-shipped", tuned, shipped, games, seed,
                                      where)})
    result = {"bot": BOT, "iterations": ITERATIONS, "method": method, "budget": budget,
              "iteration_games": iteration_games or 4, "games": games, "seed": seed,
              "knobs": report,
              "found": sum(r["inside"] for r in report)}
    write_text(out / RESULT_FILE, json.dumps(result, indent=2) + "\n")
    return result


def _settings(changed=None):
    """BOT's knobs as its file sets them, at ITERATIONS a move, with `changed` replaced."""
    conf = botlib.configuration(BOT)
    return {"kind": conf.kind, **conf.given, "iterations": ITERATIONS, **(changed or {})}


def _write_bot(path, settings, description):
    """The bot file `path` of `settings`; one already there must say the same (a folder of
    another benchmark, or of another version's table, is not taken over)."""
    lines = [f"kind = {toml_string(settings['kind'])}", f"description = {toml_string(description)}"]
    for key, value in settings.items():
        if key != "kind":
            lines.append(f"{key} = {toml_string(value) if isinstance(value, str) else json.dumps(value)}")
    text = "\n".join(lines) + "\n"
    if path.exists() and read_source(path, TuneError).decode("utf-8", "replace") != text:
        raise TuneError(f"{path}: holds another bot than this benchmark plays (a run of "
                        f"other settings?); choose another --out")
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, text)
    botlib.configuration(path)              # it must load
    return str(path)


def _tune(row, planted, shipped, folder, method, budget, seed, iteration_games, where):
    """Tune `row`'s knob of the planted bot against the shipped one into `folder`
    (resumed if it holds a run's history): the tuned bot's file and value."""
    from tigris import tune
    from tigris.tunefolder import HISTORY_FILE

    spec = tune.TuneSpec(bot=planted, params=[replace(row.param)], opponents=[shipped],
                         budget=budget, seed=seed, name="tuned", verify_games=VERIFY_GAMES,
                         method=method, iteration_games=iteration_games)
    history = folder / HISTORY_FILE
    resume = history.exists() and history.stat().st_size > 0
    result = tune.tune(spec, folder, resume=resume, **where)
    return result["bot_file"], result["theta"][row.name]


def _match(folder, bot, other, games, seed, where):
    """`games` games of `bot` against `other` (a tournament in `folder`, resumed if it
    was begun): `bot`'s score with its 95% interval, and its Elo gap with its interval."""
    from tigris import tournament

    spec = tournament.Spec(bots=[bot, other], games=games, seed=MATCH_SEEDS + seed,
                           name=f"{Path(bot).parent.name}: {Path(bot).stem} against {Path(other).stem}")
    begun = (folder / tournament.SPEC_FILE).exists()
    if begun and tournament.read_spec_file(folder / tournament.SPEC_FILE)[0] != spec:
        raise TuneError(f"{folder}: holds a match of other settings; choose another --out")
    summary = tournament.run(spec, folder, resume=begun, **where)
    row = next(r for r in summary["standings"]["bots"] if r["name"] == bot)
    elo_ci = row["elo_ci"]
    # two bots rated around a mean of 0: the gap is twice a bot's Elo, in every resample
    return {"games": row["games"], "wins": row["wins"], "score": row["win_rate"],
            "ci95": list(row["win_rate_ci"]) if row["win_rate_ci"] else None,
            "elo": None if row["elo"] is None else 2 * row["elo"],
            "elo_ci95": None if elo_ci is None else [None if e is None else 2 * e for e in elo_ci],
            "folder": str(folder)}


def rows(result):
    """The report as ``tigris bench`` rows (figure, value, unit)."""
    out = []
    for r in result["knobs"]:
        name = r["knob"]
        out.append((f"{name}: tuned value (planted {r['planted']:g}, shipped {r['shipped']:g})",
                    r["tuned"], "value"))
        out.append((f"{name}: distance to the good region [{r['good'][0]:g}, {r['good'][1]:g}]",
                    r["distance"], "value"))
        for key, against in (("against_planted", "the planted bot"), ("against_shipped", "the shipped bot")):
            m = r[key]
            if m["score"] is None:
                continue
            out.append((f"{name}: tuned against {against}, {m['games']} games "
                        f"(95% interval {100 * m['ci95'][0]:.1f}-{100 * m['ci95'][1]:.1f})",
                        100 * m["score"], "%"))
    out.append((f"knobs tuned into their good region ({result['method']}, {result['budget']} games each)",
                result["found"], f"of {len(result['knobs'])}"))
    return out
