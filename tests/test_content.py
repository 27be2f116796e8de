"""A designer's own content as rule options: new round cards, the decks cards are drawn from,
each car's loot and each bandit's action cards (docs/experiments.md, "Your own cards").  The
printed game is these options at their defaults, the same games (test_properties, the golden
traces and scripts/stale_reports.py hold it to that)."""
import json

import pytest

import coltsim
from coltsim import constants as K
from coltsim.cli import main
from coltsim.engine.scoring import RG_FAIL
from coltsim.rules import (
    O_DECK, O_EVENT, O_ROUND_DECK, O_ROUND_DECK_N, O_TURNS, RoundCard, Rules,
)
from coltsim.runs.fingerprint import digest
from coltsim.traces.trace import trace_game
from coltsim.traces.tracecheck import check_trace

from tests.test_properties import play

STAMPEDE = {"name": "stampede", "turns": "DNN", "turns_5_6": "DN", "event": "braking"}
DECK = ["stampede", "angry_marshal", "swivel_arm", "braking", "braking", "take_it_all",
        "passengers_rebellion", "bridge"]
VARIANT = {"new_cards": [STAMPEDE], "round_deck": DECK, "car_loot": {"B": {"jewels": 2}},
           "decks": {"django": {"fire": 4}}}


# --- the options --------------------------------------------------------------------------------
def test_the_printed_content_is_the_options_defaults():
    o = Rules().to_array()
    for card in range(K.FIRST_NEW_CARD):
        for g in range(2):
            turns = K.ROUND_TURNS[card][g]
            at = O_TURNS + (card * 2 + g) * K.MAX_TURNS
            assert list(o[at:at + len(turns)]) == list(turns)
            assert (o[at + len(turns):at + K.MAX_TURNS] == K.NO_TURN).all()
        assert o[O_EVENT + card] == (K.NO_EVENT if card in (K.TUNNEL, K.BRIDGE) else card)
    assert list(o[O_ROUND_DECK:O_ROUND_DECK + o[O_ROUND_DECK_N]]) == list(range(K.N_ROUND_CARDS))
    assert list(o[O_DECK:O_DECK + K.N_ACTION_KINDS]) == [2, 2, 2, 2, 1, 1]
    # ...and they are not recorded: a printed game's manifest and trace are as they were.
    assert not {"new_cards", "round_deck", "station_deck", "car_loot", "decks"} & set(
        Rules().as_dict())


def test_content_options_round_trip():
    rules = Rules.from_dict(VARIANT)
    assert rules.new_cards == (RoundCard(**STAMPEDE),)
    assert Rules.from_dict(json.loads(json.dumps(rules.as_dict()))) == rules
    assert rules.as_dict()["car_loot"] == {"B": {"purses": 3, "jewels": 2}}
    assert rules.as_dict()["decks"]["django"] == {"move": 2, "floor": 2, "fire": 4, "rob": 2,
                                                  "punch": 1, "marshal": 1}
    assert RoundCard("rush", "D").turns_5_6 == "D"  # (the 5-6 player turns default to the same)


@pytest.mark.parametrize("options, words", [
    ({"new_cards": [{"name": "x", "turns": "NQ"}]}, "turns must be 1 to 5 letters of N"),
    ({"new_cards": [{"name": "x", "turns": ""}]}, "turns must be 1 to 5 letters"),
    ({"new_cards": [{"name": "x"}]}, "a card needs turns"),
    ({"new_cards": [{"name": "x", "turns": "N", "event": "stampede"}]}, "unknown event 'stampede'"),
    ({"new_cards": [{"name": "tunnel", "turns": "N"}]}, "a printed card's name"),
    ({"new_cards": [{"name": "x", "turns": "N", "evnt": "braking"}]}, "did you mean 'event'"),
    ({"round_deck": ["tunel"]}, "did you mean 'tunnel'"),
    ({"round_deck": ["braking"]}, "round_deck must hold rounds - 1 = 4 to 12 cards"),
    ({"station_deck": ["braking"]}, "unknown card in station_deck 'braking'"),
    ({"car_loot": {"G": {"jewels": 1}}}, "unknown car 'G'; allowed: A, B, C, D, E, F"),
    ({"car_loot": {"A": {"jewels": -1}}}, "car_loot.A.jewels must be a whole number"),
    ({"decks": {"django": {"fyre": 3}}}, "did you mean 'fire'"),
    ({"decks": {"django": {"move": 0, "floor": 0, "fire": 0, "rob": 0, "punch": 0,
                           "marshal": 0}}}, "decks.django must hold 1 to 14 action cards"),
])
def test_a_bad_content_option_is_one_line(options, words):
    with pytest.raises(ValueError, match=words) as e:
        coltsim.make_setting(4, rules=options)
    assert "\n" not in str(e.value)


def test_content_the_table_cannot_hold_is_refused():
    with pytest.raises(ValueError, match="may hold 16 jewels; the box has 10"):
        coltsim.make_setting(4, rules={"car_loot": {c: {"jewels": 4} for c in "ABCDEF"}})
    with pytest.raises(ValueError, match="two-player game's deck is shared"):
        coltsim.make_setting(2, rules={"decks": {"django": {"fire": 4}}})


def test_an_invalid_card_in_an_experiment_file_is_one_line(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text('name = "bad"\ngames = 10\n[[settings]]\nplayers = 4\n'
                 '[[settings.rules.new_cards]]\nname = "rush"\nturns = "DX"\n')
    assert main(["run", str(f), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "turns must be 1 to 5 letters" in err


# --- the games ------------------------------------------------------------------------------------
def _traces(setting, games, seed=3):
    return [trace_game(setting, seed, g) for g in range(games)]


def test_a_new_card_is_played_with_its_turns_and_event():
    rules = {"new_cards": [STAMPEDE], "round_cards": ["stampede"] * 4, "station": "stampede"}
    for players, turns in ((4, ["D", "N", "N"]), (5, ["D", "N"])):
        lines = trace_game(coltsim.make_setting(players, policies="random", rules=rules), 1, 0)
        assert check_trace(lines) == []
        rounds = [x for x in lines if x["type"] == "round"]
        assert [x["card"] for x in rounds] == ["stampede"] * 5
        assert all(x["turns"] == turns for x in rounds)
        assert [x["name"] for x in lines if x["type"] == "event"] == ["braking"] * 5
        first = [x for x in lines if x["type"] == "plan" and x["round"] == 1 and x["turn"] == 0]
        assert len(first) == 2 * players  # a speeding-up turn: two cards each


def test_a_card_without_an_event_ends_its_round_quietly():
    rules = {"new_cards": [{"name": "lull", "turns": "NN"}], "round_cards": ["lull"] * 4}
    lines = trace_game(coltsim.make_setting(4, policies="random", rules=rules), 2, 0)
    assert check_trace(lines) == []
    assert [x["round"] for x in lines if x["type"] == "event"] == [5]  # only the station's


def test_the_round_deck_deals_its_cards_repeats_included():
    s = coltsim.make_setting(4, policies="random", rules={"new_cards": [STAMPEDE],
                                                          "round_deck": DECK})
    r = coltsim.simulate(s, 400, seed=4, workers=1, progress=False, check=True)
    rounds = r.games[[f"round_{i}" for i in range(1, 5)]].astype(str)
    seen = set(rounds.to_numpy().ravel())
    assert "tunnel" not in seen and {"stampede", "braking", "bridge"} <= seen
    assert ((rounds == "braking").sum(axis=1) == 2).any()  # the deck holds Braking twice
    assert set(r.games["station"].astype(str)) <= set(K.ROUND_CARD_NAMES[K.FIRST_STATION:])


def test_take_it_all_twice_brings_the_strongbox_once():
    s = coltsim.make_setting(4, policies="random", rules={"round_cards": ["take_it_all"] * 4})
    for lines in _traces(s, 3):
        assert check_trace(lines) == []
        tokens = [x["params"]["token"] for x in lines
                  if x["type"] == "event" and x["name"] == "take_it_all"]
        assert tokens == [K.FIRST_STRONGBOX + 1, None, None, None]


def test_a_car_holds_the_loot_it_is_given():
    rules = {"cars": ["A", "B", "C", "F"], "car_loot": {"B": {"jewels": 2, "purses": 0},
                                                        "F": {"jewels": 5}}}
    lines = trace_game(coltsim.make_setting(4, policies="random", rules=rules), 5, 0)
    assert check_trace(lines) == []
    setup = lines[0]
    kind = {x["id"]: x["kind"] for x in setup["loot"]}
    inside = {setup["cars"][c]: setup["state"]["spots"][f"{c}:inside"] for c in range(1, 5)}
    assert [kind[t] for t in inside["B"]] == ["jewel", "jewel"]
    assert sorted(kind[t] for t in inside["F"]) == ["jewel"] * 5
    assert sorted(kind[t] for t in inside["A"]) == ["purse"]
    jewels = [x for x in setup["loot"] if x["kind"] == "jewel"]
    assert len(jewels) == 1 + 2 + 5 and {x["value"] for x in jewels} == {K.JEWEL_VALUE}
    final = lines[-2]["state"]  # every token still somewhere, the extra jewels included
    placed = final["box"] + [t for ts in final["spots"].values() for t in ts] + [
        t for b in final["bandits"] for t in b["loot"]]
    assert sorted(placed) == sorted(kind)


def test_a_bandit_plays_the_deck_it_is_given():
    rules = {"decks": {"django": {"fire": 4, "punch": 0}}}
    s = coltsim.make_setting(4, lineup="django,ghost,belle,doc", policies="random", rules=rules)
    for lines in _traces(s, 3):
        assert check_trace(lines) == []
        first = next(x for x in lines if x["type"] == "round")
        assert len(first["hands"][0]) + first["deck_sizes"][0] == 11
        assert len(first["hands"][1]) + first["deck_sizes"][1] == 10
    r = coltsim.simulate(s, 300, seed=6, workers=1, progress=False, check=True)
    fires = r.players.groupby("bandit", observed=True)["fires"].mean()
    assert fires["django"] > fires.drop("django").max()


def test_every_policy_plays_the_variant():
    for policies in ("planner", "learned", ["ismcts", "learned", "learned", "learned"]):
        s = coltsim.make_setting(4, policies=policies, rules=VARIANT,
                                 params={"ismcts": {"budget": 4, "horizon": 1}})
        r = coltsim.simulate(s, 4, seed=8, workers=1, progress=False, check=True)
        assert len(r.games) == 4
        assert check_trace(trace_game(s, 8, 0)) == []


def test_ghost_both_halves_changes_games_with_a_speeding_up_first_turn():
    def games(rules):
        s = coltsim.make_setting(4, lineup="random", policies="random", rules=rules)
        return digest(coltsim.simulate(s, 200, seed=9, workers=1, progress=False), s.id, 200)

    printed = {"ghost_both_halves": True}
    assert games(printed) == games({})  # no printed card starts with a speeding-up turn
    assert games({**VARIANT, **printed}) != games(VARIANT)


def test_the_invariants_hold_in_many_random_games_of_the_variant():
    _, out_g = play(5, 2_000, Rules.from_dict({**VARIANT, "car_loot": {"F": {"jewels": 6}}}))
    assert not out_g[:, RG_FAIL].any()


def test_a_variants_trace_is_told_by_show(tmp_path, capsys):
    s = coltsim.make_setting(4, policies="random", rules=VARIANT)
    path = tmp_path / "variant.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in trace_game(s, 3, 0)))
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "stampede" in out.lower() and "round_deck" in out


def test_a_new_cards_effects_are_reported_with_the_printed_ones():
    from coltsim.analysis.round_cards import card_quality_effects

    s = coltsim.make_setting(4, policies="random", rules={"new_cards": [STAMPEDE],
                                                          "round_deck": DECK})
    r = coltsim.simulate(s, 600, seed=10, workers=1, progress=False)
    assert list(r.games["round_1"].cat.categories)[-1] == "stampede"
    effects = card_quality_effects(r)
    assert "stampede" in set(effects["card"]) and "tunnel" not in set(effects["card"])
    row = effects[(effects["card"] == "stampede")].iloc[0]
    assert row["lo"] <= row["effect"] <= row["hi"]


def test_a_bandit_starts_with_the_bullets_it_is_given():
    s = coltsim.make_setting(4, lineup="tuco,ghost,belle,doc", policies="random",
                             rules={"bullets": {"tuco": 0, "ghost": 3}})
    for lines in _traces(s, 3):
        assert check_trace(lines) == []
        left = [b["bullets_left"] for b in lines[0]["state"]["bandits"]]
        assert left == [0, 3, 6, 6]
    r = coltsim.simulate(s, 300, seed=7, workers=1, progress=False, check=True)
    shots = r.players.groupby("bandit", observed=True)["shots"].max()
    assert shots["tuco"] == 0 and shots["ghost"] <= 3 and shots["belle"] > 3
    with pytest.raises(ValueError, match="bullets.tuco must be 0 to 6"):
        coltsim.make_setting(4, rules={"bullets": {"tuco": 7}})


def test_the_marshal_starts_in_the_car_he_is_given():
    s = coltsim.make_setting(4, policies="random", rules={"marshal_car": 2})
    for lines in _traces(s, 3):
        assert check_trace(lines) == [] and lines[0]["state"]["marshal"] == 2
    assert not coltsim.simulate(s, 300, seed=7, workers=1, progress=False, check=True).games.empty
    with pytest.raises(ValueError, match="marshal_car must be 0 to 1 for 3 players"):
        coltsim.make_setting(3, rules={"marshal_car": 2})
