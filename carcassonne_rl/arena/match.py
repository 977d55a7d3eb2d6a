"""Matches between agents: seat rotation, duplicate deals, parallel games.

A *lineup* is an ordered tuple of agent entries, one per seat. In the duplicate format every
deal (the tile order / card order, fixed by a deal seed) is played once per rotation of the
lineup over the seats, so every entry meets the same luck from every seat. With more
entries than seats, every combination of entries is a lineup (round-robin).

A *versus* match (``opponents`` given) has one lineup per (agent, opponent) pair: the agent
in one seat and ``players - 1`` copies of the opponent in the others, so "this agent
against N-1 copies of that one" needs no hand-built lineup; with every seat rotation each
agent plays each deal from every seat.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from carcassonne_rl.agents import make_agent
from carcassonne_rl.games import registry
from carcassonne_rl.games.carcassonne.views import for_agent
from carcassonne_rl.runtime.seeds import arena_deal, arena_game_seed, seat_seed


@dataclass(frozen=True)
class Setup:
    """Which game, how many seats, which tile-game expansions."""

    game: str = "carcassonne"
    players: int = 2
    expansions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        registry.check_setup(self.game, self.players, self.expansions)

    def new_state(self, deal: int) -> Any:
        """A fresh game dealt by seed ``deal``."""
        return registry.new_game(self.game, self.players, deal, self.expansions)


@dataclass
class GameResult:
    """One finished game: who sat where, the scores, the winners and the decision times
    (``seconds``: wall-clock, which a loaded machine inflates; ``cpu_seconds``: this process's
    CPU time, empty in a log written before it was recorded)."""

    deal: int
    rotation: int
    lineup: int
    seats: list[str]  # entry label per seat
    scores: list[int]
    winners: list[int]
    decisions: list[int] = field(default_factory=list)  # per seat
    seconds: list[float] = field(default_factory=list)  # thinking time per seat (wall-clock)
    record: str | None = None  # the engine's JSON record (with ``Job.save_record``)
    cpu_seconds: list[float] = field(default_factory=list)  # thinking CPU time per seat

    def to_dict(self) -> dict:
        out = asdict(self)
        del out["record"]
        return out


@dataclass(frozen=True)
class Job:
    setup: Setup
    specs: tuple[str, ...]  # agent spec per seat
    labels: tuple[str, ...]  # entry label per seat
    deal: int
    rotation: int
    lineup: int
    agent_seed: int
    save_record: bool = False


#: untimed decisions of a throwaway agent before an agent's first timed one in a process
#: (2 tile-game turns: a tile's placement and a follower's each compile their own kernels)
WARM_UP_DECISIONS = 4
_warmed: set[tuple[str, Setup]] = set()  # (spec, setup) warmed up in this process


def warm_up(spec: str, setup: Setup, decisions: int = WARM_UP_DECISIONS) -> None:
    """Once per process and ``(spec, setup)``: a throwaway agent of ``spec`` plays the first
    ``decisions`` decisions of a spare deal, so that the timed decisions leave out Numba
    compiling (or loading) its kernels (like ``bench env``'s warm-up). The match's own agents
    are built afresh afterwards: the games and their results do not change."""
    if (spec, setup) in _warmed:
        return
    _warmed.add((spec, setup))
    state = setup.new_state(0)
    agent = make_agent(spec, setup.game, seed=0)
    for _ in range(decisions):
        if state.is_over:
            break
        p = state.current_player
        state.apply_code(int(agent.act(for_agent(state, p, agent), p)))


def play_game(job: Job, max_decisions: int = 100_000, warm: bool = True) -> GameResult:
    """Play one game; raises if an agent returns an illegal action. ``warm``: each agent
    spec is warmed up first (:func:`warm_up`, once per process), so that the decision
    times exclude compiling. Each decision is timed twice: wall-clock (``perf_counter``) and
    the process's CPU time (``process_time``; the agents keep BLAS and torch to one thread, so
    this is the decision's own computation, not other processes' load)."""
    if warm:
        for spec in dict.fromkeys(job.specs):
            warm_up(spec, job.setup)
    state = job.setup.new_state(job.deal)
    n = job.setup.players
    agents = [
        make_agent(spec, job.setup.game, seed=seat_seed(job.agent_seed, seat))
        for seat, spec in enumerate(job.specs)
    ]
    decisions = [0] * n
    seconds = [0.0] * n
    cpu_seconds = [0.0] * n
    for _ in range(max_decisions):
        if state.is_over:
            break
        p = state.current_player
        c0, t0 = time.process_time(), time.perf_counter()
        code = agents[p].act(for_agent(state, p, agents[p]), p)  # a tile seat gets its TileView
        seconds[p] += time.perf_counter() - t0
        cpu_seconds[p] += time.process_time() - c0
        decisions[p] += 1
        state.apply_code(int(code))  # the engine rejects an illegal code
    else:  # pragma: no cover - engines always end
        raise RuntimeError("game did not end")
    return GameResult(
        deal=job.deal,
        rotation=job.rotation,
        lineup=job.lineup,
        seats=list(job.labels),
        scores=[int(x) for x in state.scores],
        winners=[int(w) for w in state.winners()],
        decisions=decisions,
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        record=state.to_json() if job.save_record else None,
    )


def entry_labels(specs: Sequence[str]) -> list[str]:
    """Unique labels for the entries: a repeated spec gets ``#2``, ``#3``..."""
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return out


def lineups(n_entries: int, players: int) -> list[tuple[int, ...]]:
    """Entry indices per lineup: all entries if they fit, else every combination."""
    if n_entries < 2:
        raise ValueError("a match needs at least 2 agents")
    if n_entries <= players:
        return [tuple(i % n_entries for i in range(players))]
    return list(itertools.combinations(range(n_entries), players))


def versus_lineups(n_agents: int, n_opponents: int, players: int) -> list[tuple[int, ...]]:
    """Entry indices per lineup of a versus match (entries: the agents, then the
    opponents): each agent with ``players - 1`` copies of each opponent."""
    if n_agents < 1 or n_opponents < 1:
        raise ValueError("a versus match needs at least one agent and one opponent")
    return [
        (a, *([n_agents + o] * (players - 1))) for a in range(n_agents) for o in range(n_opponents)
    ]


def schedule(
    setup: Setup,
    specs: Sequence[str],
    deals: int,
    duplicate: bool = True,
    seed: int = 0,
    save_records: bool = False,
    opponents: Sequence[str] | None = None,
) -> list[Job]:
    """Jobs of a match: ``deals`` deals per lineup, each once per rotation if ``duplicate``
    (else one game per deal, the lineup rotated by the deal index); ``save_records`` keeps
    each game's record in its result. With ``opponents`` it is a versus match (see
    ``versus_lineups``; entry labels: ``entry_labels(specs + opponents)``; every lineup
    plays the same deals)."""
    n = setup.players
    if opponents:
        table = versus_lineups(len(specs), len(opponents), n)
        specs = [*specs, *opponents]
    else:
        table = lineups(len(specs), n)
    labels = entry_labels(specs)
    jobs = []
    for li, lineup in enumerate(table):
        for d in range(deals):
            # versus lineups share their deals, so agents are compared on the same luck
            deal = arena_deal(seed, li, d, shared=bool(opponents))
            rotations = range(n) if duplicate else [d % n]
            for r in rotations:
                seat_entries = [lineup[(s - r) % n] for s in range(n)]
                jobs.append(
                    Job(
                        setup,
                        tuple(specs[i] for i in seat_entries),
                        tuple(labels[i] for i in seat_entries),
                        deal,
                        r,
                        li,
                        agent_seed=arena_game_seed(deal, r),
                        save_record=save_records,
                    )
                )
    return jobs


def run_jobs(
    jobs: Sequence[Job],
    workers: int = 1,
    progress: bool = True,
    on_result: Callable[[GameResult], None] | None = None,
    desc: str = "arena",
    address: str | None = None,
) -> list[GameResult]:
    """Play the jobs (over ``workers`` processes, or as Ray tasks on the cluster at
    ``address``: see :mod:`.remote_games`), in schedule order; ``progress``: a bar
    named ``desc`` on a terminal, a few plain lines otherwise."""
    bar = None
    if progress:
        from carcassonne_rl.runtime.progress import progress_bar

        bar = progress_bar(len(jobs), desc, "game")
    results: list[GameResult] = []

    def collect(it: Iterable[GameResult]) -> None:
        for res in it:
            results.append(res)
            if on_result is not None:
                on_result(res)
            if bar is not None:
                bar.update(1)

    try:
        if address:
            from carcassonne_rl.runtime.ray_session import ray_session

            from .remote_games import absolute_paths, iter_remote

            with ray_session(address):
                collect(iter_remote(play_game, [absolute_paths(j) for j in jobs]))
        elif workers <= 1:
            collect(play_game(j) for j in jobs)
        else:
            with ProcessPoolExecutor(max_workers=workers) as ex:
                collect(ex.map(play_game, jobs, chunksize=1))
    finally:
        if bar is not None:
            bar.close()
    return results
