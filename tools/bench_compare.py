#!/usr/bin/env python3
"""Compare `tigris bench` between two commits, side by side in one run.

    python tools/bench_compare.py BASE [NEW] [--part core|search] [--rounds 5] [--cpu 1]

Each side is exported (``git archive``) into a build folder and compiled there with this
Python (Cython and setuptools 77+ needed, as the `test` extra brings them); builds are kept
in ``.bench-builds/`` by git tree, so comparing again does not rebuild.  NEW defaults to
the working tree as it is now, uncommitted and untracked files included (ignored ones
left out).  Then the two builds take turns, round after round
(BASE, NEW, BASE, NEW, ...), each round a fresh ``tigris bench PART --json`` process,
pinned to one core with ``--cpu``; the table gives each side's median over the rounds
and NEW's ratio to BASE.  A shared machine's load drifts, and alternating spreads the
drift over both sides; figures from different runs of this script are not comparable.

Only figures that both builds report are compared.  ``--json FILE`` keeps every round.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tqdm import tqdm

from tigris.files import check_new, write_text

ROOT = Path(__file__).resolve().parent.parent
MAX_COUNT = 1000             # rounds and repeats: more is a typo, not a plan
# Units where less is better: their ratio is inverted, so that above 1 always means faster.
LOWER_IS_BETTER = {"ns", "s", "seconds", "bytes"}


class CompareError(Exception):
    """A problem with the arguments or the checkout, said in a sentence."""


def git(*args, env=None):
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          env=env)
    if done.returncode != 0:
        raise CompareError(f"git {' '.join(args)}: {done.stderr.strip() or 'failed'}")
    return done.stdout.strip()


def resolve(ref):
    """The git tree to build for a ref, and its name.  None (NEW's default) is the working
    tree as it is now: its files, untracked ones too (not the ignored), are written to a
    scratch index, so neither the checkout nor its index is touched."""
    if ref is None:
        with tempfile.TemporaryDirectory() as scratch:
            env = dict(os.environ, GIT_INDEX_FILE=str(Path(scratch) / "index"))
            git("read-tree", "HEAD", env=env)
            git("add", "--all", ".", env=env)
            return git("write-tree", env=env), "working tree"
    try:
        return git("rev-parse", "--verify", "--quiet", f"{ref}^{{tree}}"), ref
    except CompareError:
        raise CompareError(f"{ref!r} is not a commit of this repository") from None


def build(tree_id, cache):
    """A compiled copy of the git tree `tree_id` under `cache` (built once, kept by the
    tree's id); its src folder."""
    tree = cache / tree_id
    src = tree / "src"
    if (tree / ".built").exists():
        return src
    if tree.exists():
        shutil.rmtree(tree)                      # a build that stopped halfway
    tree.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", tree_id], capture_output=True)
    if archive.returncode != 0:
        raise CompareError(f"git archive {tree_id}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    done = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=tree,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise CompareError(f"building tree {tree_id[:10]} failed:\n{done.stderr[-3000:]}")
    (tree / ".built").touch()
    return src


def bench_once(src, part, extra, cpu):
    """One `tigris bench PART --json` in a fresh process on the tree `src`: name -> (value,
    unit)."""
    cmd = [sys.executable, "-m", "tigris", "bench", part, "--json", *extra]   # any version's entry
    if cpu is not None:
        cmd = ["taskset", "-c", str(cpu), *cmd]
    env = dict(os.environ, PYTHONPATH=str(src))
    with tempfile.TemporaryDirectory() as away:        # no checkout on the import path
        done = subprocess.run(cmd, cwd=away, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise CompareError(f"tigris bench {part} on {src.parent.name[:10]} failed:\n{done.stderr[-3000:]}")
    figures = json.loads(done.stdout)["figures"]
    return {f["figure"]: (f["median"], f["unit"]) for f in figures}


def summarise(rounds):
    """Rows (figure, unit, base median, new median, speed-up) over the figures both sides
    report; speed-up > 1 means NEW is faster (or smaller, for times and sizes)."""
    base, new = rounds["base"], rounds["new"]
    names = [n for n in base[0] if all(n in r for r in base + new)]
    rows = []
    for name in names:
        unit = base[0][name][1]
        b = statistics.median(r[name][0] for r in base)
        a = statistics.median(r[name][0] for r in new)
        if unit == "%":
            ratio = None                         # a share, not a speed
        elif unit in LOWER_IS_BETTER:
            ratio = b / a if a else float("nan")
        else:
            ratio = a / b if b else float("nan")
        rows.append((name, unit, b, a, ratio))
    return rows


def table(rows, base_name, new_name):
    width = max([len(r[0]) for r in rows] + [6])
    head = f"{'figure':<{width}}  {base_name[:14]:>14}  {new_name[:14]:>14}  {'speed-up':>8}  unit"
    lines = [head, "-" * len(head)]
    for name, unit, b, a, ratio in rows:
        gain = "-" if ratio is None else f"{ratio:.3f}x"
        lines.append(f"{name:<{width}}  {b:>14,.1f}  {a:>14,.1f}  {gain:>8}  {unit}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Compare tigris bench between two commits, alternating rounds in one run.")
    parser.add_argument("base", metavar="BASE", help="the commit to compare against (any git ref)")
    parser.add_argument("new", metavar="NEW", nargs="?",
                        help="the commit to measure (default: the working tree, changes included)")
    parser.add_argument("--part", choices=("core", "search"), default="core",
                        help="which benchmark (default core)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per side (default 5)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats per figure in each round (default 3)")
    parser.add_argument("--games", type=int, help="core: random games per repeat (bench's default)")
    parser.add_argument("--cpu", type=int, help="pin every round to this core (taskset)")
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-builds",
                        help="where builds are kept (default .bench-builds in the checkout)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every round to FILE")
    parser.add_argument("--force", action="store_true", help="replace the --json file if it exists")
    args = parser.parse_args(argv)
    try:
        if args.rounds < 1 or args.repeats < 1 or (args.games is not None and args.games < 1):
            raise CompareError("--rounds, --repeats and --games must be at least 1")
        if args.rounds > MAX_COUNT or args.repeats > MAX_COUNT:
            raise CompareError(f"--rounds and --repeats must be at most {MAX_COUNT:,}")
        if args.cache.exists() and not args.cache.is_dir():
            raise CompareError(f"--cache {args.cache}: not a folder")
        if args.json is not None:           # refused before the rounds: a link, a device, a file
            try:
                check_new(args.json, "--json", args.force)
            except ValueError as e:
                raise CompareError(str(e)) from None
        if args.cpu is not None and shutil.which("taskset") is None:
            raise CompareError("--cpu needs taskset (util-linux)")
        sides = {"base": resolve(args.base), "new": resolve(args.new)}
        srcs = {}
        for side, (commit, name) in sides.items():
            print(f"{side}: {name} (tree {commit[:10]})", file=sys.stderr, flush=True)
            srcs[side] = build(commit, args.cache)
        extra = ["--repeats", str(args.repeats)]
        if args.games is not None and args.part == "core":
            extra += ["--games", str(args.games)]
        rounds = {"base": [], "new": []}
        with tqdm(total=2 * args.rounds, desc="rounds", unit="run", file=sys.stderr) as bar:
            for _ in range(args.rounds):
                for side in ("base", "new"):
                    rounds[side].append(bench_once(srcs[side], args.part, extra, args.cpu))
                    bar.update()
    except CompareError as e:
        print(f"bench_compare: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bench_compare: interrupted", file=sys.stderr)
        return 130
    rows = summarise(rounds)
    names = {side: name for side, (_, name) in sides.items()}
    print(f"{args.rounds} alternating rounds per side, medians; speed-up = NEW against BASE")
    print(table(rows, names["base"], names["new"]))
    if args.json:
        try:
            write_text(args.json, json.dumps({"base": sides["base"], "new": sides["new"],
                                              "part": args.part, "rounds": rounds}, indent=1))
        except (OSError, ValueError) as e:
            print(f"bench_compare: --json {args.json}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
