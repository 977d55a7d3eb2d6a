"""``carcassonne-rl agents [--game G]``: every agent family with its keys and every pinned
name with what it is and where its model card is, per game, from the registry and the catalog
(``agents.registry.KEYS``, ``agents.catalog.PINNED``)."""

from __future__ import annotations

import argparse

from carcassonne_rl.games.registry import GAMES


def add_agents_parser(sub) -> None:
    p = sub.add_parser("agents", help="list the agent families, their keys and pinned names")
    p.add_argument("--game", choices=GAMES, default=None, help="one game (default: both)")


def listing(game: str) -> str:
    """The families, pinned names, aliases and deprecated forms of ``game``."""
    from carcassonne_rl.agents.catalog import ALIASES, PINNED
    from carcassonne_rl.agents.registry import DEPRECATED, KEYS, WHAT, family_names

    lines = [f"{game}", "", "families (family or family(key=value, ...)):"]
    for family, per in KEYS.items():
        if game not in per:
            continue
        keys = ", ".join(k.describe() for k in per[game]) or "no keys"
        lines.append(f"  {family}: {WHAT.get(family, '')}; {keys}")
    others = [f for f in family_names() if f not in KEYS]
    if others:
        lines.append(f"  also: {', '.join(others)} (positional forms only)")
    lines += ["", "pinned names (never change meaning; the card page of each):"]
    for entry in PINNED.values():
        if entry.game == game:
            lines.append(f"  {entry.name}: {entry.what} [{', '.join(entry.files)}] "
                         f"{entry.card_page}")  # fmt: skip
    lines += ["", "aliases (resolve to the newest pinned name):"]
    lines += [f"  {alias} -> {name}" for alias, name in ALIASES[game].items()]
    lines += ["", "deprecated positional forms (still accepted) -> named form:"]
    lines += [f"  {old} -> {new}" for old, new in DEPRECATED[game]]
    return "\n".join(lines)


def run_agents(args: argparse.Namespace) -> int:
    games = [args.game] if args.game else list(GAMES)
    print("\n\n".join(listing(g) for g in games))
    return 0
