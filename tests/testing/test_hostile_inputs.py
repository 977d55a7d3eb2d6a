"""Hostile inputs: each gets one clear error naming what was wrong, and nothing changes.

Env ``step`` (type-invalid actions raise ``InvalidActionError``; an illegal in-range index
ends the game with -1, the classic-wrapper rule), engine ``apply_code``, records
(``load_json``: ``SavedGameError``, plus a hypothesis property test over malformed
records) and CLI arguments (argparse exits with status 2 and names the argument).
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from carcassonne_rl.cli.main import main
from carcassonne_rl.envs import carcassonne_v0, cardcassonne_v0
from carcassonne_rl.envs.classic_wrapper import InvalidActionError
from carcassonne_rl.games import carcassonne as tile
from carcassonne_rl.games import cardcassonne as card

ENVS = {
    "tile": lambda: carcassonne_v0.env(players=3, expansions=("messages", "labyrinth")),
    "card": lambda: cardcassonne_v0.env(players=3),
}


def _env_snapshot(env) -> tuple:
    raw = env.unwrapped
    return (
        tuple(raw.game_state.history),
        raw.game_state.to_json(),
        raw.agent_selection,
        tuple(raw.agents),
        dict(raw.terminations),
        dict(raw.truncations),
        dict(raw._cumulative_rewards),
    )


def _env_after(game: str, steps: int):
    env = ENVS[game]()
    env.reset(seed=5)
    rng = random.Random(5)
    for _ in range(steps):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env


BAD_ACTIONS = {
    "float": lambda legal, n: float(legal),
    "numpy float": lambda legal, n: np.float64(legal),
    "integral float": lambda legal, n: 3.0,
    "None while alive": lambda legal, n: None,
    "negative": lambda legal, n: -1,
    "numpy negative": lambda legal, n: np.int64(-3),
    "out of range": lambda legal, n: n,
    "huge": lambda legal, n: 10**30,
    "bool": lambda legal, n: True,
    "string": lambda legal, n: str(legal),
    "0-d array": lambda legal, n: np.array(legal),
    "list": lambda legal, n: [legal],
}


@pytest.mark.parametrize("game", sorted(ENVS))
@pytest.mark.parametrize("kind", sorted(BAD_ACTIONS))
def test_type_invalid_env_actions_raise_and_change_nothing(game: str, kind: str) -> None:
    env = _env_after(game, 7)
    obs, *_ = env.last()
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    n = env.action_space(env.agent_selection).n
    before = _env_snapshot(env)
    action = BAD_ACTIONS[kind](legal, n)
    with pytest.raises(InvalidActionError, match=env.agent_selection) as error:
        env.step(action)
    assert isinstance(error.value, ValueError) and isinstance(error.value, AssertionError)
    assert _env_snapshot(env) == before
    env.step(np.int64(legal))  # a numpy integer is a valid action; the game goes on
    assert len(env.unwrapped.game_state.history) == len(before[0]) + 1


@pytest.mark.parametrize("game", sorted(ENVS))
def test_in_range_illegal_numpy_index_ends_the_game_with_minus_one(game: str) -> None:
    env = _env_after(game, 4)
    obs, *_ = env.last()
    illegal = np.int32(np.flatnonzero(obs["action_mask"] == 0)[-1])
    maker = env.agent_selection
    history = list(env.unwrapped.game_state.history)
    env.step(illegal)
    assert env.unwrapped.game_state.history == history  # the engine never saw it
    assert env.infos[maker]["illegal_action"] == int(illegal)
    assert env._cumulative_rewards[maker] == -1.0
    # a terminated agent may only step None: anything else raises, nothing changes
    before = _env_snapshot(env)
    with pytest.raises(InvalidActionError, match="only step with None"):
        env.step(0)
    assert _env_snapshot(env) == before
    while env.agents:
        env.step(None)


@pytest.mark.parametrize("game", sorted(ENVS))
def test_engine_refuses_illegal_codes_without_change(game: str) -> None:
    state = _env_after(game, 9).unwrapped.game_state
    legal = set(state.legal_action_codes().tolist())
    before = state.to_json(), state.scores.tolist(), state.phase
    codes = [c for c in (-1, 0, 1, 5, 205, 206, 10**6, 2**31 - 1) if c not in legal]
    for code in codes:
        with pytest.raises(ValueError, match="illegal|out of range|not"):
            state.apply_code(code)
        assert (state.to_json(), state.scores.tolist(), state.phase) == before


# --------------------------------------------------------------------------- records
def _played(game: str, actions: int):
    rng = random.Random(11)
    if game == "tile":
        config = tile.GameConfig(players=3, seed=8, expansions=("messages", "labyrinth"))
        state = tile.new_game(config)
    else:
        state = card.new_game(card.GameConfig(players=3, seed=8))
    for _ in range(actions):
        codes = state.legal_action_codes()
        state.apply_code(int(codes[rng.randrange(len(codes))]))
    return state


MODULES = {"tile": tile, "card": card}
RECORD_60 = {game: _played(game, 60).to_json() for game in MODULES}


def _tampered(game: str, change) -> str:
    record = json.loads(RECORD_60[game])
    change(record)
    return json.dumps(record)


def _set_action(index: int, value):
    def change(record: dict) -> None:
        record["actions"][index] = value

    return change


def _set_config(key: str, value):
    def change(record: dict) -> None:
        record["config"][key] = value

    return change


def _repeat_action(index: int):
    """The action at ``index`` played again right after it (the other phase, or an
    occupied square): illegal in the tile game."""

    def change(record: dict) -> None:
        record["actions"][index + 1] = record["actions"][index]

    return change


def _swap(i: int, j: int):
    def change(record: dict) -> None:
        a = record["actions"]
        a[i], a[j] = a[j], a[i]

    return change


BAD_RECORDS = {
    "truncated text": (lambda g: RECORD_60[g][: len(RECORD_60[g]) // 2], "not valid JSON"),
    "nested too deeply": (lambda g: "[" * 100_000, "nested too deeply"),
    "a 5000-digit number": (lambda g: '{"format": ' + "9" * 5000 + "}", "not valid JSON"),
    "not an object": (lambda g: "[1, 2]", "object"),
    "reordered actions": (lambda g: _tampered(g, _swap(30, 31)), "#30|\\[30\\]"),
    "illegal action in the middle": (
        lambda g: _tampered(g, _repeat_action(24) if g == "tile" else _set_action(25, "ten")),
        "#25|\\[25\\]",
    ),
    "huge action number": (lambda g: _tampered(g, _set_action(25, 10**40)), "#25|\\[25\\]"),
    "huge player count": (lambda g: _tampered(g, _set_config("players", 10**40)), "players"),
    "player count 1": (lambda g: _tampered(g, _set_config("players", 1)), "players"),
    "float seed": (lambda g: _tampered(g, _set_config("seed", 1.5)), "seed"),
    "unknown config field": (lambda g: _tampered(g, _set_config("dragons", True)), "dragons"),
    "actions not a list": (
        lambda g: _tampered(g, lambda r: r.__setitem__("actions", "G 0,-1 r1")),
        "actions",
    ),
    "missing config": (lambda g: _tampered(g, lambda r: r.pop("config")), "config"),
}


@pytest.mark.parametrize("game", sorted(MODULES))
@pytest.mark.parametrize("kind", sorted(BAD_RECORDS))
def test_bad_records_raise_saved_game_error_naming_the_problem(game: str, kind: str) -> None:
    make, match = BAD_RECORDS[kind]
    with pytest.raises(MODULES[game].SavedGameError, match=match):
        MODULES[game].load_json(make(game))


@pytest.mark.parametrize("game", sorted(MODULES))
def test_a_truncated_action_list_loads_the_earlier_position(game: str) -> None:
    record = json.loads(RECORD_60[game])
    record["actions"] = record["actions"][:37]
    loaded = MODULES[game].load_json(json.dumps(record))
    assert loaded.to_json() == _played(game, 37).to_json()


def _independent_replay(game: str, record: dict):
    """The record replayed with the public API, action by action."""
    if game == "tile":
        config = tile.GameConfig.from_dict(record["config"])
        state = tile.new_game(config, record["draw_order"], record["message_order"])
        for text in record["actions"]:
            state.apply(text)
    else:
        cfg = record["config"]
        state = card.new_game(card.GameConfig(cfg["players"], cfg["seed"]), record["card_order"])
        for action in record["actions"]:
            state.apply(action)
    return state


def _mutations(game: str):
    """A strategy of (description, JSON text) of randomly damaged records."""
    base = json.loads(RECORD_60[game])
    n = len(base["actions"])
    junk = st.one_of(
        st.integers(min_value=-(10**30), max_value=10**30),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=12),
        st.none(),
        st.booleans(),
        st.lists(st.integers(), max_size=3),
        st.sampled_from(base["actions"]),
    )
    index = st.integers(min_value=0, max_value=n - 1)
    ops = st.one_of(
        st.tuples(st.just("truncate"), index),
        st.tuples(st.just("swap"), index, index),
        st.tuples(st.just("delete"), index),
        st.tuples(st.just("duplicate"), index, index),
        st.tuples(st.just("replace action"), index, junk),
        st.tuples(st.just("config"), st.sampled_from(sorted(base["config"]) + ["extra"]), junk),
        st.tuples(st.just("drop key"), st.sampled_from(sorted(base))),
        st.tuples(st.just("top key"), st.sampled_from(sorted(base)), junk),
        st.tuples(st.just("cut text"), st.integers(min_value=0, max_value=len(RECORD_60[game]))),
    )
    return st.lists(ops, min_size=1, max_size=3)


def _apply_mutations(game: str, ops) -> str:
    record = json.loads(RECORD_60[game])
    text = None
    for op in ops:
        kind, *args = op
        actions = record.get("actions")
        if kind == "cut text":
            text = json.dumps(record)[: args[0]]
            break
        if kind == "drop key":
            record.pop(args[0], None)
        elif kind == "top key":
            record[args[0]] = args[1]
        elif kind == "config" and isinstance(record.get("config"), dict):
            record["config"][args[0]] = args[1]
        elif isinstance(actions, list) and actions:
            i = args[0] % len(actions)
            if kind == "truncate":
                del actions[i:]
            elif kind == "swap":
                j = args[1] % len(actions)
                actions[i], actions[j] = actions[j], actions[i]
            elif kind == "delete":
                del actions[i]
            elif kind == "duplicate":
                actions.insert(args[1] % len(actions), actions[i])
            elif kind == "replace action":
                actions[i] = args[1]
    return json.dumps(record) if text is None else text


@pytest.mark.parametrize("game", sorted(MODULES))
def test_malformed_records_load_exactly_or_raise_saved_game_error(game: str) -> None:
    module = MODULES[game]

    @settings(
        max_examples=120,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(_mutations(game))
    def check(ops) -> None:
        text = _apply_mutations(game, ops)
        try:
            loaded = module.load_json(text)
        except module.SavedGameError:
            return  # the documented error; any other exception fails the test
        expected = _independent_replay(game, json.loads(text))
        assert loaded.to_json() == expected.to_json()
        assert loaded.scores.tolist() == expected.scores.tolist()
        assert loaded.legal_action_codes().tolist() == expected.legal_action_codes().tolist()
        assert module.load_json(loaded.to_json()).to_json() == loaded.to_json()

    check()


# --------------------------------------------------------------------------- CLI arguments
BAD_ARGUMENTS = [
    (["fuzz", "--players", "7"], "--players"),
    (["fuzz", "--players", "1"], "--players"),
    (["fuzz", "--decisions", "0"], "--decisions"),
    (["fuzz", "--decisions", "-5"], "--decisions"),
    (["fuzz", "--decisions", "1e6"], "--decisions"),
    (["fuzz", "--game", "chess"], "--game"),
    (["fuzz", "--expansions", "dragons"], "--expansions"),
    (["fuzz", "--seed", "x"], "--seed"),
    (["bench", "engine", "--seconds", "0"], "--seconds"),
    (["bench", "engine", "--players", "6"], "--players"),
    (["bench", "env", "--env", "chess_v0"], "--env"),
    (["train", "--timesteps", "-1", "--out", "x"], "--timesteps"),
    (["train", "--envs", "0", "--out", "x"], "--envs"),
    (["arena", "--game", "chess"], "--game"),
]


@pytest.mark.parametrize(
    ("argv", "flag"), BAD_ARGUMENTS, ids=[" ".join(a) for a, _ in BAD_ARGUMENTS]
)
def test_out_of_range_cli_arguments_exit_2_naming_the_flag(argv, flag, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert flag in capsys.readouterr().err


def test_fuzz_command_refuses_expansions_for_the_card_game(capsys) -> None:
    assert main(["fuzz", "--game", "cardcassonne", "--expansions", "messages"]) == 2
    assert "--expansions" in capsys.readouterr().err


def test_train_refuses_a_negative_checkpoint_count(tmp_path, capsys) -> None:
    assert main(["train", "--out", str(tmp_path), "--set", "keep_checkpoints=-1"]) == 2
    assert "keep_checkpoints must be >= 0" in capsys.readouterr().err
    assert not (tmp_path / "config.json").exists()
