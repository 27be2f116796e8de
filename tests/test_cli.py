"""The command line: traces, rendering, and one-line errors with exit status 2."""
import json

import pytest

from coltsim.cli import main


def test_trace_to_file_and_show(tmp_path, capsys):
    out = tmp_path / "game.jsonl"
    assert main(["trace", "--players", "4", "--seed", "7", "--lineup", "ghost,belle,tuco,doc",
                 "--out", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["type"] == "setup" and lines[-1]["type"] == "end"
    assert lines[0]["bandits"] == ["ghost", "belle", "tuco", "doc"]
    assert main(["show", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Round 1" in text and "=== End ===" in text and "loco" in text


def test_trace_to_stdout_is_the_same_game(tmp_path, capsys):
    out = tmp_path / "game.jsonl"
    main(["trace", "--seed", "3", "--out", str(out)])
    capsys.readouterr()
    main(["trace", "--seed", "3"])
    assert capsys.readouterr().out == out.read_text()


@pytest.mark.parametrize("argv, message", [
    (["trace", "--players", "7"], "players: 7 is not a player count; allowed: 2, 3, 4, 5, 6"),
    (["trace", "--lineup", "ghost,ghost,tuco,doc"], "lineup: 'ghost' is listed twice"),
    (["trace", "--lineup", "ghost,zorro,tuco,doc"], "unknown bandit 'zorro'; allowed: ghost"),
    (["trace", "--lineup", "ghost,belle"], "lineup: must name 4 bandits"),
    (["trace", "--seed", "-1"], "seed: must be an integer from 0"),
    (["trace", "--policies", "clever"], "policies: unknown policy 'clever'; allowed: random"),
    (["trace", "--rules", '{"rounds": 0}'], "rule option rounds must be in 1..8"),
    (["trace", "--rules", '{"speed": 3}'], "unknown rule option 'speed'"),
    (["trace", "--rules", '{"gunslinger_bonsu": 0}'], "marshal_car, abilities_off; did you mean "
                                                       "'gunslinger_bonus'?"),
    (["trace", "--policies", "planer"], "or \"package.module:function\"; did you mean "
                                        "'planner'?"),
    (["trace", "--rules", "{oops"], "not valid JSON"),
    (["trace", "--rules", "null"], "--rules must be a JSON object"),
    (["trace", "--params", '{"greedy": {"fire": 1}}'], "params.greedy: policy 'greedy' has no "
                                                        "parameter 'fire'"),
    (["run", "experiments/quickstart.toml", "--n-jobs", "2"], "unrecognized arguments: --n-jobs"),
    (["show", "/nonexistent/game.jsonl"], "game.jsonl: cannot read the trace: No such file"),
])
def test_bad_input_is_one_line_and_status_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_run_writes_every_file_and_report_rerenders(tmp_path, capsys):
    toml = tmp_path / "tiny.toml"
    toml.write_text('name = "tiny"\ndescription = "two tiny settings"\nseed = 3\ngames = 300\n'
                    'analyses = ["balance", "compare"]\n'  # (test_report builds every section)
                    '[sweep]\nplayers = [3]\npolicies = ["random"]\n'
                    '[sweep.rules]\ngunslinger_bonus = [1000, 0]\n')
    out = tmp_path / "report"
    assert main(["run", str(toml), "--out", str(out), "--quiet", "--workers", "1"]) == 0
    for name in ("report.md", "report.html", "manifest.json", "experiment.toml"):
        assert (out / name).stat().st_size > 0, name
    figures = sorted(p.name for p in (out / "figures").glob("*.png"))
    tables = sorted(p.name for p in (out / "tables").glob("*.csv"))
    assert "balance_win_rates.png" in figures and "settings.csv" in tables
    md = (out / "report.md").read_text()
    for f in figures:
        assert f"figures/{f}" in md
    assert "Gunslinger bonus $0" in md and "Holm" in md
    (out / "report.md").unlink()
    assert main(["report", str(out)]) == 0
    assert (out / "report.md").read_text() == md


def test_run_rejects_a_bad_experiment_with_one_line(tmp_path, capsys):
    toml = tmp_path / "bad.toml"
    toml.write_text('name = "bad"\nseed = 1\ngames = 10\n[sweep]\nplayers = [7]\n')
    assert main(["run", str(toml)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "players" in err and "allowed: 2, 3, 4, 5, 6" in err


@pytest.mark.parametrize("damage", ["cut short", "flipped bytes"])
def test_a_damaged_weights_file_is_named_as_damaged(tmp_path, capsys, damage):
    """Not "a user policy cannot be played": the file named, said to be damaged (issue 38,
    6)."""
    from coltsim.policies.weights import NET_FILE

    data = bytearray(NET_FILE.read_bytes())
    if damage == "cut short":
        del data[len(data) // 2:]
    else:
        data[1000] ^= 0xFF
    weights = tmp_path / "weights.npz"
    weights.write_bytes(data)
    params = json.dumps({"learned": {"weights": str(weights)}})
    assert main(["simulate", "--games", "10", "--params", params, "--out",
                 str(tmp_path / "run"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert f"{weights}: damaged" in err and "user policy" not in err


def test_params_of_a_policy_no_seat_plays_are_refused(tmp_path, capsys):
    """As an experiment file refuses them (issue 38, 7): one line naming the flag and the
    policy, before anything is played."""
    assert main(["simulate", "--players", "4", "--policies", "greedy", "--params",
                 '{"ismcts": {"budget": 5}}', "--games", "10", "--out", str(tmp_path / "run"),
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "--params: ismcts is played by no seat (the seats play greedy)" in err
    assert not (tmp_path / "run").exists()
