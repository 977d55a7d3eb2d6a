"""What the pictures show: the tile to place, pennants, game over, plot intervals."""

from __future__ import annotations

import json
import random

import numpy as np

from carcassonne_rl.envs import tile_picture
from carcassonne_rl.envs.card_picture import draw_card_table
from carcassonne_rl.envs.palette import PLAYER_COLOURS
from carcassonne_rl.games import cardcassonne as card
from carcassonne_rl.games.carcassonne import GameConfig, new_game


def _colours(image: np.ndarray) -> set[tuple[int, int, int]]:
    return {tuple(int(c) for c in px) for px in image.reshape(-1, 3)}


def test_the_tile_to_place_is_drawn_beside_the_board() -> None:
    with_city = tile_picture.draw_board(new_game(GameConfig(2), draw_order="C"))  # all city
    with_road = tile_picture.draw_board(new_game(GameConfig(2), draw_order="U"))  # a road
    assert with_city.shape == with_road.shape
    panel = slice(with_city.shape[0] - tile_picture.T - 20, with_city.shape[0])
    right = slice(with_city.shape[1] - tile_picture.T - 10, with_city.shape[1])
    assert tile_picture.CITY_BROWN in _colours(with_city[panel, right])
    assert tile_picture.CITY_BROWN not in _colours(with_road[panel, right])
    assert tile_picture.ROAD_WHITE in _colours(with_road[panel, right])


def test_pennants_are_drawn_in_no_player_colour() -> None:
    assert tile_picture.PENNANT_FILL not in PLAYER_COLOURS
    assert tile_picture.PENNANT_EDGE not in PLAYER_COLOURS
    picture = tile_picture.draw_board(new_game(GameConfig(2), draw_order="C"))  # C has one
    assert tile_picture.PENNANT_FILL in _colours(picture)


def test_card_table_header_at_game_over(monkeypatch) -> None:
    state = card.new_game(card.GameConfig(players=2, seed=1))
    rng = random.Random(0)
    while not state.is_over:
        codes = state.legal_action_codes()
        state.apply_code(int(codes[rng.randrange(len(codes))]))
    titles = []
    real_text = draw_card_table.__globals__["ImageDraw"].ImageDraw.text

    def spy(self, xy, text, *args, **kwargs):
        titles.append(text)
        return real_text(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(draw_card_table.__globals__["ImageDraw"].ImageDraw, "text", spy)
    draw_card_table(state)
    winners = ", ".join(f"P{p}" for p in state.winners())
    assert (
        titles[0] == f"Cardcassonne - game over - won by {winners} with {max(state.scores)} points"
    )
    assert not any("P-1" in t for t in titles)


def test_ratings_plot_marks_a_perfect_record_as_open(tmp_path, monkeypatch) -> None:
    from matplotlib.axes import Axes

    from carcassonne_rl.arena.report import plot_ratings

    texts = []
    real_text = Axes.text

    def spy(self, x, y, s, *args, **kwargs):
        texts.append(s)
        return real_text(self, x, y, s, *args, **kwargs)

    monkeypatch.setattr(Axes, "text", spy)
    entries = {
        "random": {"elo": 0.0, "elo_ci95": [0.0, 0.0], "win_rate": 0.0, "games": 8},
        "greedy": {"elo": 650.0, "elo_ci95": [650.0, 650.0], "win_rate": 1.0, "games": 8},
    }
    summary = {"entries": entries, "game": "cardcassonne", "expansions": [], "players": 2,
               "games": 8}  # fmt: skip
    plot_ratings(json.loads(json.dumps(summary)), tmp_path / "ratings.png")
    assert "650 (100% wins): perfect record, interval open" in texts
    assert "0 (0% wins), the anchor" in texts
    assert (tmp_path / "ratings.png").read_bytes()[:4] == b"\x89PNG"
