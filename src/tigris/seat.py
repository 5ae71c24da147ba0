"""A person at the table: human seats played at the terminal (``tigris play --you 0``).

At the start of a human seat's turn the table shows the board as that player sees it
(the other hands and the bag by size only; in colour on a terminal that has it), before
its other decisions a line of its hand and score (and the conflict at hand), then prompts
for a move in the engine's notation, completing legal moves with Tab (readline).  Besides
moves the prompt takes the commands of ``HELP``: the legal moves grouped, a hint, undo
back to the previous human decision, the board again, save, quit.  Every move is printed
as it happens with what it did (``tigris.events``: conflicts won, leaders and tiles
removed, points, treasures, monuments); a bot decides from its own player's view only
(every bot but the dishonest reference ``cheat``, which a table refuses), so it never
sees a human hand.

The game is kept safe: the record is written after every human move (and on save, quit,
end of input, Ctrl-C and the end of the game), replacing the file whole (``tigris.files``:
never a folder or a device, never half written), so no way of leaving loses a move; a
game left unfinished goes on from its record (``unfinished_game``, ``tigris play
--resume``).

What it shares with a game in the browser (the seats, the record, undo, a move's
events) is ``tigris.session.Session``'s; ``Terminal`` adds the prompt.  ``Table``, its
former name, is a deprecated alias.

>>> table = Terminal(tigris.Game(players=2, seed=1), [None, bots.load("greedy")],
...                  ["human", "greedy"], record="game.json")       # doctest: +SKIP
>>> table.play()                                                     # doctest: +SKIP
"""

import os
import shlex
import sys
import textwrap
from pathlib import Path

import tigris
from tigris import files
from tigris._plumbing.renamed import old_names
from tigris.constants import COLOURS
from tigris.errors import IllegalActionError, UsageError, excerpt
from tigris.hints import DEFAULT_BOT, format_table
from tigris.notation import SYNTAX, public, str_to_action
from tigris.render import decision_line, render
from tigris.play.runner import TURN_LIMIT, goes_on
from tigris.session import HUMAN, Session, unfinished_game

__all__ = ["HELP", "HUMAN", "Terminal", "colour_wanted", "unfinished_game", "use_terminal"]

HINT_SECONDS = 5.0            # a hint's default search time, as `tigris hint`'s
MAX_HINT_SECONDS = 600.0
WIDTH = 100                   # characters of a line of grouped moves

HELP = """\
Type a move in the engine's notation (Tab completes it), or a command:
  moves [FILTER]   the legal moves, grouped (FILTER: only those containing these words)
  hint [SECONDS]   the best moves by the search (default 5 seconds; Ctrl-C stops it)
  undo             back to the previous human decision (the bots' replies are taken back too)
  board            the board again
  save FILE        write the game record to a new FILE (the record file is also kept up to date)
  quit             save the record and stop (end of input and Ctrl-C at the prompt do the same);
                   tigris play --resume FILE goes on with the game
  help             this text"""


class Quit(Exception):
    """The person asked to stop (quit, or end of input)."""


class Terminal(Session):
    """One game at the terminal: `bots` holds a bot per seat, None for a human one;
    `names` the seats' names for the record (``HUMAN`` for a person); `record` the file
    the record is kept in.  `read(prompt)` reads a line (``input`` by default),
    `write(text)` prints."""

    def __init__(self, game, bots, names, record, read=input, write=print, colour=False,
                 hint_bot=DEFAULT_BOT):
        for seat, bot in enumerate(bots):
            if bot is not None and not getattr(bot, "honest", True):
                raise UsageError(f"seat {seat}: the bot {names[seat]!r} plays from the true "
                                 f"hidden state (it would see your hand); choose an honest bot")
        if len(bots) != len(names) or any((bot is None) != (name == HUMAN) for bot, name in zip(bots, names)):
            raise UsageError(f"seats: a bot for each seat named by a bot, None for each named "
                             f"{HUMAN!r}, not {excerpt(names)}")
        super().__init__(game, names, record)
        self.bots = list(bots)
        self.read = read
        self.write = write
        self.colour = colour
        self.hint_bot = hint_bot
        self.shown = None                 # (player, turn) when the board was last shown
        self.briefed = None               # the number of moves when the person was last told
        self.saved_at = None              # the number of moves when the record was last saved
        self.saved = {os.path.realpath(self.path)}    # files this table may write over

    @property
    def record(self):
        """The file the record is kept in."""
        return self.path

    @record.setter
    def record(self, path):
        self.path = Path(path)

    @property
    def names(self):
        """The seats' names, as the record's bots (``HUMAN`` for a person)."""
        return self.seats

    # ----------------------------------------------------------------------------------
    # The game
    # ----------------------------------------------------------------------------------

    def play(self):
        """Play until the game ends or the person leaves; the record is saved either way.
        Returns True if the game ended.  A Ctrl-C is re-raised after the record is saved,
        its message saying where."""
        try:
            while goes_on(self.game):
                player = self.game.current_player
                if self.person(player):
                    self.human_decision(player)
                else:
                    self.bot_decision(player)
        except Quit as e:
            self.save()
            self.write(f"{e}: the game so far is saved in {self.record}; go on with "
                       f"tigris play --resume {shlex.quote(str(self.record))}")
            return False
        except KeyboardInterrupt:
            self.save()
            raise KeyboardInterrupt(f"interrupted: the game so far is saved in {self.record}; go on "
                                    f"with tigris play --resume {shlex.quote(str(self.record))}") from None
        self.finish()
        return True

    def bot_decision(self, player):
        """A bot's move, printed as it happens."""
        bot = self.bots[player]
        self.apply(bot.choose(self.game), f"player {player} ({self.seats[player]})")

    def human_decision(self, player):
        """Prompt until the person makes a legal move (or leaves, or undoes)."""
        if self.saved_at != len(self.game.history):
            self.save()                          # every human move is on disk before the next
        self.brief(player)
        self.complete_with(self.game)
        while True:
            try:
                line = self.read(self.prompt(player)).strip()
            except EOFError:
                self.write("")
                raise Quit("end of input") from None
            if not line:
                continue
            word, _, rest = line.partition(" ")
            command = COMMANDS.get(word.lower())
            if command is not None:
                if command(self, player, rest.strip()):
                    return                       # the position changed (undo)
                continue
            if word.lower() not in SYNTAX and word.lower() != "swap":
                self.write(f"{excerpt(word)} is neither a move nor a command (help lists them; "
                           f"moves lists the legal moves)")
                continue
            try:
                str_to_action(line)
            except IllegalActionError as e:      # malformed: the message says what is wrong
                self.write(str(e))
                continue
            try:
                action = self.game.parse_action(line)
            except IllegalActionError as e:
                self.write(f"not a legal move: {e}")
                self.write("(moves lists the legal ones; help lists the commands)")
                continue
            self.apply(action, f"player {player} (you)")
            return

    def apply(self, action, who):
        """Apply a move and print it, with what the engine then played by itself and the
        tiles the human seats drew (a bot's draws by number only)."""
        moved = self.make_move(action)
        # a bot's swap: its discards are face down
        text = moved.move if self.person(moved.player) else public(moved.move)
        self.write(f"{moved.n:4}. {who}: {text}")
        for f in moved.forced:
            self.write(f"      then: {f}")
        for line in moved.happened:
            self.write(f"      {line}")
        drawn = {}
        for p, colour in moved.draws:
            drawn.setdefault(p, []).append(colour)
        for p, colours in sorted(drawn.items()):
            if self.person(p):
                names = ", ".join(COLOURS[c] for c in colours)
                self.write(f"      player {p} draws {names}")
            else:
                self.write(f"      player {p} draws {len(colours)} tile{'s' * (len(colours) != 1)}")

    def finish(self):
        """The end: the final board, the ranking, the record."""
        game = self.game
        self.write(render(game, colour=self.colour))
        if not game.is_over:
            self.write(f"the game did not end: {TURN_LIMIT}")
        for place, players in enumerate(game.ranking(), start=1):
            for p in players:
                s = game.score(p)
                self.write(f"{place}. player {p} ({self.names[p]}): {game.final_score(p)} "
                           f"(red {s['red']}, blue {s['blue']}, green {s['green']}, "
                           f"black {s['black']}, treasures {s['treasures']})")
        self.save()
        self.write(f"record saved to {self.record}")
        # the seat's secret while the game was live (it dealt every tile): told at the end
        self.write(f"seed {game.seed} (--seed {game.seed} deals this game again)")

    # ----------------------------------------------------------------------------------
    # What the person sees
    # ----------------------------------------------------------------------------------

    def brief(self, player):
        """What `player` needs before deciding: the whole board at the start of the turn
        (and after an undo or a resume), else once a line of the own hand and score, and
        the decision at hand (a conflict's strengths) if it is not an action."""
        game = self.game
        if self.shown is None or (game.decision == "action" and self.shown != (player, game.turn)):
            self.show(player)
        elif self.briefed != len(game.history):
            self.write(status_line(game, player))
            if game.decision != "action":
                for line in decision_line(game, game.raw_state()):
                    self.write(line)
            self.briefed = len(game.history)

    def show(self, player):
        """The board as `player` sees it."""
        self.write(render(self.game, viewer=player, colour=self.colour))
        self.shown = (player, self.game.turn)
        self.briefed = len(self.game.history)

    def prompt(self, player):
        game = self.game
        if game.decision == "action":
            raw = game.raw_state()
            step = f"action {3 - raw['actions_left']} of 2"
        else:
            step = game.decision
        return f"player {player}, {step}> "

    def complete_with(self, game):
        """Tab completes the legal moves and the commands (where readline is in use)."""
        if _readline is None:
            return
        words = sorted({game.action_str(a) for a in game.legal_actions()} | set(COMMANDS))

        def complete(text, state):
            line = _readline.get_line_buffer()
            matches = [w for w in words if w.startswith(line)]
            # readline replaces only the word being typed: return the rest of each match
            # from where that word starts
            start = len(line) - len(text)
            matches = [m[start:] for m in matches]
            return matches[state] if state < len(matches) else None
        _readline.set_completer(complete)

    # ----------------------------------------------------------------------------------
    # The record
    # ----------------------------------------------------------------------------------

    def save(self, path=None):
        """Write the record to `path` (default: the table's record file) in one piece
        (``Session.save``), remembering it as a file this game may write over again."""
        path = super().save(path)
        self.saved.add(os.path.realpath(path))
        if path == self.path:
            self.saved_at = len(self.game.history)
        return path


def status_line(game, player):
    """One line of what `player` holds and has scored."""
    hand, score = game.hand(player), game.score(player)
    return (f"you (player {player}): hand {' '.join(f'{c} {hand[c]}' for c in COLOURS)}; "
            f"score {' '.join(f'{c} {score[c]}' for c in COLOURS)}; "
            f"treasures {score['treasures']}")


# --------------------------------------------------------------------------------------
# The commands of the prompt: each returns True when the position changed
# --------------------------------------------------------------------------------------

def cmd_moves(table, player, rest):
    """The legal moves grouped by kind (a tile's colour, a leader), filtered by words."""
    game = table.game
    words = rest.lower().split()
    moves = [game.action_str(a) for a in game.legal_actions()]
    moves = [m for m in moves if all(w in m.lower() for w in words)]
    if not moves:
        table.write(f"no legal move contains {rest!r}" if words else "no legal move")
        return False
    groups = {}
    for move in moves:
        parts = move.split()
        # a move onto a square is grouped by what it places there: "tile red", "leader king"
        if len(parts) > 1 and _is_square(parts[-1]):
            key, item = " ".join(parts[:-1]), parts[-1]
        else:
            key, item = parts[0], " ".join(parts[1:])
        groups.setdefault(key, []).append(item)
    table.write(f"{len(moves)} legal move{'s' * (len(moves) != 1)}:")
    for key, items in groups.items():
        items = [item for item in items if item]
        if not items:                              # pass, no-monument, no-building
            table.write(f"  {key}")
            continue
        joined = (" " if all(map(_is_square, items)) else ", ").join(items)
        table.write(textwrap.fill(joined, WIDTH, initial_indent=f"  {key}: ",
                                  subsequent_indent=" " * 6))
    return False


def _is_square(word):
    return len(word) in (2, 3) and word[0].isalpha() and word[1:].isdigit()


def cmd_hint(table, player, rest):
    """The search's best moves for the decision, from what this player can see."""
    seconds = HINT_SECONDS
    if rest:
        try:
            seconds = float(rest)
        except ValueError:
            seconds = float("nan")
        if not 0 < seconds <= MAX_HINT_SECONDS:
            table.write(f"hint SECONDS: a number above 0 and at most {MAX_HINT_SECONDS:g}, "
                        f"not {rest!r}")
            return False
    try:
        hints = tigris.hint(table.game, seconds=seconds, bot=table.hint_bot)
    except KeyboardInterrupt:            # the person stops the search, not the game
        table.write("hint stopped (Ctrl-C); the game goes on")
        return False
    table.write(format_table(table.game, hints))
    return False


def cmd_undo(table, player, rest):
    """Back to the previous decision of a human seat, the moves after it taken back."""
    back = table.undo_point()
    if back is None:
        table.write("nothing to undo: no human decision yet")
        return False
    taken = table.take_back(back)
    moves = f"move {back + 1}" if taken == 1 else f"moves {back + 1}-{back + taken}"
    table.write(f"took back {taken} move{'s' * (taken != 1)} ({moves}): the game stands "
                f"before move {back + 1}")
    table.shown = None
    return True


def cmd_board(table, player, rest):
    table.show(player)
    return False


def cmd_save(table, player, rest):
    """Write the record to FILE: a new file, or one this game saved before (never another
    file, a folder or a device); a file that cannot be written is reported, the game goes
    on."""
    if not rest:
        table.write("save FILE: name the file")
        return False
    try:
        path = files.check_target(rest, option="save")
        if path.exists() and os.path.realpath(path) not in table.saved:
            raise UsageError(f"{rest} exists: name a new file (save writes over no other file)")
        table.save(path)
    except (OSError, UsageError) as e:
        table.write(f"cannot save to {rest}: {e.strerror or e}" if isinstance(e, OSError) else str(e))
        return False
    table.write(f"record saved to {rest}")
    return False


def cmd_quit(table, player, rest):
    raise Quit("quit")


def cmd_help(table, player, rest):
    table.write(HELP)
    return False


COMMANDS = {"moves": cmd_moves, "hint": cmd_hint, "undo": cmd_undo, "board": cmd_board,
            "save": cmd_save, "quit": cmd_quit, "help": cmd_help, "?": cmd_help}


_readline = None               # the readline module once use_terminal turned it on


def use_terminal():
    """Line editing, history and Tab completion of moves for the prompt, where the input
    is a terminal and Python has readline; a pipe reads plain lines."""
    global _readline
    if not sys.stdin.isatty():
        return
    try:
        import readline
    except ImportError:
        return
    readline.set_completer_delims(" ")
    readline.parse_and_bind("tab: complete")
    _readline = readline


def colour_wanted(stream=sys.stdout):
    """Colour on a terminal, unless NO_COLOR is set or the terminal is dumb."""
    return (hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("NO_COLOR")
            and os.environ.get("TERM") != "dumb")


# the name this module published before the session type
__getattr__ = old_names(__name__, {"Table": "Terminal"}, {"Table": "a tigris.session.Session at the terminal"})
