"""Tile teacher games replayed: the rows' inputs computed again in any feature set, from
what each game file keeps (:data:`.positions.REPLAY_FIELDS`, the codes played, the deal,
table and expansions), so a network reading new inputs can be fitted on games recorded
before the inputs existed."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .positions import REPLAY_FIELDS


def replay_features(game: Mapping[str, np.ndarray], features: str) -> np.ndarray:
    """The feature set ``features`` (a name of ``encoders.features.table.FEATURE_SETS``) of
    every row of one tile teacher game (a file's arrays, ``np.load``), computed again: the
    game replayed from its ``codes``, each row's option settled from the position before its
    placement (``afterstate.option_state``) and seen from the seat that moved there. Rows in
    file order, float32. ``ValueError`` for a file recorded without what replays it
    (:data:`REPLAY_FIELDS`, ``codes``)."""
    from carcassonne_rl.agents.tile.afterstate import option_state
    from carcassonne_rl.encoders.features.table import feature_set, seat_features
    from carcassonne_rl.games.errors import IllegalActionError
    from carcassonne_rl.games.registry import new_game

    width = feature_set(features)[0]
    need = {*REPLAY_FIELDS, "codes", "deal", "players", "expansions"}
    missing = sorted(need - set(getattr(game, "files", game)))
    if missing:
        raise ValueError(f"the teacher game has no {', '.join(missing)}: it was recorded "
                         "before its rows could be replayed")  # fmt: skip
    text = str(game["expansions"])
    state = new_game("carcassonne", int(game["players"]), int(game["deal"]),
                     tuple(text.split("+")) if text else ())  # fmt: skip
    codes = game["codes"]
    out = np.zeros((len(game["ply"]), width), np.float32)
    done = 0
    for row, (ply, code, follower) in enumerate(
        zip(game["ply"], game["option"], game["follower"], strict=True)
    ):
        if ply < done:
            raise ValueError(f"row {row}: its ply {ply} comes before the row before it")
        try:
            for c in codes[done:ply]:
                state.apply_code(int(c))
            done = int(ply)
            after = option_state(state, int(code), int(follower))
        except IllegalActionError as err:
            raise ValueError(f"row {row}: the game does not replay to its option at ply "
                             f"{ply}: {err}") from None  # fmt: skip
        out[row] = seat_features(after, state.current_player, features)
    return out
