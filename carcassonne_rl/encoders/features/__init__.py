"""Feature vectors of the afterstate value networks (the 2-player ``v1`` set and the 2-5
seat ``table`` set)."""
