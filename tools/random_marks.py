"""How often ``tigris analyse`` marks a random move (docs/results.md, "Analysis"): for each
share p, games of a bot that plays a random move with the probability p (its knob
``random_share``) against a fixed bot, that bot's decisions of each game analysed; the
marks per game, and how often its random moves and its other moves are marked, by p.

    python tools/random_marks.py OUT --shares 0.1 0.3 0.5 --games 12 --iterations 3000 --jobs 2
    python tools/random_marks.py OUT --margin-share 0.5 ...     # a bot that plays for points

OUT holds a folder per share (``p0.3``), and in it each game's record (``game-K.json``),
which of its moves were random (``game-K.random.json``: the bot's seat and the numbers of
its random moves, as the bot told them, ``last_random``) and its analysis
(``game-K.MEASURE.analysis.jsonl``); ``settings.json`` holds the run's settings.  The same
command again plays and analyses only what is missing (a rerun whose games would be
others is refused, naming the setting; another --measure analyses the same games again).  Game K of every share is the same deal, the bot in seat
K % 2; every bot's seed follows the one rule of bots' games
(``tigris.play.runner.bot_seed``), so the same command plays the same games.

The intervals: marks per game, the mean's 95% t interval over the games; the shares of
moves marked, Wilson's 95% interval, which counts the moves as independent (the moves of
one game are not quite).
"""

import argparse
import json
import math
import sys
from pathlib import Path

from tigris import analysis, bots as botlib
from tigris.errors import UsageError
from tigris.files import write_text
from tigris.ratings import wilson_interval
from tigris.play.runner import bot_seed, deal_seed, goes_on, record_of
from tigris.sources import read_json

DEFAULTS = {"shares": [0.1, 0.3, 0.5], "games": 12, "bot": "ismcts-fast", "margin_share": None,
            "opponent": "ismcts-fast", "iterations": 3000, "measure": analysis.DEFAULT_MEASURE,
            "seed": 0}
SETTINGS = "settings.json"
MARKS = ("inaccuracy", "mistake", "blunder")


def play(settings, share, k):
    """Game `k` of `share`: ``(record, {"seat": the bot's seat, "random": its random
    moves' numbers})``."""
    import tigris

    seat = k % 2
    game = tigris.Game(players=2, seed=deal_seed(settings["seed"], k))
    seats = []
    for s in range(2):
        seed = bot_seed(settings["seed"], k, s)
        if s == seat:
            own = {} if settings["margin_share"] is None else {"margin_share": settings["margin_share"]}
            seats.append(botlib.configuration(settings["bot"]).bot(seed=seed, random_share=share, **own))
        else:
            seats.append(botlib.configuration(settings["opponent"]).bot(seed=seed))
    random = []
    while goes_on(game):
        bot = seats[game.current_player]
        action = bot.choose(game)
        if game.current_player == seat and bot.last_random:
            random.append(len(game.history) + 1)
        game.apply(action)
    knobs = f"random_share={share:g}" + ("" if settings["margin_share"] is None
                                         else f" margin_share={settings['margin_share']:g}")
    names = [f"{settings['bot']} {knobs}" if s == seat else settings["opponent"] for s in range(2)]
    return record_of(game, names), {"seat": seat, "random": random}


def folder_of(out, share):
    return Path(out) / f"p{share:g}"


# The settings that make the games (the analyses' own, the budget and the measure, are in
# each analysis file, which its measure names and which refuses another budget itself).
GAME_SETTINGS = ("shares", "games", "bot", "margin_share", "opponent", "seed")


def check_settings(out, settings):
    """The settings of the run's games, written to OUT/settings.json at its first run; a
    later run with others is refused, naming the setting that differs."""
    path = Path(out) / SETTINGS
    settings = {k: settings[k] for k in GAME_SETTINGS}
    if path.exists():
        saved = read_json(path)
        for key, value in settings.items():
            if saved.get(key) != value:
                raise UsageError(f"{path}: this run's {key} is {saved.get(key)!r}, not {value!r}; "
                                 f"give the same settings, or another folder")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps(settings, indent=2) + "\n")


def play_missing(out, settings, jobs):
    """Play the games whose record or random moves are missing, `jobs` at a time, each
    written as it ends (the random moves first: a record without them is played again)."""
    from joblib import delayed

    from tigris._plumbing import parallel

    todo = [(share, k) for share in settings["shares"] for k in range(settings["games"])
            if not (folder_of(out, share) / f"game-{k}.json").exists()]
    if not todo:
        return
    print(f"playing {len(todo)} games", file=sys.stderr)
    tasks = [delayed(play)(settings, share, k) for share, k in todo]
    for (share, k), (rec, random) in zip(todo, parallel.run(jobs, tasks, generator=True)):
        folder = folder_of(out, share)
        folder.mkdir(parents=True, exist_ok=True)
        write_text(folder / f"game-{k}.random.json", json.dumps(random) + "\n")
        write_text(folder / f"game-{k}.json", json.dumps(rec) + "\n")
        print(f"p = {share:g}, game {k}: {rec['result']['final']}, {len(random['random'])} random moves",
              file=sys.stderr)


def analysed(out, settings, jobs):
    """Every game analysed (those done read back, the others analysed now): a list per
    share of ``(rows, random moves)``, the rows those of the bot's decisions."""
    games = {}
    for share in settings["shares"]:
        folder = folder_of(out, share)
        games[share] = []
        for k in range(settings["games"]):
            rec = read_json(folder / f"game-{k}.json")
            random = read_json(folder / f"game-{k}.random.json")
            target = folder / f"game-{k}.{settings['measure']}.analysis.jsonl"
            _, rows = analysis.run(rec, target, source=str(folder / f"game-{k}.json"),
                                   iterations=settings["iterations"], players=[random["seat"]],
                                   jobs=jobs, seed=settings["seed"], measure=settings["measure"],
                                   progress=False)
            games[share].append((rows, set(random["random"])))
            print(f"p = {share:g}, game {k}: analysed", file=sys.stderr)
    return games


def mean_interval(values):
    """(mean, low, high): the mean and its 95% t interval."""
    from scipy import stats

    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.nan, math.nan
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def figures(games):
    """The figures of one share's games (``analysed``'s list)."""
    marks, random_moves, random_marked, other_moves, other_marked = [], 0, 0, 0, 0
    kinds = {"random": dict.fromkeys(MARKS, 0), "other": dict.fromkeys(MARKS, 0)}
    for rows, random in games:
        marks.append(sum(r["mark"] is not None for r in rows))
        for r in rows:
            if r["after_from"] == "forced":
                continue                        # never random: one legal move
            which = "random" if r["move"] in random else "other"
            if which == "random":
                random_moves += 1
                random_marked += r["mark"] is not None
            else:
                other_moves += 1
                other_marked += r["mark"] is not None
            if r["mark"]:
                kinds[which][r["mark"]] += 1
    return {"games": len(games), "marks": mean_interval(marks),
            "random": (random_marked, random_moves), "other": (other_marked, other_moves),
            "kinds": kinds}


def share_text(marked, n):
    if not n:
        return "-"
    low, high = wilson_interval(marked, n)
    return f"{marked}/{n}, {marked / n:.0%} ({low:.0%}-{high:.0%})"


def table(games):
    """The results as a Markdown table, a row per share."""
    lines = [("| p | games | marks per game (95% CI) | random moves marked (95% CI) | "
              "other moves marked (95% CI) | random: inaccuracies / mistakes / blunders | "
              "other: inaccuracies / mistakes / blunders |"),
             "|---:|---:|---|---|---|---|---|"]
    for share, played in games.items():
        f = figures(played)
        mean, low, high = f["marks"]
        kinds = {w: " / ".join(str(f["kinds"][w][m]) for m in MARKS) for w in ("random", "other")}
        lines.append(f"| {share:g} | {f['games']} | {mean:.1f} ({max(0.0, low):.1f}-{high:.1f}) | "
                     f"{share_text(*f['random'])} | {share_text(*f['other'])} | {kinds['random']} | "
                     f"{kinds['other']} |")
    return "\n".join(lines)


def parse(argv):
    p = argparse.ArgumentParser(prog="tools/random_marks.py", description=__doc__.split("\n\n")[0])
    p.add_argument("out", metavar="OUT", help="the folder of the games and their analyses")
    p.add_argument("--shares", nargs="+", type=float, default=DEFAULTS["shares"], metavar="P",
                   help="the bot's random_share in each series of games (default 0.1 0.3 0.5)")
    p.add_argument("--games", type=int, default=DEFAULTS["games"], help="games per share (default 12)")
    p.add_argument("--bot", default=DEFAULTS["bot"], help="the bot that plays at random (default ismcts-fast)")
    p.add_argument("--margin-share", type=float, default=None,
                   help="the bot's margin_share (default its own): a bot that plays for points "
                        "once a game is decided, where a search for the chances alone plays at "
                        "random itself")
    p.add_argument("--opponent", default=DEFAULTS["opponent"], help="the fixed bot (default ismcts-fast)")
    p.add_argument("--iterations", type=int, default=DEFAULTS["iterations"],
                   help="iterations of each search of the analysis (default 3000)")
    p.add_argument("--measure", choices=analysis.MEASURES, default=DEFAULTS["measure"],
                   help="the analysis's measure (default margin)")
    p.add_argument("--seed", type=int, default=DEFAULTS["seed"], help="base seed (default 0)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    settings = {k: getattr(args, k) for k in DEFAULTS}
    own = {} if args.margin_share is None else {"margin_share": args.margin_share}
    for share in args.shares:                  # a bad share: the knob's words
        botlib.configuration(args.bot).bot(random_share=share, **own)
    botlib.configuration(args.opponent)
    if args.games < 1 or args.jobs < 1:
        raise UsageError("--games and --jobs must be at least 1")
    if len(set(args.shares)) != len(args.shares):
        raise UsageError(f"--shares: each share once, not {args.shares}")
    check_settings(args.out, settings)
    play_missing(args.out, settings, args.jobs)
    print(table(analysed(args.out, settings, args.jobs)))


if __name__ == "__main__":
    try:
        main()
    except (ValueError, OSError) as e:    # the toolkit's errors name the file and field
        sys.exit(f"tools/random_marks.py: {e}")
    except KeyboardInterrupt:             # what is done is kept: the same command goes on
        sys.exit("tools/random_marks.py: interrupted; the same command goes on where it stopped")
