"""The tile step's fit with the game's outcome in the played options' targets (AlphaZero's
``z`` beside the search's value): does the outcome teach the network what the search's
one-round lookahead does not?

    python benchmarks/tile_outcome_fit.py runs/loop3j/iteration_0/teacher \
        runs/loop3i/iteration_0/teacher --init carcassonne_table_3p_rank2.npz \
        --outcome-weight 0.3 --out runs/outcome_3p.npz

The fit is ``expert-iteration``'s (``finetune``: 4 epochs, Adam 3e-4, the ranking term at
``--rank-weight``, the target ``blend`` where the ``--init`` network is played averaged with
the heuristic, else ``search``), with ``outcome_weight`` W: the played option's margin is
``(1 - W)`` the search's plus ``W`` the mover's final margin in that game (the ranking term
keeps the search's values). W = 0 is the plain fit, byte for byte.

The mover of a row: in games against other agents (the folder's ``positions.json`` names
``opponents``) the teacher's seat of that game; where the teacher played every seat, the
turn order read off the tiles left after each placement (a tile that fits nowhere, set aside,
would shift it: rare in the base game, so only base-game folders are read). One JSON line per
epoch (``finetune``'s report); the network is written to ``--out``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

TILES_LEFT = -7  # the first global feature of both feature sets (tiles left / 72)


def movers(x: np.ndarray, players: int) -> np.ndarray:
    """The seat of each row of one self-play game from its tiles-left feature (seat 0 placed
    the game's first tile; ``x``: the game's rows in order)."""
    left = np.round(x[:, TILES_LEFT] * 72.0).astype(np.int64)
    return (int(left.max()) - left) % players if len(left) else left


def game_outcomes(files: list[Path], settings: list[dict], data: dict[str, Any],
                  scale: float) -> np.ndarray:  # fmt: skip
    """Per row of ``data`` (``load_games(files)``), the mover's final margin in value units;
    each game's table and teacher seat as ``positions.teacher_jobs`` gave them (the games of
    a folder must be its games ``0 .. N - 1``)."""
    from carcassonne_rl.training.expert_iteration.positions import teacher_jobs

    jobs: dict[str, tuple] = {}
    for folder, meta in {f.parent: m for f, m in zip(files, settings, strict=True)}.items():
        n = sum(f.parent == folder for f in files)
        jobs.update((job[-1], job) for job in teacher_jobs(
            folder, n, meta["teacher"], int(meta["seed"]), tables=tuple(meta.get("tables") or (2,)),
            opponents=meta.get("opponents")))  # fmt: skip
    out = np.full(len(data["target"]), np.nan)
    for number, path in enumerate(files):
        job = jobs.get(str(path))
        if job is None:
            raise ValueError(f"{path.name}: not one of its folder's teacher games 0 .. N - 1")
        _game, players, *_, versus, _path = job
        rows = np.flatnonzero(data["game"] == number)
        with np.load(path) as z:
            scores = z["scores"].astype(np.float64)
        if versus is not None:
            seat = np.full(len(rows), versus[1])
        else:
            seat = movers(data["x"][rows], players)
        rival = np.array([np.delete(scores, s).max() for s in seat])
        out[rows] = np.tanh((scores[seat] - rival) / scale)
    return out


def read_folder(folder: Path) -> tuple[list[Path], dict]:
    """The game files of a teacher folder and its settings (``positions.json``)."""
    settings = folder / "positions.json"
    if not settings.is_file():
        raise ValueError(f"{folder}: no positions.json (not a folder of teacher games)")
    meta = json.loads(settings.read_text())
    if meta.get("variants", ["base"]) != ["base"] and not meta.get("opponents"):
        raise ValueError(f"{folder}: self-play games with expansions (the turn order is read "
                         "off the tiles left only in the base game)")  # fmt: skip
    files = sorted(folder.glob("game_*.npz"))
    if not files:
        raise ValueError(f"{folder}: no teacher games (game_*.npz)")
    return files, meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("teacher", type=Path, nargs="+", help="folders of teacher games")
    parser.add_argument("--init", required=True, help="the network the fit starts from")
    parser.add_argument("--out", type=Path, required=True, help="where the network goes")
    parser.add_argument("--outcome-weight", type=float, default=0.3, help="W (0.3)")
    parser.add_argument("--rank-weight", type=float, default=0.5, help="ranking term (0.5)")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--seed", type=int, default=0, help="held-out games (0)")
    args = parser.parse_args(argv)
    if not 0.0 <= args.outcome_weight <= 1.0:
        parser.error(f"--outcome-weight must be in [0, 1], got {args.outcome_weight}")
    from carcassonne_rl.agents.pretrained import shipped_or_given
    from carcassonne_rl.agents.tile.afterstate import load_value_net
    from carcassonne_rl.training.expert_iteration.finetune import finetune
    from carcassonne_rl.training.expert_iteration.positions import load_games

    try:
        files, settings = [], []
        for folder in args.teacher:
            found, meta = read_folder(folder)
            files += found
            settings += [meta] * len(found)
        net = load_value_net(shipped_or_given(args.init))
        data = load_games(files)
        scale = float(net.meta["value_scale"])
        data["outcome"] = game_outcomes(files, settings, data, scale)
        kind = "blend" if "heuristic_blend" in net.meta else "search"
        out, _ = finetune(data, args.init, epochs=args.epochs, learning_rate=args.learning_rate,
                          target_kind=kind, seed=args.seed, rank_weight=args.rank_weight,
                          outcome_weight=args.outcome_weight,
                          on_epoch=lambda _, r: print(json.dumps(
                              {"benchmark": "tile_outcome_fit", **r}), flush=True))  # fmt: skip
    except (OSError, ValueError) as err:
        parser.error(str(err))
    out.save(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
