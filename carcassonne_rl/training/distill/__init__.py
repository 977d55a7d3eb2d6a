"""Distillation of a teacher's option values into the tile ``features`` policy (see
``agents/tile/obs_policy/feature_net.py``): :mod:`.demos` plays and reads the demonstrations,
:mod:`.fit` trains the two option-scoring heads and exports them for numpy play."""
