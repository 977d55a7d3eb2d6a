"""Expert iteration: teacher games recorded from the search, resumably; the fine-tune toward
the search's expectations; the command's user errors."""

from __future__ import annotations

import numpy as np
import pytest

from carcassonne_rl.agents.pretrained import pretrained_path
from carcassonne_rl.agents.registry import load_trained
from carcassonne_rl.agents.tile.afterstate import (
    AfterstateAgent,
    load_value_net,
    options,
    value_inputs,
)
from carcassonne_rl.agents.tile.blend import (
    NETWORK_2P_WEIGHT,
    BlendedAgent,
    blend,
    blended_values,
    heuristic_margins,
)
from carcassonne_rl.agents.tile.search import ExpectimaxAgent
from carcassonne_rl.cli.main import main
from carcassonne_rl.encoders.features.afterstate import player_features
from carcassonne_rl.games.carcassonne import GameConfig, new_game
from carcassonne_rl.training.expert_iteration.finetune import (
    agreement,
    finetune,
    fit_targets,
    heuristic_margins_of,
    placement_groups,
    split_games,
)
from carcassonne_rl.training.expert_iteration.positions import (
    REPLAY_FIELDS,
    ROW_FIELDS,
    collect,
    load_positions,
    play_teacher_game,
    teacher_deal,
)

TEACHER = "pretrained:search=2"  # one turn ahead, no sampling: cheap and deterministic


@pytest.fixture(scope="module")
def game_rows() -> dict:
    return play_teacher_game(TEACHER, teacher_deal(5, 0), seed=3, keep=5)


def _first_placement() -> tuple:
    """(network, seat, options, blended values, the 5 stored options best first) of the
    fixture's first placement, recomputed."""
    net = load_value_net(pretrained_path("carcassonne"))
    state = new_game(GameConfig(players=2, seed=teacher_deal(5, 0)))
    player = state.current_player
    opts = options(state)
    prior = blended_values(net, [o.state for o in opts], player, NETWORK_2P_WEIGHT)
    return net, player, opts, prior, np.argsort(-prior, kind="stable")[:5]


def test_the_first_placement_is_recorded_as_the_search_values_it(game_rows) -> None:
    net, player, opts, prior, top = _first_placement()
    search = ExpectimaxAgent(net, candidates=2, weight=NETWORK_2P_WEIGHT, seed=0)
    expected = [search.expectation(opts[i].state, player) for i in top[:2]]
    first = game_rows["decision"] == 0
    assert first.sum() == len(top)
    np.testing.assert_allclose(game_rows["prior"][first], prior[top], rtol=1e-6)
    np.testing.assert_allclose(game_rows["target"][first][:2], expected, rtol=1e-6)
    assert np.isnan(game_rows["target"][first][2:]).all()  # not searched
    x, _ = value_inputs([opts[i].state for i in top], player, "two_player")
    np.testing.assert_allclose(game_rows["x"][first], x)
    chosen = int(np.flatnonzero(game_rows["chosen"][first])[0])
    assert chosen == int(np.argmax(expected))  # the search played its best expectation


def test_every_placement_searches_its_candidates_and_plays_one(game_rows) -> None:
    decisions = np.unique(game_rows["decision"])
    assert len(decisions) >= 60  # a 2-player game has 71 placements, a few with one option
    for d in decisions:
        rows = game_rows["decision"] == d
        searched = np.isfinite(game_rows["target"][rows])
        assert 1 <= searched.sum() <= 2 and game_rows["chosen"][rows].sum() == 1
        assert game_rows["chosen"][rows][searched].any()
    assert game_rows["scores"].shape == (2,) and game_rows["scores"].max() > 50


def test_blend_targets_make_the_blend_equal_the_search(game_rows) -> None:
    _, player, opts, _, top = _first_placement()
    children = [opts[i].state for i in top]
    heuristic = heuristic_margins(children, [player_features(c) for c in children], player)
    first = game_rows["decision"] == 0
    rows = {k: game_rows[k][first] for k in (*ROW_FIELDS, *REPLAY_FIELDS)}
    recovered = heuristic_margins_of(rows, NETWORK_2P_WEIGHT, 30.0)
    np.testing.assert_allclose(recovered, heuristic, atol=1e-3)  # points, from float32 values
    target = fit_targets(rows, "blend", NETWORK_2P_WEIGHT, 30.0)
    searched = np.isfinite(rows["target"])
    mixed = blend(target.astype(np.float64), heuristic, NETWORK_2P_WEIGHT, 30.0)
    np.testing.assert_allclose(mixed[searched], rows["target"][searched], atol=1e-5)
    np.testing.assert_allclose(target[~searched], rows["network"][~searched], atol=1e-6)
    plain = fit_targets(rows, "search", NETWORK_2P_WEIGHT, 30.0)
    np.testing.assert_allclose(plain[searched], rows["target"][searched], rtol=1e-6)
    np.testing.assert_allclose(plain[~searched], rows["prior"][~searched], rtol=1e-6)
    with pytest.raises(ValueError, match="target kind"):
        fit_targets(rows, "outcome", NETWORK_2P_WEIGHT, 30.0)


def test_collect_goes_on_where_it_stopped(tmp_path, monkeypatch) -> None:
    played: list[int] = []
    import carcassonne_rl.training.expert_iteration.positions as positions

    def fake_game(spec, deal, seed, keep=8, placements=None, expansions=(), players=2):  # cheap
        played.append(deal)
        return {"x": np.full((2, 103), deal % 7, np.float32), "target": np.array([0.1, np.nan]),
                "prior": np.array([0.2, 0.1]), "network": np.array([0.2, 0.1]),
                "decision": np.array([0, 0]), "chosen": np.array([True, False]),
                "scores": np.array([10, 5])}  # fmt: skip

    monkeypatch.setattr(positions, "play_teacher_game", fake_game)
    folder = tmp_path / "positions"
    assert collect(folder, 3, TEACHER, seed=1) == 3
    (folder / f"game_{teacher_deal(1, 1)}.npz").unlink()
    assert collect(folder, 4, TEACHER, seed=1) == 2  # game 1 again and the new game 3
    assert played[3:] == [teacher_deal(1, 1), teacher_deal(1, 3)]
    data = load_positions(folder)
    assert data["files"] == 4 and len(data["target"]) == 8
    assert sorted(set(data["decision"].tolist())) == [0, 1, 2, 3]  # one per game, distinct
    with pytest.raises(ValueError, match="holds teacher games"):
        collect(folder, 4, TEACHER, seed=2)


def test_teacher_games_cycle_through_the_variants(tmp_path, monkeypatch) -> None:
    import carcassonne_rl.training.expert_iteration.positions as positions

    seen: dict[int, tuple] = {}

    def fake_game(spec, deal, seed, keep=8, placements=None, expansions=(), players=2):
        seen[deal] = expansions
        return {k: np.zeros((0, 103) if k == "x" else 0) for k in positions.ROW_FIELDS}

    monkeypatch.setattr(positions, "play_teacher_game", fake_game)
    folder = tmp_path / "positions"
    variants = ("base", "messages+labyrinth", "labyrinth")
    assert collect(folder, 4, TEACHER, seed=1, variants=variants) == 4
    assert [seen[teacher_deal(1, g)] for g in range(4)] == [
        (), ("messages", "labyrinth"), ("labyrinth",), ()]  # fmt: skip
    with pytest.raises(ValueError, match="holds teacher games"):  # base games only: another folder
        collect(folder, 4, TEACHER, seed=1)
    with pytest.raises(
        ValueError, match=r"variant 'messages\+river': unknown expansions \['river'\]"
    ):
        collect(tmp_path / "other", 1, TEACHER, variants=("messages+river",))
    with pytest.raises(ValueError, match="expansions exist only for the tile game"):
        collect(tmp_path / "card", 1, "heuristic:search=2:2", game="cardcassonne",
                variants=("messages",))  # fmt: skip


def test_a_teacher_game_with_expansions_records_their_positions() -> None:
    deal = teacher_deal(5, 0)
    base = play_teacher_game(TEACHER, deal, seed=3, keep=5, placements=4)
    both = play_teacher_game(TEACHER, deal, seed=3, keep=5, placements=4,
                             expansions=("messages", "labyrinth"))  # fmt: skip
    flags = [base["x"].shape[1] - 2, base["x"].shape[1] - 1]  # the globals messages, labyrinth
    assert len(both["target"]) > 0 and np.isfinite(both["target"]).any()
    np.testing.assert_array_equal(base["x"][:, flags], 0.0)
    np.testing.assert_array_equal(both["x"][:, flags], 1.0)


def test_agreement_counts_the_search_choice() -> None:
    data = {
        "decision": np.array([0, 0, 0, 1, 1, 1]),
        "target": np.array([0.3, 0.5, np.nan, 0.2, 0.1, np.nan]),
        "chosen": np.array([False, True, False, True, False, False]),
    }
    values = np.array([0.9, 0.4, 0.1, 0.1, 0.3, 0.8])
    out = agreement(values, data, np.arange(6))
    # decision 0: first overall is row 0 (not chosen); among the searched row 0 (regret 0.2)
    # decision 1: first overall row 5 (not searched); among the searched row 4 (regret 0.1)
    assert out["decisions"] == 2 and out["agree"] == 0 and out["agree_searched"] == 0
    assert out["regret"] == pytest.approx(0.15)


def test_fit_moves_the_network_toward_the_targets(tmp_path) -> None:
    net = load_value_net(pretrained_path("carcassonne"))
    rng = np.random.default_rng(0)
    source = load_positions_like(rng, net)
    split = split_games(source, 0.25, seed=0)
    assert 0 < split.mean() < 1
    reports = []
    tuned, last = finetune(
        source, pretrained_path("carcassonne"), epochs=15, learning_rate=1e-3, batch_size=64,
        validation=0.25, on_epoch=lambda e, r: reports.append(r),
    )  # fmt: skip
    assert reports[0]["epoch"] == 0 and last["epoch"] == 15
    assert last["validation_mse"] < 0.5 * reports[0]["validation_mse"]
    path = tmp_path / "tuned.npz"
    tuned.save(path)
    loaded = load_value_net(path)
    assert loaded.meta["expert_iteration"]["epochs"] == 15
    assert loaded.meta["feature_set"] == "two_player" and loaded.meta["value_scale"] == 30.0
    assert "heuristic_blend" not in loaded.meta
    assert type(load_trained(str(path), "carcassonne")) is AfterstateAgent  # played alone
    blended, _ = finetune(source, pretrained_path("carcassonne"), epochs=1, target_kind="blend")
    assert blended.meta["heuristic_blend"] == NETWORK_2P_WEIGHT
    blended.save(path)
    agent = load_trained(str(path), "carcassonne")
    assert isinstance(agent, BlendedAgent) and agent.weight == NETWORK_2P_WEIGHT


def load_positions_like(rng: np.random.Generator, net) -> dict:
    """Rows of real afterstate features whose targets are the network's values shifted by a
    function of the features the network must learn (searched rows only)."""
    state = new_game(GameConfig(players=2, seed=11))
    xs = []
    while len(xs) < 40 and not state.is_over:
        opts = options(state)
        x, _ = value_inputs([o.state for o in opts if not o.state.is_over],
                            state.current_player, "two_player")  # fmt: skip
        xs.append(x[:6])
        state.apply_code(opts[int(rng.integers(len(opts)))].code)
        while not state.is_over and state.phase != "place_tile":
            state.apply_code(int(state.legal_action_codes()[0]))
    x = np.concatenate(xs).astype(np.float32)
    n = len(x)
    own = net.forward(x)[:, 0]
    target = np.clip(own + 0.3 * np.tanh(x[:, 0] / 10.0) - 0.1, -0.95, 0.95)
    return {"x": x, "target": target, "prior": own.copy(), "network": own,
            "decision": np.arange(n) // 3, "chosen": (np.arange(n) % 3) == 0,
            "game": np.arange(n) // 12, "files": n // 12 + 1}  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--out", "model.txt"], "--out must name a .npz file"),
        (["--anchor-weight", "2", "--games", "0"], "--anchor-weight must be in [0, 1]"),
        (["--rank-weight", "-1", "--games", "0"], "--rank-weight must be >= 0"),
        (["--teacher", "greedy"], "is not a search"),
        (["--teacher", "pretrained:search=0"], "K >= 1 candidates"),
        (["--games", "0", "--out", "m.npz"], "no teacher games"),
        (["--init-model", "nothere.npz", "--out", "m.npz"], "no such file"),
        (["--address", "127.0.0.1:1", "--games", "1"], "Ray"),  # unreachable, or not installed
    ],
)
def test_user_errors_are_one_line(tmp_path, capsys, argv, message) -> None:
    folder = tmp_path / "pos"
    code = main(["expert-iteration", str(folder), *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_an_init_model_that_is_no_value_network_is_one_line(tmp_path, capsys) -> None:
    from carcassonne_rl.agents.pretrained import model_dir

    obs = model_dir() / "carcassonne_obs.npz"  # a policy network, not a value network
    assert collect(tmp_path / "pos", 1, TEACHER, 1, placements=5, keep=3) == 1
    code = main(["expert-iteration", str(tmp_path / "pos"), "--games", "0", "--tables", "3",
                 "--init-model", str(obs), "--target", "blend", "--out", str(tmp_path / "m.npz")])
    err = capsys.readouterr().err
    assert code == 2 and "holds no layers" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "m.npz").exists()


def test_the_shipped_distilled_network_plays_alone_from_its_file() -> None:
    from carcassonne_rl.agents.pretrained import model_dir, model_info

    entry = model_info()["carcassonne_2p_expert"]
    path = model_dir() / entry["file"]
    net = load_value_net(path)
    assert net.meta["expert_iteration"]["init_model"] == "carcassonne_2p.npz"
    assert net.meta["expert_iteration"]["target"] == "search" and "heuristic_blend" not in net.meta
    assert entry["trained_by"].startswith("carcassonne-rl expert-iteration ")
    agent = load_trained(str(path), "carcassonne", seed=0)
    assert type(agent) is AfterstateAgent
    state = new_game(GameConfig(players=2, seed=7))
    before = load_value_net(pretrained_path("carcassonne"))
    x, _ = value_inputs([o.state for o in options(state)], 0, "two_player")
    assert not np.allclose(net.forward(x), before.forward(x))  # fine-tuned, not a copy
    assert agent.act(state, 0) in set(state.legal_action_codes().tolist())


def test_a_shortened_game_is_the_start_of_the_whole_game(game_rows) -> None:
    short = play_teacher_game(TEACHER, teacher_deal(5, 0), seed=3, keep=5, placements=6)
    n = len(short["target"])
    assert 0 < n < len(game_rows["target"]) and short["decision"].max() <= 5
    for key in ("x", "target", "prior", "network", "decision", "chosen"):
        np.testing.assert_array_equal(short[key], game_rows[key][:n])
    assert short["scores"].max() < game_rows["scores"].max()  # stopped early


def test_a_tile_fit_takes_more_folders(tmp_path, capsys) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    for folder, seed in ((first, 1), (second, 2)):
        assert collect(folder, 2, TEACHER, seed, placements=5, keep=3) == 2
    rows = [len(load_positions(f)["target"]) for f in (first, second)]
    out = tmp_path / "both.npz"
    argv = ["expert-iteration", str(first), "--games", "0", "--more-positions", str(second),
            "--epochs", "1", "--validation", "0", "--batch-size", "8", "--out", str(out),
            "--log", str(tmp_path / "log")]
    assert main(argv) == 0
    # the teacher both folders name, once (the folders' positions.json)
    from carcassonne_rl.cli.expert_iteration import folder_teachers

    assert folder_teachers([first, second, tmp_path]) == [TEACHER, "teacher games"]
    assert (tmp_path / "log" / "fit.png").is_file()
    assert "fine-tuned on 4 teacher games" in capsys.readouterr().out
    # every searched row of both folders trained on (no game held out)
    both = load_positions(first, second)
    assert sum(rows) == len(both["target"])
    searched = int(np.isfinite(both["target"]).sum())
    assert load_value_net(out).meta["expert_iteration"]["rows"] == searched


def test_a_blend_fit_takes_the_share_the_init_model_names(tmp_path) -> None:
    """``--target blend`` fits the values whose average at the init model's share (its file's
    ``heuristic_blend``, as the loop's teacher played it) is the search's: the file the
    command writes is the fit at that share, not at the 2-player default."""
    from carcassonne_rl.training.export import set_blend

    folder = tmp_path / "games"
    assert collect(folder, 2, TEACHER, 1, placements=5, keep=3) == 2
    init = tmp_path / "init.npz"
    load_value_net(pretrained_path("carcassonne")).save(init)
    set_blend(init, 0.6)
    out = tmp_path / "fit.npz"
    assert main(["expert-iteration", str(folder), "--games", "0", "--init-model", str(init),
                 "--target", "blend", "--epochs", "1", "--validation", "0", "--batch-size", "8",
                 "--learning-rate", "1e-3", "--out", str(out), "--log", str(tmp_path / "log")]) == 0
    fitted = load_value_net(out)
    assert fitted.meta["heuristic_blend"] == 0.6
    data = load_positions(folder)
    x = data["x"][:16]
    fits = {w: finetune(data, init, 1, learning_rate=1e-3, batch_size=8, validation=0.0,
                        target_kind="blend", weight=w)[0] for w in (0.6, NETWORK_2P_WEIGHT)}
    np.testing.assert_allclose(fitted.forward(x), fits[0.6].forward(x), rtol=1e-5, atol=1e-6)
    assert not np.allclose(fitted.forward(x), fits[NETWORK_2P_WEIGHT].forward(x), atol=1e-4)


def test_placement_groups_keep_placements_with_two_searched_options() -> None:
    data = {"decision": np.array([0, 0, 0, 1, 1, 2, 2, 2, 3]),
            "target": np.array([0.1, np.nan, 0.2, 0.3, np.nan, 0.1, 0.2, 0.3, 0.4])}
    got = placement_groups(data, np.arange(9))
    # placement 0: rows 0 and 2; placement 1 has one searched option, 3 one option
    assert got.tolist() == [[0, 2, -1], [5, 6, 7]]
    assert placement_groups(data, np.array([5, 6])).tolist() == [[5, 6]]


def _cross_entropy(net, data: dict, kind: str, tau: float = 1.0) -> float:
    """The ranking term over every placement, computed with numpy from the network's file."""
    scale, weight = 30.0, NETWORK_2P_WEIGHT
    values = net.forward(data["x"])[:, 0].astype(np.float64)
    mine = scale * np.arctanh(np.clip(values, -0.999999, 0.999999))
    if kind == "blend":
        mine = weight * mine + (1 - weight) * heuristic_margins_of(data, weight, scale)
    theirs = scale * np.arctanh(np.clip(data["target"], -0.999999, 0.999999))
    out = []
    for d in np.unique(data["decision"]):
        rows = np.flatnonzero(data["decision"] == d)
        a, b = mine[rows] / tau, theirs[rows] / tau
        p = np.exp(b - b.max()) / np.exp(b - b.max()).sum()
        log_q = a - a.max() - np.log(np.exp(a - a.max()).sum())
        out.append(-(p * log_q).sum())
    return float(np.mean(out))


@pytest.mark.parametrize("kind", ["search", "blend"])
def test_the_ranking_term_pulls_the_choices_toward_the_search(kind: str) -> None:
    """The search orders each placement's options against the network: the fit with the
    ranking term ends nearer the search's choices (its cross-entropy, computed apart) than
    the squared error alone from the same start."""
    net = load_value_net(pretrained_path("carcassonne"))
    data = load_positions_like(np.random.default_rng(1), net)
    own = data["network"]
    data["target"] = np.clip(own.mean() - (own - own.mean()), -0.95, 0.95).astype(np.float32)
    fits, ends = {}, {}
    for rank in (0.0, 0.1):
        reports: list[dict] = []
        fits[rank], _ = finetune(data, pretrained_path("carcassonne"), epochs=4,
                                 learning_rate=1e-3, batch_size=32, validation=0.0,
                                 target_kind=kind, rank_weight=rank,
                                 on_epoch=lambda e, r, out=reports: out.append(r))  # fmt: skip
        assert ("train_rank_loss" in reports[-1]) == (rank > 0)
        ends[rank] = _cross_entropy(fits[rank], data, kind)
    assert ends[0.1] < 0.99 * ends[0.0] < 0.2 * _cross_entropy(net, data, kind)
    assert fits[0.1].meta["expert_iteration"]["rank_weight"] == 0.1
    assert "rank_weight" not in fits[0.0].meta["expert_iteration"]
    with pytest.raises(ValueError, match="ranking term"):
        finetune(data, pretrained_path("carcassonne"), epochs=1, rank_weight=-1.0)
