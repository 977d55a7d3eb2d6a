"""The settings of an afterstate run (``train --algo afterstate``)."""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from carcassonne_rl.agents.common.device_net import check_device
from carcassonne_rl.encoders.features.card import FEATURE_SET as CARD_FEATURE_SET
from carcassonne_rl.encoders.features.table import FEATURE_SETS, feature_set_name
from carcassonne_rl.games.carcassonne.config import EXPANSIONS
from carcassonne_rl.games.registry import GAMES, check_players
from carcassonne_rl.training.run_files import (
    atomic_write_json,
)

STATE_FILE = "trainer_state.json"
BASELINE_AGENTS = ("greedy", "heuristic")
#: the card game's networks: ``afterstate`` (``tanh(margin / value_scale)`` of the view's
#: features) or ``search_value`` (the margin / value_scale of the features and the heuristic's
#: margin, over the heuristic's ``candidates`` best options: expert iteration's student)
CARD_NETWORKS = ("afterstate", "search_value")


def parse_table(text: str, game: str = "carcassonne") -> tuple[int, tuple[str, ...]]:
    """``"4+messages+labyrinth"`` -> ``(4, ("messages", "labyrinth"))``; ``ValueError`` if bad
    (the card game has no expansions: ``"3"`` -> ``(3, ())``)."""
    head, *exps = [part.strip() for part in str(text).split("+")]
    try:
        players = int(head)
    except ValueError:
        raise ValueError(
            f"table {text!r}: expected PLAYERS[+EXPANSION...], e.g. 4+messages"
        ) from None
    try:
        check_players(game, players)
    except ValueError as err:
        raise ValueError(f"table {text!r}: {err}") from None
    if exps and game == "cardcassonne":
        raise ValueError(f"table {text!r}: the card game has no expansions")
    unknown = [e for e in exps if e not in EXPANSIONS]
    if unknown or len(set(exps)) != len(exps):
        raise ValueError(f"table {text!r}: expansions must be distinct, from {EXPANSIONS}")
    return players, tuple(exps)


def table_label(players: int, expansions: tuple[str, ...]) -> str:
    return "+".join([f"{players}p", *expansions])


@dataclass
class AfterstateConfig:
    """Everything that defines an afterstate-TD run (saved as ``config.json``)."""

    algo: str = "afterstate"
    game: str = "carcassonne"
    players: int = 2
    expansions: tuple[str, ...] = ()
    timesteps: int = 200_000  # turns recorded in self-play (positions learnt from)
    seed: int = 0
    workers: int = field(default_factory=lambda: max(1, min(os.cpu_count() or 1, 8)))
    games_per_iteration: int = 48
    games_in_flight: int = 12  # per worker, valued together
    hidden: tuple[int, ...] = (128, 64)
    value_scale: float = 30.0
    td_lambda: float = 1.0
    epsilon: float = 0.05
    greedy_fraction: float = 0.5
    warm_games: int = 960
    learning_rate: float = 1e-3
    batch_size: int = 512
    epochs_per_iteration: float = 2.0  # passes over the new positions' worth of samples
    replay_size: int = 200_000
    snapshot_every: int = 50_000
    checkpoint_every: int = 20_000
    eval_every: int = 100_000
    eval_deals: int = 20
    baselines: tuple[str, ...] = ("random", "greedy")
    # features the network reads: two_player (2-player design; old name v1) or table (every
    # opponent, 2-5 seats); the card game reads card (encoders.features.card), its one set
    feature_set: str = "two_player"
    # the tables self-play deals, in turn (e.g. 2,3,4,5,4+messages+labyrinth); empty: the
    # one table of ``players`` and ``expansions``. Evaluation plays each.
    tables: tuple[str, ...] = ()
    # of the games without greedy seats, the fraction where some seats are a past snapshot
    snapshot_fraction: float = 0.0
    # the agent that plays the baseline seats of the ``greedy_fraction`` games
    baseline_agent: str = "greedy"
    # a model file (same features and layer widths) to start from instead of random
    # weights; the greedy warm-up games are then skipped (fine-tuning)
    init_model: str = ""
    # the card game's network (CARD_NETWORKS), and the options a search_value network ranks
    card_network: str = "afterstate"
    candidates: int = 3
    # torch device of the learner and of self-play's batched network evaluations: "cpu"
    # (the numpy network, bit for bit reproducible), "auto", "cuda", "cuda:N", "mps"
    # (agents.common.device_net; the same values to float32 tolerance)
    device: str = "cpu"

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game must be one of {GAMES}, got {self.game!r}")
        check_players(self.game, self.players)
        card = self.game == "cardcassonne"
        if card and self.feature_set == "two_player":
            self.feature_set = CARD_FEATURE_SET  # the default: the card game's one set
        if card and (self.feature_set != CARD_FEATURE_SET or self.expansions):
            raise ValueError(f"the card game reads feature_set {CARD_FEATURE_SET!r} and has "
                             "no expansions")  # fmt: skip
        self.expansions = tuple(self.expansions)
        self.hidden = tuple(int(h) for h in self.hidden)
        self.baselines = tuple(self.baselines)
        self.tables = tuple(str(t) for t in self.tables)
        for t in self.tables:
            parse_table(t, self.game)
        if not card and feature_set_name(self.feature_set) not in FEATURE_SETS:
            raise ValueError(
                f"feature_set must be one of {tuple(FEATURE_SETS)}, got {self.feature_set!r}"
            )
        self.feature_set = feature_set_name(self.feature_set)  # a config saved with v1
        if self.card_network not in CARD_NETWORKS:
            raise ValueError(
                f"card_network must be one of {CARD_NETWORKS}, got {self.card_network!r}"
            )
        if self.card_network != "afterstate" and not card:
            raise ValueError("card_network is a setting of the card game (--game cardcassonne)")
        if self.candidates <= 0:
            raise ValueError(f"candidates must be > 0, got {self.candidates}")
        check_device(self.device)
        if self.baseline_agent not in BASELINE_AGENTS:
            raise ValueError(
                f"baseline_agent must be one of {BASELINE_AGENTS}, got {self.baseline_agent!r}"
            )
        if not 0.0 <= self.snapshot_fraction <= 1.0:
            raise ValueError("snapshot_fraction must be in [0, 1]")
        for name in ("timesteps", "workers", "games_per_iteration", "games_in_flight",
                     "batch_size", "replay_size", "eval_deals"):  # fmt: skip
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if not self.hidden or min(self.hidden) <= 0:
            raise ValueError(f"hidden must be positive layer widths, got {self.hidden}")
        if not 0.0 <= self.td_lambda <= 1.0 or not 0.0 <= self.epsilon <= 1.0:
            raise ValueError("td_lambda and epsilon must be in [0, 1]")
        if not 0.0 <= self.greedy_fraction <= 1.0:
            raise ValueError("greedy_fraction must be in [0, 1]")
        if self.value_scale <= 0 or self.learning_rate <= 0 or self.epochs_per_iteration <= 0:
            raise ValueError("value_scale, learning_rate, epochs_per_iteration must be > 0")

    @property
    def linear(self) -> bool:
        """Whether the network's output is linear (``search_value``) rather than ``tanh``."""
        return self.card_network == "search_value"

    def target(self, margin: float) -> float:
        """The network's target for a seat that ends ``margin`` points ahead of the best
        other seat: ``tanh(margin / value_scale)``, or ``margin / value_scale`` (linear)."""
        x = margin / self.value_scale
        return x if self.linear else math.tanh(x)

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("expansions", "hidden", "baselines", "tables"):
            d[k] = list(d[k])
        return d

    def save(self, path: Path) -> None:
        atomic_write_json(path, self.to_dict())

    @classmethod
    def load(cls, path: Path) -> AfterstateConfig:
        data = json.loads(Path(path).read_text())
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"{path}: unknown config fields {sorted(unknown)}")
        return cls(**data)

    def table_list(self) -> list[tuple[int, tuple[str, ...]]]:
        """(players, expansions) of each table self-play deals, in turn."""
        if not self.tables:
            return [(self.players, tuple(self.expansions))]
        return [parse_table(t, self.game) for t in self.tables]


# ------------------------------------------------------------------------- self-play
