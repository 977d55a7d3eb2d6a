"""The engines' private attributes stay private: code outside ``games/`` uses the public
surface (``state.kernel_arrays()``, ``state.phase_index``, ``state.scores``, ...; see
docs/engine_api.md), and both engines resample hidden information the same way.

The private names are collected from the engines' source by AST: every ``self._x`` /
``cls._x`` assigned, every ``_x`` in a ``__slots__`` and every ``_x`` defined in a class body.
A module of the package outside ``games/`` may not read such a name on anything but its own
``self`` / ``cls`` (an adapter's own ``_frozen`` or PettingZoo's ``_cumulative_rewards`` are
no engine names and pass)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import numpy as np
import pytest

from carcassonne_rl.games import cardcassonne
from carcassonne_rl.games.carcassonne import GameConfig, new_game
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.games.cardcassonne import determinize

PACKAGE = Path(__file__).resolve().parents[1] / "carcassonne_rl"
GAMES = PACKAGE / "games"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def engine_private_names() -> set[str]:
    """The underscore attribute names the engines define (instances and classes)."""
    names: set[str] = set()
    for path in GAMES.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                if _is_self(node.value) and _private(node.attr):
                    names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names.add(item.name)
                    elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                        targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                        for target in targets:
                            if not isinstance(target, ast.Name):
                                continue
                            names.add(target.id)
                            if target.id == "__slots__" and item.value is not None:
                                names.update(
                                    c.value
                                    for c in ast.walk(item.value)
                                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                                )
    return {n for n in names if _private(n)}


def private_reads(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of every attribute in ``names`` read or written on another object than
    ``self`` / ``cls``."""
    return sorted(
        (node.lineno, node.attr)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr in names and not _is_self(node.value)
    )


@pytest.fixture(scope="module")
def names() -> set[str]:
    return engine_private_names()


def test_the_engine_names_are_collected(names) -> None:
    # slots of both engines, self-assigned attributes and private methods
    assert {"_board", "_ints", "_tiles", "_segs", "_events", "_pool"} <= names
    assert {"_phase", "_scores", "_start", "_raise_for", "_run_setup"} <= names
    # an adapter's own attributes and PettingZoo's are not engine names
    assert not {"_frozen", "_pending", "_cumulative_rewards", "_was_dead_step"} & names
    assert not any(n.startswith("__") for n in names)


def test_no_module_outside_games_reads_an_engine_private_attribute(names) -> None:
    found = []
    for path in PACKAGE.rglob("*.py"):
        if GAMES in path.parents:
            continue
        for line, name in private_reads(path.read_text(), names):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{line}: .{name}")
    assert not found, "engine internals read outside games/:\n" + "\n".join(found)


def test_a_planted_read_is_flagged(names) -> None:
    source = (
        "class Adapter:\n"
        "    def f(self, state, raw):\n"
        "        self._ints = 1\n"  # its own attribute: allowed
        "        raw._cumulative_rewards[0] = 0\n"  # PettingZoo's: allowed
        "        state._frozen = None\n"  # not an engine name: allowed
        "        n = state._ints[0] + state.kernel_arrays().ints[0]\n"
        "        return n, self.cache._phase, state._start\n"
    )
    assert private_reads(source, names) == [(6, "_ints"), (7, "_phase"), (7, "_start")]


def test_kernel_arrays_are_the_state_own_arrays() -> None:
    s = new_game(GameConfig(players=3, seed=4, expansions=("messages",)))
    a = s.kernel_arrays()
    assert a.ints is s.kernel_arrays().ints  # no copies
    assert s.phase_index == a.ints[L.R_PHASE]
    assert L.PHASE_NAMES[s.phase_index] == s.phase
    assert s.tiles_left == sum(s.remaining_tiles().values())
    copy = s.clone().kernel_arrays()
    for mine, other in zip(a, copy, strict=True):
        assert mine is not other and np.array_equal(mine, other)


@pytest.mark.parametrize("expansions", [(), ("messages",)])
def test_tile_resample_hidden_keeps_what_is_known(expansions) -> None:
    s = new_game(GameConfig(players=2, seed=9, expansions=expansions))
    for _ in range(15):
        s.apply_code(s.legal_codes()[0])
    before, messages = s.draw_order, s.message_order
    orders = set()
    for seed in range(12):
        t = s.resample_hidden(random.Random(seed), s.current_player)
        assert s.draw_order == before and s.message_order == messages  # the original stays
        drawn = s.tiles_drawn
        assert t.draw_order[:drawn] == before[:drawn]
        assert sorted(t.draw_order[drawn:]) == sorted(before[drawn:])
        assert t.history == s.history and t.legal_codes() == s.legal_codes()
        seen = len(s.messages_seen)
        if expansions:
            assert t.message_order[:seen] == messages[:seen]
            assert sorted(t.message_order) == sorted(messages)
        else:
            assert t.message_order == messages  # unused: left in its fixed order
        orders.add(t.draw_order)
        # the sample depends only on what remains: a state differing in hidden order agrees
        other = s.resample_hidden(random.Random(100 + seed))
        again = other.resample_hidden(random.Random(seed))
        assert again.draw_order == t.draw_order and again.message_order == t.message_order
    assert len(orders) > 10


def test_card_resample_hidden_is_determinize() -> None:
    s = cardcassonne.new_game(cardcassonne.GameConfig(players=3, seed=2))
    while s.round < 2:
        s.apply_code(s.legal_codes()[-1])
    for player in range(3):
        t = s.resample_hidden(random.Random(7), player)
        d = determinize(s, player, random.Random(7))
        assert t.view(player) == s.view(player)
        assert (t.hands, t.rows, t.card_order) == (d.hands, d.rows, d.card_order)
        assert t.phase_index == s.phase_index and t.scores.tolist() == s.scores.tolist()
