"""Warm start: imitate a baseline agent before self-play (behaviour cloning + value fit).

Self-play from a uniform policy spends most of a small CPU budget finding out that
followers should go on features that can be completed. The warm start plays
``warm_start_games`` games of the ``warm_start_agent`` (default ``greedy``) against itself,
records every decision from the decider's seat (observation, mask, chosen action, and the
return the env's reward mode would give from there on), and fits the policy to the actions
(cross-entropy over the legal actions) and the value head to the returns, for
``warm_start_epochs`` epochs. PPO self-play then starts from that policy. Set
``warm_start_games=0`` for pure self-play from scratch.

With ``warm_start_augment`` (tile game) every sample is seen turned by a quarter turn more
in each epoch (``encoders.tile_symmetry``): over 4 epochs, in all 4 rotations, at the cost
of one epoch each (the samples are turned batch by batch, not stored four times).

With ``observation="v1"`` the samples are ``carcassonne_v1`` dicts, stored as
``data["obs"] = {"board": (N, 46, W, W), "globals": (N, 113)}``.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.policy_agent import make_encoder
from carcassonne_rl.arena.match import Setup
from carcassonne_rl.encoders import TileEncoder
from carcassonne_rl.encoders.tile_encoder import NUM_PLANES
from carcassonne_rl.encoders.tile_symmetry import rotate_batch
from carcassonne_rl.runtime.progress import progress_bar
from carcassonne_rl.training.train_config import TrainConfig

SCORE_SCALE = 100.0  # as the env's "score_diff" reward mode


def _terminal(scores: np.ndarray, winners: list[int], seat: int) -> float:
    """The env's "win_loss" reward: +1 sole winner, 0 shared win, -1 otherwise."""
    if seat in winners:
        return 1.0 if len(winners) == 1 else 0.0
    return -1.0


def _advantage(scores: np.ndarray, seat: int) -> float:
    others = np.delete(scores, seat)
    return float(scores[seat] - others.mean())


def collect(
    config: TrainConfig,
    games: int,
    seed: int = 10_000,
    progress: bool = False,
    cache: Path | None = None,
) -> dict[str, Any]:
    """Demonstrations of ``config.warm_start_agent`` playing all seats of ``games`` games
    (``progress``: a bar on a terminal, a few plain lines otherwise). With ``cache`` (a
    folder), each game's demonstrations are saved there as ``game_SEED.npz`` once played and
    read back instead of played again: a collection cut short resumes game by game."""
    bar = progress_bar(games, "warm start", "game") if progress else None
    parts: list[dict[str, Any]] = []
    for g in range(games):
        path = cache / f"game_{seed + g}.npz" if cache is not None else None
        if path is not None and path.exists():
            parts.append(_load_game(path))
        else:
            parts.append(_play_game(config, seed + g, seed + 97 * g))
            if path is not None:
                _save_game(path, parts[-1])
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return {
        "obs": _concat([p["obs"] for p in parts]),
        "masks": np.concatenate([p["masks"] for p in parts]),
        "actions": np.concatenate([p["actions"] for p in parts]),
        "returns": np.concatenate([p["returns"] for p in parts]),
    }


def _concat(chunks: list) -> Any:
    if chunks and isinstance(chunks[0], dict):
        return {key: np.concatenate([c[key] for c in chunks]) for key in chunks[0]}
    return np.concatenate(chunks)


def _save_game(path: Path, game: dict[str, Any]) -> None:
    """One game's demonstrations, written atomically (compressed: the planes are sparse)."""
    from carcassonne_rl.training.run_files import atomic_write_bytes

    obs = game["obs"]
    arrays = {f"obs_{k}": v for k, v in obs.items()} if isinstance(obs, dict) else {"obs": obs}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays, masks=np.packbits(game["masks"], axis=1),
                        mask_size=game["masks"].shape[1], actions=game["actions"],
                        returns=game["returns"])  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buffer.getvalue())


def _load_game(path: Path) -> dict[str, Any]:
    with np.load(path) as z:
        keys = [k for k in z.files if k.startswith("obs_")]
        obs = {k[4:]: z[k] for k in keys} if keys else z["obs"]
        size = int(z["mask_size"])
        masks = np.unpackbits(z["masks"], axis=1, count=size).astype(bool)
        return {"obs": obs, "masks": masks, "actions": z["actions"], "returns": z["returns"]}


def _play_game(config: TrainConfig, deal: int, agent_seed: int) -> dict[str, Any]:
    """The demonstrations of one game (``deal``) of ``config.warm_start_agent`` in every
    seat (seat ``p``'s agent seeded ``agent_seed + p``)."""
    encoder = make_encoder(config.game, config.expansions, config.window, config.observation)
    flat = config.env_name == "carcassonne_v0"
    state = Setup(config.game, config.players, config.expansions).new_state(deal)
    agents = [
        make_agent(config.warm_start_agent, config.game, seed=agent_seed + p)
        for p in range(config.players)
    ]
    obs, masks, actions, seats, diffs = [], [], [], [], []
    while not state.is_over:
        p = state.current_player
        o = encoder.encode(state, p)
        obs.append(o.reshape(-1) if flat else o)
        masks.append(encoder.action_mask(state).astype(bool))
        code = agents[p].act(state, p)
        index = encoder.index_of(state, code)
        if index < 0:  # outside the window (never seen with the default window)
            raise RuntimeError(f"demonstration move {code} not expressible by the encoder")
        actions.append(index)
        seats.append(p)
        diffs.append(_advantage(state.scores, p))
        state.apply_code(int(code))
    final = state.scores
    winners = state.winners()
    returns = []
    for seat, diff in zip(seats, diffs, strict=True):
        r = _terminal(final, winners, seat)
        if config.reward_mode == "score_diff":
            r += (_advantage(final, seat) - diff) / SCORE_SCALE
        returns.append(r)
    return {
        "obs": _stack(obs),
        "masks": np.stack(masks),
        "actions": np.asarray(actions, np.int64),
        "returns": np.asarray(returns, np.float32),
    }


def _stack(obs: list) -> np.ndarray | dict[str, np.ndarray]:
    """Observations stacked: one array, or one array per key of dict observations (v1)."""
    if obs and isinstance(obs[0], dict):
        return {key: np.stack([o[key] for o in obs]) for key in obs[0]}
    return np.stack(obs)


def _rows(obs: np.ndarray | dict[str, np.ndarray], idx: np.ndarray):
    return {k: v[idx] for k, v in obs.items()} if isinstance(obs, dict) else obs[idx]


def _turned(encoder: TileEncoder, obs, masks: np.ndarray, actions: np.ndarray,
            turns: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray]:  # fmt: skip
    """A batch of tile-game samples (flat v0 planes or v1 dicts), sample ``i`` turned
    ``turns[i]`` quarter turns. The global values never turn: v1's ``globals`` stay."""
    w = encoder.window
    if isinstance(obs, dict):
        board = obs["board"]
        planes = np.zeros((len(board), NUM_PLANES, w, w), np.uint8)  # globals: unused zeros
        planes[:, : board.shape[1]] = board
        planes, masks, actions = rotate_batch(planes, masks, actions, turns, w, encoder.messages)
        return {"board": planes[:, : board.shape[1]], "globals": obs["globals"]}, masks, actions
    planes = obs.reshape(len(obs), -1, w, w)
    planes, masks, actions = rotate_batch(planes, masks, actions, turns, w, encoder.messages)
    return planes.reshape(len(obs), -1), masks, actions


def pretrain(model, data: dict[str, np.ndarray], epochs: int, batch_size: int = 256,
             seed: int = 0, augment: TileEncoder | None = None,
             learning_rate: float | None = None,
             on_epoch: Callable[[int, dict[str, float]], None] | None = None,
             ) -> dict[str, float]:  # fmt: skip
    """Fit ``model.policy`` to the demonstrations; returns the last epoch's mean losses.
    ``augment``: the tile encoder of the (flat) samples, to turn sample ``i`` by
    ``(epoch + i) % 4`` quarter turns in each epoch; None: no rotation. ``learning_rate``:
    the optimiser's rate while imitating (None: the model's; PPO sets its own again).
    ``on_epoch(epoch, stats)`` is called after each epoch."""
    policy = model.policy
    policy.set_training_mode(True)
    if learning_rate is not None:
        for group in policy.optimizer.param_groups:
            group["lr"] = learning_rate
    rng = np.random.default_rng(seed)
    n = len(data["actions"])  # data["obs"]: an array, or a dict of arrays (v1)
    stats = {"bc_loss": float("nan"), "value_loss": float("nan"), "accuracy": float("nan")}
    for epoch in range(epochs):
        order = rng.permutation(n)
        bc, vl, acc = [], [], []
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            obs_np, mask, act_np = _rows(data["obs"], idx), data["masks"][idx], data["actions"][idx]
            if augment is not None:
                obs_np, mask, act_np = _turned(augment, obs_np, mask, act_np, (epoch + idx) % 4)
            if isinstance(obs_np, dict):
                obs = {k: torch.as_tensor(v).float() for k, v in obs_np.items()}
            else:
                obs = torch.as_tensor(obs_np).float()
            act = torch.as_tensor(act_np)
            ret = torch.as_tensor(data["returns"][idx])
            dist = policy.get_distribution(obs, action_masks=mask)
            logp = dist.log_prob(act)
            values = policy.predict_values(obs).flatten()
            loss_bc = -logp.mean()
            loss_v = torch.nn.functional.mse_loss(values, ret)
            loss = loss_bc + 0.5 * loss_v
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            policy.optimizer.step()
            bc.append(loss_bc.item())
            vl.append(loss_v.item())
            best = dist.distribution.probs.argmax(dim=1)
            acc.append((best == act).float().mean().item())
        stats = {"bc_loss": float(np.mean(bc)), "value_loss": float(np.mean(vl)),
                 "accuracy": float(np.mean(acc))}  # fmt: skip
        if on_epoch is not None:
            on_epoch(epoch, stats)
    policy.set_training_mode(False)
    return stats
