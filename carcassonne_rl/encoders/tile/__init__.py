"""Tile-game observation encoders (``carcassonne_v0``/``v1``), their Numba kernels and
symmetries."""
