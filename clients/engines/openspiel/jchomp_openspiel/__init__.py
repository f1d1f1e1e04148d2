"""JChomp and classic Chomp for OpenSpiel: importing this package registers the Python games
`python_jchomp` and `python_classic_chomp` with pyspiel (see game.py for their parameters)."""

from .game import ClassicChompGame, JChompGame, config_from_params, params_from_config
from .rules import Board, Config, ConfigError, config_from_json

__all__ = ["Board", "ClassicChompGame", "Config", "ConfigError", "JChompGame",
           "config_from_json", "config_from_params", "params_from_config"]
