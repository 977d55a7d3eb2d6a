"""The rulebooks' scoring examples (docs/rules/cardcassonne.md), played through the engine.

2 players: the last seat (1) deals the first round, so seat 0 plays first.  Cards are
dealt one at a time starting left of the dealer.  Each expected number is computed by hand.
"""

from helpers.card import points, run, scripted

from carcassonne_rl.games.cardcassonne import building_points

FILL_Y = ["Y2", "Y2", "Y2", "Y2", "Y2", "Y3"]  # seat 0's first-round hand, all to row Y
BLUE = ["B2", "B2", "B2", "B2", "B2", "B3"]  # seat 1's first-round hand, all to row B


def round1_follower_first(row: str) -> list[str]:
    """Seat 0 claims ``row`` at once then plays Y cards; seat 1 plays B cards, claims B."""
    return [
        f"0: follower {row}",
        "1: play B2 B down",
        "0: play Y2 Y down",
        "1: play B2 B up",
        "0: play Y2 Y up",
        "1: play B2 B up",
        "0: play Y2 Y up",
        "1: play B2 B up",
        "0: play Y2 Y up",
        "1: play B2 B up",
        "0: play Y2 Y up",
        "1: play B3 B up",
        "0: play Y3 Y up",
        "1: follower B",
    ]


def test_persons_3_1_1_give_15():
    setup = ["Y1"] * 4 + ["R1"] * 4 + ["G1"] * 2
    s = scripted(
        2, setup, [(1, {0: ["B3", "B1", "B1", "Y2", "Y2", "Y2"], 1: ["R2"] * 3 + ["G2"] * 3})]
    )
    run(
        s,
        [
            "0: play B3 B down",  # face down but in its own row: not misplaced
            "1: play R2 R down",
            "0: play B1 B up",
            "1: follower Y",  # claims the 4 setup Y1 cards: (1+1+1+1) x 4 = 16
            "0: play B1 B up",
            "1: play R2 R up",
            "0: follower B",  # claims B3 B1 B1: (3+1+1) x 3 = 15
            "1: play R2 R up",
            "0: play Y2 Y up",
            "1: play G2 G up",
            "0: play Y2 Y up",
            "1: play G2 G up",
            "0: play Y2 Y up",
            "1: play G2 G up",
        ],
    )
    assert points(s, 0, 1) == [("persons", 15)]
    assert points(s, 1, 1) == [("persons", 16)]
    assert list(s.scores) == [15, 16]
    ev = [e for e in s.score_events if e.player == 0][0]
    assert sorted(ev.cards) == ["B1", "B1", "B3"]


def test_sheep_2_then_5_with_joker():
    # Setup: R row = RA RA (red = sheep), Y row = 8 x Y1.
    setup = ["RA", "RA"] + ["Y1"] * 8
    r2 = {0: ["RA", "RA", "AJ", "Y3", "Y3", "B1"], 1: ["G2"] * 5 + ["G3"]}
    s = scripted(2, setup, [(1, {0: FILL_Y, 1: BLUE}), (1, r2)])
    run(s, round1_follower_first("R"))
    assert points(s, 0, 1) == [("animals", 6)]  # 2 sheep -> 6
    # Seat 1 placed the last follower: it deals round 2, so seat 0 starts again.
    assert (s.round, s.dealer, s.current_player) == (2, 1, 0)
    run(
        s,
        [
            "0: play RA R down",  # own colour's row: not misplaced
            "1: play G2 G down",
            "0: play RA R up",
            "1: play G2 G up",
            "0: play AJ R up",  # a joker may go to any row
            "1: play G2 G up",
            "0: follower R",  # claims RA RA AJ
            "1: play G2 G up",
            "0: play Y3 Y up",
            "1: play G2 G up",
            "0: play Y3 Y up",
            "1: play G3 G up",
            "0: play B1 B up",
            "1: follower B",
        ],
    )
    # 2 + 2 sheep + joker (sheep is the only species owned: assigned without a choice) = 5 -> 14
    assert points(s, 0, 2) == [("animals", 14)]
    assert s.scores[0] == 6 + 14
    assert s.animals[0] == [0, 5, 0, 0]


def test_misplaced_red_sheep_kept_with_5_sheep_and_misplaced_person():
    setup = ["RA"] * 5 + ["Y1"] * 5  # seat 0 claims 5 sheep in round 1: 14
    r2 = {0: ["RA", "Y3", "Y3", "G1", "G1", "G1"], 1: ["R1"] + ["B1"] * 5}
    s = scripted(2, setup, [(1, {0: FILL_Y, 1: BLUE}), (1, r2)])
    run(s, round1_follower_first("R"))
    assert points(s, 0, 1) == [("animals", 14)]
    run(
        s,
        [
            "0: play RA G down",  # red sheep face down in the green row
            "1: play R1 G down",  # red person face down in the green row
            "0: follower G",  # claims both misplaced cards
            "1: play B1 B up",
            "0: play Y3 Y up",
            "1: play B1 B up",
            "0: play Y3 Y up",
            "1: play B1 B up",
            "0: play G1 G up",
            "1: play B1 B up",
            "0: play G1 G up",
            "1: play B1 B up",
            "0: play G1 G up",
            "1: follower Y",
        ],
    )
    # Scoring seat 0: the misplaced person gives 10 at once; the sheep needs a decision.
    assert s.phase == "misplaced_card" and s.current_player == 0
    assert s.pending_card is not None and s.action_to_string(s.legal_actions()[0]) == "keep"
    before = s.clone()
    s.apply("keep")  # 5 + 1 sheep = 6 -> 16
    assert points(s, 0, 2) == [("misplaced", 10), ("animals", 16)]
    assert s.scores[0] == 14 + 10 + 16
    # The other choice: 10 points for the sheep, which leaves the game; no animal scoring.
    before.apply("ten")
    assert points(before, 0, 2) == [("misplaced", 10), ("misplaced", 10)]
    assert before.animals[0][1] == 5


def test_lone_animal_joker_scores_3_then_is_assigned():
    # The first card turned up is the animal joker: the dealer (seat 1) chooses its row.
    setup = ["AJ"] + ["Y1"] * 8 + ["Y2"]
    fill = ["Y2", "Y2", "Y2", "Y3", "Y3", "Y3"]
    r2 = {0: ["GA"] + ["R1"] * 5, 1: ["B1"] * 6}
    s = scripted(2, setup, [(1, {0: fill, 1: BLUE}), (1, r2)])
    assert s.phase == "setup_joker" and s.current_player == 1
    assert len(s.legal_actions()) == 4
    s.apply("setup R")
    assert s.rows[1] == [22]  # the joker (kind 22) alone in the red row
    script = round1_follower_first("R")
    script[2] = "0: play Y2 Y down"
    script[8], script[10], script[12] = "0: play Y3 Y up", "0: play Y3 Y up", "0: play Y3 Y up"
    run(s, script)
    assert points(s, 0, 1) == [("lone_animal_joker", 3)]  # owns no animals: 3 at once
    assert s.pending_jokers[0] == 1
    run(
        s,
        [
            "0: play GA G down",
            "1: play B1 B down",
            "0: follower G",  # claims the pig
            "1: play B1 B up",
            "0: play R1 R up",
            "1: play B1 B up",
            "0: play R1 R up",
            "1: play B1 B up",
            "0: play R1 R up",
            "1: play B1 B up",
            "0: play R1 R up",
            "1: play B1 B up",
            "0: play R1 R up",
            "1: follower B",
        ],
    )
    # The pending joker must now join the only species owned: pigs 1 + 1 = 2 -> 6.
    assert points(s, 0, 2) == [("animals", 6)]
    assert s.pending_jokers[0] == 0 and s.animals[0] == [0, 0, 2, 0]
    assert s.scores[0] == 3 + 6


def test_joker_assignment_is_a_decision_after_keep_or_ten():
    # Green row from setup: GA then AJ (the dealer puts the joker there).
    setup = ["GA", "AJ"] + ["Y1"] * 8
    r1 = {0: ["BA", "Y2", "Y2", "Y2", "Y2", "Y3"], 1: BLUE}
    s = scripted(2, setup, [(1, r1)])
    run(s, ["1: setup G"])
    run(
        s,
        [
            "0: play BA G down",  # blue horse misplaced in the green row
            "1: play B2 B down",
            "0: follower G",  # claims GA AJ BA
            "1: play B2 B up",
            "0: play Y2 Y up",
            "1: play B2 B up",
            "0: play Y2 Y up",
            "1: play B2 B up",
            "0: play Y2 Y up",
            "1: play B2 B up",
            "0: play Y2 Y up",
            "1: play B3 B up",
            "0: play Y3 Y up",
            "1: follower B",
        ],
    )
    assert s.phase == "misplaced_card"
    other = s.clone()
    s.apply("keep")  # now owns pigs and horses: the joker needs a choice
    assert s.phase == "assign_animal_joker" and s.current_player == 0
    assert [str(a) for a in s.legal_actions()] == ["assign pigs", "assign horses"]
    s.apply("assign pigs")  # pigs 1 + joker = 2 -> 6; horses 1 -> 3
    assert sorted(points(s, 0, 1)) == [("animals", 3), ("animals", 6)]
    # Taking 10 instead leaves pigs as the only species: the joker goes there by itself.
    other.apply("ten")
    assert other.phase == "turn"
    assert points(other, 0, 1) == [("misplaced", 10), ("animals", 6)]


def test_buildings_two_sets_of_4_one_of_2_one_single_give_65():
    # 4 yellow, 3 red, 2 green, 2 blue: sets YRGB, YRGB, YR, Y -> 30 + 30 + 5 + 0 = 65.
    assert building_points([4, 3, 2, 2], 0) == 65
    # A building joker counts as any colour: 4, 3, 2, 1 + joker (as blue) -> 65 too.
    assert building_points([4, 3, 2, 1], 1) == 65
    # Three different colours 15; a lone card 0; nothing 0.
    assert building_points([1, 1, 1, 0], 0) == 15
    assert building_points([0, 0, 1, 0], 0) == 0
    assert building_points([0, 0, 0, 0], 0) == 0
    # Jokers only: 4 jokers form one set of 4 different colours -> 30.
    assert building_points([0, 0, 0, 0], 4) == 30
