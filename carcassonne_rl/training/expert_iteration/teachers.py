"""Who plays the tile teacher games (:mod:`.positions`): the search (:func:`make_teacher`),
its deep search on a share of the placements (:func:`deep_teacher`, playout-cap
randomisation) and, with ``expert-loop --opponents``, the agents in every seat but the
search's, each seeded from the teacher's agent seed and its seat (:func:`make_opponents`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from carcassonne_rl.agents.tile.search import ExpectimaxAgent
from carcassonne_rl.agents.tile.table_agent import TileTableAgent

#: the deep search's agent seed is the teacher's plus this (its own random stream)
DEEP_SEED_OFFSET = 2**40
#: keys the stream that draws the deep placements (with the deal and the agent seed)
DEEP_STREAM = 4_517

#: an opponent's agent seed is the teacher's plus this times (its seat + 1)
OPPONENT_SEED_OFFSET = 2**41


def opponent_seed(seed: int, seat: int) -> int:
    """The agent seed of the opponent in ``seat`` of a teacher game whose teacher has
    ``seed``."""
    return seed + OPPONENT_SEED_OFFSET * (seat + 1)


def make_opponents(spec: str, seed: int, players: int, seat: int) -> dict[int, Any]:
    """The opponents ``spec`` of a teacher game, one per seat but the teacher's ``seat``;
    ``ValueError`` for a spec that is not a tile agent."""
    from carcassonne_rl.agents import make_agent

    return {s: make_agent(spec, "carcassonne", seed=opponent_seed(seed, s))
            for s in range(players) if s != seat}  # fmt: skip


def check_opponents(game: str, spec: str, tables: tuple[int, ...]) -> None:
    """``ValueError`` unless ``spec`` is a tile agent the teacher games at ``tables`` can
    seat (the card teacher plays every seat)."""
    if game != "carcassonne":
        raise ValueError("opponents: the card teacher plays every seat (the opponents are "
                         "the tile game's)")  # fmt: skip
    for players in sorted(set(tables)):
        make_opponents(spec, 0, players, 0)


def make_teacher(spec: str, seed: int, players: int = 2) -> ExpectimaxAgent:
    """The search agent of ``spec`` (``pretrained:search[=K[:S]]``) at a table of
    ``players``; ``ValueError`` for any other agent."""
    from carcassonne_rl.agents import make_agent

    agent = make_agent(spec, "carcassonne", seed=seed)
    if isinstance(agent, TileTableAgent):  # pretrained:search: a search per table size
        agent = agent.value_agent_at(players)
    if not isinstance(agent, ExpectimaxAgent):
        raise ValueError(f"teacher {spec!r} is not a search (expected pretrained:search=K:S)")
    return agent


def check_deep(deep_samples: int | None, deep_share: float, samples: int | None = None
               ) -> None:  # fmt: skip
    """``ValueError`` unless ``deep_share`` is in [0, 1] and, when it is above 0,
    ``deep_samples`` is a count of continuations above the cheap search's ``samples``."""
    if not 0.0 <= deep_share <= 1.0:
        raise ValueError(f"deep share must be in [0, 1] (the share of placements the deep "
                         f"search values), got {deep_share}")  # fmt: skip
    if deep_share > 0 and (deep_samples is None or deep_samples < 1
                           or (samples is not None and deep_samples <= samples)):  # fmt: skip
        raise ValueError("a deep share above 0 needs deep samples above the teacher's samples "
                         f"(S2 > S = {samples}), got {deep_samples}")  # fmt: skip


def deep_teacher(spec: str, seed: int, players: int, deep_samples: int) -> ExpectimaxAgent:
    """The deep search of the teacher ``spec``: its search (the same ``K``, network and
    blend) with ``deep_samples`` continuations per reply and its own random stream (agent
    seed ``seed + DEEP_SEED_OFFSET``)."""
    deep = make_teacher(spec, seed + DEEP_SEED_OFFSET, players)
    deep.samples = deep_samples
    return deep


def deep_placements(deal: int, seed: int) -> np.random.Generator:
    """The stream that draws which placements of teacher game ``deal`` (agent seed
    ``seed``) the deep search values: one ``random()`` per tile placement, deep below the
    share."""
    return np.random.default_rng((deal, seed, DEEP_STREAM))
