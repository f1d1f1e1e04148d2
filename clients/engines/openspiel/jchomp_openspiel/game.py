"""JChomp and classic Chomp as OpenSpiel Python games, registered as `python_jchomp` and
`python_classic_chomp` when this module is imported.

Parameters (every one optional): rows, cols, players (2-4), variant ("jchomp" or "classic"),
eat_rows and eat_cols (JChomp's eat size; classic Chomp has none and ignores them), poison (cells
as "ROW,COL;ROW,COL", or "ROW:COL;ROW:COL" inside a game string, where commas separate parameters). An action is the selected cell, row * cols + col.

Returns are the project's tournament scores mapped onto [-1, 1] as 2 * score - 1: the seat that
eats poison gets -1 and every other seat +1; a tie gives every seat 0. Two players make a
zero-sum game; with three or four the sum depends on the ending (general-sum).
"""

import numpy as np
import pyspiel

from . import rules

_PARAMS = {
    "python_jchomp": {"rows": 6, "cols": 7, "players": 2, "variant": rules.JCHOMP,
                      "eat_rows": 1, "eat_cols": 2, "poison": "0:0"},
    "python_classic_chomp": {"rows": 3, "cols": 5, "players": 2, "variant": rules.CLASSIC,
                             "eat_rows": 1, "eat_cols": 1, "poison": "0:0"},
}
_LONG_NAMES = {"python_jchomp": "Python JChomp", "python_classic_chomp": "Python Classic Chomp"}


def _game_type(short_name, players=None):
    low, high = (players, players) if players else rules.PLAYERS
    utility = (pyspiel.GameType.Utility.ZERO_SUM if high == 2
               else pyspiel.GameType.Utility.GENERAL_SUM)
    return pyspiel.GameType(
        short_name=short_name,
        long_name=_LONG_NAMES[short_name],
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_PARAMS[short_name])


def _game_info(config):
    return pyspiel.GameInfo(
        num_distinct_actions=config.cells,
        max_chance_outcomes=0,
        num_players=config.players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0 if config.players == 2 else None,
        max_game_length=config.cells)


def config_from_params(params):
    """The rules' Config of OpenSpiel game parameters (missing ones take JChomp's defaults)."""
    p = dict(_PARAMS["python_jchomp"], **params)
    return rules.Config.make(p["rows"], p["cols"], p["players"], p["variant"],
                             (p["eat_rows"], p["eat_cols"]), rules.parse_poison(p["poison"]))


def params_from_config(config):
    """The OpenSpiel game parameters of a rules Config: the inverse of config_from_params."""
    return {"rows": config.rows, "cols": config.cols, "players": config.players,
            "variant": config.variant, "eat_rows": config.eat[0], "eat_cols": config.eat[1],
            "poison": rules.format_poison(config.poison)}


class _Game(pyspiel.Game):
    """A JChomp or classic Chomp game; _SHORT_NAME picks the registration and its defaults."""

    _SHORT_NAME = "python_jchomp"

    def __init__(self, params=None):
        params = dict(_PARAMS[self._SHORT_NAME], **(params or {}))
        self.config = config_from_params(params)
        super().__init__(_game_type(self._SHORT_NAME, self.config.players),
                         _game_info(self.config), params)

    def new_initial_state(self):
        """The start of a game."""
        return ChompState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The board observer (the game has perfect information)."""
        return BoardObserver(self.config, params)


class JChompGame(_Game):
    """`python_jchomp`: JChomp by default (6x7, eat 1x2, poison 0,0); variant=classic plays Chomp."""

    _SHORT_NAME = "python_jchomp"


class ClassicChompGame(_Game):
    """`python_classic_chomp`: classic Chomp, by default the standard 3x5 bar poisoned at 0,0."""

    _SHORT_NAME = "python_classic_chomp"


class ChompState(pyspiel.State):
    """A position of a JChomp or classic Chomp game."""

    def __init__(self, game, board=None):
        super().__init__(game)
        self.board = board or rules.Board(game.config)

    def current_player(self):
        """The seat to move, or TERMINAL once the game is over."""
        return pyspiel.PlayerId.TERMINAL if self.board.over else self.board.to_move

    def _legal_actions(self, player):
        """The valid selections, in increasing order."""
        del player
        return list(self.board.valid)

    def _apply_action(self, action):
        """Plays the selection `action` for the seat to move."""
        self.board.play(action)

    def _action_to_string(self, player, action):
        row, col = divmod(action, self.board.config.cols)
        return f"{row},{col}"

    def is_terminal(self):
        """Whether the game is over."""
        return self.board.over

    def returns(self):
        """2 * score - 1 per seat once the game is over (see the module's docstring); 0 before."""
        if not self.board.over:
            return [0.0] * self.board.config.players
        return [2.0 * s - 1.0 for s in self.board.scores()]

    def __str__(self):
        return board_string(self.board)


def board_string(board):
    """The board as text, one line a row: '.' eaten, 'P' uneaten poison, 'o' uneaten."""
    cfg = board.config
    marks = []
    for cell in range(cfg.cells):
        marks.append("." if not board.uneaten[cell] else "P" if cell in board.poison else "o")
    return "\n".join("".join(marks[r * cfg.cols:(r + 1) * cfg.cols]) for r in range(cfg.rows))


class BoardObserver:
    """The observation of a position: planes (uneaten, uneaten poison) over rows x cols, then the
    seat to move one-hot."""

    def __init__(self, config, params):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.tensor = np.zeros(2 * config.cells + config.players, np.float32)
        self.dict = {
            "board": self.tensor[:2 * config.cells].reshape(2, config.rows, config.cols),
            "to_move": self.tensor[2 * config.cells:],
        }

    def set_from(self, state, player):
        """Fills the tensor from `state` (the same for every player)."""
        del player
        board = state.board
        self.tensor.fill(0)
        plane = self.dict["board"].reshape(2, -1)
        plane[0, :] = np.frombuffer(bytes(board.uneaten), np.uint8)
        for cell in board.poison:
            plane[1, cell] = board.uneaten[cell]
        if not board.over:
            self.dict["to_move"][board.to_move] = 1

    def string_from(self, state, player):
        """The board and the seat to move as text."""
        del player
        return f"{board_string(state.board)}\nto move: {state.current_player()}"


pyspiel.register_game(_game_type("python_jchomp"), JChompGame)
pyspiel.register_game(_game_type("python_classic_chomp"), ClassicChompGame)
