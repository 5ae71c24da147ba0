"""tools/ladder.py: the levels' table from the results folders of adjacent pairs."""

from tigris.commands import main

from processes import tool

ladder = tool("ladder")


def test_the_table_chains_the_pairs_from_random(tmp_path, capsys):
    for k, bots in enumerate((["random", "level-1"], ["level-1", "level-2"])):
        assert main(["tournament", "--bots", *bots, "--games", "4", "--seed", str(k),
                     "--jobs", "1", "--out", str(tmp_path / f"pair-{k}")]) == 0
    capsys.readouterr()
    ladder.main([str(tmp_path / "pair-0"), str(tmp_path / "pair-1")])
    lines = capsys.readouterr().out.splitlines()
    first, second = lines[2], lines[3]
    # greedy never loses to random: a one-sided gap, a bound and no estimate
    assert first.startswith("| level-1 | 4 | 4 of 4 | at least +")
    assert second.startswith("| level-") and "at least" in second.split("|")[5]
    assert "random = 0; it won none of its 4 games" in lines[-1]
