"""The human seat (tigris.seat, `tigris play --you`): scripted tables, and a real
terminal driven through a pseudo-terminal."""

import io
import json
import os
import stat
import sys

import pexpect
import pytest

import tigris
from tigris import bots, record
from tigris.commands import main
from tigris.render import render
from tigris.seat import HUMAN, Terminal

from processes import as_in_a_terminal


class Script:
    """A person who types the given lines, then ends the input; keeps what is printed."""

    def __init__(self, *lines):
        self.lines = list(lines)
        self.out = []

    def read(self, prompt):
        self.out.append(prompt)
        if not self.lines:
            raise EOFError
        line = self.lines.pop(0)
        if isinstance(line, BaseException):
            raise line
        return line

    def write(self, text=""):
        self.out.append(text)

    @property
    def text(self):
        return "\n".join(self.out)


def table(script, tmp_path, seed=3, players=2, bot="random", human=0):
    seats = [bots.load(bot, seed=s) for s in range(players)]
    seats[human] = None
    names = [bot] * players
    names[human] = HUMAN
    return Terminal(tigris.Game(players=players, seed=seed), seats, names, tmp_path / "game.json",
                    read=script.read, write=script.write)


def legal_moves(game):
    return [game.action_str(a) for a in game.legal_actions()]


def test_the_person_sees_the_own_hand_and_not_the_others():
    g = tigris.Game(players=3, seed=2)
    text = render(g, viewer=1)
    raw = g.raw_state()
    assert text.count("hand 6: hidden") == 2
    mine = ", ".join(f"{c} {n}" for c, n in zip(("red", "blue", "green", "black"), raw["hand"][1]))
    assert f"hand 6: {mine}" in text
    assert "Bag: " in text and "(colours unknown)" in text
    # Colour paints the board's tokens and nothing else: without the escapes it is the same
    painted = render(g, viewer=1, colour=True)
    assert "\x1b[" in painted
    import re
    assert re.sub(r"\x1b\[[0-9;]*m", "", painted) == text


def test_a_scripted_game_to_the_end(tmp_path):
    """A person who always plays the first legal move finishes a game against a bot; the
    record replays to the same end."""
    script = Script()
    t = table(script, tmp_path, seed=4)
    t.read = lambda prompt: legal_moves(t.game)[0]
    assert t.play() is True
    assert t.game.is_over or t.game.turn >= 1000
    rec = json.loads((tmp_path / "game.json").read_text())
    assert rec["bots"] == [HUMAN, "random"]
    again = record.replay(rec)
    assert again.to_position() == t.game.to_position()
    assert "record saved to" in script.text


def test_moves_lists_every_legal_move_grouped_and_filters(tmp_path):
    script = Script("moves", "moves leader king", "moves nothing-like-this")
    t = table(script, tmp_path)
    t.play()
    game = tigris.Game(players=2, seed=3)
    listing = script.text.split("legal moves:")[1].split("player 0, action")[0]
    # the groups: "  tile red: A1 B1 ..." (continued on lines indented further), "  pass"
    listed = []
    for line in listing.strip("\n").splitlines():
        if not line.startswith("      "):
            key, _, items = line.strip().partition(": ")
            group = []
            listed.append((key, group))
        else:
            items = line.strip()
        group.append(items)
    shown = set()
    for key, group in listed:
        items = " ".join(group)
        if not items:
            shown.add(key)
        elif all(len(w) <= 3 for w in items.split()):          # squares
            shown.update(f"{key} {sq}" for sq in items.split())
        else:
            shown.update(f"{key} {item}" for item in items.split(", "))
    assert shown == set(legal_moves(game))
    kings = [m for m in legal_moves(game) if "leader king" in m]
    assert f"{len(kings)} legal moves:" in script.text
    assert "no legal move contains 'nothing-like-this'" in script.text


def test_an_illegal_move_gets_the_reason_and_the_prompt_again(tmp_path):
    game = tigris.Game(players=2, seed=3)
    with pytest.raises(tigris.IllegalActionError, match=r"\(R19\)"):
        game.parse_action("leader king A1")
    script = Script("leader king A1", "tile purple Z9")
    t = table(script, tmp_path)
    t.play()
    assert "not a legal move: leader king A1: no temple next to the square (R19)" in script.text
    assert "'purple' is not a colour" in script.text
    assert script.out.count("player 0, action 1 of 2> ") == 3      # asked again each time
    assert t.game.history == []


def test_undo_takes_back_the_bots_replies(tmp_path):
    game = tigris.Game(players=2, seed=3)
    first = legal_moves(game)[0]
    game.apply(game.parse_action(first))
    second = legal_moves(game)[0]
    script = Script(first, second, "undo", "undo", "undo")
    t = table(script, tmp_path)
    t.play()
    # after the two moves the bot played its turn; the first undo takes the bot's moves
    # and the second human move back, the second the first move; then nothing is left
    assert "took back" in script.text
    assert t.game.history == []
    assert "nothing to undo: no human decision yet" in script.text
    undone = [line for line in script.out if line.startswith("took back")]
    assert undone[0].endswith("the game stands before move 2") and int(undone[0].split()[2]) >= 2
    assert undone[1] == "took back 1 move (move 1): the game stands before move 1"


def test_save_writes_a_record_that_replays_and_a_bad_file_is_only_reported(tmp_path):
    game = tigris.Game(players=2, seed=3)
    first = legal_moves(game)[0]
    script = Script(first, f"save {tmp_path / 'saved.json'}",
                    f"save {tmp_path / 'no-such-folder' / 'x.json'}", "save", "quit")
    t = table(script, tmp_path)
    assert t.play() is False
    saved = record.load(tmp_path / "saved.json")
    assert [m["move"] for m in saved["moves"]] == [first]
    assert record.replay(saved).state_bytes() == t.game.state_bytes()
    assert "cannot save to" in script.text and "save FILE: name the file" in script.text
    assert "quit: the game so far is saved in" in script.text
    assert f"go on with tigris play --resume {tmp_path / 'game.json'}" in script.text
    assert record.load(tmp_path / "game.json")["moves"] == saved["moves"]


def test_ctrl_c_saves_and_says_where(tmp_path):
    game = tigris.Game(players=2, seed=3)
    first = legal_moves(game)[0]
    script = Script(first, KeyboardInterrupt())
    t = table(script, tmp_path)
    with pytest.raises(KeyboardInterrupt, match="saved in"):
        t.play()
    assert [m["move"] for m in record.load(tmp_path / "game.json")["moves"]] == [first]


def test_a_hint_at_the_prompt_and_a_bad_hint_time(tmp_path):
    script = Script("hint 0.05", "hint soon", "hint -1")
    t = table(script, tmp_path)
    t.play()
    assert "best plans:" in script.text
    # each plan marked against the engine's play (issue 55), and why the first ones
    assert "vs #1" in script.text and "why #1 " in script.text
    assert script.text.count("hint SECONDS: a number above 0") == 2


def test_the_dishonest_reference_bot_may_not_sit_at_a_table(tmp_path):
    with pytest.raises(ValueError, match="would see your hand"):
        Terminal(tigris.Game(players=2, seed=1), [None, bots.load("cheat")], [HUMAN, "cheat"],
                 tmp_path / "g.json")


def test_the_bot_decides_alike_whatever_the_human_holds(tmp_path):
    """Two worlds that differ only in what the human (seat 1) holds and the bag: the bot
    at the table (seat 0) makes the same decision with the same statistics."""
    real = tigris.Game(players=2, seed=6)
    other = real.determinize(0, 99)               # seat 1's hand and the bag dealt again
    assert other.raw_state()["hand"][1] != real.raw_state()["hand"][1]
    decisions = []
    for world in (real, other):
        bot = bots.make("ismcts", iterations=300, seed=5)
        t = Terminal(world, [bot, None], ["ismcts", HUMAN], tmp_path / "g.json",
                     read=lambda prompt: (_ for _ in ()).throw(EOFError), write=lambda *a: None)
        t.save = lambda path=None: None            # a dealt-again world has no record
        t.play()
        decisions.append((world.history[0][0], [(c.action, c.visits, c.value)
                                                for c in bot.last.children]))
    assert decisions[0] == decisions[1]


@pytest.mark.parametrize("argv, message", [
    (["play", "--you", "4"], "--you 4: a game has at most 4 seats"),
    (["play", "--you", "0", "0"], "--you names a seat twice"),
    (["play", "--you", "2", "--players", "2"], "seats 0 to 1"),
    (["play", "--you", "0", "--bots", "greedy", "random", "--players", "2"], "one per seat"),
    (["play", "--you", "0", "--bots", "cheat"], "would see your hand"),
    (["play", "--you", "0", "--bots", "no-such-bot"], "unknown bot"),
    (["play", "--you", "0", "--hint-bot", "no-such-bot"], "--hint-bot: unknown bot"),
    (["play", "--you", "0", "--bots", "human"], "'human' is no bot"),
    (["play", "--you", "0", "--record", "no-such-folder/game.json"],
     "--record no-such-folder/game.json: no folder no-such-folder to write it in"),
])
def test_bad_tables_are_one_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


# ---------------------------------------------------------------------------------------
# A real terminal
# ---------------------------------------------------------------------------------------

PROMPT_1 = r"player 0, action 1 of 2> "
PROMPT_2 = r"player 0, action 2 of 2> "


def spawn(tmp_path, *args):
    env = dict(os.environ, NO_COLOR="1", TERM="xterm")
    return pexpect.spawn(sys.executable, ["-m", "tigris", "play", "--you", "0", *args],
                         cwd=str(tmp_path), env=env, encoding="utf-8", timeout=120,
                         dimensions=(50, 200), preexec_fn=as_in_a_terminal)


def test_a_game_at_the_terminal(tmp_path):
    """Through a pseudo-terminal: a hint, an illegal move, a move typed with Tab
    completion, the bot's reply, an undo, a save that replays, and end of input."""
    seed = 5
    game = tigris.Game(players=2, seed=seed)
    reds = [m for m in legal_moves(game) if m.startswith("tile red ")]
    first = reds[0]
    assert all(m.startswith("tile red ") for m in legal_moves(game) if m.startswith("tile re"))
    game.apply(game.parse_action(first))
    second = legal_moves(game)[0]

    child = spawn(tmp_path, "--bots", "random", "--seed", str(seed), "--record", "kept.json")
    child.expect_exact(PROMPT_1)
    child.sendline("hint 0.2")
    child.expect_exact("best plans:")
    child.expect_exact(PROMPT_1)
    child.sendline("leader king A1")
    child.expect(r"not a legal move: .*\(R\d+\)")
    child.expect_exact(PROMPT_1)
    child.send("tile re\t")                       # Tab completes the colour
    child.send(first.split()[-1] + "\r")
    child.expect_exact(f"1. player 0 (you): {first}")
    child.expect_exact(PROMPT_2)
    child.sendline(second)
    child.expect_exact(f"2. player 0 (you): {second}")
    child.expect_exact("player 1 (random): ")      # the bot's reply, printed as it happens
    child.expect_exact(PROMPT_1)
    child.sendline("undo")
    child.expect(r"took back \d+ moves \(moves 2-\d+\): the game stands before move 2")
    child.expect_exact(PROMPT_2)
    child.sendline("save saved.json")
    child.expect_exact("record saved to saved.json")
    child.expect_exact(PROMPT_2)
    child.sendeof()
    child.expect_exact("end of input: the game so far is saved in kept.json")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    for name in ("saved.json", "kept.json"):
        rec = record.load(tmp_path / name)
        assert [m["move"] for m in rec["moves"]] == [first]
        assert rec["bots"] == [HUMAN, "random"]
        record.replay(rec)
    assert main(["show", str(tmp_path / "saved.json")]) == 0


def test_ctrl_c_at_the_terminal_saves_and_exits(tmp_path):
    child = spawn(tmp_path, "--bots", "random", "--seed", "2")
    child.expect_exact(PROMPT_1)
    child.sendintr()
    child.expect(r"interrupted: the game so far is saved in (tigris-game-[0-9-]+\.json)")
    saved = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert record.load(tmp_path / saved)["moves"] == []


def test_ctrl_c_during_a_hint_stops_the_hint_not_the_game(tmp_path):
    """Issue 55: Ctrl-C while `hint 30` searched left the game (saved, to resume); it stops
    the search and gives the prompt again, long before the 30 seconds."""
    import time

    child = spawn(tmp_path, "--bots", "random", "--seed", "2", "--record", "kept.json")
    child.expect_exact(PROMPT_1)
    child.sendline("hint 30")
    child.expect_exact("searching")                # the search's progress bar: it has begun
    asked = time.monotonic()
    child.sendintr()
    child.expect_exact("hint stopped (Ctrl-C); the game goes on")
    child.expect_exact(PROMPT_1)
    assert time.monotonic() - asked < 15
    child.sendline("board")                        # the game goes on at the prompt
    child.expect_exact(PROMPT_1)
    child.sendline("quit")
    child.expect_exact("quit: the game so far is saved in kept.json")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "interrupted" not in child.before


# ---------------------------------------------------------------------------------------
# The record file: never emptied, never anything but a regular file; resuming a game
# ---------------------------------------------------------------------------------------

def quit_after(tmp_path, moves=4, seed=3, name="game.json"):
    """A game left with quit after the person played `moves` first legal moves (the bot
    replying): its record file and the game."""
    script = Script()
    t = table(script, tmp_path, seed=seed)
    t.record = tmp_path / name
    played = []

    def read(prompt):
        if len(played) == moves:
            return "quit"
        played.append(legal_moves(t.game)[0])
        return played[-1]
    t.read = read
    assert t.play() is False
    return tmp_path / name, t.game


def test_an_existing_record_is_refused_and_left_as_it_was(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path, game = quit_after(tmp_path)
    before = path.read_bytes()
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "--you", "0", "--bots", "random", "--seed", "3",
                 "--record", str(path)]) == 1
    err = capsys.readouterr().err
    assert "holds a game" in err and "--resume" in err and err.count("\n") == 1
    assert path.read_bytes() == before
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    assert main(["play", "--you", "0", "--record", str(other)]) == 1
    assert "exists" in capsys.readouterr().err
    assert other.read_text() == "my notes\n"


@pytest.mark.parametrize("argv", [["play", "--you", "0"], ["play"]])
def test_a_pipe_or_a_folder_is_no_record(argv, tmp_path, capsys, monkeypatch):
    """Refused before the game, and left as it was (a pipe stands for a device: a test
    that failed must not turn the machine's /dev/null into a file)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    assert main(argv + ["--record", "folder"]) == 1
    err = capsys.readouterr().err
    assert "not a regular file (a folder)" in err and err.count("\n") == 1
    if argv[-1] == "0":                      # the bots' game would wait on a pipe for ever
        os.mkfifo(tmp_path / "pipe")
        assert main(argv + ["--record", "pipe"]) == 1
        assert "not a regular file (a pipe)" in capsys.readouterr().err
        assert stat.S_ISFIFO(os.stat(tmp_path / "pipe").st_mode)
    try:                                     # a null device of our own, where we may make one
        os.mknod(tmp_path / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError:
        pass
    else:
        assert main(argv + ["--record", "null"]) == 1
        assert "not a regular file (a device)" in capsys.readouterr().err
        assert stat.S_ISCHR(os.stat(tmp_path / "null").st_mode)
    assert set(os.listdir(tmp_path)) <= {"folder", "pipe", "null"}
    assert os.listdir(tmp_path / "folder") == []


def test_save_to_a_folder_or_another_file_is_refused_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "other.json").write_text("another game\n")
    script = Script("save folder", f"save {tmp_path / 'folder'}", f"save {tmp_path / 'other.json'}",
                    f"save {tmp_path / 'copy.json'}", f"save {tmp_path / 'copy.json'}", "quit")
    t = table(script, tmp_path)
    t.play()
    assert "not a regular file (a folder)" in script.text
    assert "other.json exists" in script.text
    assert (tmp_path / "other.json").read_text() == "another game\n"
    assert script.text.count(f"record saved to {tmp_path / 'copy.json'}") == 2
    assert sorted(os.listdir(tmp_path)) == ["copy.json", "folder", "game.json", "other.json"]
    assert os.listdir(tmp_path / "folder") == []


def test_a_game_left_with_quit_is_resumed_in_the_same_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path, game = quit_after(tmp_path)
    n = len(game.history)
    assert n >= 4 and game.current_player == 0
    nxt = legal_moves(game)[0]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{nxt}\nquit\n"))
    assert main(["play", "--resume", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"resumed after move {n}" in out
    rec = record.load(path)
    assert rec["bots"] == [HUMAN, "random"]
    assert len(rec["moves"]) > n and rec["moves"][n]["move"] == nxt
    assert [m["move"] for m in rec["moves"][:n]] == [game.action_str(a) for a, *_ in game.history]
    record.replay(rec)
    assert sorted(os.listdir(tmp_path)) == ["game.json"]


def test_a_game_at_the_terminal_holds_its_record_while_it_plays(tmp_path, capsys, monkeypatch):
    """No server's table (nor another terminal) plays the record at once: the game holds
    its lock (``.NAME.lock`` beside it) until it ends."""
    from tigris._plumbing import locks

    monkeypatch.chdir(tmp_path)
    path, _ = quit_after(tmp_path)
    seen = []

    class Person(io.StringIO):
        """Looks whether the record is held, then quits."""
        def __init__(self, record):
            super().__init__()
            self.record = record

        def readline(self, *args):
            seen.append(locks.held_by(self.record, file=True))
            return "quit\n"

    monkeypatch.setattr("sys.stdin", Person(path))
    assert main(["play", "--resume", str(path)]) == 0
    assert seen and seen[0].startswith(f"pid {os.getpid()}: ")
    assert locks.held_by(path, file=True) is None and sorted(os.listdir(tmp_path)) == ["game.json"]
    monkeypatch.setattr("sys.stdin", Person(tmp_path / "new.json"))
    assert main(["play", "--you", "0", "--record", "new.json", "--bots", "random"]) == 0
    assert seen[-1].startswith(f"pid {os.getpid()}: ") and not (tmp_path / ".new.json.lock").exists()


@pytest.mark.parametrize("extra, message", [
    (["--you", "1"], "--you 1: the record's human seat is 0"),
    (["--seed", "4"], "--seed 4: the record's game has seed 3"),
    (["--board", "advanced"], "--board advanced: the record's game is on the classic board"),
    (["--variant", "english"], "--variant: the record's game has no variant"),
    (["--players", "3"], "--players 3: the record's game has 2 players"),
    (["--bots", "greedy"], "--bots greedy: the record's bots are random"),
    (["--record", "other.json"], "--record: a resumed game is kept in its own file"),
])
def test_resume_checks_the_options_against_the_record(extra, message, tmp_path, capsys,
                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    path, _ = quit_after(tmp_path)
    before = path.read_bytes()
    assert main(["play", "--resume", str(path)] + extra) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert path.read_bytes() == before


def test_resume_refuses_a_finished_game_a_bots_game_and_a_record_that_does_not_replay(
        tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    script = Script()
    t = table(script, tmp_path, seed=4)
    t.read = lambda prompt: legal_moves(t.game)[0]
    t.play()
    done = tmp_path / "game.json"
    assert main(["play", "--resume", str(done)]) == 1
    assert "the game is over" in capsys.readouterr().err
    bots_only = tmp_path / "bots.json"
    assert main(["play", "--bots", "random", "random", "--record", str(bots_only)]) == 0
    capsys.readouterr()
    assert main(["play", "--resume", str(bots_only)]) == 1
    assert "no human seat" in capsys.readouterr().err
    path, _ = quit_after(tmp_path, name="left.json")
    rec = json.loads(path.read_text())
    rec["moves"][1]["move"] = "tile red A1"
    path.write_text(json.dumps(rec))
    assert main(["play", "--resume", str(path)]) == 1
    err = capsys.readouterr().err
    assert "move 2" in err and err.count("\n") == 1
    assert main(["play", "--resume", os.devnull]) == 1
    assert main(["play", "--resume", "missing.json"]) == 1
    assert "Traceback" not in capsys.readouterr().err


# ---------------------------------------------------------------------------------------
# What the person reads: the board once a turn, what each move did, short answers
# ---------------------------------------------------------------------------------------

def test_the_board_is_shown_at_the_start_of_a_turn_and_on_board_only(tmp_path):
    game = tigris.Game(players=2, seed=3)
    first = legal_moves(game)[0]
    game.apply(game.parse_action(first))
    second = legal_moves(game)[0]
    script = Script(first, second, "board", "quit")
    t = table(script, tmp_path)
    t.play()
    # the first turn, the next turn (after the bot's), and the board command
    assert script.text.count("Legend:") == 3
    # between the two actions of a turn: one short line of the own hand and score
    between = script.text.split(f"player 0 (you): {first}")[1].split("player 0, action 2 of 2>")[0]
    assert "Legend:" not in between and "you (player 0): hand" in between
    assert len(between.strip().splitlines()) <= 4


def test_a_malformed_move_gets_one_short_line_saying_what_is_wrong(tmp_path):
    script = Script("tile red Z99", "tile red", "fly G5")
    t = table(script, tmp_path)
    t.play()
    assert "'Z99' is not a square (columns A-P, rows 1-11" in script.text
    assert "'tile' takes 2 arguments (tile COLOUR SQ), not 1" in script.text
    assert "'fly' is neither a move nor a command" in script.text
    assert "tile COLOUR SQ | leader LEADER SQ" not in script.text      # no grammar blob
    said = [line for line in script.out if "Z99" in line]
    assert len(said) == 1 and len(said[0]) < 100 and "not a legal move" not in said[0]


def test_undo_says_where_the_game_stands(tmp_path):
    game = tigris.Game(players=2, seed=3)
    first = legal_moves(game)[0]
    script = Script(first, "undo")
    t = table(script, tmp_path)
    t.play()
    assert "took back 1 move (move 1): the game stands before move 1" in script.text
    assert "back to move" not in script.text


def two_people(tmp_path, seed, script):
    return Terminal(tigris.Game(players=2, seed=seed), [None, None], [HUMAN, HUMAN],
                    tmp_path / "game.json", read=script.read, write=script.write)


def test_a_revolt_is_announced_with_its_winner_the_leader_removed_and_the_points(tmp_path):
    script = Script("leader king F4", "tile black A11", "leader king G3", "support 1", "support 0")
    t = two_people(tmp_path, 1, script)
    t.play()
    after = script.text.split("player 0 (you): support 0")[1]
    assert "player 1 wins the revolt of the kings against player 0" in after
    assert "player 0's king leaves F4" in after
    assert "player 1 scores 1 red" in after


def test_every_point_treasure_monument_and_removal_of_a_game_is_announced():
    """A whole game between bots, compared move by move: every score that grows, every
    treasure taken, monument built and leader removed is in the words of its move."""
    from tigris.events import what_happened
    g = tigris.Game(players=3, seed=11)
    players = [bots.load("greedy", seed=s) for s in range(3)]
    wins = 0
    while not g.is_over and g.turn < 300:
        before = g.raw_state()
        g.apply(players[g.current_player].choose(g))
        after = g.raw_state()
        text = "\n".join(what_happened(before, g))
        for p in range(3):
            for c, colour in enumerate(("red", "blue", "green", "black")):
                gained = after["score"][p][c] - before["score"][p][c]
                if gained:
                    assert f"player {p} scores" in text and f"{gained} {colour}" in text, text
            if after["treasures"][p] > before["treasures"][p]:
                assert f"player {p} takes" in text, text
            for c in range(4):
                if before["leader"][p][c] != 255 and after["leader"][p][c] == 255 \
                        and "withdraw" not in g.action_str(g.history[-1][0]):
                    assert f"player {p}'s" in text and "leaves" in text, text
        for m, at in enumerate(after["monument"]):
            if at != before["monument"][m]:
                assert "monument" in text and "built" in text, text
        wins += " wins the " in text
    assert wins >= 1


def test_a_game_without_a_seed_hides_it_until_the_end(tmp_path, monkeypatch, capsys):
    """The seed deals every hidden tile: a person's game drawn without --seed shows it
    neither in the record's name nor on the screen while the game is live; it is told
    once the game is over."""
    import secrets

    from tigris.commands.options import secret_seed

    assert max(secret_seed() for _ in range(20)) >= 2**50        # not a seed one can search
    seed = 987654321987654321
    monkeypatch.setattr(secrets, "randbits", lambda bits: seed)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))           # the person leaves at once
    assert main(["play", "--you", "0", "--bots", "random"]) == 0
    (saved,) = tmp_path.glob("tigris-game-*.json")
    assert record.load(saved)["seed"] == seed                    # the record keeps it
    assert str(seed) not in saved.name
    assert str(seed) not in capsys.readouterr().out + capsys.readouterr().err

    script = Script()
    t = table(script, tmp_path, seed=seed)
    t.game.apply(t.game.legal_actions()[0])
    t.finish()
    assert f"seed {seed}" in script.out[-1]                      # told once it is over


def test_a_seat_named_a_person_holds_no_bot_and_a_bot_seat_one(tmp_path):
    game = tigris.Game(players=2, seed=1)
    with pytest.raises(ValueError, match="a bot for each seat"):
        Terminal(game, [None, None], [HUMAN, "random"], tmp_path / "g.json")
    with pytest.raises(ValueError, match="a bot for each seat"):
        Terminal(game, [bots.load("random"), None], [HUMAN, HUMAN], tmp_path / "g.json")
