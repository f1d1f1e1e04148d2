"""Classic Chomp positions for the scripts that score bots exactly (classic_best.py,
classic_model.py): a position is the tuple of its rows' lengths, the poison at 0,0."""
from functools import lru_cache


@lru_cache(maxsize=None)
def moves(shape):
    """The shapes after each safe selection (every uneaten cell but 0,0)."""
    out = []
    for r, length in enumerate(shape):
        for c in range(length):
            if r == 0 and c == 0:
                continue
            out.append(tuple(min(x, c) if i >= r else x for i, x in enumerate(shape)))
    return out


def stuck(shape):
    """Only the poison is left: the mover must eat it."""
    return shape[0] == 1 and all(length == 0 for length in shape[1:])
