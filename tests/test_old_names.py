"""The names that said one word for two things (DESIGN.md's "Words") stay renamed: no
module of the package uses them, and their old spellings still work, with a
DeprecationWarning, until 2.2."""

import re
import warnings
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "tigris"

# (pattern of an old name, the files allowed to say it: where its alias is defined, and
# modules another change renames).
OLD = [
    (r"\bknobs\.TABLE\b|\bimport TABLE\b|^TABLE\s*=", {"knobs.py"}),
    (r"\bsearcher\b", {"hints.py"}),
    (r"\bhints\.searched\b|\bimport .*\bsearched\b|^def searched\b", {"hints.py"}),
    (r"(?:jobs\.|class |import .*)Searches\b", {"web/jobs.py"}),
    (r"\bdef table\(self, deal\)|\.table\(deal\)", {"play/schedule.py"}),
    (r"\bjob\[|\bfor job in\b|\bjobs?\(k, spec|\bdef play_game\(job\b|\bdef game_tasks\(jobs\b", set()),
    (r"\bhint\(.*\bjobs=|\bsearcher\(.*\bjobs\b", {"hints.py"}),
    (r"\bplay_out\([^)]*\bseats\b", {"play/runner.py"}),
    (r"\btigris\.runs\.(runner|schedule|results|seeds|luck)\b|"
     r"\bfrom tigris\.runs import .*\b(runner|schedule|results|seeds|luck)\b",
     {"runs/runner.py", "runs/schedule.py", "runs/results.py", "runs/seeds.py", "runs/luck.py",
      }),
    (r"\bdeal_row\b", {"search.py"}),
    (r"\bMAX_DEALS\b", {"search.py"}),
    (r"\bdeals=|\.deals\(game\)|\bdef deals\(self, game\)", {"search.py", "bots/search.py"}),
    (r"\bstats\[\"|\[\"children\"\]|\bch\[\"(visits|action|value|chances|mean|halvings)\"\]", {"search.py"}),
    (r"\b(task|call\[1\]\[0\])\[[\"'](game|deal_seed|seats)[\"']\]|\bspec_dict\b", {"play/runner.py"}),
    (r"\b(task|t)\[[\"'](before|after|action)[\"']\]", {"analysis.py"}),    # Decision.of reads a dict
]


def sayers(pattern):
    """The package's Python files with a line matching `pattern`."""
    found = set()
    for path in SOURCE.rglob("*.py"):
        if re.search(pattern, path.read_text(encoding="utf-8"), re.MULTILINE):
            found.add(path.relative_to(SOURCE).as_posix())
    return found


@pytest.mark.parametrize("pattern, allowed", OLD)
def test_an_old_name_does_not_come_back(pattern, allowed):
    assert sayers(pattern) <= allowed


def test_the_reader_sees_an_old_name(tmp_path, monkeypatch):
    import test_old_names

    (tmp_path / "m.py").write_text("from tigris import knobs\nx = knobs.TABLE['widening']\n")
    monkeypatch.setattr(test_old_names, "SOURCE", tmp_path)
    assert sayers(OLD[0][0]) == {"m.py"}


def test_the_old_names_still_work_with_a_warning():
    from tigris import hints, knobs
    from tigris.play.schedule import Schedule

    with pytest.warns(DeprecationWarning, match="tigris.knobs.KNOBS"):
        assert knobs.TABLE is knobs.KNOBS
    with pytest.warns(DeprecationWarning, match="hint_bot"):
        assert hints.searcher is hints.hint_bot
    with pytest.warns(DeprecationWarning, match="root_statistics"):
        assert hints.searched is hints.root_statistics
    schedule = Schedule(["a", "b", "c"], players=2, games=6, seed=1)
    with pytest.warns(DeprecationWarning, match="Schedule.lineup"):
        assert schedule.table(1) == schedule.lineup(1) == ["a", "c"]
    with pytest.warns(DeprecationWarning, match="Schedule.lineups"):
        assert schedule.tables == schedule.lineups == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        knobs.KNOBS, hints.hint_bot, hints.root_statistics, schedule.lineup(0)  # noqa: B018  the new names warn not
    for module, name in ((knobs, "TABLES"), (hints, "searching")):
        with pytest.raises(AttributeError):
            getattr(module, name)


def test_play_out_takes_its_bots_under_their_old_name_with_a_warning():
    import tigris
    from tigris import bots
    from tigris.play.runner import play_out

    games = [tigris.Game(players=2, seed=3) for _ in range(2)]
    play_out(games[0], [bots.make("greedy", seed=s) for s in (1, 2)])
    with pytest.warns(DeprecationWarning, match="play_out\\(bots="):
        play_out(games[1], seats=[bots.make("greedy", seed=s) for s in (1, 2)])
    assert games[0].history == games[1].history and games[0].is_over
    with pytest.raises(TypeError, match="needs the bots"):
        play_out(tigris.Game(players=2, seed=3))


def test_a_hint_takes_its_workers_under_their_old_name_with_a_warning():
    import tigris

    g = tigris.Game(players=2, seed=2)
    new = tigris.hint(g, iterations=200, workers=1, seed=3, top=3, progress=False)
    with pytest.warns(DeprecationWarning, match="hint\\(workers="):
        old = tigris.hint(g, iterations=200, jobs=1, seed=3, top=3, progress=False)
    assert [h["plan"] for h in old] == [h["plan"] for h in new]
    with pytest.raises(ValueError, match="workers must be"):
        tigris.hint(g, iterations=200, workers=0, progress=False)


def test_the_search_takes_its_determinizations_under_their_old_names_with_a_warning():
    import tigris
    from tigris import bots, search

    g = tigris.Game(players=2, seed=4)
    with pytest.warns(DeprecationWarning, match="determinization_row"):
        old = search.deal_row
    assert old is search.determinization_row
    with pytest.warns(DeprecationWarning, match="MAX_DETERMINIZATIONS"):
        assert search.MAX_DEALS == search.MAX_DETERMINIZATIONS == 1 << 16
    rows = ([search.determinization_row(g.determinize(g.current_player, 2))], [1.0])
    new = search.Search(g, determinizations=rows, seed=1, **search.PLAIN)
    with pytest.warns(DeprecationWarning, match="Search\\(determinizations="):
        was = search.Search(g, deals=rows, seed=1, **search.PLAIN)
    new.step(100)
    was.step(100)
    assert new.stats() == was.stats()
    with pytest.raises(TypeError, match="not both"), pytest.warns(DeprecationWarning):
        search.Search(g, deals=rows, determinizations=rows, **search.PLAIN)
    bot = bots.make("ismcts", iterations=10, determinization="belief", belief_particles=8, seed=1)
    with pytest.warns(DeprecationWarning, match="ISMCTSBot.determinizations"):
        assert bot.deals(g) == bot.determinizations(g)


def test_root_statistics_as_dicts_still_work_with_a_warning():
    import tigris
    from tigris import hints, search
    from tigris.bots.search import merge
    from tigris.runs import targets

    g = tigris.Game(players=2, seed=7)
    stats = search.run(g, iterations=200, seed=2, **search.PLAIN)
    old = stats.to_dict()
    with pytest.warns(DeprecationWarning, match="merge"):
        assert merge([old]) == merge([stats])
    with pytest.warns(DeprecationWarning, match="tigris.hints.ranked"):
        assert hints.ranked(g, old["children"]) == hints.ranked(g, stats.children)
    with pytest.warns(DeprecationWarning, match="targets.visits"):
        assert targets.visits(old["children"]) == targets.visits(stats.children)
    with pytest.warns(DeprecationWarning, match="tigris.hints.continuation"):
        assert hints.continuation(g, old["children"][0]) == hints.continuation(g, stats.children[0])
    assert search.choose(old["children"], "visits") == search.choose(stats.children, "visits") == stats.best


def untimed(rec):
    """A game's record without what the machine decides: its times."""
    return dict({k: v for k, v in rec.items() if k not in ("seconds", "cpu_seconds")},
                moves=[m["move"] for m in rec["moves"]])


def test_a_runs_tasks_game_spec_and_selfplay_settings_as_dicts_still_work_with_a_warning():
    from tigris.play import runner
    from tigris.play.schedule import Schedule
    from tigris.runs import selfplay

    task = Schedule(["a", "b", "c"], players=2, games=6, seed=1)[3]
    with pytest.warns(DeprecationWarning, match=r"Task\['seats'\] is deprecated: read \.seats"):
        assert task["seats"] == ["c", "a"] == list(task.seats)
    with pytest.warns(DeprecationWarning, match=r"Task\['game'\]"):
        assert task["game"] == task.game == 3
    with pytest.raises(KeyError):
        task["bots"]
    spec = runner.GameSpec(players=2, seed=1, name="t", variants=["x"])
    with pytest.warns(DeprecationWarning, match=r"GameSpec\['variants'\] is deprecated: read \.variants"):
        assert spec["variants"] == ["x"]

    def public(spec):                              # a function that takes a spec, as play_game
        return runner.GameSpec.of(spec)

    with pytest.warns(DeprecationWarning, match="a game spec as a dict is deprecated") as said:
        assert public({"players": 2, "seed": 1, "name": "t"}) == runner.GameSpec(2, 1, "t")
    assert said[0].filename == __file__          # the warning names the line that called it
    settings = {"a": ("random", {}), "b": ("random", {})}
    new = runner.play_game(runner.Task(0, 5, ("a", "b")), settings,
                           runner.GameSpec(players=2, seed=1, name="t"))
    with pytest.warns(DeprecationWarning) as said:
        old = runner.play_game({"game": 0, "deal_seed": 5, "seats": ["a", "b"]}, settings,
                               {"players": 2, "board": "classic", "variants": [], "seed": 1, "name": "t"})
    messages = " ".join(str(w.message) for w in said)
    assert "a task as a dict is deprecated" in messages and "a game spec as a dict is deprecated" in messages
    assert untimed(old) == untimed(new) and new["moves"] and "error" not in new
    s = selfplay.settings(games=1)
    with pytest.warns(DeprecationWarning, match=r"Settings\['seed'\]"):
        assert s["seed"] == s.seed
    with pytest.warns(DeprecationWarning, match=r"Settings.get\('targets'\)"):
        assert s.get("targets") == {"labels": "separate", "policy": "visits", "full_share": None}
    assert s.get("nothing", 7) == 7
    with pytest.warns(DeprecationWarning, match="settings as a dict"):
        assert selfplay.Settings.of(s.to_dict()) == s
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        task.seats, s.seed, runner.Task.of(task), selfplay.Settings.of(s)  # the new forms warn not


def test_an_analysis_s_decisions_as_dicts_still_work_with_a_warning():
    import tigris
    from tigris import analysis, bots

    game = tigris.Game(players=2, seed=3)
    action = game.legal_actions()[0]
    old = {"move": 1, "before": game, "action": action}
    engine = analysis.engine_of(bots.configuration("ismcts-heuristic"), "margin")
    new = analysis.analyse_decision(analysis.Decision(1, game, action), engine, {"iterations": 30}, 0,
                                    analysis.check_thresholds())
    with pytest.warns(DeprecationWarning, match="a decision as a dict is deprecated: give an analysis.Decision"):
        assert analysis.analyse_decision(old, engine, {"iterations": 30}, 0, analysis.check_thresholds()) == new
    decision = analysis.Decision.of(analysis.Decision(1, game, action))
    with pytest.warns(DeprecationWarning, match=r"Decision\['action'\] is deprecated: read \.action"):
        assert decision["action"] == decision.action == action
    assert decision.after is None and decision.get("nothing", 2) == 2
