"""End-of-round events of the round and train-station cards (RULES.md 8).

Events without a choice are one function each.  Pickpocketing is the one event with a choice:
flow.py asks each eligible bandit's player (``pickpocket_eligible``) and calls ``do_pickpocket``.
``ev[b]`` collects the token each bandit took, lost or gained, for the trace (-1 = none).
"""
from .. import constants as K
from .._jit import njit
from .actions import give_neutral, marshal_rule
from .state import (
    B_CAR, B_LEVEL, G_BANDITS, G_MARSHAL, L_KIND, L_VALUE, L_WHERE, bandit_spot, caboose,
    loot_at, move_token, pick_token,
)


@njit
def _roof_mask(st, car):
    mask = 0
    for b in range(st.game[G_BANDITS]):
        if st.bandit[b, B_LEVEL] == K.ROOF and (car < 0 or st.bandit[b, B_CAR] == car):
            mask |= 1 << b
    return mask


@njit
def event_angry_marshal(st):
    """Roof of the Marshal's car shot at; then he moves one car back (two givings)."""
    give_neutral(st, _roof_mask(st, st.game[G_MARSHAL]))
    if st.game[G_MARSHAL] < caboose(st):
        st.game[G_MARSHAL] += 1
        marshal_rule(st)


@njit
def event_swivel_arm(st):
    """Every bandit on a roof is swept to the caboose's roof."""
    for b in range(st.game[G_BANDITS]):
        if st.bandit[b, B_LEVEL] == K.ROOF:
            st.bandit[b, B_CAR] = caboose(st)


@njit
def event_braking(st):
    """Every bandit on a roof moves one car forward (the locomotive's roof stops it)."""
    for b in range(st.game[G_BANDITS]):
        if st.bandit[b, B_LEVEL] == K.ROOF and st.bandit[b, B_CAR] > 0:
            st.bandit[b, B_CAR] -= 1


@njit
def event_take_it_all(st):
    """The second strongbox goes inside the Marshal's car; returns its token, or -1 when it
    came out of the box before (a deck of a designer's cards with Take It All! twice)."""
    t = K.FIRST_STRONGBOX + 1
    if st.loot[t, L_WHERE] != K.IN_BOX:
        return -1
    move_token(st, t, 2 * st.game[G_MARSHAL] + K.INSIDE)
    return t


@njit
def event_passengers_rebellion(st):
    """Every bandit inside a car gets a neutral bullet (one giving)."""
    mask = 0
    for b in range(st.game[G_BANDITS]):
        if st.bandit[b, B_LEVEL] == K.INSIDE:
            mask |= 1 << b
    give_neutral(st, mask)


@njit
def pickpocket_eligible(st, b):
    """Bandit ``b`` is alone on its spot and a purse lies there."""
    spot = bandit_spot(st, b)
    for o in range(st.game[G_BANDITS]):
        if o != b and bandit_spot(st, o) == spot:
            return False
    return loot_at(st, spot, K.PURSE) > 0


@njit
def do_pickpocket(st, b):
    t = pick_token(st, bandit_spot(st, b), K.PURSE)
    move_token(st, t, K.AT_BANDIT + b)
    return t


@njit
def event_marshals_revenge(st, ev):
    """Every bandit on the Marshal's roof loses its least valuable purse to the box."""
    for b in range(st.game[G_BANDITS]):
        if st.bandit[b, B_LEVEL] != K.ROOF or st.bandit[b, B_CAR] != st.game[G_MARSHAL]:
            continue
        worst = -1
        for t in range(K.N_LOOT):
            if st.loot[t, L_WHERE] == K.AT_BANDIT + b and st.loot[t, L_KIND] == K.PURSE:
                if worst < 0 or st.loot[t, L_VALUE] < st.loot[worst, L_VALUE]:
                    worst = t
        if worst >= 0:
            move_token(st, worst, K.IN_BOX)
            ev[b] = worst


@njit
def event_hostage_taking(st, ev):
    """Every bandit in or on the locomotive gains its $250 ransom."""
    for b in range(st.game[G_BANDITS]):
        if st.bandit[b, B_CAR] == K.LOCO:
            t = K.FIRST_RANSOM + b
            move_token(st, t, K.AT_BANDIT + b)
            ev[b] = t
