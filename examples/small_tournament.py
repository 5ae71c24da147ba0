"""A tournament from Python: random against greedy, with Elo ratings, saved in a folder
that ``tigris standings`` and ``tigris view`` read.

    python examples/small_tournament.py [OUT_DIR]
"""

import sys
import tempfile

from tigris.tournament import Spec, format_summary, run


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="tigris-")
    spec = Spec(bots=["random", "greedy"], players=2, games=4, seed=1, name="example")
    try:
        summary = run(spec, out, jobs=1, progress=False)
    except (OSError, ValueError) as e:      # a folder that cannot be written: one line
        sys.exit(f"{sys.argv[0]}: {e}")
    print(format_summary(summary))
    print(f"\ngames saved in {out}")


if __name__ == "__main__":
    main()
