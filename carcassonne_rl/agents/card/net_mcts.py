"""``pretrained:SIMS`` (card game): information-set MCTS with the network's values and priors.

The search of ``mcts`` (:class:`CardMCTSAgent`: one tree keyed by action code over
determinizations of the seat's view, availability-corrected UCB), with the shipped card
network (:class:`CardSearchValueAgent`) in place of the random rollouts:

- **priors and pruning**: at a turn decision only the heuristic's ``candidates`` best
  options are searched, each valued by the network from the mover's view of that world
  (one batched pass); a new node of the searching seat's starts its options with
  ``prior_visits`` virtual visits at those values (``mcts_core``'s progressive bias);
- **leaf values**: a new node's world is played on by the network's agent in every seat to
  the searching seat's next turn decision (or the game's end) and valued there by the
  network: the seat's predicted final margin ``x`` (points; at the game's end, the final
  margins). The seat is valued ``squash(x)``, every other seat ``squash(-x)``.
  ``own_leaf=False`` stops at the next turn decision of any seat and takes that mover's
  margin instead, with priors at every seat's nodes (at 3-5 players a paranoid reading);
  it measured far weaker (docs/research/2026-11-29-card-net-mcts.md).

Every seat's moves in the tree are searched; each world is drawn from the searching seat's
view, so the agent decides from its view only.
"""

from __future__ import annotations

from typing import Any

from carcassonne_rl.agents.card.mcts import CardMCTSAgent
from carcassonne_rl.agents.card.value import MARGIN_SCALE, CardSearchValueAgent
from carcassonne_rl.agents.common.mcts_core import best_code, search, squash
from carcassonne_rl.agents.common.value_net import MLP
from carcassonne_rl.games.cardcassonne import determinize, view


class CardNetMCTSAgent(CardMCTSAgent):
    """ISMCTS over the seat's view with the network's priors and leaf values (module doc)."""

    def __init__(self, net: MLP, simulations: int = 200, seed: int | None = None,
                 c: float = 0.7, scale: float = 20.0, prior_visits: float = 2.0,
                 candidates: int = 3, own_leaf: bool = True) -> None:  # fmt: skip
        if simulations < 1 or prior_visits < 0 or candidates < 1:
            raise ValueError("simulations and candidates must be >= 1, prior_visits >= 0")
        super().__init__(simulations, None, seed, c=c, scale=scale)
        self.prior_visits = prior_visits
        self.net = CardSearchValueAgent(net, seed, candidates=candidates)
        self._seat = CardSearchValueAgent(net, seed)
        self.name = f"pretrained:{simulations}"
        self._kept: dict[tuple, list[tuple[int, float]]] = {}
        self.own_leaf = own_leaf
        self._me = -1

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.net.reset(self.seed)
        self._seat.reset(self.seed)

    def _vector(self, n: int, mover: int, margin: float) -> list[float]:
        """Per seat: the mover's predicted margin for it, its negation for the others."""
        return [squash(margin if q == mover else -margin, self.scale) for q in range(n)]

    def _candidates(self, s: Any) -> list[tuple[int, float]]:
        """(code, the network's margin in points) of the mover's candidates at a turn
        decision, once per position (the history and the mover's hand in this world)."""
        p = s.current_player
        key = (tuple(s.history), tuple(s.hands[p]))
        kept = self._kept.get(key)
        if kept is None:
            codes = s.legal_codes()
            values = self.net.ranked_values(view(s, p), codes).tolist()
            kept = [(c, x * MARGIN_SCALE) for c, x in zip(codes, values, strict=True) if x > -1e5]
            self._kept[key] = kept
        return kept

    def _legal(self, s: Any) -> list[int]:
        """The searched codes: the candidates at a turn decision, every legal code elsewhere."""
        if s.phase != "turn":
            return s.legal_codes()
        return [c for c, _ in self._candidates(s)]

    def _valued_here(self, s: Any) -> bool:
        """Whether ``s`` is a decision the network values: a turn decision (with
        ``own_leaf``, the searching seat's)."""
        return s.phase == "turn" and (not self.own_leaf or s.current_player == self._me)

    def _expand(self, s: Any) -> list[tuple[int, list[float]]]:
        """The candidates with their values at the decisions the network values (no prior
        elsewhere: with ``own_leaf`` the others' nodes are valued at the seat's next turn)."""
        if not self._valued_here(s):
            return []
        return [(c, self._vector(s.n, s.current_player, x)) for c, x in self._candidates(s)]

    def _evaluate(self, s: Any) -> list[float]:
        """Play on with the network's agent to a turn decision (with ``own_leaf``, the
        searching seat's) and value it there."""
        while not s.is_over and not self._valued_here(s):
            q = s.current_player
            s.apply_code(int(self._seat.act(s, q)))
        if s.is_over:  # the final margins (``mcts``'s values of a finished game)
            return self._values(s)
        p = s.current_player
        margin = self.net.state_value(view(s, p), s.legal_codes())
        return self._vector(s.n, p, margin)

    def decide(self, v, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if v.phase != "turn":
            return int(self.net.decide(v, legal))
        self._kept, self._me = {}, v.player
        stats = search(
            lambda rng: determinize(v, v.player, rng),
            self._legal,
            self._evaluate,
            self.rng,
            self.simulations,
            None,
            self.c,
            expand=self._expand,
            prior_visits=self.prior_visits,
        )
        self.last_stats = stats
        return int(best_code(stats, legal))


__all__ = ["CardNetMCTSAgent"]
