"""What the OpenSpiel game says along given games, as JSON lines, to hold it against other
implementations of the rules (the project's tests compare it with their brute-force model).

Run `python -m jchomp_openspiel.trace`; it reads one JSON object a line on standard input and
writes one JSON line for each, in order:

- `{"params": P, "moves": [A, ...]}` plays the actions from the start of `python_jchomp` with the
  game parameters P and answers `{"steps": [S0, S1, ...]}`: S0 before the first action, then one
  after each, every S `{"player": N, "legal": [...], "terminal": B, "returns": [...]}` read from
  the pyspiel state (player -4 is OpenSpiel's TERMINAL);
- `{"params": P, "perft": D}` answers `{"perft": N}`, the leaves of the game tree D plies deep,
  a finished game counting as one leaf;
- parameters the rules refuse answer `{"error": "the reason"}`.
"""

import json
import sys

import pyspiel

from . import game as _registers_the_games  # noqa: F401
from .rules import ConfigError


def step(state):
    """What the state says: the seat to move, the legal actions, whether it is over, the returns."""
    return {
        "player": state.current_player(),
        "legal": state.legal_actions(),
        "terminal": state.is_terminal(),
        "returns": state.returns(),
    }


def perft(state, depth):
    """Leaves of the game tree below `state`, `depth` plies deep (a finished game is one leaf)."""
    if depth == 0 or state.is_terminal():
        return 1
    total = 0
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        total += perft(child, depth - 1)
    return total


def answer(request):
    """The answer to one request line (see the module's docstring)."""
    try:
        state = pyspiel.load_game("python_jchomp", request["params"]).new_initial_state()
    except ConfigError as error:
        return {"error": str(error)}
    if "perft" in request:
        return {"perft": perft(state, request["perft"])}
    steps = [step(state)]
    for action in request["moves"]:
        state.apply_action(action)
        steps.append(step(state))
    return {"steps": steps}


def main():
    """Answers every line of standard input."""
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(answer(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
