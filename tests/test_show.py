"""`coltsim show` for people, `show -` from a pipe, and `trace --from` replaying a run's game."""
import io
import json
import re
from pathlib import Path

import pytest

from coltsim.cli import main
from coltsim.setting import DEFAULT_POLICY
from coltsim.traces.show import render
from coltsim.traces.tracecheck import read_trace
from coltsim.words import dollars

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.jsonl"))
# What a person should never have to decode: seat numbers, parameter dumps, Python values,
# snake_case card names, "1 tokens".
RAW = [r"\bplayer \d", r"\w+=", r"\bNone\b", r"\bTrue\b", r"\bFalse\b", r"\btoken\b",
       r"\b[a-z]+_[a-z_]+\b", r"\b1 (tokens|cards|purses|jewels|bullets)\b", r"\bcar \d"]


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_show_tells_a_game_without_internals(path):
    lines = read_trace(path)
    text = render(lines)
    for pattern in RAW:
        found = re.findall(pattern, text)
        assert not found, (pattern, found[:3])
    setup = lines[0]
    for name in setup["bandits"]:
        assert name.title() in text
    # Every car is named by its letter, and only the train's cars are named.
    letters = set(setup["cars"][1:])
    assert set(re.findall(r"\bcar ([A-F])\b", text)) <= letters
    # Every turn letter shown is explained on the same line.
    for line in text.splitlines():
        if line.startswith("Turns: "):
            shown = set(line.split("(")[0].split()[1:])
            assert all(f"{t} " in line.split("(", 1)[1] for t in shown), line


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_show_names_the_loot_and_the_targets_the_trace_records(path):
    lines = read_trace(path)
    names = [b.title() for b in lines[0]["bandits"]]
    loot = {t["id"]: f"{dollars(t['value'])} {t['kind']}" for t in lines[0]["loot"]}
    text = render(lines)
    expected = []
    for line in lines:
        if line["type"] != "action":
            continue
        who, params = names[line["bandit"]], line["params"]
        if line["card"] == "rob" and params["token"] is not None:
            expected.append(f"{who}'s Robbery: takes a {loot[params['token']]}")
        elif line["card"] == "fire" and params["target"] is not None:
            expected.append(f"{who}'s Fire: fires at {names[params['target']]}")
        elif line["card"] == "punch" and params["dropped"] is not None:
            expected.append(f"{who}'s Punch: punches {names[params['target']]}")
            expected.append(loot[params["dropped"]])
    assert expected
    at = 0
    for piece in expected:  # in the order they happened
        at = text.index(piece, at)
    winners = [names[b] for b in lines[-1]["winners"]]
    assert all(re.search(rf"{w}\b.*wins", text) for w in winners)


def test_show_reads_a_pipe(monkeypatch, capsys):
    text = GOLDEN[0].read_text()
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["show", "-"]) == 0
    assert capsys.readouterr().out.strip() == render(read_trace(GOLDEN[0])).strip()
    monkeypatch.setattr("sys.stdin", io.StringIO("not json\n"))
    assert main(["show", "-"]) == 2
    assert "<stdin>: line 1: not a JSON object" in capsys.readouterr().err


def test_trace_plays_the_default_policy_and_help_says_so(capsys):
    assert main(["trace", "--seed", "2"]) == 0
    setup = json.loads(capsys.readouterr().out.splitlines()[0])
    assert setup["policies"] == [DEFAULT_POLICY] * 4
    for command in ("trace", "show"):
        assert main([command, "--help"]) == 0
        out = capsys.readouterr().out
        if command == "trace":
            assert f"(default {DEFAULT_POLICY})" in " ".join(out.split())
            for flag in ("--players", "--seed", "--game", "--setting", "--out"):
                assert re.search(rf"{flag} \S+\s+.*\(default", out, re.S), flag
        else:
            assert "- to read standard input" in out


def _trace(argv, capsys):
    """The trace and what the command said on stderr, a compile notice left out (it depends on
    what earlier tests compiled)."""
    assert main(["trace"] + argv) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    said = [line for line in captured.err.splitlines(True) if not line.startswith("compiling ")]
    return captured.out, "".join(said)


def test_trace_from_a_run_replays_its_game(tmp_path, capsys):
    folder = tmp_path / "run"
    flags = ["--players", "5", "--policies", "greedy", "--rules", '{"gunslinger_bonus": 500}',
             "--params", '{"greedy": {}}']
    assert main(["simulate", "--games", "40", "--seed", "11", "--out", str(folder),
                 "--workers", "1", "--quiet", "--chunk-size", "16"] + flags) == 0
    replayed, note = _trace(["--from", str(folder), "--game", "37"], capsys)
    direct, _ = _trace(["--seed", "11", "--game", "37"] + flags, capsys)
    assert replayed == direct and note == ""
    # The run's record of that game is checked: a manifest that lies gives another game, named.
    manifest = json.loads((folder / "manifest.json").read_text())
    entry = next(iter(manifest["settings"].values()))
    entry["seed"] = 12
    (folder / "manifest.json").write_text(json.dumps(manifest))
    _, note = _trace(["--from", str(folder), "--game", "37"], capsys)
    assert "differs from the run's record of game 37" in note


def test_trace_from_a_report_picks_a_setting_by_label(tmp_path, capsys):
    toml = tmp_path / "two.toml"
    toml.write_text('name = "two"\nseed = 5\ngames = 30\nanalyses = ["balance"]\n'
                    '[[settings]]\nlabel = "printed rules"\nplayers = 3\n'
                    '[[settings]]\nlabel = "no bonus"\nplayers = 3\n'
                    'rules = { gunslinger_bonus = 0 }\n')
    out = tmp_path / "report"
    assert main(["run", str(toml), "--out", str(out), "--quiet", "--workers", "1"]) == 0
    assert main(["trace", "--from", str(out), "--game", "3"]) == 2
    err = capsys.readouterr().err
    assert "name one with --setting (an id or a name)" in err and "('no bonus')" in err
    replayed, note = _trace(["--from", str(out), "--game", "3", "--setting", "no bonus"], capsys)
    direct, _ = _trace(["--players", "3", "--seed", "5", "--game", "3", "--rules",
                        '{"gunslinger_bonus": 0}'], capsys)
    assert replayed == direct and note == ""


QUICKSTART = Path(__file__).parents[1] / "reports" / "quickstart"


def test_trace_from_a_report_takes_the_name_the_report_gives_a_setting(capsys):
    """The quickstart's one setting has no label of its own: its report names it "printed
    rules", and so does --setting; an unknown name is refused listing ids and names."""
    replayed, _ = _trace(["--from", str(QUICKSTART), "--game", "5", "--setting",
                          "printed rules"], capsys)
    direct, _ = _trace(["--players", "4", "--seed", "1", "--game", "5"], capsys)
    assert replayed == direct and '"type": "setup"' in replayed
    by_id, _ = _trace(["--from", str(QUICKSTART), "--game", "5", "--setting",
                       "p4-learned-1dc804"], capsys)
    assert by_id == direct
    assert main(["trace", "--from", str(QUICKSTART), "--setting", "printed"]) == 2
    err = capsys.readouterr().err
    assert "no setting 'printed' in" in err and \
        "allowed (an id or a name): p4-learned-1dc804 ('printed rules')" in err


@pytest.mark.parametrize("argv, message", [
    (["--from", "/nonexistent"], "from: /nonexistent holds no manifest.json"),
    (["--setting", "x"], "--setting names a setting of a run: use it with --from"),
])
def test_trace_from_bad_input_is_one_line(argv, message, capsys):
    assert main(["trace"] + argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_every_event_is_told_in_words(path):
    """Each event line of the six golden traces is followed by what it did, or by "it affects
    nobody", never straight by the drawing; a move it made and the Marshal's are stated."""
    lines = read_trace(path)
    names = [b.title() for b in lines[0]["bandits"]]
    text = render(lines).splitlines()
    events = [i for i, line in enumerate(text) if line.startswith("Event: ")]
    assert len(events) == sum(line["type"] == "event" for line in lines)
    for i in events:
        assert text[i + 1].startswith("  ") and text[i + 1].strip(), text[i:i + 2]
    before = lines[0]["state"]
    told = iter(events)
    for line in lines[1:]:
        if line["type"] == "event":
            words = text[next(told):][:12]
            after = line["state"]
            if before["marshal"] != after["marshal"]:
                assert any(w.startswith("  the Marshal moves from") for w in words)
            for b, (was, now) in enumerate(zip(before["bandits"], after["bandits"])):
                if was["car"] != now["car"]:
                    assert any(w.startswith(f"  {names[b]} moves from") for w in words)
        if "state" in line:
            before = line["state"]


@pytest.mark.parametrize("path", GOLDEN[:2], ids=[p.stem for p in GOLDEN[:2]])
def test_the_train_is_drawn_when_someone_moves_or_after_every_card(path):
    def where(state):
        return [(b["car"], b["level"]) for b in state["bandits"]] + [state["marshal"]]

    lines = read_trace(path)
    steps = moved = 0
    before = lines[0]["state"]
    for line in lines[1:]:
        if line["type"] in ("action", "event"):
            steps += 1
            moved += where(line["state"]) != where(before)
            before = line["state"]
    drawings = render(lines).count("\nroof ")
    assert 1 + moved <= drawings <= 2 + moved < 1 + steps
    assert render(lines, every_card=True).count("\nroof ") == 1 + steps


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_the_end_never_repeats_a_number(path):
    text = render(read_trace(path))
    assert not re.search(r"(\$[\d,]+) = \1\b", text)
    bonus = [s for s in read_trace(path)[-1]["scores"] if s.get("gunslinger") and s["bonus"]]
    for s in bonus:
        assert f"(loot {dollars(s['loot'])} + Gunslinger {dollars(s['bonus'])})" in text
    assert "bullet card from" in text  # a shot says it gave a bullet card


def test_the_end_names_how_a_tie_on_the_score_was_broken():
    """Two players tied on the score get different ranks only by the tie-break (fewer bullet
    cards received, RULES.md 9), and the end says so; as many bullet cards share the rank."""
    lines = read_trace(GOLDEN[[p.stem for p in GOLDEN].index("p4_advanced_seed5")])
    text = render(lines)
    assert "rank 3 (tied on $500: ahead of Ghost on the tie-break, 3 bullet cards received " \
           "against 8)" in text
    assert "rank 4 (tied on $500: behind Doc on the tie-break, 8 bullet cards received " \
           "against 3)" in text
    end = lines[-1]
    for s in end["scores"]:  # as many bullet cards: the same rank, named as shared
        s["score"], s["bullets_received"], s["neutral_received"], s["rank"] = 900, 2, 0, 1
        s["win"] = True
    end["winners"] = [0, 1, 2, 3]
    assert "rank 1, wins (shared) (tied on $900: sharing the rank with Tuco, Doc and Belle: " \
           "as many bullet cards received)" in render(lines)
