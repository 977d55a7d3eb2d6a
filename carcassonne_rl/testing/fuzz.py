"""Random-play fuzzing of the envs with invariant checks after every action.

``fuzz(FuzzConfig("carcassonne", 2, ("messages",)), decisions=10**6, seed=0)`` plays
uniformly random legal games through the wrapped PettingZoo env (``last()`` builds the
observation and mask at every step) until ``decisions`` actions have been taken, and checks:

- every step: the agent PettingZoo selects is the engine's ``current_player``; the mask is
  not empty while the game runs and maps exactly onto the engine's legal codes; the
  observation (each part of a ``carcassonne_v1`` dict) has the space's shape and dtype;
  after the action, tiles / cards and followers are conserved and each score equals the sum
  of that seat's score events;
- sampled: an illegal engine code is refused (``IllegalActionError``) with the state
  unchanged; a type-invalid env action (float, ``None``, out of range) is refused with
  the env unchanged; ``clone()`` and ``load_json(to_json())`` copies equal the state and,
  given the rest of the game's actions, end in the same final state; a waiting seat's mask
  is all zeros; tile letters / card kinds and the score events one by one (public API);
  a ``carcassonne_v1`` observation lies in its space and equals ``carcassonne_v0``'s
  encoding of the same position (board planes; globals up to v0's 255 clipping).

A Python exception escaping a game counts as a crash (the run goes on with a new game).
The result is one JSON-able dict: ``{"decisions", "games", "crashes",
"invariant_breaks", "decisions_per_s", ...}`` plus the first few failure messages.
"""

from __future__ import annotations

import json
import random
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_rl.games import registry

from .fuzz_checks import CardChecks, TileChecks

VERSIONS = ("v0", "v1")  # v1: carcassonne_v1 (the tile game's compact observation)
ILLEGAL_CHECK_EVERY = 53  # decisions between two refused-illegal-action checks
COPY_CHECK_EVERY = 211  # decisions between two clone / JSON round-trip checks
OTHER_SEAT_CHECK_EVERY = 101  # decisions between two checks of a waiting seat's observation
THOROUGH_CHECK_EVERY = 29  # decisions between two checks by tile letter / card kind / event
MAX_MESSAGES = 5  # failure messages kept per kind


@dataclass(frozen=True)
class FuzzConfig:
    """One env configuration: game, number of seats, tile-game expansions, env version
    (``"v1"``: ``carcassonne_v1``, tile game only)."""

    game: str = "carcassonne"
    players: int = 2
    expansions: tuple[str, ...] = ()
    version: str = "v0"

    def __post_init__(self) -> None:
        registry.check_setup(self.game, self.players, self.expansions)
        if self.version not in VERSIONS:
            raise ValueError(f"version must be one of {VERSIONS}, got {self.version!r}")
        if self.version != "v0" and self.game != "carcassonne":
            raise ValueError(f"{self.game} has only v0; v1 is the tile game's (carcassonne)")

    @property
    def name(self) -> str:
        """E.g. ``carcassonne_v0 p2 messages+labyrinth``."""
        extra = f" {'+'.join(self.expansions)}" if self.expansions else ""
        return f"{self.game}_{self.version} p{self.players}{extra}"

    def make_env(self):
        """The wrapped PettingZoo env of this configuration."""
        if self.game == "carcassonne":
            from carcassonne_rl.envs import carcassonne_v0, carcassonne_v1

            module = carcassonne_v1 if self.version == "v1" else carcassonne_v0
            return module.env(players=self.players, expansions=self.expansions)
        from carcassonne_rl.envs import cardcassonne_v0

        return cardcassonne_v0.env(players=self.players)


# Both games at 2-5 seats, and every tile expansion set (at 2 and 4 seats).
STANDARD_CONFIGS: tuple[FuzzConfig, ...] = (
    *(FuzzConfig(game, n) for game in registry.GAMES for n in registry.SPECS[game].players),
    FuzzConfig("carcassonne", 2, ("messages",)),
    FuzzConfig("carcassonne", 2, ("labyrinth",)),
    FuzzConfig("carcassonne", 2, ("messages", "labyrinth")),
    FuzzConfig("carcassonne", 4, ("messages", "labyrinth")),
    FuzzConfig("carcassonne", 4, ("messages",)),
    FuzzConfig("carcassonne", 4, ("labyrinth",)),
    FuzzConfig("carcassonne", 2, version="v1"),
    FuzzConfig("carcassonne", 4, ("messages", "labyrinth"), version="v1"),
)


# --------------------------------------------------------------------------- per-game checks


class _Tally:
    """Counters and the first failure messages of a run."""

    def __init__(self) -> None:
        self.decisions = 0
        self.games = 0
        self.crashes = 0
        self.invariant_breaks = 0
        self.checks: Counter[str] = Counter()
        self.window_overflows = 0
        self.messages: list[str] = []

    def fail(self, message: str) -> None:
        self.invariant_breaks += 1
        if len(self.messages) < MAX_MESSAGES:
            self.messages.append(f"decision {self.decisions}: {message}")

    def crash(self, error: BaseException) -> None:
        self.crashes += 1
        if len(self.messages) < MAX_MESSAGES:
            tail = "".join(traceback.format_exception(error)[-3:])
            self.messages.append(f"crash at decision {self.decisions}: {tail}")


BAD_ENV_ACTIONS: tuple[Callable[[int, int], Any], ...] = (
    lambda a, n: float(a),
    lambda a, n: None,
    lambda a, n: -1,
    lambda a, n: n,
    lambda a, n: np.float32(a),
    lambda a, n: True,
    lambda a, n: str(a),
)


def _env_fingerprint(env: Any, checks: Any) -> tuple:
    raw = env.unwrapped
    return (
        checks.fingerprint(raw.game_state),
        raw.agent_selection,
        tuple(raw.agents),
        repr(raw.terminations),
        repr(raw._cumulative_rewards),
    )


def _check_copies(copies: list[tuple[int, Any, str]], state: Any, checks: Any, tally: _Tally):
    """Continue each sampled copy with the rest of the game's actions; compare the ends."""
    final = checks.fingerprint(state)
    for start, copy, how in copies:
        for code in state.history[start:]:
            copy.apply_code(code)
        tally.checks["copy_continued"] += 1
        if checks.fingerprint(copy) != final:
            tally.fail(f"{how} copy made at action {start} continued to a different end")


def _play_game(env: Any, checks: Any, rng: random.Random, tally: _Tally, limit: int) -> None:
    raw = env.unwrapped
    copies: list[tuple[int, Any, str]] = []
    agents = raw.possible_agents
    space = raw.observation_space(agents[0])
    parts = [k for k in space if k != "action_mask"]  # "observation", or v1's parts
    while raw.agents:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if tally.decisions >= limit:
            return
        state = raw.game_state
        agent = raw.agent_selection
        if state.is_over or agent != agents[state.current_player]:
            tally.fail(f"PettingZoo selects {agent}, the engine seat {state.current_player}")
        for part in parts:
            got, want = obs[part], space[part]
            if got.shape != want.shape or got.dtype != want.dtype:
                tally.fail(f"observation {part} {got.shape} {got.dtype} off its space")
        indices = np.flatnonzero(obs["action_mask"])
        legal = state.legal_action_codes().tolist()
        if indices.size == 0:
            tally.fail(f"empty action mask while the game runs (phase {state.phase})")
            return
        mask_codes = checks.mask_codes(state, indices)
        if sorted(mask_codes) != sorted(legal):
            dropped = checks.dropped(state)
            missing = len(legal) - len(mask_codes)
            if dropped and set(mask_codes) <= set(legal) and missing == dropped:
                tally.window_overflows += 1
            else:
                tally.fail(f"mask codes {sorted(mask_codes)[:8]}... != legal {sorted(legal)[:8]}")
        n = tally.decisions
        if n % OTHER_SEAT_CHECK_EVERY == 0:
            other = agents[(agents.index(agent) + 1) % len(agents)]
            if env.observe(other)["action_mask"].any():
                tally.fail(f"waiting seat {other} has a non-zero mask")
        if n % THOROUGH_CHECK_EVERY == 0 and "board" in parts:
            _check_v1_observation(raw, space, obs, tally)
        if n % ILLEGAL_CHECK_EVERY == 0:
            _check_refusals(env, checks, rng, tally, int(indices[0]))
        if n % COPY_CHECK_EVERY == 0:
            clone = state.clone()
            loaded = checks.load_json(state.to_json())
            here = checks.fingerprint(state)
            for copy, how in ((clone, "clone()"), (loaded, "load_json(to_json())")):
                tally.checks["copy_made"] += 1
                if checks.fingerprint(copy) != here:
                    tally.fail(f"{how} differs from the state it copies")
                copies.append((len(state.history), copy, how))
        action = int(indices[rng.randrange(indices.size)])
        env.step(action)
        tally.decisions += 1
        thorough = n % THOROUGH_CHECK_EVERY == 0
        for problem in (checks.conservation(state, thorough), checks.scores(state, thorough)):
            if problem:
                tally.fail(problem)
    tally.games += 1
    _check_copies(copies, raw.game_state, checks, tally)


def _check_v1_observation(raw: Any, space: Any, obs: dict, tally: _Tally) -> None:
    """A ``carcassonne_v1`` observation: in its space, and v0's planes of the same view."""
    from carcassonne_rl.encoders.tile.encoder import TileEncoder

    tally.checks["v1_observation"] += 1
    if not space.contains(obs):
        tally.fail("carcassonne_v1 observation outside its observation space")
    encoder = raw.encoder
    v0 = TileEncoder(encoder.window, encoder.messages)
    state = raw.game_state
    planes = v0.encode(state, state.current_player)
    if not np.array_equal(encoder.to_planes(obs), planes):
        tally.fail("carcassonne_v1 observation differs from carcassonne_v0's planes")


def _check_refusals(env: Any, checks: Any, rng: random.Random, tally: _Tally, legal_index: int):
    """An illegal engine code and a type-invalid env action are refused, nothing changed."""
    raw = env.unwrapped
    state = raw.game_state
    before = _env_fingerprint(env, checks)
    code = checks.illegal_code(state, rng)
    try:
        state.apply_code(code)
    except ValueError:
        pass
    else:
        tally.fail(f"illegal engine code {code} was accepted in phase {state.phase}")
    bad = BAD_ENV_ACTIONS[rng.randrange(len(BAD_ENV_ACTIONS))](legal_index, raw.num_actions)
    try:
        env.step(bad)
    except (ValueError, TypeError, AssertionError):
        pass
    else:
        tally.fail(f"env.step({bad!r}) was accepted")
    tally.checks["refusals"] += 1
    if _env_fingerprint(env, checks) != before:
        tally.fail(f"a refused action (code {code}, env action {bad!r}) changed the state")


def fuzz(config: FuzzConfig, decisions: int, seed: int = 0) -> dict[str, Any]:
    """Random play of ``config`` until ``decisions`` actions, with every check (see module)."""
    if isinstance(decisions, bool) or not isinstance(decisions, int) or decisions <= 0:
        raise ValueError(f"decisions must be a positive int, got {decisions!r}")
    env = config.make_env()
    env.reset(seed=seed)
    raw = env.unwrapped
    checks = TileChecks(raw) if config.game == "carcassonne" else CardChecks(raw)
    rng = random.Random(seed)
    tally = _Tally()
    start = time.perf_counter()
    first = True
    while tally.decisions < decisions:
        if not first:
            env.reset()
        first = False
        try:
            _play_game(env, checks, rng, tally, decisions)
        except Exception as error:  # noqa: BLE001 - a crash is what the fuzzer counts
            tally.crash(error)
    seconds = time.perf_counter() - start
    env.close()
    return {
        "config": config.name,
        "game": config.game,
        "players": config.players,
        "expansions": list(config.expansions),
        "version": config.version,
        "seed": seed,
        "decisions": tally.decisions,
        "games": tally.games,
        "crashes": tally.crashes,
        "invariant_breaks": tally.invariant_breaks,
        "window_overflows": tally.window_overflows,
        "sampled_checks": dict(sorted(tally.checks.items())),
        "check_every": {
            "refusals": ILLEGAL_CHECK_EVERY,
            "copies": COPY_CHECK_EVERY,
            "waiting_seat": OTHER_SEAT_CHECK_EVERY,
            "by_kind": THOROUGH_CHECK_EVERY,
        },
        "seconds": round(seconds, 1),
        "decisions_per_s": round(tally.decisions / seconds, 1),
        "messages": tally.messages,
    }


def done_configs(results: Path, decisions: int, seed: int) -> set[str]:
    """Names of configurations already in the results file (same seed, at least
    ``decisions``)."""
    done: set[str] = set()
    if results.exists():
        for line in results.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a kill: that config runs again
            if (
                isinstance(row, dict)
                and row.get("seed") == seed
                and row.get("decisions", 0) >= decisions
            ):
                done.add(str(row.get("config")))
    return done


def fuzz_many(
    configs: Iterable[FuzzConfig],
    decisions: int,
    seed: int = 0,
    results: Path | None = None,
    emit: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """Fuzz each configuration in turn; one JSON line each (``emit``, and appended to
    ``results``). With ``results``, configurations already there are skipped."""
    skip = done_configs(results, decisions, seed) if results is not None else set()
    rows = []
    for config in configs:
        if config.name in skip:
            print(f"{config.name}: already in {results}, skipped", file=sys.stderr)
            continue
        row = fuzz(config, decisions, seed)
        line = json.dumps(row)
        if results is not None:
            results.parent.mkdir(parents=True, exist_ok=True)
            with open(results, "a") as out:
                out.write(line + "\n")
        emit(line)
        rows.append(row)
    return rows


def markdown_table(rows: Iterable[dict[str, Any]]) -> str:
    """The fuzz results as a Markdown table (rows as written by :func:`fuzz_many`)."""
    lines = [
        "| config | decisions | games | crashes | invariant breaks | decisions/s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| `{r['config']}` | {r['decisions']:,} | {r['games']:,} | {r['crashes']} "
            f"| {r['invariant_breaks']} | {r['decisions_per_s']:,.0f} |"
        )
    return "\n".join(lines)
