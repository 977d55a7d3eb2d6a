"""``carcassonne-rl expert-iteration``: the search as the teacher of a value network
(:mod:`carcassonne_rl.training.expert_iteration`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from carcassonne_rl.games.registry import GAMES
from carcassonne_rl.runtime.progress import Counter

from .args import UserError, add_validation_argument
from .args import non_negative_int as _non_negative_int
from .args import positive as _positive


def add_expert_iteration_parser(sub) -> None:
    p = sub.add_parser(
        "expert-iteration",
        help="fit a value network toward a search's values (tile or card game)",
        description=(
            "Plays the search (--teacher) in every seat of games (the tables of --tables in "
            "turn; tile game: the base game or the variants of --variants in turn), the "
            "ones missing from "
            "POSITIONS (one file per game: a run cut short goes on where it stopped), "
            "recording the search's expectation of every option it searched. With --out, "
            "then fits the value network toward those expectations and writes it (play it "
            "with policy:OUT.npz): the tile game fine-tunes the 2-player network, or at "
            "tables of 3-5 the table network (--init-model), the card game fits its "
            "search-value network (from --init-model or from random weights). One JSON line "
            "per epoch: training loss and, on held-out games, how often the network's best "
            "option is the one the search played."
        ),
    )
    p.add_argument("positions", type=Path, help="folder of teacher games (game_*.npz)")
    p.add_argument("--game", choices=GAMES, default="carcassonne",
                   help="the game (default: carcassonne, the tile game)")  # fmt: skip
    p.add_argument("--tables", type=table_list, default=None,
                   help="the table sizes the teacher games cycle through (card game default: "
                        "2,2,3,4,5; tile game: 2, or sizes of 3-5, whose games the search "
                        "over the table network plays and whose fit fine-tunes it)")  # fmt: skip
    p.add_argument("--variants", type=variant_list, default=None,
                   help="tile game: the expansion sets the teacher games cycle through, "
                        "e.g. base,messages,labyrinth,messages+labyrinth (default: "
                        "base)")  # fmt: skip
    p.add_argument(
        "--games",
        type=_non_negative_int,
        default=300,
        help="teacher games to have in POSITIONS (played if missing) and to fit on (0: "
        "play none and fit on every game in POSITIONS; default: 300)",
    )
    p.add_argument(
        "--teacher",
        default=None,
        help="the search that teaches (default: pretrained:search=3:2 for the tile game, "
        "heuristic:search=8:3 for the card game)",
    )
    p.add_argument(
        "--workers",
        type=_positive(int),
        default=1,
        help="processes playing teacher games (default: 1)",
    )
    p.add_argument("--address", default=None,
                   help="play the teacher games on this Ray cluster (default: RAY_ADDRESS, "
                        "else --workers processes)")  # fmt: skip
    p.add_argument("--out", type=Path, help="the fine-tuned .npz network to write")
    p.add_argument(
        "--init-model",
        type=Path,
        default=None,
        help="the network fine-tuned (default: the shipped 2-player network; tile game at "
        "tables of 3-5: the shipped table network, carcassonne_table.npz)",
    )
    p.add_argument(
        "--epochs", type=_positive(int), default=10, help="passes over the data (default: 10)"
    )
    p.add_argument(
        "--learning-rate",
        type=_positive(float),
        default=None,
        help="Adam (default: 0.0001 for the tile game's fine-tuning, 0.001 for the card game)",
    )
    p.add_argument("--batch-size", type=_positive(int), default=512, help="rows (default: 512)")
    p.add_argument("--anchor-weight", type=float, default=0.0,
                   help="weight of the options not searched, held at their value before the "
                        "search (default: 0, not used)")  # fmt: skip
    p.add_argument("--rank-weight", type=float, default=0.0,
                   help="weight of a ranking term: per placement, the cross-entropy of the "
                        "agent's softmax over the searched options against the search's "
                        "(default: 0, none; e.g. 0.005)")  # fmt: skip
    p.add_argument("--rank-tau", type=_positive(float), default=1.0,
                   help="the ranking term's softmax temperature, points (default: 1)")
    p.add_argument(
        "--target",
        choices=("search", "blend"),
        default="search",
        help="what the network learns: the search's values (played alone), or the values "
        "whose average with the heuristic are the search's (played averaged at the share "
        "the --init-model's file names, as the loop's teacher played it; 0.75 where it names "
        "none; default: search)",
    )
    p.add_argument("--more-positions", type=Path, nargs="+", default=[], metavar="FOLDER",
                   help="folders of earlier teacher games fitted on as well (not played; "
                        "their rows must read the network's features)")  # fmt: skip
    p.add_argument("--log", type=Path, default=None,
                   help="folder for the fit's log (fit_log.jsonl: the epoch lines) and its "
                        "curves (fit.png)")  # fmt: skip
    add_validation_argument(p)
    p.add_argument("--seed", type=int, default=0, help="deals and the split (default: 0)")
    p.add_argument("--no-progress", action="store_true", help="no line per teacher game")


def table_list(text: str) -> tuple[int, ...]:
    """``2,2,3`` -> ``(2, 2, 3)``, each a card table size."""
    from carcassonne_rl.games.registry import check_players

    try:
        tables = tuple(int(t) for t in text.split(","))
        for n in tables:
            check_players("cardcassonne", n)
    except ValueError as err:
        raise argparse.ArgumentTypeError(
            f"expected table sizes like 2,2,3,4,5 (2-5 players each): {err}"
        ) from None
    return tables


def variant_list(text: str) -> tuple[str, ...]:
    """``base,messages+labyrinth`` -> ``("base", "messages+labyrinth")``, each a tile variant
    (``base``, or expansion names joined by ``+``)."""
    from carcassonne_rl.training.expert_iteration.positions import check_variants

    try:
        return check_variants(text.split(","))
    except ValueError as err:
        raise argparse.ArgumentTypeError(
            f"expected variants like base,messages,labyrinth,messages+labyrinth: {err}"
        ) from None


#: per game: the default teacher and learning rate
DEFAULTS = {"carcassonne": ("pretrained:search=3:2", 1e-4),
            "cardcassonne": ("heuristic:search=8:3", 1e-3)}  # fmt: skip


def run_expert_iteration(args: argparse.Namespace) -> int:
    from carcassonne_rl.runtime.ray_session import ClusterError, resolve_address
    from carcassonne_rl.training.expert_iteration.loop import DEFAULTS as LOOP_DEFAULTS
    from carcassonne_rl.training.expert_iteration.positions import (
        check_variants,
        collect,
        default_network,
        load_positions,
    )

    if args.out is not None and args.out.suffix != ".npz":
        raise UserError(f"--out must name a .npz file, got {args.out}")
    try:
        if args.variants:
            check_variants(args.variants, args.game)
    except ValueError as exc:
        raise UserError(f"--variants: {exc}") from None
    if args.game == "cardcassonne" and (args.anchor_weight or args.target != "search"
                                        or args.rank_weight):  # fmt: skip
        raise UserError("--anchor-weight, --rank-weight and --target are the tile game's "
                        "fine-tuning options")  # fmt: skip
    if not 0.0 <= args.anchor_weight <= 1.0:
        raise UserError(f"--anchor-weight must be in [0, 1], got {args.anchor_weight}")
    if not 0.0 <= args.rank_weight < float("inf"):
        raise UserError(f"--rank-weight must be >= 0, got {args.rank_weight}")
    if args.init_model is not None and not args.init_model.is_file():
        raise UserError(f"--init-model {args.init_model}: no such file")

    progress = Counter("teacher games", "game", enabled=not args.no_progress)

    teacher, learning_rate = DEFAULTS[args.game]
    tile = args.game == "carcassonne"
    tables = args.tables or LOOP_DEFAULTS[args.game]["tables"]
    network = default_network(tables) if tile else None
    teacher = args.teacher or (f"{teacher}@{network}" if network else teacher)
    learning_rate = args.learning_rate or learning_rate
    if args.games:
        try:
            collect(args.positions, args.games, teacher, args.seed, args.workers,
                    on_game=progress, address=resolve_address(args.address), game=args.game,
                    tables=tables, variants=args.variants or ("base",))  # fmt: skip
        except (ValueError, ClusterError) as exc:
            raise UserError(str(exc)) from None
    if args.out is None:
        return 0
    if args.game == "cardcassonne":
        return _fit_card(args, learning_rate, teacher)
    from carcassonne_rl.training.expert_iteration.finetune import finetune

    reports: list[dict] = []
    try:
        data = load_positions(args.positions, *args.more_positions, games=args.games or None,
                              seed=args.seed)  # fmt: skip
        net, _ = finetune(
            data, args.init_model or network, args.epochs,
            learning_rate=learning_rate, batch_size=args.batch_size,
            validation=args.validation, anchor_weight=args.anchor_weight,
            target_kind=args.target, seed=args.seed,
            on_epoch=epoch_logger(args.log, reports),
            rank_weight=args.rank_weight, rank_tau=args.rank_tau,
        )  # fmt: skip
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not args.games:  # fitted on the games there: their teachers, as the folders say
        teacher = " + ".join(folder_teachers([args.positions, *args.more_positions]))
    return _write(args, net, reports, f"tile game: {args.out.name} fitted to {teacher}",
                  f"value network fine-tuned on {data['files']} teacher games")  # fmt: skip


def folder_teachers(folders: list[Path]) -> list[str]:
    """The teachers the folders' ``positions.json`` name (each once, as a network's file
    name), or ``teacher games`` for a folder without one."""
    found: list[str] = []
    for folder in folders:
        try:
            spec = json.loads((Path(folder) / "positions.json").read_text())["teacher"]
        except (OSError, ValueError, KeyError, TypeError):
            spec = "teacher games"
        spec = short_spec(str(spec))
        if spec not in found:
            found.append(spec)
    return found


def short_spec(spec: str) -> str:
    """``spec`` with the path of the network after its last ``@`` cut to the file's name."""
    head, at, network = spec.rpartition("@")
    return f"{head}@{Path(network).name}" if at else spec


def epoch_logger(log: Path | None, reports: list[dict]):
    """The fit's ``on_epoch``: prints each report as a JSON line, keeps it in ``reports`` and,
    with a ``log`` folder, appends it to ``log/fit_log.jsonl`` (started afresh)."""
    if log is not None:
        log.mkdir(parents=True, exist_ok=True)
        (log / "fit_log.jsonl").write_text("")

    def on_epoch(epoch: int, report: dict) -> None:
        line = json.dumps(report)
        print(line, flush=True)
        reports.append(report)
        if log is not None:
            with open(log / "fit_log.jsonl", "a") as f:
                f.write(line + "\n")

    return on_epoch


def _write(args: argparse.Namespace, net, reports: list[dict], title: str, what: str) -> int:
    """Save the fitted network to ``--out``, its curves to ``--log/fit.png``; say so."""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    net.save(args.out)
    if args.log is not None and reports:
        from carcassonne_rl.training.plots import plot_fit_log

        plot_fit_log(reports, args.log / "fit.png", short_spec(title))
    print(f"{what} -> {args.out}")
    return 0


def _fit_card(args: argparse.Namespace, learning_rate: float, teacher: str) -> int:
    from carcassonne_rl.training.expert_iteration.card_fit import fit_card_net
    from carcassonne_rl.training.expert_iteration.positions import load_positions

    reports: list[dict] = []
    try:
        data = load_positions(args.positions, *args.more_positions, games=args.games or None,
                              seed=args.seed)  # fmt: skip
        net, _ = fit_card_net(
            data, args.init_model, epochs=args.epochs, learning_rate=learning_rate,
            batch_size=args.batch_size, validation=args.validation, seed=args.seed,
            on_epoch=epoch_logger(args.log, reports),
        )  # fmt: skip
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return _write(args, net, reports, f"card game: {args.out.name} fitted to {teacher}",
                  f"card search-value network fitted on {data['files']} teacher games")  # fmt: skip
