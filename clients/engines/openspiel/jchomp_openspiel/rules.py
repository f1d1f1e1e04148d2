"""The rules of JChomp and classic Chomp, in plain Python: a validated configuration and a position.

Nothing here imports OpenSpiel, so the rules can be read and tested on their own. The numbers and
the refusal sentences are the project's (protocol/rules/src/config.rs); the moves are those of
docs/RECORDS.md: a JChomp selection eats the eat-size rectangle anchored at its top-left cell and
is valid only when the whole rectangle is on the board and uneaten; a classic selection is any
uneaten cell and eats every uneaten cell in a row >= its row and a column >= its column. Eating a
poison cell loses; a seat to move with no valid selection ends the game in a tie.
"""

from dataclasses import dataclass

JCHOMP = "jchomp"
CLASSIC = "classic"
VARIANTS = (JCHOMP, CLASSIC)
BOARD_SIZE = {JCHOMP: (4, 15), CLASSIC: (1, 15)}
CLASSIC_MIN_CELLS = 2
PLAYERS = (2, 4)
EAT_SIZE = (1, 3)
MAX_POISON = 4


class ConfigError(ValueError):
    """A configuration the project's rules refuse, in the project's words."""


def _check(name, value, bounds):
    low, high = bounds
    if not low <= value <= high:
        raise ConfigError(f"{name} must be {low}–{high}, got {value}")
    return value


def parse_poison(text):
    """Poison cells from a string such as "0,0;3,4" or "0:0;3:4": cells separated by ';', row and
    column by ',' or ':' (a game string such as "python_jchomp(poison=0:0;3:4)" needs ':', since
    a comma there separates parameters)."""
    cells = []
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        row, sep, col = part.replace(":", ",").partition(",")
        try:
            cells.append((int(row), int(col)))
        except ValueError:
            raise ConfigError(f"poison cell {part!r} must be ROW,COL or ROW:COL") from None
    return cells


def format_poison(cells):
    """The poison string of a list of (row, col) cells, as "0:0;3:4" (it fits in a game string)."""
    return ";".join(f"{r}:{c}" for r, c in cells)


@dataclass(frozen=True)
class Config:
    """A validated configuration; make one with Config.make."""

    rows: int
    cols: int
    players: int
    variant: str
    eat: tuple  # (rows, cols) eaten by a JChomp selection; (1, 1) in classic, where it is unused
    poison: tuple  # ((row, col), ...) in the order given

    @staticmethod
    def make(rows, cols, players, variant, eat, poison):
        """Checks a configuration in the project's order and words; raises ConfigError."""
        if variant not in VARIANTS:
            raise ConfigError(f"variant must be jchomp or classic, got {variant!r}")
        size = BOARD_SIZE[variant]
        _check("rows", rows, size)
        _check("cols", cols, size)
        if rows * cols < CLASSIC_MIN_CELLS:
            raise ConfigError(
                f"classic Chomp needs at least {CLASSIC_MIN_CELLS} cells, got {rows}×{cols}")
        _check("players", players, PLAYERS)
        if variant == JCHOMP:
            eat = (_check("eat[0]", eat[0], EAT_SIZE), _check("eat[1]", eat[1], EAT_SIZE))
        else:
            eat = (1, 1)
        _check_poison(poison, rows, cols)
        return Config(rows, cols, players, variant, eat, tuple(tuple(p) for p in poison))

    @property
    def cells(self):
        """The number of cells on the board; also OpenSpiel's number of distinct actions."""
        return self.rows * self.cols


def _check_poison(poison, rows, cols):
    most = min(MAX_POISON, rows * cols)
    if not 1 <= len(poison) <= most:
        raise ConfigError(f"poison must list 1–{most} cells, got {len(poison)}")
    seen = set()
    for index, (row, col) in enumerate(poison):
        if not (0 <= row < rows and 0 <= col < cols):
            raise ConfigError(
                f"poison[{index}] must lie inside the {rows}×{cols} board "
                f"(row 0–{rows - 1}, col 0–{cols - 1}), got [{row},{col}]")
        if (row, col) in seen:
            raise ConfigError(
                f"poison[{index}] repeats cell [{row},{col}]; poison cells must be distinct")
        seen.add((row, col))


def config_from_json(obj):
    """The Config of a game record's `config` object (docs/RECORDS.md); raises ConfigError."""
    variant = obj.get("variant", JCHOMP)
    eat = obj.get("eat")
    if variant == JCHOMP and eat is None:
        raise ConfigError(
            "JChomp needs an eat size: eat must be 1–3 rows by 1–3 columns, such as [1,2]")
    if variant == CLASSIC and eat is not None:
        raise ConfigError("classic Chomp has no eat size; leave out eat")
    return Config.make(obj["rows"], obj["cols"], obj["players"], variant,
                       tuple(eat or (1, 1)), [tuple(p) for p in obj["poison"]])


class Board:
    """A position: the uneaten cells, the valid selections, whose turn it is and how it ended.

    Cells and selections are action numbers, row * cols + col.
    """

    def __init__(self, config):
        self.config = config
        self.uneaten = bytearray([1]) * config.cells
        self.poison = frozenset(r * config.cols + c for r, c in config.poison)
        self.to_move = 0
        self.loser = None  # the seat that ate poison
        self.over = False
        self.valid = self._all_valid()

    def copy(self):
        """An independent copy of this position."""
        other = Board.__new__(Board)
        other.__dict__.update(self.__dict__)
        other.uneaten = bytearray(self.uneaten)
        other.valid = list(self.valid)
        return other

    def _all_valid(self):
        cfg = self.config
        er, ec = cfg.eat
        return [r * cfg.cols + c
                for r in range(cfg.rows - er + 1)
                for c in range(cfg.cols - ec + 1)
                if self._block_uneaten(r, c)]

    def _block_uneaten(self, row, col):
        er, ec = self.config.eat
        cols = self.config.cols
        return all(self.uneaten[(row + i) * cols + col + j] for i in range(er) for j in range(ec))

    def eaten_by(self, action):
        """The cells the valid selection `action` eats now."""
        cfg = self.config
        row, col = divmod(action, cfg.cols)
        if cfg.variant == JCHOMP:
            er, ec = cfg.eat
            return [(row + i) * cfg.cols + col + j for i in range(er) for j in range(ec)]
        return [r * cfg.cols + c for r in range(row, cfg.rows) for c in range(col, cfg.cols)
                if self.uneaten[r * cfg.cols + c]]

    def eats_poison(self, action):
        """Whether the valid selection `action` eats a poison cell."""
        return any(cell in self.poison for cell in self.eaten_by(action))

    def play(self, action):
        """Makes the valid selection `action` for the seat to move."""
        if self.over or action not in self.valid:
            raise ValueError(f"action {action} is not a valid selection")
        eaten = self.eaten_by(action)
        for cell in eaten:
            self.uneaten[cell] = 0
        if any(cell in self.poison for cell in eaten):
            self.loser, self.over, self.valid = self.to_move, True, []
            return
        dead = self._invalidated(action, eaten)
        self.valid = [a for a in self.valid if a not in dead]
        if self.valid:
            self.to_move = (self.to_move + 1) % self.config.players
        else:
            self.over = True

    def _invalidated(self, action, eaten):
        """The selections that `action`, eating `eaten`, makes invalid (some perhaps already so)."""
        cfg = self.config
        if cfg.variant == CLASSIC:
            return set(eaten)
        # The JChomp rectangles that overlap the eaten one are anchored less than an eat size
        # away from it along each axis.
        row, col = divmod(action, cfg.cols)
        er, ec = cfg.eat
        return {r * cfg.cols + c
                for r in range(max(0, row - er + 1), min(cfg.rows, row + er))
                for c in range(max(0, col - ec + 1), min(cfg.cols, col + ec))}

    def scores(self):
        """The project's tournament score of every seat once the game is over: the seat that ate
        poison 0 and every other 1; a tie 1/2 each."""
        if self.loser is None:
            return [0.5] * self.config.players
        return [0.0 if seat == self.loser else 1.0 for seat in range(self.config.players)]
