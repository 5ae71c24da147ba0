"""Ranked plans for the player to move, as ``tigris hint`` shows them.

    python examples/ask_for_a_hint.py
"""

import tigris


def main() -> None:
    game = tigris.Game(players=2, seed=11)
    for move in ["tile red G4", "tile black H5"]:     # player 0's first turn
        game.apply(move)
    hints = tigris.hint(game, iterations=4000, seed=1, top=3)
    print(f"player {game.current_player} to move; {hints.iterations:,} iterations; #1 is the engine's play")
    signs = {"choice": " ", "equal": "=", "above": ">", "below": "<"}
    for row in hints:
        line = ", ".join(row["continuation"][:2])
        chances = " ".join(f"P{p} {c:.0%}" for p, c in enumerate(row["chances"]))
        print(f"{row['rank']:>2} {signs[row['mark']]} {' + '.join(row['plan']):<40} chances of "
              f"finishing first {chances} (+-{row['error']:.1%}), then {line}")
    for note in hints.notes:          # what the marks and the search's schedule mean here
        print(note)


if __name__ == "__main__":
    main()
