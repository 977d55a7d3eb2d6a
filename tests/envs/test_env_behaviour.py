"""Wrapper behaviour (illegal / out-of-bounds / order), rewards, rendering, window overflow."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from carcassonne_rl.envs import carcassonne_v0, cardcassonne_v0

MAKERS = {
    "card": lambda **kw: cardcassonne_v0.env(players=3, **kw),
    "tile": lambda **kw: carcassonne_v0.env(players=3, expansions=("messages",), **kw),
}


@pytest.mark.parametrize("game", sorted(MAKERS))
def test_illegal_action_terminates_with_penalty(game):
    env = MAKERS[game]()
    env.reset(seed=1)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    history = list(env.unwrapped.game_state.history)
    maker = env.agent_selection
    env.step(illegal)  # PettingZoo's EnvLogger logs "Illegal move made"
    assert env.unwrapped.game_state.history == history  # the engine never saw it
    assert all(env.terminations.values()) and all(env.truncations.values())
    assert env._cumulative_rewards[maker] == -1.0
    assert all(r == 0.0 for a, r in env._cumulative_rewards.items() if a != maker)
    while env.agents:
        env.step(None)


@pytest.mark.parametrize("game", sorted(MAKERS))
def test_out_of_bounds_and_order(game):
    env = MAKERS[game]()
    with pytest.raises(Exception, match="reset"):
        env.step(0)
    env.reset(seed=0)
    n = env.action_space(env.agent_selection).n
    with pytest.raises(AssertionError):
        env.step(n)
    with pytest.raises(AssertionError):
        env.step(-1)
    assert env.action_space("player_0") is env.action_space("player_0")
    assert env.observation_space("player_1") is env.observation_space("player_1")


def _play_out(env, seed):
    rng = random.Random(seed)
    final = {}
    while env.agents:
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        space = env.observation_space(agent)
        assert space.contains(obs)
        if term or trunc:
            final[agent] = env._cumulative_rewards[agent]
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        for other in env.agents:  # only the agent to move has a mask
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(int(legal[rng.randrange(len(legal))]))
    return final


@pytest.mark.parametrize("game", sorted(MAKERS))
def test_terminal_rewards_follow_the_winners(game):
    env = MAKERS[game]()
    env.reset(seed=4)
    state = env.unwrapped.game_state
    final = _play_out(env, seed=4)
    winners = state.winners()
    for i in range(3):
        expected = (1.0 if len(winners) == 1 else 0.0) if i in winners else -1.0
        assert final[f"player_{i}"] == expected


def test_score_diff_shaping_is_zero_sum_and_tracks_scores():
    env = carcassonne_v0.env(players=2, reward_mode="score_diff")
    env.reset(seed=2)
    state = env.unwrapped.game_state
    rng = random.Random(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while not state.is_over:
        obs, *_ = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
        assert abs(sum(env.rewards.values())) < 1e-9
        for a in totals:
            totals[a] += env.rewards[a]
    s = state.scores
    w = state.winners()
    terminal = 0.0 if len(w) > 1 else (1.0 if 0 in w else -1.0)
    assert totals["player_0"] == pytest.approx((s[0] - s[1]) / 100 + terminal)


def test_observation_never_changes_after_it_is_handed_out():
    env = cardcassonne_v0.env(players=2)
    env.reset(seed=0)
    obs, *_ = env.last()
    kept = obs["observation"].copy(), obs["action_mask"].copy()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    env.last()
    assert np.array_equal(obs["observation"], kept[0])
    assert np.array_equal(obs["action_mask"], kept[1])


@pytest.mark.parametrize("game", ["card", "tile"])
def test_render_modes(game, tmp_path):
    from PIL import Image

    env = MAKERS[game](render_mode="rgb_array")
    env.reset(seed=0)
    rng = random.Random(0)
    for _ in range(20):
        obs, *_ = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 8  # a picture, not a blank
    Image.fromarray(img).save(tmp_path / f"{game}.png")
    env.unwrapped.render_mode = "ansi"
    text = env.render()
    assert isinstance(text, str) and "P0" in text or "seat 0" in text


def test_window_overflow_is_reported():
    env = carcassonne_v0.env(players=2, window=5)
    env.reset(seed=0)
    rng = random.Random(0)
    flagged = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        while env.agents and not flagged:
            agent = env.agent_selection
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            if info.get("window_overflow"):
                flagged = True
                assert obs["action_mask"].any()  # something is always expressible
                break
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            assert agent
    assert flagged
    assert any("outside the 5x5 window" in str(w.message) for w in caught)
