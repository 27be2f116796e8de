"""Named integer constants shared by the compiled engine and the Python side.

numba cannot use an ``IntEnum`` in array code, so every code is a plain module-level ``int``;
the ``*_NAMES`` tuples turn codes back into the names of the trace format (docs/TRACE.md).
"""

RULES_VERSION = "1"

# --- train ------------------------------------------------------------------------------------
# A spot is one car and one level: spot = 2 * car + level.  Car 0 is the locomotive, car C
# (the number of passenger cars) the caboose.
INSIDE = 0
ROOF = 1
LEVEL_NAMES = ("inside", "roof")

# Passenger cars by printed letter; LOCO is the locomotive.
LOCO = 0
CAR_NAMES = ("loco", "A", "B", "C", "D", "E", "F")
N_PASSENGER_CAR_KINDS = 6
# Printed loot of each car kind (index = code in CAR_NAMES): purses, jewels.
CAR_PURSES = (0, 1, 3, 1, 3, 4, 0)
CAR_JEWELS = (0, 0, 0, 1, 1, 1, 3)
MAX_CARS = 7  # locomotive + 6 passenger cars
MAX_SPOTS = 2 * MAX_CARS

# --- loot ---------------------------------------------------------------------------------------
PURSE = 0
JEWEL = 1
STRONGBOX = 2
RANSOM = 3
N_LOOT_KINDS = 4
LOOT_NAMES = ("purse", "jewel", "strongbox", "ransom")
PURSE_VALUES = (250,) * 8 + (300, 300, 350, 350, 400, 400, 450, 450, 500, 500)
N_PURSES = len(PURSE_VALUES)
N_JEWELS = 6
JEWEL_VALUE = 500
STRONGBOX_VALUE = 1000
RANSOM_VALUE = 250
# Token ids: 0..1 strongboxes (0 starts in the locomotive, 1 enters with Take It All!),
# 2..19 purses (2.. are the eight $250 purses), 20..25 jewels, 26.. one ransom per bandit, then
# the jewels a designer's cars hold beyond the box's six (rules option car_loot).
FIRST_STRONGBOX = 0
FIRST_PURSE = 2
FIRST_JEWEL = FIRST_PURSE + N_PURSES
FIRST_RANSOM = FIRST_JEWEL + N_JEWELS
MAX_BANDITS = 6
FIRST_EXTRA_JEWEL = FIRST_RANSOM + MAX_BANDITS
N_EXTRA_JEWELS = 4
N_LOOT = FIRST_EXTRA_JEWEL + N_EXTRA_JEWELS
# Where a token is (loot[:, L_WHERE]): a spot 0..MAX_SPOTS-1, a bandit AT_BANDIT + b, or the box.
IN_BOX = -1
AT_BANDIT = 100

# --- bandits ------------------------------------------------------------------------------------
GHOST = 0
BELLE = 1
CHEYENNE = 2
TUCO = 3
DJANGO = 4
DOC = 5
BANDIT_NAMES = ("ghost", "belle", "cheyenne", "tuco", "django", "doc")
N_CHARACTERS = 6
BULLETS_PER_BANDIT = 6

# --- cards --------------------------------------------------------------------------------------
# A card is ``kind + 8 * owner``: for action cards the owner is the bandit (0..5) that performs
# it; for bullet cards the bandit that fired it, or NEUTRAL for the Marshal's bullets.
MOVE = 0
FLOOR = 1
FIRE = 2
ROB = 3
PUNCH = 4
MARSHAL = 5
BULLET = 6
CARD_NAMES = ("move", "floor", "fire", "rob", "punch", "marshal", "bullet")
N_ACTION_KINDS = 6
CARD_OWNER_SHIFT = 3
CARD_KIND_MASK = 7
NEUTRAL = 7
# The 10 action cards of one bandit.
ACTION_DECK = (MOVE, MOVE, FLOOR, FLOOR, FIRE, FIRE, ROB, ROB, PUNCH, MARSHAL)
# The 2-player variant's shared deck takes one of each of these per bandit, plus one Marshal.
TEAM_DECK_KINDS = (MOVE, FLOOR, FIRE, ROB, PUNCH)
MAX_CARDS = 64  # per player, in any one zone

# --- rounds -------------------------------------------------------------------------------------
TURN_NORMAL = 0
TURN_TUNNEL = 1
TURN_SPEEDING = 2
TURN_SWITCHING = 3
TURN_LETTERS = ("N", "T", "D", "S")

# Round cards 0..6, train-station cards 7..9; the event code equals the card code (tunnel and
# bridge have none).
ANGRY_MARSHAL = 0
SWIVEL_ARM = 1
BRAKING = 2
TAKE_IT_ALL = 3
PASSENGERS_REBELLION = 4
TUNNEL = 5
BRIDGE = 6
MARSHALS_REVENGE = 7
PICKPOCKETING = 8
HOSTAGE_TAKING = 9
ROUND_CARD_NAMES = (
    "angry_marshal", "swivel_arm", "braking", "take_it_all", "passengers_rebellion",
    "tunnel", "bridge", "marshals_revenge", "pickpocketing", "hostage_taking",
)
N_ROUND_CARDS = 7
N_STATION_CARDS = 3
FIRST_STATION = 7
# A designer's own round and station cards (rules.RoundCard) take the codes FIRST_NEW_CARD..;
# their turns and event are rule options (rules.O_TURNS, rules.O_EVENT), like the printed ones'.
FIRST_NEW_CARD = N_ROUND_CARDS + N_STATION_CARDS
MAX_NEW_CARDS = 4
N_CARD_CODES = FIRST_NEW_CARD + MAX_NEW_CARDS
NO_EVENT = -1  # the event of Tunnel, Bridge and a new card without one
MAX_TURNS = 5
NO_TURN = -1
_N, _T, _D, _S = TURN_NORMAL, TURN_TUNNEL, TURN_SPEEDING, TURN_SWITCHING
# Turns of each card: [card][0 for 2-4 players, 1 for 5-6 players], padded with NO_TURN.
ROUND_TURNS = (
    ((_N, _N, _T, _S), (_N, _N, _S)),
    ((_N, _T, _N, _N), (_N, _T, _N)),
    ((_N, _N, _N, _N), (_N, _T, _N, _N)),
    ((_N, _T, _D, _N), (_N, _D, _S)),
    ((_N, _N, _T, _N, _N), (_N, _T, _N, _S)),
    ((_N, _T, _N, _T, _N), (_N, _T, _N, _T)),
    ((_N, _D, _N), (_N, _D)),
    ((_N, _N, _T, _N), (_N, _N, _T, _N)),
    ((_N, _N, _T, _N), (_N, _N, _T, _N)),
    ((_N, _N, _T, _N), (_N, _N, _T, _N)),
)

# --- policies -----------------------------------------------------------------------------------
N_PARAMS = 16  # entries of a seat's parameter row (policies/catalog.py names them)
