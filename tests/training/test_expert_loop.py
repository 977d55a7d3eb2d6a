"""``carcassonne-rl expert-loop``: teacher games, fit and gate per iteration with tiny
budgets; the next teacher searches the accepted network only; a cut loop goes on to the
same networks."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from helpers.benchmarks import benchmark

from carcassonne_rl.agents.pretrained import pretrained_path
from carcassonne_rl.agents.tile.afterstate import load_value_net
from carcassonne_rl.cli.main import main
from carcassonne_rl.training.expert_iteration import loop
from carcassonne_rl.training.expert_iteration.loop import (
    LoopConfig,
    load_config,
    run_loop,
    teacher_spec,
)

#: one candidate, no sampling, 6 placements a game, 2 games, 1 epoch, 2 gate deals
TINY = ["--games", "2", "--candidates", "1", "--samples", "0", "--placements", "6", "--epochs",
        "1", "--batch-size", "16", "--validation", "0", "--gate-deals", "2"]  # fmt: skip
CONFIG = LoopConfig(games=2, candidates=1, samples=0, placements=6, epochs=2, batch_size=16,
                    validation=0.0, gate_deals=1, gate_threshold=0.0, seed=3)  # fmt: skip


def _stored_network_values(folder) -> tuple[np.ndarray, np.ndarray]:
    """(afterstate features, the teacher's network value of each) of a teacher folder."""
    xs, values = [], []
    for path in sorted(folder.glob("game_*.npz")):
        with np.load(path) as z:
            xs.append(z["x"])
            values.append(z["network"])
    return np.concatenate(xs), np.concatenate(values)


def test_two_iterations_teach_with_the_accepted_network(tmp_path, capsys) -> None:
    run = (tmp_path / "run").resolve()
    argv = ["expert-loop", str(run), "--iterations", "2", *TINY, "--no-progress"]
    assert main([*argv, "--gate-threshold", "0"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()[:-1]]
    assert [e["iteration"] for e in events if "gate" in e] == [0, 1]
    summary = json.loads((run / "loop.json").read_text())
    first, second = summary["iterations"]
    net0, net1 = run / "iteration_0" / "network.npz", run / "iteration_1" / "network.npz"
    assert first["teacher"] == "pretrained:search=1:0" and first["accepted"]
    assert second["teacher"] == f"pretrained:search=1:0@{net0}"
    assert summary["best"] == str(net1)
    assert first["games"] == second["games"] == 2  # another teacher: its own games only
    held = json.loads((run / "iteration_1" / "teacher" / "positions.json").read_text())
    assert held == {"teacher": second["teacher"], "seed": 1, "keep": 8, "placements": 6}
    # the teacher's values were network 0's (then network 1 was fitted from it), before it
    # the shipped network's
    x, values = _stored_network_values(run / "iteration_1" / "teacher")
    np.testing.assert_allclose(values, load_value_net(net0).forward(x)[:, 0], rtol=1e-5)
    x, values = _stored_network_values(run / "iteration_0" / "teacher")
    shipped = load_value_net(pretrained_path("carcassonne"))
    np.testing.assert_allclose(values, shipped.forward(x)[:, 0], rtol=1e-5)
    assert load_value_net(net1).meta["expert_iteration"]["init_model"] == "network.npz"
    for k, against in ((0, "pretrained"), (1, f"policy:{net0}")):
        gate = json.loads((run / f"iteration_{k}" / "gate.json").read_text())
        assert gate["against"] == against and gate["games"] == 4 and gate["accepted"]
        assert len((run / f"iteration_{k}" / "fit_log.jsonl").read_text().splitlines()) == 2
    # the gate is the arena's head to head on the deals of seed 1000 + the loop's seed
    report = tmp_path / "arena"
    argv = ["arena", "--agents", f"policy:{net1},policy:{net0}", "--deals", "2", "--seed", "1000"]
    assert main([*argv, "--no-progress", "--bootstrap", "10", "--out", str(report)]) == 0
    entry = json.loads((report / "arena.json").read_text())["entries"][f"policy:{net1}"]
    gate = json.loads((run / "iteration_1" / "gate.json").read_text())
    assert (entry["games"], entry["win_rate"]) == (gate["games"], gate["win_rate"])
    assert entry["mean_margin"] == gate["mean_margin"]
    # the run keeps its settings: an option given again must agree
    assert main(["expert-loop", str(run), "--games", "3"]) == 2
    err = capsys.readouterr().err
    assert "other settings (games: 2 there, 3 here)" in err and len(err.strip().splitlines()) == 1
    assert main(["expert-loop", str(tmp_path / "other"), "--address", "127.0.0.1:1", *TINY]) == 2
    err = capsys.readouterr().err
    assert "Ray" in err and len(err.strip().splitlines()) == 1  # unreachable, or not installed


def test_the_gate_games_report_progress_off_a_terminal(tmp_path, capsys) -> None:
    """Without ``--no-progress`` the gate's games print progress lines (stderr, not a
    terminal here), as the teacher games do; with it, none."""
    run = (tmp_path / "run").resolve()
    argv = ["expert-loop", str(run), "--iterations", "1", *TINY, "--gate-threshold", "0"]
    assert main(argv) == 0
    err = capsys.readouterr().err.splitlines()
    gate = [line for line in err if line.startswith("gate: ")]
    assert gate and gate[-1].startswith("gate: 4/4 games (")  # 2 deals from both seats
    assert any(line.startswith("teacher games: 2/2 games") for line in err)
    assert main([*argv, "--iterations", "2", "--no-progress"]) == 0
    assert "gate: " not in capsys.readouterr().err


def test_teacher_games_take_the_loops_variants(tmp_path, capsys) -> None:
    from carcassonne_rl.training.expert_iteration.positions import teacher_deal

    run = tmp_path / "run"
    argv = ["expert-loop", str(run), *TINY, "--variants", "base,messages", "--no-progress"]
    assert main(argv) == 0
    capsys.readouterr()
    teacher = run / "iteration_0" / "teacher"
    held = json.loads((teacher / "positions.json").read_text())
    assert held["variants"] == ["base", "messages"]
    assert json.loads((run / "loop.json").read_text())["config"]["variants"] == ["base", "messages"]
    seed = json.loads((run / "loop.json").read_text())["config"]["seed"]
    flags = []  # the messages global of each game's rows: game 0 the base game, game 1 messages
    for g in range(2):
        with np.load(
            teacher / f"game_{teacher_deal(loop.seeds.expert_loop_seed(seed, 0), g)}.npz"
        ) as z:
            flags.append(set(z["x"][:, -2].tolist()))
    assert flags == [{0.0}, {1.0}]


def test_a_rejected_network_does_not_teach(tmp_path, monkeypatch) -> None:
    real_gate = loop.gate
    calls = []

    def reject_first(candidate, best, config, workers=1, address=None, progress=False):
        result = real_gate(candidate, best, config, workers, address, progress)
        calls.append(best)
        return dict(result, accepted=len(calls) > 1)  # the first candidate is rejected

    monkeypatch.setattr(loop, "gate", reject_first)
    run = (tmp_path / "run").resolve()
    config = dataclasses.replace(CONFIG, epochs=1)
    summary = run_loop(run, 2, load_config(run, dataclasses.asdict(config)))
    first, second = summary["iterations"]
    assert not first["accepted"] and first["best"] is None
    assert second["teacher"] == "pretrained:search=1:0" and calls == [None, None]
    # the same network taught both iterations: the second fit takes both iterations' games
    assert (first["games"], second["games"]) == (2, 4)
    assert second["placements"] == 2 * first["placements"]
    net1 = load_value_net(run / "iteration_1" / "network.npz")
    assert net1.meta["expert_iteration"]["init_model"] == "carcassonne_2p.npz"
    assert second["accepted"] and summary["best"] == str(run / "iteration_1" / "network.npz")
    assert json.loads((run / "iteration_0" / "gate.json").read_text())["accepted"] is False


class CutError(Exception):
    """A loop stopped from outside."""


def test_a_cut_loop_goes_on_to_the_same_networks(tmp_path) -> None:
    whole, cut = (tmp_path / "whole").resolve(), (tmp_path / "cut").resolve()
    run_loop(whole, 2, load_config(whole, dataclasses.asdict(CONFIG)))
    load_config(cut, dataclasses.asdict(CONFIG))

    def stop_in_the_fit(event: dict) -> None:  # before iteration 0's network is written
        if event.get("fit", {}).get("epoch") == 2:
            raise CutError

    with pytest.raises(CutError):
        run_loop(cut, 2, CONFIG, on_event=stop_in_the_fit)
    assert len(list((cut / "iteration_0" / "teacher").glob("game_*.npz"))) == 2
    assert not (cut / "iteration_0" / "network.npz").exists()
    games: list[int] = []

    def stop_after_a_game(done: int, total: int) -> None:  # iteration 1's first game
        games.append(done)
        raise CutError

    with pytest.raises(CutError):
        run_loop(cut, 2, CONFIG, on_game=stop_after_a_game)
    assert (cut / "iteration_0" / "gate.json").exists() and games == [1]
    summary = run_loop(cut, 2, CONFIG, on_game=lambda done, total: games.append(done))
    assert games == [1, 2]  # iteration 0 and iteration 1's first game are not played again
    for k in range(2):
        a, b = whole / f"iteration_{k}", cut / f"iteration_{k}"
        for name in ("network.npz",):
            mine, theirs = load_value_net(a / name), load_value_net(b / name)
            for (w1, b1), (w2, b2) in zip(mine.layers, theirs.layers, strict=True):
                np.testing.assert_array_equal(w1, w2)
                np.testing.assert_array_equal(b1, b2)
        gates = [json.loads((f / "gate.json").read_text()) for f in (a, b)]
        assert {k: v for k, v in gates[0].items() if k not in ("candidate", "against")} == {
            k: v for k, v in gates[1].items() if k not in ("candidate", "against")
        }
    assert [e["accepted"] for e in summary["iterations"]] == [True, True]


#: the card game: 2-player tables, 3 recorded decisions a game, search=2:2, 1 epoch, 1 deal
CARD = ["--game", "cardcassonne", "--games", "2,1", "--placements", "3", "--tables", "2",
        "--worlds", "2", "--candidates", "2", "--epochs", "1", "--validation", "0",
        "--gate-deals", "1", "--gate-threshold", "0", "--no-progress"]  # fmt: skip


def _searched_rows(folder) -> int:
    """The options the search valued in a folder of card teacher games."""
    total = 0
    for path in folder.glob("game_*.npz"):
        with np.load(path) as z:
            total += int(np.isfinite(z["target"]).sum())
    return total


def test_a_card_loop_fits_on_every_iteration_so_far(tmp_path, capsys) -> None:
    from carcassonne_rl.agents.card.value import load_card_net

    run = (tmp_path / "run").resolve()
    assert main(["expert-loop", str(run), "--iterations", "2", *CARD]) == 0
    assert "the teacher's network: " + str(run / "iteration_1" / "network.npz") in (
        capsys.readouterr().out.splitlines()[-1])  # fmt: skip
    summary = json.loads((run / "loop.json").read_text())
    first, second = summary["iterations"]
    net0, net1 = run / "iteration_0" / "network.npz", run / "iteration_1" / "network.npz"
    assert first["teacher"] == "heuristic:search=2:2:1:1" and first["accepted"]
    assert second["teacher"] == f"pretrained:search=2:2:1:1@{net0}"
    held = json.loads((run / "iteration_1" / "teacher" / "positions.json").read_text())
    assert held == {"teacher": second["teacher"], "seed": 1, "keep": 8, "game": "cardcassonne",
                    "tables": [2], "placements": 3}  # fmt: skip
    assert summary["config"]["tables"] == [2] and summary["config"]["samples"] is None
    assert summary["config"]["future"] == 1.0
    # iteration 1 fits on its games and iteration 0's, from network 0
    own, before = (_searched_rows(run / f"iteration_{k}" / "teacher") for k in (1, 0))
    fit = [json.loads(line) for line in (net1.parent / "fit_log.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in fit] == [0, 1] and before > 0
    assert fit[-1]["train_rows"] == own + before == second["rows"] and second["games"] == 3
    assert summary["config"]["games"] == [2, 1]  # iteration 0 played 2 games, iteration 1 one
    assert len(list((run / "iteration_1" / "teacher").glob("game_*.npz"))) == 1
    assert load_card_net(net0).meta["expert_iteration"]["init_model"] is None
    assert load_card_net(net1).meta["expert_iteration"]["init_model"] == "network.npz"
    for k, against in ((0, "heuristic"), (1, f"policy:{net0}")):
        gate = json.loads((run / f"iteration_{k}" / "gate.json").read_text())
        assert gate["candidate"] == f"policy:{run / f'iteration_{k}' / 'network.npz'}"
        assert gate["against"] == against and gate["games"] == 2 and gate["accepted"]
    # run again: nothing is played, fitted or gated; the settings are the run's
    files = {p: p.stat().st_mtime_ns for p in run.rglob("*") if p.name != "loop.json"}
    argv = ["expert-loop", str(run), "--iterations", "2", "--game", "cardcassonne",
            "--tables", "2", "--no-progress"]  # fmt: skip
    assert main(argv) == 0 and len(capsys.readouterr().out.splitlines()) == 1
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*") if p.name != "loop.json"} == files
    assert json.loads((run / "loop.json").read_text()) == summary


def test_a_card_loop_can_value_the_leaves_by_its_network(tmp_path, capsys) -> None:
    """``--future net``: the teacher is ``pretrained:search=W:K:1:net`` over the network, and
    its targets are the mean of the network's values at the rollouts' ends (finite, and not
    those of the heuristic's leaf)."""
    from carcassonne_rl.agents.pretrained import pretrained_path

    init = str(pretrained_path("cardcassonne"))
    run = (tmp_path / "run").resolve()
    argv = ["expert-loop", str(run), *CARD[:2], "--games", "1", *CARD[4:], "--future", "net"]
    assert main(argv) == 2  # no network to value the leaves with
    err = capsys.readouterr().err.strip()
    assert "future 'net' values the search's leaves by its network" in err
    assert len(err.splitlines()) == 1 and not run.exists()
    assert main([*argv, "--init-model", init]) == 0
    summary = json.loads((run / "loop.json").read_text())
    assert summary["config"]["future"] == "net"
    assert summary["iterations"][0]["teacher"] == f"pretrained:search=2:2:1:net@{init}"
    with np.load(next((run / "iteration_0" / "teacher").glob("game_*.npz"))) as z:
        searched = np.isfinite(z["target"])
        assert searched.sum() >= 2 and np.isfinite(z["network"]).all()
    assert teacher_spec(LoopConfig(game="cardcassonne", future="net", init_model=init),
                        init) == f"pretrained:search=8:3:1:net@{init}"  # fmt: skip
    with pytest.raises(ValueError, match="or 'net'"):
        LoopConfig(game="cardcassonne", future="nets", init_model=init)


def test_each_game_takes_its_own_settings(tmp_path, capsys) -> None:
    card = LoopConfig(game="cardcassonne")
    assert (card.epochs, card.learning_rate, card.candidates, card.worlds) == (6, 1e-3, 3, 8)
    assert card.tables == (2, 2, 3, 4, 5) and (card.samples, card.keep) == (None, None)
    tile = LoopConfig()
    assert (tile.epochs, tile.learning_rate, tile.samples, tile.keep) == (4, 3e-4, 2, 8)
    assert (tile.tables, tile.worlds, tile.variants) == ((2,), None, ("base",))
    assert card.variants is None
    argv = ["expert-loop", str(tmp_path / "card"), "--game", "cardcassonne", "--samples", "1",
            "--keep", "4", "--target", "blend", "--variants", "messages"]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    told = ("the card game's loop does not take the tile game's settings: samples, keep, "
            "variants, target")  # fmt: skip
    assert told in err and len(err.splitlines()) == 1
    assert main(["expert-loop", str(tmp_path / "tile"), "--worlds", "4"]) == 2
    assert "the tile game's loop does not take the card game's settings: worlds" in (
        capsys.readouterr().err)  # fmt: skip
    assert main(["expert-loop", str(tmp_path / "tile"), "--future", "0"]) == 2
    assert "settings: future" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["expert-loop", str(tmp_path / "card"), "--game", "cardcassonne", "--future", "-1"])
    assert "must be a finite number >= 0, got -1" in capsys.readouterr().err
    assert teacher_spec(LoopConfig(game="cardcassonne", future=0.0), None) == (
        "heuristic:search=8:3:1:0"
    )  # the search of the loops before the leaf's future
    card_run = tmp_path / "card_old"
    card_run.mkdir()
    old_card = {k: v for k, v in dataclasses.asdict(LoopConfig(game="cardcassonne")).items()
                if k != "future"}  # fmt: skip
    (card_run / "loop.json").write_text(json.dumps({"config": old_card, "iterations": []}))
    assert load_config(card_run, {}).future == 0.0
    with pytest.raises(SystemExit):  # argparse: a variant that names no expansion set
        main(["expert-loop", str(tmp_path / "tile"), "--variants", "base,river"])
    assert "unknown expansions ['river']" in capsys.readouterr().err
    assert LoopConfig(variants=["messages+labyrinth"]).variants == ("messages+labyrinth",)
    with pytest.raises(SystemExit):
        main(["expert-iteration", str(tmp_path / "pos"), "--variants", ""])
    assert main(["expert-iteration", str(tmp_path / "pos"), "--game", "cardcassonne",
                 "--variants", "messages"]) == 2  # fmt: skip
    assert "--variants: variant 'messages': expansions exist only for the tile game" in (
        capsys.readouterr().err)  # fmt: skip
    with pytest.raises(ValueError, match="anchor_weight"):
        LoopConfig(game="cardcassonne", anchor_weight=0.5)
    assert not (tmp_path / "card").exists() and not (tmp_path / "tile").exists()
    # a tile loop.json written before the card game's settings: loads as it was
    old = {k: v for k, v in dataclasses.asdict(CONFIG).items()
           if k not in ("game", "tables", "worlds", "variants", "future")}  # fmt: skip
    run = tmp_path / "old"
    run.mkdir()
    (run / "loop.json").write_text(json.dumps({"config": old, "iterations": []}))
    assert load_config(run, {"game": "carcassonne", "samples": 0}) == CONFIG


def test_the_iteration_curve_plays_every_network_alone_and_searched(tmp_path, capsys) -> None:
    """benchmarks/expert_loop_curve.py: one row per (network, player, opponent), each the
    arena's own result for that spec on the same deals."""
    run = (tmp_path / "run").resolve()
    main(["expert-loop", str(run), *TINY, "--gate-threshold", "0", "--no-progress"])
    capsys.readouterr()
    curve = benchmark("expert_loop_curve")
    png, table = tmp_path / "curve.png", tmp_path / "curve.md"
    argv = [str(run), "--opponents", "greedy", "--deals", "1", "--search", "--seed", "5"]
    assert curve.main([*argv, "--plot", str(png), "--table", str(table)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    net = run / "iteration_0" / "network.npz"
    assert [(r["iteration"], r["player"], r["spec"]) for r in rows] == [
        (0, "network", f"policy:{net}"),
        (0, "search", f"pretrained:search=1:0@{net}"),
    ]
    assert all(r["games"] == 2 and r["opponent"] == "greedy" and r["accepted"] for r in rows)
    for r in rows:  # the same games as the arena's for that spec
        out = tmp_path / r["player"]
        assert main(["arena", "--agents", r["spec"], "--opponents", "greedy", "--deals", "1",
                     "--seed", "5", "--no-progress", "--out", str(out)]) == 0  # fmt: skip
        arena = json.loads((out / "arena.json").read_text())
        stats = arena["entries"][r["spec"]]
        assert stats["mean_margin"] == pytest.approx(r["mean_margin"])
    assert png.stat().st_size > 10_000 and table.read_text().count("| 0 | accepted |") == 2
    saved, again, png2 = tmp_path / "rows.jsonl", tmp_path / "again.md", tmp_path / "again.png"
    saved.write_text("".join(json.dumps(r) + "\n" for r in rows))  # --rows: drawn, not played
    assert curve.main(["--rows", str(saved), "--table", str(again), "--plot", str(png2)]) == 0
    assert again.read_text() == table.read_text() and png2.stat().st_size > 10_000
    saved.write_text(json.dumps({"iteration": 0}) + "\n")
    with pytest.raises(SystemExit):  # a row without its numbers: named, nothing drawn
        curve.main(["--rows", str(saved), "--table", str(tmp_path / "bad.md")])
    assert "a row needs accepted" in capsys.readouterr().err
    assert not (tmp_path / "bad.md").exists()
    with pytest.raises(SystemExit):  # not a loop folder: one argparse message
        curve.main([str(tmp_path), "--deals", "1"])
    assert "has no loop.json" in capsys.readouterr().err


def test_a_loop_with_a_deep_search_records_and_keeps_it(tmp_path, capsys) -> None:
    """``--deep-share``/``--deep-samples``: the teacher games record only the deep search's
    placements, the fit trains on those; the run keeps the settings (an option given again
    must agree); a loop.json from before them resumes as a loop without a deep search."""
    run = (tmp_path / "run").resolve()
    deep = ["--deep-share", "0.5", "--deep-samples", "1"]  # TINY's teacher: search=1:0
    argv = ["expert-loop", str(run), *TINY, "--gate-threshold", "0", "--no-progress"]
    assert main([*argv, *deep]) == 0
    capsys.readouterr()
    summary = json.loads((run / "loop.json").read_text())
    assert (summary["config"]["deep_share"], summary["config"]["deep_samples"]) == (0.5, 1)
    teacher = run / "iteration_0" / "teacher"
    held = json.loads((teacher / "positions.json").read_text())
    assert (held["deep_share"], held["deep_samples"]) == (0.5, 1)
    decisions = set()
    for path in teacher.glob("game_*.npz"):
        with np.load(path) as z:
            decisions |= {(path.name, int(d)) for d in z["decision"]}
    entry = summary["iterations"][0]
    assert 0 < entry["placements"] == len(decisions) < 2 * 6  # about half of 2 x 6 placements
    files = {p: p.stat().st_mtime_ns for p in run.rglob("*") if p.name != "loop.json"}
    assert main(["expert-loop", str(run), "--deep-share", "0.5", "--no-progress"]) == 0
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*") if p.name != "loop.json"} == files
    capsys.readouterr()
    assert main(["expert-loop", str(run), "--deep-share", "0.25"]) == 2
    err = capsys.readouterr().err
    assert "other settings (deep_share: 0.5 there, 0.25 here)" in err
    assert len(err.strip().splitlines()) == 1
    for bad, told in ((["--deep-share", "1.5"], "deep share must be in [0, 1]"),
                      (["--deep-share", "0.5", "--deep-samples", "2"],
                       "needs deep samples above the teacher's samples (S2 > S = 2), got 2"),
                      (["--game", "cardcassonne", "--deep-share", "0.5"], "settings: deep_share"),
                      (["--game", "cardcassonne", "--deep-samples", "4"],
                       "settings: deep_samples")):  # fmt: skip
        assert main(["expert-loop", str(tmp_path / "bad"), *bad]) == 2
        err = capsys.readouterr().err.strip()
        assert told in err and len(err.splitlines()) == 1
    assert not (tmp_path / "bad").exists()
    # a loop.json written before the deep search: no deep search, and a share 0 agrees
    old = {k: v for k, v in dataclasses.asdict(CONFIG).items()
           if k not in ("deep_samples", "deep_share")}  # fmt: skip
    before = tmp_path / "before"
    before.mkdir()
    (before / "loop.json").write_text(json.dumps({"config": old, "iterations": []}))
    assert load_config(before, {"deep_share": 0.0}) == CONFIG
    assert CONFIG.deep_share == 0.0 and CONFIG.deep() == {}
    with pytest.raises(ValueError, match="deep_share: 0.0 there, 0.5 here"):
        load_config(before, {"deep_share": 0.5, "deep_samples": 1})


def test_the_ray_files_run_as_one_xdist_group(request) -> None:
    """Under ``pytest -n N --dist loadgroup`` (as CI runs) this file's tests carry the Ray
    group of tests/conftest.py, so that one worker runs every test that starts Ray."""
    if not request.config.getoption("loadgroup", False):
        pytest.skip("not run by pytest-xdist with --dist loadgroup")
    assert request.node.nodeid.endswith("@ray"), request.node.nodeid


def test_the_curve_takes_a_title(tmp_path, monkeypatch) -> None:
    """``--title`` names the plot; without it the rows file's stem does."""
    curve = benchmark("expert_loop_curve")
    titles = []
    monkeypatch.setattr(curve, "plot", lambda rows, path, title: titles.append(title))
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"iteration": 0, "accepted": True, "player": "network",
                                "opponent": "greedy", "games": 2, "win_rate": 0.5,
                                "win_rate_ci95": [0.0, 1.0], "mean_margin": 0.0,
                                "ms_per_decision": 1.0}) + "\n")  # fmt: skip
    png = str(tmp_path / "c.png")
    assert curve.main(["--rows", str(rows), "--plot", png, "--title", "a loop"]) == 0
    assert curve.main(["--rows", str(rows), "--plot", png]) == 0
    assert titles == ["a loop", "rows: every iteration"]
