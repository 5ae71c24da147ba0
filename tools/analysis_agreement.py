"""How far two analyses of one game agree (docs/results.md, "Analysis"): the share of its
decisions given the same mark (none counts as a mark), with Wilson's 95% interval; the
marks of each and how many fall on the same moves; how the others differ (a mark against
none, or two marks of different weight); and how far the two read the margin before a
move and its drop apart.

    tigris analyse game.json --seed 0 --out a0.jsonl
    tigris analyse game.json --seed 1 --out a1.jsonl
    python tools/analysis_agreement.py a0.jsonl a1.jsonl [--list]

Both files are read as ``tigris analyse`` reads them (``analysis.read_analysis``: every
line checked) and must be analyses of the same game by the same measure and thresholds;
only the decisions both hold are compared, forced ones (one legal move) left out.
"""

import argparse
import statistics
import sys

from tigris import analysis
from tigris.errors import UsageError
from tigris.ratings import wilson_interval

SAME = ("record", "measure", "thresholds", "players")


def agreement(first, second):
    """The comparison of two analyses, each ``(header, rows)`` of ``read_analysis``."""
    (h0, rows0), (h1, rows1) = first, second
    for key in SAME:
        if h0.get(key) != h1.get(key):
            raise UsageError(f"the two analyses differ in {key} ({h0.get(key)!r} and {h1.get(key)!r}): "
                             f"compare two analyses of one game by one measure")
    other = {r["move"]: r for r in rows1}
    pairs = [(r, other[r["move"]]) for r in rows0 if r["move"] in other and r["after_from"] != "forced"
             and other[r["move"]]["after_from"] != "forced"]
    if not pairs:
        raise UsageError("the two analyses share no decision with more than one legal move")
    same = [a["mark"] == b["mark"] for a, b in pairs]
    measure = h0["measure"]
    before = [abs(a[f"{measure}_before"] - b[f"{measure}_before"]) for a, b in pairs]
    drops = [abs(a["drop"] - b["drop"]) for a, b in pairs]
    return {
        "measure": measure, "decisions": len(pairs), "same": sum(same), "share": sum(same) / len(pairs),
        "interval": wilson_interval(sum(same), len(pairs)),
        "marks": [sum(a["mark"] is not None for a, _ in pairs), sum(b["mark"] is not None for _, b in pairs)],
        "both_marked": sum(a["mark"] is not None and b["mark"] is not None for a, b in pairs),
        "marked_against_none": sum((a["mark"] is None) != (b["mark"] is None) for a, b in pairs),
        "other_weight": sum(a["mark"] is not None and b["mark"] is not None and a["mark"] != b["mark"]
                            for a, b in pairs),
        "same_best": sum(a["best"] == b["best"] for a, b in pairs),
        "before_median": statistics.median(before), "before_p90": _quantile(before, 0.9),
        "drop_median": statistics.median(drops), "drop_p90": _quantile(drops, 0.9),
        "differ": [(a, b) for (a, b), s in zip(pairs, same) if not s],
    }


def _quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("first", help="an analysis file (tigris analyse --out)")
    p.add_argument("second", help="another analysis of the same game")
    p.add_argument("--list", action="store_true", help="list the decisions whose marks differ")
    args = p.parse_args(argv)
    try:
        a = agreement(analysis.read_analysis(args.first), analysis.read_analysis(args.second))
    except UsageError as e:
        print(f"analysis_agreement: {e}", file=sys.stderr)
        return 1
    lo, hi = a["interval"]
    unit = "points" if a["measure"] == "margin" else "of win chance"
    print(f"{a['decisions']} decisions: the same mark in {a['same']} ({a['share']:.1%}, {lo:.1%}-{hi:.1%})")
    print(f"marks: {a['marks'][0]} and {a['marks'][1]}, {a['both_marked']} decisions marked by both; "
          f"{a['marked_against_none']} marked by one only, {a['other_weight']} marked by both with other "
          f"weights; the same best move in {a['same_best']}")
    print(f"the figure before a move differs by a median of {a['before_median']:.2f} {unit} (90th percentile "
          f"{a['before_p90']:.2f}), the drop by {a['drop_median']:.2f} ({a['drop_p90']:.2f})")
    if args.list:
        for x, y in a["differ"]:
            print(f"  move {x['move']}, player {x['player']}, {x['played']}: {x['mark'] or '-'} "
                  f"(drop {x['drop']:+.2f}, best {x['best']}) against {y['mark'] or '-'} "
                  f"(drop {y['drop']:+.2f}, best {y['best']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
