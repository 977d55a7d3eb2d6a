"""``carcassonne-rl expert-loop``: expert iteration as a loop of teacher games, fit and gate
(:mod:`carcassonne_rl.training.expert_iteration.loop`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from carcassonne_rl.agents.card.search import NET_LEAF
from carcassonne_rl.games.registry import GAMES
from carcassonne_rl.runtime.progress import Counter

from .args import UserError, fraction, non_negative_float
from .args import non_negative_int as _non_negative_int
from .args import positive as _positive
from .expert_iteration import table_list, variant_list

#: the options recorded in the run's loop.json (None: not given, the run's or the default)
SETTINGS = ("games", "candidates", "samples", "keep", "placements", "epochs", "learning_rate",
            "batch_size", "validation", "anchor_weight", "rank_weight", "rank_tau", "target",
            "gate_deals", "gate_threshold", "seed", "init_model", "game", "tables", "worlds",
            "variants", "future", "deep_samples", "deep_share", "opponents")  # fmt: skip


def future_weight(text: str) -> float | str:
    """``--future``: a weight >= 0, or ``net`` (the network values the leaves)."""
    return NET_LEAF if text == NET_LEAF else non_negative_float(text)


def add_expert_loop_parser(sub) -> None:
    p = sub.add_parser(
        "expert-loop",
        help="expert iteration in a loop: teacher games, fit, gate, again",
        description=(
            "Per iteration K: the search over the current 2-player network plays teacher "
            "games (RUN/iteration_K/teacher), a copy of the network is fine-tuned toward the "
            "search's values (network.npz, fit_log.jsonl) and gated against the network, "
            "head to head on fixed deals (gate.json); accepted, it is the next teacher's "
            "network. RUN/loop.json records the settings and each iteration. The same "
            "command (or with a larger --iterations) goes on where a loop stopped; the "
            "settings are the run's, an option given again must agree. One JSON line per "
            "fit epoch and per gate. The card game (--game cardcassonne): the search over "
            "the heuristic, then over the accepted search-value network, teaches at the "
            "tables of --tables; each fit trains on all iterations' teacher games so far. "
            "The tile game at --tables of 3-5 players teaches the table network "
            "(carcassonne_table.npz unless --init-model) the same way. With --opponents "
            "(tile game) the search plays one seat of each teacher game against those "
            "agents, and the gate plays the candidate and the teacher's network against "
            "them on the same deals."
        ),
    )
    p.add_argument("run", type=Path, help="the run folder")
    p.add_argument("--iterations", type=_positive(int), default=1,
                   help="iterations the run is to have (default: 1)")  # fmt: skip
    p.add_argument("--game", choices=GAMES,
                   help="the game (default: carcassonne, the tile game)")  # fmt: skip
    p.add_argument("--games", type=game_counts,
                   help="teacher games per iteration (300); N1,N2,...: iteration 0 plays N1, "
                        "iteration 1 N2, ..., the last count the iterations after")  # fmt: skip
    p.add_argument("--candidates", type=_positive(int),
                   help="the search's K: options searched (tile: pretrained:search=K:S; "
                        "card: search=W:K; 3)")  # fmt: skip
    p.add_argument("--samples", type=_non_negative_int,
                   help="tile game: the search's S, sampled continuations per reply "
                        "(2)")  # fmt: skip
    p.add_argument("--keep", type=_positive(int),
                   help="tile game: options stored per placement (8)")  # fmt: skip
    p.add_argument("--deep-samples", type=_positive(int),
                   help="tile game: the deep search's S2, continuations per reply on the "
                        "placements of --deep-share (16)")  # fmt: skip
    p.add_argument("--deep-share", type=float,
                   help="tile game: playout-cap randomisation, the share of placements "
                        "searched deep (search=K:S2) and played by it, in [0, 1]: the "
                        "only ones recorded and fitted; the cheap search=K:S plays the "
                        "others (0: off)")  # fmt: skip
    p.add_argument("--opponents", metavar="SPEC",
                   help="tile game: an agent (e.g. greedy) in every seat of the teacher "
                        "games but the search's, which rotates; only the search's "
                        "placements are recorded, and the gate compares the candidate "
                        "with the teacher's network against PLAYERS - 1 of these "
                        "(accepted at (2 x threshold - 1) fair shares more)")  # fmt: skip
    p.add_argument("--worlds", type=_positive(int),
                   help="card game: the search's W, sampled worlds (search=W:K; 8)")  # fmt: skip
    p.add_argument("--future", type=future_weight,
                   help="card game: the search's F, the weight of what the seats hold for "
                        "later rounds in the value of its rollouts (search=W:K:1:F; 1; 0: "
                        "the standings alone; net: the "
                        "searched network values the rollouts' ends, needs "
                        "--init-model)")  # fmt: skip
    p.add_argument("--tables", type=table_list,
                   help="the table sizes the teacher games cycle through (card game: "
                        "2,2,3,4,5; tile game: 2, or sizes of 3-5: the search over the table "
                        "network teaches it, gated at those tables against PLAYERS - 1 seats "
                        "of the network before)")  # fmt: skip
    p.add_argument("--variants", type=variant_list,
                   help="tile game: the expansion sets the teacher games cycle through, e.g. "
                        "base,messages,labyrinth,messages+labyrinth (base); the gate plays "
                        "the base game")  # fmt: skip
    p.add_argument("--placements", type=_positive(int),
                   help="stop each teacher game after this many placements (card game: "
                        "recorded decisions; quick tests; default: whole games)")  # fmt: skip
    p.add_argument("--epochs", type=_positive(int), help="fit epochs (tile 4, card 6)")
    p.add_argument("--learning-rate", type=_positive(float),
                   help="Adam (tile 0.0003, card 0.001)")  # fmt: skip
    p.add_argument("--batch-size", type=_positive(int), help="rows (512)")
    p.add_argument("--validation", type=fraction, help="share of games held out (0.1)")
    p.add_argument("--anchor-weight", type=float,
                   help="tile game: weight of the options not searched (0: not used)")  # fmt: skip
    p.add_argument("--rank-weight", type=float,
                   help="tile game: weight of the fit's ranking term (see expert-iteration; "
                        "0: none)")  # fmt: skip
    p.add_argument("--rank-tau", type=float,
                   help="tile game: the ranking term's softmax temperature, points (1)")
    p.add_argument("--target", choices=("search", "blend"),
                   help="tile game: what the network learns (see expert-iteration; "
                        "search)")  # fmt: skip
    p.add_argument("--gate-deals", type=_non_negative_int,
                   help="deals of the gate, each from both seats (100; 0: no gate)")  # fmt: skip
    p.add_argument("--gate-threshold", type=float,
                   help="the candidate's win rate to be accepted (0.55)")  # fmt: skip
    p.add_argument("--seed", type=_non_negative_int, help="deals, split, gate (0)")
    p.add_argument("--init-model", type=Path,
                   help="the first teacher's network (default: tile game, the shipped "
                        "one; card game, none: the heuristic)")  # fmt: skip
    p.add_argument("--workers", type=_positive(int), default=1,
                   help="processes for teacher and gate games (default: 1)")  # fmt: skip
    p.add_argument("--address", default=None,
                   help="play teacher and gate games on this Ray cluster (default: "
                        "RAY_ADDRESS, else --workers processes); the fit runs here")  # fmt: skip
    p.add_argument("--device", default="cpu",
                   help="tile game: the torch device of the teacher's network evaluations and "
                        "of the fit: cpu (default: numpy, bit for bit), auto, cuda, cuda:N or "
                        "mps (the same to float32 tolerance)")  # fmt: skip
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar or lines (teacher games, gate games)")  # fmt: skip


def game_counts(text: str) -> int | tuple[int, ...]:
    """``300`` -> 300; ``418,120`` -> (418, 120): teacher games per iteration, each >= 1."""
    try:
        counts = tuple(int(t) for t in text.split(","))
        if not counts or min(counts) < 1:
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of games (>= 1) or one per iteration like 400,200, got {text!r}"
        ) from None
    return counts[0] if len(counts) == 1 else counts


def run_expert_loop(args: argparse.Namespace) -> int:
    from carcassonne_rl.runtime.ray_session import ClusterError, resolve_address
    from carcassonne_rl.training.expert_iteration.loop import load_config, run_loop

    if args.init_model is not None and not args.init_model.is_file():
        raise UserError(f"--init-model {args.init_model}: no such file")
    given = {k: getattr(args, k) for k in SETTINGS}
    if args.device != "cpu":
        from carcassonne_rl.agents.common.device_net import resolve_device

        if (args.game or "carcassonne") == "cardcassonne":
            raise UserError(f"--device {args.device}: the card game's loop runs on the CPU only")
        try:
            resolve_device(args.device)
        except ValueError as exc:
            raise UserError(f"--device: {exc}") from None

    progress = Counter("teacher games", "game", enabled=not args.no_progress)

    try:
        config = load_config(args.run, given)
        summary = run_loop(args.run, args.iterations, config, args.workers,
                           resolve_address(args.address),
                           on_event=lambda e: print(json.dumps(e), flush=True),
                           on_game=progress, progress=not args.no_progress,
                           device=args.device)  # fmt: skip
    except (ValueError, ClusterError) as exc:
        raise UserError(str(exc)) from None
    kept = sum(e["accepted"] for e in summary["iterations"])
    first = "none (the heuristic)" if config.game == "cardcassonne" else "the shipped one"
    print(
        f"{len(summary['iterations'])} iterations, {kept} networks accepted; the teacher's "
        f"network: {summary.get('best') or first} ({args.run / 'loop.json'})"
    )
    return 0
