"""Agent names: the named spec language (keys per family and game, one line per mistake),
lists split outside parentheses, pinned names that play exactly as their alias, one clear
error for the other game's name, a path that is only a path, resolution records, and the
``agents`` listing built from the registry and the catalog."""

from __future__ import annotations

import hashlib
import shutil

import pytest
from helpers.agent_twins import decisions, fingerprint

from carcassonne_rl.agents import make_agent, registry
from carcassonne_rl.agents.catalog import ALIASES, PINNED
from carcassonne_rl.agents.pretrained import model_dir
from carcassonne_rl.agents.spec import parse, split_specs
from carcassonne_rl.cli.main import main

TILE, CARD = "carcassonne", "cardcassonne"


def test_lists_split_on_the_commas_outside_parentheses() -> None:
    text = "greedy, search(candidates=3, samples=2),exploit(target=search(worlds=2), sims=5),"
    assert split_specs(text) == ["greedy", "search(candidates=3, samples=2)",
                                 "exploit(target=search(worlds=2), sims=5)"]  # fmt: skip
    with pytest.raises(ValueError, match="a '\\(' without its '\\)'"):
        split_specs("greedy,search(worlds=2")
    with pytest.raises(ValueError, match="a '\\)' without its '\\('"):
        split_specs("greedy),random")


def test_a_named_spec_parses_into_its_family_and_arguments() -> None:
    parsed = parse(" Exploit(search(worlds=2, leaf=net), SIMS = 5) ")
    assert parsed.family == "exploit"
    assert parsed.args == ((None, "search(worlds=2, leaf=net)"), ("sims", "5"))
    with pytest.raises(ValueError, match="given twice"):
        parse("mcts(sims=1, sims=2)")
    with pytest.raises(ValueError, match="positional argument after key=value"):
        parse("exploit(sims=5, greedy)")


@pytest.mark.parametrize(
    ("spec", "game", "message"),
    [
        ("mcts(simz=3)", TILE, "bad spec 'mcts(simz=3)': mcts has no key 'simz'; the keys of "
         "mcts in carcassonne: sims (int >= 1, default 1000); seconds"),
        ("mcts(sims=0)", CARD, "sims=0 is not int >= 1; the keys of mcts in cardcassonne"),
        ("mcts(sims=many)", TILE, "sims=many is not int >= 1"),
        ("blend", TILE, "blend needs weight; the keys of blend in carcassonne: weight"),
        ("blend(weight=2)", TILE, "weight=2 is not float in [0, 1]"),
        ("blend(weight=0.5)", CARD, "blend plays the tile game (carcassonne) only"),
        ("search(worlds=8)", TILE, "search has no key 'worlds'; the keys of search in "
         "carcassonne: candidates"),
        ("search(samples=2)", CARD, "search has no key 'samples'; the keys of search in "
         "cardcassonne: base"),
        ("search(leaf=soon)", CARD, "leaf=soon is not net, table"),
        ("search(base=heuristic, leaf=net)", CARD, "leaf=net needs base=net"),
        ("search(base=heuristic, net=cardcassonne_dmc)", CARD, "net= needs base=net"),
        ("search(net=cardcassonne_dmc.npz, worlds=2)", TILE, ""),  # a card network: its own
        ("search(net=nonesuch)", TILE, "'nonesuch' is not a shipped model (models.json keys:"),
        ("search(net=./nonesuch.npz)", TILE, "no such network file ./nonesuch.npz"),
        ("policy", TILE, "policy needs exactly one of path= and model="),
        ("policy(path=a.npz, model=carcassonne_2p)", TILE, "policy needs exactly one of path="),
        ("policy(model=nonesuch)", CARD, "'nonesuch' is not a shipped model"),
        ("policy(path=cardcassonne_dmc.npz)", CARD, "no model file or run folder at "
         "cardcassonne_dmc.npz"),
        ("mcts(1000)", TILE, "write key=value; the keys of mcts in carcassonne"),
        ("cheat(greedy)", CARD, "cheat needs a card search"),
        ("exploit", CARD, "exploit needs target; the keys of exploit in cardcassonne: target"),
        ("tile-net-v2", CARD, "tile-net-v2 is a tile-game agent (carcassonne); the cardcassonne "
         "agents' pinned names start with card- (e.g. card-net-v4)"),
        ("card-search-v1", TILE, "card-search-v1 is a card-game agent (cardcassonne); the "
         "carcassonne agents' pinned names start with tile- (e.g. tile-net-v8)"),
        ("tile-net-v2(sims=3)", TILE, "a pinned name takes no keys"),
        ("wizard(level=3)", TILE, "unknown agent 'wizard(level=3)'; expected one of random, "
         "greedy, heuristic, mcts, pretrained, search, blend, pretrained-obs, policy, cheat, "
         "cheat-mcts, exploit, openspiel"),
        ("mcts(sims=3", TILE, "ending in ')'"),
    ],
)  # fmt: skip
def test_a_bad_named_spec_gets_one_line_naming_the_valid_keys(spec, game, message) -> None:
    if spec.startswith("search(net=cardcassonne_dmc"):  # a card network in the tile search
        with pytest.raises(ValueError) as err:
            make_agent("search(net=cardcassonne_dmc)", game)
        assert "\n" not in str(err.value)
        return
    with pytest.raises(ValueError) as err:
        make_agent(spec, game)
    assert message in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_names_lists_every_family_policy_included() -> None:
    assert {
        "random",
        "greedy",
        "heuristic",
        "mcts",
        "pretrained",
        "search",
        "blend",
        "pretrained-obs",
        "policy",
        "cheat",
        "cheat-mcts",
        "exploit",
    } <= set(registry.NAMES)
    assert set(registry.KEYS) <= set(registry.family_names())  # fmt: skip


@pytest.mark.parametrize("game", [TILE, CARD])
def test_every_alias_decides_as_its_pinned_name(game: str) -> None:
    for alias, name in ALIASES[game].items():
        n = 1 if "search" in alias and game == TILE else 3
        assert registry.resolution(alias, game)["pinned"] == name
        assert fingerprint(make_agent(alias, game, 3)) == fingerprint(make_agent(name, game, 3))
        assert decisions(alias, game, n) == decisions(name, game, n), alias
    assert decisions("pretrained", game, 3, players=3) == decisions(
        ALIASES[game]["pretrained"], game, 3, players=3
    )


def test_the_card_search_with_keys_is_not_its_alias() -> None:
    """Bare ``search`` (and ``pretrained:search``) in the card game is the alias of the newest
    pinned search, ``card-search-v3``; a spec with keys leaves inference off unless it names
    ``infer``, so at every default it is ``card-search-v1``, written ``search(infer=none)``."""
    v1 = fingerprint(make_agent("card-search-v1", CARD, 3))
    assert fingerprint(make_agent("search", CARD, 3)) != v1
    for spec in ("search(infer=none)", "search(worlds=8)", "search(candidates=3, horizon=1)",
                 "pretrained:search=8", "pretrained:search=8:3"):  # fmt: skip
        record = registry.resolution(spec, CARD)
        assert record["pinned"] == "card-search-v1", spec
        assert record["named"] == "search(infer=none)", spec
        assert fingerprint(make_agent(spec, CARD, 3)) == v1, spec
    for spec in ("search", "pretrained:search"):
        assert registry.resolution(spec, CARD)["named"] == "search"
    assert (
        registry.resolution("search(infer=heuristic, pool=3)", CARD)["pinned"] == "card-search-v2"
    )
    turns = "search(infer=heuristic, pool=3, evidence=turns)"
    assert registry.resolution(turns, CARD)["pinned"] == "card-search-v3"
    assert registry.resolution("search", CARD)["pinned"] == "card-search-v3"
    assert registry.resolution("search(worlds=16)", CARD)["pinned"] is None


def test_the_tile_search_with_keys_is_not_its_alias() -> None:
    """Bare ``search`` (and ``pretrained:search``) in the tile game is the alias of the newest
    pinned search, ``tile-search-v4``; a spec with keys searches the network it searched
    before unless it names ``net``, so at every default it is ``tile-search-v2``."""
    v2 = fingerprint(make_agent("tile-search-v2", TILE, 3))
    v3 = fingerprint(make_agent("tile-search-v3", TILE, 3))
    v4 = fingerprint(make_agent("tile-search-v4", TILE, 3))
    assert len({v2, v3, v4}) == 3
    for spec in ("search(samples=2)", "search(candidates=3)", "pretrained:search=3:2"):
        record = registry.resolution(spec, TILE)
        assert (record["named"], record["pinned"]) == ("tile-search-v2", "tile-search-v2"), spec
        assert fingerprint(make_agent(spec, TILE, 3)) == v2, spec
    for spec in ("search", "pretrained:search", "search(net=carcassonne_2p_expert4)"):
        assert registry.resolution(spec, TILE)["pinned"] == "tile-search-v4", spec
        assert fingerprint(make_agent(spec, TILE, 3)) == v4, spec
    assert registry.resolution("search(net=carcassonne_2p_expert3)", TILE)["pinned"] == (
        "tile-search-v3")
    assert fingerprint(make_agent("search(net=carcassonne_2p_expert3)", TILE, 3)) == v3
    assert registry.resolution("search(samples=4)", TILE)["pinned"] is None


def test_older_pinned_names_rebuild_what_pretrained_played() -> None:
    # tile-net-v1: at 2 players the fine-tuned network averaged 0.75/0.25 with the heuristic
    # (the deprecated pretrained:blend=0.75 there), at 3-5 what tile-net-v2 plays
    assert decisions("tile-net-v1", TILE, 6) == decisions("pretrained:blend=0.75", TILE, 6)
    assert decisions("tile-net-v1", TILE, 6) != decisions("tile-net-v2", TILE, 6)
    for players in (3, 5):
        assert decisions("tile-net-v1", TILE, 4, players=players) == decisions(
            "tile-net-v2", TILE, 4, players=players
        )
    # tile-net-v3 and tile-search-v3: another 2-player network, the rest as v2
    assert decisions("tile-net-v3", TILE, 6) != decisions("tile-net-v2", TILE, 6)
    assert decisions("tile-net-v3", TILE, 6) == decisions("policy(model=carcassonne_2p_expert3)",
                                                          TILE, 6)  # fmt: skip
    assert decisions("tile-net-v3", TILE, 4, players=3) == decisions("tile-net-v2", TILE, 4,
                                                                     players=3)  # fmt: skip
    assert decisions("tile-search-v3", TILE, 1, players=3) == decisions("tile-search-v2", TILE, 1,
                                                                        players=3)  # fmt: skip
    assert PINNED["tile-search-v3"].files[0] == PINNED["tile-net-v3"].files[0]
    # tile-net-v4: another 2-player network, at 3 players the table network taught against
    # greedy seats (averaged with the heuristic, as its file says), at 4-5 as v2
    assert fingerprint(make_agent("tile-net-v4", TILE, 3)) != fingerprint(
        make_agent("tile-net-v3", TILE, 3))  # (their first 40 decisions of deal 4 agree)
    two = decisions("tile-net-v4", TILE, 40)
    assert two == decisions("policy(model=carcassonne_2p_expert4)", TILE, 40)
    three = decisions("tile-net-v4", TILE, 40, players=3)
    assert three != decisions("tile-net-v3", TILE, 40, players=3)
    assert three == decisions("policy(model=carcassonne_table_3p)", TILE, 40, players=3)
    assert three == decisions("pretrained:blend=0.75@carcassonne_table_3p.npz", TILE, 40,
                              players=3)  # fmt: skip
    for players in (4, 5):
        assert decisions("tile-net-v4", TILE, 3, players=players) == decisions(
            "tile-net-v3", TILE, 3, players=players
        )
    assert decisions("tile-search-v4", TILE, 1, players=3) == decisions("tile-search-v2", TILE, 1,
                                                                        players=3)  # fmt: skip
    assert PINNED["tile-search-v4"].files[0] == PINNED["tile-net-v4"].files[0]
    # tile-net-v5: tile-net-v4 at 2 and 4-5 players, another table network at 3 (its file
    # names its weight, 0.75)
    assert decisions("tile-net-v5", TILE, 40) == two
    five = decisions("tile-net-v5", TILE, 40, players=3)
    assert five != three
    assert five == decisions("policy(model=carcassonne_table_3p_rank)", TILE, 40, players=3)
    for players in (4, 5):
        assert decisions("tile-net-v5", TILE, 3, players=players) == decisions(
            "tile-net-v4", TILE, 3, players=players
        )
    # tile-net-v6: tile-net-v4 at 2 and 4-5 players, at 3 the table network of the next step
    assert decisions("tile-net-v6", TILE, 40) == two
    six = decisions("tile-net-v6", TILE, 40, players=3)
    assert six != five
    assert six == decisions("policy(model=carcassonne_table_3p_rank2)", TILE, 40, players=3)
    for players in (4, 5):
        assert decisions("tile-net-v6", TILE, 3, players=players) == decisions(
            "tile-net-v4", TILE, 3, players=players
        )
    # tile-net-v7: another 2-player network, tile-net-v6 at 3-5 players
    assert fingerprint(make_agent("tile-net-v7", TILE, 3)) != fingerprint(
        make_agent("tile-net-v4", TILE, 3))  # (their first 40 decisions of deal 4 agree)
    seven = decisions("tile-net-v7", TILE, 40)
    assert seven == decisions("policy(model=carcassonne_2p_expert5)", TILE, 40)
    assert decisions("tile-net-v7", TILE, 40, players=3) == six
    for players in (4, 5):
        assert decisions("tile-net-v7", TILE, 3, players=players) == decisions(
            "tile-net-v4", TILE, 3, players=players
        )
    # tile-net-v8 (pretrained): tile-net-v7 at 2-4 players, at 5 its 3-player network
    for players, moves in ((2, 40), (3, 40), (4, 3)):
        eight = decisions("tile-net-v8", TILE, moves, players=players)
        assert eight == decisions("tile-net-v7", TILE, moves, players=players)
        assert eight == decisions("pretrained", TILE, moves, players=players)
    assert seven == decisions("pretrained", TILE, 40)
    five_seats = decisions("tile-net-v8", TILE, 40, players=5)
    assert five_seats == decisions("pretrained", TILE, 40, players=5)
    assert five_seats != decisions("tile-net-v7", TILE, 40, players=5)
    assert five_seats == decisions("policy(model=carcassonne_table_3p_rank2)", TILE, 40, players=5)
    assert "carcassonne_obs_5p.npz" not in PINNED["tile-net-v8"].files
    for name, file in (("card-net-v1", "cardcassonne_2p.npz"),
                       ("card-net-v2", "cardcassonne_expert.npz"),
                       ("card-net-v3", "cardcassonne_dmc.npz"),
                       ("card-net-v4", "cardcassonne_netleaf.npz")):  # fmt: skip
        assert PINNED[name].files == (file,)
        spec = f"policy:{file}"
        assert fingerprint(make_agent(name, CARD, 3)) == fingerprint(make_agent(spec, CARD, 3))
        assert registry.resolution(spec, CARD)["pinned"] == name
        assert decisions(name, CARD, 4) == decisions(spec, CARD, 4)


def test_a_path_is_only_a_path(tmp_path, monkeypatch) -> None:
    """``policy(path=NAME.npz)`` never reads the shipped file of that name, the deprecated
    ``policy:NAME.npz`` still does; ``policy(model=...)`` names the shipped one."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="no model file or run folder at cardcassonne_dmc.npz"):
        make_agent("policy(path=cardcassonne_dmc.npz)", CARD)
    old = make_agent("policy:cardcassonne_dmc.npz", CARD, 1)
    for named in ("policy(model=cardcassonne_dmc)", "policy(model=cardcassonne_dmc.npz)"):
        assert fingerprint(make_agent(named, CARD, 1)) == fingerprint(old)
    shutil.copyfile(model_dir() / "cardcassonne_expert.npz", tmp_path / "cardcassonne_dmc.npz")
    local = make_agent("policy(path=cardcassonne_dmc.npz)", CARD, 1)
    assert fingerprint(local) == fingerprint(make_agent("card-net-v2", CARD, 1))
    record = registry.resolution("policy(path=cardcassonne_dmc.npz)", CARD)
    digest = hashlib.sha256((tmp_path / "cardcassonne_dmc.npz").read_bytes()).hexdigest()
    assert record["files"] == [{"file": "cardcassonne_dmc.npz", "shipped": False,
                                "sha256": digest}]  # fmt: skip
    assert record["pinned"] is None


def test_a_resolution_names_the_pinned_agent_its_files_and_the_version() -> None:
    import carcassonne_rl

    record = registry.resolution("pretrained:search", TILE)
    assert record["spec"] == "pretrained:search" and record["named"] == "search"
    assert record["pinned"] == "tile-search-v4"
    files = ["carcassonne_2p_expert4.npz", "carcassonne_table.npz", "carcassonne_table_greedy.npz"]
    assert [f["file"] for f in record["files"]] == files
    for f in record["files"]:
        assert f["sha256"] == hashlib.sha256((model_dir() / f["file"]).read_bytes()).hexdigest()
    assert record["version"] == getattr(carcassonne_rl, "__version__", record["version"])
    assert record["version"]
    nested = registry.resolution("exploit(target=policy(model=cardcassonne_2p), sims=9)", CARD)
    assert nested["named"] == "exploit(target=policy(model=cardcassonne_2p), sims=9)"
    assert [f["file"] for f in nested["files"]] == ["cardcassonne_2p.npz"]
    assert registry.resolution("mcts(sims=1000)", TILE)["named"] == "mcts"


@pytest.mark.parametrize("game", [TILE, CARD])
def test_the_agents_command_lists_every_family_and_pinned_name(game, capsys) -> None:
    assert main(["agents", "--game", game]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    for family, per in registry.KEYS.items():
        if game in per:
            assert any(line.startswith(f"  {family}: ") for line in lines), family
    for entry in PINNED.values():
        if entry.game == game:
            (line,) = [x for x in lines if x.startswith(f"  {entry.name}: ")]
            assert entry.card_page in line and entry.what in line
        else:
            assert f"  {entry.name}: " not in out
    for old, _ in registry.DEPRECATED[game]:
        assert f"  {old} -> " in out
    assert "deprecated" in out


def test_help_texts_list_the_families_from_the_registry(capsys) -> None:
    for command in (["arena", "--help"], ["play", "--help"], ["evaluate", "--help"]):
        with pytest.raises(SystemExit):
            main(command)
        text = " ".join(capsys.readouterr().out.split())
        for family in ("heuristic", "search", "blend", "pretrained-obs", "policy", "exploit"):
            assert family in text, (command, family)
        assert "mcts[:sims" not in text
