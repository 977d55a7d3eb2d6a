"""Hidden information of the tile game: the order of the draw pile and of unseen messages.

Search agents must not exploit the state's fixed deck order; before each simulation they
call :func:`resample_hidden` on a clone. The result depends only on what the players know
(the multiset of undrawn tiles / unseen message cards) and on ``rng``: the hidden part is
put in a canonical (sorted) order, then shuffled, so two states that differ only in hidden
order give the same samples for the same ``rng`` (the information test relies on this).
"""

from __future__ import annotations

import random

try:
    from carcassonne_rl.games.carcassonne import layout as _L
except ImportError:  # pragma: no cover - older engine
    from carcassonne_rl.games.carcassonne import kernels as _L


def _shuffle_slice(ints, lo: int, hi: int, rng: random.Random) -> None:
    if hi - lo > 1:
        rest = sorted(ints[lo:hi].tolist())
        rng.shuffle(rest)
        ints[lo:hi] = rest


def resample_hidden(state, rng: random.Random) -> None:
    """Reshuffle, in place, the undrawn tiles (the tile being placed stays) and the message
    cards not drawn yet (The Messages only: without them the unused stack keeps its fixed
    order, so the state's record still loads) of ``state``."""
    ints = state._ints
    _shuffle_slice(
        ints, _L.O_DECK + int(ints[_L.R_DECKPOS]), _L.O_DECK + int(ints[_L.R_DECKLEN]), rng
    )
    msg_pos = getattr(_L, "R_MSGPOS", None)
    if msg_pos is not None and getattr(state.config, "messages", False):
        seen = int(ints[msg_pos])
        if seen < _L.NUM_MESSAGES:
            _shuffle_slice(ints, _L.O_MSGDECK + seen, _L.O_MSGDECK + _L.NUM_MESSAGES, rng)
