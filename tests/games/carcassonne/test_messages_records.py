"""The Messages and the Labyrinth: notation, JSON records, clones and replays cover the new
decisions (figure choices, messages, recalls, labyrinth followers), plus invariants of whole
random games with both expansions (no expected scores there: only identities that hold
whatever the deal, e.g. every total is figure A + figure B + final scoring).
"""

import json
import random

import pytest

from carcassonne_rl.games.carcassonne import GameConfig, load_json, new_game


def _fingerprint(s):
    return (
        list(s.history),
        s.phase,
        s.current_player,
        s.active_player,
        s.scores.tolist(),
        s.figures.tolist(),
        s.score_events,
        s.placed_tiles(),
        s.placed_followers(),
        s.legal_action_codes().tolist(),
        [str(a) for a in s.legal_actions()],
        s.messages_seen,
        s.message_card,
        s.pending_award,
        s.followers_left.tolist(),
        s.discarded,
        s.current_tile,
    )


# A scripted game with both expansions that goes through every new kind of decision:
# figure choices by the receiver in another player's turn, a message taken as 2 points, a
# labyrinth follower, an arm follower, a message 8 recall (scenario of
# test_messages_labyrinth._minority_on_a_labyrinth with card 8 after card 6).
SCRIPT = [
    "N 0,-1 r3", "city:S", "E -1,-1 r1", "none", "figure:B",
    "E 0,1 r2", "none", "Y 1,0 r0", "labyrinth", "U 1,-1 r1", "road:N",
    "W 2,0 r0", "road:W", "E 0,2 r0", "city:N", "figure:B",
    "message:carry", "recall 1,-1 road:N",
    "U -1,0 r0", "road:E",
]  # fmt: skip


def _scripted():
    cfg = GameConfig(players=2, expansions=("messages", "labyrinth"))
    return new_game(cfg, draw_order="NEEYUWEU", message_order="81234567")


def test_scripted_game_text_round_trip_at_every_step():
    s = _scripted()
    phases = set()
    for i, move in enumerate(SCRIPT):
        phases.add(s.phase)
        # the canonical text of the move is what the engine lists and writes back
        assert move in [str(a) for a in s.legal_actions()], (i, move, s.phase)
        code = s.parse_action(move)
        assert s.action_to_string(code) == move
        s.apply(move)
        loaded = load_json(s.to_json())
        assert _fingerprint(loaded) == _fingerprint(s)
        clone = s.clone()
        assert _fingerprint(clone) == _fingerprint(s)
    assert {"choose_figure", "message", "message_follower", "place_follower"} <= phases
    record = json.loads(s.to_json())
    assert record["actions"] == SCRIPT
    assert record["message_order"] == "81234567"
    assert record["config"]["expansions"] == ["messages", "labyrinth"]
    assert record["config"]["figure_choice"] == "player"


@pytest.mark.parametrize("stop", [4, 9, 16, 17])
def test_scripted_game_clone_and_json_continue_identically(stop):
    # stop in the middle of a figure choice (4, 15), a follower decision (9), a message (16)
    # and a message 8 recall (17)
    s = _scripted()
    for move in SCRIPT[:stop]:
        s.apply(move)
    clone = s.clone()
    loaded = load_json(s.to_json())
    for copy in (s, clone, loaded):
        for move in SCRIPT[stop:]:
            copy.apply(move)
    assert _fingerprint(clone) == _fingerprint(s) == _fingerprint(loaded)
    assert s.is_over
    # Last turn: seat 1's U(-1,0) extends the labyrinth's empty W arm {D, U(-1,0)} with a
    # follower.  Final scoring: the incomplete network Y, D, U(-1,0), U(1,-1), W(2,0) =
    # 5 tiles, seat 1 alone (3 followers, seat 0's was recalled) -> 5, no bonus.
    # Seat 0: figures 0 + 10, nothing at the end.
    assert s.figures.tolist() == [[0, 10], [0, 0]]
    assert s.scores.tolist() == [10, 5]


# Message 7 (scenario of test_messages_cards.test_message_7_extra_tile_...): the extra tile
# and its follower, a second message from its scoring, then the next player's turn.
SCRIPT7 = [
    "N 0,-1 r2", "city:E", "E 1,-1 r3", "none", "figure:B",
    "A 1,0 r1", "none", "U -1,0 r0", "none", "E 0,1 r2", "none", "U -2,0 r0", "none",
    "A -3,0 r3", "road:E", "figure:A", "message:carry",
    "E 0,2 r0", "city:N", "figure:B", "message:points", "figure:A",
    "U 0,3 r0", "none",
]  # fmt: skip


@pytest.mark.parametrize("stop", [16, 17, 18, 19, 20, 21])
def test_message_7_game_clone_and_json_continue_identically(stop):
    cfg = GameConfig(players=2, expansions=("messages",))
    s = new_game(cfg, draw_order="NEAUEUAEU", message_order="76812345")
    for move in SCRIPT7[:stop]:
        s.apply(move)
    clone = s.clone()
    loaded = load_json(s.to_json())
    assert _fingerprint(clone) == _fingerprint(s) == _fingerprint(loaded)
    for copy in (s, clone, loaded):
        for move in SCRIPT7[stop:]:
            copy.apply(move)
    assert _fingerprint(clone) == _fingerprint(s) == _fingerprint(loaded)
    assert json.loads(s.to_json())["actions"] == SCRIPT7
    # figures: A 5 (road) + 2 (message), B 6 (city in seat 1's turn) + 4 (extra tile's city)
    assert s.is_over and s.figures[0].tolist() == [7, 10]
    assert s.scores.tolist() == [17, 0]


def _random_game(seed, players, figure_choice, order):
    cfg = GameConfig(
        players=players,
        seed=seed,
        expansions=("messages", "labyrinth"),
        figure_choice=figure_choice,
    )
    return new_game(cfg, message_order=order)


def _play_random(s, rng, cards=None, limit=None, greedy=False):
    """Random legal actions; with `greedy`, tiles are placed by `_greedy` (which completes
    far more features than random placement, so messages happen)."""
    n = 0
    while not s.is_over and (limit is None or n < limit):
        if cards is not None and s.phase == "message":
            cards.append(s.message_card)
        legal = s.legal_action_codes()
        assert legal.size, f"no legal action in phase {s.phase}"
        if greedy and s.phase == "place_tile":
            _greedy(s, rng)
        else:
            s.apply_code(int(legal[rng.randrange(legal.size)]))
        n += 1
        if s.phase in ("place_tile", "place_follower"):
            # between scoring steps every award is credited: totals = A + B
            assert s.scores.tolist() == s.figures.sum(axis=1).tolist()


@pytest.mark.parametrize(
    "seed,players,figure_choice",
    [(0, 2, "player"), (1, 3, "player"), (2, 4, "auto"), (3, 2, "auto"), (4, 5, "player")],
)
def test_random_games_with_both_expansions(seed, players, figure_choice):
    order = "".join(str(c) for c in random.Random(seed).sample(range(1, 9), 8))
    s = _random_game(seed, players, figure_choice, order)
    assert s.message_order == order
    cards = []
    _play_random(s, random.Random(seed), cards, greedy=True)
    # the message stack cycles in its fixed order
    assert cards == [int(order[i % 8]) for i in range(len(cards))]
    assert s.messages_drawn == len(cards)
    # both labyrinth tiles were dealt: placed or discarded
    placed = [t for t in s.placed_tiles() if t[0] == "Y"]
    assert len(placed) + s.discarded.count("Y") == 2
    # totals = figure A + figure B + final scoring; the figures only move during play
    finals = [0] * players
    during = [[0, 0] for _ in range(players)]
    for e in s.score_events:
        assert e.points > 0
        if e.final:
            assert e.figure is None and e.card is None
            finals[e.player] += e.points
        else:
            during[e.player]["AB".index(e.figure)] += e.points
        if e.kind == "message":
            assert e.card is not None and not e.final
    assert s.figures.tolist() == during
    assert s.scores.tolist() == [sum(during[p]) + finals[p] for p in range(players)]
    loaded = load_json(s.to_json())
    assert _fingerprint(loaded) == _fingerprint(s)


@pytest.mark.parametrize("seed", range(8))
def test_random_clone_and_json_give_identical_continuations(seed):
    rng = random.Random(100 + seed)
    s = _random_game(seed, 2 + seed % 3, "auto" if seed % 4 == 3 else "player", "12345678")
    _play_random(s, rng, limit=rng.randrange(20, 160))
    clone = s.clone()
    loaded = load_json(s.to_json())
    assert _fingerprint(clone) == _fingerprint(s) == _fingerprint(loaded)
    for copy in (s, clone, loaded):
        _play_random(copy, random.Random(seed))
    assert _fingerprint(clone) == _fingerprint(s) == _fingerprint(loaded)
    assert s.is_over


def _activity(s):
    return 10 * s.messages_drawn + len(s.score_events) + (s.phase in ("choose_figure", "message"))


def _greedy(s, rng):
    """One decision of a policy that hunts for messages: the option (for a tile: tile and
    follower) that draws the most messages / scores the most awards now, ties at random."""
    base = _activity(s)
    best, options = -1, []
    for a in s.legal_action_codes().tolist():
        c1 = s.clone()
        c1.apply_code(a)
        follow = c1.legal_action_codes().tolist() if c1.phase == "place_follower" else [None]
        for f in follow:
            c2 = c1
            if f is not None and s.phase == "place_tile":
                c2 = c1.clone()
                c2.apply_code(f)
            gain = _activity(c2) - base
            if gain > best:
                best, options = gain, []
            if gain == best:
                options.append((a, f if s.phase == "place_tile" else None))
    a, f = rng.choice(options)
    s.apply_code(a)
    if f is not None:
        s.apply_code(f)


# A pinned deal (the seed-25 shuffle of a labyrinth game, written out so that the test does
# not depend on the shuffle): with the greedy policy below it draws 10 messages, so the stack
# goes round once and starts again.
DEAL = "DENKWIPNBOUQSEFVCUUKVEPUBAYUFUMOSWEUIRWVGVVLNHLABVKEVHDYDUXLWRJRPTJMBVJHV"


def test_message_stack_cycles_in_its_fixed_order():
    cfg = GameConfig(players=3, expansions=("messages", "labyrinth"), figure_choice="auto")
    order = "31764825"
    s = new_game(cfg, draw_order=DEAL, message_order=order)
    rng = random.Random(25)
    cards = []
    while not s.is_over:
        if s.phase == "message":
            cards.append(s.message_card)
        _greedy(s, rng)
    # If an engine change makes this deal draw fewer than 9 messages, pick another seed:
    # the point is that the 9th card is the 1st again.
    assert len(cards) >= 9
    assert cards == [int(order[i % 8]) for i in range(len(cards))]
    assert s.messages_seen == [int(c) for c in order]
    loaded = load_json(s.to_json())
    assert _fingerprint(loaded) == _fingerprint(s)
