#!/usr/bin/env python3
"""Per-board figures of one bot from a tournament's games.jsonl (`jchomp-bot tournament --out DIR`).

    scripts/per_board.py DIR/games.jsonl BOT [OTHER]

For each start configuration: the games BOT played, its score (a loser 0, every other seat 1, a
tie 1/2 each, as jchomp_bot::scoring defines it), its ties and losses; with OTHER, also the games
seating both and BOT's head-to-head score against OTHER there (1 when BOT scored more, 1/2 when
the same), as the tournament's Elo counts it.
"""
import json
import sys
from collections import OrderedDict


def board(config):
    """The configuration in the documents' words, e.g. 8x8 eat 1x2 poison 0,0 7,7."""
    text = f"{config['rows']}x{config['cols']}"
    if config.get("variant") == "classic":
        text += " classic"
    else:
        text += " eat {}x{}".format(*config["eat"])
    return text + " poison " + " ".join(f"{r},{c}" for r, c in config["poison"])


def scores(game):
    """Every seat's score."""
    result = game["result"]
    seats = len(game["seats"])
    if result.get("kind") == "tie":
        return [0.5] * seats
    loser = result.get("loser")
    return [0.0 if s == loser else 1.0 for s in range(seats)]


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    path, bot = sys.argv[1], sys.argv[2]
    other = sys.argv[3] if len(sys.argv) == 4 else None
    rows = OrderedDict()
    with open(path, encoding="utf-8") as f:
        for line in f:
            game = json.loads(line)
            if bot not in game["seats"]:
                continue
            row = rows.setdefault(board(game["config"]), [0, 0.0, 0, 0, 0, 0.0])
            me = game["seats"].index(bot)
            s = scores(game)
            row[0] += 1
            row[1] += s[me]
            row[2] += s[me] == 0.5
            row[3] += s[me] == 0.0
            if other in game["seats"]:
                them = s[game["seats"].index(other)]
                row[4] += 1
                row[5] += 1.0 if s[me] > them else 0.5 if s[me] == them else 0.0
    total = [0, 0.0, 0, 0, 0, 0.0]
    print("| board | games | score | ties | losses |" + (f" games with {other} | head to head |" if other else ""))
    print("|---|---|---|---|---|" + ("---|---|" if other else ""))
    for name, row in list(rows.items()) + [("all", None)]:
        if row is None:
            row = total
        else:
            total = [a + b for a, b in zip(total, row)]
        line = f"| {name} | {row[0]} | {row[1]:g}/{row[0]} = {100 * row[1] / max(row[0], 1):.1f}% | {row[2]} | {row[3]} |"
        if other:
            line += f" {row[4]} | {100 * row[5] / max(row[4], 1):.1f}% |"
        print(line)


if __name__ == "__main__":
    main()
