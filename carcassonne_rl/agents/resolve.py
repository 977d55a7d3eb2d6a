"""What a spec resolves to, without building its agent: its named form (the canonical spec,
keys off their defaults only; :func:`to_named` translates a deprecated positional form), the
pinned name it is, the model files its agent loads with their sha256, and the package version
(:func:`record`, behind ``agents.registry.resolution``)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from carcassonne_rl.agents.catalog import (
    PINNED,
    model_or_path,
    pinned_for,
    resolve_alias,
    shipped_model,
)
from carcassonne_rl.agents.keys import KEYS, canonical, check_values, format_value, values
from carcassonne_rl.agents.spec import is_named, parse


def named_record(text: str, game: str) -> tuple[str, list[Path]]:
    """A named spec's canonical form and the model files its agent loads."""
    parsed = parse(text)
    family = parsed.family
    if family in PINNED:
        if parsed.args:
            raise ValueError(f"bad spec {text!r}: a pinned name takes no keys")
        return family, _shipped_files(pinned_for(family, game).files)
    if family not in KEYS:  # a registered or installed family: no keys, no shipped files
        if parsed.args:
            raise ValueError(f"bad spec {text!r}: {family} takes no named keys")
        return family, []
    v, net = spec_values(text, family, parsed.args, game)
    inner: list[Path] = []
    for key in ("agent", "target"):
        if v.get(key) is not None:
            v[key], inner = _record_of(v[key], game)
    named = family if family == "search" and not parsed.args else canonical(family, v, game)
    pinned = resolve_alias(named, game)
    if pinned is not None and family in ("pretrained", "search", "pretrained-obs"):
        return named, _shipped_files(PINNED[pinned].files)
    return named, _named_files(family, v, net, game) + inner


def spec_values(text: str, family: str, args: Any, game: str) -> tuple[dict[str, Any], Path | None]:
    """The checked values of a keyed family's spec ``text`` (its parsed ``args``), a ``net=``
    or ``model=`` value replaced by its canonical name, and the model file or run folder the
    agent loads from (its ``net=``, ``model=`` or ``policy(path=...)``; ``None``: none named).
    ``ValueError`` naming what is wrong."""
    v = values(text, family, args, game)
    check_values(text, family, v, game)
    net = None
    for key in ("net", "model"):
        if v.get(key) is not None:
            v[key], net = (shipped_model if key == "model" else model_or_path)(v[key])
    if family == "policy" and v["path"] is not None:
        net = Path(v["path"])
        if not net.exists():
            raise ValueError(f"bad spec {text!r}: no model file or run folder at {v['path']}")
    return v, net


def _record_of(spec: str, game: str) -> tuple[str, list[Path]]:
    """Any spec's canonical named form and model files."""
    text = spec.strip()
    if is_named(text):
        return named_record(text, game)
    named = to_named(text, game)
    return named, named_record(named, game)[1]


def _named_files(family: str, v: dict[str, Any], net: Path | None, game: str) -> list[Path]:
    """The model files the agent of a named spec's values loads (nested specs' aside)."""
    from carcassonne_rl.agents.pretrained import pretrained_path

    if family == "pretrained":  # with sims (without: the alias)
        return [pretrained_path(game)]
    if family == "search" and game == "carcassonne" or family == "blend":
        return _tile_networks(net)
    if family == "search" and v["base"] == "net":
        return [net] if net is not None else [pretrained_path(game)]
    if family == "policy" and net is not None:
        return [_run_file(net)]
    return []


def _shipped_files(names: tuple[str, ...]) -> list[Path]:
    from carcassonne_rl.agents.pretrained import model_dir

    return [model_dir() / n for n in names if (model_dir() / n).is_file()]


def _tile_networks(net: Path | None) -> list[Path]:
    """The files a tile search or blend over ``net`` (None: the shipped ones) loads."""
    from carcassonne_rl.agents.pretrained import MODEL_FILES, TABLE_MODEL_FILE, TABLE_MODEL_FILES

    two = MODEL_FILES["carcassonne"]
    tables = (TABLE_MODEL_FILE, *TABLE_MODEL_FILES.values())
    if net is None:
        return _shipped_files((two, *tables))
    from carcassonne_rl.agents.tile.afterstate import load_value_net, net_feature_set

    if net_feature_set(load_value_net(net)) == "table":
        return [*_shipped_files((two,)), net]
    return [net, *_shipped_files(tables)]


def _run_file(path: Path) -> Path:
    """The model file a ``policy`` path loads (a run folder's final model)."""
    if path.is_dir():
        for name in ("final_model.npz", "final_model.zip", "final_model.pt2"):
            if (path / name).exists():
                return path / name
    return path


def _model_value(path: str) -> tuple[bool, str]:
    """A deprecated ``@PATH`` or ``policy:PATH`` value as the named language writes it:
    ``(True, the shipped model's key)`` where the old form read a shipped file, else
    ``(False, the path, with ./ before a bare file name)``."""
    from carcassonne_rl.agents.pretrained import model_dir, shipped_or_given

    target = shipped_or_given(path)
    if target.resolve().parent == model_dir().resolve() and target.is_file():
        try:
            return True, shipped_model(target.name)[0]
        except ValueError:
            pass
    return False, path if ("/" in path or "\\" in path) else f"./{path}"


def to_named(spec: str, game: str) -> str:
    """The named equivalent (canonical form) of a deprecated positional spec."""
    text = spec.strip()
    if is_named(text):
        return named_record(text, game)[0]
    head, sep, rest = text.partition(":")
    name = head.lower()
    if sep and name == "policy":
        is_shipped, value = _model_value(rest)
        return f"policy(model={value})" if is_shipped else f"policy(path={rest})"
    if sep and name == "cheat":
        return f"cheat({to_named(rest, game)})"
    if sep and name == "exploit":
        first, _, target = rest.partition(":")
        if first.strip().isdigit():
            return f"exploit(target={to_named(target, game)}, sims={int(first)})"
        return f"exploit(target={to_named(rest, game)})"
    body, at, path = text.partition("@")
    name, *params = body.lower().split(":")
    net = None if not at else _model_value(path)[1]
    if name == "mcts":
        return _canonical_of(
            "mcts",
            {
                "sims": params[0] if params else None,
                "seconds": params[1] if len(params) > 1 else None,
            },
            game,
        )
    if name == "cheat-mcts":
        return _canonical_of("cheat-mcts", {"sims": params[0] if params else None}, game)
    if name == "openspiel":
        return _canonical_of(
            "openspiel", {"bot": params[0], "sims": params[1] if len(params) > 1 else None}, game
        )
    if name == "heuristic" and params:
        from carcassonne_rl.agents.card.search import parse_search

        w, k, h, f = parse_search(params)
        return _canonical_of("search", {"base": "heuristic", "worlds": w, "candidates": k,
                                        "horizon": h, "leaf": f}, game)  # fmt: skip
    if name == "pretrained" and params and params[0].startswith("blend"):
        return _canonical_of("blend", {"weight": params[0].partition("=")[2], "net": net}, game)
    if name == "pretrained" and params and params[0].startswith("search"):
        if params == ["search"] and net is None:
            return "search"  # the alias
        if game == "carcassonne":
            k, eq, _ = params[0].partition("=")[2], "=" in params[0], None
            samples = params[1] if len(params) > 1 else (0 if eq else 2)
            return _canonical_of("search", {"candidates": k or 3, "samples": samples,
                                            "net": net}, game)  # fmt: skip
        from carcassonne_rl.agents.card.search import NET_LEAF, parse_search

        w, k, h, f = parse_search(params, net_leaf=True)
        return _canonical_of(
            "search",
            {
                "worlds": w,
                "candidates": k,
                "horizon": h,
                "leaf": NET_LEAF if f is None else f,
                "net": net,
            },
            game,
        )
    if name == "pretrained" and params:
        return _canonical_of("pretrained", {"sims": params[0]}, game)
    if params:
        raise ValueError(f"bad spec {spec!r}: no named equivalent")
    return name


def _canonical_of(family: str, given: dict[str, Any], game: str) -> str:
    """The canonical named spec of ``family`` with these values (None: the default)."""
    args = tuple((k, format_value(v)) for k, v in given.items() if v is not None)
    text = f"{family}({', '.join(f'{k}={v}' for k, v in args)})"
    v = values(text, family, args, game)
    return canonical(family, v, game)


_SHA256: dict[tuple[str, float, int], str] = {}


def sha256_of(path: Path) -> str:
    """The sha256 of a file (cached by path, modification time and size)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime, stat.st_size)
    if key not in _SHA256:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        _SHA256[key] = digest.hexdigest()
    return _SHA256[key]


def package_version() -> str | None:
    """``carcassonne_rl.__version__``, else the installed distribution's version."""
    import carcassonne_rl

    version = getattr(carcassonne_rl, "__version__", None)
    if version:
        return str(version)
    from importlib import metadata

    try:
        return metadata.version("carcassonne-rl")
    except metadata.PackageNotFoundError:
        return None


def record(spec: str, game: str) -> dict[str, Any]:
    """What ``spec`` resolves to in ``game``: the spec as given, its named form (``named``),
    the pinned name (or None), each model file its agent loads with its sha256, and the
    package version."""
    from carcassonne_rl.agents.pretrained import model_dir

    named, files = _record_of(spec, game)
    shipped = model_dir().resolve()

    def describe(path: Path) -> dict[str, Any]:
        inside = path.resolve().parent == shipped
        return {"file": path.name if inside else str(path), "shipped": inside,
                "sha256": sha256_of(path)}  # fmt: skip

    return {"spec": spec, "named": named, "pinned": resolve_alias(named, game),
            "files": [describe(p) for p in dict.fromkeys(files)],
            "version": package_version()}  # fmt: skip
