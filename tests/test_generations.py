"""tigris learn --report: a loop's generations as a table and a picture, each network's Elo
over the first one added up along its line of promotions; its file checked as it is read."""

import json
import math

import pytest

from tigris.commands import main
from tigris.runs import generations, learn


def gate(elo, lo, hi, decision, first=False, games=100):
    entry = {"status": "done", "decision": decision, "games": games, "wins": 55, "draws": 0, "losses": 45,
             "cpu_seconds": 7200.0}
    if first:
        entry.update(elo=None, elo_ci=None, first_elo=elo, first_elo_ci=[lo, hi])
    else:
        entry.update(elo=elo, elo_ci=[lo, hi])
    return entry


def line(k, start, promoted, gates, current):
    return {"generation": k, "from": start, "promoted": promoted, "current": current,
            "selfplay": {"games": 600, "positions": 19000, "cpu_seconds": 3600.0},
            "train": {"held_out_policy": 3.9, "held_out_top_move": 0.27, "cpu_seconds": 600.0},
            "gate": gates, "cpu_seconds": 11400.0, "wall_seconds": 5700.0}


# Generation 1 promoted (+40 +-30), 2 refused (+5 +-20 over 1), 3 promoted from 1 (+30 +-40).
TWO = [line(1, 0, True, {"2": gate(40, 10, 70, "H1")}, 1),
       line(2, 1, False, {"2": gate(5, -15, 25, "H0")}, 1),
       line(3, 1, True, {"2": gate(30, -5, 75, "H1")}, 3)]


def write(folder, lines):
    folder.mkdir(exist_ok=True)
    (folder / learn.LOG).write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def test_elo_over_the_first_network_adds_the_gates_along_the_line_of_promotions():
    rows = generations.rows(TWO)
    over = [(r["gates"]["2"]["over_0"], r["gates"]["2"]["over_0_pm"]) for r in rows]
    assert over[0] == (40, 30)
    assert over[1][0] == 45 and over[1][1] == pytest.approx(math.hypot(30, 20))
    # from generation 1 (promoted), not from the refused generation 2
    assert over[2][0] == 70 and over[2][1] == pytest.approx(math.hypot(30, 45))
    assert [r["promoted"] for r in rows] == [True, False, True]
    assert rows[0]["selfplay_cpu_hours"] == 1.0 and rows[0]["cpu_hours"] == pytest.approx(11400 / 3600)


def test_a_gate_without_an_elo_breaks_the_sum_after_it_not_before():
    lines = [line(1, 0, True, {"2": dict(gate(40, 10, 70, "H1"), elo_ci=[None, 70])}, 1),
             line(2, 1, True, {"2": gate(20, 0, 40, "H1")}, 2)]
    rows = generations.rows(lines)
    assert rows[0]["gates"]["2"]["over_0"] is None
    assert rows[1]["gates"]["2"]["elo"] == 20 and rows[1]["gates"]["2"]["over_0"] is None


def test_three_and_four_players_read_the_first_place_elo_and_a_skipped_gate():
    lines = [line(1, 0, True, {"3": gate(60, 20, 100, "H1", first=True),
                               "4": gate(50, 0, 100, "H1", first=True)}, 1),
             line(2, 1, False, {"3": gate(-10, -40, 20, "H0", first=True),
                                "4": {"status": "skipped", "why": "the gate at 3 players did not accept H1"}}, 1)]
    rows = generations.rows(lines)
    assert rows[0]["gates"]["3"]["over_0"] == 60 and rows[0]["gates"]["4"]["over_0"] == 50
    assert rows[1]["gates"]["3"]["over_0"] == 50
    assert rows[1]["gates"]["4"]["over_0"] is None
    text = generations.markdown(rows)
    assert "skipped" in text and text.count("\n") == 1 + 4      # the head, its rule, a row per gate


def test_report_prints_the_table_and_draws_the_picture(tmp_path, capsys):
    out = write(tmp_path / "loop", TWO)
    assert main(["learn", str(out), "--report", "--plot", str(tmp_path / "elo.png")]) == 0
    text = capsys.readouterr().out
    rows = [r for r in text.splitlines() if r.startswith("| ")]
    assert len(rows) == 1 + 3
    rule = text.splitlines()[1]
    assert rule.count("|") == rows[0].count("|") == rows[1].count("|")       # a column a cell
    assert "+70 (+-54)" in rows[3] and "H0" in rows[2] and rows[3].endswith("| yes |")
    assert (tmp_path / "elo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a picture there already is kept, unless --force
    (tmp_path / "elo.png").write_bytes(b"mine")
    assert main(["learn", str(out), "--report", "--plot", str(tmp_path / "elo.png")]) == 1
    assert "elo.png exists; name a new file, or add --force" in capsys.readouterr().err
    assert (tmp_path / "elo.png").read_bytes() == b"mine"
    assert main(["learn", str(out), "--report", "--plot", str(tmp_path / "elo.png"), "--force"]) == 0
    assert (tmp_path / "elo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("change, field", [
    (lambda x: x.pop("selfplay"), "selfplay must be an object"),
    (lambda x: x.update(gate={"5": {}}), "gate must be an object"),
    (lambda x: x["gate"]["2"].update(elo="high"), "gate.2.elo must be a number"),
    (lambda x: x["selfplay"].update(games=-3), "selfplay.games must be a number"),
    (lambda x: x["gate"]["2"].update(elo_ci=[1]), "gate.2.elo_ci must be [low, high]"),
    (lambda x: x.update(cpu_seconds=float("nan")), "cpu_seconds must be a number"),
    (lambda x: x.update({"from": 4}), "from must be the generation it started from"),
])
def test_a_bad_line_is_named_with_its_file_line_and_field(tmp_path, capsys, change, field):
    lines = json.loads(json.dumps(TWO))
    change(lines[1])
    out = write(tmp_path / "loop", lines)
    assert main(["learn", str(out), "--report"]) == 1
    err = capsys.readouterr().err
    assert f"{out / learn.LOG}: line 2: {field}" in err and "Traceback" not in err


def test_report_refuses_a_folder_without_generations_and_a_plot_over_what_it_reads(tmp_path, capsys):
    assert main(["learn", str(tmp_path / "none"), "--report"]) == 1
    assert "not a tigris learn folder" in capsys.readouterr().err
    out = write(tmp_path / "loop", TWO)
    before = (out / learn.LOG).read_bytes()
    assert main(["learn", str(out), "--report", "--plot", str(out / learn.LOG)]) == 1
    assert "--plot" in capsys.readouterr().err and (out / learn.LOG).read_bytes() == before
    assert main(["learn", str(out), "--plot", str(tmp_path / "x.png")]) == 1
    assert "give --report too" in capsys.readouterr().err and not (tmp_path / "x.png").exists()
