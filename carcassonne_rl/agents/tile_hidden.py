"""Hidden information of the tile game: the order of the draw pile (and unseen messages).

Search agents must not exploit the state's fixed deck order; before each simulation they
call :func:`resample_hidden` on a clone, which reshuffles what no player has seen.
"""

from __future__ import annotations

import random

try:
    from carcassonne_rl.games.carcassonne import layout as _L
except ImportError:  # pragma: no cover - older engine
    from carcassonne_rl.games.carcassonne import kernels as _L


def resample_hidden(state, rng: random.Random) -> None:
    """Reshuffle, in place, the undrawn tiles (the tile being placed stays) of ``state``.

    Uses the engine's ``shuffle_hidden(seed)`` when it exists (it also reshuffles the unseen
    message cards); otherwise permutes the undrawn part of the deck register directly.
    """
    helper = getattr(state, "shuffle_hidden", None)
    if helper is not None:
        helper(rng.getrandbits(31))
        return
    ints = state._ints
    lo = _L.O_DECK + int(ints[_L.R_DECKPOS])
    hi = _L.O_DECK + int(ints[_L.R_DECKLEN])
    if hi - lo > 1:
        rest = ints[lo:hi].tolist()
        rng.shuffle(rest)
        ints[lo:hi] = rest
