"""The card inference's temperatures: fitted by maximum likelihood on recorded games
(``python -m carcassonne_rl.agents.card.inference_fit FOLDER``; the research note has the
fit)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from carcassonne_rl.agents.card.inference import (
    Values,
    heuristic_values,
    log_choice,
    policy_values,
)
from carcassonne_rl.agents.card.search import CardSearchAgent
from carcassonne_rl.games.cardcassonne import view
from carcassonne_rl.games.cardcassonne.views import PlayerView


def decisions_of(record: str) -> list[tuple[PlayerView, list[int], int]]:
    """Every turn decision with two or more options of a recorded game: (the seat's view,
    the legal codes, the code played)."""
    from carcassonne_rl.games.cardcassonne import load_json, new_game

    game = load_json(record)
    s = new_game(game.config, game.card_order)
    out = []
    for code in game.history:
        if s.phase == "turn":
            legal = s.legal_codes()
            if len(legal) > 1:
                out.append((view(s, s.current_player), legal, code))
        s.apply_code(code)
    return out


def fit_temperature(records: Sequence[str], values: Values, low: float = 0.05,
                    high: float = 200.0, top: int = 0, eps: float = 0.0
                    ) -> tuple[float, float, int]:  # fmt: skip
    """``(T, mean log-likelihood, decisions)``: the temperature maximising the likelihood of
    the recorded games' turn decisions under ``softmax(values / T)`` (golden-section search
    over ``log T`` in [``low``, ``high``]; ``top``, ``eps``: as ``inference.log_choice``
    takes them)."""
    data = []
    for record in records:
        for v, legal, code in decisions_of(record):
            data.append((values(v, legal), legal.index(code)))

    def mean_ll(log_t: float) -> float:
        t = math.exp(log_t)
        return sum(log_choice(x, i, t, top, eps) for x, i in data) / len(data)

    a, b = math.log(low), math.log(high)
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = mean_ll(c), mean_ll(d)
    for _ in range(40):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = mean_ll(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = mean_ll(d)
    t = math.exp((a + b) / 2)
    return t, mean_ll(math.log(t)), len(data)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m carcassonne_rl.agents.card.inference_fit FOLDER``: fit each model's
    temperature on the game records (``*.json``) in FOLDER (``--top K --eps E``: the choice
    among the model's ``K`` best, ``inference.log_choice``); one JSON line per model."""
    import argparse
    import json

    from carcassonne_rl.agents.pretrained import make_card_search

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--top", type=int, default=0)
    parser.add_argument("--eps", type=float, default=0.0)
    args = parser.parse_args(argv)
    paths = sorted(args.folder.glob("*.json"))
    if not paths:
        raise SystemExit(f"no game records (*.json) in {args.folder}")
    records = [p.read_text() for p in paths]
    from carcassonne_rl.games.cardcassonne import load_json
    from carcassonne_rl.games.errors import SavedGameError

    for path, record in zip(paths, records, strict=True):
        try:
            load_json(record)
        except (SavedGameError, ValueError) as err:
            raise SystemExit(f"{path}: not a card game record ({err}); FOLDER holds only "
                             "the game records to fit on") from None  # fmt: skip
    search = make_card_search(["search"], 0)
    assert isinstance(search, CardSearchAgent)
    for model, values in (("policy", policy_values(search.base)),
                          ("heuristic", heuristic_values())):  # fmt: skip
        t, ll, n = fit_temperature(records, values, top=args.top, eps=args.eps)
        print(json.dumps({"model": model, "top": args.top, "eps": args.eps,
                          "temperature": round(t, 3), "mean_log_lik": round(ll, 4),
                          "decisions": n, "games": len(records)}))  # fmt: skip


if __name__ == "__main__":
    main()


__all__ = ["decisions_of", "fit_temperature", "main"]
