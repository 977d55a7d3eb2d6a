"""A small information-set UCT search shared by both games' MCTS agents.

Each simulation starts from a fresh *determinization* of the root (a full state consistent
with what the searching player knows: the tile pile reshuffled, or the hidden cards
resampled), descends a single tree of decisions keyed by action code, expands one new
decision, values the leaf and backs the value up. Statistics of a decision are stored for
the player who took it (max-n style, any number of players). Because the legal actions can
differ between determinizations (card game: other hands), UCB uses *availability* counts
(single-observer ISMCTS): ``w/n + c * sqrt(ln(avail) / n)``. Chance events that a player
sees (the next tile drawn, a message card) split the tree: after such a decision the child
holds one subtree per observed outcome (``chance_key``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any


class Node:
    """Statistics of the decision leading here, and the decisions that follow it."""

    __slots__ = ("n", "w", "avail", "children", "expanded")

    def __init__(self) -> None:
        self.n = 0
        self.w = 0.0
        self.avail = 1
        self.children: dict[Hashable, Node] = {}
        self.expanded = False


def search(
    determinize: Callable[[random.Random], Any],
    legal: Callable[[Any], Sequence[int]],
    evaluate: Callable[[Any], Sequence[float]],
    rng: random.Random,
    simulations: int,
    time_limit: float | None = None,
    c: float = 0.7,
    chance_key: Callable[[Any], Hashable | None] = lambda s: None,
    expand: Callable[[Any], list[tuple[int, Sequence[float]]]] | None = None,
    prior_visits: float = 1.0,
) -> dict[int, tuple[int, float]]:
    """Run the search; returns ``{code: (visits, mean value)}`` for the root decisions.

    ``evaluate(state)`` gives one value in [0, 1] per player for a leaf (or a finished game).
    With ``expand(state) -> [(code, values per player)]`` (a one-ply heuristic lookahead), a
    new decision node gets all its children at once, each starting with ``prior_visits``
    virtual visits at its heuristic value (progressive bias), and the leaf is valued as if
    the mover then took its heuristically best decision. Stops after ``simulations``
    simulations or ``time_limit`` seconds, whichever comes first.
    """
    root = Node()
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    log = math.log
    sqrt = math.sqrt
    for i in range(simulations):
        if deadline is not None and i > 0 and time.perf_counter() > deadline:
            break
        s = determinize(rng)
        node = root
        path: list[tuple[Node, int]] = []
        values = None
        while not s.is_over:
            mover = s.current_player
            children = node.children
            if expand is not None and not node.expanded:
                node.expanded = True
                best = -1.0
                for code, vec in expand(s):
                    ch = Node()
                    ch.n = prior_visits
                    ch.w = prior_visits * vec[mover]
                    children[code] = ch
                    if vec[mover] > best:
                        best = vec[mover]
                        values = vec
                break
            codes = legal(s)
            untried = []
            for code in codes:
                ch = children.get(code)
                if ch is None:
                    untried.append(code)
                else:
                    ch.avail += 1
            if untried:
                code = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                child = Node()
                children[code] = child
            else:
                best = -1.0
                code = codes[0]
                for cand in codes:
                    ch = children[cand]
                    u = ch.w / ch.n + c * sqrt(log(ch.avail) / ch.n)
                    if u > best:
                        best = u
                        code = cand
                child = children[code]
            s.apply_code(code)
            path.append((child, mover))
            key = chance_key(s)
            if key is not None:
                nxt = child.children.get(key)
                if nxt is None:
                    nxt = child.children[key] = Node()
                node = nxt
            else:
                node = child
            if untried:
                break
        if values is None:
            values = evaluate(s)
        for child, mover in path:
            child.n += 1
            child.w += values[mover]
    return {
        code: (ch.n, ch.w / ch.n if ch.n else 0.0)
        for code, ch in root.children.items()
        if isinstance(code, int)
    }


def best_code(stats: dict[int, tuple[int, float]], legal_codes: Sequence[int]) -> int:
    """Most visited root decision (ties: higher mean value); a legal code if none searched."""
    if not stats:
        return int(legal_codes[0])
    return max(stats.items(), key=lambda kv: (kv[1][0], kv[1][1]))[0]


def squash(margin: float, scale: float) -> float:
    """Score margin -> (0, 1) value (logistic)."""
    x = max(-50.0, min(50.0, margin / scale))
    return 1.0 / (1.0 + math.exp(-x))
