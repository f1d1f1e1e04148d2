#!/usr/bin/env python3
"""The best expected score a bot can reach against `random` and `greedy` in classic Chomp (poison
at 0,0) when it is not told which seat is `greedy` but learns what the game shows: every seat
order averaged, the bot's policy optimal against its belief. Exactly one opponent is `greedy`,
each equally likely at the start; a seat that passes over an immediate win is then known to be
`random` (the two bots play alike otherwise, so nothing else tells them apart). Between the
fixed-model policies of scripts/classic_model.py and the bot that knows every seat
(scripts/classic_best.py).

    scripts/classic_bayes.py ROWS COLS PLAYERS      e.g. 8 8 4 (seconds)
"""
import sys
from functools import lru_cache

from classic_shapes import moves, stuck


def main(rows, cols, players):
    start = tuple([cols] * rows)
    results = []
    for me in range(players):
        # The belief is the set of seats that may still be `greedy`, each equally likely.
        @lru_cache(maxsize=None)
        def value(shape, seat, maybe):
            if stuck(shape):  # the mover must eat poison
                return 0.0 if seat == me else 1.0
            nxt = (seat + 1) % players
            kids = moves(shape)
            if seat == me:
                return max(value(k, nxt, maybe) for k in kids)
            wins = [k for k in kids if stuck(k)]
            if not wins:
                return sum(value(k, nxt, maybe) for k in kids) / len(kids)
            greedy = 1.0 / len(maybe) if seat in maybe else 0.0
            seen = maybe - {seat}  # what the others learn if it plays at random
            took = sum(value(k, nxt, maybe) for k in wins) / len(wins)
            plays = sum(value(k, nxt, seen) for k in kids) / len(kids)
            return greedy * took + (1.0 - greedy) * plays

        opponents = frozenset(s for s in range(players) if s != me)
        results.append((me, value(start, 0, opponents)))
    for me, v in results:
        print(f"bot in seat {me}: {v:.4f}")
    print(f"mean over the bot's {players} seats: {sum(v for _, v in results) / players:.4f}")


if __name__ == "__main__":
    if len(sys.argv) != 4 or not all(a.isdigit() for a in sys.argv[1:]):
        sys.exit(__doc__)
    sys.setrecursionlimit(10000)
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
