"""OpenSpiel bots choosing JChomp moves within a time limit, for the engine (engine.py).

A player has `choose(state, limits) -> (action, info)`: `state` is a pyspiel state of
`python_jchomp`, `limits` a Limits, `info` a dict of what to report (`nodes`, `value` from 0, a
loss, to 1). Every player answers a selection that does not eat poison when the seat to move has
one, as the engine protocol asks (docs/ENGINE.md).
"""

import time
from dataclasses import dataclass

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts


@dataclass
class Limits:
    """What bounds one search: a simulation budget, an optional deadline (time.monotonic()
    seconds), and a callable telling whether the runner said `stop`."""

    budget: int
    deadline: float = None
    stopped: callable = lambda: False
    infinite: bool = False

    def over(self):
        """Whether the search must end now."""
        return self.stopped() or (self.deadline is not None and time.monotonic() >= self.deadline)


def random_state(seed, state):
    """A numpy generator fixed by the seed and the position's ply, so that a seat replays its
    choices whatever it played before."""
    return np.random.RandomState((seed * 1_000_003 + len(state.history())) % 2**32)


def safe_actions(state):
    """The legal actions that eat no poison (empty when every one does)."""
    board = state.board
    return [a for a in state.legal_actions() if not board.eats_poison(a)]


def prefer_safe(state, action, rng):
    """`action`, or a random safe action instead when it eats poison and a safe one exists."""
    safe = safe_actions(state)
    if not safe or action in safe:
        return action
    return int(rng.choice(safe))


class _Aborted(Exception):
    """The search ran out of time, or was stopped."""


class _GuardedEvaluator(mcts.RandomRolloutEvaluator):
    """OpenSpiel's random rollout evaluator that aborts the search once its limits are over."""

    def __init__(self, rollouts, rng, limits):
        super().__init__(n_rollouts=rollouts, random_state=rng)
        self._limits = limits

    def evaluate(self, state):
        if self._limits.over():
            raise _Aborted()
        return super().evaluate(state)


class MctsPlayer:
    """OpenSpiel's MCTSBot (UCT with random rollouts, MCTS-Solver backups).

    Without a deadline it runs `limits.budget` simulations, so a seed replays it exactly. With
    one, MCTSBot cannot be paused, so it first searches a few simulations to measure its speed,
    then searches again from scratch with as many as fit in the time left; a search that still
    reaches the deadline is abandoned and the last finished one answers.
    """

    PROBE = 16

    def __init__(self, seed=0, rollouts=1, uct_c=2.0):
        self.seed, self.rollouts, self.uct_c = seed, rollouts, uct_c

    def _search(self, state, simulations, limits):
        rng = random_state(self.seed, state)
        evaluator = _GuardedEvaluator(self.rollouts, random_state(self.seed + 1, state), limits)
        bot = mcts.MCTSBot(state.get_game(), self.uct_c, simulations, evaluator,
                           solve=True, random_state=rng)
        return bot.mcts_search(state)

    def _sizes(self, limits):
        """The first search's simulations, and whether more searches may follow."""
        if limits.deadline is None and not limits.infinite:
            return limits.budget, False
        return min(limits.budget, self.PROBE), True

    def choose(self, state, limits):
        """The most visited safe child of the largest search that finished in time."""
        simulations, grow = self._sizes(limits)
        root, started = None, time.monotonic()
        while True:
            begun = time.monotonic()
            try:
                root = self._search(state, simulations, limits)
            except _Aborted:
                break
            nxt = self._next_size(simulations, time.monotonic() - begun, limits)
            if not grow or root.outcome is not None or nxt <= simulations:
                break
            simulations = nxt
        if root is None or not root.children:
            rng = random_state(self.seed, state)
            return prefer_safe(state, int(rng.choice(state.legal_actions())), rng), {}
        return self._answer(state, root, started)

    @staticmethod
    def _next_size(done, seconds, limits):
        if limits.infinite:
            return done * 2
        if limits.deadline is None:
            return done
        rate = done / max(seconds, 1e-4)
        left = limits.deadline - time.monotonic()
        return min(limits.budget, int(rate * left * 0.9))

    def _answer(self, state, root, started):
        safe = set(safe_actions(state))
        children = [c for c in root.children if c.action in safe] or root.children
        best = max(children, key=mcts.SearchNode.sort_key)
        value = best.total_reward / best.explore_count if best.explore_count else 0.0
        if best.outcome is not None:
            value = best.outcome[state.current_player()]
        info = {"nodes": root.explore_count, "value": (value + 1) / 2,
                "time": int((time.monotonic() - started) * 1000)}
        return best.action, info


class BotPlayer:
    """Any pyspiel.Bot, made for a seat by `make(game, seat, seed)`; it runs to its end whatever
    the time limits (a bot cannot be interrupted), then a poison choice is replaced by a random
    safe one when there is one."""

    def __init__(self, make, seed=0):
        self.make, self.seed = make, seed

    def choose(self, state, limits):
        """The bot's step on `state`."""
        del limits
        rng = random_state(self.seed, state)
        seed = int(rng.randint(2**31))
        bot = self.make(state.get_game(), state.current_player(), seed)
        return prefer_safe(state, bot.step(state), rng), {}


def uniform_random(game, seat, seed):
    """OpenSpiel's uniform random bot: the simplest BotPlayer."""
    del game
    return pyspiel.make_uniform_random_bot(seat, seed)
