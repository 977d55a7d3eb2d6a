"""The invariants the fuzzer checks, per game: :class:`TileChecks` and :class:`CardChecks`."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from typing import Any

import numpy as np


class TileChecks:
    """Invariants of the tile game (public engine API where it is cheap enough)."""

    def __init__(self, raw_env: Any) -> None:
        from carcassonne_rl.games.carcassonne import layout as L
        from carcassonne_rl.games.carcassonne import load_json

        self.raw = raw_env
        self.layout = L
        self.load_json = load_json
        self.players = raw_env.players

    def mask_codes(self, state: Any, mask_indices: np.ndarray) -> list[int]:
        encoder = self.raw.encoder
        L = self.layout
        if state.phase_index == L.PHASE_TILE:
            # placement index = (window row * W + window column) * 4 + rotation
            x0, y0 = encoder.origin(state)
            w = encoder.window
            cell, rotation = np.divmod(mask_indices, 4)
            wy, wx = np.divmod(cell, w)
            codes = ((wy + y0 + L.OFF) * L.SIZE + wx + x0 + L.OFF) * 4 + rotation
            return codes.tolist()
        return [encoder.code_of(state, int(i)) for i in mask_indices]

    def dropped(self, state: Any) -> int:
        return self.raw.encoder.dropped_moves(state)

    def conservation(self, state: Any, thorough: bool) -> str | None:
        """Tiles and followers conserved: counts every step, by letter when ``thorough``."""
        L = self.layout
        a = state.kernel_arrays()
        ints = a.ints
        pending = int(ints[L.R_PHASE] == L.PHASE_TILE)
        in_pile = int(ints[L.R_DECKLEN] - ints[L.R_DECKPOS])
        total = int(ints[L.R_NSLOTS]) + int(ints[L.R_NDISCARD]) + in_pile + pending
        if total != int(ints[L.R_DECKLEN]) + 1:
            return f"tiles not conserved: {total} counted, {int(ints[L.R_DECKLEN]) + 1} dealt"
        owners = a.segs[: ints[L.R_NSLOTS] * L.MAX_SEGMENTS, L.S_OWNER]
        on_board = np.bincount(owners[owners >= 0], minlength=self.players)
        left = ints[L.R_FOLLOWERS : L.R_FOLLOWERS + self.players]
        if (left + on_board != 7).any():
            return f"followers not conserved: supply {left.tolist()}, on board {on_board.tolist()}"
        if not thorough:
            return None
        # by letter through the public API: every tile of the draw pile, plus the start tile,
        # is placed, discarded, still in the pile or being placed
        placed = Counter(t[0] for t in state.placed_tiles())
        placed.update(state.discarded)
        placed.update({k: v for k, v in state.remaining_tiles().items() if v})
        if state.current_tile is not None:
            placed[state.current_tile] += 1
        expected = Counter(state.draw_order)
        expected["D"] += 1
        if placed != expected:
            return f"tiles not conserved: counted {dict(placed)}, expected {dict(expected)}"
        on_board_public = Counter(f.player for f in state.placed_followers())
        public_left = state.followers_left
        for p in range(self.players):
            if public_left[p] + on_board_public[p] != 7:
                placed = on_board_public[p]
                return f"seat {p}: {public_left[p]} followers in supply + {placed} placed"
        return None

    def scores(self, state: Any, thorough: bool) -> str | None:
        """Each score = the sum of its score events (the public events when ``thorough``)."""
        if thorough:
            totals = [0] * self.players
            for event in state.score_events:
                totals[event.player] += event.points
        else:
            L = self.layout
            a = state.kernel_arrays()
            events = a.events[: a.ints[L.R_NEVENTS]]
            totals = np.bincount(
                events[:, L.E_PLAYER], weights=events[:, L.E_POINTS], minlength=self.players
            )
            totals = totals.astype(np.int64).tolist()
        if totals != state.scores.tolist():
            return f"scores {state.scores.tolist()} != sums of score events {totals}"
        return None

    def illegal_code(self, state: Any, rng: random.Random) -> int:
        legal = set(state.legal_action_codes().tolist())
        while True:
            choice = rng.randrange(4)
            if choice == 0:
                code = rng.choice((-1, -(2**31), 2**31 - 1, 10**6))
            elif choice == 1:
                code = rng.randrange(161 * 161 * 4)  # any placement code
            else:
                code = rng.randrange(64)  # follower / figure / message codes
            if code not in legal:
                return code

    def fingerprint(self, state: Any) -> bytes:
        L = self.layout
        a = state.kernel_arrays()
        ints = a.ints
        used_events = a.events[: ints[L.R_NEVENTS]]  # the rest is uninitialised
        used_pool = a.pool[: ints[L.R_POOL]]
        digest = hashlib.blake2b(digest_size=20)
        for array in (a.board, ints, a.tiles, a.segs, used_events, used_pool):
            digest.update(np.ascontiguousarray(array).tobytes())
        digest.update(np.asarray(state.history, np.int64).tobytes())
        return digest.digest()


class CardChecks:
    """Invariants of Cardcassonne: 130 cards and one big follower per seat."""

    def __init__(self, raw_env: Any) -> None:
        from carcassonne_rl.games.cardcassonne import KIND_COUNTS, NUM_KINDS, load_json
        from carcassonne_rl.games.cardcassonne.state import FACE_DOWN, TURN

        self.kind_counts = list(KIND_COUNTS)
        self.total_cards = sum(KIND_COUNTS)
        self.num_kinds = NUM_KINDS
        self.face_down = FACE_DOWN
        self.turn_phase = TURN
        self.load_json = load_json
        self.players = raw_env.players

    def mask_codes(self, state: Any, mask_indices: np.ndarray) -> list[int]:
        return mask_indices.tolist()  # the action index is the engine code

    def dropped(self, state: Any) -> int:
        return 0

    def conservation(self, state: Any, thorough: bool) -> str | None:
        """130 cards and one big follower per seat: totals every step, by kind when
        ``thorough``."""
        rows = state.rows
        in_rows = sum(len(row) for row in rows)
        followers_in_rows = [0] * self.players
        for row in rows:
            for entry in row:
                if entry < 0:
                    followers_in_rows[-entry - 1] += 1
        for p in range(self.players):
            expected = int(state.phase_index == self.turn_phase and state.follower_row[p] >= 0)
            if followers_in_rows[p] != expected:
                return f"seat {p}: {followers_in_rows[p]} followers in rows (expected {expected})"
            if sum(state.hands[p]) != state.hand_size[p]:
                return f"seat {p}: hand of {sum(state.hands[p])} cards, size {state.hand_size[p]}"
        claims = state.claims
        total = (
            len(state.deck_cards())
            + sum(state.hand_size)
            + sum(sum(c) for c in state.collected)
            + sum(state.removed)
            + in_rows
            - sum(followers_in_rows)
            + len(state.misplaced_queue)
            + sum(len(claims[p]) for p in range(state.score_player + 1, len(claims)))
        )
        if total != self.total_cards:
            return f"cards not conserved: {total} counted, {self.total_cards} in the game"
        if not thorough:
            return None
        counts = [0] * self.num_kinds
        for k in state.deck_cards():
            counts[k] += 1
        for p in range(self.players):
            for k, n in enumerate(state.hands[p]):
                counts[k] += n
            for k, n in enumerate(state.collected[p]):
                counts[k] += n
        for k, n in enumerate(state.removed):
            counts[k] += n
        for row in rows:
            for entry in row:
                if entry >= 0:
                    counts[entry % self.face_down] += 1
        for k in state.misplaced_queue:
            counts[k] += 1
        for p in range(state.score_player + 1, len(state.claims)):  # claims not scored yet
            for k, _ in state.claims[p]:
                counts[k] += 1
        if counts != self.kind_counts:
            return f"cards not conserved: counted {counts}, expected {self.kind_counts}"
        return None

    def scores(self, state: Any, thorough: bool) -> str | None:
        """Each score = the sum of its score events, each of whole points (an ``int``)."""
        totals = [0] * self.players
        for event in state.score_events:
            if type(event.points) is not int:
                return f"score event {event} has points of type {type(event.points).__name__}"
            totals[event.player] += event.points
        if totals != state.scores.tolist():
            return f"scores {state.scores.tolist()} != sums of score events {totals}"
        return None

    def illegal_code(self, state: Any, rng: random.Random) -> int:
        legal = set(state.legal_codes())
        while True:
            code = rng.choice((-1, 206, 10**6)) if rng.random() < 0.2 else rng.randrange(206)
            if code not in legal:
                return code

    def fingerprint(self, state: Any) -> bytes:
        fields = tuple(getattr(state, name) for name in type(state).__slots__ if name != "rules")
        return hashlib.blake2b(repr(fields).encode(), digest_size=20).digest()


# --------------------------------------------------------------------------- the run
