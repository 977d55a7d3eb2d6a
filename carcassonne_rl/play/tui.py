"""``carcassonne-rl play --tui``: play in a terminal against agents.

The seat's view is printed with the envs' text renders (the tile board; for Cardcassonne,
the seat's view only), the legal moves are listed in text notation; answer with a number or
a notation, ``help``, ``undo``, ``board`` or ``quit``. Undo follows the web page's rule
(:meth:`.session.PlaySession.undo`): it takes back the decision, and what the seat had not
seen is reshuffled.
"""

from __future__ import annotations

from collections.abc import Callable

from carcassonne_rl.envs.card_render import card_view_text
from carcassonne_rl.envs.tile_render import board_text

from .session import PlayError, PlaySession

HELP = """commands:
  <number>      play the move with that number in the list
  <notation>    play a move written in text notation (e.g. 'U 1,0 r1', 'none',
                'play R1 G down', 'follower B')
  board         show the table again
  undo          take back your last move (and the agents' answers), if allowed;
                what you had not seen then is reshuffled (tiles, cards, hands)
  help          this text
  quit          leave (the game is not saved unless it is over)"""


def view_text(session: PlaySession) -> str:
    """The human seat's view as text."""
    state = session.state
    if session.game == "carcassonne":
        text = board_text(state)
        left = sum(state.remaining_tiles().values())
        extra = f"tiles left in the pile: {left}"
        if "messages" in state.config.expansions:
            figs = "  ".join(f"P{p}: A {a} B {b}" for p, (a, b) in enumerate(state.figures))
            extra += f"\nfigures: {figs}   messages seen: {state.messages_seen}"
            if state.message_card:
                extra += f"\nmessage card now: {state.message_card}"
        return f"{text}\n{extra}"
    return card_view_text(state.view(session.seat))


def legal_texts(session: PlaySession) -> list[str]:
    state = session.state
    return [state.action_to_string(int(c)) for c in state.legal_action_codes()]


def run_tui(
    session: PlaySession,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> int:
    """Play ``session`` through ``read`` / ``write`` until the game ends or the player quits."""
    write(f"You are seat {session.seat} (P{session.seat}). Type 'help' for the commands.")
    for d in session.log:
        write(_decision_line(d.for_seat(session.game, session.seat)))
    show = True
    while not session.state.is_over:
        if show:
            write(view_text(session))
            moves = legal_texts(session)
            write(f"your move ({session.state.phase}):")
            write("  " + "   ".join(f"{i}: {m}" for i, m in enumerate(moves)))
        show = True
        try:
            line = read("> ").strip()
        except EOFError:
            write("bye")
            return 0
        if not line:
            show = False
            continue
        command = line.lower()
        if command in ("quit", "exit", "q"):
            write("bye")
            return 0
        if command in ("help", "?"):
            write(HELP)
            show = False
            continue
        if command == "board":
            continue
        try:
            if command == "undo":
                session.undo(session.seat)
                write("undone.")
                continue
            moves = legal_texts(session)
            action: str | int = line
            if line.isdigit():
                if int(line) >= len(moves):
                    raise PlayError(f"there is no move {line}: choose 0-{len(moves) - 1}")
                action = moves[int(line)]
            result = session.act(session.seat, action)
        except PlayError as err:
            write(f"! {err}")
            show = False
            continue
        write(_decision_line(result["decision"]))
        for frame in result["frames"]:
            write(_decision_line(frame["decision"]))
    write(view_text(session))
    scores = " / ".join(str(int(s)) for s in session.state.scores)
    winners = ", ".join(f"P{w}" for w in session.state.winners())
    write(f"game over: scores {scores}; winner {winners}")
    if session.saved_path:
        write(f"record saved to {session.saved_path}")
    return 0


def _decision_line(d: dict) -> str:
    events = "".join(f"  [P{e['player']} +{e['points']} {e['kind']}]" for e in d["events"])
    return f"  P{d['player']}: {d['text']}{events}"
