"""``State.stack_next``: the undrawn tiles / message cards reordered so that chosen ones come
next (what OpenSpiel's chance nodes need), the rest sorted; bad input changes nothing."""

from __future__ import annotations

import pytest

from carcassonne_rl.games.carcassonne import GameConfig, new_game


def _finish_turn(state) -> None:
    """Place the tile at its first legal spot, then no follower."""
    state.apply_code(int(state.legal_action_codes()[0]))
    state.apply_code(0)


def test_the_stacked_tile_is_drawn_next_and_the_rest_is_sorted() -> None:
    state = new_game(GameConfig(players=2), draw_order="VUKEAV")
    assert state.current_tile == "V" and state.tiles_drawn == 1
    state.stack_next("K")
    assert state.draw_order == "V" + "K" + "AEUV"  # drawn, stacked, the rest sorted
    _finish_turn(state)
    assert state.current_tile == "K" and state.tiles_drawn == 2
    assert state.remaining_tiles()["K"] == 0 and state.remaining_tiles()["V"] == 1


def test_stacking_two_tiles_and_nothing_sorts_the_rest() -> None:
    state = new_game(GameConfig(players=2), draw_order="VUKEAV")
    state.stack_next("VA")
    assert state.draw_order == "V" + "VA" + "EKU"
    state.stack_next()
    assert state.draw_order == "V" + "AEKUV"


def test_a_tile_not_left_or_not_a_tile_is_refused_and_nothing_changes() -> None:
    state = new_game(GameConfig(players=2), draw_order="VUKEAV")
    for bad in ("B", "KK", "k", "?"):
        with pytest.raises(ValueError, match="not left to draw"):
            state.stack_next(bad)
        assert state.draw_order == "VUKEAV"


def test_message_cards_are_stacked_until_all_eight_were_seen() -> None:
    config = GameConfig(players=2, expansions=("messages",))
    state = new_game(config, draw_order="VUKE", message_order="81234567")
    state.stack_next("", "53")
    assert state.message_order == "53124678"
    with pytest.raises(ValueError, match="message card"):
        state.stack_next("", "9")
    with pytest.raises(ValueError, match="message card"):
        state.stack_next("", "55")
    assert state.message_order == "53124678"
