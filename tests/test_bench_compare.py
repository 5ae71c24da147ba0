"""The two-commit benchmark comparison (tools/bench_compare.py): its arithmetic and how it
names what to build.  Building and timing are left to the tool's own runs."""

import subprocess
from pathlib import Path

import pytest

from processes import tool

ROOT = Path(__file__).resolve().parent.parent
bench_compare = tool("bench_compare")


def in_git_checkout():
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True)
    return done.returncode == 0


def test_summary_takes_medians_inverts_times_and_skips_what_one_side_lacks():
    base = [{"games/s": (100.0, "games/s"), "copy": (40.0, "ns"), "share": (30.0, "%"),
             "old only": (1.0, "x")} for _ in range(3)]
    base[1]["games/s"] = (90.0, "games/s")
    new = [{"games/s": (300.0, "games/s"), "copy": (20.0, "ns"), "share": (10.0, "%")},
           {"games/s": (280.0, "games/s"), "copy": (20.0, "ns"), "share": (10.0, "%")},
           {"games/s": (1000.0, "games/s"), "copy": (20.0, "ns"), "share": (10.0, "%")}]
    rows = {r[0]: r for r in bench_compare.summarise({"base": base, "new": new})}
    assert set(rows) == {"games/s", "copy", "share"}
    assert rows["games/s"][2:] == (100.0, 300.0, 3.0)      # medians, new over base
    assert rows["copy"][4] == 2.0                           # half the time: twice as fast
    assert rows["share"][4] is None
    text = bench_compare.table(list(rows.values()), "base", "new")
    assert "3.000x" in text and "2.000x" in text


@pytest.mark.skipif(not in_git_checkout(), reason="needs the git checkout")
def test_refs_name_git_trees_and_the_working_tree_is_left_alone():
    head_tree = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD^{tree}"],
                               capture_output=True, text=True).stdout.strip()
    assert bench_compare.resolve("HEAD") == (head_tree, "HEAD")
    status = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"],
                            capture_output=True, text=True).stdout
    tree, name = bench_compare.resolve(None)
    assert name == "working tree" and len(tree) == 40
    assert subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"],
                          capture_output=True, text=True).stdout == status
    with pytest.raises(bench_compare.CompareError, match="not a commit"):
        bench_compare.resolve("no-such-ref-anywhere")


@pytest.mark.parametrize("args,message", [
    (["--rounds", "0"], "at least 1"),
    (["--games", "-5"], "at least 1"),
    (["--rounds", "99999999999999999999"], "at most 1,000"),
    (["--repeats", "5000"], "at most 1,000"),
    (["--json", "/no/such/folder/out.json"], "no folder /no/such/folder to write it in"),
])
def test_bad_arguments_are_reported_without_a_traceback(args, message, capsys):
    # Refused before anything is built or run.
    assert bench_compare.main(["HEAD", "HEAD", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_cache_that_is_a_file_is_refused(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("")
    assert bench_compare.main(["HEAD", "HEAD", "--cache", str(f)]) == 2
    assert "not a folder" in capsys.readouterr().err
