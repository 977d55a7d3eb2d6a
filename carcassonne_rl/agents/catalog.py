"""Pinned agent names: every shipped agent as ``<game>-<role>-v<N>``, a name that never
changes meaning, and the aliases (``pretrained``, ``search``, ``pretrained-obs``) that
resolve to the newest of a role (a family's spec with keys is not an alias: the card
game's ``search(infer=none)``, every key at its default, is ``card-search-v1``).

``<game>`` is ``tile`` (carcassonne) or ``card`` (cardcassonne); ``<role>`` is ``net`` (the
one-move agent ``pretrained`` plays), ``search`` (``pretrained:search``), ``obs``
(``pretrained-obs``, tile game) or ``heuristic`` (the card ``heuristic`` baseline, pinned since
its behaviour changed); ``<N>`` is the version within the role. When an alias moves
to a new agent, that agent gets the next ``N`` and the old name keeps building the old agent.
Each entry says what it is, the model files it loads (shipped under
``carcassonne_rl/agents/pretrained_models/``) and the page of its model card
(``docs/models/<models.json key>.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the short game names of pinned names
GAME_PREFIX = {"carcassonne": "tile", "cardcassonne": "card"}


@dataclass(frozen=True)
class Pinned:
    """One shipped agent under its pinned name."""

    name: str
    game: str
    what: str
    #: the shipped model files it loads (those this installation has)
    files: tuple[str, ...]
    #: the models.json key of its model card (``docs/models/<card>.md``)
    card: str
    #: ``build(seed)`` -> the agent
    build: Callable[[int | None], Any]
    #: the named specs (canonical form) that build exactly this agent
    same_as: tuple[str, ...] = ()
    #: the page describing it when it has no model card (a baseline)
    page: str | None = None

    @property
    def card_page(self) -> str:
        return self.page or f"docs/models/{self.card}.md"


def _shipped(function: str, *args: Any, **kwargs: Any) -> Callable[[int | None], Any]:
    """``build(seed)`` calling ``agents.pretrained.<function>(*args, seed, **kwargs)``."""

    def build(seed: int | None) -> Any:
        from carcassonne_rl.agents import pretrained

        return getattr(pretrained, function)(*args, seed, **kwargs)

    return build


def _card_net(file: str) -> Callable[[int | None], Any]:
    return _shipped("make_card_net", file)


def _card_heuristic(misplaced: str) -> Callable[[int | None], Any]:
    """``build(seed)`` of the card heuristic under the row tally's ``misplaced`` rule."""

    def build(seed: int | None) -> Any:
        from carcassonne_rl.agents.card.heuristic import CardHeuristicAgent

        return CardHeuristicAgent(seed, misplaced=misplaced)

    return build


def _card_search_inferring(model: str, factor: int, evidence: str = "views"
                           ) -> Callable[[int | None], Any]:  # fmt: skip
    """``build(seed)`` of ``card-search-v1`` with inference by ``model`` from ``factor``
    candidate worlds per world searched, the moves read as ``evidence`` (the spec
    ``search(infer=MODEL, pool=FACTOR, evidence=EVIDENCE)``)."""

    def build(seed: int | None) -> Any:
        from carcassonne_rl.agents import pretrained
        from carcassonne_rl.agents.card.inference import with_inference

        search = pretrained.make_card_search(["search"], seed)
        return with_inference(search, model, factor, evidence=evidence)

    return build


_TILE_TABLES = ("carcassonne_table.npz", "carcassonne_table_greedy.npz")
_TILE_OBS = ("carcassonne_obs.npz", "carcassonne_obs_4p.npz", "carcassonne_obs_5p.npz")

def _tile_search_over(version: int, key: str) -> Pinned:
    """``tile-search-vN``: the tile search over ``tile-net-vN``'s 2-player network, the
    shipped model ``key``, alone at 2 players (``search(net=KEY)``)."""
    return Pinned(f"tile-search-v{version}", "carcassonne",
                  "expectimax over the next tile, 3 candidates, 2 samples, from the seat's view: "
                  f"{key}.npz alone at 2 players (tile-net-v{version}'s network), the "
                  "table networks at 3-5 as tile-search-v2",
                  (f"{key}.npz", *_TILE_TABLES), key,
                  _shipped("make_tile_search", ["search", f"@{key}.npz"]),
                  (f"search(net={key})",))  # fmt: skip


def _tile_net_with_tables(version: int, what: str, key: str, tables: dict[int, str],
                          obs: bool = True) -> Pinned:  # fmt: skip
    """``tile-net-vN``: the shipped 2-player network ``key`` alone at 2 players, the table
    networks ``tables`` (file by number of players, each averaged as its file says) at
    those tables, the shipped table networks at the others; with ``obs``, the observation
    network where ``pretrained`` played it (``table_agent.OBS_TABLES``), else nowhere."""
    files = (f"{key}.npz", *dict.fromkeys(tables.values()), *_TILE_TABLES,
             *(_TILE_OBS if obs else ()))  # fmt: skip
    more = {} if obs else {"obs_tables": ()}
    return Pinned(f"tile-net-v{version}", "carcassonne", what, files, key,
                  _shipped("make_tile_net", f"{key}.npz", table_files=tables, **more))


#: every pinned name, newest of each role last
PINNED: dict[str, Pinned] = {p.name: p for p in (
    Pinned("tile-net-v1", "carcassonne",
           "2 players: carcassonne_2p.npz averaged 0.75/0.25 with the heuristic; 3-5 as "
           "tile-net-v2", ("carcassonne_2p.npz", *_TILE_TABLES, *_TILE_OBS), "carcassonne_2p",
           _shipped("make_tile_net_v1")),
    Pinned("tile-net-v2", "carcassonne",
           "2 players: expert iteration's network alone; 3-5: the table networks averaged "
           "with the heuristic (the observation network at 5 without The Messages)",
           ("carcassonne_2p_expert.npz", *_TILE_TABLES, *_TILE_OBS), "carcassonne_2p_expert",
           _shipped("make_tile_net", "carcassonne_2p_expert.npz")),
    Pinned("tile-net-v3", "carcassonne",
           "2 players: the network of two more expert iterations from tile-net-v2's, alone; "
           "3-5 as tile-net-v2", ("carcassonne_2p_expert3.npz", *_TILE_TABLES, *_TILE_OBS),
           "carcassonne_2p_expert3", _shipped("make_tile_net", "carcassonne_2p_expert3.npz")),
    _tile_net_with_tables(
        4, "2 players: tile-net-v3's network fitted on the teacher games of both its steps, "
        "alone; 3 players: the table network its search, averaged with the heuristic, "
        "taught against greedy seats, averaged so; 4-5 as tile-net-v2",
        "carcassonne_2p_expert4", {3: "carcassonne_table_3p.npz"}),
    _tile_net_with_tables(
        5, "2 players as tile-net-v4; 3 players: tile-net-v4's table network fitted on its "
        "own search's games against greedy seats with a ranking term, averaged with the "
        "heuristic as its file says; 4-5 as tile-net-v2",
        "carcassonne_2p_expert4", {3: "carcassonne_table_3p_rank.npz"}),
    _tile_net_with_tables(
        6, "2 players as tile-net-v4; 3 players: tile-net-v5's table network fitted the same "
        "way on its own search's games against greedy seats, averaged with the heuristic as "
        "its file says; 4-5 as tile-net-v2",
        "carcassonne_2p_expert4", {3: "carcassonne_table_3p_rank2.npz"}),
    _tile_net_with_tables(
        7, "2 players: tile-net-v4's network fitted with a ranking term on the games of "
        "its own search, alone; 3 players as tile-net-v6; 4-5 as tile-net-v2",
        "carcassonne_2p_expert5", {3: "carcassonne_table_3p_rank2.npz"}),
    _tile_net_with_tables(
        8, "2-4 players as tile-net-v7; 5 players: tile-net-v6's 3-player table network, "
        "averaged with the heuristic as its file says, with or without the expansions (no "
        "observation network)", "carcassonne_2p_expert5",
        {3: "carcassonne_table_3p_rank2.npz", 5: "carcassonne_table_3p_rank2.npz"}, obs=False),
    Pinned("tile-search-v1", "carcassonne",
           "expectimax over the next tile, 3 candidates, 2 samples: carcassonne_2p.npz averaged "
           "with the heuristic at 2 players, the table networks at 3-5; handed the full state "
           "(a tile drawn after a candidate that fits nowhere comes from the true pile)",
           ("carcassonne_2p.npz", *_TILE_TABLES), "carcassonne_2p",
           _shipped("make_tile_search_v1")),
    Pinned("tile-search-v2", "carcassonne",
           "tile-search-v1 deciding from the seat's view (such a tile comes from the undrawn "
           "tiles in sorted order)", ("carcassonne_2p.npz", *_TILE_TABLES), "carcassonne_2p",
           _shipped("make_tile_search", ["search"])),
    _tile_search_over(3, "carcassonne_2p_expert3"),
    _tile_search_over(4, "carcassonne_2p_expert4"),
    Pinned("tile-obs-v1", "carcassonne",
           "the policy reading only the carcassonne_v1 observation (one network per table size)",
           _TILE_OBS, "carcassonne_obs", _shipped("make_pretrained_obs")),
    Pinned("card-net-v1", "cardcassonne", "the MaskablePPO policy network",
           ("cardcassonne_2p.npz",), "cardcassonne_2p", _card_net("cardcassonne_2p.npz"),
           ("policy(model=cardcassonne_2p)",)),
    Pinned("card-net-v2", "cardcassonne",
           "expert iteration's search-value network ranking the heuristic's 3 best options",
           ("cardcassonne_expert.npz",), "cardcassonne_expert",
           _card_net("cardcassonne_expert.npz"), ("policy(model=cardcassonne_expert)",)),
    Pinned("card-net-v3", "cardcassonne",
           "card-net-v2's network fine-tuned by Monte Carlo against the heuristic",
           ("cardcassonne_dmc.npz",), "cardcassonne_dmc", _card_net("cardcassonne_dmc.npz"),
           ("policy(model=cardcassonne_dmc)",)),
    Pinned("card-net-v4", "cardcassonne",
           "expert iteration with the network valuing the search's leaves (search-value "
           "network ranking the heuristic's 3 best options)",
           ("cardcassonne_netleaf.npz",), "cardcassonne_netleaf",
           _shipped("make_pretrained", "cardcassonne", None),
           ("policy(model=cardcassonne_netleaf)",)),
    Pinned("card-search-v1", "cardcassonne",
           "8 sampled worlds, 3 candidates, 1 round of card-net-v4 rollouts; the leaf valued "
           "by the network at 2 players, by the standings at 3-5",
           ("cardcassonne_netleaf.npz",), "cardcassonne_netleaf",
           _shipped("make_card_search", ["search"]), ("search(infer=none)",)),
    Pinned("card-search-v2", "cardcassonne",
           "card-search-v1 with its 8 worlds resampled from 24 by how likely each makes the "
           "other seat's play this round (the heuristic's choice probabilities); at 3-5 "
           "players card-search-v1", ("cardcassonne_netleaf.npz",), "cardcassonne_netleaf",
           _card_search_inferring("heuristic", 3), ("search(infer=heuristic, pool=3)",)),
    Pinned("card-search-v3", "cardcassonne",
           "card-search-v2 reading the others' moves from the view's turn log, so at every "
           "table size: its 8 worlds resampled from 24 by how likely each makes the other "
           "seats' play this round (the heuristic's choice probabilities, the temperature "
           "fitted per table size)", ("cardcassonne_netleaf.npz",), "cardcassonne_netleaf",
           _card_search_inferring("heuristic", 3, "turns"),
           ("search", "search(infer=heuristic, pool=3, evidence=turns)")),
    Pinned("card-heuristic-v1", "cardcassonne",
           "the card heuristic valuing a misplaced face-down card apart from its row: 10, or "
           "what keeping it adds to the seat's holdings alone if more", (), "",
           _card_heuristic("apart"), page="docs/agents.md"),
    Pinned("card-heuristic-v2", "cardcassonne",
           "the card heuristic valuing a misplaced face-down card as the seat will choose: card "
           "by card, the larger of 10 and what keeping it adds to the claim", (), "",
           _card_heuristic("best"), ("heuristic",), page="docs/agents.md"),
)}  # fmt: skip

#: per game, the aliases and the pinned name each resolves to now
ALIASES: dict[str, dict[str, str]] = {
    "carcassonne": {"pretrained": "tile-net-v8", "pretrained:search": "tile-search-v4",
                    "search": "tile-search-v4", "pretrained-obs": "tile-obs-v1"},
    "cardcassonne": {"pretrained": "card-net-v4", "pretrained:search": "card-search-v3",
                     "search": "card-search-v3", "heuristic": "card-heuristic-v2"},
}  # fmt: skip


def pinned_for(name: str, game: str) -> Pinned:
    """The pinned agent ``name`` of ``game`` (one clear message for the other game's name)."""
    entry = PINNED[name]
    if entry.game != game:
        raise ValueError(
            f"{name} is a {GAME_PREFIX[entry.game]}-game agent ({entry.game}); the {game} "
            f"agents' pinned names start with {GAME_PREFIX[game]}- (e.g. "
            f"{ALIASES[game]['pretrained']})"
        )
    return entry


def resolve_alias(spec: str, game: str) -> str | None:
    """The pinned name that ``spec`` (an alias, a pinned name, or a canonical named spec)
    resolves to in ``game``, or None."""
    key = spec.strip().lower()
    if key in PINNED:
        return key if PINNED[key].game == game else None
    if key in ALIASES.get(game, {}):
        return ALIASES[game][key]
    for entry in PINNED.values():
        if entry.game == game and key in entry.same_as:
            return entry.name
    return None


def shipped_model(text: str) -> tuple[str, Path]:
    """``(models.json key, file)`` of the shipped model named by its key or file name."""
    from carcassonne_rl.agents.pretrained import model_dir, model_info

    info = model_info()
    name = text.strip()
    for key, entry in info.items():
        if name in (key, entry.get("file")):
            path = model_dir() / entry["file"]
            if not path.is_file():
                raise ValueError(f"shipped model {name} is not in this installation ({path})")
            return key, path
    raise ValueError(f"{name!r} is not a shipped model (models.json keys: {', '.join(info)}); "
                     "a local file is a path: write ./FILE")  # fmt: skip


def model_or_path(text: str) -> tuple[str, Path]:
    """A ``net=`` value: a shipped model (a bare name) or a path (with a '/') ->
    ``(how a canonical spec writes it, file)``."""
    if "/" in text or "\\" in text:
        path = Path(text)
        if not path.is_file():
            raise ValueError(f"no such network file {text}")
        return text, path
    return shipped_model(text)
