"""The deprecated positional agent specs and their named equivalents: every form quoted in
README.md, docs/ and notebooks/ (``grep -rhoE "(pretrained|heuristic|mcts|policy|cheat|
exploit|openspiel|random|greedy)[-:@=A-Za-z0-9_./]*" README.md docs notebooks``) translates
to the named spec of this table, and both build the same agent: the same classes and
parameters, network weights included; the cheaper ones (and a small-search instance of each
expensive family) also make the same decisions with the same seed. Paths of a user's runs are
played by copies of shipped networks made under a temporary folder; ``.zip`` / ``.pt2``
models (trained with torch) and a placeholder's truncated fragments (``pretrained:blend=W@``)
are checked for their translation only."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.agent_twins import decisions, fingerprint

from carcassonne_rl.agents import make_agent, registry
from carcassonne_rl.agents.pretrained import model_dir
from carcassonne_rl.agents.registry import to_named

TILE, CARD = "carcassonne", "cardcassonne"

#: (deprecated form as quoted, game, its named equivalent)
ROWS = [
    ("random", TILE, "random"),
    ("greedy", CARD, "greedy"),
    ("heuristic", TILE, "heuristic"),
    ("heuristic", CARD, "heuristic"),
    ("mcts", CARD, "mcts"),
    ("pretrained", TILE, "pretrained"),
    ("pretrained", CARD, "pretrained"),
    ("pretrained-obs", TILE, "pretrained-obs"),
    ("pretrained:search", CARD, "search"),
    ("pretrained:search=8", CARD, "search(infer=none)"),
    ("pretrained:30", CARD, "pretrained(sims=30)"),
    ("openspiel:mcts", TILE, "openspiel(bot=mcts)"),
    ("openspiel:ismcts", TILE, "openspiel(bot=ismcts)"),
    ("cheat-mcts:200", CARD, "cheat-mcts(sims=200)"),
    ("cheat:heuristic:search=8:3:1:0", CARD, "cheat(search(base=heuristic, leaf=0))"),
    ("cheat:pretrained:search", CARD, "cheat(search)"),
    ("exploit:200:heuristic", CARD, "exploit(target=heuristic, sims=200)"),
    (
        "exploit:200:policy:cardcassonne_2p.npz",
        CARD,
        "exploit(target=policy(model=cardcassonne_2p), sims=200)",
    ),
    (
        "exploit:200:policy:cardcassonne_dmc.npz",
        CARD,
        "exploit(target=policy(model=cardcassonne_dmc), sims=200)",
    ),
    (
        "exploit:200:policy:cardcassonne_expert.npz",
        CARD,
        "exploit(target=policy(model=cardcassonne_expert), sims=200)",
    ),
    ("exploit:200:pretrained", CARD, "exploit(target=pretrained, sims=200)"),
    ("heuristic:search", CARD, "search(base=heuristic)"),
    ("heuristic:search=16:4:1:0", CARD, "search(base=heuristic, worlds=16, candidates=4, leaf=0)"),
    ("heuristic:search=8:3", CARD, "search(base=heuristic)"),
    ("heuristic:search=8:3:1:0", CARD, "search(base=heuristic, leaf=0)"),
    ("heuristic:search=8:3:1:1", CARD, "search(base=heuristic)"),
    ("heuristic:search=8:3:1:2", CARD, "search(base=heuristic, leaf=2)"),
    ("heuristic:search=8:3:2:0", CARD, "search(base=heuristic, horizon=2, leaf=0)"),
    ("mcts:1000", TILE, "mcts"),
    ("mcts:100000:0.5", TILE, "mcts(sims=100000, seconds=0.5)"),
    ("mcts:200", TILE, "mcts(sims=200)"),
    ("mcts:50", TILE, "mcts(sims=50)"),
    ("openspiel:ismcts:1000", TILE, "openspiel(bot=ismcts)"),
    ("openspiel:mcts:1000", TILE, "openspiel(bot=mcts)"),
    ("openspiel:mcts:200", TILE, "openspiel(bot=mcts, sims=200)"),
    ("policy:/tmp/nl80.npz", CARD, "policy(path=/tmp/nl80.npz)"),
    (
        "policy:/work/main/runs/card_loop/iteration_0/network.npz",
        CARD,
        "policy(path=/work/main/runs/card_loop/iteration_0/network.npz)",
    ),
    (
        "policy:/work/main/runs/card_loop/iteration_1/network.npz",
        CARD,
        "policy(path=/work/main/runs/card_loop/iteration_1/network.npz)",
    ),
    ("policy:carcassonne_2p.npz", TILE, "policy(model=carcassonne_2p)"),
    ("policy:carcassonne_2p_expert.npz", TILE, "policy(model=carcassonne_2p_expert)"),
    ("policy:carcassonne_obs.npz", TILE, "policy(model=carcassonne_obs)"),
    (
        "policy:carcassonne_rl/agents/pretrained_models/carcassonne_2p_expert.npz",
        TILE,
        "policy(model=carcassonne_2p_expert)",
    ),
    (
        "policy:carcassonne_rl/agents/pretrained_models/carcassonne_2p_selfplay.npz",
        TILE,
        "policy(model=carcassonne_2p_selfplay)",
    ),
    (
        "policy:carcassonne_rl/agents/pretrained_models/carcassonne_table_expert.npz",
        TILE,
        "policy(model=carcassonne_table_expert)",
    ),
    (
        "policy:carcassonne_rl/agents/pretrained_models/cardcassonne_expert.npz",
        CARD,
        "policy(model=cardcassonne_expert)",
    ),
    ("policy:carcassonne_table.npz", TILE, "policy(model=carcassonne_table)"),
    ("policy:carcassonne_table_expert.npz", TILE, "policy(model=carcassonne_table_expert)"),
    ("policy:cardcassonne_2p.npz", CARD, "policy(model=cardcassonne_2p)"),
    ("policy:cardcassonne_dmc.npz", CARD, "policy(model=cardcassonne_dmc)"),
    ("policy:cardcassonne_expert.npz", CARD, "policy(model=cardcassonne_expert)"),
    ("policy:cardcassonne_netleaf.npz", CARD, "policy(model=cardcassonne_netleaf)"),
    ("policy:features.npz", TILE, "policy(path=features.npz)"),
    ("policy:g253_w06.npz", TILE, "policy(path=g253_w06.npz)"),
    ("policy:g253_w075.npz", TILE, "policy(path=g253_w075.npz)"),
    ("policy:g402_w06.npz", TILE, "policy(path=g402_w06.npz)"),
    ("policy:g402_w075.npz", TILE, "policy(path=g402_w075.npz)"),
    ("policy:g600_w06.npz", TILE, "policy(path=g600_w06.npz)"),
    ("policy:g800_w06.npz", TILE, "policy(path=g800_w06.npz)"),
    ("policy:g800_w075.npz", TILE, "policy(path=g800_w075.npz)"),
    ("policy:net_80.npz", TILE, "policy(path=net_80.npz)"),
    ("policy:runs/card", CARD, "policy(path=runs/card)"),
    ("policy:runs/card/final_model.zip", CARD, "policy(path=runs/card/final_model.zip)"),
    ("policy:runs/card_ei_dmc/network.npz", CARD, "policy(path=runs/card_ei_dmc/network.npz)"),
    (
        "policy:runs/card_ei_netleaf/net_160.npz",
        CARD,
        "policy(path=runs/card_ei_netleaf/net_160.npz)",
    ),
    (
        "policy:runs/card_ei_netleaf/net_240.npz",
        CARD,
        "policy(path=runs/card_ei_netleaf/net_240.npz)",
    ),
    (
        "policy:runs/card_ei_netleaf/net_80.npz",
        CARD,
        "policy(path=runs/card_ei_netleaf/net_80.npz)",
    ),
    ("policy:runs/card_f1_both/network.npz", CARD, "policy(path=runs/card_f1_both/network.npz)"),
    (
        "policy:runs/card_f1_scratch/network.npz",
        CARD,
        "policy(path=runs/card_f1_scratch/network.npz)",
    ),
    (
        "policy:runs/card_loop/iteration_0/network.npz",
        CARD,
        "policy(path=runs/card_loop/iteration_0/network.npz)",
    ),
    (
        "policy:runs/card_loop_f1/iteration_0/network.npz",
        CARD,
        "policy(path=runs/card_loop_f1/iteration_0/network.npz)",
    ),
    ("policy:runs/card_lr3e-4.npz", CARD, "policy(path=runs/card_lr3e-4.npz)"),
    (
        "policy:runs/card_sv_heuristic/final_model.npz",
        CARD,
        "policy(path=runs/card_sv_heuristic/final_model.npz)",
    ),
    ("policy:runs/card_sv_mean.npz", CARD, "policy(path=runs/card_sv_mean.npz)"),
    (
        "policy:runs/card_value/final_model.npz",
        CARD,
        "policy(path=runs/card_value/final_model.npz)",
    ),
    (
        "policy:runs/card_value/snapshots/step_255030.npz",
        CARD,
        "policy(path=runs/card_value/snapshots/step_255030.npz)",
    ),
    (
        "policy:runs/card_value/snapshots/step_510060.npz",
        CARD,
        "policy(path=runs/card_value/snapshots/step_510060.npz)",
    ),
    (
        "policy:runs/card_value/snapshots/step_765094.npz",
        CARD,
        "policy(path=runs/card_value/snapshots/step_765094.npz)",
    ),
    (
        "policy:runs/loop3/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop3/iteration_0/network.npz)",
    ),
    (
        "policy:runs/loop35/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop35/iteration_0/network.npz)",
    ),
    (
        "policy:runs/loop2p/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop2p/iteration_0/network.npz)",
    ),
    (
        "policy:docs/pretrained/tile_2p_loop/network.npz",
        TILE,
        "policy(path=docs/pretrained/tile_2p_loop/network.npz)",
    ),
    (
        "policy:runs/loop2p_b/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop2p_b/iteration_0/network.npz)",
    ),
    (
        "policy:runs/loop2p_c/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop2p_c/iteration_0/network.npz)",
    ),
    (
        "policy:carcassonne_rl/agents/pretrained_models/carcassonne_2p_expert3.npz",
        TILE,
        "policy(model=carcassonne_2p_expert3)",
    ),
    (
        "policy:runs/loop2p_d/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop2p_d/iteration_0/network.npz)",
    ),
    (
        "policy:runs/loop2p_e/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop2p_e/iteration_0/network.npz)",
    ),
    (
        "policy:runs/loop2p_f/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop2p_f/iteration_0/network.npz)",
    ),
    (
        "policy:runs/loop2p_g/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop2p_g/iteration_0/network.npz)",
    ),
    (
        "policy:carcassonne_rl/agents/pretrained_models/carcassonne_2p_expert5.npz",
        TILE,
        "policy(model=carcassonne_2p_expert5)",
    ),
    (
        "policy:carcassonne_rl/agents/pretrained_models/carcassonne_2p_expert4.npz",
        TILE,
        "policy(model=carcassonne_2p_expert4)",
    ),
    (
        "policy:runs/loop3g/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop3g/iteration_0/network.npz)",
    ),
    (
        "policy:runs/loop4g/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop4g/iteration_0/network.npz)",
    ),
    ("policy:runs/table_blend075.npz", TILE, "policy(path=runs/table_blend075.npz)"),
    ("policy:runs/table_greedy_blend06.npz", TILE, "policy(path=runs/table_greedy_blend06.npz)"),
    (
        "pretrained:blend=0.75@carcassonne_table_3p.npz",
        TILE,
        "blend(weight=0.75, net=carcassonne_table_3p)",
    ),
    (
        "pretrained:blend=0.75@carcassonne_table_3p_rank.npz",
        TILE,
        "blend(weight=0.75, net=carcassonne_table_3p_rank)",
    ),
    (
        "policy:carcassonne_rl/agents/pretrained_models/carcassonne_table_3p.npz",
        TILE,
        "policy(model=carcassonne_table_3p)",
    ),
    (
        "policy:runs/loop3h/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop3h/iteration_0/network.npz)",
    ),
    (
        "pretrained:search=4:4@carcassonne_rl/agents/pretrained_models/carcassonne_table_3p.npz",
        TILE,
        "search(candidates=4, samples=4, net=carcassonne_table_3p)",
    ),
    (
        "pretrained:search=4:4@carcassonne_rl/agents/pretrained_models/carcassonne_table_3p_rank.npz",
        TILE,
        "search(candidates=4, samples=4, net=carcassonne_table_3p_rank)",
    ),
    (
        "policy:carcassonne_rl/agents/pretrained_models/carcassonne_table_3p_rank.npz",
        TILE,
        "policy(model=carcassonne_table_3p_rank)",
    ),
    (
        "policy:runs/loop3i/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop3i/iteration_0/network.npz)",
    ),
    (
        "policy:runs/loop4h/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop4h/iteration_0/network.npz)",
    ),
    (
        "policy:runs/loop3j/iteration_0/network.npz",
        TILE,
        "policy(path=runs/loop3j/iteration_0/network.npz)",
    ),
    (
        "policy:carcassonne_rl/agents/pretrained_models/carcassonne_table_3p_rank2.npz",
        TILE,
        "policy(model=carcassonne_table_3p_rank2)",
    ),
    (
        "pretrained:search=4:4@carcassonne_rl/agents/pretrained_models/carcassonne_table_3p_rank2.npz",
        TILE,
        "search(candidates=4, samples=4, net=carcassonne_table_3p_rank2)",
    ),
    (
        "pretrained:blend=0.6@carcassonne_table_3p_rank.npz",
        TILE,
        "blend(weight=0.6, net=carcassonne_table_3p_rank)",
    ),
    (
        "pretrained:blend=0.75@carcassonne_table_3p_rank2.npz",
        TILE,
        "blend(weight=0.75, net=carcassonne_table_3p_rank2)",
    ),
    (
        "pretrained:blend=0.85@carcassonne_table_3p_rank2.npz",
        TILE,
        "blend(weight=0.85, net=carcassonne_table_3p_rank2)",
    ),
    (
        "pretrained:search=4:4@runs/table_greedy_blend06.npz",
        TILE,
        "search(candidates=4, samples=4, net=runs/table_greedy_blend06.npz)",
    ),
    ("policy:runs/obs_dagger/dagger.npz", TILE, "policy(path=runs/obs_dagger/dagger.npz)"),
    ("policy:runs/obs_soft/imitation.npz", TILE, "policy(path=runs/obs_soft/imitation.npz)"),
    ("policy:runs/obs_soft/ppo_20k.npz", TILE, "policy(path=runs/obs_soft/ppo_20k.npz)"),
    ("policy:runs/ppo_v0", TILE, "policy(path=runs/ppo_v0)"),
    ("policy:runs/ppo_v1", TILE, "policy(path=runs/ppo_v1)"),
    ("policy:runs/tile", TILE, "policy(path=runs/tile)"),
    ("policy:runs/tile/final_model.zip", TILE, "policy(path=runs/tile/final_model.zip)"),
    ("policy:runs/tile_demos/features.npz", TILE, "policy(path=runs/tile_demos/features.npz)"),
    (
        "policy:runs/tile_loop2/iteration_0/network.npz",
        TILE,
        "policy(path=runs/tile_loop2/iteration_0/network.npz)",
    ),
    (
        "policy:runs/tile_loop2/iteration_1/network.npz",
        TILE,
        "policy(path=runs/tile_loop2/iteration_1/network.npz)",
    ),
    (
        "policy:runs/tile_rllib/final_model.pt2",
        TILE,
        "policy(path=runs/tile_rllib/final_model.pt2)",
    ),
    ("policy:table_w06.npz", TILE, "policy(path=table_w06.npz)"),
    ("policy:table_w075.npz", TILE, "policy(path=table_w075.npz)"),
    ("pretrained:100", TILE, "pretrained(sims=100)"),
    ("pretrained:200", TILE, "pretrained(sims=200)"),
    ("pretrained:30", TILE, "pretrained(sims=30)"),
    ("pretrained:blend=0.5", TILE, "blend(weight=0.5)"),
    ("pretrained:blend=0.6", TILE, "blend(weight=0.6)"),
    (
        "pretrained:blend=0.6@carcassonne_table.npz",
        TILE,
        "blend(weight=0.6, net=carcassonne_table)",
    ),
    (
        "pretrained:blend=0.6@carcassonne_table_expert.npz",
        TILE,
        "blend(weight=0.6, net=carcassonne_table_expert)",
    ),
    (
        "pretrained:blend=0.6@carcassonne_table_greedy.npz",
        TILE,
        "blend(weight=0.6, net=carcassonne_table_greedy)",
    ),
    (
        "pretrained:blend=0.6@runs/loop35/iteration_0/network.npz",
        TILE,
        "blend(weight=0.6, net=runs/loop35/iteration_0/network.npz)",
    ),
    ("pretrained:blend=0.6@runs/t5g_avg.npz", TILE, "blend(weight=0.6, net=runs/t5g_avg.npz)"),
    ("pretrained:blend=0.6@runs/t5g_final.npz", TILE, "blend(weight=0.6, net=runs/t5g_final.npz)"),
    ("pretrained:blend=0.75", TILE, "blend(weight=0.75)"),
    (
        "pretrained:blend=0.75@carcassonne_2p_expert.npz",
        TILE,
        "blend(weight=0.75, net=carcassonne_2p_expert)",
    ),
    (
        "pretrained:blend=0.75@carcassonne_rl/agents/pretrained_models/carcassonne_2p_expert.npz",
        TILE,
        "blend(weight=0.75, net=carcassonne_2p_expert)",
    ),
    (
        "pretrained:blend=0.75@carcassonne_table.npz",
        TILE,
        "blend(weight=0.75, net=carcassonne_table)",
    ),
    (
        "pretrained:blend=0.75@carcassonne_table_expert.npz",
        TILE,
        "blend(weight=0.75, net=carcassonne_table_expert)",
    ),
    (
        "pretrained:blend=0.75@carcassonne_table_greedy.npz",
        TILE,
        "blend(weight=0.75, net=carcassonne_table_greedy)",
    ),
    (
        "pretrained:blend=0.75@runs/loop35/iteration_0/network.npz",
        TILE,
        "blend(weight=0.75, net=runs/loop35/iteration_0/network.npz)",
    ),
    ("pretrained:blend=0.9", TILE, "blend(weight=0.9)"),
    (
        "pretrained:blend=0.9@carcassonne_2p_expert.npz",
        TILE,
        "blend(weight=0.9, net=carcassonne_2p_expert)",
    ),
    (
        "pretrained:blend=0.9@carcassonne_rl/agents/pretrained_models/carcassonne_2p_expert.npz",
        TILE,
        "blend(weight=0.9, net=carcassonne_2p_expert)",
    ),
    ("pretrained:blend=1", TILE, "blend(weight=1)"),
    ("pretrained:blend=1@runs/t5g_final.npz", TILE, "blend(weight=1, net=runs/t5g_final.npz)"),
    ("pretrained:search", TILE, "search"),
    ("pretrained:search=2", TILE, "search(candidates=2, samples=0)"),
    ("pretrained:search=2:1", TILE, "search(candidates=2, samples=1)"),
    ("pretrained:search=3:2", TILE, "tile-search-v2"),
    (
        "pretrained:search=3:2@carcassonne_rl/agents/pretrained_models/carcassonne_2p_expert.npz",
        TILE,
        "search(net=carcassonne_2p_expert)",
    ),
    (
        "pretrained:search=3:2@carcassonne_rl/agents/pretrained_models/carcassonne_table_expert.npz",
        TILE,
        "search(net=carcassonne_table_expert)",
    ),
    ("pretrained:search=3:2@carcassonne_table.npz", TILE, "search(net=carcassonne_table)"),
    (
        "pretrained:search=3:2@carcassonne_table_expert.npz",
        TILE,
        "search(net=carcassonne_table_expert)",
    ),
    (
        "pretrained:search=3:2@runs/loop/iteration_0/network.npz",
        TILE,
        "search(net=runs/loop/iteration_0/network.npz)",
    ),
    (
        "pretrained:search=3:2@docs/pretrained/tile_2p_loop/network.npz",
        TILE,
        "search(net=docs/pretrained/tile_2p_loop/network.npz)",
    ),
    (
        "pretrained:search=4:2@docs/pretrained/tile_2p_loop/network.npz",
        TILE,
        "search(candidates=4, net=docs/pretrained/tile_2p_loop/network.npz)",
    ),
    (
        "pretrained:search=4:2@carcassonne_rl/agents/pretrained_models/carcassonne_2p_expert3.npz",
        TILE,
        "search(candidates=4, net=carcassonne_2p_expert3)",
    ),
    (
        "pretrained:search=4:2@carcassonne_rl/agents/pretrained_models/carcassonne_2p_expert4.npz",
        TILE,
        "search(candidates=4, net=carcassonne_2p_expert4)",
    ),
    (
        "pretrained:search=4:2@carcassonne_rl/agents/pretrained_models/carcassonne_2p_expert5.npz",
        TILE,
        "search(candidates=4, net=carcassonne_2p_expert5)",
    ),
    ("pretrained:search=3:2@runs/table_blend06.npz", TILE, "search(net=runs/table_blend06.npz)"),
    (
        "pretrained:search=3:2@runs/table_blend075.npz",
        TILE,
        "search(net=runs/table_blend075.npz)",
    ),
    (
        "pretrained:search=3:2@runs/table_greedy_blend06.npz",
        TILE,
        "search(net=runs/table_greedy_blend06.npz)",
    ),
    (
        "pretrained:search=4:4@runs/table_blend075.npz",
        TILE,
        "search(candidates=4, samples=4, net=runs/table_blend075.npz)",
    ),
    (
        "pretrained:search=4:2@runs/table_greedy_blend06.npz",
        TILE,
        "search(candidates=4, net=runs/table_greedy_blend06.npz)",
    ),
    (
        "pretrained:search=8:3:1:0@cardcassonne_expert.npz",
        CARD,
        "search(net=cardcassonne_expert, leaf=0)",
    ),
    ("pretrained:search=8:3:1:1", CARD, "search(leaf=1)"),
    (
        "pretrained:search=8:3:1:1@carcassonne_rl/agents/pretrained_models/cardcassonne_expert.npz",
        CARD,
        "search(net=cardcassonne_expert, leaf=1)",
    ),
    (
        "pretrained:search=8:3:1:1@cardcassonne_dmc.npz",
        CARD,
        "search(net=cardcassonne_dmc, leaf=1)",
    ),
    (
        "pretrained:search=8:3:1:1@cardcassonne_expert.npz",
        CARD,
        "search(net=cardcassonne_expert, leaf=1)",
    ),
    ("pretrained:search=8:3:1:net", CARD, "search(leaf=net)"),
    (
        "pretrained:search=8:3:1:net@cardcassonne_netleaf.npz",
        CARD,
        "search(net=cardcassonne_netleaf, leaf=net)",
    ),
    (
        "pretrained:search=8:3@runs/card_loop/iteration_0/network.npz",
        CARD,
        "search(net=runs/card_loop/iteration_0/network.npz)",
    ),
    ("pretrained:search@carcassonne_2p_expert.npz", TILE, "search(net=carcassonne_2p_expert)"),
    ("pretrained:search=3:2@carcassonne_2p_expert.npz", TILE, "search(net=carcassonne_2p_expert)"),
    (
        "exploit:200:policy:cardcassonne_netleaf.npz",
        CARD,
        "exploit(target=policy(model=cardcassonne_netleaf), sims=200)",
    ),
    ("policy:carcassonne_obs_4p.npz", TILE, "policy(model=carcassonne_obs_4p)"),
    ("policy:carcassonne_obs_5p.npz", TILE, "policy(model=carcassonne_obs_5p)"),
    ("policy:carcassonne_table_greedy.npz", TILE, "policy(model=carcassonne_table_greedy)"),
    ("pretrained:search=8:3:1:0", CARD, "search(leaf=0)"),
    (
        "pretrained:search=8:3:1:1@cardcassonne_netleaf.npz",
        CARD,
        "search(net=cardcassonne_netleaf, leaf=1)",
    ),
    ("pretrained:search@carcassonne_table.npz", TILE, "search(net=carcassonne_table)"),
    ("pretrained:search@cardcassonne_dmc.npz", CARD, "search(net=cardcassonne_dmc)"),
    ("pretrained:search@cardcassonne_expert.npz", CARD, "search(net=cardcassonne_expert)"),
    ("pretrained:search@cardcassonne_netleaf.npz", CARD, "search(net=cardcassonne_netleaf)"),
]
#: small instances of the expensive rows' families, for the decisions
SMALL = [
    ("mcts:30", TILE, "mcts(sims=30)"),
    ("mcts:30:10", CARD, "mcts(sims=30, seconds=10)"),
    ("cheat-mcts:20", CARD, "cheat-mcts(sims=20)"),
    ("exploit:20:heuristic", CARD, "exploit(target=heuristic, sims=20)"),
    ("exploit:20:policy:cardcassonne_2p.npz", CARD,
     "exploit(target=policy(model=cardcassonne_2p), sims=20)"),
    ("exploit:20:pretrained", CARD, "exploit(target=pretrained, sims=20)"),
    ("pretrained:20", TILE, "pretrained(sims=20)"),
]  # fmt: skip
#: too slow to play in a unit test (the same code with fewer simulations is in SMALL)
SLOW = {"mcts", "mcts:1000", "mcts:100000:0.5", "mcts:200", "cheat-mcts:200", "pretrained:100",
        "pretrained:200", "heuristic:search=16:4:1:0"}  # fmt: skip


def _copy_source(path: str) -> str | None:
    """Which shipped network stands in for a user's file at ``path`` (None: not rebuilt)."""
    if path.endswith((".zip", ".pt2")) or path.startswith("/"):
        return None
    if "card" in path:
        return "cardcassonne_netleaf.npz"
    if any(w in path for w in ("obs", "dagger", "imitation", "ppo_20k", "features")):
        return "carcassonne_obs.npz"
    if any(w in path for w in ("t5g", "table_w", "loop35", "loop3/", "net_80", "g253", "g402",
                               "g600", "g800", "table_", "loop3g", "loop3h",
                               "loop3i", "loop3j", "loop4g", "loop4h")):  # fmt: skip
        return "carcassonne_table_greedy.npz"
    return "carcassonne_2p_expert.npz"


def _user_paths(spec: str) -> list[str]:
    """The paths of a user's files that ``spec`` names (not the shipped ones)."""
    out = []
    for part in spec.replace("@", " @").split():
        for head in ("policy:", "@"):
            if head in part:
                path = part.split(head, 1)[1]
                if path and not (model_dir() / Path(path).name).exists():
                    out.append(path)
    return out


@pytest.fixture(scope="module")
def runs_folder(tmp_path_factory) -> Path:
    """A folder holding a stand-in network at every user path the rows name."""
    root = tmp_path_factory.mktemp("runs")
    # the docs' paths into a checkout (carcassonne_rl/agents/pretrained_models/...)
    (root / "carcassonne_rl").symlink_to(model_dir().parents[1], target_is_directory=True)
    for spec, _, _ in ROWS:
        for path in _user_paths(spec):
            source = _copy_source(path)
            if source is None:
                continue
            target = root / path
            if not target.suffix:  # a run folder: its final model
                target = target / "final_model.npz"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(model_dir() / source, target)
    return root


def _rebuildable(spec: str) -> bool:
    return all(_copy_source(p) is not None for p in _user_paths(spec))


@pytest.mark.parametrize(("old", "game", "named"), ROWS + SMALL)
def test_a_deprecated_form_is_its_named_equivalent(old, game, named, runs_folder, monkeypatch):
    monkeypatch.chdir(runs_folder)
    assert to_named(old, game) == named
    if old.startswith("openspiel"):
        seen = []

        def factory(params: list[str], g: str, s: int | None) -> Any:
            seen.append(params)
            return make_agent("random", g, s)

        monkeypatch.setitem(registry.FAMILIES, "openspiel", factory)
        make_agent(old, game, seed=1), make_agent(named, game, seed=1)
        assert seen[0] == [seen[1][0], seen[1][1]] or seen[0] + ["1000"] == seen[1]
        return
    if not _rebuildable(old):
        return
    assert fingerprint(make_agent(old, game, seed=3)) == fingerprint(make_agent(named, game, 3))
    if old not in SLOW and "exploit:200" not in old:
        n = 1 if game == TILE and "search" in old else 6
        n = 2 if any(w in old for w in ("search", "exploit", "cheat")) and n > 1 else n
        assert decisions(old, game, n) == decisions(named, game, n)


def test_the_table_covers_every_form_quoted_in_the_docs() -> None:
    """Each quoted form (a placeholder in capitals and its fragments aside) is a row."""
    import re
    import subprocess

    root = Path(__file__).resolve().parents[2]
    families = "pretrained|heuristic|mcts|policy|cheat|exploit|openspiel|random|greedy"
    pattern = rf"({families})[-:@=A-Za-z0-9_./]*"
    text = subprocess.run(["grep", "-rhoE", pattern, "README.md", "docs", "notebooks"],
                          cwd=root, capture_output=True, text=True).stdout  # fmt: skip
    quoted = {f.rstrip(".:") for f in text.split()}
    forms = {f for f in quoted if re.search(r"[:@=]", f) and not re.search(r"[A-Z]", f)
             and not f.endswith("@") and "@.." not in f
             and not re.fullmatch(r"exploit:\d+", f)  # exploit:N:TARGET, its placeholder cut
             and f.split(":")[0].split("=")[0] in registry.family_names()}  # fmt: skip
    assert forms, "no quoted forms found"
    assert forms <= {old for old, _, _ in ROWS}, sorted(forms - {old for old, _, _ in ROWS})
