"""Search and network code shared by both games' agents: the UCT core and the numpy MLP."""
