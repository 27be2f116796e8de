"""learned's value and coltsim train (coltsim/learn/, policies/{encoding,net,weights,recording}):
the forward pass against the fitted models, the fit against scikit-learn, the recorder, the
weights files, and the training folder."""
import json
from collections import Counter

import numpy as np
import pytest

from coltsim.cli import main
from coltsim.engine.scoring import RB_N, RG_N
from coltsim.learn.config import MIX_MATCHES, MIX_PLAYERS, MIX_RULES, TrainConfig
from coltsim.learn.fit import _Perceptron, fit, fit_options, targets
from coltsim.learn.train import Trainer, play_chunk, teacher_params, train
from coltsim.playout import batch_kernel, new_kernel_states
from coltsim.policies import resolve_policies
from coltsim.policies.encoding import ENCODE_W, N_INPUTS, input_names
from coltsim.policies.net import net_values
from coltsim.policies.recording import (
    M_GAME, M_N, M_OPTION, M_OPTIONS, Y_MEAN, Y_N, Y_VISITS, new_recorder,
)
from coltsim.policies.weights import (
    NET_FILE, load_net, net_bytes, net_hash, pack, read_net_bytes, save_net, shipped_net, table,
)
from coltsim.rules import Rules
from coltsim.setting import make_setting

sklearn = pytest.importorskip("sklearn", reason="coltsim[train] is not installed")


def _values(net, x):
    """The kernels' values of the rows ``x`` as options of one decision (net.net_values)."""
    enc = np.zeros((len(x), ENCODE_W))
    enc[:, :x.shape[1]] = x
    out = np.zeros(len(x))
    net_values(net, enc, len(x), out)
    return out


def _rows(rng, n):
    """Made-up encoded positions: mostly zeros, some ones, some counts (as encoding.py's)."""
    x = np.where(rng.random((n, N_INPUTS)) < 0.2, rng.integers(1, 4, (n, N_INPUTS)) / 2, 0.0)
    x[:, 7] = 1.0  # an input every position has: its spread is 0
    return x


# --- the network ------------------------------------------------------------------------------
def test_a_packed_perceptron_gives_scikit_learns_prediction_in_the_kernel():
    from sklearn.neural_network import MLPRegressor

    rng = np.random.default_rng(1)
    x = _rows(rng, 400)
    t = x[:, 3] * x[:, 5] - x[:, 10] + rng.normal(scale=0.1, size=len(x))
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    for hidden in ((16,), (16, 8)):
        model = MLPRegressor(hidden_layer_sizes=hidden, max_iter=50, random_state=0).fit((x - mean) / scale, t)
        net = pack(list(zip(model.coefs_, model.intercepts_)), [1.0], mean, scale)
        expected = model.predict((x - mean) / scale)
        # every option reached from the first by the inputs that differ, as in one decision
        for lo in range(0, 40, 8):
            np.testing.assert_allclose(_values(net, x[lo:lo + 8]), expected[lo:lo + 8],
                                       rtol=1e-4, atol=1e-4)


def test_the_ridge_fit_is_scikit_learns_ridge_on_the_standardised_inputs():
    from sklearn.linear_model import Ridge

    from coltsim.learn.fit import HELD_OUT

    rng = np.random.default_rng(2)
    x = _rows(rng, 3000).astype(np.float32)
    y = np.zeros((len(x), Y_N), np.float32)
    y[:, 0] = x @ rng.normal(size=N_INPUTS) + rng.normal(scale=2.0, size=len(x))
    meta = np.zeros((len(x), M_N), np.int32)
    meta[:, M_GAME] = np.arange(len(x)) // 10
    result = fit(x, meta, y, margin=0.0, alpha=3.0, seed=5)
    # the same held-out games and standardisation (every training row: fewer than a block)
    games = np.unique(meta[:, M_GAME])
    held = np.random.default_rng(5).choice(games, size=len(games) // HELD_OUT, replace=False)
    train_rows = ~np.isin(meta[:, M_GAME], held)
    assert result.rows == train_rows.sum() and result.rows + result.held_out == len(x)
    x64 = x.astype(np.float64)
    mean, scale = x64[train_rows].mean(axis=0), x64[train_rows].std(axis=0)
    scale[scale < 1e-6] = 1.0
    oracle = Ridge(alpha=3.0).fit((x64[train_rows] - mean) / scale, targets(y, 0.0)[train_rows])
    np.testing.assert_allclose(_values(result.net, x64[:50]),
                               oracle.predict((x64[:50] - mean) / scale), rtol=1e-3, atol=1e-3)


def test_a_weights_file_is_refused_when_damaged_or_made_for_another_encoding(tmp_path):
    import io

    rng = np.random.default_rng(3)
    net = pack([(rng.normal(size=(N_INPUTS, 1)), [0.5])], [1.0])
    save_net(tmp_path / "w.npz", net, {"about": "test"})
    loaded, about = load_net(tmp_path / "w.npz")
    assert np.array_equal(loaded, net) and about["sha256"] == net_hash(net)
    other = pack([(rng.normal(size=(N_INPUTS - 1, 1)), [0.5])], [1.0])
    (tmp_path / "other.npz").write_bytes(net_bytes(other, {}))
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    tampered = net.copy()
    tampered[20] += 1e-3
    buf = io.BytesIO()
    np.savez(buf, net=tampered, about=np.array(json.dumps(about)))
    (tmp_path / "tampered.npz").write_bytes(buf.getvalue())
    for name, words in (("other.npz", "another encoding"), ("missing.npz", "No such file"),
                        ("junk.npz", "not a weights file"), ("tampered.npz", "hash")):
        with pytest.raises(ValueError, match=words) as e:
            load_net(tmp_path / name)
        assert name in str(e.value) and "\n" not in str(e.value)
    assert read_net_bytes(net_bytes(net, {}), "x")[1]["sha256"] == net_hash(net)


def test_the_shipped_network_is_the_one_its_file_records():
    net, about = load_net(NET_FILE)
    assert about["sha256"] == net_hash(net) and about["inputs"] == N_INPUTS
    for key in ("trained_by", "commit", "config", "iteration", "history", "against_planners",
                "selected_on", "reported_on"):
        assert key in about, key
    assert about["selected_on"]["seed"] != about["reported_on"]["seed"]
    assert np.array_equal(shipped_net(), net)


def test_every_input_is_named():
    names = input_names()
    assert len(names) == N_INPUTS == len(set(names))


@pytest.mark.parametrize("players", [2, 4])
def test_the_encoding_marks_the_players_own_bandits(players):
    """``mine``: the first slot (the player's first bandit) at every count, and in the
    two-player game the second too (the team's other bandit); the other slots are not."""
    from coltsim.engine.flow import advance
    from coltsim.engine.setup import setup_game
    from coltsim.engine.state import G_PEND_PLAYER, N_SCRATCH, init_table, new_states
    from coltsim.policies.encoding import BUF_W, X_MINE, encode

    states = new_states(1 + N_SCRATCH)
    rules = Rules(advanced=players == 2).to_array()
    bandits = 4 if players == 2 else players
    init_table(states[0], players, rules, np.zeros(players, np.int64),
               np.zeros((players, 16)))
    setup_game(states[0], 11, 0, np.full(bandits, -1, np.int64))
    advance(states[0])
    st = states[0]
    out = np.zeros(ENCODE_W)
    encode(st, st, st.game[G_PEND_PLAYER], -1, 0, out, np.zeros(BUF_W, np.int64))
    own = 2 if players == 2 else 1
    assert list(out[X_MINE:X_MINE + 6]) == [1.0] * own + [0.0] * (6 - own)


def test_a_seat_plays_the_weights_file_it_names(tmp_path):
    rng = np.random.default_rng(4)
    net = pack([(rng.normal(size=(N_INPUTS, 1)), [0.0])], [1.0])
    save_net(tmp_path / "mine.npz", net, {})
    seats = resolve_policies(4, ["learned", "planner", "learned", "ismcts"],
                             {"learned": {"weights": str(tmp_path / "mine.npz")},
                              "ismcts": {"budget": 4, "opponents": "learned"}})
    assert np.array_equal(seats.nets[0, :net.size], net)
    assert np.array_equal(seats.nets[2, :net.size], net)
    assert not seats.nets[1].any()  # the planner needs no network
    shipped = table([shipped_net()], 1)[0]  # (its subnormal weights read as 0)
    assert np.array_equal(seats.nets[3, :shipped.size], shipped)  # its models'
    with pytest.raises(ValueError, match="weights"):
        resolve_policies(4, "learned", {"learned": {"weights": str(tmp_path / "none.npz")}})


# --- the recorder ----------------------------------------------------------------------------
def _record(first, games, cap=4000, share=0.2, explore=0.0, policies="planner", teacher=None):
    s = make_setting(4, policies=policies)
    seats = resolve_policies(4, policies)
    out_b = np.zeros((games, 4, RB_N), np.int32)
    out_g = np.zeros((games, RG_N), np.int32)
    rec = new_recorder(cap, share, explore, teacher=teacher)
    batch_kernel(seats.choosers)(new_kernel_states(), 9, first, s.lineups(), seats.seat_policy,
                                 seats.params, seats.nets, Rules().to_array(), out_b, out_g,
                                 rec=rec)
    rows = rec[4][0]
    return out_b, rec[0][:rows], rec[1][:rows], rec[2][:rows], rec[4]


def test_recorded_rows_depend_only_on_the_seed_and_the_games():
    whole = _record(0, 12)
    halves = [_record(0, 5), _record(5, 7)]
    for i in (1, 2, 3):
        assert np.array_equal(whole[i], np.concatenate([h[i] for h in halves]))
    assert len(whole[1]) > 50
    # recording without exploring plays the games as they play unrecorded
    s = make_setting(4, policies="planner")
    seats = resolve_policies(4, "planner")
    out_b = np.zeros((12, 4, RB_N), np.int32)
    batch_kernel(seats.choosers)(new_kernel_states(), 9, 0, s.lineups(), seats.seat_policy,
                                 seats.params, seats.nets, Rules().to_array(), out_b,
                                 np.zeros((12, RG_N), np.int32))
    assert np.array_equal(out_b, whole[0])
    # the outcome labels: a victory share and a score lead, the winner's lead >= 0
    y = whole[3]
    assert set(np.unique(y[:, 0])) <= {0.0, 0.5, 1.0 / 3, 0.25, 1.0}
    assert (y[y[:, 0] == 1.0, 1] >= 0).all()


def test_a_full_recorder_says_so_and_exploring_changes_the_games():
    *_, count = _record(0, 12, cap=10)
    assert count[1] == 1 and count[0] == 10
    explored = _record(0, 12, explore=1.0)
    assert explored[2][:, 5].all()  # every row explored
    assert not np.array_equal(explored[0], _record(0, 12)[0])


def _teacher(budget=16):
    return teacher_params(4, budget), shipped_net()


def test_a_search_labels_every_option_of_a_decision_and_the_games_play_on_unchanged():
    out_b, x, meta, y, count = _record(0, 6, cap=20000, share=0.3, teacher=_teacher())
    starts = np.flatnonzero(meta[:, M_OPTION] == 0)
    assert len(starts) > 20 and count[1] == 0
    for a, b in zip(starts, np.append(starts[1:], len(meta))):
        n = meta[a, M_OPTIONS]  # one row per option, in the options' order
        assert b - a == n and list(meta[a:b, M_OPTION]) == list(range(n))
        assert (meta[a:b, M_GAME] == meta[a, M_GAME]).all()
        # sequential halving over every option: each played, the playouts about the budget
        assert (y[a:b, Y_VISITS] >= 1).all() and y[a:b, Y_VISITS].sum() >= min(16, n)
        assert np.isfinite(y[a:b, Y_MEAN]).all()
    assert len(np.unique(x[starts], axis=0)) > 1
    # the seat's own choices are played: the games are those unrecorded
    assert np.array_equal(out_b, _record(0, 6, share=0.0)[0])
    # and the labels depend only on the seed and the games
    again = _record(0, 6, cap=20000, share=0.3, teacher=_teacher())
    assert np.array_equal(again[3], y) and np.array_equal(again[1], x)


def _decisions(rng, decisions, w, noise=0.0):
    """Made-up decisions of 2 to 6 options whose teacher values are ``x @ w`` (plus noise)."""
    sizes = rng.integers(2, 7, decisions)
    x = _rows(rng, int(sizes.sum())).astype(np.float32)
    meta = np.zeros((len(x), M_N), np.int32)
    meta[:, M_OPTION] = np.concatenate([np.arange(k) for k in sizes])
    meta[:, M_OPTIONS] = np.repeat(sizes, sizes)
    meta[:, M_GAME] = np.repeat(np.arange(decisions) // 3, sizes)
    y = np.zeros((len(x), Y_N), np.float32)
    y[:, Y_MEAN] = x @ w + noise * rng.normal(size=len(x))
    y[:, Y_VISITS] = 8
    return x, meta, y


def _kernel_agreement(net, x, meta, y, decisions=300):
    """The share of the first decisions where the kernel's network (net.net_values) chooses
    the option of the best teacher value."""
    starts = np.flatnonzero(meta[:, M_OPTION] == 0)[:decisions]
    return np.mean([np.argmax(_values(net, x[a:a + meta[a, M_OPTIONS]]))
                    == np.argmax(y[a:a + meta[a, M_OPTIONS], Y_MEAN]) for a in starts])


def test_fitting_the_options_of_decisions_learns_the_teachers_choice():
    rng = np.random.default_rng(5)
    x, meta, y = _decisions(rng, 6000, rng.normal(0, 0.05, N_INPUTS))
    result = fit_options(x, meta, y, epochs=20, seed=1)  # a linear value: the true model
    assert result.agree > 0.95 and result.regret < 0.002
    assert result.r2 > 0.7  # a value still: ismcts's leaf reads it
    assert _kernel_agreement(result.net, x, meta, y) > 0.95  # the kernel plays the fit
    # a perceptron learns it too
    assert fit_options(x, meta, y, hidden=(16, 8), epochs=10, seed=1).agree > 0.45  # chance 0.3


def test_the_kernel_plays_the_perceptron_the_fit_packs():
    """fit_options packs its perceptron with the inputs' standardisation folded in: the
    kernel's value of a raw encoding is the perceptron's of the standardised one."""
    rng = np.random.default_rng(8)
    model = _Perceptron((N_INPUTS, 16, 8, 1), rng)
    x = _rows(rng, 40)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0  # (as the fit: an input that never changes is not scaled)
    expected = model.forward(((x - mean) / scale).astype(np.float32))[-1][:, 0]
    got = _values(pack(model.layers(), [1.0], mean, scale), x)
    assert np.allclose(got, expected, rtol=1e-3, atol=1e-3)


def test_the_perceptrons_gradients_are_the_derivatives_of_its_output():
    rng = np.random.default_rng(2)
    model = _Perceptron((5, 4, 3, 1), rng)
    model.params = [p.astype(np.float64) for p in model.params]
    x = rng.normal(size=(7, 5))
    weight = rng.normal(size=7)  # the loss: sum of weight x output
    grads = model.gradients(model.forward(x), weight)
    for k, p in enumerate(model.params):
        for index in list(np.ndindex(p.shape))[:6]:
            keep = p[index]
            p[index] = keep + 1e-6
            up = weight @ model.forward(x)[-1][:, 0]
            p[index] = keep - 1e-6
            down = weight @ model.forward(x)[-1][:, 0]
            p[index] = keep
            assert grads[k][index] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-6)


def test_a_mixed_training_plays_every_player_count_as_often_and_every_rule_change(tmp_path):
    config = TrainConfig(seed=3, mix=True, teacher=8)
    t = Trainer(config, None, 1, "loky", None, False, print)
    tables = {k: [t.table_of(k, c) for c in range(20)] for k in (1, 2)}
    assert tables == {k: [t.table_of(k, c) for c in range(20)] for k in (1, 2)}
    changes = {(name, v) for name, values in MIX_RULES for v in values}
    for k, at in tables.items():
        assert Counter(p for p, _ in at) == {p: 4 for p in MIX_PLAYERS}
        assert Counter(bool(r) for _, r in at) == {True: 10, False: 10}
        drawn = [next(iter(r.items())) for _, r in at if r]
        assert len(set(drawn)) == 10 and set(drawn) <= changes
    both = {next(iter(r.items())) for at in tables.values() for _, r in at if r}
    assert both == changes  # two iterations: every change
    for players, rules in tables[1] + tables[2]:
        make_setting(players, rules=rules)  # every table is one coltsim plays


@pytest.mark.parametrize("players", [2, 3])
def test_a_trainings_match_credits_each_seat_with_its_own_teams_victory(players):
    """Each seat's victory share per deal, as a training's match counts it: the shares of a
    deal sum to 1 (a victory shared by m teams counts 1/m), and in the two-player game (two
    bandits a seat: bandits 0 and 1 are seat 0's) each seat is credited with its own team's."""
    t = Trainer(TrainConfig(seed=3), None, 1, "loky", None, False, print)
    job = t.job(["planner", "random", "random"][:players], [None] * players, at=(players, {}))
    wins = play_chunk(job, 0, 0, 40)[4][0]
    assert wins.shape == (40, players) and np.allclose(wins.sum(axis=1), 1)
    assert wins[:, 0].mean() > 1 / players  # the planner wins more than random seats


def test_a_training_may_start_from_a_weights_file_named_in_its_identity(tmp_path):
    weights = tmp_path / "w.npz"
    save_net(weights, shipped_net(), {"about": "a copy"})
    config = TrainConfig(start=str(weights))
    assert np.array_equal(config.check().start_net(), shipped_net())
    assert config.identity()["start_sha256"] == net_hash(shipped_net())
    assert "start_sha256" not in TrainConfig(start="learned").identity()


# --- coltsim train ---------------------------------------------------------------------------
TINY = TrainConfig(seed=3, iterations=2, games=60, share=0.5, match_deals=3, report_deals=3)


@pytest.mark.slow  # trainings compile the learned player's recording kernels
def test_a_training_writes_a_player_and_resumes_without_playing_again(tmp_path):
    lines = []
    about = train(tmp_path / "t", TINY, workers=1, progress=False, say=lines.append)
    net, saved = load_net(tmp_path / "t" / "weights.npz")
    assert saved["config"] == TINY.as_dict() and saved["iteration"] in (1, 2)
    assert saved["history"][0]["positions"] > 0 and about["sha256"] == net_hash(net)
    assert "weights = " in lines[-1]
    again = train(tmp_path / "t", TINY, workers=1, progress=False, say=lambda s: None)
    assert again["history"] == about["history"]
    # the same seed, another folder, two workers: the same player
    train(tmp_path / "u", TINY, workers=2, progress=False, say=lambda s: None)
    assert np.array_equal(load_net(tmp_path / "u" / "weights.npz")[0], net)


@pytest.mark.slow  # trainings compile the learned player's recording kernels
def test_a_mixed_training_by_a_search_writes_a_player_matched_at_every_table(tmp_path):
    """coltsim train --mix --teacher N: chunks at drawn tables, labelled by the search, fitted
    on options; each iteration matched at the six tables; a rerun reads what is done."""
    config = TrainConfig(seed=3, iterations=1, games=4100, share=0.05, mix=True, teacher=4,
                         hidden=(8,), match_deals=2, report_deals=2)
    about = train(tmp_path / "t", config, workers=2, progress=False, say=lambda s: None)
    (iteration,) = about["history"]
    assert iteration["fit"]["agree"] > 0 and iteration["positions"] > 1000
    assert [(t["players"], t["rules"]) for t in iteration["planner"]["tables"]] == \
        [(p, r) for p, r in MIX_MATCHES]
    assert about["config"]["teacher"] == 4 and about["config"]["mix"]
    again = train(tmp_path / "t", config, workers=1, progress=False, say=lambda s: None)
    assert again["history"] == about["history"] and again["sha256"] == about["sha256"]


@pytest.mark.slow  # trainings compile the learned player's recording kernels
def test_a_training_folder_refuses_another_configuration_in_one_line(tmp_path, capsys):
    train(tmp_path / "t", TINY, workers=1, progress=False, say=lambda s: None)
    code = main(["train", str(tmp_path / "t"), "--seed", "4", "--games", "60",
                 "--iterations", "2", "--share", "0.5", "--match-deals", "3",
                 "--report-deals", "3", "--workers", "1", "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "seed" in err[0], err


def test_train_refuses_bad_options_in_one_line(tmp_path, capsys):
    for flags, words in ((["--hidden", "64,x"], "--hidden"), (["--share", "0"], "share"),
                         (["--teacher", "-3"], "teacher"), (["--mix", "--players", "5"], "mix"),
                         (["--start", "ismcts"], "start"), (["--players", "7"], "players"),
                         (["--start", str(tmp_path / "none.npz")], "start"),
                         (["--hidden", "999"], "hidden")):
        code = main(["train", str(tmp_path / "x"), *flags, "--quiet"])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and words in err[0], (flags, err)
    assert not (tmp_path / "x" / "manifest.json").exists()


def test_the_network_table_pads_rows():
    a = np.ones(5, np.float32)
    t = table([a, None, np.ones(3, np.float32)], 4)
    assert t.shape == (4, 5) and t[1].sum() == 0 and t[2, 3:].sum() == 0


@pytest.mark.slow  # trainings compile the learned player's recording kernels
def test_the_learning_curves_benchmark_fits_and_plays_a_trainings_positions(tmp_path):
    """benchmarks/learning_curves.py on a tiny training: one line per model and size, the
    playable models with a share in [0, 1], the trees with their held-out fit only."""
    import subprocess
    import sys
    from pathlib import Path

    train(tmp_path / "t", TINY, workers=1, progress=False, say=lambda s: None)
    out = tmp_path / "curves.jsonl"
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "learning_curves.py"
    subprocess.run([sys.executable, str(script), str(tmp_path / "t"), "--sizes", "200,100000",
                    "--models", "linear,trees", "--deals", "3", "--workers", "1", "--out",
                    str(out), "--figure", str(tmp_path / "curves.png")], check=True,
                   capture_output=True)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [p["model"] for p in lines] == ["linear", "linear", "trees", "trees"]
    assert lines[0]["positions"] < lines[1]["positions"] == lines[3]["positions"]
    assert all(0 <= p["share"] <= 1 and p["lo"] <= p["share"] <= p["hi"]
               for p in lines if p["model"] == "linear")
    assert all("share" not in p and p["r2"] < 1 for p in lines if p["model"] == "trees")
    assert (tmp_path / "curves.png").stat().st_size > 10_000


@pytest.mark.slow  # trainings compile the learned player's recording kernels
def test_the_learning_curves_of_a_training_by_a_search_fit_options_per_shape(tmp_path):
    """benchmarks/learning_curves.py on a tiny mixed training by a search: one line per shape
    and size, with the held-out agreement and regret and a share at every matched table."""
    import subprocess
    import sys
    from pathlib import Path

    config = TrainConfig(seed=3, iterations=1, games=100, share=0.2, mix=True, teacher=4,
                         hidden=(8,), epochs=2, match_deals=2, report_deals=2)
    train(tmp_path / "t", config, workers=1, progress=False, say=lambda s: None)
    out = tmp_path / "curves.jsonl"
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "learning_curves.py"
    subprocess.run([sys.executable, str(script), str(tmp_path / "t"), "--sizes", "300,100000",
                    "--hidden", "8;4,4", "--deals", "2", "--workers", "1", "--out", str(out),
                    "--figure", str(tmp_path / "curves.png")], check=True, capture_output=True)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [p["hidden"] for p in lines] == [[8], [8], [4, 4], [4, 4]]
    assert lines[0]["positions"] < lines[1]["positions"] == lines[3]["positions"]
    assert all(0 <= p["agree"] <= 1 and p["regret"] >= 0 for p in lines)
    assert all([(t["players"], t["rules"]) for t in p["tables"]] == list(MIX_MATCHES)
               for p in lines)
    assert (tmp_path / "curves.png").stat().st_size > 10_000
    # the same folder's decisions pooled into a network, and its regret table by table
    bench = script.parent
    pooled = tmp_path / "pooled.npz"
    subprocess.run([sys.executable, str(bench / "fit_pooled.py"), f"{tmp_path / 't'}:1",
                    f"{tmp_path / 't'}:1", "--out", str(pooled), "--hidden", "4", "--epochs", "1"],
                   check=True, capture_output=True)
    assert load_net(pooled)[1]["sources"] == [f"{tmp_path / 't'}:1"] * 2
    regrets = subprocess.run([sys.executable, str(bench / "regret_by_table.py"),
                              str(tmp_path / "t"), "1", str(pooled), "--by-round"],
                             check=True, capture_output=True, text=True).stdout
    assert regrets.startswith("chunk   0: 2 players") and "pooled.npz agreement" in regrets
    assert "| round 1: agreement" in regrets and "of the regret" in regrets
    # an ensemble of two networks as one, and one network distilled from it on those decisions
    nets = [NET_FILE, bench / "results" / "nets" / "980e59570475.npz"]
    ensemble, distilled = tmp_path / "ensemble.npz", tmp_path / "distilled.npz"
    subprocess.run([sys.executable, str(bench / "distill.py"), "--nets", *map(str, nets),
                    "--merged", str(ensemble)], check=True, capture_output=True)
    x = _rows(np.random.default_rng(5), 200)
    mean = np.mean([_values(table([load_net(p)[0]], 1)[0], x) for p in nets], axis=0)
    assert np.allclose(_values(table([load_net(ensemble)[0]], 1)[0], x), mean, atol=1e-4)
    subprocess.run([sys.executable, str(bench / "distill.py"), f"{tmp_path / 't'}:1", "--nets",
                    *map(str, nets), "--out", str(distilled), "--hidden", "4", "--epochs", "1"],
                   check=True, capture_output=True)
    assert load_net(distilled)[1]["nets"] == [load_net(p)[1]["sha256"] for p in nets]
    # a training at one table: its last round's decisions fitted alone, beside the shipped network
    one = TrainConfig(seed=3, players=3, iterations=1, games=2100, share=0.05, teacher=4,
                      hidden=(8,), epochs=1, match_deals=2, report_deals=2)
    train(tmp_path / "one", one, workers=1, progress=False, say=lambda s: None)
    last = subprocess.run([sys.executable, str(bench / "last_round.py"), str(tmp_path / "one"),
                           "--train", "1", "--test", "1", "--epochs", "1"],
                          check=True, capture_output=True, text=True).stdout
    assert "shipped network: " in last and "fitted on the last round alone: " in last
    # its first chunk only (--games): the decisions of the first 2,000 games
    first = tmp_path / "first.npz"
    subprocess.run([sys.executable, str(bench / "fit_pooled.py"), f"{tmp_path / 'one'}:1",
                    "--games", "2000", "--out", str(first), "--hidden", "4", "--epochs", "1"],
                   check=True, capture_output=True)
    rows = [len(np.load(tmp_path / "one" / "iter-01" / f"chunk-0000{c}.npz")["meta"])
            for c in (0, 1)]
    fit = load_net(first)[1]["fit"]
    assert fit["rows"] + fit["held_out"] == rows[0] < rows[0] + rows[1]
