"""``heuristic:search``: a determinized rollout search over a base card policy.

At a turn decision with two or more legal codes the agent draws ``worlds`` full states from
its own view (``determinize(view, seat, rng)``, what ``State.resample_hidden(rng, seat)``
does for a state: the others' hands, their face-down cards and the pile drawn from the unseen
cards). The SAME worlds serve every candidate. In each world a candidate is applied and the
game played on by the base policy in every seat, each seat's base agent deciding from its own
view of that world (a :class:`ViewAgent` reads nothing else), to the start of the round
``horizon`` rounds on (rows are scored at a round's end) or the game's end. A world is valued
by the seat's standing margin (score + building value collected, own minus the best other);
the candidate with the best mean wins (ties: the base policy's order). The spec
``search=W:K:H`` sets the horizon (default 1: the rest of the round; a longer one plays
further with the base policy, which measured weaker, see the docs). Before the search the
candidates are pruned to the base policy's ``candidates`` best when it ranks them
(``scored(view, legal)``, as :class:`CardHeuristicAgent` does). Every other decision (setup
joker, scoring choices) is the base policy's. The agent decides from its view only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from carcassonne_rl.agents.base import Agent, ViewAgent
from carcassonne_rl.agents.card.row_values import standing
from carcassonne_rl.games.cardcassonne import determinize

#: builds one seat's base agent (a :class:`ViewAgent`) from a seed
BaseFactory = Callable[[int | None], Agent]


def parse_search(params: list[str]) -> tuple[int, int, int]:
    """``(W, K, H)`` of a card search spec's parameters ``["search[=W]", "K"?, "H"?]``
    (defaults 8, 3 and 1); a bare ``ValueError`` when they are malformed (the caller names
    the spec)."""
    head, sep, value = params[0].partition("=")
    if head != "search" or len(params) > 3 or (len(params) >= 2 and not sep):
        raise ValueError
    worlds = int(value) if sep else 8
    candidates = int(params[1]) if len(params) >= 2 else 3
    horizon = int(params[2]) if len(params) == 3 else 1
    if worlds < 1 or candidates < 1 or horizon < 1:
        raise ValueError
    return worlds, candidates, horizon


def margin(s: Any, p: int) -> float:
    """Seat ``p``'s standing minus the best other standing in ``s``."""
    v = [standing(s, q) for q in range(s.n)]
    return v[p] - max(v[q] for q in range(s.n) if q != p)


class CardSearchAgent(ViewAgent):
    """Rollouts of ``base_factory``'s policy in ``worlds`` sampled worlds (module doc)."""

    def __init__(
        self,
        base_factory: BaseFactory,
        worlds: int = 8,
        seed: int | None = None,
        candidates: int = 3,
        horizon: int = 1,
    ) -> None:
        if worlds < 1 or candidates < 1 or horizon < 1:
            raise ValueError("worlds, candidates and horizon must be >= 1")
        super().__init__(seed)
        self.base_factory = base_factory
        self.worlds = worlds
        self.candidates = candidates
        self.horizon = horizon
        self.base = base_factory(seed)
        if not isinstance(self.base, ViewAgent):
            raise ValueError("the base policy must be a ViewAgent (it decides from a view)")
        self._players: list[Agent] = []
        self.name = f"search:{worlds}:{candidates}"
        self.last_values: dict[int, float] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.base.reset(self.seed)

    def _ranked(self, v: Any, legal: list[int]) -> list[int]:
        """``legal`` in the base policy's order (best first) when it ranks, else as given."""
        scored = getattr(self.base, "scored", None)
        if scored is None:
            return list(legal)
        pairs = scored(v, legal)
        order = sorted(range(len(pairs)), key=lambda i: -pairs[i][1])
        return [pairs[i][0] for i in order]

    def _rollout(self, s: Any, seed: int) -> None:
        """Play ``s`` on with the base policy in every seat to the horizon (in place); the
        seats' agents are reseeded with ``seed`` so every candidate meets the same play."""
        n = s.n
        while len(self._players) < n:
            self._players.append(self.base_factory(None))
        for q in range(n):
            self._players[q].reset(seed * 8 + q)
        stop = s.round + self.horizon
        while not s.is_over and (s.round < stop or s.phase != "turn"):
            p = s.current_player
            s.apply_code(int(self._players[p].act(s, p)))

    def decide(self, v: Any, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if v.phase != "turn":
            return int(self.base.decide(v, legal))
        ranked = self._ranked(v, legal)[: self.candidates]
        if len(ranked) == 1:
            return ranked[0]
        me = v.player
        worlds = [determinize(v, me, self.rng) for _ in range(self.worlds)]
        seeds = [self.rng.randrange(1 << 30) for _ in worlds]
        totals = dict.fromkeys(ranked, 0.0)
        for world, seed in zip(worlds, seeds, strict=True):
            for code in ranked:
                s = world.clone()
                s.apply_code(code)
                self._rollout(s, seed)
                totals[code] += margin(s, me)
        self.last_values = {c: t / len(worlds) for c, t in totals.items()}
        best = max(self.last_values.values())
        return next(c for c in ranked if self.last_values[c] >= best - 1e-9)


__all__ = ["BaseFactory", "CardSearchAgent", "margin", "parse_search"]
