"""Diagnostic: what a seat's face-down card says about its kind (2 players).

On recorded games (``record_selfplay.py``), at every face-down play: the class of the card
played (person 1-3, building ``H`` or animal ``A``, of the row's colour ``=`` or another
``x``; each joker) against the class the other seat's uniform prior expects there (its unseen cards,
the face-down card among them). Per class one JSON line: plays ``n``, the uniform
expectation ``expected`` and their ratio (the likelihood ratio a world would be weighted by).
Then one summary line: the information a face-down card gives about its class (nats, the
KL divergence of the observed classes from the expected ones) and, at the turn decisions,
how many face-down cards of the other seat from earlier rounds lie in the rows.

``python benchmarks/card_inference/face_down.py FOLDER``
"""

import json
import math
import sys
from collections import Counter
from pathlib import Path

from carcassonne_rl.games.cardcassonne import load_json, new_game, view
from carcassonne_rl.games.cardcassonne.actions import ACTIONS
from carcassonne_rl.games.cardcassonne.cards import IS_JOKER, KIND_COLOUR, KIND_NAMES, NUM_KINDS
from carcassonne_rl.games.cardcassonne.table import FACE_DOWN
from carcassonne_rl.games.cardcassonne.unseen import unseen_counts
from carcassonne_rl.games.cardcassonne.views import HIDDEN


def card_class(kind: int, row: int) -> str:
    """The class of ``kind`` face down in ``row``: a joker's name, else the type letter of its
    notation (``1 2 3 H A``) and ``=`` (the row's colour) or ``x`` (misplaced)."""
    if IS_JOKER[kind]:
        return KIND_NAMES[kind]
    return KIND_NAMES[kind][1] + ("=" if KIND_COLOUR[kind] == row else "x")


def main(folder: Path) -> None:
    seen: Counter[str] = Counter()
    expected: Counter[str] = Counter()
    old: list[int] = []
    files = sorted(folder.glob("*.json"))
    for f in files:
        game = load_json(f.read_text())
        s = new_game(game.config, game.card_order)
        for code in game.history:
            if s.phase == "turn":
                p = s.current_player
                other = 1 - p
                action = ACTIONS[code]
                if action.verb == "play" and action.face_down:
                    s.apply_code(code)
                    unseen = unseen_counts(view(s, other))
                    total = sum(unseen)
                    seen[card_class(action.card, action.row)] += 1
                    for k in range(NUM_KINDS):
                        expected[card_class(k, action.row)] += unseen[k] / total
                    continue
                v = view(s, p)
                mark = HIDDEN + FACE_DOWN * (other + 1)
                down = sum(e == mark for row in v.rows for e in row)
                old.append(down - (1 if v.played[other] else 0))
            s.apply_code(code)
    plays = sum(seen.values())
    for c in sorted(expected, key=lambda c: -seen[c]):
        print(json.dumps({"class": c, "n": seen[c], "expected": round(expected[c], 1),
                          "ratio": round(seen[c] / expected[c], 3)}))  # fmt: skip
    share = sum(x > 0 for x in old) / len(old)
    info = sum(n / plays * math.log(n / expected[c]) for c, n in seen.items() if n)
    print(json.dumps({"games": len(files), "face_down_plays": plays,
                      "nats_per_card": round(info, 4),
                      "earlier_cards_per_decision": round(sum(old) / len(old), 3),
                      "decisions_with_earlier_cards": round(share, 3)}))  # fmt: skip


if __name__ == "__main__":
    main(Path(sys.argv[1]))
