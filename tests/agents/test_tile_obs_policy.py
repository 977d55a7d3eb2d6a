"""The observation-only tile policy: numpy export of a MaskablePPO tile policy on
carcassonne_v1 observations, its agent, and that it reads nothing but the observation."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from carcassonne_rl.agents import make_agent
from carcassonne_rl.agents.tile.obs_policy.board_net import TileObsNet, TileObsPolicyAgent, conv3x3
from carcassonne_rl.arena.match import Job, Setup, play_game
from carcassonne_rl.envs import carcassonne_v1
from carcassonne_rl.games.carcassonne import GameConfig, new_game
from carcassonne_rl.games.carcassonne import layout as L
from carcassonne_rl.training.export import export_run, export_tile_policy


def test_numpy_conv_matches_torch():
    rng = np.random.default_rng(0)
    x = rng.random((5, 7, 7), dtype=np.float32)
    w = rng.standard_normal((3, 5, 3, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    expected = torch.nn.functional.conv2d(
        torch.as_tensor(x)[None], torch.as_tensor(w), torch.as_tensor(b), padding=1
    )[0].numpy()
    np.testing.assert_allclose(conv3x3(x, w, b), expected, rtol=1e-5, atol=1e-5)


@pytest.fixture(scope="module", params=["board", "planes"])
def tiny_model(request, tmp_path_factory):
    """A MaskablePPO tile policy on carcassonne_v1 (window 9, a few random updates), saved
    in a run folder with its config, as the trainer leaves it."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from carcassonne_rl.envs.single_agent import SingleAgentEnv
    from carcassonne_rl.training.ppo.policies import TILE_NETS, TilePolicy
    from carcassonne_rl.training.train_config import TrainConfig

    run = tmp_path_factory.mktemp(f"run_{request.param}")
    env = DummyVecEnv([lambda: SingleAgentEnv("carcassonne_v1", window=9)])
    kwargs = {"channels": 8, "layers": 3, "hidden": 16}
    policy_kwargs = {"features_extractor_class": TILE_NETS[request.param],
                     "features_extractor_kwargs": kwargs}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # window 9: overflow warnings are expected
        model = MaskablePPO(TilePolicy, env, n_steps=32, batch_size=32, n_epochs=1,
                            policy_kwargs=policy_kwargs, seed=0)  # fmt: skip
        model.learn(32)
    model.save(run / "final_model.zip")
    TrainConfig(game="carcassonne", observation="v1", window=9).save(run / "config.json")
    return run


def _positions(count: int, window: int = 9):
    env = carcassonne_v1.env(players=2, window=window)
    env.reset(seed=11)
    rng = np.random.default_rng(1)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while env.agents and len(out) < count:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            out.append(obs)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def test_exported_logits_equal_the_torch_policy(tiny_model):
    from sb3_contrib import MaskablePPO

    policy = MaskablePPO.load(tiny_model / "final_model.zip", device="cpu").policy
    net = export_tile_policy(tiny_model / "final_model.zip")
    for obs in _positions(12):
        batch = {k: torch.as_tensor(obs[k])[None] for k in ("board", "globals")}
        with torch.no_grad():
            dist = policy.get_distribution(batch, action_masks=obs["action_mask"][None])
            expected = dist.distribution.logits[0].numpy()
        mask = obs["action_mask"].astype(bool)
        got = net.logits(obs["board"], obs["globals"])
        got = got[mask] - np.log(np.exp(got[mask] - got[mask].max()).sum()) - got[mask].max()
        np.testing.assert_allclose(got, expected[mask], rtol=1e-4, atol=1e-4)


def test_exported_file_plays_as_a_policy_spec_without_torch_objects(tiny_model, tmp_path):
    out = tmp_path / "tile_obs.npz"
    assert "observation policy" in export_run(tiny_model, out)
    agent = make_agent(f"policy:{out}", "carcassonne", seed=0)
    assert isinstance(agent, TileObsPolicyAgent) and isinstance(agent.net, TileObsNet)
    assert all(isinstance(v, np.ndarray) for v in agent.net.p.values())
    with pytest.raises(ValueError, match="plays carcassonne"):
        make_agent(f"policy:{out}", "cardcassonne")
    setup = Setup("carcassonne", 2)
    spec = f"policy:{out}"
    result = play_game(Job(setup, (spec, "random"), (spec, "random"), 3, 0, 0, 1))
    assert sum(result.decisions) > 20


def test_decision_depends_only_on_the_observation_dict(tiny_model, tmp_path):
    """Two engine states with the same public view (the same tiles left, in another hidden
    order) give the same observation, and the policy the same probabilities and move; and
    the decision made from the env's observation dict is the one made from the state."""
    out = tmp_path / "tile_obs.npz"
    export_run(tiny_model, out)
    agent = make_agent(f"policy:{out}", "carcassonne", seed=0)
    a, b, obs_a, obs_b = _twin_views(agent)
    assert sorted(_pile(a)) == sorted(_pile(b))
    assert all(np.array_equal(obs_a[k], obs_b[k]) for k in ("board", "globals"))
    np.testing.assert_array_equal(agent.probabilities(obs_a), agent.probabilities(obs_b))
    assert agent.act(a, a.current_player) == agent.act(b, b.current_player)


def test_the_env_observation_alone_decides_the_move(tiny_model, tmp_path):
    """What a PettingZoo agent gets (the observation dict of carcassonne_v1) is all the
    policy needs: its decision there is the move it makes from the engine state."""
    out = tmp_path / "tile_obs.npz"
    export_run(tiny_model, out)
    agent = make_agent(f"policy:{out}", "carcassonne", seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # window 9: overflow warnings are expected
        _env_moves_are_the_agents(agent, seed=5, moves=30, window=9)


def _twin_views(agent: TileObsPolicyAgent) -> tuple:
    """Two states with the same public view, the same tiles left in another hidden order,
    and the agent's observation of each (with its action mask)."""
    config = GameConfig(players=2, seed=0)
    a = new_game(config, draw_order="UVWKLEEB", fill_pile=True)
    b = new_game(config, draw_order="UVWKLBEE", fill_pile=True)
    for code in (a.legal_action_codes()[3], 0):
        a.apply_code(int(code))
        b.apply_code(int(code))
    assert not np.array_equal(_pile(a), _pile(b))
    views = []
    for state in (a, b):
        obs = agent.encoder.encode(state, state.current_player)
        obs["action_mask"] = agent.encoder.action_mask(state)
        views.append(obs)
    return a, b, *views


def _pile(state) -> np.ndarray:
    """The hidden draw pile (tile types in draw order) of a state."""
    ints = state._ints
    return ints[L.O_DECK + ints[L.R_DECKPOS] : L.O_DECK + ints[L.R_DECKLEN]].copy()


def test_shipped_pretrained_obs_reads_only_the_observation():
    """``pretrained-obs``: the shipped observation policy; the same public view from two
    engine states gives the same probabilities, and from the env's dict the same move."""
    agent = make_agent("pretrained-obs", "carcassonne", seed=0)
    assert isinstance(agent, TileObsPolicyAgent) and agent.name == "pretrained-obs"
    a, b, obs_a, obs_b = _twin_views(agent)
    np.testing.assert_array_equal(agent.probabilities(obs_a), agent.probabilities(obs_b))
    _env_moves_are_the_agents(agent, seed=7)
    with pytest.raises(ValueError, match="tile game"):
        make_agent("pretrained-obs", "cardcassonne")
    with pytest.raises(ValueError, match="no parameters"):
        make_agent("pretrained-obs:3", "carcassonne")


def test_a_policy_without_the_messages_refuses_them(capsys, tmp_path):
    from carcassonne_rl.cli.main import main
    from carcassonne_rl.play.session import PlayError, PlaySession

    agent = make_agent("pretrained-obs", "carcassonne", seed=0)
    state = new_game(GameConfig(players=2, seed=0, expansions=("messages",)))
    with pytest.raises(ValueError, match="without The Messages"):
        agent.act(state, state.current_player)
    agent.check_expansions(("labyrinth",))  # the Labyrinth adds no action: it plays
    argv = ["arena", "--agents", "pretrained-obs,greedy", "--expansions", "messages",
            "--deals", "1", "--out", str(tmp_path / "report")]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "pretrained-obs was trained without The Messages" in err and "Traceback" not in err
    assert not (tmp_path / "report").exists()
    with pytest.raises(PlayError, match="without The Messages"):
        PlaySession("carcassonne", 2, ("messages",), 0, ["pretrained-obs"], 0, tmp_path)


def test_the_features_policy_reads_only_the_observation(tmp_path):
    """The features net (option features rebuilt from the planes): the same public view
    from two engine states gives the same probabilities; the env's dict the same move."""
    from carcassonne_rl.training.obs_policy.heads import FeatureHeads, heads_to_numpy

    torch.manual_seed(0)
    path = tmp_path / "features.npz"
    heads_to_numpy(FeatureHeads(hidden=16), window=29).save(path)
    agent = make_agent(f"policy:{path}", "carcassonne", seed=0)
    a, b, obs_a, obs_b = _twin_views(agent)
    probs = agent.probabilities(obs_a)
    np.testing.assert_array_equal(probs, agent.probabilities(obs_b))
    assert np.isclose(probs.sum(), 1.0) and (probs[obs_a["action_mask"] == 0] == 0).all()
    assert len(np.unique(probs[probs > 0])) > 1  # the scores tell the options apart
    _env_moves_are_the_agents(agent, seed=3)


def _env_moves_are_the_agents(
    agent: TileObsPolicyAgent, seed: int, moves: int = 40, window: int = 29
) -> None:
    """Along ``moves`` decisions of the env, the index decided from the observation dict is
    legal and is the move the agent makes from the engine state."""
    env = carcassonne_v1.env(players=2, window=window)
    env.reset(seed=seed)
    for _ in range(moves):
        obs, _, _, _, _ = env.last()
        state = env.unwrapped.game_state
        index = agent.decide(obs)
        assert obs["action_mask"][index] == 1
        assert agent.encoder.code_of(state, index) == agent.act(state, state.current_player)
        env.step(index)


def _random_features_net(seed: int):
    from carcassonne_rl.training.obs_policy.heads import FeatureHeads, heads_to_numpy

    torch.manual_seed(seed)
    return heads_to_numpy(FeatureHeads(hidden=16), window=29)


def test_the_observation_policy_plays_each_table_with_its_network():
    """The seats present in the observation's globals pick the network: the one of that
    table if there is one, the 2-player one otherwise."""
    two, four = _random_features_net(0), _random_features_net(1)
    agent = TileObsPolicyAgent(two, tables={4: four})
    alone = {n: TileObsPolicyAgent(net) for n, net in (("two", two), ("four", four))}
    for players, expected in ((2, "two"), (3, "two"), (4, "four")):
        env = carcassonne_v1.env(players=players)
        env.reset(seed=players)
        for _ in range(6):
            obs, _, _, _, _ = env.last()
            probs = agent.probabilities(obs)
            np.testing.assert_array_equal(probs, alone[expected].probabilities(obs))
            env.step(agent.decide(obs))


@pytest.mark.parametrize("name", ["tile-net-v7", "pretrained"])
def test_pretrained_plays_the_blended_table_network_or_the_5_player_observation_network(name):
    """``tile-net-v7`` at 3 and 4 players, and at any table with The Messages, moves as the
    table value network of that table (at 3 players its own, at 4 the one fine-tuned with
    greedy seats) averaged with the heuristic; at 5 players without The Messages as
    ``pretrained-obs`` (its 5-player network). ``pretrained`` (``tile-net-v8``) plays its
    3-player network at 5 players too, with or without The Messages, at the weight its file
    names, and never the observation network."""
    from carcassonne_rl.agents.pretrained import (
        PRETRAINED_TABLE_FILES,
        model_dir,
        table_network,
        table_networks,
    )
    from carcassonne_rl.agents.tile.afterstate import load_value_net
    from carcassonne_rl.agents.tile.blend import PRETRAINED_TABLE_WEIGHTS, BlendedAgent

    shipped = make_agent(name, "carcassonne", seed=0)
    obs_agent = make_agent("pretrained-obs", "carcassonne", seed=0)
    assert sorted(obs_agent.tables) == [3, 4, 5]
    table = BlendedAgent(table_network(), PRETRAINED_TABLE_WEIGHTS, seed=0)
    own = load_value_net(model_dir() / PRETRAINED_TABLE_FILES[3])
    assert own.meta["heuristic_blend"] == 0.75 == PRETRAINED_TABLE_WEIGHTS[3]
    three = BlendedAgent(own, 0.75, seed=0)
    four = BlendedAgent(table_networks()[4], PRETRAINED_TABLE_WEIGHTS, seed=0)
    if name == "pretrained":
        assert PRETRAINED_TABLE_FILES[5] == PRETRAINED_TABLE_FILES[3]
        five = BlendedAgent(own, 0.75, seed=0)  # its own agent at 5 players (own tie-breaks)
        fives = ((5, ("messages",), five), (5, (), five), (5, ("labyrinth",), five))
    else:
        fives = ((5, ("messages",), table), (5, (), obs_agent))
    differs = {3: 0, 4: 0, 5: 0}
    for players, expansions, expected in ((3, (), three), (4, (), four), *fives):
        state = new_game(GameConfig(players=players, seed=3, expansions=expansions))
        for _ in range(20):
            p = state.current_player
            code = shipped.act(state, p)
            assert code == expected.act(state, p)
            if expected is not obs_agent and not expansions and state.phase == "place_tile":
                differs[players] += code != obs_agent.act(state, p)
            state.apply_code(int(code))
    # the observation networks would have played otherwise
    assert differs[3] and differs[4] and (differs[5] or name != "pretrained")
