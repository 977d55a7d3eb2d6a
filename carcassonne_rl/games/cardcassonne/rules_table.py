"""The rules decisions of Cardcassonne in one table.

Everything the rulebooks (German and Dutch) leave open (see docs/rules/cardcassonne.md),
and every number the engine scores with, lives in :class:`RulesTable`.  The engine reads
the default :data:`RULES`; a game may carry another table through ``GameConfig.rules``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

# Colour / row order used everywhere: yellow (cloister), red (road), green (field), blue (city).
COLOURS: tuple[str, ...] = ("Y", "R", "G", "B")
COLOUR_NAMES: tuple[str, ...] = ("yellow", "red", "green", "blue")
ROW_NAMES: tuple[str, ...] = ("cloister", "road", "field", "city")


@dataclass(frozen=True)
class RulesTable:
    """Numbers and decisions of the rules (``DECISIONS`` explains each one)."""

    # (players, cards dealt per player per round, rounds); as both rulebooks.
    deal_table: tuple[tuple[int, int, int], ...] = ((2, 6, 10), (3, 5, 8), (4, 5, 6), (5, 4, 6))
    setup_cards: int = 10
    # Decision: the species is bound to the colour; index = colour (Y, R, G, B).
    species_by_colour: tuple[str, ...] = ("chickens", "sheep", "pigs", "horses")
    # Animal table for totals 1..8; Decision: a total above 8 scores like 8.
    animal_points: tuple[int, ...] = (3, 6, 9, 12, 14, 16, 18, 19)
    # Building set of 1, 2, 3, 4 different colours.
    building_set_points: tuple[int, ...] = (0, 5, 15, 30)
    dragon_points: int = 10
    fairy_points: int = 10
    misplaced_points: int = 10
    # An animal joker claimed by a player who owns no animals: points per joker (Decision:
    # per joker, so two such jokers score 3 + 3).
    lone_animal_joker_points: int = 3
    # Decision: seat that deals the first round; -1 = the last seat, so seat 0 plays first.
    first_dealer: int = -1
    # Decision: the tie-break counts building cards *and* building jokers under the chest.
    tie_break_counts_building_jokers: bool = True

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(row[0] for row in self.deal_table)

    def deal(self, players: int) -> tuple[int, int]:
        """(cards per player per round, rounds) for ``players``."""
        for n, per_round, rounds in self.deal_table:
            if n == players:
                return per_round, rounds
        raise ValueError(f"players must be one of {list(self.player_counts)}, got {players}")

    def animal_value(self, total: int) -> int:
        """Points for owning ``total`` animals of one species (0 for none)."""
        if total <= 0:
            return 0
        return self.animal_points[min(total, len(self.animal_points)) - 1]

    def to_dict(self) -> dict:
        return {k: list(map(list, v)) if k == "deal_table" else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, d: dict) -> RulesTable:
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown rules field(s): {sorted(unknown)}")
        kw = dict(d)
        if "deal_table" in kw:
            kw["deal_table"] = tuple(tuple(int(x) for x in row) for row in kw["deal_table"])
        for name in ("species_by_colour", "animal_points", "building_set_points"):
            if name in kw:
                kw[name] = tuple(kw[name])
        return cls(**kw)


RULES = RulesTable()

# Human-readable record of every decision taken where the rulebooks are silent or disagree.
DECISIONS: dict[str, str] = {
    "species_per_colour": "red = sheep, yellow = chickens, green = pigs, blue = horses.",
    "animal_table": "totals above 8 score 19 (the printed table stops at 8).",
    "first_dealer": "the last seat deals first, so seat 0 plays first (rulebook: youngest).",
    "tie_break": "more building cards, building jokers included; still tied: shared win.",
    "joker_species": "an animal joker goes to a species the player owns after this round's "
    "cards; with exactly one such species it is assigned automatically (no choice).",
    "lone_animal_joker": "3 points per animal joker claimed while owning no animals; it is "
    "assigned (and counts) in the first later round in which the player keeps animals.",
    "joker_counts_as_claimed": "an animal joker assigned this round makes its species score "
    "this round, like a card of that species claimed this round.",
    "jokers_never_misplaced": "jokers are colourless and never misplaced (the Dutch text lists "
    "animal/building jokers among misplaced cards, but a joker may lie in any row).",
    "misplaced_choice_per_card": "keep-or-10 is decided card by card, in row order.",
    "scoring_order": "end-of-round scoring runs seat 0, 1, ...; per player: misplaced persons "
    "and dragon/fairy (in claim order), persons, then keep-or-10 decisions, then animal "
    "jokers, then one animal score per species claimed this round.",
    "row_claim_order": "rows are resolved in the order yellow, red, green, blue; claimed cards "
    "keep their row order.",
    "dealing": "cards are dealt one at a time, starting with the player left of the dealer.",
    "unclaimed_face_down": "unclaimed face-down cards stay face down (known to their player).",
    "end_of_round_skip": "a player with no cards whose follower is placed is skipped.",
}
