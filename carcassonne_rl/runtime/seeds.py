"""Every seed the project derives from another, one function per purpose, with its formula.

The values are fixed: the arena's published deals, the golden games, the trainers' runs and
every number quoted in the docs replay from them. Never change a formula; a new purpose gets
a new function (pick multipliers that keep its numbers apart from the others').

- Arena (``carcassonne-rl arena --seed S``): :func:`arena_deal`, :func:`arena_game_seed`,
  :func:`seat_seed` (also the play page's agents).
- Tile afterstate self-play: :func:`afterstate_base`, :func:`afterstate_deal`,
  :func:`afterstate_game_rng_seed`.
- PPO self-play: :func:`ppo_pool_seed`, :func:`ppo_env_seed`.
- Demonstrations (PPO's warm start, distillation): :func:`demo_first_deal`,
  :func:`demo_deal`, :func:`demo_agent_seed`, :func:`demo_seat_seed`.
- Expert iteration's teacher games: :func:`teacher_deal`, :func:`teacher_agent_seed`;
  its loop: :func:`expert_loop_seed`, :func:`expert_gate_seed`.
- OpenSpiel's search bots: :func:`openspiel_search_seed`.
- ``bench engine``: :func:`bench_deal`, :func:`bench_warmup_deal`.
"""

from __future__ import annotations


def arena_deal(seed: int, lineup: int, deal: int, shared: bool = False) -> int:
    """Deal ``deal`` of lineup ``lineup`` in a match seeded ``seed``:
    ``seed * 1_000_003 + lineup * 10_007 + deal``; ``shared`` (a versus match, whose lineups
    all play the same deals): ``seed * 1_000_003 + deal``."""
    return seed * 1_000_003 + (0 if shared else lineup * 10_007) + deal


def arena_game_seed(deal: int, rotation: int) -> int:
    """The agents' seed of one arena game (seat rotation ``rotation`` of deal ``deal``):
    ``deal * 8 + rotation``."""
    return deal * 8 + rotation


def seat_seed(game_seed: int, seat: int) -> int:
    """Seat ``seat``'s agent in a game seeded ``game_seed`` (arena games, the play page):
    ``game_seed * 16 + seat``."""
    return game_seed * 16 + seat


def afterstate_base(seed: int, games_before: int) -> int:
    """The base of an afterstate self-play iteration of a run seeded ``seed`` that has played
    ``games_before`` games: ``seed * 1_000_003 + games_before`` (the seed of the iteration's
    lineup draws; its games are dealt by :func:`afterstate_deal`)."""
    return seed * 1_000_003 + games_before


def afterstate_deal(base: int, game: int) -> int:
    """Game ``game`` of the iteration at ``base`` (:func:`afterstate_base`): ``base + game``;
    a chunk of games sent to a worker is seeded by its first game's deal."""
    return base + game


def afterstate_game_rng_seed(chunk_seed: int, deal: int) -> int:
    """The random choices (exploration) of the game dealt ``deal`` in a worker's chunk
    seeded ``chunk_seed``: ``chunk_seed * 1_000_003 + deal``."""
    return chunk_seed * 1_000_003 + deal


def ppo_pool_seed(seed: int, rank: int, opponent: int) -> int:
    """Opponent pool ``opponent`` of PPO environment ``rank`` (run seed ``seed``):
    ``seed * 1000 + rank * 10 + opponent``."""
    return seed * 1000 + rank * 10 + opponent


def ppo_env_seed(seed: int, rank: int) -> int:
    """The first reset of PPO environment ``rank`` (run seed ``seed``): ``seed * 1000 + rank``."""
    return seed * 1000 + rank


def demo_first_deal(seed: int) -> int:
    """The first demonstration deal of a run seeded ``seed`` (PPO's warm start, distillation
    demos): ``seed * 7919 + 10_000``."""
    return seed * 7919 + 10_000


def demo_deal(first: int, game: int) -> int:
    """Demonstration game ``game`` counted from deal ``first`` (:func:`demo_first_deal`):
    ``first + game``."""
    return first + game


def demo_agent_seed(first: int, game: int) -> int:
    """The agents' seed of demonstration game ``game`` counted from deal ``first``:
    ``first + 97 * game`` (seat ``p``: :func:`demo_seat_seed`)."""
    return first + 97 * game


def demo_seat_seed(agent_seed: int, seat: int) -> int:
    """Seat ``seat``'s teacher (or student) in a demonstration game: ``agent_seed + seat``."""
    return agent_seed + seat


def teacher_deal(seed: int, game: int) -> int:
    """Expert iteration's teacher game ``game`` of seed ``seed``:
    ``50_000_000 + seed * 100_003 + game`` (apart from the arena's and training's deals)."""
    return 50_000_000 + seed * 100_003 + game


def teacher_agent_seed(seed: int, game: int) -> int:
    """The teacher's seed in expert iteration's teacher game ``game``: ``seed * 7919 + game``."""
    return seed * 7919 + game


def expert_loop_seed(seed: int, iteration: int) -> int:
    """The seed of iteration ``iteration`` (0, 1, ...) of an expert-iteration loop seeded
    ``seed``: its teacher games (:func:`teacher_deal`) and its fit's split and shuffle:
    ``seed * 1_000 + iteration`` (``expert-iteration --seed`` of that value plays the same
    games; a loop runs fewer than 1,000 iterations)."""
    return seed * 1_000 + iteration


def expert_gate_seed(seed: int) -> int:
    """The arena seed of an expert-iteration loop's gate (:func:`arena_deal`; the same deals
    at every iteration): ``1_000 + seed`` (apart from the reports' ``--seed 0``, ``1``)."""
    return 1_000 + seed


def openspiel_search_seed(seed: int, call: int) -> int:
    """An OpenSpiel search bot's seed for its ``call``-th decision (agent seed ``seed``):
    ``(seed * 7919 + call) % 2**32``."""
    return (seed * 7919 + call) % 2**32


def bench_deal(seed: int, game: int) -> int:
    """Game ``game`` of ``bench engine --seed seed``: ``seed + game``."""
    return seed + game


def bench_warmup_deal(seed: int) -> int:
    """The untimed warm-up game of ``bench engine``: ``10**9 + seed``."""
    return 10**9 + seed
