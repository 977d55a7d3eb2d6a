"""Expert iteration for the card game: teacher games of a card search (every option of a
turn recorded, the search's values on its candidates), the fit of the search-value network,
the ``expert-iteration --game cardcassonne`` command and the same games on Ray."""

from __future__ import annotations

import json

import numpy as np
import pytest

from carcassonne_rl.agents.card.value import NUM_SEARCH_INPUTS, CardSearchValueAgent
from carcassonne_rl.cli.main import main
from carcassonne_rl.runtime.seeds import teacher_deal
from carcassonne_rl.training.expert_iteration.card_fit import fit_card_net
from carcassonne_rl.training.expert_iteration.card_teacher import play_card_teacher_game
from carcassonne_rl.training.expert_iteration.positions import collect, load_positions

TEACHER = "heuristic:search=3:3"


def _decisions(rows: dict) -> list[np.ndarray]:
    bounds = np.flatnonzero(np.diff(rows["decision"])) + 1
    return np.split(np.arange(len(rows["decision"])), bounds)


def test_teacher_rows_hold_every_option_and_the_searchs_values_of_its_candidates() -> None:
    rows = play_card_teacher_game(TEACHER, deal=31, seed=2, players=3, decisions=8)
    again = play_card_teacher_game(TEACHER, deal=31, seed=2, players=3, decisions=8)
    for key in rows:  # the same game for the same seeds
        assert np.array_equal(rows[key], again[key], equal_nan=True), key
    assert rows["x"].shape == (len(rows["target"]), NUM_SEARCH_INPUTS)
    assert np.allclose(rows["x"][:, -1], rows["prior"], atol=1e-6)  # the heuristic's margin
    assert set(rows["players"].tolist()) == {3} and np.isnan(rows["network"]).all()
    decisions = _decisions(rows)
    assert len(decisions) == 8
    searched_somewhere = 0
    for idx in decisions:
        assert len(idx) >= 2 and rows["chosen"][idx].sum() == 1
        target, prior = rows["target"][idx], rows["prior"][idx]
        searched = np.isfinite(target)
        assert searched.sum() <= 3
        if searched.sum() < 2:
            continue
        searched_somewhere += 1
        # the search's candidates are the heuristic's best, and it plays its best value
        assert prior[searched].min() >= prior[~searched].max() - 1e-9 if (~searched).any() else True
        chosen = int(np.flatnonzero(rows["chosen"][idx])[0])
        assert searched[chosen] and target[chosen] >= target[searched].max() - 1e-9
    assert searched_somewhere >= 4


def _synthetic(games: int, rng: np.random.Generator) -> dict:
    """Teacher-like rows whose search value is a fixed function of the inputs (4 options a
    decision, 3 searched, the search's best chosen)."""
    w = rng.normal(0, 1, NUM_SEARCH_INPUTS) / np.sqrt(NUM_SEARCH_INPUTS)
    parts: dict[str, list] = {k: [] for k in ("x", "target", "prior", "network", "decision",
                                              "chosen", "game")}  # fmt: skip
    decision = 0
    for g in range(games):
        for _ in range(20):
            x = rng.normal(0, 1, (4, NUM_SEARCH_INPUTS)).astype(np.float32)
            value = np.maximum(x @ w, 0) - 0.5 * x[:, 0]
            target = value.copy()
            target[3] = np.nan
            parts["x"].append(x)
            parts["target"].append(target)
            parts["prior"].append(x[:, -1])
            parts["network"].append(np.full(4, np.nan))
            parts["decision"].append(np.full(4, decision))
            parts["chosen"].append(np.arange(4) == np.nanargmax(target))
            parts["game"].append(np.full(4, g))
            decision += 1
    out = {k: np.concatenate(v) for k, v in parts.items()}
    out["files"] = games
    return out


def test_the_fit_learns_the_searchs_values_on_held_out_games() -> None:
    data = _synthetic(60, np.random.default_rng(0))
    reports: list[dict] = []
    net, last = fit_card_net(data, hidden=(32,), epochs=30, validation=0.2, seed=1,
                             on_epoch=lambda e, r: reports.append(r))  # fmt: skip
    first = reports[0]
    assert last["validation_mse"] < 0.5 * first["validation_mse"]
    assert last["network"]["agree_searched"] > first["network"]["agree_searched"] + 0.2
    assert last["network"]["regret"] < first["network"]["regret"]
    assert net.meta["kind"] == "card_search_value" and net.meta["candidates"] == 3
    # the numpy network computes what the torch model reported, on the held-out rows too
    # (values and targets centred per decision: what the fit learns, module doc)
    values = net.forward(data["x"])[:, 0]
    err, rows = 0.0, 0
    for idx in _decisions(data):
        s = idx[np.isfinite(data["target"][idx])]
        d = values[s] - data["target"][s]
        err += float(((d - d.mean()) ** 2).sum())
        rows += len(s)
    assert err / rows < 0.5 * first["validation_mse"]


def test_fit_refuses_rows_of_another_width() -> None:
    data = _synthetic(3, np.random.default_rng(1))
    data["x"] = data["x"][:, :10]
    with pytest.raises(ValueError, match="inputs per option"):
        fit_card_net(data, epochs=1)


def test_expert_iteration_command_plays_fits_and_writes_a_playable_network(tmp_path, capsys):
    folder, out = tmp_path / "teacher", tmp_path / "student.npz"
    argv = ["expert-iteration", str(folder), "--game", "cardcassonne", "--games", "2",
            "--tables", "2", "--teacher", "heuristic:search=2:2", "--epochs", "2",
            "--validation", "0.5", "--no-progress"]  # fmt: skip
    assert main([*argv, "--out", str(out), "--log", str(tmp_path / "log")]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert [r["epoch"] for r in lines] == [0, 1, 2] and lines[-1]["train_rows"] > 50
    logged = (tmp_path / "log" / "fit_log.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in logged] == lines
    assert (tmp_path / "log" / "fit.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((folder / "positions.json").read_text())["game"] == "cardcassonne"
    assert load_positions(folder)["files"] == 2
    # fitted again on the same games and a copy of them as earlier teacher games: no game is
    # played, and every row is trained on twice as often
    copy = tmp_path / "earlier"
    copy.mkdir()
    for game in folder.glob("game_*.npz"):
        (copy / game.name).write_bytes(game.read_bytes())
    again = [
        *argv[:2],
        "--game",
        "cardcassonne",
        "--games",
        "0",
        "--epochs",
        "1",
        "--validation",
        "0",
        "--more-positions",
        str(copy),
        "--out",
        str(tmp_path / "b.npz"),
    ]
    assert main(again) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    searched = int(np.isfinite(load_positions(folder)["target"]).sum())
    assert rows[-1]["train_rows"] == 2 * searched
    # --games 1 fits on that game alone, though the folder holds two
    one = [*argv[:5], "1", *argv[6:10], "--epochs", "1", "--validation", "0",
           "--out", str(tmp_path / "c.npz")]  # fmt: skip
    assert main(one) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    with np.load(folder / f"game_{teacher_deal(0, 0)}.npz") as first:
        assert rows[-1]["train_rows"] == int(np.isfinite(first["target"]).sum()) < searched
    from carcassonne_rl.agents import make_agent

    assert isinstance(make_agent(f"policy:{out}", "cardcassonne"), CardSearchValueAgent)
    # a tile option, a bad teacher: one message each, nothing written
    for extra, message in ((["--target", "blend"], "tile game's fine-tuning"),
                           (["--teacher", "greedy"], "not a card search")):  # fmt: skip
        assert main([*argv, *extra, "--out", str(tmp_path / "other.npz")]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "other.npz").exists()


def test_card_teacher_games_on_ray_are_the_local_pools(tmp_path, monkeypatch):
    ray = pytest.importorskip("ray", reason='Ray is not installed (pip install -e ".[ray]")')
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    kwargs = dict(placements=3, game="cardcassonne", tables=(2, 3))
    assert collect(tmp_path / "local", 3, TEACHER, 7, workers=2, **kwargs) == 3
    assert collect(tmp_path / "ray", 3, TEACHER, 7, address="local", **kwargs) == 3
    assert not ray.is_initialized()
    local, remote = (
        sorted((tmp_path / "local").glob("game_*")),
        sorted((tmp_path / "ray").glob("game_*")),
    )
    assert [p.name for p in local] == [p.name for p in remote] and len(local) == 3
    for a, b in zip(local, remote, strict=True):
        with np.load(a) as x, np.load(b) as y:
            assert x.files == y.files
            for k in x.files:
                assert np.array_equal(x[k], y[k], equal_nan=True), (a.name, k)
