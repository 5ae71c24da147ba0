"""What a finished game pays each player in the frameworks (OpenSpiel's returns,
PettingZoo's rewards): first places, as tigris's tournaments count a game, or final
scores."""

__all__ = ["RETURNS", "returns"]

#: The kinds of returns: "first_places" (1 to a player first alone, 1/k to each of k
#: sharing the first place, else 0: they add up to 1) or "final_scores" (each player's
#: final score, its weakest colour after treasures, R88).
RETURNS = ("first_places", "final_scores")


def returns(game, kind):
    """Every player's return of `kind` in ``tigris.Game`` `game`, as it stands (a game
    stopped before its end is ranked as it is)."""
    n = game.players
    if kind == "final_scores":
        return [float(game.final_score(p)) for p in range(n)]
    first = game.ranking()[0]
    return [1.0 / len(first) if p in first else 0.0 for p in range(n)]
