"""Tools that test the envs and engines, for users as for us (as ``pettingzoo.test``).

- :mod:`.fuzz`: random and adversarial play through the envs, with every invariant checked;
- :mod:`.golden`: golden playthroughs (recorded observations, rewards, masks) and their check;
- :mod:`.bench_env`: env steps/s against PettingZoo's connect_four_v3 (and carcassonne_v1's
  against carcassonne_v0's, in the same run);
- :mod:`.bench_engine`: engine decisions/s through the public Python API.
"""
