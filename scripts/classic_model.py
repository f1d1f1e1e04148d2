#!/usr/bin/env python3
"""What a bot that does not know which opponent is which can reach against `random` and `greedy`
in classic Chomp (poison at 0,0), every seat order averaged: the policy that is best against one
fixed model of every opponent (an immediate win taken with probability Q, otherwise a uniformly
random safe selection), scored against the real seats (greedy always takes an immediate win,
random never looks). Compare scripts/classic_best.py, which knows every seat's bot.

    scripts/classic_model.py PLAYERS Q [Q ...]      e.g. 4 0 0.33 0.5 1 (about a minute)
"""
import sys
from functools import lru_cache
from itertools import permutations

from classic_shapes import moves, stuck

ROWS, COLS = 8, 8


def score(players, q):
    """The real mean score of the policy best against the model with win probability q."""
    start = tuple([COLS] * ROWS)
    opponents = ["random", "greedy", "random"][: players - 1]
    orders = sorted(set(permutations(["bot"] + opponents)))
    total = 0.0
    for order in orders:
        me = order.index("bot")

        @lru_cache(maxsize=None)
        def model(shape, seat):
            if stuck(shape):
                return 0.0 if seat == me else 1.0
            kids, nxt = moves(shape), (seat + 1) % players
            vals = [model(k, nxt) for k in kids]
            if seat == me:
                return max(vals)
            uniform = sum(vals) / len(vals)
            wins = [v for k, v in zip(kids, vals) if stuck(k)]
            return q * sum(wins) / len(wins) + (1 - q) * uniform if wins else uniform

        @lru_cache(maxsize=None)
        def real(shape, seat):
            if stuck(shape):
                return 0.0 if seat == me else 1.0
            kids, nxt = moves(shape), (seat + 1) % players
            if seat == me:
                vals = [model(k, nxt) for k in kids]
                top = max(vals)
                best = [k for k, v in zip(kids, vals) if v >= top - 1e-12]
                return sum(real(k, nxt) for k in best) / len(best)
            vals = [real(k, nxt) for k in kids]
            if order[seat] == "greedy":
                wins = [v for k, v in zip(kids, vals) if stuck(k)]
                if wins:
                    return sum(wins) / len(wins)
            return sum(vals) / len(vals)

        total += real(start, 0)
    return total / len(orders)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("2", "3", "4"):
        sys.exit(__doc__)
    players = int(sys.argv[1])
    for q in (float(a) for a in sys.argv[2:]):
        print(f"Q {q}: {score(players, q):.4f}")


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
