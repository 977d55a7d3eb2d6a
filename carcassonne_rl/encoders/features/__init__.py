"""Feature vectors of the afterstate value networks (the 2-player ``two_player`` set and the
2-5 seat ``table`` set)."""
