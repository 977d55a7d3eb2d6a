"""Pure rules engines (no gym/torch imports): ``carcassonne`` (tile game) and ``cardcassonne``."""
