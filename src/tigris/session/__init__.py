"""A session: a game people play, against each other or bots, at the terminal
(``tigris.seat.Terminal``) or in the browser (``tigris.web.tables.Table``).

What both keep is here: the game; its seats, each a person (``HUMAN``, as a record's
``bots`` names them) or a bot's name; the record, written whole after every move
(``tigris.files``), so a game left at any point goes on from it (``unfinished_game``);
a move made with what it did (``Moved``: the engine's forced follow-ups, the events of
``tigris.events``, the draws); a resignation; undo back to a person's previous decision.
How a person's moves come in and how a bot's move is made (in this process at the
terminal, in a worker process in the browser) are each front end's own.

>>> session = Session(tigris.Game(players=2, seed=1), [HUMAN, "greedy"], "game.json")  # doctest: +SKIP
>>> session.make_move(session.game.legal_actions()[0]).move                          # doctest: +SKIP
"""

import dataclasses
import json
import re
from pathlib import Path

from tigris.errors import RecordError, UsageError, excerpt

__all__ = ["HUMAN", "Moved", "Session", "level_of", "unfinished_game"]

HUMAN = "human"               # a person's seat, as in a record's "bots"


@dataclasses.dataclass(frozen=True)
class Moved:
    """A move made: its number in the game (`n`, from 1), its `player`, its notation
    (`move`, a swap's colours shown), the engine's follow-ups (`forced`, notation),
    what it did (`happened`, ``tigris.events``) and the tiles drawn (`draws`: (player,
    colour) pairs)."""

    n: int
    player: int
    move: str
    forced: tuple
    happened: tuple
    draws: tuple

    def event(self):
        """The move as a page's list of moves shows it: ``{"n", "player", "move", "said"}``."""
        return {"n": self.n, "player": self.player, "move": self.move,
                "said": [f"then {f}" for f in self.forced] + list(self.happened)}


class Session:
    """`game`, played by `seats` (per player ``HUMAN`` or a bot's name), its record kept
    in the file `path` (see the module's docstring)."""

    def __init__(self, game, seats, path):
        seats = list(seats)
        if len(seats) != game.players or not all(isinstance(s, str) and s for s in seats):
            raise UsageError(f"seats: a name (or {HUMAN!r}) for each of the {game.players} "
                             f"players, not {excerpt(seats)}")
        self.game = game
        self.seats = seats
        self.path = Path(path)
        self.resigned = None                 # the player who resigned, while it stands

    def person(self, player):
        """Whether a person plays `player`'s seat."""
        return self.seats[player] == HUMAN

    @property
    def people(self):
        """The players whose seats are people's."""
        return [p for p in range(len(self.seats)) if self.person(p)]

    @property
    def over(self):
        """Whether the game cannot go on: ended, at the turn limit, or resigned."""
        from tigris.play.runner import goes_on

        return self.resigned is not None or not goes_on(self.game)

    # -- moves ---------------------------------------------------------------------

    def make_move(self, action):
        """Apply `action` (legal: the caller checked it) for the player to move; what it
        did (``Moved``)."""
        from tigris.events import what_happened

        game = self.game
        player = game.current_player
        text = game.action_str(action)
        before = game.raw_state()
        game.apply(action)
        _, _, forced, draws = game.history[-1]
        return Moved(len(game.history), player, text, tuple(game.action_str(f) for f in forced),
                     tuple(what_happened(before, game)), tuple(draws))

    def undo_point(self, player=None):
        """The number of moves before the latest decision of a person's seat (of
        `player`'s, if given): where undo goes back to; None if there was none."""
        earlier = [i for i, (_, p, _, _) in enumerate(self.game.history)
                   if self.person(p) and (player is None or p == player)]
        return earlier[-1] if earlier else None

    def take_back(self, back):
        """Undo the moves after the first `back`; how many were taken back."""
        taken = 0
        while len(self.game.history) > back:
            self.game.undo()
            taken += 1
        return taken

    # -- the record ----------------------------------------------------------------

    def result(self):
        """The record's result: a resignation's, the game's end's, or None while it
        goes on."""
        from tigris import record

        if self.resigned is not None:
            return record.result(self.game, adjudicated=f"player {self.resigned} resigned",
                                 resigned=self.resigned)
        return record.result(self.game) if self.game.is_over else None

    def to_record(self):
        """The record of the game so far (``tigris-game/1``), the seats as its bots; a
        game at the turn limit ranked."""
        from tigris.record import to_record
        from tigris.play.runner import goes_on, record_of

        if self.resigned is not None:
            rec = to_record(self.game, bots=self.seats)
            rec["result"] = self.result()
            return rec
        if goes_on(self.game):
            return to_record(self.game, bots=self.seats)
        return record_of(self.game, self.seats)

    def save(self, path=None):
        """Write the record to `path` (default: the session's record file) in one piece
        (``tigris.files``: a file replaced whole, never half written; what is not a
        regular file refused with a UsageError); the path written."""
        from tigris import files

        path = self.path if path is None else Path(path)
        files.write_text(path, json.dumps(self.to_record()) + "\n")
        return path


def unfinished_game(rec):
    """The game of a record left unfinished by a session, to be played on, and the seats'
    names (``HUMAN`` for a person).  The record is replayed, every move checked
    (RecordError naming the move); UsageError for a finished game or one without a human
    seat."""
    from tigris.record import replay
    from tigris.play.runner import goes_on

    bots = rec.get("bots") if isinstance(rec, dict) else None
    game = replay(rec)
    if not isinstance(bots, list) or len(bots) != game.players \
            or not all(isinstance(b, str) and b for b in bots):
        raise RecordError(f"bots: expected the name of each of the {game.players} seats "
                          f"(\"{HUMAN}\" for a person), not {excerpt(bots)}")
    if HUMAN not in bots:
        raise UsageError("the record's game has no human seat (its bots are "
                         f"{', '.join(bots)}): nothing to sit down at")
    if rec.get("result") is not None or not goes_on(game):
        places = "; ".join(f"{k + 1}. player{'s' * (len(ps) > 1)} {', '.join(map(str, ps))}"
                           for k, ps in enumerate(game.ranking()))
        raise UsageError(f"the game is over after {len(game.history)} moves ({places}): "
                         f"nothing to resume")
    return game, bots


_LEVEL = re.compile(r"level-(\d{1,3})")


def level_of(name):
    """The level of the bot named `name` (``level-K``: K, 1 the weakest), or None for a
    bot that is not one of the levels."""
    level = _LEVEL.fullmatch(name) if isinstance(name, str) else None
    return int(level[1]) if level else None
