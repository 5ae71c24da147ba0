"""tools/policy_accuracy.py: networks' policies judged by the same self-play labels."""

import json

import numpy as np
import pytest

from tigris import network
from tigris.runs.train import dataset

from helpers import tiny_selfplay
from processes import tool

accuracy_tool = tool("policy_accuracy")


@pytest.fixture(scope="module")
def labels(tmp_path_factory):
    return tiny_selfplay(tmp_path_factory.mktemp("labels"), games=3, positions=5, seed=3)


def _labelled(folder):
    lines = [json.loads(line) for line in (folder / "positions.jsonl").read_text().splitlines()]
    return [pos for line in lines for pos in line["positions"] if pos.get("policy")]


@pytest.mark.slow
def test_every_labelled_position_is_judged_once_and_a_right_top_move_is_the_labels(labels, capsys):
    data = dataset([labels])
    net = network.from_knobs("net", "gen1", 2)
    right, judged, mass, entropy = accuracy_tool.accuracy(data, net)
    assert judged == len(_labelled(labels)) > 0
    assert 0 <= right <= judged and 0 < mass <= 1
    # the labels' own entropy is the least a cross-entropy can be
    own = [-sum(s * np.log(s) for s in shares if s > 0) for _, (_, shares) in zip(data.positions, data.policy)]
    assert entropy >= np.mean(own) - 1e-6
    # each right position by hand: the policy's top move is one of the most visited
    hand = 0
    for game, (actions, shares) in zip(data.positions, data.policy):
        prior = net.policy(game)
        hand += max(prior, key=prior.get) in set(actions[shares == shares.max()].tolist())
    assert hand == right
    assert accuracy_tool.main([str(labels), "--network", "gen1", "gen1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("gen1")]
    assert len(rows) == 2 and rows[0] == rows[1] and f"({right} of {judged})" in rows[0]


@pytest.mark.slow
def test_a_network_without_a_policy_or_a_file_that_is_none_is_one_line(labels, tmp_path, capsys):
    assert accuracy_tool.main([str(labels), "--network", str(tmp_path / "none.npz")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("policy_accuracy: ") and "none.npz" in err and err.count("\n") == 1
