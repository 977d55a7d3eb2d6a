"""Valuing every option in one compiled call: the tile agents on the option kernel against the
reference path (a cloned state per option), old and new in the same run, one JSON line each.

    python benchmarks/option_throughput.py [--quick]

Each measurement plays the same games both ways in this one process (``kernel=False`` is
the reference path, kept callable as the reference) and checks that both made the same
decisions; the ratio is the reference's CPU time over the kernel's (one thread each way:
CPU seconds do not depend on what else the machine runs; ``wall_ratio`` is the same in
wall time).

- ``pretrained``: decisions per CPU second of the tile ``pretrained`` playing every seat of
  whole games (2 players: the expert network alone; 3 and 4 players: the table network
  averaged with the heuristic);
- ``selfplay``: decisions per CPU second of the afterstate self-play (``play_games``, games in
  flight valued in one batch) at its default settings: 2 players, an untrained network of
  the default size (the cost of a decision does not depend on the weights), half of the
  games with a greedy seat as in training (``lineup=training``), and every seat the network
  (``lineup=network``);
- ``teacher``: expert iteration's teacher placements (``play_teacher_game``, the search
  ``pretrained:search=3:2`` in both seats) per CPU second of this process;
- ``search``: CPU seconds per decision of ``pretrained:search=3:2`` (2 players) choosing the
  tile placements of a game played by the greedy agent, the same decisions both ways.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from typing import Any


def emit(**row: Any) -> None:
    print(json.dumps(row), flush=True)


def machine() -> str:
    return f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """(result, wall seconds, CPU seconds of this process)."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def pretrained_games(players: int, deals: list[int], kernel: bool) -> list[int]:
    """Every decision of ``pretrained`` in every seat of the games of ``deals``."""
    from carcassonne_rl.agents import make_agent
    from carcassonne_rl.games.carcassonne import GameConfig, new_game

    agent = make_agent("pretrained", "carcassonne", seed=0)
    agent.kernel = kernel
    codes = []
    for deal in deals:
        state = new_game(GameConfig(players, seed=deal))
        while not state.is_over:
            code = agent.act(state, state.current_player)
            codes.append(code)
            state.apply_code(code)
    return codes


def bench_pretrained(games: int) -> None:
    for players in (2, 3, 4):
        deals = list(range(100, 100 + games))
        pretrained_games(players, deals[:1], True)  # compile, load
        new, w_new, t_new = timed(lambda p=players, d=deals: pretrained_games(p, d, True))
        old, w_old, t_old = timed(lambda p=players, d=deals: pretrained_games(p, d, False))
        assert new == old, "the two paths made different decisions"
        emit(bench="pretrained", players=players, games=games, decisions=len(new),
             old_decisions_per_cpu_s=round(len(old) / t_old, 1),
             new_decisions_per_cpu_s=round(len(new) / t_new, 1), ratio=round(t_old / t_new, 2),
             wall_ratio=round(w_old / w_new, 2), same_decisions=True,
             machine=machine())  # fmt: skip


def bench_selfplay(games: int) -> None:
    from carcassonne_rl.training.afterstate.selfplay import GREEDY, NET, play_games
    from carcassonne_rl.training.afterstate.trainer import AfterstateConfig, Learner, export

    config = AfterstateConfig(workers=1)
    net = export(Learner(config).model, config)
    deals = list(range(500, 500 + games))
    tables = [(2, ())] * games
    for lineup in ("training", "network"):
        if lineup == "training":  # half of the games with one greedy seat, as in training
            seats = [[GREEDY, NET] if g % 4 == 0 else [NET, GREEDY] if g % 4 == 1 else
                     [NET, NET] for g in range(games)]  # fmt: skip
        else:
            seats = [[NET, NET] for _ in range(games)]

        def play(kernel: bool, lineups: list = seats) -> dict:
            out: dict[str, Any] = {"decisions": 0, "x": []}
            for i in range(0, games, config.games_in_flight):
                part = slice(i, i + config.games_in_flight)
                r = play_games(config, net.layers, net.meta, deals[part], None, 0,
                               tables[part], lineups[part], kernel=kernel)  # fmt: skip
                out["decisions"] += r["decisions"]
                out["x"].append(r["x"])
            return out

        play_games(config, net.layers, net.meta, deals[:1], None, 0, tables[:1], seats[:1])
        new, w_new, t_new = timed(lambda: play(True))
        old, w_old, t_old = timed(lambda: play(False))
        same = all((a == b).all() for a, b in zip(new["x"], old["x"], strict=True))
        assert same and new["decisions"] == old["decisions"], "the two paths played differently"
        emit(bench="selfplay", lineup=lineup, games=games, games_in_flight=config.games_in_flight,
             processes=1, decisions=new["decisions"],
             old_decisions_per_cpu_s=round(old["decisions"] / t_old, 1),
             new_decisions_per_cpu_s=round(new["decisions"] / t_new, 1),
             ratio=round(t_old / t_new, 2), wall_ratio=round(w_old / w_new, 2), same_games=True,
             machine=machine())  # fmt: skip


def bench_teacher(placements: int, games: int) -> None:
    import numpy as np

    from carcassonne_rl.training.expert_iteration.positions import play_teacher_game

    spec = "pretrained:search=3:2"
    play_teacher_game(spec, 999, 0, placements=2)  # compile, load

    def play(kernel: bool) -> list[dict]:
        return [play_teacher_game(spec, 700 + g, g, placements=placements, kernel=kernel)
                for g in range(games)]  # fmt: skip

    new, w_new, c_new = timed(lambda: play(True))
    old, w_old, c_old = timed(lambda: play(False))
    for a, b in zip(new, old, strict=True):
        for key in ("x", "target", "prior", "chosen"):
            np.testing.assert_array_equal(a[key], b[key])
    n = games * placements
    emit(bench="teacher", teacher=spec, games=games, placements=n,
         old_cpu_s_per_placement=round(c_old / n, 3),
         new_cpu_s_per_placement=round(c_new / n, 3),
         old_placements_per_cpu_s=round(n / c_old, 2),
         new_placements_per_cpu_s=round(n / c_new, 2), ratio=round(c_old / c_new, 2),
         wall_ratio=round(w_old / w_new, 2), same_rows=True, machine=machine())  # fmt: skip


def bench_search(decisions: int) -> None:
    from carcassonne_rl.agents import make_agent
    from carcassonne_rl.agents.tile.greedy import TileGreedyAgent
    from carcassonne_rl.games.carcassonne import GameConfig, new_game

    spec = "pretrained:search=3:2"
    states = []
    state = new_game(GameConfig(2, seed=321))
    greedy = TileGreedyAgent(0)
    while not state.is_over and len(states) < decisions:
        if state.phase == "place_tile" and state.turn % 2 == 0:
            states.append(state.clone())
        state.apply_code(greedy.act(state, state.current_player))

    def decide(kernel: bool) -> list[int]:
        agent = make_agent(spec, "carcassonne", seed=0)
        agent.kernel = kernel
        return [agent.act(s, s.current_player) for s in states]

    decide(True)  # compile, load
    new, w_new, t_new = timed(lambda: decide(True))
    old, w_old, t_old = timed(lambda: decide(False))
    assert new == old, "the two paths made different decisions"
    emit(bench="search", agent=spec, players=2, decisions=len(states),
         old_cpu_s_per_decision=round(t_old / len(states), 4),
         new_cpu_s_per_decision=round(t_new / len(states), 4), ratio=round(t_old / t_new, 2),
         wall_ratio=round(w_old / w_new, 2), same_decisions=True,
         machine=machine())  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer games (a smoke run)")
    p.add_argument("--only", default="pretrained,selfplay,teacher,search",
                   help="comma-separated measurements")  # fmt: skip
    args = p.parse_args()
    only = set(args.only.split(","))
    if "pretrained" in only:
        bench_pretrained(1 if args.quick else 3)
    if "selfplay" in only:
        bench_selfplay(12 if args.quick else 24)
    if "teacher" in only:
        bench_teacher(4 if args.quick else 12, 1 if args.quick else 2)
    if "search" in only:
        bench_search(4 if args.quick else 16)


if __name__ == "__main__":
    main()
