"""tigris view without a browser: the pages' structure and data, escaping, the index of a
results folder, and the command's errors (one line, exit status 1).
tests/test_view_browser.py drives the pages in a real browser."""

import html
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import tigris
from tigris import bots, record, tournament, view
from tigris.commands import main
from tigris.errors import RecordError, UsageError

EVIL = '</script><script>alert("x")</script><img src=x onerror=alert(1)>&amp;'


def play(players=3, seed=2, names=None, variants=()):
    """The record of a finished game between random bots."""
    g = tigris.Game(players=players, seed=seed, variants=variants)
    seats = [bots.make("random", seed=seed + p) for p in range(players)]
    while not g.is_over:
        g.apply(seats[g.current_player].choose(g))
    return record.to_record(g, bots=names or ["random"] * players)


def analysis_of(rec, every=3):
    """Hand-made analysis rows (tigris-analysis/3) of every `every`-th move of `rec`."""
    rows = []
    players = rec["players"]
    for n, move in enumerate(rec["moves"], start=1):
        if n % every:
            continue
        mark = ("inaccuracy", "mistake", "blunder", None)[n % 4]
        chances = [0.5 / (players - 1)] * players
        chances[move["player"]] = 0.5
        rows.append({"move": n, "player": move["player"], "played": move["move"],
                     "best": move["move"] if mark is None else "pass", "chances": chances,
                     "win_before": 0.5, "win_after": 0.4 if mark else 0.5,
                     "margin_before": -2.0, "margin_after": -4.5 if mark else -2.0,
                     "drop": 2.5 if mark else 0.0, "rank": 2 if mark else 1, "mark": mark,
                     "verdict": "the engine's choice" if mark is None else "the engine's choice: pass"})
    return {"format": "tigris-analysis/3", "record": "0" * 16, "measure": "margin"}, rows


def embedded(page):
    """The data of a game page's #game-data element."""
    m = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', page, re.S)
    assert m, "no game data in the page"
    return json.loads(m.group(1))


def rebuilt_squares(data):
    """Every step's squares from the page's changes, as the page's script rebuilds them."""
    squares, out = {}, []
    for step in data["steps"]:
        squares = dict(squares)
        for sq, token in step["sq"].items():
            if token is None:
                del squares[sq]
            else:
                squares[sq] = token
        out.append(squares)
    return out


@pytest.fixture(scope="module")
def rec():
    return play()


def test_the_page_holds_every_position_and_needs_no_other_file(rec):
    page = view.game_page(rec)
    data = embedded(page)
    assert len(data["steps"]) == len(rec["moves"]) + 1
    assert [m["text"] for m in data["moves"]] == [m["move"] for m in rec["moves"]]
    squares = rebuilt_squares(data)
    for n, game in record.steps(rec):
        expected = game.to_position()
        shown = dict(format=data["format"], board=data["board"], variants=data["variants"],
                     squares=squares[n], **data["steps"][n]["pos"])
        assert shown == expected, f"step {n}"
        assert data["steps"][n]["who"] == game.current_player
        assert data["steps"][n]["decision"] == game.decision
    # offline: no external script, style, image or font
    assert not re.search(r'<(script|img|link|iframe)[^>]*\s(src|href)=', page)
    assert "@import" not in page and "url(http" not in page
    assert page.count("<script") == 3          # the game's constants, the data and the inlined script


def test_a_long_game_page_stays_small():
    rec = play(players=2, seed=11)
    size = len(view.game_page(rec).encode())
    assert size < 1_000 * (len(rec["moves"]) + 100), size


def test_names_from_the_record_cannot_break_out_of_the_page():
    rec = play(players=2, seed=4, names=[EVIL, "ok"])
    rec.update(tournament=EVIL, game=3)
    page = view.game_page(rec)
    assert EVIL not in page and "<script>alert" not in page and "<img" not in page
    assert page.count("<script") == 3 and page.count("</script>") == 3
    assert f"<h1>{html.escape(EVIL)} \u00b7 game 3</h1>" in page
    assert embedded(page)["bots"] == [EVIL, "ok"]        # exact, once parsed


def test_script_json_escapes_what_could_end_the_element():
    text = view.script_json({"a": "</script><!-- & >"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"a": "</script><!-- & >"}


def test_an_analysis_is_embedded_and_checked_against_the_record(rec):
    header, rows = analysis_of(rec)
    data = embedded(view.game_page(rec, analysis=(header, rows)))
    assert [r["move"] for r in data["analysis"]] == [r["move"] for r in rows]
    assert {r["mark"] for r in data["analysis"]} == {None, "inaccuracy", "mistake", "blunder"}
    assert {(r["margin_before"], r["margin_after"]) for r in data["analysis"]} == {(-2.0, -2.0),
                                                                                (-2.0, -4.5)}

    other = dict(rows[1], played="pass" if rows[1]["played"] != "pass" else "swap red")
    with pytest.raises(RecordError, match=f"analysis move {rows[1]['move']}: .*another game"):
        view.game_page(rec, analysis=(header, [rows[0], other]))
    with pytest.raises(RecordError, match="analysis move 9999"):
        view.game_page(rec, analysis=(header, [dict(rows[0], move=9999)]))
    with pytest.raises(RecordError, match="mark"):
        view.game_page(rec, analysis=(header, [dict(rows[0], mark="brilliant")]))
    with pytest.raises(RecordError, match="win_before"):
        view.game_page(rec, analysis=(header, [dict(rows[0], win_before="high")]))
    with pytest.raises(RecordError, match="margin_after is a number, not 'low'"):
        view.game_page(rec, analysis=(header, [dict(rows[0], margin_after="low")]))
    with pytest.raises(RecordError, match="expected 'tigris-analysis/3', got 'tigris-analysis/2'"):
        view.game_page(rec, analysis=(dict(header, format="tigris-analysis/2"), rows))
    with pytest.raises(RecordError, match="analysis format"):
        view.game_page(rec, analysis=({"format": "tigris-game/1"}, rows))


def test_a_record_that_stops_replaying_gets_a_page_up_to_its_last_good_move(rec):
    bad = dict(rec, moves=rec["moves"][:5] + [{"player": 0, "move": "fly away"}] + rec["moves"][6:])
    with pytest.raises(RecordError, match="move 6"):
        view.game_page(bad)
    page = view.game_page(bad, partial=True)
    data = embedded(page)
    assert len(data["steps"]) == 6 and "move 6" in data["stopped"]
    assert "does not replay beyond move 5" in page


def test_write_game_refuses_a_folder(rec, tmp_path):
    with pytest.raises(UsageError, match="folder"):
        view.write_game(rec, tmp_path)
    assert view.write_game(rec, tmp_path / "g.html").read_text().startswith("<!DOCTYPE html>")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A small results folder: two games of random against greedy, a game that failed,
    and the last game of the schedule not played."""
    out = tmp_path_factory.mktemp("results")
    tournament.run(tournament.Spec(bots=["random", "greedy"], games=4, name=EVIL), out=out,
                   jobs=1, progress=False)
    games = sorted(tournament.read_games(out, repair=False), key=lambda r: r["game"])
    failed = dict(games[2], result=None, error="RuntimeError: <boom>", moves=games[2]["moves"][:7])
    (out / tournament.GAMES_FILE).write_text("".join(json.dumps(r) + "\n"
                                                     for r in games[:2] + [failed]))
    return out


def test_the_index_links_every_game_and_shows_the_tables(results, tmp_path):
    written = view.write_results(results, tmp_path / "pages")
    index = written["index"].read_text()
    assert EVIL not in index and html.escape(EVIL) in index
    for k in (0, 1, 2):
        assert f'href="game-{k}.html"' in index
        assert (tmp_path / "pages" / f"game-{k}.html").exists()
    assert 'id="standings"' in index and 'id="head-to-head"' in index and 'id="games"' in index
    assert ">greedy<" in index and ">random<" in index and "Elo" in index
    assert "error: RuntimeError: &lt;boom&gt;" in index
    failed = (tmp_path / "pages" / "game-2.html").read_text()
    assert "The game stopped with an error" in failed and len(embedded(failed)["steps"]) == 8
    assert 'href="index.html"' in failed
    assert written["unreadable"] == []


def test_a_record_that_sets_up_no_game_is_listed_without_a_page(results, tmp_path):
    d = tmp_path / "copy"
    d.mkdir()
    for name in (tournament.SPEC_FILE, tournament.GAMES_FILE):
        (d / name).write_bytes((results / name).read_bytes())
    task = tournament.schedule(tournament.read_spec_file(d / tournament.SPEC_FILE)[0])[3]
    with open(d / tournament.GAMES_FILE, "a") as f:
        f.write(json.dumps({"format": "tigris-game/1", "bots": list(task.seats), "game": 3,
                            "deal_seed": task.deal_seed, "tournament": EVIL,
                            "result": None, "error": "ValueError: no deal"}) + "\n")
    written = view.write_results(d, d / "pages")
    assert written["unreadable"] == [3]
    index = written["index"].read_text()
    assert "no page: players: missing" in index and 'href="game-3.html"' not in index


# ---------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------

def one_line(err):
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "%|" not in line]
    assert len(lines) == 1 and lines[0].startswith("tigris view: "), err
    return lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory, rec):
    d = tmp_path_factory.mktemp("inputs")
    (d / "record.json").write_text(json.dumps(rec))
    (d / "position.json").write_text(json.dumps(tigris.Game(players=2, seed=1).to_position()))
    (d / "not-json.json").write_text("{")
    bad = dict(rec, moves=rec["moves"][:3] + [{"player": 1, "move": "tile red A1"}])
    (d / "illegal.json").write_text(json.dumps(bad))
    (d / "no-results").mkdir()
    (d / "analysis.json").write_text("{}")
    (d / "file.html").write_text("")
    return d


def test_view_writes_a_page_and_says_where(files, tmp_path, capsys):
    out = tmp_path / "game.html"
    assert main(["view", str(files / "record.json"), "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"page written to {out}"
    assert embedded(out.read_text())["moves"][0]["text"] == json.loads(
        (files / "record.json").read_text())["moves"][0]["move"]


def test_view_of_a_results_folder(results, tmp_path, capsys):
    assert main(["view", str(results), "--out", str(tmp_path / "pages")]) == 0
    assert "3 game pages and their index written to" in capsys.readouterr().out
    assert (tmp_path / "pages" / "index.html").exists()
    assert main(["view", f"{results / 'games.jsonl'}:2", "--out", str(tmp_path / "two.html")]) == 0
    assert "\u00b7 game 1</h1>" in (tmp_path / "two.html").read_text()


@pytest.fixture
def fake_analysis(monkeypatch, rec):
    """A stand-in tigris.analysis whose read_analysis returns hand-made rows of `rec`
    (this test does not depend on the analysis module)."""
    header, rows = analysis_of(rec)
    module = types.ModuleType("tigris.analysis")
    module.read_analysis = lambda path: (header, [dict(r) for r in rows])
    module.record_hash = lambda game: header["record"]
    monkeypatch.setitem(sys.modules, "tigris.analysis", module)
    monkeypatch.setattr(tigris, "analysis", module, raising=False)
    return module, rows


def test_view_with_an_analysis(files, tmp_path, capsys, fake_analysis):
    out = tmp_path / "analysed.html"
    assert main(["view", str(files / "record.json"), "--analysis", str(files / "analysis.json"),
                 "--out", str(out)]) == 0
    assert len(embedded(out.read_text())["analysis"]) == len(fake_analysis[1])


def test_view_with_an_analysis_replays_the_record_once(files, tmp_path, monkeypatch,
                                                        fake_analysis):
    """The page, the analysis's rows and its record hash all come from one replay (a
    record.steps is a replay too: it starts with replay(rec, upto=0))."""
    replays = []
    real = record.replay
    monkeypatch.setattr(record, "replay", lambda rec, upto=None: replays.append(upto) or real(rec, upto))
    assert main(["view", str(files / "record.json"), "--analysis", str(files / "analysis.json"),
                 "--out", str(tmp_path / "once.html")]) == 0
    assert len(replays) == 1


def test_view_refuses_an_analysis_of_another_game(files, tmp_path, capsys, fake_analysis):
    module, rows = fake_analysis
    argv = ["view", str(files / "record.json"), "--analysis", str(files / "analysis.json"),
            "--out", str(tmp_path / "x.html")]
    module.record_hash = lambda game: "another"
    assert main(argv) == 1
    line = one_line(capsys.readouterr().err)
    assert "analysis.json: the analysis is of another game" in line
    rows[0]["played"] = "pass" if rows[0]["played"] != "pass" else "swap red"
    assert main(argv) == 1
    line = one_line(capsys.readouterr().err)
    assert "analysis.json" in line and f"move {rows[0]['move']}" in line
    assert not (tmp_path / "x.html").exists()


def test_view_refuses_an_empty_analysis(files, tmp_path, capsys, fake_analysis):
    module, _ = fake_analysis
    module.read_analysis = lambda path: (None, [])
    assert main(["view", str(files / "record.json"), "--analysis", str(files / "analysis.json"),
                 "--out", str(tmp_path / "x.html")]) == 1
    assert "analysis.json: the analysis is empty" in one_line(capsys.readouterr().err)


@pytest.mark.parametrize("argv, expected", [
    (["{d}/missing.json", "--out", "{t}/g.html"], "missing.json: No such file"),
    (["{d}/not-json.json", "--out", "{t}/g.html"], "not JSON"),
    (["{d}/position.json", "--out", "{t}/g.html"], "not a game record"),
    (["{d}/illegal.json", "--out", "{t}/g.html"], "move 4"),
    (["{d}/record.json", "--out", "{t}"], "is a folder"),
    (["{d}/record.json", "--out", "{t}/no/such/folder/g.html"], "no folder"),
    (["{d}/no-results", "--out", "{t}/pages"], "no games.jsonl"),
    (["{d}", "--out", "{d}/file.html"], "is a file"),
    (["{d}", "--analysis", "{d}/analysis.json", "--out", "{t}/pages"], "one game record"),
])
def test_view_bad_input_is_one_line(files, tmp_path, capsys, argv, expected):
    argv = [a.format(d=files, t=tmp_path) for a in argv]
    assert main(["view"] + argv) == 1
    assert expected in one_line(capsys.readouterr().err)


@pytest.mark.slow
def test_view_bad_input_in_a_real_process_is_one_line(files, tmp_path):
    exe = Path(sys.executable).with_name("tigris")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "tigris"]
    done = subprocess.run(cmd + ["view", str(files / "illegal.json"), "--out", str(tmp_path / "g.html")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "move 4" in one_line(done.stderr)


# ---------------------------------------------------------------------------------------
# What view writes over: never a file it reads, never anything but a regular file
# ---------------------------------------------------------------------------------------

def run_view(argv, timeout=60):
    """``tigris view ARGV`` in a child process (a hang then fails the test, not the run)."""
    exe = Path(sys.executable).with_name("tigris")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "tigris"]
    return subprocess.run(cmd + ["view", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout)


def test_view_never_writes_over_the_record_it_reads(files, tmp_path, capsys):
    record = tmp_path / "g.json"
    record.write_text((files / "record.json").read_text())
    before = record.read_bytes()
    assert main(["view", str(record), "--out", str(record)]) == 1
    assert "is the file this command reads" in one_line(capsys.readouterr().err)
    assert record.read_bytes() == before
    link = tmp_path / "link.json"
    link.symlink_to(record)
    assert main(["view", str(record), "--out", str(link), "--force"]) == 1
    assert "link.json: it is a symbolic link" in one_line(capsys.readouterr().err)
    assert record.read_bytes() == before


def test_view_never_writes_over_the_analysis_it_reads(files, tmp_path, capsys, fake_analysis):
    analysis = tmp_path / "a.jsonl"
    analysis.write_text("{}\n")
    assert main(["view", str(files / "record.json"), "--analysis", str(analysis),
                 "--out", str(analysis)]) == 1
    assert "is the file this command reads" in one_line(capsys.readouterr().err)
    assert analysis.read_text() == "{}\n"


def test_view_never_writes_over_the_games_of_a_tournament(results, tmp_path, capsys):
    games = results / "games.jsonl"
    before = games.read_bytes()
    assert main(["view", f"{games}:1", "--out", str(games)]) == 1
    assert "is the file this command reads" in one_line(capsys.readouterr().err)
    assert games.read_bytes() == before


def test_view_never_writes_over_the_files_of_the_results_folder_it_reads(results, capsys):
    for name in ("tournament.json", "summary.json", "summary.md"):
        target = results / name
        if not target.exists():
            target.write_text("{}\n")
        before = target.read_bytes()
        assert main(["view", f"{results / 'games.jsonl'}:1", "--out", str(target)]) == 1
        assert "is a file of the results folder" in one_line(capsys.readouterr().err)
        assert target.read_bytes() == before


def test_view_writes_no_device(files, capsys):
    assert main(["view", str(files / "record.json"), "--out", "/dev/null"]) == 1
    assert "not a regular file" in one_line(capsys.readouterr().err)


def test_a_lone_surrogate_in_a_record_is_refused_and_the_old_page_kept(files, tmp_path, capsys):
    rec = json.loads((files / "record.json").read_text())
    rec["bots"] = ["\ud800bad", *rec["bots"][1:]]
    source = tmp_path / "surrogate.json"
    source.write_text(json.dumps(rec))                 # \ud800 escaped: valid JSON
    out = tmp_path / "old.html"
    out.write_text("the old page")
    assert main(["view", str(source), "--out", str(out), "--force"]) == 1
    assert "bots[0]: a name is 1 to 200 printable characters" in one_line(capsys.readouterr().err)
    assert out.read_text() == "the old page"


def test_a_page_that_cannot_be_built_leaves_the_old_file(files, tmp_path, capsys, monkeypatch):
    out = tmp_path / "old.html"
    out.write_text("the old page")

    def broken(*args, **kw):
        raise UnicodeEncodeError("utf-8", "x", 0, 1, "surrogates not allowed")
    monkeypatch.setattr(view, "game_page", broken)
    assert main(["view", str(files / "record.json"), "--out", str(out)]) == 1
    one_line(capsys.readouterr().err)
    assert out.read_text() == "the old page"


@pytest.mark.slow
def test_view_of_a_fifo_does_not_hang(files, tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    done = run_view([fifo, "--out", tmp_path / "g.html"], timeout=30)
    assert done.returncode == 1 and "a pipe" in one_line(done.stderr)
    done = run_view([files / "record.json", "--analysis", fifo, "--out", tmp_path / "g.html"],
                    timeout=30)
    assert done.returncode == 1 and "a pipe" in one_line(done.stderr)
    assert not (tmp_path / "g.html").exists()


def test_the_pages_of_a_results_folder_are_checked_before_any_is_written(results, tmp_path,
                                                                         capsys):
    pages = tmp_path / "pages"
    pages.mkdir()
    os.mkfifo(pages / "index.html")
    assert main(["view", str(results), "--out", str(pages)]) == 1
    assert "index.html is not a regular file (a pipe)" in one_line(capsys.readouterr().err)
    assert sorted(p.name for p in pages.iterdir()) == ["index.html"]
