"""The Ray backend: RLlib self-play training and games played on a Ray cluster.

Beside the local backend (SB3 + process pool), never required by it: Ray is imported only
inside these modules, and only they import it (``pip install -e ".[ray]"``).

- :mod:`.cluster`: connecting to a cluster (``--address`` / ``RAY_ADDRESS``), with clear errors;
- :mod:`.remote_games`: play a list of games (deal, seats, agent specs) as Ray tasks;
- :mod:`.multi_agent_env`: either game as an RLlib ``MultiAgentEnv`` (turn-based);
- :mod:`.rl_module`: the action-masking RLModule around the networks of ``policies.py``;
- :mod:`.trainer`: PPO self-play with a league of frozen snapshots plus the baselines.
"""
