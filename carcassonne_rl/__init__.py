"""carcassonne-rl: RL environments for the Carcassonne tile game and Cardcassonne."""

__version__ = "0.1.0"
