"""Teacher demonstrations for the features policy: played, cached and turned into option rows.

A demonstration game is the warm start's cache file (``game_DEAL.npz``, see
``training/ppo/warm_start.py``): the ``carcassonne_v1`` observation of every decision, its
mask, the move played and the teacher's value of every legal action. :func:`play_demos`
plays the missing games of a folder (resumable: a cut-short collection goes on game by
game), in this process, a pool of processes or as Ray tasks on a cluster (``address``: the
driver writes each game atomically as its task returns it, and the games of a worker that
dies are played again elsewhere; the same seeds give the same files either way);
:func:`load_demos` computes the option features of every decision with at least two
legal options.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from carcassonne_rl.agents.tile.obs_policy.features import option_features
from carcassonne_rl.runtime import seeds
from carcassonne_rl.training.ppo.warm_start import load_demo_game, play_demo_game, save_demo_game
from carcassonne_rl.training.train_config import TrainConfig

HEADS = ("place", "follow")


def demo_deal(seed: int, game: int) -> int:
    """The deal of demonstration game ``game`` of seed ``seed`` (the warm start's numbering)."""
    return seeds.demo_deal(seeds.demo_first_deal(seed), game)


#: one demonstration game: (config, deal, agent seed, file to write)
DemoJob = tuple[TrainConfig, int, int, str]


def demo_jobs(folder: Path, games: int, seed: int, config: TrainConfig,
              first: int = 0) -> list[DemoJob]:  # fmt: skip
    """The jobs of demonstration games ``first .. games - 1`` of ``seed`` (present or not)."""
    jobs = []
    for g in range(first, games):
        deal = demo_deal(seed, g)
        agent_seed = seeds.demo_agent_seed(seeds.demo_first_deal(seed), g)
        jobs.append((config, deal, agent_seed, str(Path(folder) / f"game_{deal}.npz")))
    return jobs


def play_job(job: DemoJob) -> dict:
    """One demonstration game (a Ray task's work: the driver writes it)."""
    config, deal, agent_seed, _ = job
    return play_demo_game(config, deal, agent_seed)


def _play_one(job: DemoJob) -> str:
    save_demo_game(Path(job[-1]), play_job(job))  # atomic: a killed run leaves no half file
    return job[-1]


def play_demos(
    folder: Path,
    games: int,
    seed: int,
    teacher: str = "pretrained",
    on_game: Callable[[int], None] | None = None,
    players: int = 2,
    first: int = 0,
    workers: int = 1,
    address: str | None = None,
) -> int:
    """Play the teacher in every seat of the deals ``first .. games - 1`` of ``seed`` whose
    file is missing from ``folder`` (base game, ``players`` seats), with ``workers``
    processes or as Ray tasks on the cluster at ``address`` (the driver writes each game as
    its task returns; a dead worker's games are played again elsewhere; the same files
    either way). ``on_game(done)`` after each game played: how many of the deals are in the
    folder. Returns how many were played."""
    config = TrainConfig(
        game="carcassonne", seed=seed, observation="v1", warm_start_agent=teacher,
        warm_start_temperature=1.0, players=players,
    )  # fmt: skip
    check_demo_folder(folder, {"teacher": teacher, "players": players, "seed": seed})
    todo = [j for j in demo_jobs(folder, games, seed, config, first) if not Path(j[-1]).exists()]
    done = max(0, games - first) - len(todo)
    remote = _play_remote(todo, address) if address and todo else None
    local = not address and workers > 1 and len(todo) > 1
    pool = ProcessPoolExecutor(min(workers, len(todo))) if local else None
    try:
        for _ in remote or (pool.map if pool else map)(_play_one, todo):
            done += 1
            if on_game is not None:
                on_game(done)
    finally:
        if remote is not None:
            remote.close()  # its tasks cancelled, the Ray session closed
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return len(todo)


def _play_remote(todo: list[DemoJob], address: str) -> Generator[str, None, None]:
    """Play ``todo`` as Ray tasks; write each game as it comes back (any order); its path."""
    from carcassonne_rl.arena.remote_games import absolute_spec, iter_remote_unordered
    from carcassonne_rl.runtime.ray_session import ray_session

    remote = [(replace(j[0], warm_start_agent=absolute_spec(j[0].warm_start_agent)), *j[1:])
              for j in todo]  # fmt: skip
    with ray_session(address):
        for index, game in iter_remote_unordered(play_job, remote):
            save_demo_game(Path(todo[index][-1]), game)
            yield todo[index][-1]


def check_demo_folder(folder: Path, settings: dict) -> None:
    """Record the settings of the games in ``folder`` (``demos.json``), or check that they
    are those already recorded (``ValueError``: one folder holds one kind of game)."""
    from carcassonne_rl.training.run_files import check_folder_settings

    check_folder_settings(folder, "demos.json", settings, holds="games")


@dataclass
class HeadRows:
    """The option rows of one head: ``rows[start[d] : start[d] + count[d]]`` are decision
    ``d``'s legal options, ``values`` the teacher's value of each, ``game`` the decision's
    game (for a split by game)."""

    rows: np.ndarray
    values: np.ndarray
    start: np.ndarray
    count: np.ndarray
    game: np.ndarray

    @property
    def decisions(self) -> int:
        return len(self.count)


def demo_files(folders: list[Path]) -> list[Path]:
    """The demonstration games of ``folders`` (each file once, sorted by name)."""
    files: dict[str, Path] = {}
    for folder in folders:
        if not folder.is_dir():
            raise ValueError(f"no demonstration folder {folder}")
        for path in sorted(folder.glob("game_*.npz")):
            files.setdefault(path.name, path)
    if not files:
        raise ValueError(f"no demonstration games (game_*.npz) in {', '.join(map(str, folders))}")
    return [files[name] for name in sorted(files)]


def load_demos(files: list[Path]) -> dict[str, HeadRows]:
    """The option rows of every decision of ``files`` with two or more legal options."""
    parts: dict[str, dict[str, list]] = {h: {"rows": [], "values": [], "count": [], "game": []}
                                          for h in HEADS}  # fmt: skip
    for number, path in enumerate(files):
        game = load_demo_game(path)
        if "values" not in game or not isinstance(game["obs"], dict):
            raise ValueError(f"{path}: not a carcassonne_v1 demonstration with teacher values")
        board, glob = game["obs"]["board"], game["obs"]["globals"]
        for i, mask in enumerate(game["masks"]):
            legal = np.flatnonzero(mask)
            if len(legal) < 2:
                continue
            head, rows = option_features(board[i], glob[i], legal)
            part = parts[head]
            part["rows"].append(rows)
            part["values"].append(game["values"][i][legal].astype(np.float32))
            part["count"].append(len(legal))
            part["game"].append(number)
    out = {}
    for head, part in parts.items():
        count = np.asarray(part["count"], np.int64)
        out[head] = HeadRows(
            rows=np.concatenate(part["rows"]) if part["rows"] else np.zeros((0, 1), np.float32),
            values=np.concatenate(part["values"]) if part["values"] else np.zeros(0, np.float32),
            start=np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64),
            count=count,
            game=np.asarray(part["game"], np.int64),
        )
    return out
