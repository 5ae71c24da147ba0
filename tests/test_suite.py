"""The position suite (``tigris.runs.suite``): making it (resumed after a kill, the same
bytes every time), reading it back (every field checked), and judging hints by it
(``tigris bench decisive`` and ``bench regret``)."""

import copy
import gzip
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tigris
from tigris._plumbing import locks
from tigris.commands import main
from tigris.errors import UsageError
from tigris.ratings import wilson_interval
from tigris.runs import bench
from tigris.runs import suite as suites

from processes import ROOT, _env
from waiting import until

#: Games for the tests' suites: greedy, and greedy with half its moves random.
MIXES = (("greedy", (("greedy", None),), 0.0), ("greedy+random", (("greedy", None),), 0.5))
TINY = dict(per_count=2, iterations=400, seeds=2, seed=3, mixes=MIXES)


def one_line(err, prog="tigris bench"):
    """The single line of an error on stderr (a progress bar aside)."""
    lines = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "%|" not in line]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{prog}: "), lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A tiny suite made once: (its run file, its suite file)."""
    folder = tmp_path_factory.mktemp("suite")
    run, out = folder / "run.jsonl", folder / "suite.json.gz"
    suites.make_suite(run, out, jobs=1, progress=False, **TINY)
    return run, out


@pytest.fixture
def tiny(made):
    return suites.read_suite(made[1])


def _text(path):
    return gzip.decompress(Path(path).read_bytes()).decode("utf-8")


def _write(path, data):
    """A suite's JSON `data` written (gzip) to `path`."""
    path.write_bytes(gzip.compress(json.dumps(data).encode("utf-8"), mtime=0))
    return path


# ---------------------------------------------------------------------------------------
# Making it
# ---------------------------------------------------------------------------------------

def test_a_tiny_suite_holds_each_count_s_positions_with_their_references(made):
    run, out = made
    suite = suites.read_suite(out)
    entries = suite["positions"]
    assert [e["id"] for e in entries] == suites.planned(2)
    assert [e["players"] for e in entries] == [2, 2, 3, 3, 4, 4]
    assert [e["phase"] for e in entries] == ["early", "middle"] * 3
    assert [e["bots"] for e in entries] == ["greedy"] * 6          # game 0 of each count
    header, _, searches = suites.read_run(run)
    assert len(searches) == 6 * 2 * 2
    for e in entries:
        g = e["game"]
        # as the mover sees it: the mover's hand known, every other hand hidden
        assert g.current_player not in g.unknown["hands"]
        assert sorted(g.unknown["hands"]) == [p for p in range(g.players) if p != g.current_player]
        assert e["played"] < e["length"]
        # the judgement, worked out again from the run file's searches
        lines = [searches[(e["id"], name, k)] for name, _ in suites.SETTINGS for k in range(2)]
        values, visits = {}, {}
        for line in lines:
            assert line["iterations"] == 400
            for move, n, value in line["moves"]:
                visits[move] = visits.get(move, 0) + n
                if n >= 0.4:          # JUDGED_SHARE of 400 iterations, at least 1 visit
                    values.setdefault(move, []).append(value)
        judged = e["reference"]["judged"]
        assert set(judged) == set(values)
        for move, (value, n, searched) in judged.items():
            assert value == pytest.approx(statistics.fmean(values[move]), abs=1e-4)
            assert (n, searched) == (visits[move], len(values[move]))
        assert e["reference"]["unjudged"] == len(visits) - len(values)
        top = max(v[0] for v in judged.values())
        assert e["reference"]["best"][0] == max(judged, key=lambda m: judged[m][0])
        assert set(e["reference"]["best"]) == {m for m, v in judged.items() if v[0] >= top - 0.02 - 1e-9}
    assert suite["settings"]["wide"]["candidates"] == suites.WIDE_CANDIDATES
    assert suite["settings"]["wide"]["priors"] == "heuristic"
    assert suite["settings"]["policy"]["priors"] == "net"


def test_the_two_settings_are_ismcts_fast_and_its_wide_root_of_hand_written_priors():
    from tigris import bots

    fast = bots.configuration("ismcts-fast").params
    knobs = suites.settings()
    assert list(knobs) == ["policy", "wide"]
    for name, changed in (("policy", {}), ("wide", {"priors": "heuristic", "candidates": 128})):
        assert knobs[name] == {k: v for k, v in {**fast, **changed}.items()
                               if k not in ("iterations", "seconds", "seed", "workers")}


@pytest.mark.slow
def test_the_same_settings_make_the_same_suite_whatever_the_workers(made, tmp_path):
    run, out = tmp_path / "run.jsonl", tmp_path / "suite.json.gz"
    suites.make_suite(run, out, jobs=2, progress=False, **TINY)
    assert out.read_bytes() == made[1].read_bytes()
    plain = tmp_path / "suite.json"                       # the same suite, not compressed
    suites.make_suite(run, plain, jobs=1, progress=False, **TINY)
    assert plain.read_text(encoding="utf-8") == _text(made[1])


def _lines(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
def test_a_run_killed_with_sigkill_is_continued_to_the_same_suite(tmp_path):
    """The command killed (SIGKILL: nothing cleaned up) after some searches, then run
    again: it keeps what the file holds, runs only the rest, and writes the suite that
    a run never stopped writes."""
    settings = dict(per_count=1, iterations=6000, seeds=2, seed=0)
    whole = tmp_path / "whole"
    whole.mkdir()
    suites.make_suite(whole / "run.jsonl", whole / "suite.json.gz", jobs=1, progress=False, **settings)
    run, out = tmp_path / "run.jsonl", tmp_path / "suite.json.gz"
    argv = ["-m", "tigris", "bench", "suite", "--make", str(run), "--out", str(out), "--positions", "1",
            "--iterations", "6000", "--seeds", "2", "--seed", "0", "--jobs", "1"]
    first = subprocess.Popen([sys.executable, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=_env(), cwd=ROOT, start_new_session=True)
    try:
        until(lambda: run.exists() and run.read_bytes().count(b'{"search"') >= 2, timeout=240,
              what="two searches in the run file")
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    assert not out.exists()
    kept = run.read_bytes().count(b'{"search"')
    assert 2 <= kept < 12
    assert main(["bench", "suite", "--make", str(run), "--out", str(out), "--positions", "1",
                 "--iterations", "6000", "--seeds", "2", "--jobs", "1"]) == 0
    assert out.read_bytes() == (whole / "suite.json.gz").read_bytes()
    lines = _lines(run)
    assert [("game" in x, "search" in x) for x in lines].count((False, True)) == 12   # none twice
    assert sum("game" in x for x in lines) == 3


def test_a_torn_last_line_is_cut_off_and_the_run_continued(made, tmp_path, recwarn):
    run, out = tmp_path / "run.jsonl", tmp_path / "suite.json.gz"
    lines = made[0].read_bytes().splitlines(keepends=True)
    run.write_bytes(b"".join(lines[:-1]) + lines[-1][:30])     # a write cut short
    suites.make_suite(run, out, jobs=1, progress=False, **TINY)
    assert out.read_bytes() == made[1].read_bytes()
    assert any("the last line is torn" in str(w.message) for w in recwarn)
    assert run.read_bytes() == made[0].read_bytes()


def test_a_run_file_of_other_settings_is_refused_naming_the_field(made, tmp_path):
    run = tmp_path / "run.jsonl"
    run.write_bytes(made[0].read_bytes())
    before = run.read_bytes()
    with pytest.raises(UsageError, match=r"run.jsonl holds another suite's run: its iterations is 400, "
                                         r"not 500; choose another file"):
        suites.make_suite(run, tmp_path / "s.json.gz", **{**TINY, "iterations": 500}, progress=False)
    assert run.read_bytes() == before and not (tmp_path / "s.json.gz").exists()


def test_a_run_file_whose_knobs_differ_is_refused_naming_the_knob(made, tmp_path):
    """A run made before a knob was added: the message names the knob, not the first
    characters of every knob of the setting."""
    import json

    run = tmp_path / "run.jsonl"
    lines = made[0].read_bytes().splitlines(keepends=True)
    header = json.loads(lines[0])
    del header["settings"]["wide"]["margin_share"]
    run.write_bytes(json.dumps(header).encode() + b"\n" + b"".join(lines[1:]))
    with pytest.raises(UsageError, match=r"its settings\.wide\.margin_share is None, not 0\.0; "):
        suites.make_suite(run, tmp_path / "s.json.gz", **TINY, progress=False)


def test_a_run_file_held_by_another_run_is_refused(tmp_path):
    run = tmp_path / "run.jsonl"
    with locks.hold(run, file=True):
        with pytest.raises(UsageError, match=r"run.jsonl is in use by another run"):
            suites.make_suite(run, tmp_path / "s.json.gz", progress=False, **TINY)
    assert not run.exists()


def test_an_existing_suite_file_is_refused_unless_forced(made, tmp_path, capsys):
    out = tmp_path / "suite.json.gz"
    out.write_bytes(b"old")
    args = ["bench", "suite", "--make", str(tmp_path / "run.jsonl"), "--out", str(out), "--positions", "1"]
    assert main(args) == 1
    assert "exists" in one_line(capsys.readouterr().err) and out.read_bytes() == b"old"
    with pytest.raises(UsageError, match="is the run's file"):
        suites.make_suite(tmp_path / "r.jsonl", tmp_path / "r.jsonl", progress=False, **TINY)


# ---------------------------------------------------------------------------------------
# Reading it back
# ---------------------------------------------------------------------------------------

def _damaged(data):
    """(label, mutation of the suite's JSON, words the error must name)."""
    def edit(fn):
        def apply(d):
            fn(d)
            return d
        return apply

    first = lambda d: d["positions"][0]             # noqa: E731
    judged = lambda d: first(d)["reference"]["judged"]  # noqa: E731
    move = next(iter(data["positions"][0]["reference"]["judged"]))
    return [
        ("format", edit(lambda d: d.update(format="tigris-suite/0")), "not a tigris-suite/1 file"),
        ("iterations", edit(lambda d: d.update(iterations=0)), "field iterations must be"),
        ("settings", edit(lambda d: d["settings"].pop("wide")), "field settings must be"),
        ("unknown", edit(lambda d: d.update(extra=1)), "unknown field 'extra'"),
        ("positions", edit(lambda d: d.update(positions=[])), "field positions must be"),
        ("no id", edit(lambda d: first(d).pop("id")), "positions[0]: no field id"),
        ("players", edit(lambda d: first(d).update(players=5)), "positions[0] (2-0-early): field players"),
        ("phase", edit(lambda d: first(d).update(phase="endgame")), "field phase must be"),
        ("length", edit(lambda d: first(d).update(length=-1)), "field length must be"),
        ("position", edit(lambda d: first(d)["position"].update(to_move=7)), "field position:"),
        ("reference", edit(lambda d: first(d).pop("reference")), "no field reference"),
        ("illegal", edit(lambda d: judged(d).update({"tile red Z99": [0.5, 10, 1]})),
         "'tile red Z99' is not a legal move"),
        ("value", edit(lambda d: judged(d).update({move: [1.5, 10, 1]})), f"reference.judged['{move}']"),
        ("searches", edit(lambda d: judged(d).update({move: [0.5, 10, 5]})), "searches from 1 to 4"),
        ("best", edit(lambda d: first(d)["reference"].update(best=[])), "field reference.best must be"),
        ("twice", edit(lambda d: d["positions"].append(copy.deepcopy(first(d)))), "a second position of this id"),
    ]


def test_a_damaged_suite_is_refused_in_one_line_naming_the_file_and_the_field(made, tmp_path, capsys):
    data = json.loads(_text(made[1]))
    for label, mutate, words in _damaged(data):
        bad = _write(tmp_path / f"{label.replace(' ', '-')}.json.gz", mutate(copy.deepcopy(data)))
        with pytest.raises(UsageError) as e:
            suites.read_suite(bad)
        message = str(e.value)
        assert message.startswith(f"{bad}: ") and words in message and "\n" not in message, (label, message)
        assert main(["bench", "decisive", "--suite", str(bad)]) == 1
        assert one_line(capsys.readouterr().err) == f"tigris bench: {message}"


def test_a_suite_file_that_is_not_whole_gzip_json_is_refused(made, tmp_path):
    whole = made[1].read_bytes()
    for name, data, words in (("cut.json.gz", whole[:len(whole) // 2], "a gzip file cut short"),
                              ("plain.json.gz", b"{}", "not a gzip file"),
                              ("text.json", b"not json", "not JSON"),
                              ("list.json", b"[]", "not a tigris-suite/1 file")):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(UsageError, match=rf"^{re.escape(str(path))}: .*{words}"):
            suites.read_suite(path)
    with pytest.raises(UsageError, match="a folder, not a file"):
        suites.read_suite(tmp_path)


def test_a_damaged_run_file_is_refused_naming_the_line_and_the_field(made, tmp_path):
    lines = made[0].read_text(encoding="utf-8").splitlines()
    search = next(k for k, line in enumerate(lines) if line.startswith('{"search"'))
    for k, change, words in ((0, lambda x: x.update(seeds=0), "line 1: field seeds must be"),
                             (1, lambda x: x["game"][0].update(id="9-9-late"), "line 2: a position of the game: field id"),
                             (search, lambda x: x["moves"][0].__setitem__(2, 2.0), f"line {search + 1}: field moves"),
                             (search, lambda x: x.update(search=["2-5-late", "policy", 0]),
                              f"line {search + 1}: field search must be")):
        item = json.loads(lines[k])
        change(item)
        run = tmp_path / "run.jsonl"
        run.write_text("\n".join(lines[:k] + [json.dumps(item)] + lines[k + 1:]) + "\n", encoding="utf-8")
        with pytest.raises(UsageError, match=rf"^{re.escape(str(run))}: {re.escape(words)}"):
            suites.read_run(run)


def test_the_commands_say_in_one_line_that_no_suite_is_shipped(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(suites, "SHIPPED", tmp_path / "suite.json.gz")
    for part in ("decisive", "regret", "suite"):
        assert main(["bench", part]) == 1
        line = one_line(capsys.readouterr().err)
        assert line.startswith("tigris bench: no position suite is shipped with this tigris "
                               "(suite.json.gz is not in the package yet): make one with tigris bench "
                               "suite --make RUN"), line


def test_the_shipped_suite_when_there_is_one_is_read_whole():
    if not suites.SHIPPED.exists():
        pytest.skip("the position suite's reference is not computed yet (docs/results.md)")
    suite = suites.load_suite()
    for n in (2, 3, 4):
        assert sum(e["players"] == n for e in suite["positions"]) >= 32
    assert suite["iterations"] >= 1_000_000 and suite["seeds"] >= 3
    assert {e["phase"] for e in suite["positions"]} == set(suites.PHASES)
    assert len({e["bots"] for e in suite["positions"]}) >= 4


def test_the_release_would_ship_the_suite():
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    check = (ROOT / "tools" / "check_dist.sh").read_text(encoding="utf-8")
    assert '"*.json.gz"' in setup
    assert re.search(r"^recursive-include src/tigris .*\*\.json\.gz", manifest, flags=re.M)
    assert r"'src/tigris/suite\.json\.gz'" in check and r"'tigris/suite\.json\.gz'" in check
    assert suites.SHIPPED.name == "suite.json.gz" and suites.SHIPPED.parent == Path(tigris.__file__).resolve().parent


# Mutations of a suite: a value anywhere in it replaced by another JSON value.
_JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats()
                     | st.text(max_size=20), lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=6)


def _paths(value, path=()):
    """Every place in a JSON value, as a path of keys and indexes."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for k, v in enumerate(value):
            yield from _paths(v, (*path, k))


@pytest.mark.slow
def test_a_mutated_suite_is_read_or_refused_in_one_line(made, tmp_path_factory):
    data = json.loads(_text(made[1]))
    small = dict(data, positions=data["positions"][:2])        # two positions: quick to check
    places = [p for p in _paths(small) if p]
    folder = tmp_path_factory.mktemp("mutated")

    @settings(max_examples=150, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(places), _JSON, st.booleans())
    def check(place, value, remove):
        d = copy.deepcopy(small)
        *parents, last = place
        holder = d
        for key in parents:
            holder = holder[key]
        if remove and isinstance(holder, dict):
            holder.pop(last)
        else:
            holder[last] = value
        path = folder / "suite.json"
        path.write_text(json.dumps(d), encoding="utf-8")
        try:
            suites.read_suite(path)
        except UsageError as e:
            assert str(e).startswith(f"{path}: ") and "\n" not in str(e)

    check()


# ---------------------------------------------------------------------------------------
# Judging hints by it
# ---------------------------------------------------------------------------------------

def _figures(rows):
    return {row[0]: row for row in rows}


def _share(rows, prefix):
    """The row whose figure begins with `prefix`, and its k and n ("(k of n)")."""
    row = next(r for r in rows if r[0].startswith(prefix))
    k, n = map(int, re.search(r"\((\d+) of (\d+)\)$", row[0]).groups())
    return row, k, n


def test_bench_decisive_on_a_tiny_suite_gives_each_share_with_its_interval(tiny):
    rows = suites.bench_decisive(tiny, iterations=300, jobs=1, progress=False)
    for label, n in (("2 players", 2), ("3 players", 2), ("4 players", 2), ("all", 6)):
        for what in ("same top plan for seeds 1, 2, 3", "each seed's top plan among the other seeds' equals"):
            row, k, total = _share(rows, f"{what}, {label} (")
            assert total == n and row[1] == pytest.approx(100 * k / n) and row[2] == "%"
            low, high = wilson_interval(k, n)
            assert row[3] == pytest.approx((100 * low, 100 * high))
    same = [_share(rows, f"same top plan for seeds 1, 2, 3, {n} players")[1] for n in (2, 3, 4)]
    assert _share(rows, "same top plan for seeds 1, 2, 3, all")[1] == sum(same)
    figures = _figures(rows)
    assert figures["median number of equal plans, all"][1] >= 1
    assert 0 < figures["median share of the root visits on the top plan"][1] <= 100
    assert any(name.startswith("time, 6 positions, 300 iterations a hint, on 1 worker") for name in figures)


def _planted(tiny, budget, right):
    """The tiny suite with every reference replaced: only the move a hint of `budget`
    iterations (seed 1) plays judged, best if `right`; else only another move."""
    from tigris.hints import hint

    suite = copy.deepcopy({k: v for k, v in tiny.items() if k != "positions"})
    suite["positions"] = []
    for e in tiny["positions"]:
        g = e["game"]
        top = hint(g, iterations=budget, seed=1, top=1, progress=False)[0]["move"]
        other = next(g.action_str(a) for a in g.legal_actions() if g.action_str(a) != top)
        judged = {top: [0.6, 100, 1], other: [0.5, 100, 1]} if right else {other: [0.5, 100, 1]}
        best = [top] if right else [other]
        suite["positions"].append(dict(e, reference={"judged": judged, "best": best, "unjudged": 0}))
    return suite


def test_bench_regret_counts_a_top_plan_right_only_among_the_reference_s_best(tiny):
    right = suites.bench_regret(_planted(tiny, 200, True), budgets=(200,), jobs=1, progress=False)
    row, k, n = _share(right, "top plan within 0.02 of the reference's best, 200 iterations, all")
    assert (k, n, row[1]) == (6, 6, 100.0) and row[3][0] == pytest.approx(100 * wilson_interval(6, 6)[0])
    figures = _figures(right)
    assert figures["top plans the reference did not judge (counted as misses), 200 iterations"][1] == 0
    assert figures["mean regret of the judged top plans, 200 iterations"][1] == 0
    # a top plan the reference did not judge is a miss, and is counted
    missed = suites.bench_regret(_planted(tiny, 200, False), budgets=(200,), jobs=1, progress=False)
    row, k, n = _share(missed, "top plan within 0.02 of the reference's best, 200 iterations, all")
    assert (k, n) == (0, 6)
    assert _figures(missed)["top plans the reference did not judge (counted as misses), 200 iterations"][1] == 6


def test_bench_regret_on_a_tiny_suite_judges_every_budget(tiny):
    rows = suites.bench_regret(tiny, budgets=(200, 400), jobs=2, progress=False)
    figures = _figures(rows)
    for b in (200, 400):
        shares = [_share(rows, f"top plan within 0.02 of the reference's best, {b} iterations, {n} players")
                  for n in (2, 3, 4)]
        every = _share(rows, f"top plan within 0.02 of the reference's best, {b} iterations, all")
        assert every[2] == 6 and every[1] == sum(k for _, k, _ in shares)
        unjudged = figures[f"top plans the reference did not judge (counted as misses), {b} iterations"][1]
        assert every[1] <= 6 - unjudged
        if unjudged < 6:
            mean = figures[f"mean regret of the judged top plans, {b} iterations"][1]
            assert 0 <= mean <= figures[f"largest regret, {b} iterations"][1] <= 1


def test_judge_reads_a_move_s_value_and_regret_or_none(tiny):
    e = tiny["positions"][0]
    judged = e["reference"]["judged"]
    best, worst = next(iter(judged)), list(judged)[-1]
    assert suites.judge(e, best) == (judged[best][0], 0.0)
    assert suites.judge(e, worst)[1] == pytest.approx(judged[best][0] - judged[worst][0], abs=1e-4)
    assert suites.judge(e, "not a move") is None


def test_the_command_prints_the_intervals_and_gives_them_as_json(made, capsys):
    assert main(["bench", "decisive", "--suite", str(made[1]), "--iterations", "200", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["figures"]
    row = next(f for f in figures if f["figure"].startswith("same top plan for seeds 1, 2, 3, all ("))
    low, high = row["interval"]
    assert 0 <= low <= row["value"] <= high <= 100
    assert "interval" not in next(f for f in figures if f["figure"].startswith("median share"))
    assert main(["bench", "suite", "--suite", str(made[1])]) == 0
    out = capsys.readouterr().out
    assert re.search(r"positions, all +6 +positions", out) and "95% interval" not in out


def test_format_rows_shows_an_interval_column_only_when_a_row_has_one():
    plain = bench.format_rows([("a", 1.5, "%")], "value")
    assert plain.splitlines()[0].split() == ["figure", "value", "unit"]
    table = bench.format_rows([("a share", 50.0, "%", (9.46, 90.54)), ("a count", 3, "plans")], "value")
    head, _, first, second = table.splitlines()
    assert head.split() == ["figure", "value", "95%", "interval", "unit"]
    assert first.split() == ["a", "share", "50.00", "9.5", "to", "90.5", "%"]
    assert second.split() == ["a", "count", "3", "plans"]


def test_midgame_keeps_the_former_positions(monkeypatch, tmp_path):
    called = []
    monkeypatch.setattr(bench, "bench_decisive", lambda **kw: called.append(kw) or [("x", 1.0, "%")])
    monkeypatch.setattr(suites, "SHIPPED", tmp_path / "suite.json.gz")
    assert main(["bench", "decisive", "--midgame", "--iterations", "100"]) == 0
    assert called and called[0]["iterations"] == 100


def test_a_device_or_a_pipe_for_a_suite_or_a_run_is_refused_at_once(tmp_path, capsys):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for args, words in ((["decisive", "--suite", "/dev/zero"], "/dev/zero: a device, not a file"),
                        (["regret", "--suite", str(pipe)], f"{pipe}: a pipe, not a file"),
                        (["suite", "--make", "/dev/zero"], "--make /dev/zero is not a regular file (a device)"),
                        (["suite", "--make", str(pipe)], f"--make {pipe} is not a regular file (a pipe)")):
        assert main(["bench", *args]) == 1
        assert words in one_line(capsys.readouterr().err), args


def test_a_run_or_a_suite_is_never_written_through_a_link(tmp_path, capsys):
    victim = tmp_path / "victim"
    victim.write_text("mine\n")
    for option in ("--make", "--out"):
        link = tmp_path / f"link{option}"
        link.symlink_to(victim)
        files = {"--make": str(tmp_path / "run.jsonl"), "--out": str(tmp_path / "s.json.gz"), option: str(link)}
        assert main(["bench", "suite", "--positions", "1", "--iterations", "10", *[x for kv in files.items()
                                                                                  for x in kv]]) == 1
        assert "symbolic link" in one_line(capsys.readouterr().err)
        assert victim.read_text() == "mine\n" and not (tmp_path / "run.jsonl").exists()


@pytest.mark.slow
def test_ctrl_c_stops_the_making_in_one_line_saying_what_is_kept(tmp_path):
    from processes import interrupt

    run = tmp_path / "run.jsonl"
    code, _, err, left = interrupt(["-m", "tigris", "bench", "suite", "--make", str(run), "--positions", "1",
                                    "--iterations", "50000", "--seeds", "2", "--jobs", "2"],
                                   "searches", stream="stderr", delay=2.0)
    assert code == 130 and left == []
    line = one_line(err)
    assert re.fullmatch(rf"tigris bench: interrupted: \d+ positions and \d+ of their reference searches are "
                        rf"kept in {re.escape(str(run))}; run the same command again to continue", line), line
    header, positions, searches = suites.read_run(run)
    assert header["iterations"] == 50000 and len(searches) < 12
    assert not (tmp_path / "suite.json.gz").exists()


def test_a_run_whose_game_bots_changed_is_not_continued(tmp_path):
    """A bot file of the games edited between two runs into one file would mix positions
    of other games: the engine differs, and the run is refused naming it."""
    bot = tmp_path / "mine.toml"
    bot.write_text('kind = "greedy"\neval_leader = 0.3\n')
    mixes = (("mine", ((str(bot), None),), 0.0),)
    run = tmp_path / "run.jsonl"
    settings = dict(per_count=1, iterations=50, seeds=1, mixes=mixes, progress=False)
    suites.make_suite(run, tmp_path / "a.json.gz", **settings)
    bot.write_text('kind = "greedy"\neval_leader = 0.9\n')
    with pytest.raises(UsageError, match=r"holds another suite's run: its engine is '[0-9a-f]{16}', not"):
        suites.make_suite(run, tmp_path / "b.json.gz", **settings)


def test_a_policy_is_judged_by_the_suite_s_reference(made, tmp_path, capsys):
    """bench policy: the network's most probable move at each position, among the
    reference's best or not, as a share with its interval; the same for a file and for
    the generation it copies.  No network named: each position's line's default."""
    import shutil

    from tigris import network
    from tigris.runs import suite as suites

    suite = suites.read_suite(made[1])
    rows = suites.bench_policy(suite, "")
    top, on_best, entropy = {}, [], []
    for e in suite["positions"]:
        g = tigris.Game.from_position(e["position"])
        prior = network.from_knobs("net", "", g.players).policy(g)
        top[e["id"]] = g.action_str(max(prior, key=prior.get)) in e["reference"]["best"]
        on_best.append(100 * sum(prior[a] for a in prior if g.action_str(a) in e["reference"]["best"]))
        entropy.append(-sum(p * math.log(p) for p in prior.values() if p > 0))
    by_name = {row[0].split(" (")[0]: row for row in rows}
    in_all = by_name["the policy's top move among the reference's best, all"]
    assert in_all[1] == pytest.approx(100 * sum(top.values()) / len(top))
    lo, hi = in_all[3]
    assert 0 <= lo <= in_all[1] <= hi <= 100
    # the share of the policy on the best moves, a mean over positions with its interval,
    # and how sharp the policy is: each of a position's probabilities counted once
    share = by_name["the policy's share on the reference's best moves, all"]
    assert share[1] == pytest.approx(sum(on_best) / len(on_best)) and share[2] == "%"
    assert share[3][0] <= share[1] <= share[3][1] and 0 <= share[1] <= 100
    assert by_name["the policy's mean entropy, all"][1:] == (pytest.approx(sum(entropy) / len(entropy)), "nats")
    copy = tmp_path / "mine.npz"
    shutil.copy(network.generation_file("gen1", 2), copy)
    two = [e for e in suite["positions"] if e["players"] == 2]
    mine = suites.bench_policy(dict(suite, positions=two), str(copy))
    assert mine == suites.bench_policy(dict(suite, positions=two), "gen1")
    # a generation of the 2-player line alone is judged on the 2-player positions alone
    assert network.generations(3) == ["gen1"] and len(network.generations(2)) > 1
    assert len(two) < len(suite["positions"])
    assert suites.bench_policy(suite, network.generations(2)[-1]) == suites.bench_policy(
        dict(suite, positions=two), network.generations(2)[-1])
    assert main(["bench", "policy", "--suite", str(made[1]), "--network", "gen1"]) == 0
    assert "the policy's top move among the reference's best" in capsys.readouterr().out
