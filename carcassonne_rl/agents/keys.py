"""The keys of every agent family of the named spec language, per game: one table
(:data:`KEYS`) with each key's type, default and meaning, and what each family is
(:data:`WHAT`); a spec's values checked against it, one ``ValueError`` line per mistake
listing the valid keys (:func:`values`); the canonical form of a spec (:func:`canonical`);
the deprecated positional forms with their named equivalents (:data:`DEPRECATED`); and the
few lines of ``--help`` (:func:`families_help`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from carcassonne_rl.games.registry import GAMES

#: a key without a default must be given
REQUIRED = object()


@dataclass(frozen=True)
class Key:
    """One key of a family: its name, what its values are (for messages and listings), its
    default (:data:`REQUIRED`: none) and its parser (a bare ``ValueError`` on a bad value)."""

    name: str
    kind: str
    default: Any
    parse: Callable[[str], Any]

    def describe(self) -> str:
        if self.default is REQUIRED:
            return f"{self.name} ({self.kind}, required)"
        shown = "none" if self.default is None else format_value(self.default)
        return f"{self.name} ({self.kind}, default {shown})"


def format_value(value: Any) -> str:
    """A value as a named spec writes it (``0.75``, ``1``, ``8``, ``net``)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def _int_at_least(low: int) -> Callable[[str], int]:
    def parse_int(text: str) -> int:
        value = int(text)
        if value < low:
            raise ValueError
        return value

    return parse_int


def _positive_float(text: str) -> float:
    value = float(text)
    if not 0.0 < value < float("inf"):
        raise ValueError
    return value


def _weight(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError
    return value


def _leaf(text: str) -> str | float:
    word = text.strip().lower()
    if word in ("net", "table"):
        return word
    value = float(word)
    if not 0.0 <= value < float("inf"):
        raise ValueError
    return value


def _word(*choices: str) -> Callable[[str], str]:
    def parse_word(text: str) -> str:
        word = text.strip().lower()
        if word not in choices:
            raise ValueError
        return word

    return parse_word


def _infer(text: str) -> str | None:
    word = _word("none", "policy", "heuristic")(text)
    return None if word == "none" else word


def _text(text: str) -> str:
    if not text.strip():
        raise ValueError
    return text.strip()


SIMS = Key("sims", "int >= 1", 1000, _int_at_least(1))
MODEL = "a shipped model (its models.json key or file name) or a path with a '/'"
_TILE_SEARCH = (
    Key("candidates", "int >= 1", 3, _int_at_least(1)),
    Key("samples", "int >= 0: sampled continuations per reply", 2, _int_at_least(0)),
    Key("net", MODEL, None, _text),
)
_CARD_SEARCH = (
    Key("base", "net or heuristic: the policy ranking and playing the rollouts", "net",
        _word("net", "heuristic")),
    Key("net", MODEL + " (base=net)", None, _text),
    Key("worlds", "int >= 1: worlds sampled from the seat's view", 8, _int_at_least(1)),
    Key("candidates", "int >= 1", 3, _int_at_least(1)),
    Key("horizon", "int >= 1: rounds played on", 1, _int_at_least(1)),
    Key("leaf", "net, table (net at 2 players, 1 at 3-5) or a weight >= 0 of the future "
        "(base=heuristic: a weight, 1 by default)", "table", _leaf),
    Key("infer", "none, policy or heuristic: worlds resampled by how likely each makes the "
        "other seats' play this round", None, _infer),
    POOL := Key("pool", "int >= 1 (with infer): candidate worlds drawn per world searched, the "
                "worlds resampled from them", 2, _int_at_least(1)),
    EVIDENCE := Key("evidence", "views or turns (with infer): the others' moves this round "
                    "read by comparing the seat's own views (2 players only) or from the "
                    "view's turn log (every table size)", "views", _word("views", "turns")),
)  # fmt: skip
_BOTH = tuple(GAMES)
GAME_WORDS = {"carcassonne": "the tile game (carcassonne)",
              "cardcassonne": "the card game (cardcassonne)"}  # fmt: skip

#: every family of the named language: per game, its keys (in the order a canonical spec
#: writes them); a family absent for a game does not play it
KEYS: dict[str, dict[str, tuple[Key, ...]]] = {
    "random": dict.fromkeys(_BOTH, ()),
    "greedy": dict.fromkeys(_BOTH, ()),
    "heuristic": dict.fromkeys(_BOTH, ()),
    "mcts": dict.fromkeys(_BOTH, (
        SIMS, Key("seconds", "float > 0: at most this per decision", None, _positive_float))),
    "pretrained": dict.fromkeys(_BOTH, (
        Key("sims", "int >= 1: network-guided search (none: the shipped one-move agent)",
            None, _int_at_least(1)),)),
    "search": {"carcassonne": _TILE_SEARCH, "cardcassonne": _CARD_SEARCH},
    "blend": {"carcassonne": (
        Key("weight", "float in [0, 1]: the network's share (1: the network alone)", REQUIRED,
            _weight),
        Key("net", MODEL, None, _text))},
    "pretrained-obs": {"carcassonne": ()},
    "policy": dict.fromkeys(_BOTH, (
        Key("path", "a model file or run folder saved by a trainer", None, _text),
        Key("model", "a shipped model: its models.json key or file name", None, _text))),
    "cheat": {"cardcassonne": (Key("agent", "a card search spec", REQUIRED, _text),
                               Key("told", "float in [0, 1]: the share of the other seats' "
                                   "hidden cards it reads, drawn each decision", 1.0, _weight))},
    "cheat-mcts": {"cardcassonne": (SIMS,)},
    "exploit": {"cardcassonne": (Key("target", "the frozen agent's spec", REQUIRED, _text),
                                 SIMS)},
    "openspiel": dict.fromkeys(_BOTH, (Key("bot", "mcts or ismcts", REQUIRED,
                                           _word("mcts", "ismcts")), SIMS)),
}  # fmt: skip
#: the families whose first key may be given without ``key=`` (a nested spec, a bot)
POSITIONAL = ("cheat", "exploit", "openspiel")

#: what each family is, one line (``carcassonne-rl agents``, ``--help``)
WHAT = {
    "random": "a uniformly random legal move",
    "greedy": "the move scoring most now",
    "heuristic": "one move ahead with a stronger estimate",
    "mcts": "Monte-Carlo tree search (the card game: over sampled hidden cards)",
    "pretrained": "the shipped network (alias of the newest pinned one; sims: searched)",
    "search": "the shipped search (no keys: alias of the newest pinned one)",
    "blend": "the table's value network averaged with the heuristic",
    "pretrained-obs": "the shipped policy reading only the observation (alias)",
    "policy": "a trained model: path= a file or run folder, model= a shipped model",
    "cheat": "a card search on the true hands (a measuring instrument: sees hidden cards)",
    "cheat-mcts": "mcts on the true hands (a measuring instrument: sees hidden cards)",
    "exploit": "a search best-responding to a frozen target agent (a probe)",
    "openspiel": "OpenSpiel's bots (the openspiel extra)",
}

#: the deprecated positional forms per game, with their named equivalents
DEPRECATED: dict[str, tuple[tuple[str, str], ...]] = {
    "carcassonne": (
        ("mcts:SIMS[:SECONDS]", "mcts(sims=SIMS, seconds=SECONDS)"),
        ("pretrained:SIMS", "pretrained(sims=SIMS)"),
        ("pretrained:search[=K[:S]][@NET]", "search(candidates=K, samples=S, net=NET)"),
        ("pretrained:blend=W[@NET]", "blend(weight=W, net=NET)"),
        ("policy:PATH", "policy(path=PATH) or policy(model=KEY)"),
        ("openspiel:BOT[:SIMS]", "openspiel(bot=BOT, sims=SIMS)"),
    ),
    "cardcassonne": (
        ("mcts:SIMS[:SECONDS]", "mcts(sims=SIMS, seconds=SECONDS)"),
        ("pretrained:SIMS", "pretrained(sims=SIMS)"),
        ("pretrained:search[=W[:K[:H[:F]]]][@NET]",
         "search(worlds=W, candidates=K, horizon=H, leaf=F, net=NET)"),
        ("heuristic:search[=W[:K[:H[:F]]]]",
         "search(base=heuristic, worlds=W, candidates=K, horizon=H, leaf=F)"),
        ("cheat-mcts[:SIMS]", "cheat-mcts(sims=SIMS)"),
        ("cheat:SEARCH", "cheat(SEARCH)"),
        ("exploit[:SIMS]:TARGET", "exploit(target=TARGET, sims=SIMS)"),
        ("policy:PATH", "policy(path=PATH) or policy(model=KEY)"),
        ("openspiel:BOT[:SIMS]", "openspiel(bot=BOT, sims=SIMS)"),
    ),
}  # fmt: skip


def families_help(game: str | None = None) -> str:
    """The families of ``game`` (both games: None) with their keys, and the pinned names, in
    a few lines for ``--help`` and messages."""
    from carcassonne_rl.agents.catalog import GAME_PREFIX, PINNED

    parts = []
    for family, per in KEYS.items():
        shapes: dict[str, list[str]] = {}
        for g, keys in per.items():
            if game in (None, g):
                text = f"{family}({', '.join(k.name for k in keys)})" if keys else family
                shapes.setdefault(text, []).append(GAME_PREFIX[g])
        for text, games in shapes.items():
            only = f" [{games[0]}]" if game is None and len(per) == 1 or len(shapes) > 1 else ""
            parts.append(text + only)
    pinned = [p.name for p in PINNED.values() if game in (None, p.game)]
    return (f"agent specs, family or family(key=value, ...): {', '.join(parts)}; pinned names: "
            f"{', '.join(pinned)}; their keys and deprecated forms: carcassonne-rl agents "
            "(a shell needs quotes around parentheses)")  # fmt: skip


def keys_message(family: str, game: str) -> str:
    keys = KEYS[family][game]
    if not keys:
        return f"{family} takes no keys"
    return f"the keys of {family} in {game}: " + "; ".join(k.describe() for k in keys)


def values(spec: str, family: str, args: tuple[tuple[str | None, str], ...],
            game: str) -> dict[str, Any]:  # fmt: skip
    """The keys' values of a named spec (defaults filled in), or one message naming the
    wrong key or value and listing the valid ones."""
    per = KEYS[family]
    if game not in per:
        raise ValueError(f"{family} plays {' and '.join(GAME_WORDS[g] for g in per)} only")
    keys = {k.name: k for k in per[game]}
    given: dict[str, str] = {}
    for i, (key, text) in enumerate(args):
        if key is None:
            if i > 0 or family not in POSITIONAL:
                raise ValueError(
                    f"bad spec {spec!r}: write key=value; {keys_message(family, game)}"
                )
            key = per[game][0].name
        if key not in keys:
            raise ValueError(f"bad spec {spec!r}: {family} has no key {key!r}; "
                             f"{keys_message(family, game)}")  # fmt: skip
        given[key] = text
    values: dict[str, Any] = {}
    for name, key in keys.items():
        if name not in given:
            if key.default is REQUIRED:
                raise ValueError(f"bad spec {spec!r}: {family} needs {name}; "
                                 f"{keys_message(family, game)}")  # fmt: skip
            values[name] = key.default
            continue
        try:
            values[name] = key.parse(given[name])
        except ValueError:
            raise ValueError(f"bad spec {spec!r}: {name}={given[name]} is not {key.kind}; "
                             f"{keys_message(family, game)}") from None  # fmt: skip
    return values


def check_values(spec: str, family: str, v: dict[str, Any], game: str) -> None:
    """Checks across keys: one message each."""
    if family == "policy" and (v["path"] is None) == (v["model"] is None):
        raise ValueError(f"bad spec {spec!r}: policy needs exactly one of path= and model=; "
                         f"{keys_message(family, game)}")  # fmt: skip
    card_search = family == "search" and game == "cardcassonne"
    for key in (POOL, EVIDENCE) if card_search and v["infer"] is None else ():
        if v[key.name] != key.default:
            raise ValueError(f"bad spec {spec!r}: {key.name}= needs infer=policy or "
                             "infer=heuristic")  # fmt: skip
    if family == "search" and game == "cardcassonne" and v["base"] == "heuristic":
        if v["net"] is not None:
            raise ValueError(f"bad spec {spec!r}: net= needs base=net")
        if v["leaf"] == "net":
            raise ValueError(f"bad spec {spec!r}: leaf=net needs base=net")


def canonical(family: str, v: dict[str, Any], game: str) -> str:
    """The named spec of these values, writing only the keys off their defaults. A search with
    keys, every one at its default, is not bare ``search`` (the alias of the newest pinned
    search): in the card game it is ``search(infer=none)``, ``card-search-v1`` (the alias
    reads the other seat's play), in the tile game ``tile-search-v2`` (the alias searches
    another network)."""
    parts = []
    for key in KEYS[family][game]:
        value = v[key.name]
        if family == "search" and key.name == "leaf" and v.get("base") == "heuristic":
            if value in ("table", 1.0):
                continue
        elif value == key.default:
            continue
        parts.append(f"{key.name}={format_value(value)}")
    if not parts and family == "search":  # bare ``search`` is the alias of the newest search
        return {"cardcassonne": "search(infer=none)", "carcassonne": "tile-search-v2"}[game]
    return f"{family}({', '.join(parts)})" if parts else family
