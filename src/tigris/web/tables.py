"""Games played at the server (``tigris serve``): people and bots at one table, each game
a record file written after every move.

A game (``Table``, a ``tigris.session.Session`` in the browser) has a seat per player: a person (``HUMAN``, as at the terminal) or a
bot the server lists by name (``table_bots``: the shipped configurations and the files
of the served folders' ``bots`` folders, never a path), an honest one (``cheat`` would
see the people's hands) whose move is bounded (``MOVE_SECONDS``, ``MOVE_ITERATIONS``,
``workers`` at most the machine's cores).  A person's move comes from the page
(``move``); a bot's from a worker process (``tigris.web.jobs``), started when its turn
comes, so the server never searches, and taken in as soon as it is made (not at a page's
next look); while it runs the game is ``thinking``.
``seen_by(player)`` is the game as that player may see it: the position with the others'
hands hidden, the legal moves when it is the player's turn, and what each move did
(``tigris.events``); with ``drawn`` (the version a page shows) also the page's data
(``view.game_data`` as that player sees the game) when the game has changed since, so
the page redraws in place.  ``undo`` takes the game back to the player's previous
decision (the bots' replies with it), ``resign`` ends it with the player last; a game
over stays over (its record, every hand in it, may then be shown), but for a
resignation taken back by its player's undo before anyone was shown the record
(``shown_whole``).  Every change counts a
``version`` up: a write names the version it was made at, and one made at an older
state is refused (``Stale``).  The record (``tigris-game/1``) is replaced whole after
every move, so a game left at any point goes on from it (``Table.resume``), also after
the server restarts; a change whose record cannot be written is taken back
(``SaveFailed``), so the record and the game agree.  A table holds its record's lock
(``tigris._plumbing.locks``) while the game may go on, so no other server or terminal
writes it meanwhile (``InUse``).

A person's seat is theirs by a key in its address (``/play/ID?player=P&key=K``).  The
table's id and its people's keys are kept beside the record, in a file of the server's
own that its user alone may read (``seats_file``: not in the record, which a seat may
read once the game is over), written as the table is made, read again as it is played on
(``kept_seats``) and removed once the game is over: a seat's address outlives its tab
and the server.

A game's seed is its secret while it is live: every hand and every later draw follows
from it.  A seed is drawn from 63 bits when none is given, and a record's name holds
none (``game-DATE-TIME-TOKEN.json``); the record alone keeps it.

>>> game = Table.new("games", players=2, seats=["human", "greedy"])   # doctest: +SKIP
>>> game.move(0, "leader king F4", version=game.version)                # doctest: +SKIP
"""

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import stat
import threading
import time
from pathlib import Path

from tigris._plumbing import renamed
from tigris._plumbing.renamed import old_names
from tigris.bots import DEFAULT as DEFAULT_BOT
from tigris.errors import IllegalActionError, RecordError, UsageError, excerpt
from tigris.session import HUMAN, Session

__all__ = ["HUMAN", "MAX_EVENTS", "MOVE_SECONDS", "MOVE_ITERATIONS", "SEATS_FORMAT", "Table", "NotYours",
           "Stale", "SaveFailed", "InUse", "group_of", "record", "game_key", "file_id", "table_bots",
           "check_seats", "cores", "seats_file", "seats_record", "kept_seats", "key_fits", "seat_address"]

MAX_EVENTS = 40             # the last moves whose events a view tells
MOVE_SECONDS = 60.0         # a bot's move at a table: no longer than the longest hint
MOVE_ITERATIONS = 100_000   # ... and no more iterations (ismcts-strong takes 10,000)
SEATS_FORMAT = "tigris-seats/1"   # the file of a table's id and its seats' keys (seats_file)
SEATS_SUFFIX = ".seats"
MAX_SEATS_FILE = 4096       # bytes: an id and four keys are far less
_ID = re.compile(r"[0-9a-f]{12}")             # a table's id: secrets.token_hex(6)
_KEY = re.compile(r"[A-Za-z0-9_-]{12,64}")    # a seat's key: secrets.token_urlsafe(9)


class NotYours(UsageError):
    """A request for a person's seat without that seat's key (the server answers 403)."""


class Stale(UsageError):
    """A write made against a state of the game that is no longer current (409: the
    page loads the game again)."""


class InUse(UsageError):
    """A record another run (a server, a game at the terminal) holds: it plays the game
    now (409)."""


class SaveFailed(UsageError):
    """The record could not be written; the change is taken back (``status``: 507 when
    the disk is full, else 500)."""

    def __init__(self, message, status=500):
        super().__init__(message)
        self.status = status


def group_of(move):
    """The kind of a move for the page's choices: its words without the square
    ("tile red G5" -> "tile red", "monument red-blue H5" -> "monument red-blue")."""
    words = [w for w in move.split() if not (w[:1].isupper() and w[1:].isdigit())]
    if words and words[0] == "swap":
        return "swap"
    return " ".join(words)


class Table(Session):
    """A game at the server (see the module's docstring): a ``tigris.session.Session``
    in the browser.  ``Played``, its former name, is a deprecated alias."""

    def __init__(self, game, seats, path, searches, configurations=None, kept=None):
        from tigris.record import to_record

        super().__init__(game, seats, path)
        self.searches = searches
        # the bots' configurations, checked once (None for a person's seat)
        self.configurations = list(configurations or [None] * len(self.seats))
        self.version = 0                     # counted up by every change
        # A person's seat is theirs by a key in their page's address: without it no page
        # may see that seat's hand (nor any bot's: only people's seats are shown).  The
        # id and the keys kept beside the record (`kept`, ``kept_seats``) are the table's
        # again, so its seats keep their addresses.
        self.id, self.keys = kept if kept is not None else (
            secrets.token_hex(6),
            {p: secrets.token_urlsafe(9) for p in self.people})
        self.events = []                     # per move: {"n", "player", "move", "said"}
        self.shown_whole = False             # the record of the game over shown (or analysed)
        self.drawn = {}                      # per seat: (version, its page's data, record's moves, replay)
        self.job = None                      # the key of the running bot move, if any
        self.error = None                    # why a bot could not move
        self.closed = False                  # no bot moves any more (the server stops)
        self.lock = threading.Lock()
        self.key = game_key(to_record(game))   # what any record of this game shows (game_key)
        self.file = None                     # the record's (device, inode), as last written
        self._held = contextlib.ExitStack()  # the record's lock, while the game may go on

    # -- making and resuming ---------------------------------------------------------

    @classmethod
    def new(cls, folder, players=2, seats=None, board="classic", variants=(), seed=None,
            searches=None, bots=None):
        """A new game in a new record file of `folder`: `seats` a list of HUMAN or names
        of `bots` (``table_bots``; default the shipped ones), by default a person against
        ``bots.DEFAULT`` (``ismcts-fast``)."""
        import tigris

        if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
            raise UsageError(f"players must be 2, 3 or 4, not {excerpt(players)}")
        seats = seats if seats is not None else [HUMAN] + [DEFAULT_BOT] * (players - 1)
        if not isinstance(seats, list) or len(seats) != players:
            raise UsageError(f"seats: a list of one a player ({players}), not {excerpt(seats)}")
        configurations = check_seats(seats, table_bots() if bots is None else bots)
        if not (isinstance(variants, (list, tuple)) and all(isinstance(v, str) for v in variants)):
            raise UsageError(f"variants: a list of names, not {excerpt(variants)}")
        if seed is None:
            seed = secrets.randbelow(1 << 63)     # 2**31 deals could be searched for a seat's hand
        if not (isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 1 << 63):
            raise UsageError(f"seed must be a whole number from 0 to 2**63 - 1, not {excerpt(seed)}")
        try:
            game = tigris.Game(players=players, seed=seed, board=board, variants=tuple(variants))
        except (TypeError, ValueError) as e:
            raise UsageError(str(e)) from None
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        # the name holds no seed: a seat reads it, and the seed gives every hand
        path = _new_file(folder, f"game-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}")
        played = cls(game, seats, path, searches, configurations)
        try:
            played._hold()
            played.save()
            played._keep_seats()
        except (OSError, UsageError) as e:
            played._forget_seats()
            played._let_go()
            path.unlink(missing_ok=True)     # the file claimed, empty: no game is left half made
            raise _save_failed(e, "the new game") from None
        played.advance()
        return played

    @classmethod
    def resume(cls, path, searches=None, bots=None, taken=()):
        """The game of a record left unfinished at a table (``tigris.seat``'s or this
        server's), played on; its bots must be among `bots` (``table_bots``).  Its seats
        keep the id and keys kept beside the record (``kept_seats``) unless that id is
        among `taken` (the server's tables); else they get new ones, kept from now on."""
        from tigris.session import unfinished_game
        from tigris.sources import read_json

        path = Path(path)
        held = _hold(path)                  # read once no other run writes it (InUse)
        try:
            rec = read_json(path, RecordError)
            game, seats = unfinished_game(rec)
            configurations = check_seats(seats, table_bots() if bots is None else bots)
            kept = kept_seats(path, game_key(rec))
            people = {p for p, seat in enumerate(seats) if seat == HUMAN}
            if kept is not None and (kept[0] in taken or set(kept[1]) != people):
                kept = None
            played = cls(game, seats, path, searches, configurations, kept)
            if kept is None:
                try:
                    played._keep_seats()
                except (OSError, UsageError) as e:
                    reason = (e.strerror if isinstance(e, OSError) else None) or str(e)[:200]
                    raise SaveFailed(f"{path.name}: its seats' keys could not be saved ({reason}); "
                                     f"the game is not played on") from None
            played._held.push(held)
            played.file = file_id(path)
        except BaseException:
            held.__exit__(None, None, None)
            raise
        played.advance()
        return played

    # -- what a player sees ---------------------------------------------------------

    def check_key(self, player, key):
        """`player`, once `key` is that person's seat's key; else a UsageError (NotYours
        for a key that is not the seat's)."""
        _check_player(player, self.game.players)
        if not self.person(player):
            raise UsageError(f"player {player} is a bot ({self.seats[player]}): only a person's seat is shown")
        if not key_fits(self.keys, player, key):
            raise NotYours(f"this is not player {player}'s seat: its page's address holds its key")
        return player

    def seat(self, player, key):
        """Deprecated: ``check_key``."""
        renamed.warn("Table.seat(player, key)", "use Table.check_key")
        return self.check_key(player, key)

    def addresses(self):
        """``{player: its page's address}`` of every person's seat (``seat_address``)."""
        return {p: seat_address(self.id, p, key) for p, key in sorted(self.keys.items())}

    def seen_by(self, player, drawn=None):
        """The game as `player` (a person's seat, ``check_key`` checked) may see it; when
        `drawn` (the version the player's page shows) is given and the game's version is
        another, also ``data``: the page's data as the player sees the game
        (``view.game_data``), for the page to redraw in place."""
        with self.lock:
            self._collect()
            _check_player(player, self.game.players)
            seen = self._seen_by(player)
            rec = self.to_record() if drawn is not None and drawn != self.version else None
        if rec is not None:
            seen["data"] = self._page_data(rec, player, seen["version"])
        return seen

    def page(self):
        """(the record, the version): what a seat's page is drawn from, at one moment."""
        with self.lock:
            return self.to_record(), self.version

    def _seen_by(self, player):
        from tigris.position import to_position

        game = self.game
        to_move = None if self.over else game.current_player
        mine = player == to_move and self.person(player) and self.job is None
        legal = []
        if mine:
            for a in game.legal_actions():
                text = game.action_str(a)
                legal.append({"action": a, "move": text, "group": group_of(text)})
        return {"id": self.id, "version": self.version, "file": self.path.name,
                "players": game.players, "board": game.board,
                "variants": list(game.variants), "seats": self.seats, "player": player,
                "position": to_position(game, player), "to_move": to_move,
                "decision": game.decision if not self.over else "over",
                "moves": len(game.history), "thinking": self.job is not None,
                "legal": legal, "events": [_seen(e, player) for e in self.events[-MAX_EVENTS:]],
                "can_undo": self._can_undo(player),
                "over": self.over, "result": self.result(), "error": self.error}

    def _page_data(self, rec, player, version):
        """The data of `player`'s page of the record `rec` (the game at `version`), as
        ``view.game_page`` draws it; kept per seat until the game changes."""
        from tigris import view

        kept = self.drawn.get(player)
        if kept is not None and kept[0] == version:
            return kept[1]
        since = None                         # the last replay, when this record continues it
        if kept is not None and kept[3].stopped is None and rec["moves"][:len(kept[2])] == kept[2]:
            since = kept[3]
        replayed = view.replay_steps(rec, True, player, since=since)
        data = view.game_data(rec, partial=True, replayed=replayed)
        self.drawn[player] = (version, data, rec["moves"], replayed)
        return data

    # -- a person's decisions -------------------------------------------------------

    def move(self, player, move, version=None):
        """`player`'s move (its notation or action id), when it is theirs to make;
        `version` the one the move was chosen at (None: not checked)."""
        with self.lock:
            self._current(version)
            game = self.game
            _check_player(player, game.players)
            if self.over:
                raise UsageError("the game is over")
            if not self.person(player):
                raise UsageError(f"player {player} is a bot ({self.seats[player]})")
            if game.current_player != player or self.job is not None:
                raise UsageError(f"it is player {game.current_player}'s turn, not player {player}'s")
            try:
                action = game.parse_action(move) if isinstance(move, str) else move
                if not (isinstance(action, int) and not isinstance(action, bool)) \
                        or action not in game.legal_actions():
                    raise IllegalActionError(f"{excerpt(move)} is not a legal move here")
            except IllegalActionError as e:
                raise UsageError(f"not a legal move: {e}") from None
            with self._change("the move"):
                self._apply(action)
            self._advance()

    def undo(self, player, version=None):
        """Back to `player`'s previous decision, the moves after it taken back (a bot's
        move in progress stopped); after `player`'s resignation, the resignation alone
        (the game goes on from the same position), unless the record was shown since."""
        with self.lock:
            self._current(version)
            _check_player(player, self.game.players)
            if self._resignation_undone(player):
                return
            if self.over:                        # its record may be shown whole now: it stays over
                raise UsageError("the game is over: nothing to undo")
            back = self.undo_point(player)
            if back is None:
                raise UsageError(f"nothing to undo: player {player} has made no move yet")
            with self._change("the undo"):
                self._stop_job()
                self.take_back(back)
                self.events = [e for e in self.events if e["n"] <= back]
                self.resigned = None
            self._advance()

    def _resignation_undone(self, player):
        """Take back `player`'s resignation, if that is what undo does now."""
        if self.resigned is None or self.resigned != player or self.shown_whole:
            return False
        with self._change("the undo"):
            self.resigned = None
        self._advance()
        return True

    def _can_undo(self, player):
        if self.resigned is not None:
            return self.resigned == player and not self.shown_whole
        return not self.over and self.undo_point(player) is not None

    def resign(self, player, version=None):
        """`player` gives up: the game ends, the player last."""
        with self.lock:
            self._current(version)
            _check_player(player, self.game.players)
            if not self.person(player):
                raise UsageError(f"player {player} is a bot ({self.seats[player]}): only people resign")
            if self.over:
                raise UsageError("the game is over")
            with self._change("the resignation"):
                self._stop_job()
                self.resigned = player

    def advance(self):
        """Start the bot whose turn it is (if any) in a worker; take in its move once
        made.  Called as a bot's move is made, and as pages ask for the game."""
        with self.lock:
            self._collect()

    def _moved(self):
        """A bot's move is made (called in the worker pool's thread): taken in at once, by
        a thread of its own, as this one must not wait for the table's lock."""
        threading.Thread(target=self.advance, name="tigris-table", daemon=True).start()

    def close(self):
        """The table closes: its bot's move stopped, its record let go of."""
        with self.lock:
            self.closed = True
            self._stop_job()
            self._let_go()

    def show_whole(self):
        """Whether the game is over, so its record (every hand) may be shown; if so it
        stays over from now on (no resignation taken back) and its record is let go of."""
        with self.lock:
            if not self.over:
                return False
            self.shown_whole = True
            self._settle()
            return True

    # -- the record's lock ----------------------------------------------------------

    def _hold(self):
        self._held.push(_hold(self.path))

    def _let_go(self):
        self._held.close()

    def _settle(self):
        """Let go of the record once the game cannot go on: over, and not by a
        resignation its player may still take back; its seats' keys, of no more use,
        go first (while no other run may write beside it)."""
        if self.over and (self.resigned is None or self.shown_whole):
            self._forget_seats()
            self._let_go()

    # -- the seats' keys, kept beside the record ------------------------------------

    def _keep_seats(self):
        """The table's id and its people's keys written beside the record
        (``seats_file``), readable by the server's user alone: the file is made anew
        with those rights (a file written over would keep its own), then written whole."""
        from tigris import files

        where = seats_file(self.path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(where)
        os.close(os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
        files.write_text(where, json.dumps({"format": SEATS_FORMAT, "id": self.id, "game": _digest(self.key),
                                            "keys": {str(p): k for p, k in sorted(self.keys.items())}}) + "\n")

    def _forget_seats(self):
        """The seats' keys kept beside the record removed (the game is over)."""
        with contextlib.suppress(OSError):
            os.unlink(seats_file(self.path))

    # -- with the lock held ---------------------------------------------------------

    def _current(self, version):
        if version is not None and version != self.version:
            raise Stale(f"the game has moved on (version {self.version}, not {excerpt(version)}): "
                        f"load it again")

    @contextlib.contextmanager
    def _change(self, what):
        """A change of the game, saved; if the record cannot be written, the game is
        taken back to what it was (the record on disk still says so) and SaveFailed
        says why.  Each change saved counts the version up."""
        before = (self.game.copy(), list(self.events), self.resigned, self.job)
        yield
        try:
            self.save()
        except (OSError, UsageError) as e:      # the disk full, the folder gone or read-only
            self.game, self.events, self.resigned = before[:3]
            if self.job is None and before[3] is not None:
                self._advance()                  # the bot stopped by an undo searches again
            raise _save_failed(e, what) from None
        self.version += 1
        self._settle()

    def _apply(self, action):
        self.events.append(self.make_move(action).event())

    def _advance(self):
        """A bot's turn: its move searched in a worker."""
        if self.over or self.job is not None or self.searches is None or self.closed:
            return
        if self.person(self.game.current_player):
            return
        seat = self.seats[self.game.current_player]
        from tigris.record import to_record
        from tigris.play.runner import bot_seed

        seed = bot_seed(self.game.seed, 0, self.game.current_player, decision=len(self.game.history))
        bot = self.configurations[self.game.current_player] or seat
        self.job = self.searches.start_move(to_record(self.game, bots=self.seats), bot, seed, done=self._moved)

    def _collect(self):
        if self.job is not None:
            state = self.searches.state(self.job)
            if state["state"] in ("waiting", "running"):
                return
            self.searches.forget(self.job)
            self.job = None
            if state["state"] == "done":
                action = state["result"]["action"]
                if action in self.game.legal_actions():
                    try:
                        with self._change("the bot's move"):
                            self._apply(action)
                    except SaveFailed as e:      # searched again at the next look
                        self.error = str(e)
                        return
                    self.error = None
                else:
                    self.error = f"the bot chose {action}, not a legal move"
                    return
            else:
                self.error = f"the bot could not move: {state['error'] or state['state']}"
                return
        self._advance()

    def _stop_job(self):
        if self.job is not None:
            self.searches.forget(self.job)
            self.job = None

    def save(self):
        """The record, replaced whole (``Session.save``)."""
        path = super().save()
        self.file = file_id(self.path)
        return path


def _new_file(folder, stem):
    """A file of `folder` named after `stem` that did not exist, claimed (created empty),
    so that a new game never writes over a record already there (two games made in the
    same second with the same seed get ``-2``, ``-3``, ...)."""
    for k in range(1, 1000):
        path = folder / (f"{stem}.json" if k == 1 else f"{stem}-{k}.json")
        try:
            path.open("x").close()
            return path
        except FileExistsError:
            continue
    raise UsageError(f"{folder}: no free file name for a new game")


def _hold(path):
    """The lock of the record `path` (``locks.hold``), taken (the context manager,
    entered: its ``__exit__`` lets go): InUse (409) naming the run that holds it, a
    UsageError if it cannot be taken (a folder not writable)."""
    from tigris._plumbing import locks

    who = locks.held_by(path, file=True)
    if who is not None:
        raise InUse(f"{path.name} is in use by another run ({who}): it is played there; "
                    f"wait for it to end")
    held = locks.hold(path, file=True)
    try:
        held.__enter__()
    except UsageError as e:
        message = str(e).replace(str(path), path.name).replace(str(path.parent), path.parent.name)
        raise (InUse if "in use by another run" in message else UsageError)(message) from None
    return held


def seats_file(path):
    """The file beside the record `path` that keeps its table's id and its people's seats'
    keys: ``.NAME.seats`` (NAME the record's), the server's own, never served."""
    path = Path(path)
    return path.with_name(f".{path.name}{SEATS_SUFFIX}")


def seats_record(path):
    """The record whose seats file (``seats_file``) `path` is named as, beside it; None
    for a file not so named."""
    path = Path(path)
    name = path.name
    if not (name.startswith(".") and name.endswith(SEATS_SUFFIX) and len(name) > 1 + len(SEATS_SUFFIX)):
        return None
    return path.with_name(name[1:-len(SEATS_SUFFIX)])


def kept_seats(path, game=None):
    """What the seats file of the record `path` keeps (``seats_file``): ``(table id,
    {player: key})``; None when there is none, when it is not a regular file of this
    process's user that no one else may read (a file anyone could have put there names
    no seat), when it is not one, or when `game` (``game_key`` of the record) is given
    and it is another game's."""
    from tigris.sources import json_or_none, read_source

    where = seats_file(path)
    try:
        st = os.stat(where, follow_symlinks=False)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077 \
            or st.st_size > MAX_SEATS_FILE:
        return None
    try:
        data = json_or_none(read_source(where, limit=MAX_SEATS_FILE))
    except (OSError, UsageError):
        return None
    if not (isinstance(data, dict) and data.get("format") == SEATS_FORMAT
            and isinstance(data.get("id"), str) and _ID.fullmatch(data["id"])
            and isinstance(data.get("game"), str) and isinstance(data.get("keys"), dict)
            and data["keys"] and all(isinstance(p, str) and p in "0123" and len(p) == 1
                                     and isinstance(k, str) and _KEY.fullmatch(k)
                                     for p, k in data["keys"].items())):
        return None
    if game is not None and data["game"] != _digest(game):
        return None
    return data["id"], {int(p): k for p, k in data["keys"].items()}


def key_fits(keys, player, key):
    """Whether `key` is the key of `player`'s seat among `keys` (``{player: key}``),
    compared in constant time."""
    return isinstance(key, str) and player in keys and secrets.compare_digest(
        key.encode("utf-8", "replace"), keys[player].encode("ascii"))


def seat_address(table, player, key):
    """The address of `player`'s seat at the table `table` (its id), with its `key`."""
    return f"/play/{table}?player={player}&key={key}"


def _digest(key):
    """A game's ``game_key`` as the seats file keeps it: a digest (the key holds the
    seed, which this file has no need of)."""
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest() if key is not None else ""


def file_id(path):
    """The file `path` itself, whatever its name: (device, inode), or None if it is not
    there.  A hard link to a record is that record."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def game_key(rec):
    """What makes a record a record of one game, however far it goes and whatever file
    holds it: its players, board, variants, seed and deal, as text (None for what is not
    a record).  An old copy of a live game's record shows its hands and its seed."""
    if not isinstance(rec, dict):
        return None
    seed = rec.get("seed")
    try:
        return json.dumps([rec.get("players"), rec.get("board", "classic"), rec.get("variants") or [],
                           0 if seed is None else seed, rec.get("deal")], sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return None


def _seen(event, player):
    """A move's event as `player` may see it: another's swap without its colours."""
    from tigris.notation import public

    return event if event["player"] == player else dict(event, move=public(event["move"]))


def record(played):
    """The record of the game so far (``tigris-game/1``), as ``save`` writes it."""
    with played.lock:
        return played.to_record()


def table_bots(folders=()):
    """The bots a table may seat, by name: the ``.toml`` files of the ``bots`` folder of
    each of `folders` (in their order; a link out of its folder is not followed), then
    the configurations shipped with the package; a name is the first file of that stem.
    ``{name: (path, shown, root)}``, `shown` how a message names the file
    (``bots/x.toml`` inside its folder, a shipped one by its name alone: no path outside
    the folders), `root` the served folder it is in (None for a shipped one)."""
    from tigris import bots as botlib

    found = {}
    for folder in folders:
        root = Path(folder).resolve()
        for path in _tomls(root / "bots"):
            if root in path.resolve().parents:
                found.setdefault(path.stem, (path.resolve(), f"bots/{path.name}", root))
    for path in _tomls(botlib.PACKAGED):
        found.setdefault(path.stem, (path, path.stem, None))
    return found


def _tomls(folder):
    try:
        return sorted(p for p in Path(folder).glob("*.toml") if p.is_file())
    except OSError:
        return []


def cores():
    """The processor cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def check_seats(seats, available):
    """Each seat a person or a bot of `available` (``table_bots``), honest, its move
    bounded, the file it reads besides its own (a network) a file of its served folder,
    read and checked now (``_network_read``); the bots' configurations (None for a
    person) in seat order."""
    from tigris import bots as botlib
    from tigris.errors import ConfigError

    configurations = []
    for k, seat in enumerate(seats):
        if not isinstance(seat, str) or not seat:
            raise UsageError(f"seats[{k}]: a bot's name or {HUMAN!r}, not {excerpt(seat)}")
        if seat == HUMAN:
            configurations.append(None)
            continue
        if seat not in available:
            raise UsageError(f"seats[{k}]: unknown bot {excerpt(seat)}; this server's bots: "
                             f"{', '.join(sorted(available))}")
        path, shown, root = available[seat]
        try:
            conf = botlib.configuration(path, network=False)   # read below, in its folder
        except (ConfigError, RecursionError) as e:
            message = str(e).replace(str(path), shown) if isinstance(e, ConfigError) else "nested too deep"
            raise UsageError(f"seats[{k}]: the bot {seat} cannot play: {excerpt(message, 300)}") from None
        if not botlib.CLASSES[conf.kind].honest:
            raise UsageError(f"seats[{k}]: {seat} reads the hidden tiles (it would see the people's "
                             f"hands); choose an honest bot")
        _check_budget(k, seat, conf.params)
        configurations.append(_network_read(k, seat, conf, shown, root, len(seats)))
    if HUMAN not in seats:
        raise UsageError(f"seats: at least one {HUMAN!r} (a person) at the table")
    return configurations


def _network_read(k, seat, conf, shown, root, players):
    """`conf` (the bot of seat `k`, its file named `shown` in the served folder `root`)
    with its network, if it names one, read and checked now, so a bad one is refused as
    the seat is made and not as the bot's first move fails: a file of `root` (a name
    relative to it, as ``tigris play`` run there reads it; never through a link out of
    it), its absolute path then given to the bot; or a generation the package ships
    (``network.path_of``), the package's own file.  A shipped configuration (`root`
    None) names no file of its own: an empty network is the default generation's."""
    import dataclasses

    from tigris import network

    name = conf.params.get("network")
    if not name or conf.params.get("evaluator") != "net" or root is None:
        return conf
    cannot = f"seats[{k}]: the bot {seat} cannot play: "
    if network.names_generation(name):
        try:
            path = network.path_of(name, players)
            net = network.load(path, players)
        except (UsageError, ValueError, OSError) as e:
            # the package's folder is this machine's business, not the page's
            said = str(e).replace(str(network.NETWORKS), "the package's networks")
            raise UsageError(cannot + f"{shown}: " + (said if len(said) <= 300 else said[:300] + "...")) from None
        if conf.params.get("priors") == "net" and not net.has_policy:
            raise UsageError(cannot + f"{shown}: network {name}: priors = \"net\" needs a network "
                                      f"with a policy head")
        return conf                            # the bot reads the name as this did
    try:
        path = (root / name).resolve()         # an absolute name stays itself
    except (OSError, RuntimeError, ValueError):
        path = None
    if path is None or root not in path.parents:
        # its name is not repeated: it may be anywhere on this machine
        raise UsageError(cannot + f"{shown}: network names a file outside the served folders")
    where = path.relative_to(root).as_posix()
    try:
        net = network.load(path, players)
    except (UsageError, ValueError, OSError) as e:
        said = str(e).replace(str(path), where)
        raise UsageError(cannot + (said if len(said) <= 300 else said[:300] + "...")) from None
    if conf.params.get("priors") == "net" and not net.has_policy:
        raise UsageError(cannot + f"{where}: priors = \"net\" needs a network with a policy head")
    return dataclasses.replace(conf, given=dict(conf.given, network=str(path)),
                               params=dict(conf.params, network=str(path)))


def _check_budget(k, seat, params):
    """A bot's move at a table bounded: seconds, iterations, worker processes."""
    seconds, iterations, workers = (params.get(key) for key in ("seconds", "iterations", "workers"))
    if seconds is not None and seconds > MOVE_SECONDS:
        raise UsageError(f"seats[{k}]: {seat} searches {seconds:g} seconds a move; a table's bots "
                         f"search at most {MOVE_SECONDS:g}")
    if seconds is None and iterations is not None and iterations > MOVE_ITERATIONS:
        raise UsageError(f"seats[{k}]: {seat} searches {iterations:,} iterations a move; a table's "
                         f"bots search at most {MOVE_ITERATIONS:,}")
    if workers is not None and workers > cores():
        raise UsageError(f"seats[{k}]: {seat} searches with {workers} workers; this machine has "
                         f"{cores()} cores")


def _save_failed(error, what):
    """SaveFailed for an error writing a record (an OSError, or the UsageError of a
    record replaced by something not a regular file): 507 when the disk is full."""
    code = getattr(error, "errno", None)
    full = code is not None and code in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
    reason = (error.strerror if isinstance(error, OSError) else None) or str(error)[:200]
    return SaveFailed(f"{what} could not be saved ({reason}) and is taken back: the record "
                      f"and the game are as before", status=507 if full else 500)


def _check_player(player, players):
    if not (isinstance(player, int) and not isinstance(player, bool) and 0 <= player < players):
        raise UsageError(f"player must be a seat, 0 to {players - 1}, not {excerpt(player)}")


# the name this module published before the session type
__getattr__ = old_names(__name__, {"Played": "Table"}, {"Played": "a tigris.session.Session in the browser"})
