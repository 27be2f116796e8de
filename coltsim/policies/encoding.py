"""What ``learned``'s value network reads: a position, from one player's side, as numbers.

``encode(real, q, me, kind, value, out)`` writes into ``out[:N_INPUTS]`` the position ``q`` (a
projection of the decision taken at ``real``: learned.py) as the player ``me`` may know it,
with the context of the decision (``kind``, the option ``value``), the stage of the game, the
player count and the rule options, so that a network can let them interact.  Most entries are
0 or 1 (one-hot codes), the rest small counts and sums; the network's first layer reads only the
entries that are not 0 (net.py).

The bandits are listed from ``me``'s side: ``me``'s bandits first, then the other players' in
seat order after ``me`` (the next player's first), so that a slot means the same at every seat.
Per bandit slot (``SLOT_W`` entries from ``slot * SLOT_W``):

============  =================================================================================
present       1 (the slot holds a bandit)
car           one-hot of its car (0 the locomotive)
roof          1 on the roof
caboose       1 in the last car
loot          purses, jewels, strongboxes, ransoms carried (counts / 2)
value         what it carries, thousands of dollars (purses of others at their mean)
bullets       bullet cards left / 6
received      bullet cards received from bandits / 4, neutral ones / 4
ability       one-hot of its character, if that ability is in play
same_spot     on the spot of ``me``'s first bandit (other slots)
in_sight      in the line of fire of ``me``'s first bandit
sees_me       has ``me``'s first bandit in its line of fire, with bullets left
marshal_near  inside, in a car next to the Marshal's
pending       cards its player will still play this round that the projection did not resolve
              (turns left, face-down cards unseen), / 4
hand          cards in its player's hand / 6
============  =================================================================================

Then the position and the game (from ``GLOBAL0``): the Marshal's car; the loot lying on every
spot by kind; the player count; the round (one-hot), the rounds after it, the round card; the
cards of ``me``'s hand and of the rest of its deck by kind; the turns ``me`` still plays this
round after this decision; the option (its card's kind, draw, face down) and the decision kind;
the rule options that change play; the Gunslinger race (priced by the bonus in force: 0 in the
two-player game, which has none); ``me``'s lead in loot; and what ``me``'s first bandit's spot
offers (``my_spot``): the best token a Robbery takes there, the best one a Move or Floor Change
away, everything lying there, the other bandits there, the mean of what a Robbery takes on the
others' spots, the Robberies in ``me``'s hand while turns are left, the turns left its hand
cannot fill, and its bullet cards received times the rounds after this one; last, which slots
hold ``me``'s own bandits (``mine``: the first only, but in the two-player game, where each
player has two bandits, a team whose loot is shared).
"""
from .. import constants as K
from .._jit import njit
from ..engine import actions as A
from ..engine.flow import DK_PLAN, FACE_DOWN, OPT_DRAW, OPT_STOP, event_of, turns_of
from ..engine.state import (
    B_BULLETS, B_CAR, B_CHAR, B_LEVEL, B_NEUTRAL, B_RECEIVED, B_TEAM, G_BANDITS, G_FIRST,
    G_MARSHAL, G_NEUTRAL_LEFT, G_N_ROUNDS, G_PHASE, G_PILE_N, G_PLAYERS, G_POS, G_ROUND, G_SLOT,
    G_TURN, L_KIND, L_VALUE, L_WHERE, PH_SCHEME, PH_STEAL, PILE_PLAYER, Z_DECK, Z_DISCARD,
    Z_HAND, ability, caboose, card_kind, shots_fired,
)
from ..rules import (
    MAX_ROUNDS, O_ADVANCED, O_DJANGO_PUSH_WITHOUT_BULLETS, O_DRAW_COUNT, O_GHOST_BOTH_HALVES,
    O_GUNSLINGER_BONUS, O_GUNSLINGER_IF_NOBODY_FIRED, O_HAND_SIZE, O_ROOF_MOVE_MAX,
)
from .common import grab_value
from .observe import pile_revealed
from .view import EXPECTED_PURSE, KIND_VALUE


def _layout(fields):
    """Offsets of consecutive fields ``(name, width)``: ``{name: offset}`` and the total."""
    at = {}
    n = 0
    for name, width in fields:
        at[name] = n
        n += width
    return at, n


_SLOT, SLOT_W = _layout((
    ("present", 1), ("car", K.MAX_CARS), ("roof", 1), ("caboose", 1), ("loot", K.N_LOOT_KINDS),
    ("value", 1), ("bullets", 1), ("received", 2), ("ability", K.N_CHARACTERS),
    ("same_spot", 1), ("in_sight", 1), ("sees_me", 1), ("marshal_near", 1), ("pending", 1),
    ("hand", 1),
))
N_DECISION_KINDS = 12  # flow.DK_*
_GLOBAL, GLOBAL_W = _layout((
    ("marshal", K.MAX_CARS), ("spot_loot", K.MAX_SPOTS * 3), ("players", 5),
    ("round", MAX_ROUNDS), ("rounds_left", 1), ("round_card", K.N_ROUND_CARDS + K.N_STATION_CARDS),
    ("my_hand", K.N_ACTION_KINDS + 1), ("my_deck", K.N_ACTION_KINDS + 1), ("my_turns", 1),
    ("option", K.N_ACTION_KINDS + 2), ("decision", N_DECISION_KINDS), ("rules", 9),
    ("race", 3), ("lead", 2), ("my_spot", 8), ("mine", K.MAX_BANDITS),
))
GLOBAL0 = K.MAX_BANDITS * SLOT_W
N_INPUTS = GLOBAL0 + GLOBAL_W

S_PRESENT = _SLOT["present"]
S_CAR = _SLOT["car"]
S_ROOF = _SLOT["roof"]
S_CABOOSE = _SLOT["caboose"]
S_LOOT = _SLOT["loot"]
S_VALUE = _SLOT["value"]
S_BULLETS = _SLOT["bullets"]
S_RECEIVED = _SLOT["received"]
S_ABILITY = _SLOT["ability"]
S_SAME_SPOT = _SLOT["same_spot"]
S_IN_SIGHT = _SLOT["in_sight"]
S_SEES_ME = _SLOT["sees_me"]
S_MARSHAL_NEAR = _SLOT["marshal_near"]
S_PENDING = _SLOT["pending"]
S_HAND = _SLOT["hand"]
X_MARSHAL = GLOBAL0 + _GLOBAL["marshal"]
X_SPOT_LOOT = GLOBAL0 + _GLOBAL["spot_loot"]
X_PLAYERS = GLOBAL0 + _GLOBAL["players"]
X_ROUND = GLOBAL0 + _GLOBAL["round"]
X_ROUNDS_LEFT = GLOBAL0 + _GLOBAL["rounds_left"]
X_ROUND_CARD = GLOBAL0 + _GLOBAL["round_card"]
X_MY_HAND = GLOBAL0 + _GLOBAL["my_hand"]
X_MY_DECK = GLOBAL0 + _GLOBAL["my_deck"]
X_MY_TURNS = GLOBAL0 + _GLOBAL["my_turns"]
X_OPTION = GLOBAL0 + _GLOBAL["option"]
X_DECISION = GLOBAL0 + _GLOBAL["decision"]
X_RULES = GLOBAL0 + _GLOBAL["rules"]
X_RACE = GLOBAL0 + _GLOBAL["race"]
X_LEAD = GLOBAL0 + _GLOBAL["lead"]
X_MY_SPOT = GLOBAL0 + _GLOBAL["my_spot"]
X_MINE = GLOBAL0 + _GLOBAL["mine"]
# Scratch of the encoder in ``out`` past N_INPUTS: the bandit of each slot, per-player sums.
_SLOT_BANDIT = N_INPUTS
_PLAYER_LOOT = _SLOT_BANDIT + K.MAX_BANDITS
_PLAYER_SHOTS = _PLAYER_LOOT + K.MAX_BANDITS
ENCODE_W = _PLAYER_SHOTS + K.MAX_BANDITS  # room ``out`` needs
BUF_W = 3 * K.MAX_BANDITS + 1  # room ``buf`` needs: two counts per player, then a bandit list


@njit
def pending_cards(real, counts):
    """``counts[p]``, for every player ``p``: the cards ``p`` will still put on the pile this
    round after the decision pending at ``real`` (its remaining player-turns of Schemin')."""
    players = real.game[G_PLAYERS]
    for p in range(players):
        counts[p] = 0
    if real.game[G_PHASE] != PH_SCHEME:
        return
    turns = turns_of(real, real.rounds[real.game[G_ROUND]])
    first = real.game[G_FIRST]
    for t in range(real.game[G_TURN], K.MAX_TURNS):
        letter = turns[t]
        if letter == K.NO_TURN:
            break
        slots = players * (2 if letter == K.TURN_SPEEDING else 1)
        start = real.game[G_SLOT] + 1 if t == real.game[G_TURN] else 0
        for s in range(start, slots):
            if letter == K.TURN_SWITCHING:
                q = (first - s) % players
            elif letter == K.TURN_SPEEDING:
                q = (first + s // 2) % players
            else:
                q = (first + s) % players
            counts[q] += 1


@njit(inline="always")
def _known_value(real, q, me, t, b):
    """Token ``t``, carried by bandit ``b`` in ``q``, as ``me`` knows its value (dollars)."""
    if q.loot[t, L_KIND] == K.PURSE and not (q.bandit[b, B_TEAM] == me
                                             and real.loot[t, L_WHERE] == K.AT_BANDIT + b):
        return EXPECTED_PURSE
    return float(q.loot[t, L_VALUE])


@njit
def encode(real, q, me, kind, value, out, buf):
    """The position ``q`` for ``me`` into ``out[:N_INPUTS]`` (module docstring), the decision
    being of ``kind`` (flow.DK_*) taken at ``real`` with option ``value``; ``out`` needs
    ``ENCODE_W`` entries (the rest is scratch), ``buf`` ``int64[BUF_W]``."""
    for i in range(N_INPUTS):
        out[i] = 0.0
    players = real.game[G_PLAYERS]
    nb = real.game[G_BANDITS]
    cab = caboose(q)
    marshal = q.game[G_MARSHAL]
    # The slots: me's bandits, then the others' by seat after me.
    slot_bandit = out[_SLOT_BANDIT:_SLOT_BANDIT + K.MAX_BANDITS]
    n = 0
    for k in range(players):
        p = (me + k) % players
        for b in range(nb):
            if q.bandit[b, B_TEAM] == p:
                slot_bandit[n] = b
                n += 1
    # Per player: loot as me knows it, shots fired, cards still to come.
    loot = out[_PLAYER_LOOT:_PLAYER_LOOT + K.MAX_BANDITS]
    shots = out[_PLAYER_SHOTS:_PLAYER_SHOTS + K.MAX_BANDITS]
    loot[:] = 0.0
    shots[:] = 0.0
    for t in range(K.N_LOOT):
        w = q.loot[t, L_WHERE]
        if w >= K.AT_BANDIT:
            b = w - K.AT_BANDIT
            v = _known_value(real, q, me, t, b)
            loot[q.bandit[b, B_TEAM]] += v / 1000.0
            o = int(_slot_of(slot_bandit, nb, b)) * SLOT_W
            out[o + S_LOOT + q.loot[t, L_KIND]] += 0.5
            out[o + S_VALUE] += v / 1000.0
        elif w >= 0:
            kind_t = q.loot[t, L_KIND]
            if kind_t < 3:
                out[X_SPOT_LOOT + 3 * w + kind_t] += 0.5
    pending = buf  # per player: the cards it will still play this round
    pending_cards(real, pending)
    unseen = buf[K.MAX_BANDITS:]  # per player: pile cards the projection dropped (face down)
    for p in range(players):
        unseen[p] = 0
    if real.game[G_PHASE] == PH_SCHEME or real.game[G_PHASE] == PH_STEAL:
        first = real.game[G_POS] + 1 if real.game[G_PHASE] == PH_STEAL else 0
        for i in range(first, real.game[G_PILE_N]):
            p = real.pile[i, PILE_PLAYER]
            if p != me and not pile_revealed(real, i):
                unseen[p] += 1
    mine = int(slot_bandit[0])
    my_car = q.bandit[mine, B_CAR]
    my_level = q.bandit[mine, B_LEVEL]
    sight = buf[2 * K.MAX_BANDITS:]  # (room for every bandit: sight_targets writes one past)
    for s in range(nb):
        b = int(slot_bandit[s])
        o = s * SLOT_W
        car = q.bandit[b, B_CAR]
        level = q.bandit[b, B_LEVEL]
        p = q.bandit[b, B_TEAM]
        shots[p] += shots_fired(q, b)
        out[X_MINE + s] = p == me
        out[o + S_PRESENT] = 1.0
        out[o + S_CAR + car] = 1.0
        out[o + S_ROOF] = level == K.ROOF
        out[o + S_CABOOSE] = car == cab
        out[o + S_BULLETS] = q.bandit[b, B_BULLETS] / 6.0
        out[o + S_RECEIVED] = q.bandit[b, B_RECEIVED] / 4.0
        out[o + S_RECEIVED + 1] = q.bandit[b, B_NEUTRAL] / 4.0
        ch = q.bandit[b, B_CHAR]
        if ability(q, b, ch):
            out[o + S_ABILITY + ch] = 1.0
        out[o + S_MARSHAL_NEAR] = level == K.INSIDE and abs(car - marshal) == 1
        out[o + S_PENDING] = (pending[p] + unseen[p]) / 4.0
        out[o + S_HAND] = real.ncards[p, Z_HAND] / 6.0
        if s > 0:
            out[o + S_SAME_SPOT] = car == my_car and level == my_level
            if q.bandit[b, B_BULLETS] > 0:
                m = A.sight_targets(q, b, car, level, sight)
                for i in range(m):
                    if sight[i] == mine:
                        out[o + S_SEES_ME] = 1.0
    m = A.sight_targets(q, mine, my_car, my_level, sight)
    for i in range(m):
        out[int(_slot_of(slot_bandit, nb, sight[i])) * SLOT_W + S_IN_SIGHT] = 1.0
    # The position and the game.
    out[X_MARSHAL + marshal] = 1.0
    out[X_PLAYERS + players - 2] = 1.0
    r = real.game[G_ROUND]
    out[X_ROUND + r] = 1.0
    out[X_ROUNDS_LEFT] = (real.game[G_N_ROUNDS] - 1 - r) / 4.0
    card = real.rounds[r]
    if card >= K.FIRST_NEW_CARD:  # a designer's card reads as the printed card of its event
        ev = event_of(real, card)
        card = K.TUNNEL if ev == K.NO_EVENT else ev
    out[X_ROUND_CARD + card] = 1.0
    for z in range(2):
        zone = Z_HAND if z == 0 else Z_DECK
        at = X_MY_HAND if z == 0 else X_MY_DECK
        for i in range(q.ncards[me, zone]):
            out[at + card_kind(q.cards[me, zone, i])] += 0.5 if z == 0 else 0.25
    for i in range(q.ncards[me, Z_DISCARD]):
        out[X_MY_DECK + card_kind(q.cards[me, Z_DISCARD, i])] += 0.25
    if kind == DK_PLAN and value == OPT_DRAW and q.ncards[me, Z_DECK] > 0:
        # The cards a draw brings, at their expected composition (the deck's order is hidden).
        share = min(real.opts[O_DRAW_COUNT], q.ncards[me, Z_DECK]) / q.ncards[me, Z_DECK]
        for i in range(q.ncards[me, Z_DECK]):
            k = card_kind(q.cards[me, Z_DECK, i])
            out[X_MY_HAND + k] += 0.5 * share
            out[X_MY_DECK + k] -= 0.25 * share
    mine_after = pending[me]
    out[X_MY_TURNS] = mine_after / 4.0
    if kind < 0:  # no decision: a position between rounds
        pass
    elif kind == DK_PLAN:
        if value == OPT_DRAW:
            out[X_OPTION + K.N_ACTION_KINDS] = 1.0
        else:
            out[X_OPTION + card_kind(value & ~FACE_DOWN)] = 1.0
            out[X_OPTION + K.N_ACTION_KINDS + 1] = (value & FACE_DOWN) != 0
    elif value == OPT_STOP:
        out[X_OPTION + K.N_ACTION_KINDS] = 1.0
    if kind >= 0:
        out[X_DECISION + kind] = 1.0
    two_player = nb > players
    bonus = 0.0 if two_player else real.opts[O_GUNSLINGER_BONUS] / 1000.0
    out[X_RULES] = bonus
    out[X_RULES + 1] = real.opts[O_HAND_SIZE] / 6.0
    out[X_RULES + 2] = real.opts[O_DRAW_COUNT] / 3.0
    out[X_RULES + 3] = real.opts[O_ADVANCED]
    out[X_RULES + 4] = max(0, q.game[G_NEUTRAL_LEFT]) / 13.0
    out[X_RULES + 5] = q.game[G_NEUTRAL_LEFT] < 0
    out[X_RULES + 6] = real.opts[O_ROOF_MOVE_MAX] / 3.0
    out[X_RULES + 7] = real.opts[O_GUNSLINGER_IF_NOBODY_FIRED]
    out[X_RULES + 8] = real.opts[O_DJANGO_PUSH_WITHOUT_BULLETS] + real.opts[O_GHOST_BOTH_HALVES]
    best_shots = 0.0
    best_loot = -1e9
    total = 0.0
    for p in range(players):
        if p != me:
            best_shots = max(best_shots, shots[p])
            best_loot = max(best_loot, loot[p])
            total += loot[p]
    lead = shots[me] - best_shots
    # The race in thousands of dollars of the bonus in force: a rule option the same for every
    # option of a decision cannot move a linear value's choice, the race it prices can.
    out[X_RACE] = bonus * max(-3.0, min(3.0, lead)) / 3.0
    out[X_RACE + 1] = bonus * (lead > 0)
    out[X_RACE + 2] = bonus * (lead == 0)
    out[X_LEAD] = loot[me] - best_loot
    out[X_LEAD + 1] = loot[me] - total / (players - 1)
    _my_spot(real, q, me, mine, mine_after, out)


@njit(inline="always")
def _grab(q, spot):
    """What a Robbery on ``spot`` takes: its best token (thousands of dollars)."""
    return grab_value(q.held[spot]) / 1000.0


@njit
def _my_spot(real, q, me, b, turns, out):
    """The ``my_spot`` block for ``me``'s bandit ``b``, ``me`` playing ``turns`` more cards this
    round (module docstring)."""
    car = q.bandit[b, B_CAR]
    level = q.bandit[b, B_LEVEL]
    spot = 2 * car + level
    marshal = q.game[G_MARSHAL]
    out[X_MY_SPOT] = _grab(q, spot)
    near = 0.0
    if not (level == K.ROOF and car == marshal):
        near = _grab(q, spot ^ 1)  # a Floor Change away
    reach = q.opts[O_ROOF_MOVE_MAX] if level == K.ROOF else 1
    for d in range(1, reach + 1):
        for c in (car - d, car + d):
            if 0 <= c <= caboose(q) and not (level == K.INSIDE and c == marshal):
                near = max(near, _grab(q, 2 * c + level))
    out[X_MY_SPOT + 1] = near
    lying = 0.0
    for kind in range(K.N_LOOT_KINDS):
        lying += q.held[spot, kind] * KIND_VALUE[kind] / 1000.0
    out[X_MY_SPOT + 2] = lying
    others = 0
    crowd = 0.0
    opp_here = 0.0
    for o in range(q.game[G_BANDITS]):
        if q.bandit[o, B_TEAM] != me:
            others += 1
            crowd += q.bandit[o, B_CAR] == car and q.bandit[o, B_LEVEL] == level
            opp_here += _grab(q, 2 * q.bandit[o, B_CAR] + q.bandit[o, B_LEVEL])
    out[X_MY_SPOT + 3] = crowd
    out[X_MY_SPOT + 4] = opp_here / max(1, others)
    robs = 0.0
    playable = 0
    for i in range(q.ncards[me, Z_HAND]):
        k = card_kind(q.cards[me, Z_HAND, i])
        robs += k == K.ROB
        playable += k != K.BULLET
    if turns > 0:
        out[X_MY_SPOT + 5] = robs
        out[X_MY_SPOT + 6] = max(0, turns - playable)
    later = real.game[G_N_ROUNDS] - 1 - real.game[G_ROUND]
    out[X_MY_SPOT + 7] = (q.bandit[b, B_RECEIVED] + q.bandit[b, B_NEUTRAL]) * later / 4.0


@njit(inline="always")
def _slot_of(slot_bandit, nb, b):
    for s in range(nb):
        if slot_bandit[s] == b:
            return s
    return 0


def input_names() -> tuple:
    """A name for every input (for reports of what a model reads)."""
    names = []
    for s in range(K.MAX_BANDITS):
        for field, at in _SLOT.items():
            width = (list(_SLOT.values()) + [SLOT_W])[list(_SLOT).index(field) + 1] - at
            names += [f"slot{s}.{field}{'' if width == 1 else f'[{i}]'}" for i in range(width)]
    offsets = list(_GLOBAL.values()) + [GLOBAL_W]
    for j, (field, at) in enumerate(_GLOBAL.items()):
        width = offsets[j + 1] - at
        names += [f"{field}{'' if width == 1 else f'[{i}]'}" for i in range(width)]
    assert len(names) == N_INPUTS
    return tuple(names)


__all__ = ["BUF_W", "ENCODE_W", "N_INPUTS", "encode", "input_names", "pending_cards"]
