"""RLlib PPO self-play (``carcassonne-rl train --backend rllib``), same run folder layout.

The learner is the RLModule ``main`` (:class:`.rl_module.MaskedActorCriticModule`); its
opponents form a league (the same shares as the SB3 trainer's ``PoolSchedule``):

- ``pool_latest``: ``main`` itself (its moves are trained on too, as in RLlib's self-play);
- ``pool_past``: a frozen snapshot: ``snapshot_0`` .. ``snapshot_{SNAPSHOT_SLOTS-1}``, a ring
  of modules that are never trained; every ``snapshot_every`` steps the oldest slot takes
  ``main``'s weights (at the start all slots hold the initial weights);
- the rest: a heuristic baseline from ``baselines``, played inside the env
  (:mod:`.multi_agent_env`: the baselines read the engine state, not an observation).

The run folder (see ``training.ppo.selfplay``) holds ``config.json``, ``policy_spec.json``,
``checkpoints/rllib/`` (the RLlib checkpoint: modules, optimiser, env runners) with
``trainer_state.json``, ``snapshots/step_N.pt2``, ``final_model.pt2``, ``eval_history.json``,
``tb/`` and ``plots/training.png``. The ``.pt2`` files are ``torch.export`` programs of ``main``
(:func:`.networks.export_policy`): ``policy:RUN/final_model.pt2`` loads them with torch
alone, no Ray needed. No warm start (imitation of the greedy baseline) in this backend.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from carcassonne_rl.agents.policy_agent import make_encoder, write_spec
from carcassonne_rl.runtime.ray_session import ClusterError, ray_session
from carcassonne_rl.training.rllib.multi_agent_env import LEARNER, TurnBasedMultiAgentEnv
from carcassonne_rl.training.train_config import TrainConfig

MAIN = "main"
SNAPSHOT_SLOTS = 4
STATE_FILE = "trainer_state.json"
FINAL_MODEL = "final_model.pt2"


def snapshot_slot(index: int) -> str:
    return f"snapshot_{index}"


class LeagueMapping:
    """Agent -> module of an episode: the learner plays ``main``; an opponent plays ``main``
    with probability ``latest_share``, else a snapshot slot drawn uniformly."""

    def __init__(self, latest_share: float, slots: tuple[str, ...]) -> None:
        self.latest_share = latest_share
        self.slots = slots
        self.rng = random.Random()

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        if agent_id == LEARNER or not self.slots or self.rng.random() < self.latest_share:
            return MAIN
        return self.rng.choice(self.slots)


def one_torch_thread(**kwargs: Any) -> None:
    """``on_environment_created`` callback: an env runner holds one CPU, so one torch thread
    (more threads on a busy machine made every forward pass many times slower)."""
    import torch

    torch.set_num_threads(1)


def learner_threads(num_env_runners: int) -> int:
    """Torch threads of the PPO update in the driver: the CPUs the local runners leave."""
    import os

    return max(1, (os.cpu_count() or 1) - num_env_runners)


def env_config(config: TrainConfig) -> dict[str, Any]:
    """The ``env_config`` of :class:`TurnBasedMultiAgentEnv` for a run."""
    return {
        "game": config.game,
        "players": config.players,
        "expansions": list(config.expansions),
        "window": config.window,
        "observation": config.observation,
        "reward_mode": config.reward_mode,
        "baselines": list(config.baselines),
        "baseline_prob": max(0.0, 1.0 - config.pool_latest - config.pool_past),
        "seed": config.seed,
    }


def build_algorithm(config: TrainConfig, num_env_runners: int) -> Any:
    """The PPO algorithm of a run (Ray must be connected)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from carcassonne_rl.training.rllib.rl_module import MaskedActorCriticModule

    probe_env = TurnBasedMultiAgentEnv(env_config(config))
    obs_space = probe_env.observation_spaces[LEARNER]
    act_space = probe_env.action_spaces[LEARNER]
    model_config = {"game": config.game, "channels": config.channels,
                    "conv_layers": config.conv_layers, "hidden": config.hidden}  # fmt: skip
    slots = tuple(snapshot_slot(i) for i in range(SNAPSHOT_SLOTS))
    module_spec = RLModuleSpec(
        module_class=MaskedActorCriticModule,
        observation_space=obs_space,
        action_space=act_space,
        model_config=model_config,
    )
    shares = config.pool_latest + config.pool_past
    latest_share = config.pool_latest / shares if shares > 0 else 1.0
    train_batch = config.n_steps * max(1, num_env_runners)
    ppo = (
        PPOConfig()
        .environment(TurnBasedMultiAgentEnv, env_config=env_config(config))
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=1,
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=0)
        .callbacks(on_environment_created=one_torch_thread)
        .multi_agent(
            policies={MAIN, *slots},
            policy_mapping_fn=LeagueMapping(latest_share, slots),
            policies_to_train=[MAIN],
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={module_id: module_spec for module_id in (MAIN, *slots)}
            )
        )
        .training(
            train_batch_size_per_learner=train_batch,
            minibatch_size=min(config.batch_size, train_batch),
            num_epochs=config.n_epochs,
            lr=config.learning_rate,
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            entropy_coeff=config.ent_coef,
            clip_param=config.clip_range,
        )
        .debugging(seed=config.seed)
    )
    return ppo.build_algo()


def main_weights(algo: Any) -> dict[str, Any]:
    """The learner's current weights of ``main``."""
    return algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]


def copy_main_to(algo: Any, slots: list[str]) -> None:
    """Freeze ``main``'s current weights into the snapshot ``slots`` (learner + env runners).

    Set on each env runner directly: ``sync_weights`` skips runners whose weights sequence
    number is current, which it is right after a training step."""
    weights = main_weights(algo)
    algo.learner_group.set_weights({slot: weights for slot in slots})

    def load(runner: Any) -> None:
        for slot in slots:
            runner.module[slot].set_state(weights)

    algo.env_runner_group.foreach_env_runner(load, local_env_runner=True)


def export_main(algo: Any, config: TrainConfig, path: Path) -> Path:
    """``main`` exported at ``path`` (loadable by ``policy:PATH`` without Ray)."""
    import torch

    from carcassonne_rl.training.rllib.networks import ActorCriticNet, export_policy

    encoder = make_encoder(config.game, config.expansions, config.window, config.observation)
    space = encoder.observation_space
    layout = space if config.observation == "v1" else space.shape
    net = ActorCriticNet(config.game, layout, int(encoder.num_actions),
                         config.channels, config.conv_layers, config.hidden)  # fmt: skip
    state = {k.removeprefix("net."): torch.as_tensor(v) for k, v in main_weights(algo).items()}
    net.load_state_dict(state)
    return export_policy(net, space, int(encoder.num_actions), path)


class _Run:
    """The bookkeeping of one run: due times, TensorBoard, evaluations, trainer state."""

    def __init__(self, config: TrainConfig, out: Path) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.config = config
        self.out = out
        self.state: dict[str, Any] = {"t0": time.time(), "backend": "rllib", "snapshots": []}
        self.tb = SummaryWriter(str(out / "tb" / "rllib"))
        self.next_slot = 0

    def due(self, key: str, every: int, steps: int) -> bool:
        if every <= 0:
            return False
        last = self.state.setdefault(f"last_{key}", 0)
        if steps - last >= every:
            self.state[f"last_{key}"] = steps
            return True
        return False

    def log(self, result: dict, steps: int) -> None:
        runners = result.get("env_runners", {})
        returns = runners.get("agent_episode_returns_mean", {})
        if LEARNER in returns:
            self.tb.add_scalar("rollout/ep_rew_mean", float(returns[LEARNER]), steps)
        if "episode_len_mean" in runners:
            self.tb.add_scalar("rollout/ep_len_mean", float(runners["episode_len_mean"]), steps)

    def snapshot(self, algo: Any, steps: int) -> None:
        slot = snapshot_slot(self.next_slot % SNAPSHOT_SLOTS)
        self.next_slot += 1
        copy_main_to(algo, [slot])
        path = export_main(algo, self.config, self.out / "snapshots" / f"step_{steps}.pt2")
        self.state["snapshots"].append(str(path))

    def evaluate(self, algo: Any, steps: int) -> None:
        from carcassonne_rl.arena.evaluation import evaluate_model_file

        cfg = self.config
        path = export_main(algo, cfg, self.out / "snapshots" / f"eval_{steps}.pt2")
        # games in this process: the env runners may hold every CPU of the cluster
        rows = evaluate_model_file(
            path, cfg.game, cfg.players, cfg.expansions, opponents=cfg.baselines,
            deals=cfg.eval_deals, progress=False,
        )  # fmt: skip
        entry: dict[str, Any] = {"timesteps": steps, "wall_s": time.time() - self.state["t0"]}
        for row in rows:
            entry[row["opponent"]] = row
            self.tb.add_scalar(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"], steps)
        self.state.setdefault("evals", []).append(entry)
        path.unlink(missing_ok=True)
        (self.out / "eval_history.json").write_text(json.dumps(self.state["evals"], indent=2))

    def checkpoint(self, algo: Any, steps: int) -> None:
        algo.save_to_path(str((self.out / "checkpoints" / "rllib").resolve()))
        self.state["timesteps"] = steps
        self.state["wall_s"] = time.time() - self.state["t0"]
        (self.out / STATE_FILE).write_text(json.dumps(self.state, indent=2))


def train_rllib(
    config: TrainConfig,
    out: str | Path,
    address: str | None = None,
    num_env_runners: int = 1,
    progress: bool = True,
) -> Path:
    """Train a run with RLlib in folder ``out`` on the Ray cluster at ``address`` (None: a
    Ray started on this machine); returns the path of ``final_model.pt2``."""
    import torch

    out = Path(out)
    if (out / STATE_FILE).exists():
        raise FileExistsError(f"{out} already holds a run; choose a new folder")
    if num_env_runners < 0:
        raise ValueError(f"num_env_runners must be >= 0, got {num_env_runners}")
    with ray_session(address or "local") as ray:  # first: a bad address leaves no folder
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if num_env_runners > cpus:
            raise ClusterError(
                f"{num_env_runners} env runners need {num_env_runners} CPUs; the Ray cluster "
                f"has {cpus}"
            )
        for sub in ("checkpoints", "snapshots", "plots"):
            (out / sub).mkdir(parents=True, exist_ok=True)
        config.save(out / "config.json")
        write_spec(out, config.game, config.expansions, config.window, config.observation)
        run = _Run(config, out)
        if config.warm_start_games:
            run.state["warm_start"] = "none: the rllib backend starts from random weights"
        algo = build_algorithm(config, num_env_runners)
        torch.set_num_threads(learner_threads(num_env_runners))  # after the envs' callback
        try:
            copy_main_to(algo, [snapshot_slot(i) for i in range(SNAPSHOT_SLOTS)])
            steps = 0
            while steps < config.timesteps:
                result = algo.train()
                steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
                run.log(result, steps)
                if progress:
                    print(f"rllib: {steps}/{config.timesteps} env steps", flush=True)
                if run.due("snapshot", config.snapshot_every, steps):
                    run.snapshot(algo, steps)
                if run.due("eval", config.eval_every, steps):
                    run.evaluate(algo, steps)
                if run.due("checkpoint", config.checkpoint_every, steps):
                    run.checkpoint(algo, steps)
            evals = run.state.get("evals")
            if not evals or evals[-1]["timesteps"] != steps:
                run.evaluate(algo, steps)
            run.checkpoint(algo, steps)
            final = export_main(algo, config, out / FINAL_MODEL)
        finally:
            algo.stop()
            run.tb.close()
    from carcassonne_rl.training.plots import plot_training

    plot_training(out)
    return final
