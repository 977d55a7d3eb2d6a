"""Game configuration."""

from __future__ import annotations

from dataclasses import dataclass, field

from .rules_table import RULES, RulesTable


@dataclass(frozen=True)
class GameConfig:
    """``players`` (2-5), shuffle ``seed`` and the rules-decision table ``rules``."""

    players: int = 2
    seed: int = 0
    rules: RulesTable = field(default=RULES)

    def __post_init__(self) -> None:
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise ValueError(f"players must be an int, got {self.players!r}")
        if self.players not in self.rules.player_counts:
            allowed = sorted(self.rules.player_counts)
            raise ValueError(f"players must be one of {allowed}, got {self.players}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ValueError(f"seed must be an int, got {self.seed!r}")
        per_round, rounds = self.rules.deal(self.players)
        if self.rules.setup_cards + per_round * rounds * self.players > 130:
            raise ValueError("the rules table deals more cards than the game has")

    def to_dict(self) -> dict:
        d: dict = {"players": self.players, "seed": self.seed}
        if self.rules != RULES:
            d["rules"] = self.rules.to_dict()
        return d
