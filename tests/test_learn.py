"""coltsim train (coltsim/learn/): the fit, the folder, the shipped weights."""
import json

import numpy as np
import pytest

from coltsim.cli import main
from coltsim.learn.config import TrainConfig
from coltsim.learn.record import R_DECISION, R_GAME, R_N, V_MEAN, V_N, V_VISITS
from coltsim.learn.train import fit, train, weights_hash
from coltsim.policies.learned import FEATURES, N_FEATURES, WEIGHTS, WEIGHTS_FILE

sklearn = pytest.importorskip("sklearn", reason="coltsim[train] is not installed")


def test_the_shipped_weights_are_the_ones_their_file_records():
    shipped = json.loads(WEIGHTS_FILE.read_text())
    assert weights_hash(shipped["weights"]) == shipped["sha256"]
    assert set(shipped["weights"]) == set(FEATURES)
    assert np.array_equal(WEIGHTS, [shipped["weights"][f] for f in FEATURES])
    provenance = shipped["provenance"]
    for key in ("trained_by", "commit", "config", "iteration", "recorded_games",
                "against_planners"):
        assert key in provenance, key


def test_a_changed_weight_changes_the_hash():
    shipped = json.loads(WEIGHTS_FILE.read_text())["weights"]
    assert weights_hash({**shipped, "loot": shipped["loot"] + 1e-6}) != weights_hash(shipped)


def _planted(path, rng, truth, decisions=3000):
    """Made-up recorded decisions: the teacher's value of an option is ``truth`` . features plus
    a constant of its decision (what a decision is worth whatever is chosen) and noise."""
    feats, ints, floats = [], [], []
    for d in range(decisions):
        n = rng.integers(2, 6)
        x = rng.normal(size=(n, N_FEATURES))
        x[:, 0] = 1.0
        value = x @ truth + rng.normal(scale=5.0) + rng.normal(scale=0.01, size=n)
        row = np.zeros((n, R_N), np.int32)
        row[:, R_GAME] = d // 10
        row[:, R_DECISION] = d % 10
        f = np.zeros((n, V_N), np.float32)
        f[:, V_MEAN] = value
        f[:, V_VISITS] = rng.integers(5, 50, size=n)
        feats.append(x)
        ints.append(row)
        floats.append(f)
    np.savez(path, feats=np.concatenate(feats).astype(np.float32), ints=np.concatenate(ints),
             floats=np.concatenate(floats))


def test_the_fit_finds_planted_weights_within_decisions(tmp_path):
    rng = np.random.default_rng(4)
    truth = rng.normal(size=N_FEATURES)
    truth[0] = 0.0  # a constant cannot tell options apart: the fit leaves it out
    _planted(tmp_path / "a.npz", rng, truth)
    _planted(tmp_path / "b.npz", rng, truth)  # the same games' numbers in another file
    coef, what = fit([tmp_path / "a.npz", tmp_path / "b.npz"], alpha=1e-6)
    assert what["decisions"] == 6000
    assert what["r2_within"] > 0.99
    assert np.abs(coef - truth).max() < 0.01
    # Not demeaned, the decisions' constants (scale 5) would swamp weights of scale 1.
    assert coef[0] == 0.0


def test_a_bad_training_input_is_one_line_naming_it(tmp_path, capsys):
    assert main(["train", str(tmp_path / "t"), "--share", "2"]) == 2
    err = capsys.readouterr().err
    assert "share" in err and "(0, 1]" in err and len(err.strip().splitlines()) == 1
    assert main(["train", str(tmp_path / "t"), "--rules", '{"hand_size": 99}']) == 2
    assert "hand_size" in capsys.readouterr().err


def test_a_folder_of_something_else_is_refused(tmp_path):
    (tmp_path / "x.txt").write_text("mine")
    with pytest.raises(ValueError, match="not empty"):
        train(tmp_path, TrainConfig(games=1), progress=False, say=lambda t: None)


TINY = TrainConfig(seed=3, iterations=1, games=6, share=0.3, budget=8, horizon=1,
                   match_deals=4)


@pytest.mark.slow
def test_a_training_is_reproducible_and_resumes(tmp_path):
    """The same seed gives the same data and weights on any number of workers; a folder that
    stopped resumes from what it holds; another configuration is refused."""
    quiet = {"progress": False, "say": lambda text: None}
    a = train(tmp_path / "a", TINY, workers=1, **quiet)
    b = train(tmp_path / "b", TINY, workers=2, **quiet)
    assert a["weights"] == b["weights"]
    chunks = sorted((tmp_path / "a" / "iter-01").glob("chunk-*.npz"))
    assert len(chunks) == 1 and chunks[0].stat().st_size > 1000
    data = np.load(chunks[0])
    assert np.all(np.isfinite(data["floats"][:, V_MEAN]))
    # Lose the chunk, the fit and the match: the rerun rebuilds them alike.
    for path in chunks + [tmp_path / "a" / "iter-01" / "weights.json",
                          tmp_path / "a" / "iter-01" / "match.json"]:
        path.unlink()
    assert train(tmp_path / "a", TINY, workers=1, **quiet)["weights"] == a["weights"]
    with pytest.raises(ValueError, match="differs in games"):
        train(tmp_path / "a", TrainConfig(**{**TINY.as_dict(), "games": 7}), **quiet)
