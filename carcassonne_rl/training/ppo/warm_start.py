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
in each epoch (``encoders.tile.symmetry``): over 4 epochs, in all 4 rotations, at the cost
of one epoch each (the samples are turned batch by batch, not stored four times).

With ``observation="v1"`` the samples are ``carcassonne_v1`` dicts, stored as
``data["obs"] = {"board": (N, 46, W, W), "globals": (N, 113)}``.

With ``warm_start_temperature`` T (a teacher that values its options, such as the tile
game's ``pretrained``) each decision also records the teacher's value of every legal action
(``data["values"]``, ``(N, A)``, 0 where illegal), and the policy is fitted to
``softmax(value / T)`` over the legal actions (distillation: the whole ranking of the
options, not only the one move played). Decisions with a single legal action teach nothing
about choosing and are left out of the policy's fit.

DAgger: the last ``warm_start_student_games`` games are played by ``warm_start_student``
(e.g. ``policy:imitation.npz``, the policy imitated so far) while the teacher labels every
decision, so the policy also learns the teacher's answer in the positions its own mistakes
lead to; ``warm_start_init`` starts the fit from a saved policy (a run's ``step_0.zip``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.policy_agent import make_encoder
from carcassonne_rl.arena.match import Setup
from carcassonne_rl.encoders import TileEncoder
from carcassonne_rl.encoders.tile.encoder import NUM_PLANES
from carcassonne_rl.encoders.tile.symmetry import rotate_actions, rotate_batch
from carcassonne_rl.runtime.progress import progress_bar
from carcassonne_rl.runtime.seeds import demo_agent_seed, demo_deal, demo_seat_seed
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
        path = cache / f"game_{demo_deal(seed, g)}.npz" if cache is not None else None
        if path is not None and path.exists():
            parts.append(load_demo_game(path))
        else:
            student = g >= games - config.warm_start_student_games
            agent_seed = demo_agent_seed(seed, g)
            parts.append(play_demo_game(config, demo_deal(seed, g), agent_seed, student))
            if path is not None:
                save_demo_game(path, parts[-1])
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    data = {
        "obs": _concat([p["obs"] for p in parts]),
        "masks": np.concatenate([p["masks"] for p in parts]),
        "actions": np.concatenate([p["actions"] for p in parts]),
        "returns": np.concatenate([p["returns"] for p in parts]),
    }
    if parts and all("values" in p for p in parts):
        data["values"] = np.concatenate([p["values"] for p in parts])
    return data


def _concat(chunks: list) -> Any:
    if chunks and isinstance(chunks[0], dict):
        return {key: np.concatenate([c[key] for c in chunks]) for key in chunks[0]}
    return np.concatenate(chunks)


def save_demo_game(path: Path, game: dict[str, Any]) -> None:
    """One game's demonstrations, written atomically (compressed: the planes are sparse)."""
    from carcassonne_rl.training.run_files import atomic_save_npz

    obs = game["obs"]
    arrays = {f"obs_{k}": v for k, v in obs.items()} if isinstance(obs, dict) else {"obs": obs}
    if "values" in game:
        arrays["values"] = game["values"]
    arrays.update(masks=np.packbits(game["masks"], axis=1), mask_size=game["masks"].shape[1],
                  actions=game["actions"], returns=game["returns"])  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_save_npz(path, arrays)


def load_demo_game(path: Path) -> dict[str, Any]:
    """One game's demonstrations as :func:`save_demo_game` wrote them (masks unpacked)."""
    with np.load(path) as z:
        keys = [k for k in z.files if k.startswith("obs_")]
        obs = {k[4:]: z[k] for k in keys} if keys else z["obs"]
        size = int(z["mask_size"])
        masks = np.unpackbits(z["masks"], axis=1, count=size).astype(bool)
        game = {"obs": obs, "masks": masks, "actions": z["actions"], "returns": z["returns"]}
        if "values" in z.files:
            game["values"] = z["values"]
        return game


def play_demo_game(
    config: TrainConfig, deal: int, agent_seed: int, student: bool = False
) -> dict[str, Any]:
    """The demonstrations of one game (``deal``) of ``config.warm_start_agent`` in every
    seat (seat ``p``'s agent seeded ``agent_seed + p``). ``student``: the moves are
    ``config.warm_start_student``'s, the teacher only labels them (its move and values at
    the positions the student reaches: DAgger)."""
    encoder = make_encoder(config.game, config.expansions, config.window, config.observation)
    flat = config.env_name == "carcassonne_v0"
    state = Setup(config.game, config.players, config.expansions).new_state(deal)
    agents = [
        make_agent(config.warm_start_agent, config.game, seed=demo_seat_seed(agent_seed, p))
        for p in range(config.players)
    ]
    soft = config.warm_start_temperature is not None
    if soft and not hasattr(agents[0], "decision_values"):
        raise ValueError(
            f"warm_start_temperature: the teacher {config.warm_start_agent!r} does not value "
            "its options (the tile game's pretrained does); leave it unset to imitate moves"
        )
    players = [
        make_agent(config.warm_start_student, config.game, seed=demo_seat_seed(agent_seed, p))
        for p in range(config.players)
    ] if student else agents  # fmt: skip
    obs, masks, actions, seats, diffs, values = [], [], [], [], [], []
    while not state.is_over:
        p = state.current_player
        o = encoder.encode(state, p)
        obs.append(o.reshape(-1) if flat else o)
        masks.append(encoder.action_mask(state).astype(bool))
        if soft:
            values.append(_teacher_values(encoder, agents[p], state, p, len(masks[-1])))
        mover = agents[p]
        if soft and hasattr(mover, "values_agent"):  # pretrained: its value networks move
            mover = mover.values_agent(state)
        code = mover.act(state, p)
        index = encoder.index_of(state, code)
        if index < 0:  # outside the window (never seen with the default window)
            raise RuntimeError(f"demonstration move {code} not expressible by the encoder")
        actions.append(index)
        seats.append(p)
        diffs.append(_advantage(state.scores, p))
        if student:
            code = players[p].act(state, p)
        state.apply_code(int(code))
    final = state.scores
    winners = state.winners()
    returns = []
    for seat, diff in zip(seats, diffs, strict=True):
        r = _terminal(final, winners, seat)
        if config.reward_mode == "score_diff":
            r += (_advantage(final, seat) - diff) / SCORE_SCALE
        returns.append(r)
    game = {
        "obs": _stack(obs),
        "masks": np.stack(masks),
        "actions": np.asarray(actions, np.int64),
        "returns": np.asarray(returns, np.float32),
    }
    if soft:
        game["values"] = np.stack(values)
    return game


def _teacher_values(encoder: Any, agent: Any, state: Any, player: int, size: int) -> np.ndarray:
    """The teacher's value of every legal action, by action index (float16, 0 elsewhere)."""
    row = np.zeros(size, np.float16)
    codes, vals = agent.decision_values(state, player)
    for code, v in zip(codes, vals, strict=True):
        index = encoder.index_of(state, int(code))
        if index >= 0:
            row[index] = v
    return row


def soft_targets(values: torch.Tensor, mask: torch.Tensor, temperature: float) -> torch.Tensor:
    """``softmax(values / temperature)`` over each row's legal actions (0 elsewhere)."""
    logits = values.float() / temperature
    logits = logits.masked_fill(~mask, float("-inf"))
    return torch.softmax(logits, dim=1)


def _stack(obs: list) -> np.ndarray | dict[str, np.ndarray]:
    """Observations stacked: one array, or one array per key of dict observations (v1)."""
    if obs and isinstance(obs[0], dict):
        return {key: np.stack([o[key] for o in obs]) for key in obs[0]}
    return np.stack(obs)


def _rows(obs: np.ndarray | dict[str, np.ndarray], idx: np.ndarray):
    return {k: v[idx] for k, v in obs.items()} if isinstance(obs, dict) else obs[idx]


def _turned_values(encoder: TileEncoder, values: np.ndarray, turns: np.ndarray) -> np.ndarray:
    """Per-action rows, row ``i`` turned ``turns[i]`` quarter turns (as the masks)."""
    out = values.copy()
    for k in range(1, 4):
        rows = np.flatnonzero(turns % 4 == k)
        if len(rows):
            out[rows] = rotate_actions(values[rows], k, encoder.window, encoder.messages)
    return out


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
             temperature: float | None = None,
             ) -> dict[str, float]:  # fmt: skip
    """Fit ``model.policy`` to the demonstrations; returns the last epoch's mean losses.
    ``augment``: the tile encoder of the (flat) samples, to turn sample ``i`` by
    ``(epoch + i) % 4`` quarter turns in each epoch; None: no rotation. ``learning_rate``:
    the optimiser's rate while imitating (None: the model's; PPO sets its own again).
    ``temperature``: fit the policy to ``softmax(data["values"] / temperature)`` over the
    legal actions instead of the moves played (accuracy: the move played is the policy's
    most likely). ``on_epoch(epoch, stats)`` is called after each epoch."""
    if temperature is not None and "values" not in data:
        raise ValueError("a temperature needs the teacher's values (data['values'])")
    policy = model.policy
    dev = policy.device  # the config's device (SB3's choice)
    policy.set_training_mode(True)
    if learning_rate is not None:
        for group in policy.optimizer.param_groups:
            group["lr"] = learning_rate
    rng = np.random.default_rng(seed)
    n = len(data["actions"])  # data["obs"]: an array, or a dict of arrays (v1)
    choosing = data["masks"].sum(axis=1) > 1  # decisions with a choice: the policy's fit
    stats = {"bc_loss": float("nan"), "value_loss": float("nan"), "accuracy": float("nan")}
    for epoch in range(epochs):
        order = rng.permutation(n)
        bc, vl, acc = [], [], []
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            obs_np, mask, act_np = _rows(data["obs"], idx), data["masks"][idx], data["actions"][idx]
            vals_np = data["values"][idx] if temperature is not None else None
            if augment is not None:
                turns = (epoch + idx) % 4
                obs_np, mask, act_np = _turned(augment, obs_np, mask, act_np, turns)
                if vals_np is not None:
                    vals_np = _turned_values(augment, vals_np, turns)
            if isinstance(obs_np, dict):
                obs = {k: torch.as_tensor(v, device=dev).float() for k, v in obs_np.items()}
            else:
                obs = torch.as_tensor(obs_np, device=dev).float()
            act = torch.as_tensor(act_np, device=dev)
            ret = torch.as_tensor(data["returns"][idx], device=dev)
            pick = torch.as_tensor(choosing[idx], device=dev)
            dist = policy.get_distribution(obs, action_masks=mask)
            values = policy.predict_values(obs).flatten()
            if vals_np is not None:
                target = soft_targets(
                    torch.as_tensor(vals_np, device=dev),
                    torch.as_tensor(mask, device=dev),
                    temperature,
                )
                logp_all = dist.distribution.logits  # normalised; illegal: a huge negative
                per_sample = -(target * logp_all).sum(dim=1)
            else:
                per_sample = -dist.log_prob(act)
            loss_bc = per_sample[pick].mean() if bool(pick.any()) else per_sample.sum() * 0.0
            loss_v = torch.nn.functional.mse_loss(values, ret)
            loss = loss_bc + 0.5 * loss_v
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            policy.optimizer.step()
            if bool(pick.any()):
                bc.append(loss_bc.item())
                best = dist.distribution.probs.argmax(dim=1)
                acc.append((best == act)[pick].float().mean().item())
            vl.append(loss_v.item())
        stats = {"bc_loss": float(np.mean(bc)) if bc else float("nan"),
                 "value_loss": float(np.mean(vl)),
                 "accuracy": float(np.mean(acc)) if acc else float("nan")}  # fmt: skip
        if on_epoch is not None:
            on_epoch(epoch, stats)
    policy.set_training_mode(False)
    return stats
