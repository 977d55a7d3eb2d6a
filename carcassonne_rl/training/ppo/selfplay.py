"""Self-play training with sb3-contrib's MaskablePPO.

The learner plays a random seat of every game; the other seats are :class:`OpponentPool`s
(past snapshots of the learner plus baselines, see ``opponent_pool``). Snapshots join the
pool every ``snapshot_every`` steps. Before self-play the policy is warm-started by
imitating the greedy baseline (``warm_start.py``; ``warm_start_games=0`` turns it off).
A run folder holds::

    config.json               the TrainConfig
    policy_spec.json          game / encoder of the models (to load them as agents)
    checkpoints/step_N.zip    model + optimiser, for exact resume (trainer_state.json names
                              the one it goes with); the newest ``keep_checkpoints`` are kept
    checkpoints/latest.zip    the newest checkpoint under a fixed name
    trainer_state.json        counters, pool members, evaluations at the last checkpoint
    snapshots/step_N.zip      pool members
    warm_start/game_N.npz     the warm start's demonstrations, game by game (a run stopped
                              while collecting them resumes from the next game)
    final_model.zip           the model after the last step
    eval_history.json         periodic arena results vs the baselines (win rate + 95% CI)
    tb/                       TensorBoard logs
    plots/training.png        episode reward and win rates over training

Models, checkpoints and JSON files are written atomically (``run_files``): a run killed at
any moment resumes from its last complete checkpoint.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from carcassonne_rl.agents.policy_agent import make_encoder, write_spec
from carcassonne_rl.envs.single_agent import SingleAgentEnv
from carcassonne_rl.runtime.progress import count, on_terminal, phase, plain_training_progress
from carcassonne_rl.runtime.seeds import demo_first_deal, ppo_env_seed, ppo_pool_seed
from carcassonne_rl.training.ppo.opponent_pool import OpponentPool, PoolSchedule
from carcassonne_rl.training.ppo.policies import CARD_NET_ARCH, TILE_NETS, TilePolicy
from carcassonne_rl.training.run_files import (
    atomic_link,
    atomic_save_model,
    atomic_write_json,
    checkpoint_path,
    prune_checkpoints,
    remove_temporaries,
)
from carcassonne_rl.training.train_config import TrainConfig

STATE_FILE = "trainer_state.json"


class SelfPlayEnv(SingleAgentEnv):
    """A single-agent env whose opponents are pools that the trainer can refresh."""

    def __init__(self, config: TrainConfig, rank: int) -> None:
        schedule = PoolSchedule(config.pool_latest, config.pool_past, config.baselines)
        pools = [
            OpponentPool(config.game, schedule, seed=ppo_pool_seed(config.seed, rank, i))
            for i in range(config.players - 1)
        ]
        kwargs: dict[str, Any] = {"players": config.players, "reward_mode": config.reward_mode}
        if config.game == "carcassonne":
            kwargs["expansions"] = config.expansions
            if config.window is not None:
                kwargs["window"] = config.window
        super().__init__(config.env_name, opponents=pools, **kwargs)
        self.pools = pools
        # v0 planes: see policies.py, SB3 must not take them for a picture; v1's dict (board
        # bits in [0, 1], globals) goes to SB3 as it is
        self.flat = config.env_name == "carcassonne_v0"
        if self.flat:
            space = self.observation_space
            self.obs_shape = space.shape
            self.observation_space = gym.spaces.Box(0, 255, (int(np.prod(space.shape)),), np.uint8)

    def reset(self, seed=None, options=None):
        obs, info = super().reset(seed=seed, options=options)
        return (obs.reshape(-1) if self.flat else obs), info

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        return (obs.reshape(-1) if self.flat else obs), reward, terminated, truncated, info

    def set_snapshots(self, paths: list[str]) -> None:
        for pool in self.pools:
            pool.set_snapshots(paths)


def _env_factory(config: TrainConfig, rank: int):
    def make() -> Monitor:
        torch.set_num_threads(1)
        env = SelfPlayEnv(config, rank)
        env.reset(seed=ppo_env_seed(config.seed, rank))
        return Monitor(env)

    return make


def make_vec_env(config: TrainConfig):
    factories = [_env_factory(config, i) for i in range(config.n_envs)]
    if config.n_envs == 1:
        return DummyVecEnv(factories)
    return SubprocVecEnv(factories, start_method="forkserver")


def new_model(config: TrainConfig, env, tb_dir: Path | None) -> MaskablePPO:
    common = dict(
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        learning_rate=config.learning_rate,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        ent_coef=config.ent_coef,
        clip_range=config.clip_range,
        seed=config.seed,
        device=config.device,
        tensorboard_log=str(tb_dir) if tb_dir else None,
        verbose=0,
    )
    if config.game == "carcassonne" and config.tile_net == "features":
        from carcassonne_rl.training.obs_policy.ppo_policy import TileFeaturePolicy, head_shape

        kwargs = head_shape(config.warm_start_init)  # the heads of the policy it starts from
        policy_kwargs = {"features_extractor_kwargs": kwargs}
        return MaskablePPO(TileFeaturePolicy, env, policy_kwargs=policy_kwargs, **common)
    if config.game == "carcassonne":
        kwargs = {"channels": config.channels, "layers": config.conv_layers}
        if config.observation == "v0":
            kwargs["shape"] = env.get_attr("obs_shape")[0]
        policy_kwargs = {
            "features_extractor_class": TILE_NETS[config.tile_net],
            "features_extractor_kwargs": kwargs,
        }
        return MaskablePPO(TilePolicy, env, policy_kwargs=policy_kwargs, **common)
    h = config.hidden
    arch = {"pi": [h, h], "vf": [h, h]} if h else CARD_NET_ARCH
    return MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": arch}, **common)


class SelfPlayCallback(BaseCallback):
    """Snapshots into the pool, checkpoints, and periodic evaluation vs the baselines."""

    def __init__(self, config: TrainConfig, out: Path, state: dict) -> None:
        super().__init__()
        self.config = config
        self.out = out
        self.state = state  # trainer_state.json content, kept up to date

    def _due(self, key: str, every: int) -> bool:
        if every <= 0:
            return False
        last = self.state.setdefault(f"last_{key}", 0)
        if self.num_timesteps - last >= every:
            self.state[f"last_{key}"] = self.num_timesteps
            return True
        return False

    def _on_training_start(self) -> None:
        if self.state.get("snapshots"):
            self.training_env.env_method("set_snapshots", self.state["snapshots"])

    def _on_step(self) -> bool:
        if self._due("snapshot", self.config.snapshot_every):
            self.snapshot()
        if self._due("eval", self.config.eval_every):
            self.evaluate()
        if self._due("checkpoint", self.config.checkpoint_every):
            save_checkpoint(self.model, self.out, self.state, self.config.keep_checkpoints)
        return True

    def snapshot(self) -> str:
        path = self.out / "snapshots" / f"step_{self.num_timesteps}.zip"
        atomic_save_model(self.model, path)
        self.state.setdefault("snapshots", []).append(str(path))
        self.training_env.env_method("set_snapshots", self.state["snapshots"])
        return str(path)

    def evaluate(self) -> None:
        from carcassonne_rl.arena.evaluation import evaluate_model_file

        path = self.out / "snapshots" / f"eval_{self.num_timesteps}.zip"
        atomic_save_model(self.model, path)
        rows = evaluate_model_file(
            path, self.config.game, self.config.players, self.config.expansions,
            opponents=self.config.baselines, deals=self.config.eval_deals, progress=False,
        )  # fmt: skip
        entry = {"timesteps": self.num_timesteps, "wall_s": time.time() - self.state["t0"]}
        for row in rows:
            opp = row["opponent"]
            entry[opp] = row
            self.logger.record(f"eval/win_rate_vs_{opp}", row["win_rate"])
            self.logger.record(f"eval/win_rate_vs_{opp}_ci95_low", row["win_rate_ci95"][0])
            self.logger.record(f"eval/win_rate_vs_{opp}_ci95_high", row["win_rate_ci95"][1])
            self.logger.record(f"eval/margin_vs_{opp}", row["mean_margin"])
        self.state.setdefault("evals", []).append(entry)
        rates = ", ".join(f"vs {r['opponent']} {100 * r['win_rate']:.0f}%" for r in rows)
        phase(f"evaluation at {self.num_timesteps} steps: {rates}")
        path.unlink(missing_ok=True)
        atomic_write_json(self.out / "eval_history.json", self.state["evals"])


def init_policy(model: MaskablePPO, path: str | Path) -> None:
    """Copy the policy weights of a saved model (``.zip``) into ``model``; a features
    policy file (``.npz``) gives the heads of a ``tile_net=features`` model."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"warm_start_init: no saved policy at {path}")
    if path.suffix == ".npz":
        from carcassonne_rl.agents.tile.obs_policy.board_net import load_tile_obs_policy
        from carcassonne_rl.training.obs_policy.heads import load_heads

        net = load_tile_obs_policy(path)
        heads = getattr(model.policy.features_extractor, "heads", None)
        if heads is None or not hasattr(net, "layers"):
            raise ValueError(f"warm_start_init: {path} is a features policy for tile_net=features")
        try:
            load_heads(heads, net)
        except ValueError as err:
            raise ValueError(f"warm_start_init: {path}: {err}") from None
        return
    # loaded on the CPU; load_state_dict copies the weights to the model's device
    saved = MaskablePPO.load(path, device="cpu").policy.state_dict()
    try:
        model.policy.load_state_dict(saved)
    except RuntimeError as err:
        first = str(err).splitlines()[0]
        raise ValueError(f"warm_start_init: {path} has another network shape ({first})") from None


def warm(
    model: MaskablePPO, config: TrainConfig, out: Path, state: dict, progress: bool = True
) -> None:
    """Imitate ``config.warm_start_agent`` (see warm_start.py); its result is snapshot 0."""
    from carcassonne_rl.training.ppo.warm_start import collect, pretrain

    t0 = time.time()
    phase(
        f"warm start: {count(config.warm_start_games, config.warm_start_agent + ' game')} "
        f"to imitate ({config.game})"
    )
    data = collect(
        config, config.warm_start_games, seed=demo_first_deal(config.seed), progress=progress,
        cache=out / "warm_start",
    )  # fmt: skip
    if config.warm_start_init:
        init_policy(model, config.warm_start_init)
    phase(f"warm start: fitting the policy to {len(data['actions'])} decisions")
    augment = None
    if config.warm_start_augment and config.game == "carcassonne":
        augment = make_encoder(config.game, config.expansions, config.window, config.observation)
    epochs: list[dict[str, float]] = []

    def on_epoch(epoch: int, stats: dict[str, float]) -> None:
        epochs.append({k: round(v, 4) for k, v in stats.items()})
        phase(f"warm start: epoch {epoch + 1}/{config.warm_start_epochs}: imitation loss "
              f"{stats['bc_loss']:.3f}, accuracy {stats['accuracy']:.3f}")  # fmt: skip

    stats = pretrain(model, data, config.warm_start_epochs,
                     config.warm_start_batch_size or config.batch_size, config.seed,
                     augment=augment, learning_rate=config.warm_start_learning_rate,
                     on_epoch=on_epoch,
                     temperature=config.warm_start_temperature)  # fmt: skip
    phase(f"warm start: done in {time.time() - t0:.0f} s")
    path = out / "snapshots" / "step_0.zip"
    atomic_save_model(model, path)
    state["snapshots"] = [str(path)]
    state["warm_start"] = {
        "agent": config.warm_start_agent,
        "games": config.warm_start_games,
        "samples": int(len(data["actions"])),
        "seconds": round(time.time() - t0, 1),
        **stats,
        "epochs": epochs,
    }


def save_checkpoint(model: MaskablePPO, out: Path, state: dict, keep: int = 3) -> Path:
    """Write ``checkpoints/step_N.zip`` (and ``latest.zip``), then the trainer state that
    names it, then prune to the newest ``keep`` checkpoints (0: keep all). Each write is
    atomic and the state is written after its checkpoint, so a kill at any moment leaves
    a state whose checkpoint is complete."""
    folder = out / "checkpoints"
    step = int(model.num_timesteps)
    path = atomic_save_model(model, checkpoint_path(folder, step))
    atomic_link(path, folder / "latest.zip")
    state["timesteps"] = step
    state["checkpoint"] = path.relative_to(out).as_posix()
    if "t0" in state:
        state["wall_s"] = time.time() - state["t0"]
    atomic_write_json(out / STATE_FILE, state)
    prune_checkpoints(folder, keep, protect=[path])
    return path


def _resume_point(out: Path, config: TrainConfig) -> dict | None:
    """The trainer state to resume from, or ``None`` if the run was stopped before its
    first checkpoint (it then starts over). Raises if there is no run of ``config``."""
    if not (out / "config.json").exists():
        raise FileNotFoundError(f"nothing to resume in {out}: no config.json")
    saved = TrainConfig.load(out / "config.json")
    # may change between sessions
    free = {"timesteps": 0, "keep_checkpoints": 0, "n_envs": 0, "device": ""}
    if saved.to_dict() | free != config.to_dict() | free:
        raise ValueError(f"{out} was trained with another config; resume with the same one")
    for folder in (out, out / "checkpoints", out / "snapshots", out / "plots", out / "warm_start"):
        remove_temporaries(folder)  # left by writes that a kill interrupted
    for model_file in (out / "snapshots").glob("eval_*.zip"):
        model_file.unlink()  # an evaluation's model file whose evaluation was cut short
    if not (out / STATE_FILE).exists():
        return None
    state = json.loads((out / STATE_FILE).read_text())
    state["t0"] = time.time() - state.get("wall_s", 0.0)
    return state


def train(config: TrainConfig, out: str | Path, resume: bool = False, progress: bool = True):
    """Train (or resume) a run in folder ``out``; returns the final model."""
    # the env workers use one thread each; the learner uses the cores for its updates
    # (the workers wait during them)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    out = Path(out)
    state: dict = {"t0": time.time()}
    if resume:
        resumed_state = _resume_point(out, config)
        resume = resumed_state is not None
        state = resumed_state or state
    elif (out / STATE_FILE).exists():
        raise FileExistsError(
            f"{out} already holds a run; pass resume=True (CLI: --resume) or a new folder"
        )
    if not resume:
        for sub in ("checkpoints", "snapshots", "plots"):
            (out / sub).mkdir(parents=True, exist_ok=True)
    config.save(out / "config.json")
    write_spec(out, config.game, config.expansions, config.window, config.observation)
    env = make_vec_env(config)
    try:
        if resume:
            checkpoint = out / state.get("checkpoint", "checkpoints/latest.zip")
            model = MaskablePPO.load(checkpoint, env=env, device=config.device)
        else:
            model = new_model(config, env, out / "tb")
            if config.warm_start_games > 0:
                warm(model, config, out, state, progress)
                save_checkpoint(model, out, state, config.keep_checkpoints)
            elif config.warm_start_init:  # PPO from a saved policy, no imitation first
                init_policy(model, config.warm_start_init)
                state["snapshots"] = [
                    str(atomic_save_model(model, out / "snapshots" / "step_0.zip"))
                ]
                save_checkpoint(model, out, state, config.keep_checkpoints)
        remaining = config.timesteps - model.num_timesteps
        callback = SelfPlayCallback(config, out, state)
        if remaining > 0:
            phase(f"self-play: {remaining} steps ({model.num_timesteps} done before)")
            plain = [] if not progress or on_terminal() else [plain_training_progress(remaining)]
            model.learn(
                total_timesteps=remaining,
                callback=[callback, *plain],
                reset_num_timesteps=not resume,
                progress_bar=progress and on_terminal(),
                tb_log_name="run",
            )
        if not state.get("evals") or state["evals"][-1]["timesteps"] != model.num_timesteps:
            deals = count(config.eval_deals, "deal")
            phase(f"final evaluation: {deals} vs {', '.join(config.baselines)}")
            callback.init_callback(model)
            callback.evaluate()
        state["wall_s"] = time.time() - state["t0"]
        save_checkpoint(model, out, state, config.keep_checkpoints)
        atomic_save_model(model, out / "final_model.zip")
    finally:
        env.close()
    from carcassonne_rl.training.plots import plot_training

    plot_training(out)
    return model


def episode_rewards(out: Path) -> np.ndarray:
    """(timesteps, episode reward) pairs from the TensorBoard log of a run, if any."""
    from carcassonne_rl.training.plots import read_scalars

    return read_scalars(out / "tb", "rollout/ep_rew_mean")
