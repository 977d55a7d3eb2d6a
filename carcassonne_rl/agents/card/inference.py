"""Card inference: the search's worlds weighted by how likely each makes the other seats' play.

``search(infer=policy)`` (:class:`InferenceSearchAgent`) is the card search
(:class:`~carcassonne_rl.agents.card.search.CardSearchAgent`) with its worlds drawn by
importance resampling instead of uniformly. The agent reads the round's moves so far (the
view's turn log, or :class:`RoundLog`: each of its own turn views compared with the previous
one, which row grew and who placed a follower; ``evidence`` below). For a decision it draws
``factor * W`` candidate worlds from its view (``determinize``, as the search does) and weights
each by the likelihood of the other seats' moves this round in that world: the world is
wound back move by move (:func:`undo`), and at each of the other seats' decisions the choice
probability is ``softmax(value / T)`` over its legal options, ``value`` the model's value in
points of each option from that seat's view of the wound-back world (``model``: ``policy``,
the search's base policy, the network's afterstate values for ``pretrained:search``;
``heuristic``, the card heuristic's projected margins). ``W`` worlds are then resampled by
weight (systematic resampling, :func:`.inference_draw.resample`); when the weights
degenerate (effective sample size below ``min_ess``) they are tempered, ``w ** a`` with the
largest ``a`` in [0, 1] that reaches it (``a = 0``: uniform). The temperatures
(:data:`TEMPERATURE`, at 3-5 players :data:`TABLE_TEMPERATURE`) are fitted by maximum
likelihood on recorded ``card-search-v1`` self-play games
(:func:`.inference_fit.fit_temperature`, ``python -m carcassonne_rl.agents.card.inference_fit
FOLDER``).

The spec key ``pool`` sets ``factor`` (default 2). With ``draw = "distinct"`` (not the
default, no spec key) the ``W`` worlds are drawn by weight without repeats instead
(:func:`.inference_draw.draw_distinct`). With ``top = K`` (not the default, no
spec key) the other seat's choice is modelled among its
``K`` best options by the model's values (:func:`log_choice`; :data:`TOP_TEMPERATURE`), as a
search over the heuristic's ``K`` best would choose.

The likelihoods run compiled (:mod:`.inference_kernels`: every candidate world packed as a
batched game, wound back and its options valued in one call; the ``policy`` model by one
forward pass over all their inputs, where the search's rollouts are compiled), the same
weights as the Python :func:`log_likelihood`, which ``batched=False`` keeps (the reference,
and the path of other rules tables and base policies).

Only the current round is read (a round's moves only append to the rows; the rounds before
were scored and their hands are gone). Where the round's moves come from is ``evidence``
(the spec key of that name): ``"turns"``, the view's turn log (:func:`turn_moves`: who put
what where this round, as everyone at the table sees it), at every table size; ``"views"``
(the default, ``card-search-v2``'s reading), the :class:`RoundLog` above, at 2 players only
(it compares the seat's own views, where two face-up cards of different seats look alike; at
3-5 players the agent is then the plain search). The two read the same moves but for the
other seat's first move of a round when two rows end in its face-down cards, which the
``RoundLog`` skips (about 2% of the turn decisions of heuristic games). The weights depend on
the seat's views only, so equal views give equal decisions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent, CardHeuristicWeights
from carcassonne_rl.agents.card.heuristic_kernels import weights_array
from carcassonne_rl.agents.card.inference_draw import DRAWS, ess, resample, tempered
from carcassonne_rl.agents.card.search import DEFAULT_FUTURE, CardSearchAgent, Leaf
from carcassonne_rl.agents.card.value import MARGIN_SCALE
from carcassonne_rl.games.cardcassonne import RULES, determinize, view
from carcassonne_rl.games.cardcassonne.actions import FOLLOWER, PLAY_UP
from carcassonne_rl.games.cardcassonne.batch import rules_params
from carcassonne_rl.games.cardcassonne.config import GameConfig
from carcassonne_rl.games.cardcassonne.views import HIDDEN, PlayerView

#: the models of the other seat's play a spec's ``infer=`` names
MODELS = ("policy", "heuristic")
#: per model, the temperature (points) fitted by maximum likelihood on recorded
#: ``card-search-v1`` self-play games (``inference_fit``; the research note has the fit)
TEMPERATURE = {"policy": 2.6, "heuristic": 6.1}
#: per model, the temperature at 3-5 players (by table size; fitted as :data:`TEMPERATURE`,
#: on 12 recorded self-play games at each size)
TABLE_TEMPERATURE = {"policy": {3: 2.8, 4: 2.7, 5: 2.6}, "heuristic": {3: 5.6, 4: 4.8, 5: 3.7}}
#: per model, the temperature with ``top = 3`` (the other seat a search over the heuristic's
#: 3 best options, as ``card-search-v1`` is; fitted as :data:`TEMPERATURE`)
TOP_TEMPERATURE = {"policy": 3.7, "heuristic": 14.0}
#: with ``top``, the probability that the other seat's choice is outside its ``top`` best
TOP_EPS = 0.02
#: candidate worlds drawn per world searched
FACTOR = 2
#: where the round's moves are read (the spec key ``evidence``; the module doc)
EVIDENCE = ("views", "turns")
#: the effective sample size the resampled weights keep, as a share of the worlds searched
MIN_ESS_SHARE = 0.5

FACE_DOWN = 32
#: the weights of ``heuristic_values``' heuristic as the kernels read them
HEURISTIC_WEIGHTS = weights_array(CardHeuristicWeights())


@dataclass(frozen=True)
class Move:
    """One turn move of the round: the seat, the row it went to (a card or the follower) and
    the last follower before it (``last_follower`` to restore when a follower is undone)."""

    seat: int
    row: int
    last_before: int


def _grown(before: PlayerView, after: PlayerView) -> list[tuple[int, ...]] | None:
    """Per row, the entries ``after`` has past ``before``'s (None: not a prefix)."""
    out = []
    for r0, r1 in zip(before.rows, after.rows, strict=True):
        if len(r1) < len(r0) or r1[: len(r0)] != r0:
            return None
        out.append(r1[len(r0) :])
    return out


def _owner(e: int) -> int | None:
    """The seat of a follower or face-down entry, None for a face-up card."""
    if e < 0:
        return -e - 1
    return (e >> 5) - 1 if e >= FACE_DOWN else None


class RoundLog:
    """The round's turn moves (a contiguous run up to now) as seat ``v.player`` can tell them
    from the views of its turn decisions (2 players; see the module doc)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.round = -1
        self.prev: PlayerView | None = None
        self.moves: list[Move] = []

    def observe(self, v: PlayerView) -> None:
        """Take the view of one of the seat's decisions (others are ignored)."""
        if v.players != 2 or v.phase != "turn" or v.current_player != v.player or v == self.prev:
            return  # (the same decision seen again: nothing new)
        me, opp = v.player, 1 - v.player
        if v.round != self.round:
            self.round, self.prev, self.moves = v.round, v, []
            self._first(v, me, opp)
            return
        prev, self.prev = self.prev, v
        moves = self._between(prev, v, me, opp) if prev is not None else None
        if moves is None:
            self.moves = []  # cannot tell: the log restarts from here
        else:
            self.moves.extend(moves)

    def _first(self, v: PlayerView, me: int, opp: int) -> None:
        """The other seat's move before the seat's first decision of the round, if any."""
        if v.played[me] or v.follower_row[me] >= 0:
            return  # not the first decision (an observation was missed)
        done = v.played[opp] + (v.follower_row[opp] >= 0)
        if done != 1:
            return
        if v.follower_row[opp] >= 0:
            self.moves.append(Move(opp, v.follower_row[opp], -1))
            return
        mark = HIDDEN + FACE_DOWN * (opp + 1)
        rows = [r for r, row in enumerate(v.rows) if row and row[-1] == mark]
        if len(rows) == 1:  # else a card left from an earlier round looks the same
            self.moves.append(Move(opp, rows[0], -1))

    @staticmethod
    def _between(u: PlayerView, v: PlayerView, me: int, opp: int) -> list[Move] | None:
        """The seat's move after ``u`` and the other seat's reply before ``v`` (None: the
        views do not show exactly that)."""
        my_card = v.played[me] - u.played[me]
        my_follower = int(u.follower_row[me] < 0 <= v.follower_row[me])
        their = v.played[opp] - u.played[opp] + int(u.follower_row[opp] < 0 <= v.follower_row[opp])
        if my_card + my_follower != 1 or their not in (0, 1):
            return None
        grown = _grown(u, v)
        if grown is None or sum(len(g) for g in grown) != 1 + their:
            return None
        if my_follower:
            my_rows = [v.follower_row[me]]
        else:
            kinds = [k for k in range(len(v.hand)) if u.hand[k] - v.hand[k] == 1]
            if len(kinds) != 1:
                return None
            k = kinds[0]
            down = u.played[me] == 0
            entry = k + FACE_DOWN * (me + 1) if down else k
            my_rows = [r for r, g in enumerate(grown) if g and g[0] == entry]
        if len(my_rows) != 1 or not grown[my_rows[0]]:
            return None
        a = my_rows[0]
        after_me = me if my_follower else u.last_follower
        out = [Move(me, a, u.last_follower)]
        if their:
            rest = [(r, g[1:] if r == a else g) for r, g in enumerate(grown)]
            rows = [(r, g) for r, g in rest if g]
            if len(rows) != 1 or len(rows[0][1]) != 1:
                return None
            b, (e,) = rows[0]
            if _owner(e) not in (opp, None):
                return None
            out.append(Move(opp, b, after_me))
        return out


def turn_moves(v: PlayerView) -> list[Move]:
    """The round's turn moves so far, in order, from the view's turn log (every table size)."""
    out, last = [], -1
    for seat, row, index in v.turns:
        out.append(Move(seat, row, last))
        if v.rows[row][index] < 0:
            last = seat
    return out


def undo(s: Any, move: Move) -> int:
    """Take ``move`` (the last one made) back in the state ``s`` (in place, the seat to move
    again) and return its action code."""
    p, r = move.seat, move.row
    e = s.rows[r].pop()
    s.turns.pop()
    s.current = p
    if e < 0:
        s.follower_row[p] = -1
        s.last_follower = move.last_before
        return FOLLOWER + r
    k = e & 31
    s.hands[p][k] += 1
    s.hand_size[p] += 1
    s.played[p] -= 1
    return k * 4 + r if e >= FACE_DOWN else PLAY_UP + k * 4 + r


#: an opponent model: the value in points of each legal option from a seat's view
Values = Callable[[PlayerView, list[int]], np.ndarray]


def policy_values(base: Any) -> Values:
    """The values (points) of the search's base policy: a network's afterstate values
    (``evaluate``) or a ranking policy's scores (``scored``, the heuristic's margins)."""
    if hasattr(base, "evaluate"):
        return lambda v, legal: base.evaluate(v, legal)[2] * MARGIN_SCALE
    if hasattr(base, "scored"):
        return lambda v, legal: np.array([x for _, x in base.scored(v, legal)], np.float64)
    raise ValueError("the policy model needs a base policy with evaluate or scored")


def heuristic_values() -> Values:
    """The card heuristic's projected margins (points)."""
    h = CardHeuristicAgent(None)
    return lambda v, legal: np.array([x for _, x in h.scored(v, legal)], np.float64)


def log_choice(values: np.ndarray, index: int, temperature: float, top: int = 0,
               eps: float = 0.0) -> float:  # fmt: skip
    """``log softmax(values / temperature)[index]``. With ``top`` > 0 the choice is among
    the ``top`` best options (``S``: those with fewer than ``top`` values above theirs) with
    probability ``1 - eps``, by the softmax over ``S``, else one of the others uniformly
    (``eps`` spread over them; nothing when ``S`` holds every option)."""
    x = np.asarray(values, np.float64)
    z = x / temperature
    extra = 0.0
    if top > 0:
        inside = (x[None, :] > x[:, None]).sum(axis=1) < top
        if not inside.all():
            if not inside[index]:
                return math.log(eps / int((~inside).sum())) if eps > 0 else -math.inf
            index = int(inside[:index].sum())
            z = z[inside]
            extra = math.log(1.0 - eps)
    m = float(z.max())
    return float(extra + z[index] - m - math.log(float(np.exp(z - m).sum())))


def log_likelihood(world: Any, moves: Sequence[Move], me: int, values: Values,
                   temperature: float, top: int = 0, eps: float = 0.0) -> float:  # fmt: skip
    """The log-probability of the other seats' ``moves`` (the round's last moves, in order)
    in ``world`` under ``softmax(values / temperature)`` (:func:`log_choice`, ``top`` and
    ``eps`` as there); ``world`` is not changed."""
    s = world.clone()
    total = 0.0
    for move in reversed(moves):
        code = undo(s, move)
        if move.seat == me:
            continue
        legal = s.legal_codes()
        if len(legal) > 1 and code in legal:
            total += log_choice(values(view(s, move.seat), legal), legal.index(code),
                                temperature, top, eps)  # fmt: skip
        elif code not in legal:
            return -math.inf
    return total


class InferenceSearchAgent(CardSearchAgent):
    """The card search with its worlds resampled by the other seat's play (module doc)."""

    def __init__(
        self,
        base_factory: Any,
        worlds: int = 8,
        seed: int | None = None,
        candidates: int = 3,
        horizon: int = 1,
        future: Leaf = DEFAULT_FUTURE,
        model: str = "policy",
        temperature: float | None = None,
        factor: int = FACTOR,
        min_ess: float | None = None,
        batched: bool = True,
        top: int = 0,
        eps: float = TOP_EPS,
        draw: str = "resample",
        evidence: str = "views",
    ) -> None:
        if model not in MODELS:
            raise ValueError(f"the inference model must be one of {', '.join(MODELS)}: {model!r}")
        if factor < 1:
            raise ValueError(f"the candidate factor must be >= 1, got {factor}")
        if draw not in DRAWS:
            raise ValueError(f"the draw must be one of {', '.join(DRAWS)}: {draw!r}")
        if evidence not in EVIDENCE:
            raise ValueError(f"the evidence must be one of {', '.join(EVIDENCE)}: {evidence!r}")
        super().__init__(base_factory, worlds, seed, candidates, horizon, future, batched)
        if top < 0 or not 0.0 <= eps < 1.0:
            raise ValueError(f"top must be >= 0 and eps in [0, 1), got {top} and {eps}")
        self.model = model
        self.top, self.eps = top, float(eps)
        fitted = (TOP_TEMPERATURE if top else TEMPERATURE)[model]
        self.temperature = fitted if temperature is None else float(temperature)
        if not 0.0 < self.temperature < math.inf:
            raise ValueError(f"the temperature must be > 0, got {temperature}")
        #: the temperature at 3-5 players (by table size): the fitted ones unless given
        self.table_temperature = ({} if temperature is not None or top
                                  else dict(TABLE_TEMPERATURE[model]))  # fmt: skip
        self.factor = factor
        self.draw = draw
        self.evidence = evidence
        self.min_ess = MIN_ESS_SHARE * worlds if min_ess is None else float(min_ess)
        self.values = policy_values(self.base) if model == "policy" else heuristic_values()
        self.log = RoundLog()
        self._params: dict[int, np.ndarray] = {}
        self._likelihood: Any = None
        self._queue: list[Any] = []
        #: the last decision's inference: evidence moves, candidates, ESS, tempering power
        self.last_inference: dict[str, float] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.log.reset()
        self._queue = []

    def decide(self, v: Any, legal: list[int]) -> int:
        self.log.observe(v)
        self._queue = []
        return super().decide(v, legal)

    def sample_world(self, v: Any, me: int) -> Any:
        if not self._queue:
            self._queue = self.draw_worlds(v, me)[::-1]
        return self._queue.pop()

    def draw_worlds(self, v: Any, me: int) -> list[Any]:
        """``worlds`` worlds from the view ``v``: resampled by the likelihood of the other
        seats' moves this round when there are any, else drawn uniformly."""
        if self.evidence == "turns":
            moves = turn_moves(v)
        else:
            moves = self.log.moves if self.log.round == v.round else []
        evidence = sum(m.seat != me for m in moves)
        if not evidence:
            self.last_inference = {"evidence": 0}
            return [determinize(v, me, self.rng) for _ in range(self.worlds)]
        pool = [determinize(v, me, self.rng) for _ in range(self.worlds * self.factor)]
        log_w = self.log_weights(pool, moves, me)
        weights, power = tempered(log_w, self.min_ess)
        self.last_inference = {"evidence": evidence, "candidates": len(pool),
                               "ess": ess(weights), "power": power}  # fmt: skip
        picks = DRAWS[self.draw](weights, self.worlds, self.rng)
        return [pool[i] for i in picks]

    def log_weights(self, pool: list[Any], moves: Sequence[Move], me: int) -> np.ndarray:
        """The log-likelihood of the round's ``moves`` in each world of ``pool``
        (:func:`log_likelihood`): compiled at the default rules (:mod:`.inference_kernels`,
        all the worlds in one call; the ``policy`` model where the search's rollouts are,
        over the search-value network or the heuristic), unless ``batched=False``."""
        t = self.table_temperature.get(pool[0].n, self.temperature)
        params = self._rules(pool[0]) if self.batched else None
        compiled = self._compiled() if params is not None else None
        if compiled is None or any(w.rules != RULES for w in pool):
            return np.array([log_likelihood(w, moves, me, self.values, t, self.top, self.eps)
                             for w in pool])  # fmt: skip
        codes = np.array([(m.seat, m.row, m.last_before) for m in moves], np.int64)
        return compiled(pool, codes, me, params, t, self.top, self.eps)

    def _compiled(self) -> Any:
        """The kernels' likelihood of this agent's model (None: they do not value it)."""
        if self._likelihood is None:
            from carcassonne_rl.agents.card.inference_kernels import CompiledLikelihood

            if self.model == "heuristic":
                made = CompiledLikelihood(HEURISTIC_WEIGHTS)
            else:  # the base policy's values, where the search's kernels play it
                kernel = self._batched_rollouts()
                made = None if kernel is None else CompiledLikelihood(kernel.hw, kernel.net)
            self._likelihood = made or False
        return self._likelihood or None

    def _rules(self, world: Any) -> np.ndarray | None:
        """The rules of ``world`` as the kernels read them (None: not the default rules)."""
        if world.rules != RULES:
            return None
        got = self._params.get(world.n)
        if got is None:
            got = self._params[world.n] = rules_params(GameConfig(world.n))
        return got


def with_inference(search: CardSearchAgent, model: str | None, factor: int = FACTOR,
                   draw: str = "resample", evidence: str = "views") -> CardSearchAgent:  # fmt: skip
    """``search`` with inference by ``model`` from ``factor`` candidate worlds per world
    searched (the spec key ``pool``), the worlds searched drawn by ``draw`` (a key of
    :data:`.inference_draw.DRAWS`), the moves read as ``evidence`` says (a key of
    :data:`EVIDENCE`; ``model`` None: ``search`` itself)."""
    if model is None:
        return search
    return InferenceSearchAgent(search.base_factory, search.worlds, search.seed,
                                search.candidates, search.horizon, search.future,
                                model, factor=factor, batched=search.batched,
                                draw=draw, evidence=evidence)  # fmt: skip


__all__ = [
    "EVIDENCE",
    "MODELS",
    "TABLE_TEMPERATURE",
    "TEMPERATURE",
    "TOP_EPS",
    "TOP_TEMPERATURE",
    "InferenceSearchAgent",
    "Move",
    "RoundLog",
    "ess",
    "log_choice",
    "heuristic_values",
    "log_likelihood",
    "policy_values",
    "resample",
    "tempered",
    "turn_moves",
    "undo",
    "with_inference",
]
