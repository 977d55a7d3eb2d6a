"""The tile game's observation-only policy (numpy): option features read from a
``carcassonne_v1`` observation, and the networks that score them."""
