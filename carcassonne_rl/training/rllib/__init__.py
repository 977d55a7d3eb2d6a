"""RLlib self-play training (``train --backend rllib``).

Ray is imported only inside these modules (``pip install -e ".[ray]"``); the default
install never needs it.

- :mod:`.multi_agent_env`: either game as an RLlib ``MultiAgentEnv`` (turn-based);
- :mod:`.rl_module`: the action-masking RLModule around the networks of ``training.ppo.policies``;
- :mod:`.networks`: those networks for RLlib, and their export;
- :mod:`.trainer`: PPO self-play with a league of frozen snapshots plus the baselines.

The Ray connection (``--address``) is :mod:`carcassonne_rl.runtime.ray_session`; games played
as Ray tasks are :mod:`carcassonne_rl.arena.remote_games`.
"""
