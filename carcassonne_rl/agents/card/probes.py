"""Measuring instruments for the card game's hidden information (not players to ship).

- :class:`CheatingCardMCTSAgent` (``cheat-mcts:N``): the information-set MCTS of
  :mod:`carcassonne_rl.agents.card.mcts`, but every simulation starts from the TRUE state:
  it reads the other hands and every face-down card on the table, *by design*; only the
  pile order, which nobody can infer, is reshuffled per simulation. Its edge over
  ``mcts:N`` bounds what any inference of the hidden cards (better determinizations) could
  add to that search.
- :class:`CheatingCardSearchAgent` (``cheat:SEARCH``): the card search ``SEARCH``
  (``pretrained:search...`` or ``heuristic:search...``) whose worlds are the TRUE state, the
  pile reshuffled, as ``cheat-mcts`` does for ``mcts``: its edge over ``SEARCH`` bounds what
  inference of the hidden cards could add to that search. ``cheat(SEARCH, told=P)`` is told
  only a share ``P`` of them, each card drawn once a decision: what exact knowledge of a share
  of the hidden cards is worth.
- :class:`ExploitAgent` (``exploit:N:TARGET``): a best-response search against a frozen agent.
  The same ISMCTS over determinizations of the prober's own view (it never sees a hidden
  card), but inside each sampled world every other seat plays the move that ``TARGET`` picks
  there, in the tree and in the rollouts, so the search best-responds to that agent. Its win
  rate against ``TARGET`` above ``mcts:N``'s (same budget, same deals) is how far the target
  can be exploited by knowing it (``carcassonne-rl probe``).
"""

from __future__ import annotations

import random
from typing import Any

from carcassonne_rl.agents.base import Agent
from carcassonne_rl.agents.card.mcts import CardMCTSAgent, fast_move
from carcassonne_rl.agents.card.search import CardSearchAgent
from carcassonne_rl.agents.common.mcts_core import best_code, search
from carcassonne_rl.games.cardcassonne import determinize
from carcassonne_rl.games.cardcassonne.table import FACE_DOWN


def _pile_start(s: Any) -> int:
    """Where the pile starts in ``s.card_order``: the cards not dealt yet, after a pending
    setup joker."""
    return s.setup_done + 1 if s.phase == "setup_joker" else len(s.card_order) - s.deck_size


def reshuffled_pile(state: Any, rng: random.Random) -> Any:
    """A copy of ``state`` with the pile (the cards not dealt yet, after a pending setup
    joker) in a fresh random order; hands and face-down cards stay the true ones."""
    s = state.clone()
    start = _pile_start(s)
    rest = s.card_order[start:]
    rng.shuffle(rest)
    s.card_order = s.card_order[:start] + rest  # a new list: clones share the old one
    s.replayable = False
    return s


class CheatingCardMCTSAgent(CardMCTSAgent):
    """``cheat-mcts:N``: :class:`CardMCTSAgent` on the TRUE state (others' hands, face-down
    cards); it reads hidden information on purpose, as the ceiling of inference. Not a
    :class:`ViewAgent`: ``act`` takes the full state."""

    def __init__(self, simulations: int = 1000, seed: int | None = None) -> None:
        super().__init__(simulations, None, seed)
        self.name = f"cheat-mcts:{simulations}"

    def act(self, state: Any, player: int) -> int:
        legal = state.legal_codes()
        if len(legal) == 1:
            return int(legal[0])
        stats = search(
            lambda rng: reshuffled_pile(state, rng),
            lambda s: s.legal_codes(),
            self._evaluate,
            self.rng,
            self.simulations,
            None,
            self.c,
        )
        self.last_stats = stats
        return int(best_code(stats, legal))


class CheatingCardSearchAgent(CardSearchAgent):
    """``cheat:SEARCH``: the card search ``search`` (same base policy, worlds, candidates,
    horizon and leaf) with every world the TRUE state, the pile reshuffled; it reads hidden
    information on purpose. Not a twin-test agent: ``act`` keeps the full state.

    With ``told`` below 1 (``cheat(SEARCH, told=P)``) it is told only a share of the hidden
    cards: each of the other seats' hand cards and face-down cards is kept at its true kind
    with probability ``told``, drawn once a decision, and the rest, with the pile, are drawn
    uniformly from the cards it was not told in every world (``told = 0``: the worlds of
    ``search`` itself, drawn from the true state)."""

    def __init__(self, search: CardSearchAgent, seed: int | None = None,
                 told: float = 1.0) -> None:  # fmt: skip
        super().__init__(search.base_factory, search.worlds, seed, search.candidates,
                         search.horizon, search.future)  # fmt: skip
        if not 0.0 <= told <= 1.0:
            raise ValueError(f"told must be in [0, 1], got {told}")
        self.told = told
        self._state: Any = None

    def act(self, state: Any, player: int) -> int:
        self._state = state
        try:
            return super().act(state, player)
        finally:
            self._state = None

    def sample_world(self, v: Any, me: int) -> Any:
        return reshuffled_pile(self._state, self.rng)

    def sample_worlds(self, v: Any, me: int) -> tuple[list[Any], list[int]]:
        if self.told >= 1.0:
            return super().sample_worlds(v, me)
        told = self._told(self._state, me)
        worlds = [partly_told(self._state, me, told, self.rng) for _ in range(self.worlds)]
        seeds = [self.rng.randrange(1 << 30) for _ in worlds]
        return worlds, seeds

    def _told(self, s: Any, me: int) -> Told:
        """The hidden cards of this decision's worlds: per other seat the kinds of the hand
        cards kept, and the (row, index) of the face-down cards kept."""
        hands = {}
        for q in range(s.n):
            if q != me:
                cards = [k for k, c in enumerate(s.hands[q]) for _ in range(c)]
                hands[q] = [k for k in cards if self.rng.random() < self.told]
        downs = {(r, i) for r, row in enumerate(s.rows) for i, e in enumerate(row)
                 if _hidden_from(e, me) and self.rng.random() < self.told}  # fmt: skip
        return hands, downs


#: what a partly told world keeps: per other seat its hand cards' kinds, and face-down cards
Told = tuple[dict[int, list[int]], set[tuple[int, int]]]


def _hidden_from(e: int, me: int) -> bool:
    """A row entry is a face-down card of another seat than ``me``."""
    return e >= FACE_DOWN and (e >> 5) - 1 != me


def partly_told(s: Any, me: int, told: Told, rng: random.Random) -> Any:
    """A copy of ``s`` that keeps the hidden cards of ``told`` and draws the other seats'
    other hand and face-down cards and the pile anew, uniformly from the cards not kept."""
    hands, downs = told
    w = s.clone()
    start = _pile_start(w)
    pool = list(w.card_order[start:])
    for q, keep in hands.items():
        counts = list(w.hands[q])
        for k in keep:
            counts[k] -= 1
        pool += [k for k, c in enumerate(counts) for _ in range(c)]
    slots = [(r, i) for r, row in enumerate(w.rows) for i, e in enumerate(row)
             if _hidden_from(e, me) and (r, i) not in downs]  # fmt: skip
    pool += [w.rows[r][i] & 31 for r, i in slots]
    rng.shuffle(pool)
    for r, i in slots:
        w.rows[r][i] = (w.rows[r][i] & ~31) | pool.pop()
    for q, keep in hands.items():
        h = [0] * len(w.hands[q])
        for k in keep:
            h[k] += 1
        for _ in range(w.hand_size[q] - len(keep)):
            h[pool.pop()] += 1
        w.hands[q] = h
    w.card_order = w.card_order[:start] + pool
    w.replayable = False
    return w


class ExploitAgent(CardMCTSAgent):
    """``exploit:N:TARGET``: ISMCTS from this seat's view in which the other seats play
    ``target``'s moves (``target.act(world, seat)`` on each sampled world: the target sees
    its sampled hand, the prober never the true one). The prober's own rollout moves are
    :func:`.mcts.fast_move`'s."""

    def __init__(self, target: Agent, simulations: int = 1000, seed: int | None = None) -> None:
        super().__init__(simulations, None, seed)
        self.target = target
        self.name = f"exploit:{simulations}:{getattr(target, 'name', 'target')}"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.target.reset(seed)

    def _others_move(self, s: Any) -> int:
        return int(self.target.act(s, s.current_player))

    def _rollout(self, s: Any, me: int) -> None:
        """To the start of the next round (or the end): ``me`` by the fast policy, the
        other seats by the target."""
        start_round = s.round
        while not s.is_over and (s.round == start_round or s.phase != "turn"):
            if s.current_player == me:
                s.apply_code(fast_move(s, self.rng, self.claim_prob))
            else:
                s.apply_code(self._others_move(s))

    def decide(self, v: Any, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        me = v.player

        def moves(s: Any) -> list[int]:
            return s.legal_codes() if s.current_player == me else [self._others_move(s)]

        def evaluate(s: Any) -> list[float]:
            self._rollout(s, me)
            return self._values(s)

        stats = search(
            lambda rng: determinize(v, me, rng),
            moves,
            evaluate,
            self.rng,
            self.simulations,
            None,
            self.c,
        )
        self.last_stats = stats
        return int(best_code(stats, legal))
