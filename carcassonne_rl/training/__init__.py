"""Training, one sub-package per method over shared run-folder, config, plot and export code.

- :mod:`.ppo`: MaskablePPO self-play (both games) with an opponent pool and a warm start;
- :mod:`.afterstate`: afterstate values learnt from self-play (the shipped tile agent);
- :mod:`.distill`: the observation-only features policy fitted to a teacher's option
  values (``carcassonne-rl distill``, the shipped ``pretrained-obs``);
- :mod:`.rllib`: RLlib PPO self-play (the Ray extra);
- :mod:`.train_config`, :mod:`.run_folder`, :mod:`.run_files`, :mod:`.plots`,
  :mod:`.export`: what the methods share (configs, run folders and their atomic files,
  training curves, tensors-only model export).
"""
