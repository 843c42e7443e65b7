"""One face-down dispatch followed from the player's choice in the UI to the end-of-game audit,
through typed objects only: the seat's ``SeatView``, the UI's ``AskHuman``/``HumanAnswer``,
the session's ``InputWanted`` event, the signed message every peer holds, the engine action
each peer applied, the ``AuditRecord`` and the ``GameOver`` event."""

from __future__ import annotations

import json
import random
from typing import Any

import trio

from engine import Action, Dispatch
from engine.actions import action_from_dict
from engine.canonical import canonical_json
from engine.view import view as board_of
from p2p.net.games import PeerOptions
from p2p.session.audit import AuditRecord, audit_game
from p2p.session.envelope import SignedMessage
from p2p.session.events import GameOver, InputWanted, LogLine, Peer, Seat
from p2p.session.loopback import LoopbackGame
from p2p.session.seatview import SeatView
from ui.app.messages import AskHuman, HumanAnswer
from ui.app.netgame import NetGame, NetSetup

UI_PEER = 0


class Player:
    """The UI's side of the bridge, played by a test: it answers every question, with a
    face-down dispatch the first time one is offered."""

    def __init__(self) -> None:
        self.asked: list[AskHuman] = []
        self.answers: list[HumanAnswer] = []
        self.given = 0  # answers handed to the game so far

    def post(self, item: Any) -> None:
        if not isinstance(item, AskHuman):
            return
        self.asked.append(item)
        face_down = [a for a in item.legal if isinstance(a, Dispatch) and a.claim != "up"]
        wanted = not any(isinstance(a.action, Dispatch) for a in self.answers)
        self.answers.append(HumanAnswer(item.serial, face_down[0] if face_down and wanted
                                        else item.legal[0]))

    async def receive(self) -> HumanAnswer:
        while self.given == len(self.answers):  # like a person: nothing until asked
            await trio.sleep(0.001)
        self.given += 1
        return self.answers[self.given - 1]


async def ask(ui: NetGame, view: SeatView) -> Action:
    """The UI's question and answer, with the task that routes the UI's answers running."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ui.read_ui)
        action = await ui.choose(view)
        nursery.cancel_scope.cancel()
    return action


def test_a_face_down_dispatch_is_followed_from_the_ui_choice_to_the_audit() -> None:
    for attempt in range(5):  # a random game may end before a face-down dispatch is offered
        game = LoopbackGame(3)
        player = Player()
        ui = NetGame(NetSetup("play", PeerOptions()), player)  # type: ignore[arg-type]
        ui._open(game.sessions[UI_PEER])
        views: list[SeatView] = []
        rng = random.Random(attempt)

        def choose(view: SeatView, ui: NetGame = ui, rng: random.Random = rng,
                   views: list[SeatView] = views) -> Action:
            if view.peer != UI_PEER:
                return view.legal[rng.randrange(len(view.legal))]
            views.append(view)
            return trio.run(ask, ui, view)

        game.play(choose)
        if any(isinstance(a.action, Dispatch) and a.action.claim != "up"
               for a in player.answers):
            break
    else:
        raise AssertionError("no face-down dispatch was offered in 5 games")

    # 1. The UI was asked with typed legal actions and answered with a typed Dispatch.
    index, answer = next((i, a) for i, a in enumerate(player.answers)
                         if isinstance(a.action, Dispatch) and a.action.claim != "up")
    choice = answer.action
    assert isinstance(choice, Dispatch) and choice in player.asked[index].legal
    # 2. ...from the seat's typed view: its seat, its stage, the same legal actions.
    view = views[index]
    assert isinstance(view, SeatView) and choice in view.legal
    assert view.peer == Peer(UI_PEER) and choice.seat == view.seat
    session = game.sessions[UI_PEER]
    assert session.peer_of_seat[Seat(view.seat)] == view.peer
    # 3. The session had announced the question as a typed event for that stage.
    (wanted,) = [e for e in session.events if isinstance(e, InputWanted)
                 and e.stage == view.stage]
    assert wanted.legal == view.legal
    # 4. The signed message every peer holds carries exactly that action for that stage.
    (signed,) = [m for m in session.msglog.messages if m.msg.seat == UI_PEER
                 and m.msg.type == "action" and m.msg.body.get("stage") == view.stage]
    assert isinstance(signed, SignedMessage)
    assert action_from_dict(signed.msg.body["action"]) == choice
    for other in game.sessions:
        assert other.msglog.get(UI_PEER, signed.msg.seq) == signed
        # 5. Every peer applied the same typed action, and logged it face down.
        assert choice in other.actions
        assert any(isinstance(e, LogLine) and "face down" in e.text for e in other.events)
    # 6. The audit re-checked it: the typed record it audits holds the action, and its
    # result is the one the typed GameOver event carries.
    record = session.audit_record()
    assert isinstance(record, AuditRecord) and choice in record.actions
    (over,) = [e for e in session.events if isinstance(e, GameOver)]
    assert over.result == session.result == audit_game(record)
    assert over.result["ok"]


def test_a_players_seat_view_is_its_own_copy_of_its_seats_view_and_plain_data() -> None:
    game = LoopbackGame(3)
    checked = [0]

    def choose(view: SeatView) -> Action:
        live = game.sessions[view.peer].engine
        assert live is not None
        board = board_of(live, view.seat)
        assert view.board() == board  # the engine's own seat view, at the moment asked
        data = json.loads(canonical_json(view.to_json()))
        assert data["seat"] == view.seat and data["peer"] == view.peer
        assert data["legal"] == [action.text() for action in view.legal]
        assert data["view"] == board
        # its own copy: a player that searches on it (mutates it) cannot touch the session
        view.state.hands[view.seat].clear()
        view.state.card_of[:] = [-1] * len(view.state.card_of)
        assert board_of(live, view.seat) == board
        checked[0] += 1
        return view.legal[0]

    for session in game.sessions:
        session.start()
    for _ in range(2000):  # bounded: a dozen decisions come within a few hundred steps
        moved = game.deliver()
        for session in game.sessions:
            seats = session.seat_view()
            if seats is not None and seats.legal:
                session.submit(choose(seats), seats.stage)
                moved = True
        if checked[0] >= 12 or not moved:
            break
    assert checked[0] >= 12
