"""``heuristic:search``: a determinized rollout search over a base card policy.

At a turn decision with two or more legal codes the agent draws ``worlds`` full states from
its own view (``determinize(view, seat, rng)``, what ``State.resample_hidden(rng, seat)``
does for a state: the others' hands, their face-down cards and the pile drawn from the unseen
cards). The SAME worlds serve every candidate. In each world a candidate is applied and the
game played on by the base policy in every seat, each seat's base agent deciding from its own
view of that world (a :class:`ViewAgent` reads nothing else), to the start of the round
``horizon`` rounds on (rows are scored at a round's end) or the game's end. A world is valued
by the seat's standing margin (:func:`leaf_standing`: score + building value collected and,
weighted by ``future``, what the seat's animals and partial building sets hold for the rounds
to come; own minus the best other); the candidate with the best mean wins (ties: the base
policy's order). The spec ``search=W:K:H:F`` sets the horizon (default 1: the rest of the
round; a longer one plays further with the base policy, which measured weaker, see the docs)
and the future weight (default :data:`DEFAULT_FUTURE`; 0: the standings alone).
``F = net`` (:data:`NET_LEAF`, a base policy with a network only) values
a world by the base network instead: the rollout goes on to the seat's next turn decision
and its value is the network's estimate of the seat's final margin there
(``base.state_value``; at the game's end, the final margin itself). ``F = table``
(:data:`TABLE_LEAF`, the default of ``pretrained:search``) picks by the table's size
(:func:`table_leaf`): the network at 2 seats, the standings with :data:`DEFAULT_FUTURE` at
3-5 seats, where the network's leaf measured weaker. Before the search the
candidates are pruned to the base policy's ``candidates`` best when it ranks them
(``scored(view, legal)``, as :class:`CardHeuristicAgent` does). Every other decision (setup
joker, scoring choices) is the base policy's. The agent decides from its view only.

The rollouts of a decision run compiled (:mod:`.search_kernels`: every world x candidate
rollout stepped together on the batched card engine, the network's options of all of them
valued in one forward pass per step) when the base policy is the search-value network over
the heuristic (``pretrained:search``) or the heuristic (``heuristic:search``): the same
worlds, moves, tie-breaks and leaves as the Python rollouts, which ``batched=False`` keeps
(the reference, and the path of every other base policy). World sampling is
:meth:`CardSearchAgent.sample_worlds`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from carcassonne_rl.agents.base import Agent, ViewAgent, world_of
from carcassonne_rl.agents.card.heuristic import (
    CardHeuristicWeights,
    future_set_points,
    rounds_left,
)
from carcassonne_rl.agents.card.row_values import buildings_value, standing
from carcassonne_rl.games.cardcassonne import RULES, determinize, view

#: the heuristic's weights, which the leaf's future terms use
WEIGHTS = CardHeuristicWeights()
#: the weight of those terms in the leaf's value when the spec leaves ``F`` out
DEFAULT_FUTURE = 1.0

#: the spec's ``F`` that values a rollout's end by the base network
NET_LEAF = "net"
#: the spec's ``F`` that picks the leaf by the table's size (:func:`table_leaf`)
TABLE_LEAF = "table"

#: a leaf: a future weight, None (the network) or :data:`TABLE_LEAF`
Leaf = float | str | None


def table_leaf(players: int) -> float | None:
    """The leaf of ``F = table`` at ``players`` seats: the network (None) at 2 seats, where it
    measured stronger (75.0% against the network alone, the standings' leaf 50.5%), the
    standings with :data:`DEFAULT_FUTURE` at 3-5 seats, where the network's leaf measured
    weaker (3 players against 2 ``mcts:1000`` seats, choice seeds 1 and 2: 56.7% and 40.0%
    of the games, the standings' leaf 60.0% and 55.6%)."""
    return None if players == 2 else DEFAULT_FUTURE


#: builds one seat's base agent (a :class:`ViewAgent`) from a seed
BaseFactory = Callable[[int | None], Agent]


def parse_search(params: list[str], net_leaf: bool = False) -> tuple[int, int, int, Leaf]:
    """``(W, K, H, F)`` of a card search spec's parameters ``["search[=W]", "K"?, "H"?,
    "F"?]`` (defaults 8, 3, 1 and :data:`DEFAULT_FUTURE`; with ``net_leaf``, a search over a
    network, ``F`` may be :data:`NET_LEAF`, returned as None, or :data:`TABLE_LEAF`, the
    default); a bare ``ValueError`` when they are malformed (the caller names the spec)."""
    head, sep, value = params[0].partition("=")
    if head != "search" or len(params) > 4 or (len(params) >= 2 and not sep):
        raise ValueError
    worlds = int(value) if sep else 8
    candidates = int(params[1]) if len(params) >= 2 else 3
    horizon = int(params[2]) if len(params) >= 3 else 1
    raw = params[3] if len(params) == 4 else None
    future: Leaf
    if net_leaf and raw in (None, TABLE_LEAF):
        future = TABLE_LEAF
    elif net_leaf and raw == NET_LEAF:
        future = None
    else:
        future = DEFAULT_FUTURE if raw is None else float(raw)
    if (
        worlds < 1
        or candidates < 1
        or horizon < 1
        or (isinstance(future, float) and not 0.0 <= future < float("inf"))
    ):
        raise ValueError
    return worlds, candidates, horizon, future


def leaf_standing(s: Any, q: int, future: float = 0.0) -> float:
    """Seat ``q``'s standing at the end of a rollout: its score and the end-of-game value of
    its buildings (``row_values.standing``) and, with ``future`` > 0, what it holds for the
    rounds to come as the heuristic values it (``future`` times its weights, fading with the
    rounds left): partial building sets worth more, and each species' table value again
    (``animal_future``), since every later claim of that species scores the whole total."""
    if not future or s.is_over:  # a finished game: the final score (``standing``)
        return standing(s, q)
    left = future * rounds_left(s)
    sets = buildings_value(s.collected[q], set_points=future_set_points(WEIGHTS, left))
    animals = sum(RULES.animal_value(t) for t in s.animals[q])
    return float(s.scores[q]) + sets + WEIGHTS.animal_future * left * animals


def margin(s: Any, p: int, future: float = 0.0) -> float:
    """Seat ``p``'s :func:`leaf_standing` minus the best other seat's in ``s``."""
    v = [leaf_standing(s, q, future) for q in range(s.n)]
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
        future: Leaf = DEFAULT_FUTURE,
        batched: bool = True,
    ) -> None:
        if worlds < 1 or candidates < 1 or horizon < 1:
            raise ValueError("worlds, candidates and horizon must be >= 1")
        if isinstance(future, str) and future != TABLE_LEAF:
            raise ValueError(f"the leaf must be a future weight, None or {TABLE_LEAF!r}")
        if isinstance(future, int | float) and not 0.0 <= future < float("inf"):
            raise ValueError(f"the leaf's future weight must be >= 0, got {future}")
        super().__init__(seed)
        self.base_factory = base_factory
        self.worlds = worlds
        self.candidates = candidates
        self.horizon = horizon
        self.future = future
        self.base = base_factory(seed)
        if not isinstance(self.base, ViewAgent):
            raise ValueError("the base policy must be a ViewAgent (it decides from a view)")
        if future in (None, TABLE_LEAF) and not hasattr(self.base, "state_value"):
            raise ValueError("a network leaf needs a base policy with a network (state_value)")
        self._players: list[Agent] = []
        self.batched = batched
        self._kernel: Any = None
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
        kernel = self._batched_rollouts() if self.batched else None
        values = None if kernel is None else kernel.scored(world_of(v), v.player, legal)
        pairs = scored(v, legal) if values is None else list(zip(legal, values, strict=True))
        order = sorted(range(len(pairs)), key=lambda i: -pairs[i][1])
        return [pairs[i][0] for i in order]

    def sample_world(self, v: Any, me: int) -> Any:
        """One full state drawn from seat ``me``'s view ``v`` (``cheat:`` overrides it)."""
        return determinize(v, me, self.rng)

    def leaf(self, players: int) -> float | None:
        """The leaf at a table of ``players`` seats: a future weight, or None (the network)."""
        if self.future == TABLE_LEAF:
            return table_leaf(players)
        return None if self.future is None else float(self.future)

    def _rollout(self, s: Any, seed: int, me: int, future: float | None) -> None:
        """Play ``s`` on with the base policy in every seat to the horizon (in place; with a
        network leaf, ``future`` None, on to seat ``me``'s next turn decision); the seats'
        agents are reseeded with ``seed`` so every candidate meets the same play."""
        n = s.n
        while len(self._players) < n:
            self._players.append(self.base_factory(None))
        for q in range(n):
            self._players[q].reset(seed * 8 + q)
        stop = s.round + self.horizon
        to_me = future is None
        while not s.is_over and (
            s.round < stop or s.phase != "turn" or (to_me and s.current_player != me)
        ):
            p = s.current_player
            s.apply_code(int(self._players[p].act(s, p)))

    def _leaf(self, s: Any, me: int, future: float | None) -> float:
        """Seat ``me``'s value of the rollout's end ``s`` (module doc)."""
        if future is not None or s.is_over:  # a finished game: the final margin
            return margin(s, me, future or 0.0)
        return float(self.base.state_value(view(s, me), s.legal_codes()))

    def sample_worlds(self, v: Any, me: int) -> tuple[list[Any], list[int]]:
        """The decision's worlds (:meth:`sample_world`, one after another) and then one
        rollout seed per world, all drawn from ``self.rng`` in this order."""
        worlds = [self.sample_world(v, me) for _ in range(self.worlds)]
        seeds = [self.rng.randrange(1 << 30) for _ in worlds]
        return worlds, seeds

    def decide(self, v: Any, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if v.phase != "turn":
            return int(self.base.decide(v, legal))
        ranked = self._ranked(v, legal)[: self.candidates]
        if len(ranked) == 1:
            return ranked[0]
        me, future = v.player, self.leaf(v.players)
        worlds, seeds = self.sample_worlds(v, me)
        kernel = self._batched_rollouts() if self.batched else None
        leaves = (
            None if kernel is None else kernel.run(worlds, seeds, ranked, me, future, self.horizon)
        )
        if leaves is None:
            leaves = [
                self._play_out(world, code, seed, me, future)
                for world, seed in zip(worlds, seeds, strict=True)
                for code in ranked
            ]
        totals = dict.fromkeys(ranked, 0.0)
        for i, value in enumerate(leaves):  # world by world, candidates in ranked order
            totals[ranked[i % len(ranked)]] += value
        self.last_values = {c: t / len(worlds) for c, t in totals.items()}
        best = max(self.last_values.values())
        return next(c for c in ranked if self.last_values[c] >= best - 1e-9)

    def _play_out(self, world: Any, code: int, seed: int, me: int, future: float | None
                  ) -> float:  # fmt: skip
        """The reference rollout: ``code`` applied to a copy of ``world``, played on by the
        base agents (:meth:`_rollout`) and valued (:meth:`_leaf`)."""
        s = world.clone()
        s.apply_code(code)
        self._rollout(s, seed, me, future)
        return self._leaf(s, me, future)

    def _batched_rollouts(self) -> Any:
        """The compiled rollouts of this search (:mod:`.search_kernels`: every seat plays as
        ``self.base``, as ``base_factory`` builds it), or None where the kernels do not play
        its base policy or a subclass changes the rollouts (then the Python rollouts do)."""
        if self._kernel is None:
            from carcassonne_rl.agents.card.search_kernels import BatchedRollouts

            own = all(getattr(type(self), m) is getattr(CardSearchAgent, m)
                      for m in ("_rollout", "_leaf", "_play_out"))  # fmt: skip
            kernel = BatchedRollouts.of(self.base, WEIGHTS) if own else None
            self._kernel = kernel or False
        return self._kernel or None


__all__ = [
    "DEFAULT_FUTURE",
    "NET_LEAF",
    "TABLE_LEAF",
    "BaseFactory",
    "CardSearchAgent",
    "Leaf",
    "leaf_standing",
    "margin",
    "table_leaf",
    "parse_search",
]
