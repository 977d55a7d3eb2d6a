"""The trained agents shipped with the package: ``pretrained`` and ``pretrained:SIMS``.

The weights lie in ``carcassonne_rl/agents/pretrained_models/`` as ``.npz`` files (tensors
and a JSON description only, loaded without pickle, see ``value_net``); ``models.json``
there records how each was trained and how strong it measured. Loading needs no network
access and no torch.

- Tile game: ``pretrained`` is :class:`AfterstateAgent` with the shipped value network (one
  batched forward pass per decision); ``pretrained:SIMS`` is :class:`ValueSearchAgent`, the
  UCT search of ``tile_mcts`` with the network valuing the leaves and the children's priors,
  ``SIMS`` simulations per decision.
- Card game: ``pretrained`` is :class:`CardNetAgent`, the shipped policy network (the most
  likely legal action of the MaskablePPO policy it was exported from).
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .afterstate_agent import AfterstateAgent, final_value, load_value_net, options
from .base import BaseAgent
from .tile_greedy import settle
from .tile_mcts import TileMCTSAgent
from .value_net import MLP, ModelFileError, single_threaded_blas

CARD_POLICY_KIND = "card_policy"
MODEL_FILES = {"carcassonne": "carcassonne_2p.npz", "cardcassonne": "cardcassonne_2p.npz"}


def model_dir() -> Path:
    return Path(str(resources.files("carcassonne_rl.agents") / "pretrained_models"))


def model_info() -> dict:
    """``models.json``: per game, the training command, machine, wall time and strength."""
    return json.loads((model_dir() / "models.json").read_text())


def pretrained_path(game: str) -> Path:
    path = model_dir() / MODEL_FILES[game]
    if not path.exists():
        raise ModelFileError(f"no pretrained {game} model in this installation ({path})")
    return path


class CardNetAgent(BaseAgent):
    """A card-game policy network: the legal action with the highest logit."""

    def __init__(self, net: MLP, seed: int | None = None, name: str = "pretrained") -> None:
        from carcassonne_rl.encoders.card_encoder import CardEncoder

        super().__init__(seed)
        if net.meta.get("kind") != CARD_POLICY_KIND:
            raise ModelFileError(f"not a card policy network: {net.meta.get('kind')!r}")
        self.net = net
        self.encoder = CardEncoder()
        self.name = name
        single_threaded_blas()

    def act(self, state: Any, player: int) -> int:
        codes = state.legal_codes_list()
        if len(codes) == 1:
            return int(codes[0])
        obs = self.encoder.encode(state, player)  # the seat's own view: nothing hidden
        logits = self.net.forward(obs[None])[0]
        idx = [self.encoder.index_of(state, int(c)) for c in codes]
        return int(codes[int(np.argmax(logits[idx]))])


class ValueSearchAgent(TileMCTSAgent):
    """Tile-game UCT whose leaf values and child priors come from an afterstate network.

    Every new tree node gets all its options at once (``options``: placement with each
    follower choice) valued by one forward pass, as progressive-bias priors; a leaf is the
    settled position valued for every seat. Values are ``(1 + tanh(margin / scale)) / 2``.
    """

    def __init__(self, net: MLP, simulations: int, seed: int | None = None, c: float = 0.35,
                 prior_visits: float = 3.0) -> None:  # fmt: skip
        super().__init__(simulations, None, seed, c=c, prior_visits=prior_visits)
        self.net = net
        self.value_scale = float(net.meta["value_scale"])
        self.name = f"pretrained:{simulations}"
        single_threaded_blas()

    def _seat_values(self, children: list[Any]) -> np.ndarray:
        """values[child, seat] in [0, 1] of settled afterstates (one forward pass)."""
        from carcassonne_rl.encoders.afterstate_features import (
            NUM_FEATURES,
            player_features,
            seat_vector,
        )

        n = children[0].config.players
        out = np.empty((len(children), n))
        rows, where = [], []
        for i, child in enumerate(children):
            if child.is_over:
                for p in range(n):
                    out[i, p] = final_value(child, p, self.value_scale)
                continue
            per, left = player_features(child)
            for p in range(n):
                rows.append(seat_vector(per, left, p, child.config))
                where.append((i, p))
        if rows:
            vals = self.net.forward(np.stack(rows).reshape(-1, NUM_FEATURES))[:, 0]
            for (i, p), v in zip(where, vals, strict=True):
                out[i, p] = v
        return (1.0 + out) / 2.0

    def _expand(self, s: Any) -> list[tuple[int, list[float]]]:
        opts = options(s)
        vals = self._seat_values([o.state for o in opts])
        mover = s.current_player
        best: dict[int, np.ndarray] = {}
        for o, v in zip(opts, vals, strict=True):
            if o.code not in best or v[mover] > best[o.code][mover]:
                best[o.code] = v
        return [(code, v.tolist()) for code, v in best.items()]

    def _values(self, s: Any) -> list[float]:
        if s.phase == "place_follower" and not s.is_over:
            opts = options(s)
            vals = self._seat_values([o.state for o in opts])
            return vals[int(np.argmax(vals[:, s.current_player]))].tolist()
        if not s.is_over:
            settle(s, s.turn if s.phase != "place_tile" else -1)
        return self._seat_values([s])[0].tolist()


def make_pretrained(game: str, simulations: int | None = None, seed: int | None = None) -> Any:
    """The shipped agent of ``game`` (``simulations``: the tile game's network-guided search)."""
    if game == "cardcassonne":
        if simulations is not None:
            raise ValueError("pretrained:SIMS (search) exists for the tile game only")
        return CardNetAgent(MLP.load(pretrained_path(game), kind=CARD_POLICY_KIND), seed=seed)
    net = load_value_net(pretrained_path(game))
    if simulations is None:
        return AfterstateAgent(net, seed=seed, name="pretrained")
    if simulations <= 0 or not math.isfinite(simulations):
        raise ValueError(f"pretrained:SIMS needs SIMS > 0, got {simulations}")
    return ValueSearchAgent(net, simulations, seed=seed)
