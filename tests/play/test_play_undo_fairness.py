"""Undo reveals nothing: what seat K is shown after an undo does not depend on the hidden
order of the game (the tile pile, the unseen message cards; the other hands, the others'
face-down cards and the rounds not dealt yet in Cardcassonne).

Two *twin* games are played side by side through the HTTP API: the same seed, the same
moves, so seat K sees the same thing in both; then everything K has not seen is dealt
differently in twin B (tile game: the undrawn tiles and message cards reshuffled by the test
itself; Cardcassonne: ``redeal_unseen``, checked to change the hidden cards). The person
plays ahead in both (seeing different futures), undoes back, and plays on with the same
moves: every answer K gets from then on must be the same in both twins. A planted bug,
undo that keeps the old order, is caught by the same check.
"""

from __future__ import annotations

import json
import random

import pytest
from helpers.play import offered_moves, token_client

from carcassonne_rl.games.carcassonne import load_json as load_tile_json
from carcassonne_rl.games.cardcassonne import redeal_unseen
from carcassonne_rl.play.server import create_app
from carcassonne_rl.play.session import PlaySession

EXPANSIONS = [(), ("messages",), ("labyrinth",), ("messages", "labyrinth")]
CONFIGS = [("carcassonne", n, e) for n in range(2, 6) for e in EXPANSIONS] + [
    ("cardcassonne", n, ()) for n in range(2, 6)
]


def _config_id(config) -> str:
    game, players, expansions = config
    return f"{game}-{players}p-{'+'.join(expansions) or 'base'}"


def _hidden(session: PlaySession) -> tuple:
    record = json.loads(session.state.to_json())
    if session.game == "carcassonne":
        return record["draw_order"], record["message_order"]
    return tuple(record["card_order"]), tuple(record["actions"])


def _deal_unseen_differently(session: PlaySession, rng: random.Random) -> None:
    """Twin B: everything seat K has not seen, dealt again."""
    state = session.state
    if session.game == "carcassonne":
        record = json.loads(state.to_json())
        drawn = len(record["draw_order"]) - sum(state.remaining_tiles().values())
        rest = list(record["draw_order"][drawn:])
        rng.shuffle(rest)
        record["draw_order"] = record["draw_order"][:drawn] + "".join(rest)
        if state.config.messages:
            seen = min(state.messages_drawn, 8)
            cards = list(record["message_order"][seen:])
            rng.shuffle(cards)
            record["message_order"] = record["message_order"][:seen] + "".join(cards)
        session.state = load_tile_json(json.dumps(record))
    else:
        session.state = redeal_unseen(state, session.seat, rng)


def _seen(answer: dict) -> str:
    """An answer as seat K reads it (the game id aside)."""

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "game_id"}
        if isinstance(value, (list, tuple)):
            return [strip(v) for v in value]
        return value

    return json.dumps(strip(answer), sort_keys=True)


class Twins:
    """Twin games ``a`` and ``b`` served by one app, driven through its HTTP API."""

    def __init__(
        self, game: str, players: int, expansions: tuple[str, ...], seed: int, opponent: str
    ):
        self.rng = random.Random(seed)
        seat = self.rng.randrange(players)
        self.sessions = {
            gid: PlaySession(game, players, expansions, seat, [opponent], seed=seed, game_id=gid)
            for gid in "ab"
        }
        self.client = token_client(create_app(self.sessions))

    def get(self, gid: str) -> dict:
        answer = self.client.get(f"/api/games/{gid}")
        assert answer.status_code == 200
        return answer.get_json()

    def post(self, gid: str, what: str, body: dict) -> tuple[int, dict]:
        answer = self.client.post(f"/api/games/{gid}/{what}", json=body)
        return answer.status_code, answer.get_json()

    def same_move(self, where: str) -> bool:
        """The same move (by the same choice) in both; K must be shown the same in both.
        False once the game is over."""
        payload = self.get("a")
        if payload["is_over"]:
            return False
        pick = self.rng.random()
        answers = []
        for gid in "ab":
            state = self.get(gid)
            moves = offered_moves(state)
            move = moves[int(pick * len(moves))]
            answers.append(self.post(gid, "action", {"seat": state["seat"], "action": move}))
        assert _seen(answers[0]) == _seen(answers[1]), f"seat view differs {where}"
        return True

    def play_ahead(self, gid: str, moves: int) -> bool:
        """``moves`` random moves of ``gid`` alone; False if the game ended meanwhile."""
        for _ in range(moves):
            state = self.get(gid)
            move = self.rng.choice(offered_moves(state))
            status, answer = self.post(gid, "action", {"seat": state["seat"], "action": move})
            assert status == 200, answer
            if answer["state"]["is_over"]:
                return False
        return True

    def undo_to(self, gid: str, log_length: int) -> dict:
        """Undo in ``gid`` until the seat's decisions after ``log_length`` are taken back."""
        session = self.sessions[gid]
        answer: dict = {}
        while [d for d in session.log[log_length:] if d.player == session.seat]:
            status, answer = self.post(gid, "undo", {"seat": session.seat})
            assert status == 200, answer
        return answer


def play_twins_with_undos(
    config, seed: int, cycles: int = 3, tail: int = 12, opponent: str = "random"
) -> int:
    """Raises ``AssertionError`` if an undo lets seat K's view depend on the hidden order;
    returns the number of undo rounds compared."""
    twins = Twins(*config, seed, opponent)
    a, b = twins.sessions["a"], twins.sessions["b"]
    rng = twins.rng
    for cycle in range(cycles):
        for _ in range(rng.randrange(1, 6)):
            if not twins.same_move("after undo" if cycle else "(no undo yet)"):
                return cycle
        _deal_unseen_differently(b, random.Random(rng.getrandbits(64)))
        assert _hidden(a) != _hidden(b), "the twins must differ in what K has not seen"
        before = twins.get("a")
        assert _seen(before) == _seen(twins.get("b"))
        ahead = rng.randrange(1, 4)
        if not (twins.play_ahead("a", ahead) and twins.play_ahead("b", ahead)):
            return cycle  # a game ended while playing ahead: nothing left to undo
        undone = [twins.undo_to(gid, len(before["log"])) for gid in "ab"]
        assert _seen(undone[0]) == _seen(undone[1]), f"seat view differs after undo #{cycle}"
        back = {k: v for k, v in undone[0]["state"].items() if k != "undos"}
        assert _seen(back) == _seen({k: v for k, v in before.items() if k != "undos"})
    for _ in range(tail):
        if not twins.same_move("after undo"):
            break
    return cycles


@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_after_an_undo_the_seat_sees_nothing_of_the_hidden_order(config):
    assert play_twins_with_undos(config, seed=1000 + CONFIGS.index(config)) == 3


@pytest.mark.parametrize("config", [("carcassonne", 2, ("messages",)), ("cardcassonne", 3, ())])
def test_undo_against_search_agents_reveals_nothing(config):
    """Search agents (tile MCTS resamples the pile, card ISMCTS determinizes the other hands)
    are reseeded by undo: they cannot replay a line the person has seen either."""
    assert play_twins_with_undos(config, seed=7, opponent="mcts:8", tail=6) == 3


@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_a_planted_undo_that_keeps_the_order_is_caught(config, monkeypatch):
    monkeypatch.setattr(PlaySession, "redraw", lambda self, state: state)
    with pytest.raises(AssertionError, match="seat view differs"):
        play_twins_with_undos(config, seed=1000 + CONFIGS.index(config))
