"""Diagnostic: a hand-prediction network trained from a seat's view, against the inference's.

On recorded ``card-search-v1`` self-play games (2 players, ``record_selfplay.py``), at every
turn decision of either seat while the other holds cards: inputs from what the seat may see
(the unseen cards per kind, hand sizes, the round, the rows' face-up cards per kind, the
followers, scores and animals, and the other seat's moves this round: the kinds it played face
up, rows of its face-down card and follower), the target the other seat's hand (cards per
kind). A network (2 layers of 128) learns a distribution ``q`` over kinds by the multinomial
cross-entropy on the games of TRAIN; on the held-out games of TEST it reports, per hidden hand
card, the mean log-probability of its true kind under ``q`` and under the prior (the unseen
cards' shares), and the share of the hand that ``M`` worlds drawn uniformly get right,
uniform and weighted by ``prod q_k / prior_k`` over their hand (the measure of
``hand_overlap.py``, whose heuristic likelihood gets 0.770 -> 0.821 of 3.0 cards).

``python benchmarks/card_inference/hand_model.py TRAIN-FOLDER TEST-FOLDER TEST-GAMES M [OUT]``
(``OUT``: the network's weights saved as ``.npz``, ``w0 b0 w1 b1 w2 b2``, ``x @ w + b`` with
ReLU between); one JSON line per measure.
"""

import json
import random
import sys
from pathlib import Path

import numpy as np
import torch

from carcassonne_rl.agents.card.inference import (
    TEMPERATURE,
    RoundLog,
    heuristic_values,
    log_likelihood,
)
from carcassonne_rl.games.cardcassonne import NUM_KINDS, determinize, load_json, new_game, view
from carcassonne_rl.games.cardcassonne.actions import ACTIONS
from carcassonne_rl.games.cardcassonne.table import FACE_DOWN
from carcassonne_rl.games.cardcassonne.unseen import unseen_counts

K = NUM_KINDS


def features(v, moves: list[tuple[int, int, int]], unseen: np.ndarray) -> np.ndarray:
    """The seat's inputs: ``moves`` the other seat's this round as (kind or -1 face down,
    row, follower 0/1), ``unseen`` the view's unseen cards per kind."""
    me, opp = v.player, 1 - v.player
    x = [unseen / max(unseen.sum(), 1.0), unseen / 10.0]
    x.append(np.array(v.hand, np.float32) / 3.0)
    rows = np.zeros((4, K + 3), np.float32)
    for r, row in enumerate(v.rows):
        for e in row:
            if e < 0:
                rows[r, K + (0 if -e - 1 == me else 1)] += 1
            elif e >= FACE_DOWN:
                rows[r, K + 2] += 1
            else:
                rows[r, e & 31] += 1
    x.append(rows.ravel() / 3.0)
    played = np.zeros(K + 9, np.float32)
    for k, r, f in moves:
        if f:
            played[K + r] = 1
        elif k < 0:
            played[K + 4 + r] = 1
        else:
            played[k] += 1
    played[K + 8] = len(moves) / 7.0
    x.append(played)
    x.append(np.array([v.hand_sizes[opp] / 6, v.hand_sizes[me] / 6, v.round / 10,
                       (v.scores[me] - v.scores[opp]) / 50, v.follower_row[opp] >= 0,
                       v.follower_row[me] >= 0], np.float32))  # fmt: skip
    x.append(np.array(v.animals[me], np.float32).ravel()[:4] / 5)
    x.append(np.array(v.animals[opp], np.float32).ravel()[:4] / 5)
    return np.concatenate(x).astype(np.float32)


HEURISTIC = heuristic_values()


def decisions(record: str, m: int = 0, rng: random.Random | None = None):
    """``(x, hand, unseen, world_hands, heuristic_log_w)`` at each turn decision of the game
    (with ``m``: ``m`` uniform worlds' other hands and the heuristic likelihood's log-weights
    of the worlds, ``hand_overlap.py``'s, None without the other seat's moves to read)."""
    g = load_json(record)
    s = new_game(g.config, g.card_order)
    moves: dict[int, list] = {0: [], 1: []}
    logs = {0: RoundLog(), 1: RoundLog()}
    cur_round = -1
    for code in g.history:
        if s.round != cur_round:
            cur_round, moves = s.round, {0: [], 1: []}
        p = s.current_player
        if s.phase == "turn" and s.hand_size[1 - p] > 0:
            v = view(s, p)
            logs[p].observe(v)
            worlds = [determinize(v, p, rng) for _ in range(m)]
            read = logs[p].moves if any(mv.seat != p for mv in logs[p].moves) else None
            lw = None
            if m and read:
                lw = np.array([log_likelihood(w, read, p, HEURISTIC, TEMPERATURE["heuristic"])
                               for w in worlds])  # fmt: skip
            unseen = np.array(unseen_counts(v), np.float32)
            yield (features(v, moves[1 - p], unseen), np.array(s.hands[1 - p], np.float32),
                   unseen, [w.hands[1 - p] for w in worlds], lw)  # fmt: skip
        if s.phase == "turn":
            a = ACTIONS[code]  # a card played (its kind face up, -1 face down) or the follower
            follower = a.verb == "follower"
            kind = -1 if follower or a.face_down else a.card
            moves[p].append((kind, a.row, int(follower)))
        s.apply_code(code)


def load(folder: Path, games: int | None = None, m: int = 0):
    rng = random.Random(0)
    rows = []
    for p in sorted(folder.glob("*.json"))[:games]:
        rows.extend(decisions(p.read_text(), m, rng))
    return rows


def main() -> None:
    train_dir, test_dir = Path(sys.argv[1]), Path(sys.argv[2])
    test_games, m = int(sys.argv[3]), int(sys.argv[4])
    train = load(train_dir)
    test = load(test_dir, test_games, m)
    cut = len(train) * 9 // 10  # the last tenth of the train games picks the epoch

    def tensors(rows):
        x, y, u = (np.stack([r[i] for r in rows]) for i in range(3))
        return torch.tensor(x), torch.tensor(y), torch.tensor(np.log(np.maximum(u, 1e-9)))

    (x, y, lu), (xv, yv, luv), (xt, yt, lut) = map(tensors, (train[:cut], train[cut:], test))
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], 128), torch.nn.ReLU(),
                              torch.nn.Linear(128, 128), torch.nn.ReLU(),
                              torch.nn.Linear(128, K))  # fmt: skip
    torch.nn.init.zeros_(net[-1].weight)
    torch.nn.init.zeros_(net[-1].bias)
    opt = torch.optim.Adam(net.parameters(), 3e-4, weight_decay=1e-4)

    def log_q(xx, lp):  # the unseen cards' shares, corrected by the network
        return torch.log_softmax(lp + net(xx), 1)

    def loss_of(xx, yy, lp):
        return -(yy * log_q(xx, lp)).sum() / yy.sum()

    best, state = float("inf"), None
    for epoch in range(60):
        perm = torch.randperm(len(x))
        for i in range(0, len(x), 256):
            b = perm[i : i + 256]
            opt.zero_grad()
            loss_of(x[b], y[b], lu[b]).backward()
            opt.step()
        with torch.no_grad():
            val = float(loss_of(xv, yv, luv))
        if val < best:
            best, state = val, {k: t.clone() for k, t in net.state_dict().items()}
        if epoch % 10 == 9:
            print(json.dumps({"epoch": epoch + 1, "train": round(float(loss_of(x, y, lu)), 4),
                              "validation": round(val, 4)}))  # fmt: skip
    net.load_state_dict(state)
    if len(sys.argv) > 5:  # the network's weights
        layers = [net[0], net[2], net[4]]
        np.savez(sys.argv[5], **{f"{n}{i}": getattr(layer, a).detach().numpy().T if n == "w"
                                 else getattr(layer, a).detach().numpy()
                                 for i, layer in enumerate(layers)
                                 for n, a in (("w", "weight"), ("b", "bias"))})  # fmt: skip
    with torch.no_grad():
        logq = log_q(xt, lut).numpy()
    prior = torch.log_softmax(lut, 1).numpy()
    yn = yt.numpy()
    ll_net = float((yn * logq).sum() / yn.sum())
    ll_prior = float((yn * prior).sum() / yn.sum())
    uni, wt, ev_uni, ev_net, ev_heu, ev_both = [], [], [], [], [], []

    def weighted(lw, ov):
        w = np.exp(lw - lw.max())
        return float(w @ ov / w.sum())

    for i, r in enumerate(test):
        hands = np.array(r[3], np.float64)
        ov = np.minimum(hands, yn[i]).sum(1)
        lw = hands @ (logq[i] - prior[i])
        uni.append(ov.mean())
        wt.append(weighted(lw, ov))
        if r[4] is not None and np.isfinite(r[4]).any():
            ev_uni.append(ov.mean())
            ev_net.append(wt[-1])
            ev_heu.append(weighted(r[4], ov))
            ev_both.append(weighted(r[4] + lw, ov))
    d = np.array(wt) - np.array(uni)
    ev = {
        k: np.array(a)
        for k, a in (("uniform", ev_uni), ("net", ev_net), ("heuristic", ev_heu), ("both", ev_both))
    }

    def ci(a, b):
        d = ev[a] - ev[b]
        return [round(float(d.mean()), 3), round(float(1.96 * d.std(ddof=1) / np.sqrt(len(d))), 3)]

    print(json.dumps({"with_evidence": len(ev_uni),
                      **{f"overlap_{k}": round(float(a.mean()), 3) for k, a in ev.items()},
                      "net_minus_uniform_ci95": ci("net", "uniform"),
                      "heuristic_minus_uniform_ci95": ci("heuristic", "uniform"),
                      "both_minus_heuristic_ci95": ci("both", "heuristic")}))  # fmt: skip
    print(json.dumps({"train_decisions": len(train), "test_decisions": len(test),
                      "hand": round(float(yn.sum(1).mean()), 2),
                      "log_prob_per_card_prior": round(ll_prior, 4),
                      "log_prob_per_card_net": round(ll_net, 4),
                      "overlap_uniform": round(float(np.mean(uni)), 3),
                      "overlap_weighted": round(float(np.mean(wt)), 3),
                      "gain_ci95": round(float(1.96 * d.std(ddof=1) / np.sqrt(len(d))), 3),
                      "M": m}))  # fmt: skip


if __name__ == "__main__":
    main()
