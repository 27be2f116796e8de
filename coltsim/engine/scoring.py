"""End of the game (RULES.md 9): loot, the Gunslinger, the winner, the tie-break and ranks.

Results go into two arrays: ``out_b[b, RB_*]`` per bandit and ``out_g[RG_*]`` per game.  A team
is a player (in the base game one bandit; in the 2-player game two), and rank and victory are
decided between teams: by score, then by the fewest bullet cards received.
"""
from .. import constants as K
from .._jit import njit
from ..rules import MAX_ROUNDS, O_GUNSLINGER_BONUS, O_GUNSLINGER_IF_NOBODY_FIRED
from .state import (
    B_CHAR, B_N, B_NEUTRAL, B_PLAYED, B_RECEIVED, B_TEAM, G_BANDITS, G_DECISIONS, G_FAIL,
    G_FIRST_FIRST, G_NEUTRAL_LEFT, G_PLAYERS, L_KIND, L_VALUE, L_WHERE, shots_fired,
)

RB_PURSE = 0  # dollars carried, by kind
RB_JEWEL = 1
RB_STRONGBOX = 2
RB_RANSOM = 3
RB_LOOT = 4
RB_SHOTS = 5
RB_RECEIVED = 6
RB_NEUTRAL = 7
RB_GUNSLINGER = 8
RB_BONUS = 9
RB_SCORE = 10  # the bandit's own loot + bonus
RB_TEAM_SCORE = 11
RB_RANK = 12
RB_WIN = 13
RB_SHARED = 14  # won together with another team
RB_CHAR = 15
RB_TEAM = 16
RB_PLAYED = 17  # + kind (MOVE .. MARSHAL): action cards of each kind played
RB_DRAWS = RB_PLAYED + K.N_ACTION_KINDS  # turns its player drew
RB_FIZZLED = RB_DRAWS + 1  # its action cards that resolved without effect
RB_ROUND_LOOT = RB_FIZZLED + 1  # + r: its loot (dollars) at the end of round r
RB_N = RB_ROUND_LOOT + MAX_ROUNDS
assert RB_N - RB_PLAYED == B_N - B_PLAYED  # the bandit's record is copied as it lies (score_game)

RG_FIRST_PLAYER = 0
RG_N_WINNERS = 1  # winning teams
RG_N_GUNSLINGERS = 2
RG_GUNSLINGER_CHANGED = 3  # 1 if the winners would differ without the bonus
RG_NEUTRAL_LEFT = 4
RG_FAIL = 5
RG_DECISIONS = 6
RG_CARS = 7  # + i: car code of passenger car i + 1 (-1 past the caboose)
RG_ROUNDS = RG_CARS + K.MAX_CARS - 1  # + r: round card of round r (-1 past the last)
RG_N = RG_ROUNDS + MAX_ROUNDS


@njit
def _ranks(score, received, n, rank):
    """Competition ranks: better is more score, then fewer bullets received."""
    for i in range(n):
        r = 1
        for j in range(n):
            if score[j] > score[i] or (score[j] == score[i] and received[j] < received[i]):
                r += 1
        rank[i] = r


@njit
def score_game(st, out_b, out_g):
    nb = st.game[G_BANDITS]
    players = st.game[G_PLAYERS]
    two_player = nb > players
    out_b[:, :] = 0
    for t in range(K.N_LOOT):
        w = st.loot[t, L_WHERE]
        if w >= K.AT_BANDIT:
            out_b[w - K.AT_BANDIT, RB_PURSE + st.loot[t, L_KIND]] += st.loot[t, L_VALUE]
    most = 0
    for b in range(nb):
        out_b[b, RB_LOOT] = (out_b[b, RB_PURSE] + out_b[b, RB_JEWEL] + out_b[b, RB_STRONGBOX]
                             + out_b[b, RB_RANSOM])
        out_b[b, RB_SHOTS] = shots_fired(st, b)
        out_b[b, RB_RECEIVED] = st.bandit[b, B_RECEIVED]
        out_b[b, RB_NEUTRAL] = st.bandit[b, B_NEUTRAL]
        out_b[b, RB_CHAR] = st.bandit[b, B_CHAR]
        out_b[b, RB_TEAM] = st.bandit[b, B_TEAM]
        for k in range(K.N_ACTION_KINDS + 2 + MAX_ROUNDS):  # plays, draws, fizzles, round loot
            out_b[b, RB_PLAYED + k] = st.bandit[b, B_PLAYED + k]
        most = max(most, out_b[b, RB_SHOTS])
    n_gunslingers = 0
    if not two_player and (most > 0 or st.opts[O_GUNSLINGER_IF_NOBODY_FIRED] == 1):
        for b in range(nb):
            if out_b[b, RB_SHOTS] == most:
                out_b[b, RB_GUNSLINGER] = 1
                out_b[b, RB_BONUS] = st.opts[O_GUNSLINGER_BONUS]
                n_gunslingers += 1
    # Five tables per team, in the state's scratch (scoring allocates nothing).
    team_score = st.scratch[0:K.MAX_BANDITS]
    team_loot = st.scratch[K.MAX_BANDITS:2 * K.MAX_BANDITS]
    team_received = st.scratch[2 * K.MAX_BANDITS:3 * K.MAX_BANDITS]
    rank = st.scratch[3 * K.MAX_BANDITS:4 * K.MAX_BANDITS]
    rank_without_bonus = st.scratch[4 * K.MAX_BANDITS:5 * K.MAX_BANDITS]
    st.scratch[:3 * K.MAX_BANDITS] = 0
    for b in range(nb):
        out_b[b, RB_SCORE] = out_b[b, RB_LOOT] + out_b[b, RB_BONUS]
        team = out_b[b, RB_TEAM]
        team_score[team] += out_b[b, RB_SCORE]
        team_loot[team] += out_b[b, RB_LOOT]
        team_received[team] += out_b[b, RB_RECEIVED] + out_b[b, RB_NEUTRAL]
    _ranks(team_score, team_received, players, rank)
    _ranks(team_loot, team_received, players, rank_without_bonus)
    n_winners = 0
    changed = 0
    for p in range(players):
        n_winners += rank[p] == 1
        changed |= (rank[p] == 1) != (rank_without_bonus[p] == 1)
    for b in range(nb):
        team = out_b[b, RB_TEAM]
        out_b[b, RB_TEAM_SCORE] = team_score[team]
        out_b[b, RB_RANK] = rank[team]
        out_b[b, RB_WIN] = rank[team] == 1
        out_b[b, RB_SHARED] = rank[team] == 1 and n_winners > 1
    out_g[:] = -1
    out_g[RG_FIRST_PLAYER] = st.game[G_FIRST_FIRST]
    out_g[RG_N_WINNERS] = n_winners
    out_g[RG_N_GUNSLINGERS] = n_gunslingers
    out_g[RG_GUNSLINGER_CHANGED] = changed
    out_g[RG_NEUTRAL_LEFT] = st.game[G_NEUTRAL_LEFT]
    out_g[RG_FAIL] = st.game[G_FAIL]
    out_g[RG_DECISIONS] = st.game[G_DECISIONS]
    for i in range(K.MAX_CARS - 1):
        out_g[RG_CARS + i] = st.cars[i + 1]
    for r in range(MAX_ROUNDS):
        out_g[RG_ROUNDS + r] = st.rounds[r]


@njit
def outcome(w, player, margin, out_b, out_g):
    """The game ``w`` scored (into ``out_b``, ``out_g``) from ``player``'s side: its victory
    share (1, 1/k when k teams share the victory, else 0) plus ``margin`` x its score lead over
    the best other team, in thousands of dollars (what searches and training score a game by)."""
    score_game(w, out_b, out_g)
    mine = 0.0
    win = 0.0
    other = -1e18
    for b in range(w.game[G_BANDITS]):
        s = float(out_b[b, RB_TEAM_SCORE])
        if w.bandit[b, B_TEAM] == player:
            mine = s
            win = out_b[b, RB_WIN] / max(1, out_g[RG_N_WINNERS])
        elif s > other:
            other = s
    return win + margin * (mine - other) / 1000.0
