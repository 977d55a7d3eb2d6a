"""The card inference's temperature fit (``inference_fit``): on games of seats that choose by
``softmax(heuristic / T0)`` it finds about ``T0``, and a folder holding anything but game
records gets one clear message."""

from __future__ import annotations

import json

import numpy as np
import pytest

from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent
from carcassonne_rl.agents.card.inference import heuristic_values
from carcassonne_rl.agents.card.inference_fit import fit_temperature, main
from carcassonne_rl.games.cardcassonne import new_game, view
from carcassonne_rl.games.cardcassonne.config import GameConfig


def softmax_game(seed: int, t0: float) -> str:
    """A 2-player game whose turn decisions are drawn from ``softmax(heuristic / t0)`` (the
    other decisions the heuristic's), as a record."""
    rng = np.random.default_rng(seed)
    values = heuristic_values()
    s = new_game(GameConfig(players=2, seed=seed))
    agents = [CardHeuristicAgent(q) for q in range(2)]
    while not s.is_over:
        p = s.current_player
        legal = s.legal_codes()
        if s.phase == "turn" and len(legal) > 1:
            z = values(view(s, p), legal) / t0
            w = np.exp(z - z.max())
            s.apply_code(legal[int(rng.choice(len(legal), p=w / w.sum()))])
        else:
            s.apply_code(agents[p].act(s, p))
    return s.to_json()


def test_the_fit_finds_the_temperature_the_games_were_played_at() -> None:
    records = [softmax_game(seed, 4.0) for seed in range(6)]
    t, ll, n = fit_temperature(records, heuristic_values())
    assert n > 300 and ll < 0
    assert 4.0 / 1.5 < t < 4.0 * 1.5
    # a colder player: a lower temperature fitted
    cold, _, _ = fit_temperature([softmax_game(seed, 1.0) for seed in range(6)],
                                 heuristic_values())  # fmt: skip
    assert cold < t / 2


def test_a_folder_with_other_files_gets_one_clear_message(tmp_path, capsys) -> None:
    (tmp_path / "game000.json").write_text(softmax_game(0, 4.0))
    (tmp_path / "arena.json").write_text(json.dumps({"games": 2}))
    with pytest.raises(SystemExit, match="arena.json: not a card game record"):
        main([str(tmp_path)])
    with pytest.raises(SystemExit, match="no game records"):
        main([str(tmp_path / "empty")])
