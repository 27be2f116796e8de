"""The action cards (RULES.md 5), the Marshal rule and neutral bullets (RULES.md 6) and the
bandits' abilities that change them (RULES.md 7).

Each card has an ``*_options`` function that writes the legal choices of its owner into ``out``
and returns how many there are, and a ``do_*`` function that applies one choice.  None of them
asks a policy: flow.py asks, then calls ``do_*`` with the answer.
"""

from .. import constants as K
from .._jit import njit
from ..rules import O_DJANGO_PUSH_WITHOUT_BULLETS, O_NEUTRAL_RUNOUT, O_ROOF_MOVE_MAX, RUNOUT_NOBODY
from .state import (
    B_BULLETS, B_CAR, B_LEVEL, B_NEUTRAL, B_RECEIVED, G_BANDITS, G_GIVEN, G_HITS, G_MARSHAL,
    G_NEUTRAL_LEFT, G_NEUTRAL_REMOVED, L_KIND, Z_DECK, ability, bandit_spot, caboose,
    kinds_at, make_card, move_token, owner_of_bandit, pick_token, push_card,
)


# --- the Marshal and neutral bullets ------------------------------------------------------------
@njit(inline="always")
def give_neutral(st, mask):
    """One giving of neutral bullets to the bandits in ``mask``, under the run-out rule."""
    nb = st.game[G_BANDITS]
    k = 0
    for b in range(nb):
        if mask >> b & 1:
            k += 1
    if k == 0:
        return
    left = st.game[G_NEUTRAL_LEFT]
    if 0 <= left < k and st.opts[O_NEUTRAL_RUNOUT] == RUNOUT_NOBODY:
        st.game[G_NEUTRAL_REMOVED] += left
        st.game[G_NEUTRAL_LEFT] = 0
        return
    for b in range(nb):
        if mask >> b & 1 and st.game[G_NEUTRAL_LEFT] != 0:
            if st.game[G_NEUTRAL_LEFT] > 0:
                st.game[G_NEUTRAL_LEFT] -= 1
            push_card(st, owner_of_bandit(st, b), Z_DECK, make_card(K.BULLET, K.NEUTRAL))
            st.bandit[b, B_NEUTRAL] += 1
            st.game[G_GIVEN] |= 1 << b


@njit
def marshal_rule(st):
    """Every bandit inside the Marshal's car goes up to its roof and gets one neutral bullet."""
    bandit = st.bandit
    mask = 0
    car = st.game[G_MARSHAL]
    for b in range(st.game[G_BANDITS]):
        if bandit[b, B_CAR] == car and bandit[b, B_LEVEL] == K.INSIDE:
            bandit[b, B_LEVEL] = K.ROOF
            mask |= 1 << b
    st.game[G_HITS] |= mask
    give_neutral(st, mask)


@njit(inline="always")
def place_bandit(st, b, car, level):
    """Put bandit ``b`` on a spot; entering the Marshal's car from anywhere triggers his rule."""
    st.bandit[b, B_CAR] = car
    st.bandit[b, B_LEVEL] = level
    if level == K.INSIDE and car == st.game[G_MARSHAL]:
        marshal_rule(st)


# --- Move and Floor Change ------------------------------------------------------------------------
@njit
def move_options(st, b, out):
    """Destination cars: adjacent inside; 1..roof_move_max cars on the roof."""
    car = st.bandit[b, B_CAR]
    reach = st.opts[O_ROOF_MOVE_MAX] if st.bandit[b, B_LEVEL] == K.ROOF else 1
    n = 0
    for d in range(reach, 0, -1):
        if car - d >= 0:
            out[n] = car - d
            n += 1
    for d in range(1, reach + 1):
        if car + d <= caboose(st):
            out[n] = car + d
            n += 1
    return n


@njit(inline="always")
def do_move(st, b, to_car):
    place_bandit(st, b, to_car, st.bandit[b, B_LEVEL])


@njit(inline="always")
def do_floor_change(st, b):
    place_bandit(st, b, st.bandit[b, B_CAR], 1 - st.bandit[b, B_LEVEL])


# --- Fire -----------------------------------------------------------------------------------------
@njit(inline="always")
def add_bandits_at(st, car, level, skip, out, n):
    """Append the bandits other than ``skip`` on (car, level) to ``out[n:]``; the new count.

    Branch-free (positions are random, a branch would mispredict): ``out[n]`` is written even
    when nobody more is there, so ``out`` needs a slot for every bandit (MAX_BANDITS)."""
    bandit = st.bandit
    for t in range(st.game[G_BANDITS]):
        out[n] = t
        n += (t != skip) & (bandit[t, B_CAR] == car) & (bandit[t, B_LEVEL] == level)
    return n


@njit(inline="always")  # small; called with constants (each would compile a copy)
def belle_filter(st, out, n):
    """Belle cannot be chosen if another bandit could be: drop her when others remain."""
    others = 0
    for i in range(n):
        if not ability(st, out[i], K.BELLE):
            others += 1
    if others == n or others == 0:
        return n
    m = 0
    for i in range(n):
        if not ability(st, out[i], K.BELLE):
            out[m] = out[i]
            m += 1
    return m


@njit
def sight_targets(st, b, car, level, out):
    """Bandits ``b`` would have in its line of fire from (car, level), the others where they are:
    the next cars inside; on the roof the nearest roof with somebody else on it, each way; and
    Tuco's shot through the roof.  Belle's protection is not applied here."""
    n = 0
    if level == K.INSIDE:
        if car > 0:
            n = add_bandits_at(st, car - 1, K.INSIDE, b, out, n)
        if car < caboose(st):
            n = add_bandits_at(st, car + 1, K.INSIDE, b, out, n)
    else:
        for step in (-1, 1):
            c = car + step
            while 0 <= c <= caboose(st):
                m = add_bandits_at(st, c, K.ROOF, b, out, n)
                if m > n:
                    n = m
                    break
                c += step
    if ability(st, b, K.TUCO):
        n = add_bandits_at(st, car, 1 - level, b, out, n)
    return n


@njit
def fire_targets(st, b, out):
    """Bandits ``b`` may shoot (none when it has no bullet, unless Django's option says so)."""
    if st.bandit[b, B_BULLETS] == 0 and not (
            ability(st, b, K.DJANGO) and st.opts[O_DJANGO_PUSH_WITHOUT_BULLETS] == 1):
        return 0
    n = sight_targets(st, b, st.bandit[b, B_CAR], st.bandit[b, B_LEVEL], out)
    return belle_filter(st, out, n)


@njit
def do_fire(st, b, target):
    """Give ``target`` the top bullet card of ``b``; Django pushes it away.

    Returns the car Django pushed the target to, or -1."""
    if st.bandit[b, B_BULLETS] > 0:
        st.bandit[b, B_BULLETS] -= 1
        push_card(st, owner_of_bandit(st, target), Z_DECK, make_card(K.BULLET, b))
        st.bandit[target, B_RECEIVED] += 1
    if not ability(st, b, K.DJANGO):
        return -1
    car = st.bandit[target, B_CAR]
    to_car = car
    if car > st.bandit[b, B_CAR] and car < caboose(st):
        to_car = car + 1
    elif car < st.bandit[b, B_CAR] and car > 0:
        to_car = car - 1
    if to_car == car:
        return -1
    place_bandit(st, target, to_car, st.bandit[target, B_LEVEL])
    return to_car


# --- Robbery --------------------------------------------------------------------------------------
@njit
def kind_options(st, where, out):
    """Loot kinds present at ``where`` (a spot or AT_BANDIT + b), into ``out``."""
    mask = kinds_at(st, where)
    n = 0
    for kind in range(K.N_LOOT_KINDS):
        if mask >> kind & 1:
            out[n] = kind
            n += 1
    return n


@njit(inline="always")
def rob_options(st, b, out):
    return kind_options(st, bandit_spot(st, b), out)


@njit
def do_rob(st, b, kind):
    """Take one token of ``kind`` from ``b``'s spot (a purse blind); returns the token."""
    t = pick_token(st, bandit_spot(st, b), kind)
    move_token(st, t, K.AT_BANDIT + b)
    return t


# --- Punch ----------------------------------------------------------------------------------------
@njit
def punch_targets(st, b, out):
    n = add_bandits_at(st, st.bandit[b, B_CAR], st.bandit[b, B_LEVEL], b, out, 0)
    return belle_filter(st, out, n)


@njit(inline="always")
def punch_loot_options(st, target, out):
    return kind_options(st, K.AT_BANDIT + target, out)


@njit
def punch_drop(st, target, kind):
    """``target`` drops a token of ``kind`` (a random purse) on its spot; returns the token."""
    t = pick_token(st, K.AT_BANDIT + target, kind)
    move_token(st, t, bandit_spot(st, target))
    return t


@njit(inline="always")
def cheyenne_may_take(st, b, token):
    return ability(st, b, K.CHEYENNE) and st.loot[token, L_KIND] == K.PURSE


@njit(inline="always")
def take_token(st, b, token):
    move_token(st, token, K.AT_BANDIT + b)


@njit(inline="always")
def adjacent_cars(st, car, out):
    """The cars one forward and one back of ``car`` that exist."""
    n = 0
    if car > 0:
        out[n] = car - 1
        n += 1
    if car < caboose(st):
        out[n] = car + 1
        n += 1
    return n


@njit(inline="always")
def punch_direction_options(st, target, out):
    return adjacent_cars(st, st.bandit[target, B_CAR], out)


@njit(inline="always")
def do_punch_move(st, target, to_car):
    place_bandit(st, target, to_car, st.bandit[target, B_LEVEL])


# --- Marshal --------------------------------------------------------------------------------------
@njit(inline="always")
def marshal_options(st, out):
    return adjacent_cars(st, st.game[G_MARSHAL], out)


@njit
def do_marshal_move(st, to_car):
    st.game[G_MARSHAL] = to_car
    marshal_rule(st)
