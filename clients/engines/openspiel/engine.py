#!/usr/bin/env python3
"""A JChomp engine (docs/ENGINE.md, JEP 1) that plays an OpenSpiel bot on the `python_jchomp` game:
OpenSpiel's MCTSBot by default, its uniform random bot with `setoption name Bot value random`.

Run it with the Python that has `open-spiel` installed (see README.md); it reads the runner's
lines on standard input and answers on standard output. A search runs beside the reader, so
`isready` and `stop` are answered during it.
"""

import json
import sys
import threading
import time

from jchomp_openspiel import players
from jchomp_openspiel.game import params_from_config
from jchomp_openspiel.rules import ConfigError, config_from_json

import pyspiel

# name: (declaration after "type", default)
OPTIONS = {
    "Simulations": ("spin default 1000 min 1 max 1000000", 1000),
    "Rollouts": ("spin default 1 min 1 max 100", 1),
    "Seed": ("spin default 0 min 0 max 2147483647", 0),
    "Bot": ("combo default mcts var mcts var random", "mcts"),
}
# The share of a move's time the engine plans to use, and what it keeps back for Python and the
# pipes.
TIME_SHARE, TIME_RESERVE_MS = 0.8, 30


class Engine:
    """The engine's state between lines: options, the last position, the running search."""

    def __init__(self, out):
        self.out, self.lock = out, threading.Lock()
        self.options = {name: default for name, (_, default) in OPTIONS.items()}
        self.state, self.error = None, "no position yet"
        self.searching, self.stop = False, threading.Event()

    def say(self, *lines):
        """Writes lines together (the reader and the search both write)."""
        with self.lock:
            self._write(lines)

    def _write(self, lines):
        for line in lines:
            self.out.write(line + "\n")
        self.out.flush()

    def handshake(self, words):
        """Answers `jep VERSION`."""
        if words[1:] != ["1"]:
            self.say("jeperror unsupported version")
            sys.exit(0)
        self.say("id name OpenSpiel MCTS")
        self.say("id author The JChomp project")
        for name, (declaration, _) in OPTIONS.items():
            self.say(f"option name {name} type {declaration}")
        self.say("variants jchomp classic")
        self.say("players 2 3 4")
        self.say("jepok")

    def set_option(self, words):
        """`setoption name NAME value VALUE`: integers for spins, a word for Bot."""
        if len(words) < 5 or words[1] != "name" or words[3] != "value" or words[2] not in OPTIONS:
            self.say(f"info string ignored: {' '.join(words)}")
            return
        name, value = words[2], words[4]
        try:
            self.options[name] = value if name == "Bot" else int(value)
        except ValueError:
            self.say(f"info string {name} wants an integer, got {value}")

    def position(self, line):
        """`position config JSON [moves R,C ...]`: replays the game on a fresh state."""
        words = line.split(None, 2)
        rest = words[2] if len(words) == 3 and words[1] == "config" else ""
        try:
            config, end = json.JSONDecoder().raw_decode(rest)
            moves = rest[end:].split()
            game = pyspiel.load_game("python_jchomp", params_from_config(config_from_json(config)))
            state = game.new_initial_state()
            for move in moves[1:] if moves[:1] == ["moves"] else []:
                row, col = (int(x) for x in move.split(","))
                state.apply_action(row * config["cols"] + col)
            self.state, self.error = state, None
        except (ValueError, KeyError, TypeError, ConfigError) as error:
            self.state, self.error = None, f"bad position: {error}"
            self.say(f"info string {self.error}")

    def go(self, words):
        """`go seat S [...]`: starts a search beside the reader."""
        if self.state is None or self.state.is_terminal():
            self.say(f"info string cannot search: {self.error or 'the game is over'}")
            return
        with self.lock:
            if self.searching:
                self._write(["info string ignored: a search is running"])
                return
            self.searching = True
        self.stop.clear()
        threading.Thread(target=self.think, args=(self.state.clone(), self.limits(words)),
                         daemon=True).start()

    def limits(self, words):
        """The Limits of a `go` line."""
        args = parse_go(words)
        budget = args.get("nodes", self.options["Simulations"])
        ms = move_time_ms(args, self.state.current_player())
        deadline = None
        if ms is not None and "infinite" not in args:
            deadline = time.monotonic() + max(ms * TIME_SHARE - TIME_RESERVE_MS, 1) / 1000
        return players.Limits(budget=budget, deadline=deadline, stopped=self.stop.is_set,
                              infinite="infinite" in args)

    def player(self):
        """The player the options name."""
        seed = self.options["Seed"]
        if self.options["Bot"] == "random":
            return players.BotPlayer(players.uniform_random, seed)
        return players.MctsPlayer(seed=seed, rollouts=self.options["Rollouts"])

    def think(self, state, limits):
        """The search: info, then bestmove; the engine takes a new `go` from then on."""
        try:
            action, info = self.player().choose(state, limits)
        except Exception as error:  # noqa: BLE001 - the runner must still get a bestmove
            print(f"search failed: {error!r}", file=sys.stderr)
            action, info = (players.safe_actions(state) or state.legal_actions())[0], {}
        if limits.infinite:
            self.stop.wait()
        lines = []
        if info:
            lines.append(f"info nodes {info['nodes']} time {info['time']} "
                         f"score value {info['value']:.3f}")
        row, col = divmod(action, state.board.config.cols)
        lines.append(f"bestmove {row},{col}")
        with self.lock:
            self.searching = False
            self._write(lines)


def parse_go(words):
    """The limits of `go` words: seat, clocks (a list), inc, movetime, nodes, depth, infinite."""
    args, key = {}, None
    for word in words[1:]:
        if word == "infinite":
            args["infinite"], key = True, None
        elif word in ("seat", "clocks", "inc", "movetime", "nodes", "depth"):
            key = word
            if word == "clocks":
                args["clocks"] = []
        elif key == "clocks" and word.isdigit():
            args["clocks"].append(int(word))
        elif key is not None and word.isdigit():
            args[key], key = int(word), None
    return args


def move_time_ms(args, seat):
    """Milliseconds for this move: `movetime`, else a twentieth of the seat's clock plus most of
    the increment (never more than half the clock); None without either."""
    if "movetime" in args:
        return args["movetime"]
    clocks = args.get("clocks", [])
    if seat < len(clocks):
        clock = clocks[seat]
        return min(clock / 20 + 0.8 * args.get("inc", 0), clock / 2)
    return None


def main():
    """Reads the runner's lines until `quit` or the end of input."""
    engine = Engine(sys.stdout)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "jep":
            engine.handshake(words)
        elif command == "setoption":
            engine.set_option(words)
        elif command == "isready":
            engine.say("readyok")
        elif command == "position":
            engine.position(line)
        elif command == "go":
            engine.go(words)
        elif command == "stop":
            engine.stop.set()
        elif command == "quit":
            break
        elif command != "newgame":
            print(f"unknown command: {command}", file=sys.stderr)
    engine.stop.set()


if __name__ == "__main__":
    main()
