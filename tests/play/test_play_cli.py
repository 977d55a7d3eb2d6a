"""Terminal play, the play/replay command lines, ``arena --save-games`` and the card env's
seat view render."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from carcassonne_rl.cli.main import main
from carcassonne_rl.envs import cardcassonne_v0
from carcassonne_rl.games.carcassonne import load_json as tile_load_json
from carcassonne_rl.games.cardcassonne import KIND_NAMES, load_json
from carcassonne_rl.play.session import PlaySession, ReplaySession
from carcassonne_rl.play.tui import run_tui


def _scripted(lines):
    """A ``read`` that gives ``lines`` then always '0' (the first legal move)."""
    queue = list(lines)

    def read(prompt: str) -> str:
        return queue.pop(0) if queue else "0"

    return read


@pytest.mark.parametrize("game", ["carcassonne", "cardcassonne"])
def test_tui_plays_a_whole_game(game, tmp_path):
    session = PlaySession(game, 2, (), 0, ["greedy"], seed=3, save_dir=tmp_path)
    out: list[str] = []
    commands = ["help", "fly away", "999", "0", "undo", "undo"]
    assert run_tui(session, _scripted(commands), out.append) == 0
    text = "\n".join(out)
    assert session.state.is_over
    assert "commands:" in text
    assert "! cannot read the move 'fly away'" in text
    assert "! there is no move 999" in text
    assert "undone." in text and "! nothing to undo" in text
    assert "game over: scores" in text
    saved = next(tmp_path.glob("*.json"))
    assert f"record saved to {saved}" in text
    if game == "cardcassonne":
        # only the own hand is listed; the other seat's hand is a size
        assert "seat 1: score" in text and re.search(r"seat 1: .*hand \d+ cards", text)
        assert not re.search(r"seat 1: .*hand \[", text)
        assert load_json(saved.read_text()).to_json() == session.state.to_json()


def test_tui_quits_on_eof():
    session = PlaySession("carcassonne", 2, (), 0, ["random"], seed=1)

    def read(prompt: str) -> str:
        raise EOFError

    out: list[str] = []
    assert run_tui(session, read, out.append) == 0
    assert out[-1] == "bye"
    assert not session.state.is_over


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["play", "--game", "go"], "invalid choice"),
        (["play", "--players", "7"], "invalid choice"),
        (["play", "--expansions", "rivers"], "unknown expansions"),
        (["play", "--port", "70000"], "port must be 0-65535"),
        (["play", "--seat", "-1"], "must be >= 0"),
    ],
)
def test_play_rejects_bad_arguments(argv, words, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["play", "--seat", "2", "--tui"], "seat must be 0-1"),
        (["play", "--opponents", "nobody", "--tui"], "bad opponent"),
        (["play", "--game", "cardcassonne", "--expansions", "messages"], "tile game"),
    ],
)
def test_play_reports_bad_settings_without_a_traceback(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and "Traceback" not in err


def test_replay_reports_bad_files_without_a_traceback(tmp_path, capsys):
    missing = tmp_path / "missing.json"
    assert main(["replay", str(missing), "--no-browser"]) == 2
    assert "cannot read" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert main(["replay", str(broken), "--no-browser"]) == 2
    assert "is not JSON" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something else"}))
    assert main(["replay", str(other), "--no-browser"]) == 2
    assert "not a game record" in capsys.readouterr().err


@pytest.mark.parametrize("game", ["carcassonne", "cardcassonne"])
def test_arena_save_games_writes_replayable_records(game, tmp_path, capsys):
    out = tmp_path / "arena"
    argv = ["arena", "--game", game, "--agents", "random,greedy", "--games", "1"]
    argv += ["--workers", "1", "--out", str(out), "--save-games", "--no-progress"]
    assert main(argv) == 0
    results = json.loads((out / "arena.json").read_text())["results"]
    records = sorted((out / "games").glob("*.json"))
    assert len(records) == len(results) == 2
    for path, result in zip(records, results, strict=True):
        replay = ReplaySession(json.loads(path.read_text()), path.name)
        final = replay.payload(replay.steps)
        assert final["is_over"] and final["scores"] == result["scores"]
        assert "record" not in result


@pytest.mark.parametrize("game", ["carcassonne", "cardcassonne"])
def test_a_128_bit_seed_deals_the_same_games_again(game, tmp_path, capsys):
    """Without --seed the deal seed is 128 bits; given back as --seed it replays exactly,
    through the report, the records (JSON) and play."""
    seed = 2**127 + 12345
    outs = []
    for run in ("a", "b"):
        out = tmp_path / run
        argv = ["arena", "--game", game, "--agents", "random,random", "--games", "1", "--seed"]
        argv += [str(seed), "--workers", "1", "--out", str(out), "--save-games", "--no-progress"]
        argv += ["--bootstrap", "0"]
        assert main(argv) == 0
        outs.append(out)
    assert f"deal seed: {seed} " in capsys.readouterr().out
    assert f"`--seed {seed}` plays these deals again" in (outs[0] / "arena.md").read_text()
    reports = [json.loads((o / "arena.json").read_text()) for o in outs]
    timeless = [
        [{k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds")} for r in x["results"]]
        for x in reports
    ]
    assert reports[0]["seed"] == seed and timeless[0] == timeless[1]
    records = [sorted((o / "games").glob("*.json")) for o in outs]
    assert [p.read_text() for p in records[0]] == [p.read_text() for p in records[1]]
    record = json.loads(records[0][0].read_text())
    assert record["config"]["seed"] > 2**127  # the deal's seed, kept whole in the record
    load = tile_load_json if game == "carcassonne" else load_json
    assert load(records[0][0].read_text()).to_json() == records[0][0].read_text()
    # play: the same seed deals the same game, a fresh one is 128 bits
    games = [PlaySession(game, 3, (), 0, ["random"], seed=seed) for _ in range(2)]
    assert games[0].state.to_json() == games[1].state.to_json()
    assert json.loads(games[0].state.to_json())["config"]["seed"] == seed
    fresh = PlaySession(game, 3, (), 0, ["random"])
    assert 0 <= fresh.seed < 2**128 and fresh.state.to_json() != games[0].state.to_json()


def test_card_env_renders_one_seat_view():
    env = cardcassonne_v0.env(players=3, render_mode="ansi", render_view=1)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(30):  # into the first round, cards face down on the table
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = env.unwrapped.game_state
    seat_text = env.render()
    spectator = cardcassonne_v0.env(players=3, render_mode="ansi")
    spectator.reset(seed=4)
    spectator.unwrapped.game_state = state
    full_text = spectator.render()
    own = " ".join(KIND_NAMES[k] for k, c in enumerate(state.hands[1]) for _ in range(c))
    other = " ".join(KIND_NAMES[k] for k, c in enumerate(state.hands[0]) for _ in range(c))
    assert f"hand [{own}]" in seat_text and f"hand [{other}]" in full_text
    assert f"hand {state.hand_size[0]} cards" in seat_text and "hand [" + other not in seat_text
    down_by_others = sum(1 for r in state.rows for e in r if e >= 32 and (e >> 5) - 1 != 1)
    assert down_by_others and seat_text.count("??'") == down_by_others
    assert "??" not in full_text
    picture = cardcassonne_v0.env(players=3, render_mode="rgb_array", render_view=1)
    picture.reset(seed=4)
    picture.unwrapped.game_state = state
    image = picture.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.std() > 10
    with pytest.raises(ValueError, match="render_view"):
        cardcassonne_v0.env(players=3, render_view=3)
