"""Configuration of a self-play training run (saved as ``config.json`` in the run folder)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from carcassonne_rl.games import registry

OBSERVATIONS = ("v0", "v1")  # tile game: carcassonne_v0 planes or carcassonne_v1 board+globals
TILE_NETS = ("planes", "board", "features")  # policies.TILE_NETS + ppo/feature_policy.py
DEVICE_PATTERN = re.compile(r"auto|cpu|mps|cuda(:\d+)?")  # SB3's "auto" and torch's names


@dataclass
class TrainConfig:
    """Everything that defines a run. Defaults: the README's main job (small CPU budget)."""

    game: str = "carcassonne"
    players: int = 2
    expansions: tuple[str, ...] = ()
    timesteps: int = 100_000
    seed: int = 0
    n_envs: int = field(default_factory=lambda: max(1, min(os.cpu_count() or 1, 8)))
    window: int | None = None  # tile game: encoder window (None: the encoder's default)
    observation: str = "v0"  # tile game: "v0" (carcassonne_v0) or "v1" (carcassonne_v1)
    reward_mode: str = "score_diff"  # terminal +-1 plus score-difference shaping
    # self-play pool (see opponent_pool.PoolSchedule)
    pool_latest: float = 0.5
    pool_past: float = 0.3
    baselines: tuple[str, ...] = ("random", "greedy")
    snapshot_every: int = 20_000
    checkpoint_every: int = 20_000
    keep_checkpoints: int = 3  # newest checkpoints/step_N.zip kept (0 = all); may change on resume
    eval_every: int = 25_000
    eval_deals: int = 20  # duplicate format: each deal played from every seat
    # warm start (training/ppo/warm_start.py): imitate this agent before self-play; 0 games = off
    warm_start_agent: str = "greedy"
    warm_start_games: int = 100
    warm_start_epochs: int = 6
    warm_start_augment: bool = False  # tile game: sample i is turned (epoch + i) % 4 times
    warm_start_learning_rate: float | None = None  # None: learning_rate
    warm_start_batch_size: int | None = None  # None: batch_size
    # None: imitate the moves played; T: the teacher's values of all options, softmax(v / T)
    warm_start_temperature: float | None = None
    # DAgger: the last games are played by this agent spec, the teacher labels its positions
    warm_start_student: str | None = None
    warm_start_student_games: int = 0
    # a saved policy (.zip) the imitation starts from; with tile_net=features, a distilled
    # features policy (.npz, `carcassonne-rl distill`) that PPO starts from
    warm_start_init: str | None = None
    # PPO
    n_steps: int = 256  # per env, per rollout
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    clip_range: float = 0.2
    # networks
    channels: int = 32  # tile game CNN width
    conv_layers: int = 3
    tile_net: str = "planes"  # tile game network: "planes" (TilePlanes), "board", "features"
    hidden: int = 256  # card game MLP width (two layers)
    # torch device of the PPO learner (SB3's choice): "auto" (a GPU if there is one), "cpu",
    # "cuda", "cuda:N", "mps"; may change on resume. Saved policies load on the CPU.
    device: str = "auto"

    def __post_init__(self) -> None:
        self.expansions = tuple(self.expansions)
        registry.check_setup(self.game, self.players, self.expansions)
        self.baselines = tuple(self.baselines)
        if self.observation not in OBSERVATIONS:
            raise ValueError(
                f"unknown observation {self.observation!r}; expected one of {OBSERVATIONS}"
            )
        if self.observation != "v0" and self.game != "carcassonne":
            raise ValueError("observation v1 (carcassonne_v1) exists only for the tile game")
        if isinstance(self.warm_start_augment, str):  # from the CLI's --set FIELD=VALUE
            text = self.warm_start_augment.lower()
            if text not in ("true", "false", "1", "0"):
                raise ValueError(f"warm_start_augment must be true or false, got {text!r}")
            self.warm_start_augment = text in ("true", "1")
        if not isinstance(self.device, str) or not DEVICE_PATTERN.fullmatch(self.device):
            raise ValueError(
                f"device must be auto, cpu, cuda, cuda:N or mps (torch's device names), "
                f"got {self.device!r}"
            )
        if self.tile_net not in TILE_NETS:
            raise ValueError(f"unknown tile_net {self.tile_net!r}; expected one of {TILE_NETS}")
        features = self.tile_net == "features" and self.game == "carcassonne"
        if features and (self.observation != "v1" or "messages" in self.expansions):
            raise ValueError(
                "tile_net=features reads carcassonne_v1 observations (observation=v1) "
                "and scores placements and followers only (no The Messages)"
            )
        for name in ("timesteps", "n_envs", "n_steps", "batch_size", "n_epochs", "eval_deals"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        for name in ("warm_start_learning_rate", "warm_start_batch_size", "warm_start_temperature"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be > 0 (or None: the PPO value), got {value}")
        if self.warm_start_student_games and not self.warm_start_student:
            raise ValueError("warm_start_student_games needs warm_start_student (an agent spec)")
        if self.warm_start_student_games > self.warm_start_games:
            raise ValueError("warm_start_student_games must be <= warm_start_games")
        for name in (
            "warm_start_student_games",
            "snapshot_every",
            "checkpoint_every",
            "eval_every",
            "warm_start_games",
            "keep_checkpoints",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0 (0 = never), got {getattr(self, name)}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["expansions"] = list(self.expansions)
        d["baselines"] = list(self.baselines)
        return d

    def save(self, path: Path) -> None:
        from carcassonne_rl.training.run_files import atomic_write_json

        atomic_write_json(path, self.to_dict())

    @classmethod
    def load(cls, path: Path) -> TrainConfig:
        data = json.loads(Path(path).read_text())
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"{path}: unknown config fields {sorted(unknown)}")
        return cls(**data)

    @property
    def env_name(self) -> str:
        """The env the learner plays: ``carcassonne_v0``/``_v1`` or ``cardcassonne_v0``."""
        return f"{self.game}_{self.observation}"
