"""Flags that say what they count: ``arena``/``evaluate --deals`` (``--games`` a deprecated
alias with a one-line note), ``train --timesteps`` (PPO's env steps) apart from
``--positions`` (the afterstate learner's)."""

from __future__ import annotations

import json

import pytest

from carcassonne_rl.cli.deals import GAMES_NOTE
from carcassonne_rl.cli.main import build_parser, main
from carcassonne_rl.cli.train import AFTERSTATE_POSITIONS, TIMESTEPS_NOTE

ARENA = ["arena", "--game", "cardcassonne", "--agents", "random,greedy", "--seed", "3",
         "--workers", "1", "--no-progress", "--bootstrap", "0"]  # fmt: skip


SETTINGS = ("game", "players", "agents", "opponents", "deals_per_lineup", "duplicate", "seed",
            "games", "games_resumed")  # fmt: skip


def _report(folder) -> dict:
    """A report's settings and its games (seats, scores, winners: games.csv), no timings."""
    data = json.loads((folder / "arena.json").read_text())
    return {**{k: data[k] for k in SETTINGS}, "csv": (folder / "games.csv").read_text()}


def test_arena_deals_and_its_deprecated_alias_play_the_same_games(tmp_path, capsys) -> None:
    assert main([*ARENA, "--deals", "2", "--out", str(tmp_path / "deals")]) == 0
    printed = capsys.readouterr()
    assert printed.err == ""  # no note for --deals
    assert "4 games: 2 deals per lineup x 2 seat rotations, 1 lineup" in printed.out
    assert main([*ARENA, "--games", "2", "--out", str(tmp_path / "games")]) == 0
    printed = capsys.readouterr()
    assert printed.err == GAMES_NOTE + "\n"  # one line, the only one on stderr
    assert "4 games: 2 deals per lineup" in printed.out
    deals, games = _report(tmp_path / "deals"), _report(tmp_path / "games")
    assert deals == games  # the same settings, deals and games
    assert deals["deals_per_lineup"] == 2 and deals["games"] == 4
    once = [*ARENA, "--deals", "3", "--no-duplicate", "--out", str(tmp_path / "once")]
    assert main(once) == 0
    assert "3 games: 3 deals per lineup (each deal once), 1 lineup" in capsys.readouterr().out


def test_arena_deals_and_games_together_are_refused(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main([*ARENA, "--deals", "2", "--games", "2", "--out", str(tmp_path / "x")])
    assert stop.value.code == 2
    assert "not allowed with argument --deals" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    args = build_parser().parse_args(["arena", "--agents", "random,greedy"])
    assert (args.deals, args.deprecated_games) == (10, False)  # the default


def test_a_match_started_with_games_resumes_with_deals(tmp_path, capsys) -> None:
    out = tmp_path / "m"
    assert main([*ARENA, "--games", "2", "--out", str(out)]) == 0
    before = _report(out)
    capsys.readouterr()
    assert main([*ARENA, "--deals", "2", "--out", str(out), "--resume"]) == 0
    printed = capsys.readouterr()
    assert f"resuming {out}: 4 of 4 games already played" in printed.out and printed.err == ""
    after = _report(out)
    assert after.pop("games_resumed") == 4 and before.pop("games_resumed") == 0
    assert after == before
    assert main([*ARENA, "--deals", "3", "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "deals_per_lineup: 2" in err and "3 now" in err and len(err.splitlines()) == 1


def test_evaluate_deals_and_its_deprecated_alias(tmp_path, capsys) -> None:
    args = build_parser().parse_args(["evaluate", "run", "--games", "3"])
    assert (args.deals, args.deprecated_games) == (3, True)
    args = build_parser().parse_args(["evaluate", "run", "--deals", "4"])
    assert (args.deals, args.deprecated_games) == (4, False)
    assert build_parser().parse_args(["evaluate", "run"]).deals == 100
    assert main(["evaluate", str(tmp_path / "missing"), "--games", "1"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == GAMES_NOTE and len(err) == 2 and "error:" in err[1]
    assert main(["evaluate", str(tmp_path / "missing"), "--deals", "1"]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


@pytest.fixture
def fake_trainers(monkeypatch):
    """Both trainers replaced by one that saves the run's config and state: what each run
    would have trained with, without training."""
    from carcassonne_rl.training.afterstate import trainer as afterstate_trainer
    from carcassonne_rl.training.ppo import selfplay

    seen = []

    def fake(config, out, resume=False, progress=True, **kwargs):
        seen.append(config)
        out.mkdir(parents=True, exist_ok=True)
        config.save(out / "config.json")
        (out / "trainer_state.json").write_text(json.dumps({"timesteps": config.timesteps}))

    monkeypatch.setattr(afterstate_trainer, "train_afterstate", fake)
    monkeypatch.setattr(selfplay, "train", fake)
    return seen


def test_train_budget_flags_have_one_unit_each(tmp_path, capsys, fake_trainers) -> None:
    from carcassonne_rl.training.afterstate.config import AfterstateConfig

    assert AfterstateConfig.timesteps == AFTERSTATE_POSITIONS  # the help's default
    common = ["train", "--no-progress", "--envs", "1"]
    tile = [*common, "--algo", "afterstate"]
    assert main([*tile, "--positions", "300", "--out", str(tmp_path / "a")]) == 0
    assert capsys.readouterr().err == ""
    assert main([*tile, "--timesteps", "400", "--out", str(tmp_path / "b")]) == 0
    assert capsys.readouterr().err == TIMESTEPS_NOTE + "\n"  # the deprecated alias
    card = [*common, "--game", "cardcassonne", "--set", "hidden=8"]
    assert main([*card, "--timesteps", "500", "--out", str(tmp_path / "c")]) == 0
    assert capsys.readouterr().err == ""
    assert [(type(c).__name__, c.timesteps) for c in fake_trainers] == [
        ("AfterstateConfig", 300), ("AfterstateConfig", 400), ("TrainConfig", 500)
    ]  # fmt: skip
    # resumed runs take their own unit: the afterstate run --positions, the PPO run --timesteps
    assert main([*common, "--resume", "--positions", "600", "--out", str(tmp_path / "a")]) == 0
    assert main([*common, "--resume", "--timesteps", "700", "--out", str(tmp_path / "c")]) == 0
    assert [c.timesteps for c in fake_trainers[3:]] == [600, 700]
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "cardcassonne", "--positions", "100"], "--positions is the budget of --algo"),
        (["--backend", "rllib", "--positions", "100"], "counts env steps: give --timesteps"),
        (["--algo", "afterstate", "--positions", "100", "--timesteps", "100"],
         "--timesteps and --positions both given"),
    ],
)  # fmt: skip
def test_a_budget_flag_in_the_wrong_unit_is_one_error(tmp_path, capsys, argv, message) -> None:
    out = tmp_path / "run"
    assert main(["train", "--no-progress", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()  # nothing written


def test_resuming_a_ppo_run_with_positions_is_one_error(tmp_path, capsys, fake_trainers) -> None:
    run = tmp_path / "c"
    card = ["train", "--no-progress", "--envs", "1", "--game", "cardcassonne", "--out", str(run)]
    assert main([*card, "--timesteps", "500"]) == 0
    saved = (run / "config.json").read_text()
    capsys.readouterr()
    assert main(["train", "--out", str(run), "--resume", "--positions", "900"]) == 2
    assert "--positions is the budget of --algo afterstate" in capsys.readouterr().err
    assert (run / "config.json").read_text() == saved


def test_train_help_names_each_unit(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--timesteps TIMESTEPS --algo ppo and --backend rllib: the budget in env steps" in text
    assert "--positions POSITIONS --algo afterstate: the budget in positions" in text
    assert f"(default: {AFTERSTATE_POSITIONS})" in text
