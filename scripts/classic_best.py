#!/usr/bin/env python3
"""The best expected score any bot can reach against `random` and `greedy` in classic Chomp
(poison at 0,0), every seat order averaged: expectimax over the whole game, the bot maximising,
random and greedy as the chance moves they are (uniform over the safe selections; greedy uniform
over its immediate wins when it has some). A ceiling for the levels' score in the gauntlets of
docs/BOTS.md (seats: the bot, random, greedy, and a second random with four players).

    scripts/classic_best.py ROWS COLS PLAYERS      e.g. 8 8 3 (about a minute)
"""
import sys
from functools import lru_cache
from itertools import permutations

from classic_shapes import moves, stuck

def main(rows, cols, players):
    start = tuple([cols] * rows)

    results = []
    opponents = ["random", "greedy", "random"][: players - 1]
    for order in sorted(set(permutations(["bot"] + opponents))):
        @lru_cache(maxsize=None)
        def value(shape, seat):
            if stuck(shape):  # the mover must eat poison
                return 0.0 if order[seat] == "bot" else 1.0
            nxt = (seat + 1) % players
            kids = moves(shape)
            vals = [value(k, nxt) for k in kids]
            kind = order[seat]
            if kind == "bot":
                return max(vals)
            if kind == "greedy":
                wins = [v for k, v in zip(kids, vals) if stuck(k)]
                if wins:
                    return sum(wins) / len(wins)
            return sum(vals) / len(vals)
        v = value(start, 0)
        results.append((order, v))
    for order, v in results:
        print(" ".join(order), f"{v:.4f}")
    print(f"mean over {len(results)} seat orders: {sum(v for _, v in results) / len(results):.4f}")

if __name__ == "__main__":
    if len(sys.argv) != 4 or not all(a.isdigit() for a in sys.argv[1:]):
        sys.exit(__doc__)
    sys.setrecursionlimit(10000)
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
