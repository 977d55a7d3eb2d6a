"""Schedules, plays and rates games between agents.

- :mod:`.match`: the game set-up, the schedule of duplicate deals with every seat rotation,
  and playing it (in processes, or as Ray tasks through :mod:`.remote_games`);
- :mod:`.ratings`: win rates with 95% intervals over deals, pairwise tables, Elo;
- :mod:`.report`: the arena's report folder (tables, plot, game records);
- :mod:`.evaluation`: a trained model against the baselines (training and the CLI use it).
"""
