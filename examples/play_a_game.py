"""Two bots play one game; the record is written to a file that ``tigris view`` or
``tigris replay`` reads.

    python examples/play_a_game.py [RECORD.json]
"""

import json
import sys

import tigris
from tigris import bots, files
from tigris.errors import UsageError
from tigris.record import to_record


def play(seed: int = 3) -> tigris.Game:
    """greedy (player 0) against a quick ISMCTS (player 1) from the deal of `seed`."""
    game = tigris.Game(players=2, seed=seed)
    seats = [bots.load("greedy", seed=seed), bots.load("ismcts-fast", iterations=200, seed=seed)]
    while not game.is_over:
        bot = seats[game.current_player]
        game.apply(bot.choose(game))      # each bot sees only what its player may see
    return game


def main() -> None:
    # A path that cannot be written is refused before the game; the record is written in
    # one piece (a temporary file moved over the target).
    path = files.check_target(sys.argv[1], option="RECORD") if len(sys.argv) > 1 else None
    game = play()
    print(game)                           # the final board
    for place, players in enumerate(game.ranking(), start=1):
        for p in players:
            print(f"{place}. player {p}: final score {game.final_score(p)}, {game.score(p)}")
    if path:
        files.write_text(path, json.dumps(to_record(game, bots=["greedy", "ismcts-fast"])))
        print(f"record written to {path} ({len(game.history)} moves)")


if __name__ == "__main__":
    try:
        main()
    except (OSError, UsageError) as e:     # a path that cannot be written: one line
        sys.exit(f"{sys.argv[0]}: {e}")
