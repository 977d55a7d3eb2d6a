"""Card inference: the search's worlds weighted by how likely each makes the other seat's play.

``search(infer=policy)`` (:class:`InferenceSearchAgent`) is the card search
(:class:`~carcassonne_rl.agents.card.search.CardSearchAgent`) with its worlds drawn by
importance resampling instead of uniformly. The agent keeps, from the views of its own turn
decisions only, the round's moves so far (:class:`RoundLog`: each view compared with the
previous one, which row grew and who placed a follower). For a decision it draws
``factor * W`` candidate worlds from its view (``determinize``, as the search does) and weights
each by the likelihood of the other seat's moves this round in that world: the world is
wound back move by move (:func:`undo`), and at each of the other seat's decisions its choice
probability is ``softmax(value / T)`` over its legal options, ``value`` the model's value in
points of each option from that seat's view of the wound-back world (``model``: ``policy``,
the search's base policy, the network's afterstate values for ``pretrained:search``;
``heuristic``, the card heuristic's projected margins). ``W`` worlds are then resampled by
weight (systematic resampling, :func:`resample`); when the weights degenerate (effective
sample size below ``min_ess``) they are tempered, ``w ** a`` with the largest ``a`` in [0, 1]
that reaches it (``a = 0``: uniform). The temperatures (:data:`TEMPERATURE`) are fitted by
maximum likelihood on recorded ``card-search-v1`` self-play games (:func:`fit_temperature`,
``python -m carcassonne_rl.agents.card.inference FOLDER``). With ``weighting="weighted"``
the agent draws ``W`` uniform worlds instead and weights the search's mean over them by their
tempered weights (measured weaker on the oracle regret; the research note).

The ``heuristic`` likelihood runs compiled (:mod:`.inference_kernels`: every candidate world
packed as a batched game, wound back and its options valued in one call), the same weights as
the Python :func:`log_likelihood`, which ``batched=False`` keeps (the reference, and the path
of the ``policy`` model and of other rules tables).

Only the current round is read (a round's moves only append to the rows; the rounds before
were scored and their hands are gone), and only at 2 players, where the moves between two of
the seat's decisions are known from its views (at 3-5 seats two face-up cards of different
seats cannot be told apart in a view): at 3-5 players the agent is the plain search. The
weights depend on the seat's views only, so equal views give equal decisions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent, CardHeuristicWeights
from carcassonne_rl.agents.card.heuristic_kernels import weights_array
from carcassonne_rl.agents.card.search import DEFAULT_FUTURE, CardSearchAgent, Leaf
from carcassonne_rl.agents.card.value import MARGIN_SCALE
from carcassonne_rl.games.cardcassonne import RULES, determinize, view
from carcassonne_rl.games.cardcassonne.actions import FOLLOWER, PLAY_UP
from carcassonne_rl.games.cardcassonne.batch import pack_state, rules_params
from carcassonne_rl.games.cardcassonne.config import GameConfig
from carcassonne_rl.games.cardcassonne.views import HIDDEN, PlayerView

#: the models of the other seat's play a spec's ``infer=`` names
MODELS = ("policy", "heuristic")
#: per model, the temperature (points) fitted by maximum likelihood on recorded
#: ``card-search-v1`` self-play games (:func:`fit_temperature`; the research note has the fit)
TEMPERATURE = {"policy": 2.6, "heuristic": 6.1}
#: how the worlds' weights enter the search: ``resample`` (``factor * W`` candidates, ``W``
#: resampled by weight, an unweighted mean) or ``weighted`` (``W`` uniform worlds, the
#: search's mean over them weighted by their tempered weights)
WEIGHTINGS = ("resample", "weighted")
#: candidate worlds drawn per world searched
FACTOR = 2
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


def undo(s: Any, move: Move) -> int:
    """Take ``move`` (the last one made) back in the state ``s`` (in place, the seat to move
    again) and return its action code."""
    p, r = move.seat, move.row
    e = s.rows[r].pop()
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


def log_choice(values: np.ndarray, index: int, temperature: float) -> float:
    """``log softmax(values / temperature)[index]``."""
    z = np.asarray(values, np.float64) / temperature
    m = float(z.max())
    return float(z[index] - m - math.log(float(np.exp(z - m).sum())))


def log_likelihood(world: Any, moves: Sequence[Move], me: int, values: Values,
                   temperature: float) -> float:  # fmt: skip
    """The log-probability of the other seats' ``moves`` (the round's last moves, in order)
    in ``world`` under ``softmax(values / temperature)``; ``world`` is not changed."""
    s = world.clone()
    total = 0.0
    for move in reversed(moves):
        code = undo(s, move)
        if move.seat == me:
            continue
        legal = s.legal_codes()
        if len(legal) > 1 and code in legal:
            total += log_choice(values(view(s, move.seat), legal), legal.index(code),
                                temperature)  # fmt: skip
        elif code not in legal:
            return -math.inf
    return total


def ess(weights: np.ndarray) -> float:
    """The effective sample size ``(sum w)^2 / sum w^2``."""
    total = float(weights.sum())
    return total * total / float((weights * weights).sum()) if total > 0 else 0.0


def tempered(log_w: np.ndarray, min_ess: float) -> tuple[np.ndarray, float]:
    """``(weights, a)``: ``exp(a * log_w)`` normalised with the largest ``a`` in [0, 1] whose
    effective sample size is at least ``min_ess`` (``a = 1``: the weights themselves; 0:
    uniform, also when no weight is finite)."""
    finite = np.isfinite(log_w)
    if not finite.any():
        return np.full(len(log_w), 1.0 / len(log_w)), 0.0
    lw = np.where(finite, log_w - log_w[finite].max(), -np.inf)

    def at(a: float) -> np.ndarray:
        w = np.exp(a * lw) if a > 0 else finite.astype(np.float64)
        return w / w.sum()

    if ess(at(1.0)) >= min_ess:
        return at(1.0), 1.0
    lo, hi = 0.0, 1.0
    for _ in range(20):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ess(at(mid)) >= min_ess else (lo, mid)
    return at(lo), lo


def resample(weights: np.ndarray, count: int, rng: random.Random) -> list[int]:
    """``count`` indices drawn by systematic resampling of the normalised ``weights``."""
    edges = np.cumsum(weights)
    edges[-1] = 1.0
    start = rng.random() / count
    return [int(np.searchsorted(edges, start + i / count, side="right")) for i in range(count)]


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
        weighting: str = "resample",
    ) -> None:
        if model not in MODELS:
            raise ValueError(f"the inference model must be one of {', '.join(MODELS)}: {model!r}")
        if weighting not in WEIGHTINGS:
            raise ValueError(f"the weighting must be one of {', '.join(WEIGHTINGS)}: "
                             f"{weighting!r}")  # fmt: skip
        if factor < 1:
            raise ValueError(f"the candidate factor must be >= 1, got {factor}")
        super().__init__(base_factory, worlds, seed, candidates, horizon, future, batched)
        self.model = model
        self.temperature = TEMPERATURE[model] if temperature is None else float(temperature)
        if not 0.0 < self.temperature < math.inf:
            raise ValueError(f"the temperature must be > 0, got {temperature}")
        self.factor = factor
        self.weighting = weighting
        self.min_ess = MIN_ESS_SHARE * worlds if min_ess is None else float(min_ess)
        self.values = policy_values(self.base) if model == "policy" else heuristic_values()
        self.log = RoundLog()
        self._params: dict[int, np.ndarray] = {}
        self._x: np.ndarray | None = None
        self._seg = np.zeros((0, 4), np.int64)
        self._queue: list[Any] = []
        self._weights: np.ndarray | None = None
        #: the last decision's inference: evidence moves, candidates, ESS, tempering power
        self.last_inference: dict[str, float] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.log.reset()
        self._queue = []

    def decide(self, v: Any, legal: list[int]) -> int:
        self.log.observe(v)
        self._queue = []
        self._weights = None
        if self.weighting == "resample" or len(legal) == 1 or v.phase != "turn":
            return super().decide(v, legal)
        return self._weighted_decide(v, legal)

    def _weighted_decide(self, v: Any, legal: list[int]) -> int:
        """``CardSearchAgent.decide`` with the worlds' mean weighted by :attr:`_weights`
        (``weighting="weighted"``; uniform without evidence)."""
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
            leaves = [self._play_out(world, code, seed, me, future)
                      for world, seed in zip(worlds, seeds, strict=True)
                      for code in ranked]  # fmt: skip
        w = self._weights
        if w is None:
            w = np.full(len(worlds), 1.0 / len(worlds))
        totals = dict.fromkeys(ranked, 0.0)
        for i, value in enumerate(leaves):
            totals[ranked[i % len(ranked)]] += float(w[i // len(ranked)]) * value
        self.last_values = totals
        best = max(totals.values())
        return next(c for c in ranked if totals[c] >= best - 1e-9)

    def sample_world(self, v: Any, me: int) -> Any:
        if not self._queue:
            self._queue = self.draw_worlds(v, me)[::-1]
        return self._queue.pop()

    def draw_worlds(self, v: Any, me: int) -> list[Any]:
        """``worlds`` worlds from the view ``v``: resampled by the likelihood of the other
        seat's moves this round when there are any, else drawn uniformly."""
        moves = self.log.moves if self.log.round == v.round else []
        evidence = sum(m.seat != me for m in moves)
        if not evidence:
            self.last_inference = {"evidence": 0}
            return [determinize(v, me, self.rng) for _ in range(self.worlds)]
        weighted = self.weighting == "weighted"
        size = self.worlds * (1 if weighted else self.factor)
        pool = [determinize(v, me, self.rng) for _ in range(size)]
        log_w = self.log_weights(pool, moves, me)
        weights, power = tempered(log_w, self.min_ess)
        self.last_inference = {"evidence": evidence, "candidates": len(pool),
                               "ess": ess(weights), "power": power}  # fmt: skip
        if weighted:
            self._weights = weights
            return pool
        picks = resample(weights, self.worlds, self.rng)
        return [pool[i] for i in picks]

    def log_weights(self, pool: list[Any], moves: Sequence[Move], me: int) -> np.ndarray:
        """The log-likelihood of the round's ``moves`` in each world of ``pool``
        (:func:`log_likelihood`): compiled at the default rules (:mod:`.inference_kernels`,
        all the worlds in one call; the ``policy`` model where the search's rollouts are,
        over the search-value network or the heuristic), unless ``batched=False``."""
        params = self._rules(pool[0]) if self.batched else None
        kernel = self._batched_rollouts() if self.model == "policy" and self.batched else None
        if (
            params is None
            or any(w.rules != RULES for w in pool)
            or (self.model == "policy" and kernel is None)
        ):
            return np.array([log_likelihood(w, moves, me, self.values, self.temperature)
                             for w in pool])  # fmt: skip
        from carcassonne_rl.agents.card import inference_kernels as IK

        games = np.stack([pack_state(w) for w in pool])
        codes = np.array([(m.seat, m.row, m.last_before) for m in moves], np.int64)
        out = np.empty(len(pool), np.float64)
        if kernel is None or kernel.net is None:
            hw = HEURISTIC_WEIGHTS if kernel is None else kernel.hw
            IK.log_likelihoods(games, codes, me, params, hw, self.temperature, out)
            return out
        others = sum(m.seat != me for m in moves)
        while True:  # the inputs' buffer grows until every option of every decision fits
            need = len(pool) * others
            if self._x is None or self._seg.shape[0] < need:
                self._x = np.zeros((need * 48, kernel.net.inputs), np.float32)
                self._seg = np.zeros((need, 4), np.int64)
            ns = IK.policy_rows(games.copy(), codes, me, params, kernel.hw, self._x,
                                self._seg, out)  # fmt: skip
            if ns >= 0:
                break
            self._x = np.zeros((2 * self._x.shape[0], kernel.net.inputs), np.float32)
        seg = self._seg[:ns]
        rows = int((seg[:, 2] + seg[:, 1]).max()) if ns else 0
        values = kernel.net.forward(self._x[:rows])[:, 0] if rows else np.zeros(0, np.float32)
        IK.add_log_choices(values, seg, ns, self.temperature, out)
        return out

    def _rules(self, world: Any) -> np.ndarray | None:
        """The rules of ``world`` as the kernels read them (None: not the default rules)."""
        if world.rules != RULES:
            return None
        got = self._params.get(world.n)
        if got is None:
            got = self._params[world.n] = rules_params(GameConfig(world.n))
        return got


def with_inference(search: CardSearchAgent, model: str | None) -> CardSearchAgent:
    """``search`` with inference by ``model`` (None: ``search`` itself)."""
    if model is None:
        return search
    return InferenceSearchAgent(search.base_factory, search.worlds, search.seed,
                                search.candidates, search.horizon, search.future,
                                model, batched=search.batched)  # fmt: skip


# ---------------------------------------------------------------------- temperature fit
def decisions_of(record: str) -> list[tuple[PlayerView, list[int], int]]:
    """Every turn decision with two or more options of a recorded game: (the seat's view,
    the legal codes, the code played)."""
    from carcassonne_rl.games.cardcassonne import load_json, new_game

    game = load_json(record)
    s = new_game(game.config, game.card_order)
    out = []
    for code in game.history:
        if s.phase == "turn":
            legal = s.legal_codes()
            if len(legal) > 1:
                out.append((view(s, s.current_player), legal, code))
        s.apply_code(code)
    return out


def fit_temperature(records: Sequence[str], values: Values, low: float = 0.05,
                    high: float = 200.0) -> tuple[float, float, int]:  # fmt: skip
    """``(T, mean log-likelihood, decisions)``: the temperature maximising the likelihood of
    the recorded games' turn decisions under ``softmax(values / T)`` (golden-section search
    over ``log T`` in [``low``, ``high``])."""
    data = []
    for record in records:
        for v, legal, code in decisions_of(record):
            data.append((values(v, legal), legal.index(code)))

    def mean_ll(log_t: float) -> float:
        t = math.exp(log_t)
        return sum(log_choice(x, i, t) for x, i in data) / len(data)

    a, b = math.log(low), math.log(high)
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = mean_ll(c), mean_ll(d)
    for _ in range(40):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = mean_ll(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = mean_ll(d)
    t = math.exp((a + b) / 2)
    return t, mean_ll(math.log(t)), len(data)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m carcassonne_rl.agents.card.inference FOLDER``: fit each model's temperature
    on the game records (``*.json``) in FOLDER; one JSON line per model."""
    import argparse
    import json

    from carcassonne_rl.agents.pretrained import make_card_search

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    records = [p.read_text() for p in sorted(args.folder.glob("*.json"))]
    if not records:
        raise SystemExit(f"no game records (*.json) in {args.folder}")
    search = make_card_search(["search"], 0)
    assert isinstance(search, CardSearchAgent)
    for model, values in (("policy", policy_values(search.base)),
                          ("heuristic", heuristic_values())):  # fmt: skip
        t, ll, n = fit_temperature(records, values)
        print(json.dumps({"model": model, "temperature": round(t, 3), "mean_log_lik": round(ll, 4),
                          "decisions": n, "games": len(records)}))  # fmt: skip


if __name__ == "__main__":
    main()


__all__ = [
    "MODELS",
    "TEMPERATURE",
    "InferenceSearchAgent",
    "Move",
    "RoundLog",
    "ess",
    "fit_temperature",
    "heuristic_values",
    "log_likelihood",
    "policy_values",
    "resample",
    "tempered",
    "undo",
    "with_inference",
]
