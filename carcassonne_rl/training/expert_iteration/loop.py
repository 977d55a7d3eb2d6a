"""Expert iteration as a loop: per iteration, the search over the current network plays
teacher games, a copy of the network is fine-tuned toward the search's values, and the
copy is gated against the network (head to head on fixed deals) before it becomes the
next teacher's network.

A run folder holds ``loop.json`` (the settings and one entry per iteration) and per
iteration ``iteration_K/``: ``teacher/`` (the teacher games, :mod:`.positions`),
``network.npz`` (the candidate), ``fit_log.jsonl`` (:mod:`.finetune`'s report per epoch)
and ``gate.json`` (the head to head and its decision). Every step is skipped when its file
is there, so a loop cut at any point goes on where it stopped; the state (which network
teaches) is read back from the gate files, ``loop.json`` summarises it.

The card game (``game="cardcassonne"``) runs the same loop with its own search and fit:
the teacher is ``heuristic:search=W:K`` and, once a network is accepted,
``pretrained:search=W:K@NETWORK``; its games cycle through ``tables``; each fit
(:mod:`.card_fit`) trains on this iteration's teacher games and all earlier iterations';
the first candidate is gated against the ``heuristic``. The tile game's teacher games may
cycle through expansion sets (``variants``); its gate plays the base game. With
``deep_share`` P > 0 its teacher is playout-cap randomised: a share P of the placements is
searched with ``deep_samples`` continuations, and only those are recorded and fitted
(:mod:`.positions`). With ``tables`` of 3-5 players the tile loop teaches the table network
instead (the shipped ``carcassonne_table.npz`` unless ``init_model`` names another),
searched alone at those tables, and gates the candidate at each of them against
``PLAYERS - 1`` seats of the teacher's network (:func:`gate`).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from carcassonne_rl.agents.card.search import NET_LEAF
from carcassonne_rl.runtime import seeds
from carcassonne_rl.training.run_files import atomic_write_json, atomic_write_text

from .gates import gate

LOOP_FILE = "loop.json"


#: per game: the defaults of the settings left out (None); a setting not in its game's
#: table is the other game's, left None
DEFAULTS: dict[str, dict[str, Any]] = {
    "carcassonne": {"candidates": 3, "samples": 2, "keep": 8, "epochs": 4,
                    "learning_rate": 3e-4, "variants": ("base",), "tables": (2,),
                    "deep_samples": 16},
    "cardcassonne": {"candidates": 3, "epochs": 6, "learning_rate": 1e-3,
                     "tables": (2, 2, 3, 4, 5), "worlds": 8, "future": 1.0},
}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class LoopConfig:
    """The settings of a loop (recorded in ``loop.json``; a run keeps them). Those left
    None take their game's default (:data:`DEFAULTS`); the other game's stay None."""

    games: int | tuple[int, ...] = 300  # teacher games per iteration (the last: the next ones')
    candidates: int | None = None  # the search's K (tile: search=K:S; card: search=W:K)
    samples: int | None = None  # the tile search's S (2)
    keep: int | None = None  # tile: options stored per placement (8)
    placements: int | None = None  # shortened teacher games (tests, measurements)
    epochs: int | None = None  # tile 4, card 6
    learning_rate: float | None = None  # tile 0.0003, card 0.001
    batch_size: int = 512
    validation: float = 0.1
    anchor_weight: float = 0.0  # tile only
    rank_weight: float = 0.0  # tile only: the fit's ranking term (0: none)
    rank_tau: float = 1.0  # tile only: its softmax temperature, points
    target: str = "search"  # tile only (the card fit learns the search's values)
    gate_deals: int = 100  # deals of the gate, each played from both seats (0: no gate)
    gate_threshold: float = 0.55  # the candidate's win rate that makes it the teacher's
    seed: int = 0
    init_model: str | None = None  # the first teacher's network (None: the shipped one)
    game: str = "carcassonne"  # or cardcassonne, the card game
    tables: tuple[int, ...] | None = None  # the table sizes teacher games cycle through
    worlds: int | None = None  # card: the search's W (8)
    variants: tuple[str, ...] | None = None  # tile: the expansion sets teacher games cycle
    future: float | str | None = None  # card: the search's F at its leaves (1; "net": the network)
    deep_samples: int | None = None  # tile: the deep search's S2 (16), on deep_share of placements
    deep_share: float = 0.0  # tile: placements searched deep, the only ones recorded (0: none)
    opponents: str | None = None  # tile: an agent in every seat but the teacher's (None: none)

    def __post_init__(self) -> None:
        if self.game not in DEFAULTS:
            raise ValueError(f"game must be one of {', '.join(DEFAULTS)}, got {self.game!r}")
        defaults = DEFAULTS[self.game]
        foreign = [k for k in ("samples", "keep", "worlds", "variants", "future",
                               "deep_samples")
                   if k not in defaults and getattr(self, k) is not None]  # fmt: skip
        if self.game == "cardcassonne":
            foreign += ["anchor_weight"] * (self.anchor_weight != 0) + ["rank_weight"] * (
                self.rank_weight != 0) + ["rank_tau"] * (self.rank_tau != 1.0) + ["target"] * (
                self.target != "search") + ["deep_share"] * (self.deep_share != 0) + [
                "opponents"] * (self.opponents is not None)  # fmt: skip
        if foreign:
            mine, other = ("tile", "card") if self.game == "carcassonne" else ("card", "tile")
            raise ValueError(f"the {mine} game's loop does not take the {other} game's "
                             f"settings: {', '.join(foreign)}")  # fmt: skip
        for k, v in defaults.items():
            if getattr(self, k) is None:
                object.__setattr__(self, k, v)
        if self.tables is not None:
            from .positions import check_tables

            object.__setattr__(self, "tables", check_tables(self.tables, self.game))
        if self.variants is not None:
            from .positions import check_variants

            object.__setattr__(self, "variants", check_variants(self.variants))
        if not isinstance(self.games, int):
            object.__setattr__(self, "games", tuple(self.games))
        if min(self.games_per_iteration()) < 1 or self.candidates < 1 or self.epochs < 1:
            raise ValueError("a loop needs games >= 1, candidates >= 1, epochs >= 1")
        net_leaf = self.future == NET_LEAF
        if (self.samples is not None and self.samples < 0) or (
                self.worlds is not None and self.worlds < 1) or (self.future is not None
                and not net_leaf and (isinstance(self.future, str)
                                      or not 0.0 <= self.future < float("inf"))):  # fmt: skip
            raise ValueError("a loop's search needs samples >= 0, worlds >= 1 and future >= 0 "
                             f"(or {NET_LEAF!r})")  # fmt: skip
        if net_leaf and self.init_model is None:
            raise ValueError(f"future {NET_LEAF!r} values the search's leaves by its "
                             "network: the loop needs an init model (the first teacher's "
                             "network)")  # fmt: skip
        if self.game == "carcassonne":
            from .finetune import check_ranking
            from .teachers import check_deep, check_opponents

            check_deep(self.deep_samples, self.deep_share, self.samples)
            check_ranking(self.rank_weight, self.rank_tau)
            if self.opponents is not None:
                check_opponents(self.game, self.opponents, self.tables)
        if not 0.0 <= self.gate_threshold <= 1.0 or self.gate_deals < 0:
            raise ValueError("the gate needs deals >= 0 and a threshold in [0, 1]")
        if not 0.0 <= self.anchor_weight <= 1.0:
            raise ValueError(f"anchor weight must be in [0, 1], got {self.anchor_weight}")
        if self.target not in ("search", "blend"):
            raise ValueError(f"target must be search or blend, got {self.target!r}")
        if self.target == "blend" and self.at_tables() and (
                self.init_model is None or teacher_weight(self.init_model) is None):  # fmt: skip
            raise ValueError("target blend at tables of 3-5 needs an init model averaged with "
                             "the heuristic (its file names a heuristic_blend weight); the "
                             "shipped table networks are searched alone: target "
                             "search")  # fmt: skip

    def deep(self) -> dict[str, Any]:
        """The teacher games' deep search as :func:`.positions.collect` takes it (none:
        nothing, the teacher of loops before it)."""
        if self.deep_share > 0:
            return {"deep_samples": self.deep_samples, "deep_share": self.deep_share}
        return {}

    def at_tables(self) -> bool:
        """Whether this is the tile loop at tables of 3-5 players (the table network's)."""
        from .positions import default_network

        return self.game == "carcassonne" and default_network(self.tables) is not None

    def first_network(self) -> str | None:
        """The first teacher's network: ``init_model``, else the tile game's default at its
        tables (:func:`.positions.default_network`), else None (the card game's heuristic)."""
        if self.init_model is None and self.game == "carcassonne":
            from .positions import default_network

            return default_network(self.tables)
        return self.init_model

    def games_per_iteration(self) -> tuple[int, ...]:
        """The teacher games of iterations 0, 1, ... (the last count holds for the rest)."""
        return (self.games,) if isinstance(self.games, int) else self.games

    def games_at(self, iteration: int) -> int:
        """The teacher games of iteration ``iteration``."""
        counts = self.games_per_iteration()
        return counts[min(iteration, len(counts) - 1)]


def load_config(run: Path, given: dict[str, Any]) -> LoopConfig:
    """The loop's settings: those recorded in ``run`` (the options in ``given`` that are not
    None must agree with them), else ``given`` over the defaults, recorded."""
    given = {k: list(v) if isinstance(v, tuple) else v  # as loop.json holds them
             for k, v in given.items() if v is not None}  # fmt: skip
    if given.get("init_model") is not None:
        given["init_model"] = str(Path(given["init_model"]).resolve())
    path = Path(run) / LOOP_FILE
    if path.exists():
        held = json.loads(path.read_text())["config"]  # an older file: fewer settings
        if held.get("game") == "cardcassonne":  # a card loop from before the leaf's future
            held.setdefault("future", 0.0)
        held = json.loads(json.dumps(dataclasses.asdict(LoopConfig(**held))))
        differ = {k: (held.get(k), v) for k, v in given.items() if held.get(k) != v}
        if differ:
            told = ", ".join(f"{k}: {a!r} there, {b!r} here" for k, (a, b) in differ.items())
            raise ValueError(f"{run} holds a loop with other settings ({told}): use another folder")
        return LoopConfig(**held)
    config = LoopConfig(**given)
    atomic_write_json(path, {"config": dataclasses.asdict(config), "iterations": []})
    return config


def teacher_spec(config: LoopConfig, network: str | None) -> str:
    """The search over ``network`` (None: tile game, the shipped network averaged with the
    heuristic; card game, the heuristic)."""
    if config.game == "cardcassonne":
        future = config.future if config.future == NET_LEAF else f"{config.future:g}"
        search = f"search={config.worlds}:{config.candidates}:1:{future}"
        return f"pretrained:{search}@{network}" if network else f"heuristic:{search}"
    spec = f"pretrained:search={config.candidates}:{config.samples}"
    return f"{spec}@{network}" if network else spec


def teacher_weight(network: str | None) -> float | None:
    """The network's share of the heuristic average the search plays it in (None: alone)."""
    from carcassonne_rl.agents.pretrained import shipped_or_given
    from carcassonne_rl.agents.tile.afterstate import load_value_net
    from carcassonne_rl.agents.tile.blend import NETWORK_2P_WEIGHT

    if network is None:
        return NETWORK_2P_WEIGHT
    weight = load_value_net(shipped_or_given(network)).meta.get("heuristic_blend")
    return None if weight is None else float(weight)


def _teacher_files(run: Path, config: LoopConfig, iterations: list[int]) -> list[Path]:
    """The teacher games of ``iterations`` in the loop ``run``."""
    from .positions import game_files

    files: list[Path] = []
    for i in iterations:
        folder = run / f"iteration_{i}" / "teacher"
        files += game_files(folder, config.games_at(i), seeds.expert_loop_seed(config.seed, i))
    return files


def _fit(folder: Path, config: LoopConfig, network: str | None, seed: int,
         on_epoch: Callable[[int, dict], None] | None, files: list[Path],
         device: str = "cpu") -> dict:  # fmt: skip
    """Fit on the teacher games ``files`` into ``folder/network.npz``: the tile game
    fine-tunes the teacher's network (on torch's ``device``), the card game fits its
    search-value network (from the teacher's, else from random weights)."""
    from .positions import load_games

    lines: list[str] = []

    def epoch_done(epoch: int, report: dict) -> None:
        lines.append(json.dumps(report))
        if on_epoch is not None:
            on_epoch(epoch, report)

    if config.game == "cardcassonne":
        from .card_fit import fit_card_net

        data = load_games(files)
        net, report = fit_card_net(
            data, init_model=network, epochs=config.epochs,
            learning_rate=config.learning_rate, batch_size=config.batch_size,
            validation=config.validation, seed=seed, on_epoch=epoch_done,
        )  # fmt: skip
        done = {"rows": report["train_rows"], "decisions": int(len(set(data["decision"]))),
                "games": int(data["files"])}  # fmt: skip
    else:
        from .finetune import finetune

        if config.target == "blend" and teacher_weight(network) is None:
            raise ValueError("target blend needs a teacher averaged with the heuristic; "
                             f"{network} plays alone")  # fmt: skip
        data = load_games(files)
        net, report = finetune(
            data, network, config.epochs,
            learning_rate=config.learning_rate, batch_size=config.batch_size,
            validation=config.validation, anchor_weight=config.anchor_weight,
            rank_weight=config.rank_weight, rank_tau=config.rank_tau,
            target_kind=config.target, seed=seed,
            on_epoch=epoch_done, device=device,
        )  # fmt: skip
        done = {"rows": report["train_rows"], "placements": int(len(set(data["decision"]))),
                "games": int(data["files"])}  # fmt: skip
    atomic_write_text(folder / "fit_log.jsonl", "\n".join(lines) + "\n")
    net.save(folder / "network.npz")  # last: the fit is done when the network is there
    return done


def run_loop(
    run: Path,
    iterations: int,
    config: LoopConfig,
    workers: int = 1,
    address: str | None = None,
    on_event: Callable[[dict], None] | None = None,
    on_game: Callable[[int, int], None] | None = None,
    progress: bool = False,
    device: str = "cpu",
) -> dict:
    """Run (or go on with) iterations ``0 .. iterations - 1`` in ``run`` (settings recorded
    by :func:`load_config`); ``loop.json``'s contents. ``on_event`` sees one dict per step
    (the fit's epochs, the gate's result); ``on_game(done, total)`` each teacher game;
    ``progress``: a progress bar (plain lines off a terminal) over the gate's games;
    ``address``: teacher and gate games on that Ray cluster, the fit here; ``device``
    (tile game): the teacher's network evaluations and the fit on that torch device (a
    GPU: the same to float32 tolerance; ``cpu``, the default, bit for bit)."""
    from contextlib import nullcontext

    from carcassonne_rl.runtime.ray_session import ray_session

    run = Path(run).resolve()
    with ray_session(address) if address else nullcontext():
        return _iterate(run, iterations, config, workers, address, on_event, on_game, progress,
                        device)  # fmt: skip


def _iterate(run: Path, iterations: int, config: LoopConfig, workers: int,
             address: str | None, on_event: Callable[[dict], None] | None,
             on_game: Callable[[int, int], None] | None, progress: bool,
             device: str = "cpu") -> dict:  # fmt: skip
    from .positions import collect

    summary = json.loads((run / LOOP_FILE).read_text())
    entries = {e["iteration"]: e for e in summary["iterations"]}
    best = config.first_network()
    emit = on_event or (lambda event: None)
    for k in range(max(iterations, len(entries))):  # iterations done before: all skipped
        folder = run / f"iteration_{k}"
        entry = dict(entries.get(k, {}), iteration=k, teacher=teacher_spec(config, best))
        seconds = dict(entry.get("seconds", {}))
        seed = seeds.expert_loop_seed(config.seed, k)
        t0 = time.perf_counter()
        if config.game == "cardcassonne":  # keep: not the card game's (collect records it)
            played = collect(folder / "teacher", config.games_at(k), entry["teacher"], seed,
                             workers, 8, on_game, address, config.placements, game=config.game,
                             tables=tuple(config.tables))  # fmt: skip
        else:
            played = collect(folder / "teacher", config.games_at(k), entry["teacher"], seed,
                             workers, config.keep, on_game, address, config.placements,
                             tables=tuple(config.tables),
                             variants=tuple(config.variants), device=device,
                             opponents=config.opponents, **config.deep())  # fmt: skip
        if played:
            seconds["teacher"] = time.perf_counter() - t0
            entry["teacher_games_timed"] = played
        candidate = str(folder / "network.npz")
        if not Path(candidate).exists():
            t0 = time.perf_counter()
            # the card game fits on every iteration's games so far; the tile game on this
            # teacher's: the iterations after a rejected candidate taught with the same network
            fitted = [k] + [i for i in range(k) if config.game == "cardcassonne"
                            or entries[i]["teacher"] == entry["teacher"]]  # fmt: skip
            entry.update(_fit(folder, config, best, seed,
                              lambda e, r, k=k: emit({"iteration": k, "fit": r}),
                              _teacher_files(run, config, fitted), device))  # fmt: skip
            seconds["fit"] = time.perf_counter() - t0
        gate_file = folder / "gate.json"
        if gate_file.exists():
            result = json.loads(gate_file.read_text())
        else:
            t0 = time.perf_counter()
            result = gate(candidate, best, config, workers, address, progress)
            seconds["gate"] = time.perf_counter() - t0
            atomic_write_json(gate_file, result)
            emit({"iteration": k, "gate": result})
        if result["accepted"]:
            best = candidate
        entry.update(candidate=candidate, accepted=result["accepted"], best=best,
                     seconds=seconds)  # fmt: skip
        entries[k] = entry
        summary = {"config": dataclasses.asdict(config),
                   "iterations": [entries[i] for i in sorted(entries)], "best": best}  # fmt: skip
        atomic_write_json(run / LOOP_FILE, summary)
    return summary
