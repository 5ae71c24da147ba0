#!/usr/bin/env python3
"""Fit the calibration of the hints' chances (``tigris.chance``) to the outcomes of games.

    python tools/fit_hint_chance.py seed1.jsonl --positions 500 --seed 1 --jobs 2
    python tools/fit_hint_chance.py seed2.jsonl --positions 1000 --seed 2 --jobs 2
    python tools/fit_hint_chance.py seed1.jsonl seed2.jsonl --fit src/tigris/chance.json

The first collects: on the positions of ``tigris bench calibration`` (games of
``ismcts-fast`` at 300 iterations a move, three positions a game) from ``--seed``, the
default hint's search of ``--iterations`` (its seed the same), and keeps one JSON line a
position with the search's own chances along its chosen move's best line, the mover and
every player's share of the first place.  Lines are appended as they come: run it again
after a kill and it goes on.  The bench measures with seed 0, so fit on other seeds.

The last fits the map of ``tigris.chance`` by maximum likelihood on the samples of every
file given, one set of coefficients per player count, and writes them
(``tigris-chance/1``); those three commands made the shipped fit (about 20 minutes on 2
cores for the samples).
"""

import argparse
import json
import sys
from pathlib import Path

from joblib import delayed

from tigris import bench
from tigris.hints import DEFAULT_BOT
from tigris.work import Run


def collect(path, positions, seed, iterations, jobs):
    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                s = json.loads(line)
                done.add((s["seed"], s["move"]))
    with Run(jobs, True, total=bench.calibration_runs(positions), desc="games, then searches",
             unit="task") as run:
        found = bench.calibration_positions(positions, seed, run)
        todo = [p for p in found if (p["seed"], len(p["moves"])) not in done]
        run.bar.update(len(found) - len(todo))
        with open(path, "a") as f:
            def save(sample):
                f.write(json.dumps(sample) + "\n")
                f.flush()
                run.bar.update()

            run.tasks([delayed(bench.calibration_sample)(p, DEFAULT_BOT, iterations, seed)
                       for p in todo], save)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("samples", type=Path, nargs="+",
                    help="the samples file (JSON lines) to collect into, or the files to fit")
    ap.add_argument("--positions", type=int, default=500, help="per player count (default 500)")
    ap.add_argument("--seed", type=int, default=1, help="of the games and the searches (default 1)")
    ap.add_argument("--iterations", type=int, default=20_000, help="per search (default 20000)")
    ap.add_argument("--jobs", type=int, default=1, help="parallel workers (default 1)")
    ap.add_argument("--fit", type=Path, metavar="OUT", help="fit the samples and write the coefficients")
    args = ap.parse_args(argv)
    if args.fit is None:
        if len(args.samples) != 1:
            ap.error("collect into one samples file (several are for --fit)")
        collect(args.samples[0], args.positions, args.seed, args.iterations, args.jobs)
        return 0
    samples = [json.loads(line) for path in args.samples
               for line in path.read_text().splitlines() if line.strip()]
    from tigris import chance

    model = chance.fit(samples)
    names = ", ".join(path.name for path in args.samples)
    chance.save(model, args.fit, note=f"fitted by tools/fit_hint_chance.py on {len(samples)} "
                                       f"positions of {names}")
    for players, row in sorted(model.items()):
        print(f"{players} players: {', '.join(f'{x:.4f}' for x in row)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
