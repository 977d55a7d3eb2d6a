"""Afterstate values learnt from self-play, TD-Gammon style (the shipped tile-game agent)."""
