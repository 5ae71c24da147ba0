"""The game interface on its own: a flat Monte Carlo player in a few lines, with copy,
determinize, apply, undo and the compiled random playouts.

Each legal move is tried on a determinization of what the player to move cannot see (so
it decides honestly, as the bots do), then scored by random playouts to the end.

    python examples/flat_monte_carlo.py
"""

import tigris


def win_rate(game: tigris.Game, action: int, playouts: int, seed: int) -> float:
    """How often the player to move finishes first after `action`, over random playouts."""
    player = game.current_player
    wins = 0.0
    for k in range(playouts):
        world = game.determinize(player, seed=seed + k)   # the hidden tiles, dealt anew
        world.apply(action)
        world.random_playout(seed=seed + k)
        first = world.ranking()[0]
        wins += 1 / len(first) if player in first else 0
    return wins / playouts


def best_move(game: tigris.Game, playouts: int = 20, seed: int = 0) -> int:
    """The legal action with the best win rate."""
    rates = {a: win_rate(game, a, playouts, seed) for a in game.legal_actions()}
    return max(rates, key=lambda a: rates[a])


def main() -> None:
    game = tigris.Game(players=2, seed=5)
    action = best_move(game, playouts=10)
    print(f"flat Monte Carlo plays {game.action_str(action)}")
    before = game.state_bytes()
    game.apply(action)
    game.undo()                             # back to exactly the state before
    assert game.state_bytes() == before


if __name__ == "__main__":
    main()
