#!/usr/bin/env python3
"""An example JChomp engine: the engine protocol (docs/ENGINE.md), standard library only.

It plays JChomp and classic Chomp with 2, 3 or 4 players: never poison while a safe selection
exists; an immediate win (a safe selection after which the next seat has only poison) if there
is one; else a safe selection that hands the next seat no such win; at random among equals,
seeded by its `Seed` option.
"""
import json
import random
import sys
import time

SEED_MAX = 2**31 - 1


def warn(text):
    """Says something on standard error, which the runner logs and never reads as a reply."""
    print("engine.py: " + text, file=sys.stderr, flush=True)


def say(line):
    """Writes one line to the runner, at once."""
    print(line, flush=True)


class Rules:
    """One configuration's selections. A board is an int with bit r*cols+c set for each
    uneaten cell; each anchor has the cells that must be uneaten to select it (`need`) and
    the cells it eats (`eat`); `safe` and `poisoned` hold them as (cell, need, eat)."""

    def __init__(self, config):
        rows, cols, self.players = config["rows"], config["cols"], config["players"]
        self.full = (1 << rows * cols) - 1

        def rect(r, c, height, width):
            row = ((1 << width) - 1) << c
            return sum(row << (i * cols) for i in range(r, r + height))

        poison = sum(1 << (r * cols + c) for r, c in config["poison"])
        classic = config.get("variant", "jchomp") == "classic"
        er, ec = (1, 1) if classic else config["eat"]
        anchors = []
        for r in range(rows - er + 1):
            for c in range(cols - ec + 1):
                need = rect(r, c, er, ec)
                anchors.append(((r, c), need, rect(r, c, rows - r, cols - c) if classic else need))
        self.by_cell = {a[0]: a for a in anchors}
        self.poison = poison
        self.safe = [a for a in anchors if not a[2] & poison]
        self.poisoned = [a for a in anchors if a[2] & poison]

    @staticmethod
    def valid(board, anchors):
        """The anchors whose cells are all uneaten."""
        return [a for a in anchors if board & a[1] == a[1]]

    def only_poison(self, board):
        """Whether the seat to move on `board` must eat poison (it has moves, none safe)."""
        def fits(anchors):
            return any(board & need == need for _, need, _ in anchors)

        return not fits(self.safe) and fits(self.poisoned)

    def has_win(self, board):
        """Whether the seat to move has a safe selection that leaves the next only poison."""
        return any(board & need == need and self.only_poison(board & ~eat)
                   for _, need, eat in self.safe)

    def replay(self, moves):
        """The board after `moves`; raises ValueError on a move the rules refuse."""
        board = self.full
        for cell in moves:
            anchor = self.by_cell.get(cell)
            if anchor is None or anchor[2] & self.poison or board & anchor[1] != anchor[1]:
                raise ValueError("move %d,%d is not valid in a game that goes on" % cell)
            board &= ~anchor[2]
        return board


def choose(rules, board, rng, careful, deadline):
    """The selection to play on `board` (see the module's description)."""
    safe = rules.valid(board, rules.safe)
    if not safe:
        return rng.choice(rules.valid(board, rules.poisoned))[0]
    rng.shuffle(safe)
    for cell, _, eat in safe:
        if rules.only_poison(board & ~eat):
            return cell
    if careful:
        for cell, _, eat in safe:
            if time.monotonic() > deadline:
                warn("out of time: playing a safe selection unchecked")
                break
            if not rules.has_win(board & ~eat):
                return cell
    return safe[0][0]


def budget(words, seat):
    """Seconds to spend on this `go`: half a movetime, or a twentieth of the seat's clock
    plus half its increment; two seconds when the game has no clock."""
    numbers = {w: int(n) for w, n in zip(words, words[1:]) if w in ("movetime", "inc")}
    if "movetime" in numbers:
        return numbers["movetime"] / 2000
    if "clocks" in words:
        clock = int(words[words.index("clocks") + 1 + seat])
        return (clock / 20 + numbers.get("inc", 0) / 2) / 1000
    return 2.0


class Engine:
    """The protocol: one method per command, `cmd_` and its first word."""

    def __init__(self):
        self.options = {"Seed": 0, "Careful": True}
        self.rng = random.Random(0)
        self.game = None  # (rules, board, seat to move) of the last valid `position`
        self.pending = None  # the answer to a `go infinite`, held until `stop`

    def cmd_jep(self, words):
        if words[1:] != ["1"]:
            say("jeperror unsupported version")
            sys.exit(0)
        say("id name Example (Python)")
        say("id author The JChomp project")
        say("option name Seed type spin default 0 min 0 max %d" % SEED_MAX)
        say("option name Careful type check default true")
        say("variants jchomp classic")
        say("players 2 3 4")
        say("jepok")

    def cmd_setoption(self, words):
        name, value = words[2], " ".join(words[4:])
        if name == "Seed" and value.isdigit():
            self.options["Seed"] = min(int(value), SEED_MAX)
        elif name == "Careful" and value in ("true", "false"):
            self.options["Careful"] = value == "true"
        else:
            warn("cannot set option %s to %s" % (name, value))

    def cmd_isready(self, words):
        say("readyok")

    def cmd_newgame(self, words):
        self.rng = random.Random(self.options["Seed"])
        self.game = None

    def cmd_position(self, words):
        self.game = None
        config = json.loads(words[2])
        moves = [tuple(int(x) for x in m.split(",")) for m in words[4:]]
        rules = Rules(config)
        self.game = (rules, rules.replay(moves), len(moves) % rules.players)

    def cmd_go(self, words):
        if self.game is None:
            return warn("go without a valid position: no answer")
        rules, board, to_move = self.game
        seat = int(words[words.index("seat") + 1])
        if seat != to_move:
            warn("go seat %d, but the moves say seat %d is to move" % (seat, to_move))
        deadline = time.monotonic() + budget(words, seat)
        row, col = choose(rules, board, self.rng, self.options["Careful"], deadline)
        if "infinite" in words:
            self.pending = "bestmove %d,%d" % (row, col)
        else:
            say("bestmove %d,%d" % (row, col))

    def cmd_stop(self, words):
        if self.pending is not None:
            say(self.pending)
            self.pending = None

    def cmd_quit(self, words):
        sys.exit(0)


def main():
    engine = Engine()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        handler = getattr(engine, "cmd_" + words[0], None)
        if handler is None:
            warn("ignored: " + line.strip()[:200])
            continue
        try:
            handler(words)
        except (ValueError, KeyError, IndexError, TypeError) as e:
            warn("cannot read %r: %s" % (line.strip()[:200], e))


if __name__ == "__main__":
    main()
