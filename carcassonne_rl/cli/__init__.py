"""The ``carcassonne-rl`` command: one module per command, over the rooms below.

The console script is :func:`carcassonne_rl.cli.main.main`.
"""
