"""MaskablePPO self-play (sb3-contrib) for both games: the policies, an opponent pool of past
snapshots and baselines, and a behaviour-cloning warm start."""
