"""The named agent spec language: ``family`` or ``family(key=value, ...)``.

Values are numbers, words, paths or nested specs (``cheat(search(worlds=8))``,
``exploit(target=pretrained, sims=200)``); an argument without ``key=`` is positional (only a
family with one leading key takes one). Lists (``--agents a,b``) split on the commas outside
parentheses (:func:`split_specs`). What the keys of a family are, their types and defaults, is
the registry's business (``carcassonne_rl.agents.registry``): this module only parses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: a family's or a pinned name's spelling
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ParsedSpec:
    """A named spec: its family (lower case) and its arguments as written, in order:
    ``(key or None for a positional one, value text)``."""

    family: str
    args: tuple[tuple[str | None, str], ...]


def is_named(text: str) -> bool:
    """Whether ``text`` is written in the named language (``family(...)`` or a bare name
    without the positional forms' ``:``, ``@`` and ``=``)."""
    text = text.strip()
    if "(" in text:
        return True
    return NAME.fullmatch(text) is not None


def _split(text: str, spec: str) -> list[str]:
    """``text`` split on its commas outside parentheses (``spec``: for messages)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"bad spec {spec!r}: a ')' without its '('")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"bad spec {spec!r}: a '(' without its ')'")
    parts.append(text[start:])
    return parts


def split_specs(text: str) -> list[str]:
    """The agent specs of a comma-separated list, split only outside parentheses
    (``"greedy,search(candidates=3, samples=2)"`` -> two specs); empty items dropped."""
    return [part.strip() for part in _split(text, text) if part.strip()]


def parse(text: str) -> ParsedSpec:
    """``family`` or ``family(key=value, ...)`` -> :class:`ParsedSpec` (one ``ValueError``
    line when it is malformed)."""
    spec = text.strip()
    head, paren, rest = spec.partition("(")
    name = head.strip()
    if not NAME.fullmatch(name):
        raise ValueError(f"bad spec {spec!r}: expected family or family(key=value, ...)")
    if not paren:
        return ParsedSpec(name.lower(), ())
    if not rest.rstrip().endswith(")"):
        raise ValueError(f"bad spec {spec!r}: expected family(key=value, ...) ending in ')'")
    body = rest.rstrip()[:-1]
    if "(" not in body and ")" in body:
        raise ValueError(f"bad spec {spec!r}: a ')' without its '('")
    args: list[tuple[str | None, str]] = []
    parts = _split(body, spec)
    if len(parts) == 1 and not parts[0].strip():
        return ParsedSpec(name.lower(), ())
    for part in parts:
        part = part.strip()
        key, eq, value = part.partition("=")
        nested = "(" in key
        if eq and not nested:
            key = key.strip()
            if not KEY.fullmatch(key):
                raise ValueError(f"bad spec {spec!r}: bad key {key!r}")
            if not value.strip():
                raise ValueError(f"bad spec {spec!r}: key {key!r} has no value")
            if key.lower() in (k for k, _ in args):
                raise ValueError(f"bad spec {spec!r}: key {key!r} given twice")
            args.append((key.lower(), value.strip()))
        else:
            if not part:
                raise ValueError(f"bad spec {spec!r}: an empty argument")
            if any(k is not None for k, _ in args):
                raise ValueError(f"bad spec {spec!r}: a positional argument after key=value")
            args.append((None, part))
    return ParsedSpec(name.lower(), tuple(args))
