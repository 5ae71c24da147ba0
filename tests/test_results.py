"""Results folders held to their tournament: tournament.json checked field by field, every
line of games.jsonl held to the schedule, a lazy schedule, names that are not text, the
streaming summary, and the dask backend's failures -- each a one-line error, never a
traceback, and never a lost game."""

import json
import math
import os
import re
import shutil
import threading
import tracemalloc

import pytest

from tigris import tournament
from tigris.commands import main
from tigris.errors import ConfigError, TournamentError
from tigris.play.runner import deal_games, deal_seed
from tigris.tournament import MAX_GAMES, Spec, load_summary, read_games, run, schedule, write_spec_file

from processes import dask_cluster
from waiting import until


@pytest.fixture(autouse=True)
def in_repo(monkeypatch):
    monkeypatch.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A finished 2-player tournament of 6 games (random against greedy)."""
    out = tmp_path_factory.mktemp("played") / "t"
    old = os.getcwd()
    os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        run(Spec(bots=["random", "greedy"], games=6, seed=2, name="six"), out=out, jobs=1,
            progress=False)
    finally:
        os.chdir(old)
    return out


@pytest.fixture
def folder(played, tmp_path):
    """A copy of the played folder to spoil."""
    return shutil.copytree(played, tmp_path / "copy")


def one_line(err):
    """The one line of an error on stderr (progress bars aside)."""
    lines = [line.split("\r")[-1] for line in err.split("\n")]
    lines = [line for line in lines if line.strip() and not re.search(r"\d+%\|", line)]
    assert len(lines) == 1 and "Traceback" not in err, err[-3000:]
    return lines[0]


def listed_schedule(spec):
    """The schedule as it was built in memory before: every deal's games in turn."""
    import itertools
    if len(spec.bots) >= spec.players:
        lineups = [list(t) for t in itertools.combinations(spec.bots, spec.players)]
    else:
        lineups = [[spec.bots[i % len(spec.bots)] for i in range(spec.players)]]
    games = []
    for d in range(math.ceil(spec.games / spec.players)):
        games += deal_games(lineups[d % len(lineups)], deal_seed(spec.seed, d), len(games))
    return games


# ---------------------------------------------------------------------------------------
# The schedule, computed game by game
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("bots,players,games", [
    (["a", "b"], 2, 7), (["a", "b", "c"], 2, 12), (["a", "b", "c", "d", "e"], 4, 40),
    (["a", "b"], 3, 9), (["a", "b", "c", "d", "e", "f", "g"], 3, 200), (["a", "b", "c"], 4, 8)])
def test_the_schedule_is_the_listed_one_game_by_game(bots, players, games):
    spec = Spec(bots=bots, players=players, games=games, seed=3)
    listed = listed_schedule(spec)
    lazy = schedule(spec)
    assert len(lazy) == len(listed)
    assert list(lazy) == listed
    assert [lazy[k] for k in range(len(listed))] == listed
    with pytest.raises(IndexError):
        lazy[len(listed)]


def test_a_huge_schedule_is_not_built_in_memory():
    spec = Spec(bots=[f"b{k}" for k in range(30)], players=4, games=MAX_GAMES, seed=1)
    tracemalloc.start()
    try:
        lazy = schedule(spec)
        last = lazy[len(lazy) - 1]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(lazy) == MAX_GAMES and last.game == MAX_GAMES - 1
    assert peak < 1_000_000


# ---------------------------------------------------------------------------------------
# tournament.json, field by field
# ---------------------------------------------------------------------------------------

def _spoil(folder, change):
    """tournament.json changed, as a file of 2.0 (without the digest that refuses any
    edit): each field's own check is what says what is wrong."""
    path = folder / "tournament.json"
    saved = json.loads(path.read_text())
    saved.pop("digest")
    change(saved)
    path.write_text(json.dumps(saved))


@pytest.mark.parametrize("change", [
    lambda s: s["bots"]["greedy"][1].update(eval_leader=s["bots"]["greedy"][1]["eval_leader"] + 0.01),
    lambda s: s["bots"]["random"][1].update(seed=5),
    lambda s: s["spec"].update(name="another"),
])
def test_settings_edited_since_the_games_were_played_are_refused(folder, capsys, change):
    """A bot's knobs change its moves, not their legality: the replay cannot tell an
    edited tournament.json, so its digest does."""
    path = folder / "tournament.json"
    saved = json.loads(path.read_text())
    change(saved)
    path.write_text(json.dumps(saved))
    for args in (["standings", str(folder)], ["tournament", "--resume", str(folder), "--jobs", "1"]):
        assert main(args) == 1
        assert "tournament.json: its spec or bots were edited since its games were played" in \
            one_line(capsys.readouterr().err)


BAD_SPEC_FILES = [
    ("players is text", lambda s: s["spec"].update(players="2"), "players"),
    ("no bots", lambda s: s["spec"].update(bots=[]), "bots"),
    ("an empty bot name", lambda s: s["spec"].update(bots=["random", ""]), "bots"),
    ("bots is text", lambda s: s["spec"].update(bots="random"), "bots"),
    ("games too many", lambda s: s["spec"].update(games=10**7), "games"),
    ("games huge", lambda s: s["spec"].update(games=10**400), "games"),
    ("games a float", lambda s: s["spec"].update(games=6.0), "games"),
    ("seed text", lambda s: s["spec"].update(seed="0"), "seed"),
    ("seed huge", lambda s: s["spec"].update(seed=10**30), "seed"),
    ("board unknown", lambda s: s["spec"].update(board=7), "board"),
    ("variants text", lambda s: s["spec"].update(variants="english"), "variants"),
    ("name a list", lambda s: s["spec"].update(name=["x"]), "name"),
    ("an unknown field", lambda s: s["spec"].update(rounds=3), "rounds"),
    ("spec a list", lambda s: s.update(spec=[1]), "spec"),
    ("no spec", lambda s: s.pop("spec"), "spec"),
    ("settings missing", lambda s: s["bots"].pop("greedy"), "greedy"),
    ("settings a list", lambda s: s.update(bots=[]), "bots"),
    ("a kind unknown", lambda s: s["bots"].update(greedy=["clever", {}]), "kind"),
    ("knobs wrong", lambda s: s["bots"].update(greedy=["greedy", {"eval_leader": "x"}]),
     "eval_leader"),
    ("settings of three parts", lambda s: s["bots"].update(greedy=["greedy", {}, 1]), "greedy"),
]


@pytest.mark.slow
@pytest.mark.parametrize("what,change,field", BAD_SPEC_FILES, ids=[b[0] for b in BAD_SPEC_FILES])
def test_tournament_json_is_checked_field_by_field(folder, capsys, what, change, field):
    _spoil(folder, change)
    with pytest.raises(TournamentError, match=f"tournament.json.*{field}"):
        load_summary(folder)
    assert main(["standings", str(folder)]) == 1
    line = one_line(capsys.readouterr().err)
    assert line.startswith("tigris standings: ") and "tournament.json" in line and field in line
    assert main(["tournament", "--resume", str(folder), "--jobs", "1"]) == 1
    assert "tournament.json" in one_line(capsys.readouterr().err)


def test_tournament_json_that_is_not_an_object(folder, capsys):
    for text in ("[]", "null", '"x"', "{", "\xff"):
        (folder / "tournament.json").write_bytes(text.encode("latin-1"))
        with pytest.raises(TournamentError, match="tournament.json"):
            load_summary(folder)


def test_a_tournament_json_that_is_a_pipe_is_refused_unopened(folder):
    (folder / "tournament.json").unlink()
    os.mkfifo(folder / "tournament.json")          # no writer: opening it would block
    with pytest.raises(TournamentError, match=r"tournament.json: a pipe, not a file"):
        load_summary(folder)


# ---------------------------------------------------------------------------------------
# games.jsonl held to the schedule
# ---------------------------------------------------------------------------------------

def _lines(folder):
    return (folder / "games.jsonl").read_text().splitlines()


def _write_lines(folder, lines):
    (folder / "games.jsonl").write_text("\n".join(lines) + "\n")


def test_a_repeated_game_is_refused_naming_both_lines(folder, capsys):
    lines = _lines(folder)
    _write_lines(folder, lines + [lines[1]])
    game = json.loads(lines[1])["game"]
    with pytest.raises(TournamentError, match=rf"games.jsonl:7: game {game} again \(first on line 2\)"):
        load_summary(folder)
    assert main(["standings", str(folder)]) == 1
    assert "games.jsonl:7" in one_line(capsys.readouterr().err)


def _foreign(rec, how):
    rec = dict(rec)
    if how == "number":
        rec["game"] = 6
    elif how == "negative":
        rec["game"] = -1
    elif how == "bots":
        rec["bots"] = rec["bots"][::-1]
    elif how == "deal":
        rec["deal_seed"] += 1
    elif how == "tournament":
        rec["tournament"] = "another"
    elif how == "players":
        rec["bots"] = rec["bots"] + ["random"]
    return rec


@pytest.mark.parametrize("how", ["number", "negative", "bots", "deal", "tournament", "players"])
def test_a_game_of_another_tournament_is_refused_naming_the_line(folder, capsys, how):
    lines = _lines(folder)
    lines[2] = json.dumps(_foreign(json.loads(lines[2]), how))
    _write_lines(folder, lines)
    with pytest.raises(TournamentError, match=r"games.jsonl:3: .*not a game of this tournament"):
        load_summary(folder)
    assert main(["standings", str(folder)]) == 1
    assert "games.jsonl:3" in one_line(capsys.readouterr().err)


def test_resume_never_lets_a_foreign_or_repeated_game_in(folder, capsys):
    before = (folder / "summary.json").read_text()
    lines = _lines(folder)
    del lines[4:]                               # two games to play again
    foreign = _foreign(json.loads(lines[0]), "tournament")
    _write_lines(folder, lines + [json.dumps(foreign)])
    assert main(["tournament", "--resume", str(folder), "--jobs", "1"]) == 1
    assert "games.jsonl:5" in one_line(capsys.readouterr().err)
    assert len(_lines(folder)) == 5              # nothing played, nothing rewritten
    assert (folder / "summary.json").read_text() == before
    _write_lines(folder, lines + [lines[0]])
    assert main(["tournament", "--resume", str(folder), "--jobs", "1"]) == 1
    assert "games.jsonl:5: game" in one_line(capsys.readouterr().err)
    _write_lines(folder, lines)
    assert main(["tournament", "--resume", str(folder), "--jobs", "1"]) == 0
    assert json.loads((folder / "summary.json").read_text())["games"] == 6


def test_a_malformed_result_is_one_line(folder, capsys):
    lines = _lines(folder)
    rec = json.loads(lines[0])
    for result in ({"ranking": [[0], [0]], "final": [1, 2]}, {"ranking": [[0], [1]], "final": ["x", 1]},
                   {"ranking": [[0], [1]], "final": [1]}, {"ranking": [[0, 1, 1]], "final": [1, 1]}):
        _write_lines(folder, [json.dumps(dict(rec, result=result))] + lines[1:])
        with pytest.raises(TournamentError, match="games.jsonl:1: "):
            load_summary(folder)
    _write_lines(folder, [json.dumps(dict(rec, moves=[{"player": 0, "seconds": "slow"}]))] + lines[1:])
    with pytest.raises(TournamentError, match="games.jsonl:1: "):
        load_summary(folder)


# ---------------------------------------------------------------------------------------
# Results believed only once replayed
# ---------------------------------------------------------------------------------------

def _decided(lines):
    """The index of the first line whose game has a winner and a loser."""
    return next(k for k, line in enumerate(lines)
                if len(json.loads(line)["result"]["ranking"]) == 2)


def _score_up(rec):
    rec["result"]["scores"][1]["red"] += 1


LIES = [
    ("ranking", lambda r: r["result"].update(ranking=r["result"]["ranking"][::-1]),
     r"result.ranking: the replay gives \[\[\d\], \[\d\]\], the record says"),
    ("a score", _score_up, r"result.scores\[1\].red: the replay gives \d+, the record says \d+"),
    ("final", lambda r: r["result"].update(final=[x + 1 for x in r["result"]["final"]]), "result.final"),
    ("no result", lambda r: r.update(result=None), "result is null, but its moves end the game"),
    ("adjudicated", lambda r: r["result"].update(adjudicated="turn limit"),
     r"result.adjudicated: a tournament's game is stopped only at the turn limit"),
    ("resigned", lambda r: r["result"].update(adjudicated="player 0 resigned", resigned=0),
     "result"),
    ("a move less", lambda r: r["moves"].pop(), "result"),
    ("a move changed", lambda r: r["moves"][3].update(move="pass"), "(move 4|result)"),
    ("an illegal move", lambda r: r["moves"][3].update(move="war red"), "move 4"),
    ("seed", lambda r: r.update(seed=r["seed"] + 1), r"seed is \d+, the tournament's is \d+"),
    ("board", lambda r: r.update(board="advanced"), "board is 'advanced', the tournament's is 'classic'"),
    ("variants", lambda r: r.update(variants=["english"]), "variants are"),
    ("players", lambda r: r.update(players=3), "players is 3, the tournament's is 2"),
]


@pytest.mark.parametrize("what, lie, says", LIES, ids=[lie[0] for lie in LIES])
def test_a_result_its_moves_do_not_give_is_refused_naming_line_and_field(folder, capsys, what, lie, says):
    lines = _lines(folder)
    k = _decided(lines)
    rec = json.loads(lines[k])
    lie(rec)
    lines[k] = json.dumps(rec)
    _write_lines(folder, lines)
    with pytest.raises(TournamentError, match=rf"games.jsonl:{k + 1}: game \d+: .*{says}"):
        load_summary(folder)
    assert main(["standings", str(folder)]) == 1
    assert f"games.jsonl:{k + 1}: game" in one_line(capsys.readouterr().err)


def test_reversed_rankings_are_refused_by_every_reader(folder, capsys, tmp_path):
    # The attack: every line's ranking reversed made the loser win 6 of 6, exit 0.
    before = (folder / "summary.json").read_text()
    lines = []
    for line in _lines(folder):
        rec = json.loads(line)
        rec["result"]["ranking"] = rec["result"]["ranking"][::-1]
        lines.append(json.dumps(rec))
    k = _decided(_lines(folder))
    _write_lines(folder, lines)
    for argv in (["standings", str(folder)], ["view", str(folder), "--out", str(tmp_path / "v")],
                 ["tournament", "--resume", str(folder), "--jobs", "1"],
                 ["replay", str(folder), "--game", "0"]):
        assert main(argv) == 1, argv
        said = one_line(capsys.readouterr().err)
        assert f"games.jsonl:{k + 1}: game" in said and "result.ranking" in said, (argv, said)
    assert (folder / "summary.json").read_text() == before and _lines(folder) == lines
    assert not (tmp_path / "v").exists()


def test_a_match_folder_without_tournament_json_is_replayed_too(folder):
    from tigris import view

    (folder / "tournament.json").unlink()
    lines = _lines(folder)
    k = _decided(lines)
    rec = json.loads(lines[k])
    rec["result"]["ranking"] = rec["result"]["ranking"][::-1]
    _write_lines(folder, lines[:k] + [json.dumps(rec)] + lines[k + 1:])
    with pytest.raises(TournamentError, match=rf"games.jsonl:{k + 1}: game \d+: result.ranking"):
        view.read_results(folder)
    _write_lines(folder, lines[:k] + [json.dumps(dict(json.loads(lines[k]), players=3))])
    with pytest.raises(TournamentError, match=rf"games.jsonl:{k + 1}: .*players is 3, but bots names 2"):
        view.read_results(folder)


def test_a_failed_game_is_listed_without_its_moves_replayed_and_not_played(folder):
    lines = _lines(folder)
    rec = json.loads(lines[0])
    rec.update(error="RuntimeError: lost", result=None)
    rec["moves"] = rec["moves"][:5] + [{"player": 0, "move": "fly away"}]
    _write_lines(folder, [json.dumps(rec)] + lines[1:])
    summary = load_summary(folder)
    assert summary["games"] == 5 and [e["game"] for e in summary["errors"]] == [rec["game"]]


def _made_up_failure(line):
    """A line that keeps a game's schedule fields and says it failed, with no moves."""
    rec = json.loads(line)
    return json.dumps({k: rec[k] for k in ("format", "game", "deal_seed", "tournament", "bots",
                                           "players", "board", "variants", "seed")}
                      | {"moves": [], "result": None, "error": "RuntimeError: made up"})


def test_failures_are_not_results_resume_plays_them_and_standings_count_them(folder, capsys):
    """Lines that say their games failed drop nothing for good: the standings count them
    as failed, not played; --resume plays them again, and their new lines count."""
    lines = _lines(folder)
    before = json.loads((folder / "summary.json").read_text())
    _write_lines(folder, [_made_up_failure(line) for line in lines[:4]] + lines[4:])
    summary = load_summary(folder)
    assert summary["games"] == 2 and len(summary["errors"]) == 4
    assert main(["standings", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "2 of 6 games played (4 failed" in out and "4 games failed and are not counted" in out
    again = run(out=folder, resume=True, jobs=1, progress=False)
    assert again["games"] == 6 and again["errors"] == []
    def table(summary):
        return [(b["name"], b["games"], b["wins"], b["mean_final"]) for b in summary["standings"]["bots"]]

    assert table(again) == table(before)                      # the same deals, the same games
    assert len(_lines(folder)) == 10                          # the failures stay, followed
    assert sorted(r["game"] for r in read_games(folder)) == list(range(6))
    assert all(r["result"] and "error" not in r for r in read_games(folder))
    # a game that failed twice is played once more; a finished one is kept once
    _write_lines(folder, [_made_up_failure(lines[0])] * 2 + lines[1:])
    assert load_summary(folder)["games"] == 5
    _write_lines(folder, lines + [_made_up_failure(lines[2])])
    with pytest.raises(TournamentError, match=r"games.jsonl:7: game \d+ again \(first on line 3\)"):
        load_summary(folder)


@pytest.fixture
def in_parts(monkeypatch):
    """Every games.jsonl read by worker processes, a few lines a part."""
    from tigris.play import results

    monkeypatch.setattr(results, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(results, "PART_BYTES", 30_000)


@pytest.mark.slow
def test_a_file_read_in_parts_by_workers_gives_the_same_answers(folder, in_parts):
    from tigris.play import results

    spec, _ = tournament.read_spec_file(folder / "tournament.json")
    assert len(results._parts(folder / "games.jsonl")) >= 3
    again = json.loads((folder / "summary.json").read_text())
    assert json.loads(json.dumps(load_summary(folder))) == again
    lines = _lines(folder)
    assert read_games(folder, game=json.loads(lines[4])["game"]) == [json.loads(lines[4])]
    rec = json.loads(lines[3])
    rec["result"]["final"] = [x + 1 for x in rec["result"]["final"]]
    # the first wrong line is named, whichever worker reads it: a repeated game on line 3
    _write_lines(folder, lines[:2] + [lines[0], json.dumps(rec)] + lines[4:])
    with pytest.raises(TournamentError, match=r"games.jsonl:3: game \d+ again \(first on line 1\)"):
        load_summary(folder)
    _write_lines(folder, lines[:3] + [json.dumps(rec)] + lines[4:])
    with pytest.raises(TournamentError, match=r"games.jsonl:4: game \d+: result.final"):
        load_summary(folder)
    _write_lines(folder, lines[:3] + ["{not json"] + lines[4:])
    with pytest.raises(TournamentError, match=r"games.jsonl:4: not a game record"):
        load_summary(folder)
    (folder / "games.jsonl").write_text("\n".join(lines) + "\n" + lines[5][:50])   # torn
    with pytest.warns(UserWarning, match="torn"):
        tally = results.scan(folder / "games.jsonl", spec, repair=True)
    assert len(tally) == 6 and _lines(folder) == lines


def test_view_reads_a_results_folder_held_to_its_tournament(folder):
    from tigris import view

    summary, recs = view.read_results(folder)
    assert summary["games"] == len(recs) == 6
    lines = _lines(folder)
    _write_lines(folder, lines + [lines[0]])
    with pytest.raises(TournamentError, match="games.jsonl:7"):
        view.read_results(folder)


def test_a_folder_without_its_tournament_json_refuses_a_repeated_game(folder):
    from tigris import view

    (folder / "tournament.json").unlink()
    summary, recs = view.read_results(folder)          # a match folder of an earlier version
    assert summary["games"] == len(recs) == 6
    lines = _lines(folder)
    _write_lines(folder, lines + [lines[3]])
    with pytest.raises(TournamentError, match=r"games.jsonl:7: game \d+ again \(first on line 4\)"):
        view.read_results(folder)
    _write_lines(folder, lines[:1] + [json.dumps(dict(json.loads(lines[1]), game=-3))])
    with pytest.raises(TournamentError, match="games.jsonl:2: not a game record"):
        view.read_results(folder)


@pytest.mark.slow
def test_a_match_folder_is_a_results_folder(tmp_path, capsys):
    from tigris.match import sprt_match

    out = tmp_path / "m"
    r = sprt_match("greedy", "random", elo0=0, elo1=200, max_games=6, jobs=2, out=out,
                   progress=False)
    summary = load_summary(out)
    assert summary["games"] == r["games"] == len(read_games(out))
    with pytest.raises(TournamentError, match="already holds games"):
        sprt_match("greedy", "random", max_games=4, jobs=1, out=out, progress=False)
    lines = _lines(out)
    _write_lines(out, lines + [lines[0]])
    assert main(["standings", str(out)]) == 1
    assert "games.jsonl" in one_line(capsys.readouterr().err)


# ---------------------------------------------------------------------------------------
# Names that are not text
# ---------------------------------------------------------------------------------------

def test_a_bot_file_name_that_is_not_utf8_is_refused_before_playing(tmp_path, capsys):
    name = os.fsdecode(b"caf\xe9.toml")
    bot = tmp_path / name
    bot.write_text('kind = "random"\n')
    out = tmp_path / "t"
    with pytest.raises(ConfigError, match=r"caf\\udce9"):
        run(Spec(bots=["greedy", str(bot)], games=2), out=out, jobs=1, progress=False)
    assert not (out / "games.jsonl").exists()
    assert main(["tournament", "--bots", "greedy", str(bot), "--games", "2", "--jobs", "1",
                 "--out", str(out)]) == 1
    assert "not UTF-8" in one_line(capsys.readouterr().err)


def test_a_failed_game_whose_message_is_not_text_keeps_the_summary(tmp_path, monkeypatch):
    from tigris.bots.simple import GreedyBot

    def broken(self, game):
        raise RuntimeError("bad \udcff byte \ud800")

    monkeypatch.setattr(GreedyBot, "choose", broken)
    out = tmp_path / "t"
    summary = run(Spec(bots=["random", "greedy"], games=2), out=out, jobs=1, progress=False)
    assert summary["games"] == 0 and len(summary["errors"]) == len(read_games(out)) == 2
    md = (out / "summary.md").read_text(encoding="utf-8")
    assert "bad \\udcff byte \\ud800" in md
    assert json.loads((out / "summary.json").read_text())["errors"]


def test_a_lone_surrogate_in_a_record_keeps_the_summary(folder):
    lines = _lines(folder)
    rec = json.loads(lines[0])
    rec["moves"][0]["note"] = "\ud800"
    rec["error"] = "lost \ud800"
    rec["result"] = None
    _write_lines(folder, [json.dumps(rec)] + lines[1:])
    summary = load_summary(folder)
    text = tournament.format_summary(summary)
    text.encode("utf-8")                          # printable and writable
    tournament.write_summary(folder, summary)
    assert "lost \\ud800" in (folder / "summary.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------
# The streaming summary
# ---------------------------------------------------------------------------------------

@pytest.mark.slow
def test_standings_read_games_jsonl_without_holding_the_records(folder):
    spec = Spec(bots=["random", "greedy"], games=600, seed=2, name="six")
    saved = json.loads((folder / "tournament.json").read_text())
    write_spec_file(folder / "tournament.json", Spec(**dict(saved["spec"], games=spec.games)),
                    saved["bots"])
    model = json.loads(_lines(folder)[0])
    winner = model["result"]["ranking"][0][0]
    greedy_wins = 0
    with open(folder / "games.jsonl", "w") as f:
        for task in schedule(spec):
            # the model's game again (its deal and draws are recorded: it replays whatever
            # the seed), as game K of the schedule: its seats and its deal's seed
            rec = dict(model, game=task.game, deal_seed=task.deal_seed, bots=list(task.seats),
                       seed=task.deal_seed)
            greedy_wins += task.seats[winner] == "greedy"
            f.write(json.dumps(rec) + "\n")
    size = (folder / "games.jsonl").stat().st_size
    tracemalloc.start()
    try:
        summary = load_summary(folder)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert summary["games"] == 600
    wins = {row["name"]: row["wins"] for row in summary["standings"]["bots"]}
    assert wins == {"greedy": greedy_wins, "random": 600 - greedy_wins} and greedy_wins == 300
    assert peak < size / 4, f"{peak:,} bytes at the peak for a file of {size:,}"


@pytest.mark.slow
def test_the_tally_holds_a_few_tens_of_bytes_a_game():
    from tigris.play.results import Tally

    spec = Spec(bots=["random", "greedy", "ismcts-fast"], games=10_000)
    tally = Tally(spec)
    tasks = schedule(spec)
    rec = {"moves": [{"player": 0, "seconds": 0.01}, {"player": 1, "seconds": 0.02}] * 50}
    tracemalloc.start()
    try:
        for task in tasks:
            tally.add(dict(rec, game=task.game, deal_seed=task.deal_seed, bots=list(task.seats),
                           result={"ranking": [[0], [1]], "final": [5, 3]}))
        size = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert size / len(tasks) < 100, f"{size / len(tasks):.0f} bytes a game"
    assert tally.leader() in ("random 50%", "greedy 50%", "ismcts-fast 50%")
    assert len(tally) == 10_000


def test_the_summary_from_the_tally_is_the_summary_of_the_records(played):
    summary = load_summary(played)
    again = json.loads((played / "summary.json").read_text())
    assert json.loads(json.dumps(summary)) == again
    assert summary["games"] == 6 and summary["scheduled"] == 6


# ---------------------------------------------------------------------------------------
# dask
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("address", ["tls://127.0.0.1:1", "nonsense://x", "tcp://", "127.0.0.1:notaport",
                                     "tcp://127.0.0.1:1"])
@pytest.mark.slow
def test_a_bad_scheduler_address_is_one_line(tmp_path, capsys, address, short_connect_timeout):
    pytest.importorskip("dask.distributed")
    assert main(["tournament", "--bots", "random", "greedy", "--games", "2", "--backend", "dask",
                 "--scheduler", address, "--out", str(tmp_path / "t")]) == 1
    line = one_line(capsys.readouterr().err)
    assert address in line or "scheduler" in line


@pytest.mark.slow
def test_a_client_that_failed_to_connect_is_ended_at_once(short_connect_timeout):
    """Left to the garbage collector, a failed dask client ends whenever it runs, and its
    end takes the lock of every client's start: a deadlock inside the next one's (a test
    run hung on it)."""
    import gc

    from tigris._plumbing import backends

    Client = pytest.importorskip("dask.distributed").Client

    def clients():
        return {id(o) for o in gc.get_objects() if type(o) is Client}    # isinstance would ask every object

    gc.disable()                        # no collection but the one the code does itself
    try:
        before = clients()              # other tests' clients, ended or not
        with pytest.raises(TournamentError, match="cannot reach the dask scheduler"):
            backends._client("tcp://127.0.0.1:1")
        assert not clients() - before
    finally:
        gc.enable()


def test_a_scheduler_without_the_dask_backend_is_refused(tmp_path, capsys):
    assert main(["tournament", "--bots", "random", "greedy", "--games", "2",
                 "--scheduler", "tls://127.0.0.1:1", "--out", str(tmp_path / "t")]) == 1
    assert "give --backend dask with it" in one_line(capsys.readouterr().err)
    assert not (tmp_path / "t").exists()                 # before any game


@pytest.mark.slow
def test_a_scheduler_killed_mid_run_ends_in_one_line_and_keeps_the_games(tmp_path, capsys):
    import signal

    out = tmp_path / "t"
    with dask_cluster(nthreads=2) as (address, scheduler):
        def kill_after_the_first_game():
            path = out / "games.jsonl"
            until(lambda: path.exists() and path.stat().st_size > 0, fail=False)
            scheduler.send_signal(signal.SIGKILL)

        killer = threading.Thread(target=kill_after_the_first_game)
        killer.start()
        code = main(["tournament", "--bots", "random", "greedy", "--games", "100", "--backend",
                     "dask", "--scheduler", address, "--out", str(out)])
        killer.join()
    line = one_line(capsys.readouterr().err)
    assert code == 1 and "--resume" in line and "scheduler" in line
    kept = read_games(out)
    assert 0 < len(kept) < 100


def test_a_field_a_games_line_does_not_have_is_refused(folder, capsys):
    lines = _lines(folder)
    for k, extra in ((0, {"comment": "mine"}), (1, {"error": "made up", "moves": [], "x": 1})):
        changed = list(lines)
        changed[k] = json.dumps(dict(json.loads(lines[k]), **extra))
        _write_lines(folder, changed)
        assert main(["standings", str(folder)]) == 1
        said = one_line(capsys.readouterr().err)
        assert f"games.jsonl:{k + 1}: game" in said and "is not a field of a game's line" in said
