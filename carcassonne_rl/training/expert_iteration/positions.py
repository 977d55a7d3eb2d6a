"""Teacher games of expert iteration: the search plays every seat of 2-player games (the
base game, or with ``variants`` the expansion sets the games cycle through; with ``tables``
of 3-5 players, the search over the table network at those tables) and each tile placement
is recorded with what the search made of it.

A game is one file ``game_DEAL.npz`` in the positions folder, written atomically once the
game is over, so a collection cut short goes on where it stopped (the files present are not
played again; ``positions.json`` records the teacher and seed the folder holds). The games
are played by a pool of processes, or as Ray tasks on a cluster (``address``: the driver
writes each game as its task returns it, and the games of a worker that dies are played
again elsewhere; the same seeds give the same games either way). Per
placement with two or more options, the ``keep`` options the network values most (the
searched ones among them) are stored as rows:

- ``x``: the option's afterstate features (the feature set of the network searched: at 2
  players ``two_player``, at 3-5 the table network's), seen from the seat that moves;
- ``target``: the search's expectation of the option, ``tanh(margin / value_scale)`` (NaN
  for an option it did not search);
- ``prior``: the option's value before the search (the network-heuristic blend the search
  starts from); ``network``: the value network's own;
- ``decision``: the placement's number in the game; ``chosen``: the option the search
  played.

An option that ends the game is not stored (its value is exact, nothing to learn).

Each file also keeps what replays its rows (``deal``, ``players``, ``expansions``, the
``codes`` played; per row ``ply``, ``option``, ``follower``): :mod:`.replay`.

Playout-cap randomisation (``deep_share`` P > 0, with ``deep_samples`` S2, as KataGo's
many cheap searches and a few deep ones): a share P of the placements, drawn by a stream
of the deal and the agent seed (:func:`.teachers.deep_placements`), is searched by a second search
with the same ``K`` and network and ``S2`` continuations per reply (:func:`.teachers.deep_teacher`),
which plays its choice there; the cheap search (``S``) plays the others. Only the deep
placements are recorded, so every target is a deep search's and ``chosen`` is its choice;
``decision`` keeps counting every placement searched (it has gaps). P = 0 (the default) is
the teacher without it: the same games and rows.

Teacher games against other agents (``opponents``, an agent spec such as ``greedy``): the
search plays one seat of the game (game ``g`` of a table size: seat ``g mod PLAYERS``, in
turn) and ``opponents`` the others, each its own seeded copy (:func:`.teachers.opponent_seed`); only
the search's placements are recorded. The positions are then those its network meets
against these opponents, not against copies of itself (the search's continuations still
model the other seats by its network). None (the default): the search plays every seat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from carcassonne_rl.agents.common.device_net import on_device, process_pool, resolve_device
from carcassonne_rl.agents.common.value_net import MLP
from carcassonne_rl.agents.tile.afterstate import net_feature_set, pick, value_inputs
from carcassonne_rl.agents.tile.search import option_code
from carcassonne_rl.encoders.features.afterstate_options import Options, option_inputs
from carcassonne_rl.runtime import seeds
from carcassonne_rl.training.run_files import atomic_save_npz, check_folder_settings

from .teachers import (
    check_deep,
    check_opponents,
    deep_placements,
    deep_teacher,
    make_opponents,
    make_teacher,
)

SETTINGS_FILE = "positions.json"
ROW_FIELDS = ("x", "target", "prior", "network", "decision", "chosen")
#: per row, what replays its option (:func:`.replay.replay_features`): the codes played before its
#: placement, its placement code and its follower code (-1: none)
REPLAY_FIELDS = ("ply", "option", "follower")
#: the tile game's variant without expansions; the others join expansion names with ``+``
BASE = "base"


def variant_expansions(variant: str, game: str = "carcassonne") -> tuple[str, ...]:
    """The expansions of a variant of ``game``: ``base`` -> ``()``, ``messages+labyrinth`` ->
    ``("messages", "labyrinth")``; ``ValueError`` naming the variant otherwise (the game
    registry says which game has which expansions)."""
    if variant == BASE:
        return ()
    from carcassonne_rl.games.registry import check_expansions

    names = variant.split("+")
    try:
        return check_expansions(game, names)
    except ValueError as err:
        raise ValueError(
            f"variant {variant!r}: {err} (a variant is {BASE} or expansions joined by +)"
        ) from None


def check_variants(variants: Sequence[str], game: str = "carcassonne") -> tuple[str, ...]:
    """``variants`` as a tuple, each checked by :func:`variant_expansions` (``ValueError``
    for none or a bad one)."""
    variants = tuple(variants)
    if not variants:
        raise ValueError("variants needs one variant or more")
    for v in variants:
        variant_expansions(v, game)
    return variants


def check_tables(tables: Sequence[int], game: str = "carcassonne") -> tuple[int, ...]:
    """``tables`` as a tuple, each a table size of ``game``; the tile game's are all of 2
    players (the 2-player network's games) or all of 3-5 (the table network's): ``ValueError``
    otherwise."""
    from carcassonne_rl.games.registry import check_players

    tables = tuple(tables)
    if not tables:
        raise ValueError("tables needs one table size or more")
    for n in tables:
        check_players(game, n)
    if game == "carcassonne" and 2 in tables and max(tables) > 2:
        raise ValueError("the tile game's teacher games teach one network: tables of 2 "
                         "players (the 2-player network) or of 3-5 (the table network), not "
                         f"both ({','.join(map(str, tables))})")  # fmt: skip
    return tables


def default_network(tables: Sequence[int]) -> str | None:
    """The network tile teacher games at ``tables`` search and teach by default: at 3-5
    players the shipped table network (its file name), at 2 None (``pretrained``'s)."""
    if max(tables) > 2:
        from carcassonne_rl.agents.pretrained import TABLE_MODEL_FILE

        return TABLE_MODEL_FILE
    return None


def teacher_deal(seed: int, game: int) -> int:
    """The deal of teacher game ``game`` (apart from the arena's and training's deals)."""
    return seeds.teacher_deal(seed, game)


def play_teacher_game(spec: str, deal: int, seed: int, keep: int = 8,
                      placements: int | None = None, expansions: tuple[str, ...] = (),
                      players: int = 2, kernel: bool = True, deep_samples: int | None = None,
                      deep_share: float = 0.0, device: str = "cpu",
                      opponents: str | None = None, seat: int = 0,
                      ) -> dict[str, np.ndarray]:  # fmt: skip
    """Play deal ``deal`` (``players`` seats, the base game or with ``expansions``) with the
    teacher in every seat (with ``opponents``: in ``seat`` only, the agents ``opponents`` in
    the others); the rows of its placements (see the module's docstring).
    ``placements``: stop after that many tile placements (a shortened game, for tests and
    throughput measurements). ``kernel``: the search's option kernel (False: the reference
    path, a clone per option; the same game and rows). ``deep_share`` > 0: that share of the
    placements searched and played by the deep search of ``deep_samples`` continuations,
    the only ones recorded (the module's docstring). ``device``: where the searches'
    network evaluations run (``agents.common.device_net``: ``cpu``, the numpy network, bit
    for bit; a GPU gives the same values to float32 tolerance)."""
    from carcassonne_rl.games.registry import new_game

    teacher = make_teacher(spec, seed, players)
    teacher.kernel = kernel
    check_deep(deep_samples, deep_share, teacher.samples)
    deep, draws = None, None
    if deep_share > 0:
        deep = deep_teacher(spec, seed, players, int(deep_samples))  # type: ignore[arg-type]
        deep.kernel = kernel
        draws = deep_placements(deal, seed)
    if resolve_device(device) != "cpu":
        for searcher in filter(None, (teacher, deep)):
            searcher.net = on_device(searcher.net, device)
    net = teacher.net
    others = make_opponents(opponents, seed, players, seat) if opponents else {}
    state = new_game("carcassonne", players, deal, expansions)
    rows: dict[str, list] = {k: [] for k in (*ROW_FIELDS, *REPLAY_FIELDS)}
    codes: list[int] = []

    def play(code: int) -> None:
        state.apply_code(int(code))
        codes.append(int(code))

    decision, placed = 0, 0
    while not state.is_over and (placements is None or placed < placements):
        player = state.current_player
        if player in others:
            placed += state.phase == "place_tile"
            play(others[player].act(state, player))
            continue
        if state.phase != "place_tile":
            play(teacher.act(state, player))
            continue
        searcher = teacher
        if draws is not None and draws.random() < deep_share:
            searcher = deep
        opts, prior, refined = searcher.search(state, player)
        picked = pick(refined, searcher.rng)  # the search's choice, as its act() makes it
        if len(opts) > 1:
            if deep is None or searcher is deep:
                _record(rows, net, opts, prior, refined, picked, player, decision, keep,
                        len(codes))  # fmt: skip
            decision += 1
        play(option_code(opts, picked))
        placed += 1
    out = {k: np.asarray(v, np.int64 if k in REPLAY_FIELDS else None)
           for k, v in rows.items() if k != "x"}  # fmt: skip
    empty = np.zeros((0, net.inputs), np.float32)
    out["x"] = np.stack(rows["x"]).astype(np.float32) if rows["x"] else empty
    out["scores"] = np.asarray(state.scores)
    out["codes"] = np.asarray(codes, np.int64)
    out["deal"] = np.asarray(deal, np.int64)
    out["players"] = np.asarray(players, np.int64)
    out["expansions"] = np.asarray("+".join(expansions))
    return out


def _record(rows: dict, net: MLP, opts: Any, prior: np.ndarray, refined: np.ndarray,
            picked: int, player: int, decision: int, keep: int, ply: int) -> None:  # fmt: skip
    top = [int(i) for i in np.argsort(-prior, kind="stable")[:keep]]
    if picked not in top:
        top.append(picked)
    if isinstance(opts, Options):  # the search's option kernel
        top = [i for i in top if not opts.over[i]]
        if not top:
            return
        x, _ = option_inputs(opts.take(np.array(top)), player, net_feature_set(net))
    else:
        top = [i for i in top if not opts[i].state.is_over]
        if not top:
            return
        x, _ = value_inputs([opts[i].state for i in top], player, net_feature_set(net))
    own = net.forward(x)[:, 0]
    kernel = isinstance(opts, Options)
    for row, i in enumerate(top):
        follower = int(opts.follower[i]) if kernel else opts[i].follower
        rows["ply"].append(ply)
        rows["option"].append(option_code(opts, i))
        rows["follower"].append(-1 if follower is None else follower)
        rows["x"].append(x[row])
        rows["target"].append(refined[i] if np.isfinite(refined[i]) else np.nan)
        rows["prior"].append(prior[i])
        rows["network"].append(own[row])
        rows["decision"].append(decision)
        rows["chosen"].append(i == picked)


#: the tile teacher's deep search: (deep samples S2, deep share P); None: none
Deep = tuple[int, float] | None
#: the tile teacher's opponents: (their agent spec, the teacher's seat); None: none
Versus = tuple[str, int] | None
#: one teacher game: (game, table size, expansions, teacher spec, deal, agent seed, keep,
#: length limit, deep search, device of the network evaluations, opponents, file to write)
TeacherJob = tuple[str, int, tuple[str, ...], str, int, int, int, int | None, Deep, str, Versus,
                   str]


def play_job(job: TeacherJob) -> dict[str, np.ndarray]:
    """The rows of one teacher game (a Ray task's work: the driver writes them). The card
    game's (``card_teacher``) record every option of a turn; ``keep`` and the deep search
    are the tile game's."""
    game, players, expansions, spec, deal, seed, keep, limit, deep, device, versus, _ = job
    if game == "cardcassonne":
        from .card_teacher import play_card_teacher_game

        return play_card_teacher_game(spec, deal, seed, players, decisions=limit)
    more: dict[str, Any] = {"deep_samples": deep[0], "deep_share": deep[1]} if deep else {}
    if device != "cpu":
        more["device"] = device
    if versus is not None:
        more.update(opponents=versus[0], seat=versus[1])
    return play_teacher_game(spec, deal, seed, keep, limit, expansions, players, **more)


def _play_one(job: TeacherJob) -> str:
    atomic_save_npz(job[-1], play_job(job))
    return job[-1]


def teacher_jobs(folder: Path, games: int, teacher: str, seed: int, keep: int = 8,
                 placements: int | None = None, game: str = "carcassonne",
                 tables: tuple[int, ...] = (2,), variants: tuple[str, ...] = (BASE,),
                 deep: Deep = None, device: str = "cpu", opponents: str | None = None,
                 ) -> list[TeacherJob]:  # fmt: skip
    """The jobs of teacher games ``0 .. games - 1`` (those whose file is present included);
    game ``g`` is played at the table ``tables[g % len(tables)]`` and, in the tile game, in
    the variant ``variants[g % len(variants)]`` (with the deep search ``deep``, its network
    evaluated on ``device``; with ``opponents``, the teacher in seat ``(g // len(tables)) %
    PLAYERS``, so that each table size's games rotate it)."""
    jobs = []
    for g in range(games):
        deal = teacher_deal(seed, g)
        path = str(Path(folder) / f"game_{deal}.npz")
        players = tables[g % len(tables)]
        tile = game == "carcassonne"
        expansions = variant_expansions(variants[g % len(variants)]) if tile else ()
        agent_seed = seeds.teacher_agent_seed(seed, g)
        versus = (opponents, (g // len(tables)) % players) if opponents else None
        jobs.append((game, players, expansions, teacher, deal, agent_seed, keep, placements,
                     deep, device, versus, path))  # fmt: skip
    return jobs


def check_teacher(game: str, spec: str, seed: int, tables: tuple[int, ...] = (2,)) -> None:
    """``ValueError`` unless ``spec`` is a search of ``game`` that can teach (the tile game:
    at every table of ``tables``)."""
    if game == "cardcassonne":
        from .card_teacher import make_card_teacher

        make_card_teacher(spec, seed)
    else:
        for players in set(tables):
            make_teacher(spec, seed, players)


def collect(
    folder: Path,
    games: int,
    teacher: str = "pretrained:search=3:2",
    seed: int = 0,
    workers: int = 1,
    keep: int = 8,
    on_game: Callable[[int, int], None] | None = None,
    address: str | None = None,
    placements: int | None = None,
    game: str = "carcassonne",
    tables: tuple[int, ...] = (2,),
    variants: tuple[str, ...] = (BASE,),
    deep_samples: int | None = None,
    deep_share: float = 0.0,
    device: str = "cpu",
    opponents: str | None = None,
) -> int:
    """Play the teacher games ``0 .. games - 1`` whose file is missing from ``folder``
    (``workers`` processes, or Ray tasks on the cluster at ``address``); ``on_game(done,
    games)`` after each. Returns how many were played. ``placements``: shortened games
    (see :func:`play_teacher_game`; recorded with the folder's settings). ``game``: the
    tile game (its games cycle through the expansion sets of ``variants``) or the card
    game; the games of either cycle through the table sizes of ``tables``. ``deep_share``
    > 0 (tile game): playout-cap randomisation with ``deep_samples`` (see the module's
    docstring; recorded with the folder's settings). ``device`` (tile game): where the
    searches' network evaluations run, as ``workers`` a setting of the run, not of the
    folder (a GPU gives the rows to float32 tolerance; its workers are spawned).
    ``opponents`` (tile game): an agent spec that plays every seat but the teacher's (see
    the module's docstring; recorded with the folder's settings)."""
    tables = check_tables(tables, game)
    if game != "carcassonne" and device != "cpu":
        raise ValueError(f"device {device!r}: the card teacher evaluates on the CPU only")
    resolve_device(device)  # a device that is not there fails here, before any game
    check_teacher(game, teacher, seed, tables)  # a bad spec fails here, before any process
    variants = check_variants(variants, game)
    deep: Deep = None
    if deep_share > 0 or deep_samples is not None:
        if game != "carcassonne":
            raise ValueError("the deep search (deep samples, deep share) is the tile game's")
        check_deep(deep_samples, deep_share, make_teacher(teacher, seed, tables[0]).samples)
        if deep_share > 0:
            deep = (int(deep_samples), float(deep_share))  # type: ignore[arg-type]
    if opponents is not None:
        check_opponents(game, opponents, tables)
    settings: dict[str, Any] = {"teacher": teacher, "seed": seed, "keep": keep}
    if game != "carcassonne":
        settings.update(game=game, tables=list(tables))
    elif tuple(tables) != (2,):  # folders of 2-player games stay valid
        settings["tables"] = list(tables)
    if variants != (BASE,):  # folders of base games before variants existed stay valid
        settings["variants"] = list(variants)
    if placements is not None:
        settings["placements"] = placements
    if deep is not None:  # folders of teachers without a deep search stay valid
        settings.update(deep_samples=deep[0], deep_share=deep[1])
    if opponents is not None:  # folders of teachers in every seat stay valid
        settings["opponents"] = opponents
    check_folder_settings(folder, SETTINGS_FILE, settings, holds="teacher games")
    jobs = teacher_jobs(folder, games, teacher, seed, keep, placements, game, tables, variants,
                        deep, device, opponents)  # fmt: skip
    todo = [j for j in jobs if not Path(j[-1]).exists()]
    done = games - len(todo)
    if address:
        for _ in _collect_remote(todo, address):
            done += 1
            if on_game:
                on_game(done, games)
        return len(todo)
    with process_pool(workers, device) if workers > 1 else nullcontext() as pool:
        for _ in (pool.map if pool else map)(_play_one, todo):
            done += 1
            if on_game:
                on_game(done, games)
    return len(todo)


def _collect_remote(todo: list[TeacherJob], address: str) -> Iterator[str]:
    """Play ``todo`` as Ray tasks; write each game as it comes back (any order); its path."""
    from carcassonne_rl.arena.remote_games import absolute_spec, iter_remote_unordered
    from carcassonne_rl.runtime.ray_session import ray_session

    remote = [(*j[:3], absolute_spec(j[3]), *j[4:10],
               None if j[10] is None else (absolute_spec(j[10][0]), j[10][1]), j[11])
              for j in todo]  # fmt: skip
    with ray_session(address):
        for index, rows in iter_remote_unordered(play_job, remote):
            atomic_save_npz(todo[index][-1], rows)
            yield todo[index][-1]


def game_files(folder: Path, games: int, seed: int) -> list[Path]:
    """The files of teacher games ``0 .. games - 1`` of ``seed`` in ``folder`` (each must be
    there)."""
    files = [Path(folder) / f"game_{teacher_deal(seed, g)}.npz" for g in range(games)]
    missing = [f.name for f in files if not f.exists()]
    if missing:
        raise ValueError(f"{folder}: {len(missing)} of its {games} teacher games are missing "
                         f"(first: {missing[0]})")  # fmt: skip
    return files


def load_positions(folder: Path, *more: Path, games: int | None = None, seed: int = 0
                   ) -> dict[str, Any]:  # fmt: skip
    """Every game's rows of ``folder`` (with ``games``: just its teacher games ``0 .. games -
    1`` of ``seed``, :func:`game_files`) and of the folders ``more`` concatenated, with
    ``game`` (the file's number) and ``decision`` made unique across games."""
    files = [] if games is None else game_files(folder, games, seed)
    for f in (folder, *more) if games is None else more:
        found = sorted(Path(f).glob("game_*.npz"))
        if not found:
            raise ValueError(f"no teacher games (game_*.npz) in {f}")
        files += found
    return load_games(files)


def load_games(files: list[Path]) -> dict[str, Any]:
    """The rows of the teacher games ``files`` concatenated (see :func:`load_positions`)."""
    parts: dict[str, list] = {k: [] for k in (*ROW_FIELDS, "game")}
    offset = 0
    for number, path in enumerate(files):
        with np.load(path, allow_pickle=False) as z:
            if not set(ROW_FIELDS) <= set(z.files):
                raise ValueError(f"{path}: not a teacher game of expert iteration")
            n = len(z["target"])
            for k in ROW_FIELDS:
                parts[k].append(z[k] + offset if k == "decision" else z[k])
            offset += int(z["decision"].max()) + 1 if n else 0
            parts["game"].append(np.full(n, number, np.int64))
    out = {k: np.concatenate(v) for k, v in parts.items()}
    out["x"] = out["x"].astype(np.float32)
    out["files"] = len(files)
    return out
