"""A deliberately naive tile-game referee, independent of the engine's kernels.

It keeps the board as a dict, finds features by breadth-first search over (x, y, segment)
nodes every time it needs them, and applies docs/rules/carcassonne.md literally. It shares only
the printed tile table (``TILE_TYPES``) with the engine. Slow; used to cross-check the engine
over random games.
"""

from __future__ import annotations

from collections import deque

from carcassonne_rl.games.carcassonne.tiles import (
    CITY,
    CLOISTER,
    FIELD,
    LABYRINTH,
    ROAD,
    TILE_TYPES,
)

SIDES = "NESW"
HALVES = ("NNW", "NNE", "ENE", "ESE", "SSE", "SSW", "WSW", "WNW")
STEP = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
BY_LETTER = {t.letter: t for t in TILE_TYPES}


def rotated_edges(letter: str, r: int) -> list[str]:
    printed = BY_LETTER[letter].edges
    out = [""] * 4
    for s in range(4):
        out[(s + r) % 4] = printed[s]
    return out


def seg_sides(letter: str, r: int, k: int) -> list[int]:
    return [(SIDES.index(s) + r) % 4 for s in BY_LETTER[letter].segments[k].sides]


def seg_halves(letter: str, r: int, k: int) -> list[int]:
    return [(HALVES.index(h) + 2 * r) % 8 for h in BY_LETTER[letter].segments[k].halves]


class Referee:
    def __init__(self, players: int, deck: str) -> None:
        self.players = players
        self.deck = list(deck)
        self.board: dict[tuple[int, int], tuple[str, int]] = {(0, 0): ("D", 0)}
        self.followers: dict[tuple[int, int, int], int] = {}
        self.left = [7] * players
        self.scores = [0] * players
        self.player = 0
        self.tile: str | None = None
        self.last: tuple[int, int] | None = None
        self.discarded: list[str] = []
        self.over = False
        self._draw()

    # -- geometry
    def fits(self, letter: str, x: int, y: int, r: int) -> bool:
        if (x, y) in self.board:
            return False
        edges = rotated_edges(letter, r)
        touching = False
        for s in range(4):
            dx, dy = STEP[s]
            other = self.board.get((x + dx, y + dy))
            if other is None:
                continue
            touching = True
            if rotated_edges(*other)[(s + 2) % 4] != edges[s]:
                return False
        return touching

    def placements(self, letter: str) -> set[tuple[int, int, int]]:
        cells = {(x + dx, y + dy) for (x, y) in self.board for dx, dy in STEP.values()} - set(
            self.board
        )
        return {(x, y, r) for x, y in cells for r in range(4) if self.fits(letter, x, y, r)}

    def neighbours(
        self, node: tuple[int, int, int], through_hubs: bool = True
    ) -> list[tuple[int, int, int]]:
        """Connected segments next door; a labyrinth centre only counts if ``through_hubs``."""
        x, y, k = node
        letter, r = self.board[(x, y)]
        out = []
        for s in seg_sides(letter, r, k):
            dx, dy = STEP[s]
            other = self.board.get((x + dx, y + dy))
            if other is None:
                continue
            for k2 in range(len(BY_LETTER[other[0]].segments)):
                if (s + 2) % 4 in seg_sides(other[0], other[1], k2):
                    hub = LABYRINTH in (self.kind(node), self.kind((x + dx, y + dy, k2)))
                    if through_hubs or not hub:
                        out.append((x + dx, y + dy, k2))
        for h in seg_halves(letter, r, k):
            s, half = divmod(h, 2)
            dx, dy = STEP[s]
            other = self.board.get((x + dx, y + dy))
            if other is None:
                continue
            want = 2 * ((s + 2) % 4) + 1 - half
            for k2 in range(len(BY_LETTER[other[0]].segments)):
                if want in seg_halves(other[0], other[1], k2):
                    out.append((x + dx, y + dy, k2))
        return out

    def feature(
        self, node: tuple[int, int, int], through_hubs: bool = True
    ) -> frozenset[tuple[int, int, int]]:
        seen = {node}
        todo = deque([node])
        while todo:
            for n in self.neighbours(todo.popleft(), through_hubs):
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return frozenset(seen)

    def kind(self, node: tuple[int, int, int]) -> int:
        return BY_LETTER[self.board[node[:2]][0]].segments[node[2]].kind

    def complete(self, feat: frozenset) -> bool:
        for x, y, k in feat:
            letter, r = self.board[(x, y)]
            for s in seg_sides(letter, r, k):
                dx, dy = STEP[s]
                if (x + dx, y + dy) not in self.board:
                    return False
        return True

    def ring(self, x: int, y: int) -> int:
        return sum(
            (x + dx, y + dy) in self.board for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy
        )

    # -- scoring
    def majority(self, nodes) -> list[int]:
        counts = [0] * self.players
        for n in nodes:
            if n in self.followers:
                counts[self.followers[n]] += 1
        best = max(counts)
        return [p for p in range(self.players) if best and counts[p] == best]

    def value(self, feat: frozenset, final: bool) -> int:
        node = next(iter(feat))
        kind = self.kind(node)
        tiles = len({(x, y) for x, y, _ in feat})
        if any(self.kind(n) == LABYRINTH for n in feat):
            followers = sum(n in self.followers for n in feat)
            return tiles if final else tiles + 2 * followers
        if kind == ROAD:
            return tiles
        pennants = sum(BY_LETTER[self.board[(x, y)][0]].segments[k].pennant for x, y, k in feat)
        return tiles + pennants if final else 2 * (tiles + pennants)

    def award(self, nodes, points: int, release: bool) -> None:
        for p in self.majority(nodes):
            self.scores[p] += points
        if release:
            for n in nodes:
                if n in self.followers:
                    self.left[self.followers.pop(n)] += 1

    # -- turn flow
    def follower_options(self) -> set[int]:
        """0 = none, k + 1 = segment k of the tile just placed."""
        opts = {0}
        if self.left[self.player] == 0:
            return opts
        x, y = self.last
        for k in range(len(BY_LETTER[self.board[(x, y)][0]].segments)):
            # the follower rule looks at arms: never through a labyrinth centre
            if not any(n in self.followers for n in self.feature((x, y, k), False)):
                opts.add(k + 1)
        return opts

    def place(self, x: int, y: int, r: int) -> None:
        assert self.fits(self.tile, x, y, r)
        self.board[(x, y)] = (self.tile, r)
        self.last = (x, y)

    def follow(self, option: int) -> None:
        x, y = self.last
        letter, _ = self.board[(x, y)]
        if option:
            self.followers[(x, y, option - 1)] = self.player
            self.left[self.player] -= 1
        done = set()
        for k in range(len(BY_LETTER[letter].segments)):
            if self.kind((x, y, k)) in (ROAD, CITY, LABYRINTH):
                feat = self.feature((x, y, k))
                if feat not in done and self.complete(feat):
                    done.add(feat)
                    self.award(feat, self.value(feat, False), True)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                cx, cy = x + dx, y + dy
                if (cx, cy) not in self.board:
                    continue
                segs = BY_LETTER[self.board[(cx, cy)][0]].segments
                for k, seg in enumerate(segs):
                    node = (cx, cy, k)
                    if seg.kind == CLOISTER and node in self.followers and self.ring(cx, cy) == 8:
                        self.award([node], 9, True)
        self.player = (self.player + 1) % self.players
        self._draw()

    def _draw(self) -> None:
        while self.deck:
            self.tile = self.deck.pop(0)
            if self.placements(self.tile):
                return
            self.discarded.append(self.tile)
        self.tile = None
        self.over = True
        self._final()

    def _final(self) -> None:
        seen = set()
        for node in list(self.followers):
            kind = self.kind(node)
            if kind == CLOISTER:
                self.award([node], 1 + self.ring(*node[:2]), False)
                continue
            feat = self.feature(node)
            if feat in seen:
                continue
            seen.add(feat)
            if kind == FIELD:
                cities = set()
                for x, y, k in feat:
                    for c in BY_LETTER[self.board[(x, y)][0]].segments[k].cities:
                        city = self.feature((x, y, c))
                        if self.complete(city):
                            cities.add(city)
                points = 3 * len(cities)
            else:
                points = self.value(feat, True)
            if points:
                self.award(feat, points, False)
