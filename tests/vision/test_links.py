"""The links from the live table to a game: a local Session, and the dashboard's hub (the real ``web.hub``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask

from scorer.events import EventError, GameEvent, Source
from scorer.session import Session
from tests.vision.tabledriver import Driver, spades_trick_claimed
from vision.calibrate import Calibration
from vision.links import CameraEvents, HubLink, Logged, SessionLink, VisionEvent, card_names
from vision.live import LiveTable
from vision.tableconfig import ConfigError, default_config, load_config, save_config
from web.app import create_app, hub, store


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3"), "HEARTBEAT_S": 0.05})
    yield app
    store(app).close()


def flip(card: str, player: str = "Alex", wall_ms: int = 0) -> VisionEvent:
    return VisionEvent({"type": "flip", "player": player, "card": card}, wall_ms, 0, 7, f"{card} turned")


def test_hub_link_appends_camera_events_through_the_single_write_path(app: Flask) -> None:
    the_hub = hub(app)
    live = the_hub.create("snap", ["Alex", "Beth"], {})
    the_hub.append(live.record.id, {"type": "deal", "dealer": "Beth"}, author="host")
    link = HubLink(the_hub, live.record.id)
    assert link.game == "snap" and link.players == ("Alex", "Beth") and link.view()["phase"] == "play"
    subscriber, _ = the_hub.subscribe(live, None)
    now = live.record.epoch_ms + the_hub.game_time(live)
    seq, rulings = link.append(flip("5S", wall_ms=now - 150))
    stored = store(app).events(live.record.id)[-1]
    assert (seq, stored.type, stored.source, stored.data["card"]) == (2, "flip", Source.VISION, "5S")
    assert the_hub.game_time(live) - 2000 <= stored.ts <= the_hub.game_time(live)  # the frame's time, on the game clock
    assert store(app).authors(live.record.id)[2] == "camera" and rulings == []
    assert b'"source":"vision"' in subscriber.queue.get(timeout=1)
    assert link.view()["piles"][0]["top"] == "5S"
    assert link.undone([seq]) == set()
    the_hub.append(live.record.id, {"type": "undo", "target": seq}, author="Beth")  # rejected from a phone
    assert link.view()["piles"][0]["top"] is None
    assert link.undone([seq, 1]) == {seq}  # what the camera's observer is told (vision.links.CameraEvents)
    the_hub.append(live.record.id, {"type": "flip", "player": "Alex", "card": "5C"}, author="Alex")  # by hand
    again = HubLink(the_hub, live.record.id)  # the server restarted: what a new observer is told of the log
    assert again.logged() == [
        Logged(1, "deal", {"dealer": "Beth"}, camera=False),
        Logged(2, "flip", {"player": "Alex", "card": "5S"}, camera=True, rejected=True),
        Logged(3, "undo", {"target": 2}, camera=False),
        Logged(4, "flip", {"player": "Alex", "card": "5C"}, camera=False),
    ]


def test_hub_link_keeps_old_frame_times_within_what_the_hub_accepts(app: Flask) -> None:
    the_hub = hub(app)
    live = the_hub.create("snap", ["Alex", "Beth"], {})
    the_hub.append(live.record.id, {"type": "deal", "dealer": "Beth"}, author="host")
    link = HubLink(the_hub, live.record.id)
    link.append(flip("5S", wall_ms=live.record.epoch_ms - 60_000))  # a card held back for a minute
    assert store(app).events(live.record.id)[-1].ts >= the_hub.game_time(live) - HubLink.MAX_AGE_MS - 1000


def test_hub_link_refusals_raise_and_write_nothing(app: Flask) -> None:
    the_hub = hub(app)
    live = the_hub.create("snap", ["Alex", "Beth"], {})
    link = HubLink(the_hub, live.record.id)
    with pytest.raises(EventError):
        link.append(flip("ZZ"))
    assert store(app).events(live.record.id) == []
    with pytest.raises(KeyError, match="no game"):
        HubLink(the_hub, "nope")


def test_session_link_times_events_by_video_time() -> None:
    session = Session("snap", ["Alex", "Beth"])
    session.append(GameEvent(1, 0, Source.MANUAL, "deal", {"dealer": "Beth"}))
    link = SessionLink(session, offset_ms=500)
    seq, _ = link.append(VisionEvent({"type": "flip", "player": "Alex", "card": "5S"}, 99_999, 1200, 3, "5S"))
    assert seq == 2 and session.events[-1].ts == 1700 and session.events[-1].source is Source.VISION
    assert link.game == "snap" and link.players == ("Alex", "Beth")


def test_a_live_table_for_a_dashboard_game_end_to_end(app: Flask, tmp_path: Path) -> None:
    """A scripted Snap video referees a game of the real hub: calibrated, the flips stored as camera events and
    broadcast to a phone's stream with the match alert, and the calibration saved in the new table config."""
    from tests.vision.test_live import snap_script

    the_hub = hub(app)
    live = the_hub.create("snap", ["Alex", "Beth"], {})
    the_hub.append(live.record.id, {"type": "deal", "dealer": "Beth"}, author="host")
    subscriber, _ = the_hub.subscribe(live, None)
    script = snap_script()
    video = script.write(tmp_path / "table.mp4", 70)
    config = tmp_path / "table.toml"
    table = LiveTable.for_hub(the_hub, live.record.id, str(video), config, detector=script.oracle(), lossless=True)
    table.start()
    assert table.wait(60)
    stored = [e for e in store(app).events(live.record.id) if e.source is Source.VISION]
    assert [e.data["card"] for e in stored] == ["5S", "7D", "7H"]
    messages = []
    while not subscriber.queue.empty():
        messages.append(subscriber.queue.get_nowait())
    assert len(messages) == 3 and b'"code":"match"' in messages[-1]
    assert load_config(config).calibration is not None
    with pytest.raises(ConfigError, match="table for snap with 2 players; this game is spades"):
        other = the_hub.create("spades", ["A", "B", "C", "D"], {})
        LiveTable.for_hub(the_hub, other.record.id, str(video), config, detector=None)


def spades_bid_on_the_hub(app: Flask) -> tuple[Any, str, HubLink, int]:
    """A Spades game on the dashboard, dealt by David and bid 3 each (Alex to lead), the camera's HubLink on it, and
    the wall clock's ms now on the game's clock (a VisionEvent's time)."""
    the_hub = hub(app)
    live = the_hub.create("spades", ["Alex", "Beth", "Charlie", "David"], {})
    gid = live.record.id
    the_hub.append(gid, {"type": "deal", "dealer": "David"}, author="host")
    for name in ("Alex", "Beth", "Charlie", "David"):
        the_hub.append(gid, {"type": "bid", "player": name, "bid": 3}, author=name)
    return the_hub, gid, HubLink(the_hub, gid), live.record.epoch_ms + the_hub.game_time(live)


def test_hub_link_says_which_camera_plays_a_phones_undo_reruled_and_the_view_just_after_them(app: Flask) -> None:
    """What CameraEvents.follow asks of the dashboard's game (spadescam F2, session 49): Alex's QC and Beth's 4C from
    the camera; the QC undone on a phone leaves the 4C counting for nothing (out of turn), with the view after it
    Alex's turn and an empty trick; a play entered since does not change that view."""
    the_hub, gid, link, now = spades_bid_on_the_hub(app)
    qc, _ = link.append(VisionEvent({"type": "play", "player": "Alex", "card": "QC"}, now, 0, 1, "QC"))
    four, _ = link.append(VisionEvent({"type": "play", "player": "Beth", "card": "4C"}, now, 0, 2, "4C"))
    assert link.idle([qc, four]) == {} and link.view_after(four)["turn"] == "Charlie"  # type: ignore[index]
    the_hub.append(gid, {"type": "undo", "target": qc}, author="Beth")
    assert link.idle([qc, four]) == {four: frozenset({"play_out_of_turn"})}
    the_hub.append(gid, {"type": "play", "player": "Alex", "card": "7C"}, author="Alex")
    after = link.view_after(four)
    assert after is not None and after["turn"] == "Alex" and after["trick"] == []
    assert link.view()["turn"] == "Beth" and link.view_after(qc) is None  # (undone: it does not count)


def test_hub_link_says_which_camera_events_a_phone_corrected_and_as_what(app: Flask) -> None:
    """What CameraEvents.follow and start ask of the dashboard's game: the camera's "Beth 7S", out of turn, corrected
    on a phone to Beth's 7C, is told as it stands now (and in the log a restarted camera reads, beside the camera's
    own reading); a phone's own play is no camera event; the correction undone, nothing is corrected."""
    the_hub, gid, link, now = spades_bid_on_the_hub(app)
    seven, _ = link.append(VisionEvent({"type": "play", "player": "Beth", "card": "7S"}, now, 0, 1, "7S"))
    assert link.corrected([seven]) == {}
    told = {"type": "play", "player": "Beth", "card": "7C"}
    fix = the_hub.append(gid, {"type": "correct", "target": seven, "event": told}, author="Beth").event.seq
    the_hub.append(gid, {"type": "play", "player": "Alex", "card": "AC"}, author="Alex")
    assert link.corrected([seven, fix, fix + 1]) == {seven: told}
    (logged,) = [event for event in link.logged() if event.seq == seven]
    assert (logged.data["card"], logged.rejected, logged.now) == ("7S", True, told)
    assert logged.idle_codes == {"play_out_of_turn"}
    the_hub.append(gid, {"type": "undo", "target": fix}, author="Beth")
    assert link.corrected([seven]) == {} and [e.now for e in link.logged() if e.seq == seven] == [None]


def test_camera_events_tell_the_observer_of_each_reject_and_restore_once() -> None:
    session = Session("snap", ["Alex", "Beth"])
    link = SessionLink(session)
    link.append(VisionEvent({"type": "deal", "dealer": "Beth"}, 0, 0, 0, "test"))
    told: list[tuple[str, bool]] = []

    class Listener:
        def rejected(self, proposal: str, undone: bool) -> None:
            told.append((proposal, undone))

    mine = CameraEvents(keep=2)
    seq, _ = link.append(flip("5S"))
    mine.add(seq, "the 5S flip")
    mine.follow(link, Listener())
    assert told == []
    session.append(GameEvent(session.next_seq, 0, Source.MANUAL, "undo", {"target": seq}))
    mine.follow(link, Listener())
    mine.follow(link, Listener())
    assert told == [("the 5S flip", True)]
    session.append(GameEvent(session.next_seq, 0, Source.MANUAL, "undo", {"target": session.events[-1].seq}))
    mine.follow(link, Listener())
    assert told == [("the 5S flip", True), ("the 5S flip", False)]
    mine.add(98, "a"), mine.add(99, "b")  # only the latest `keep` are followed
    assert sorted(mine.proposals) == [98, 99]


def test_camera_events_forget_a_rejected_event_they_no_longer_follow() -> None:
    """Alex's 5S flip is rejected on a phone, then the camera sends more flips than it follows (``keep``): the old
    flip is forgotten with its Reject, and a later Reject is told as usual. Kept among the rejected ones, the old
    flip was looked up in the events followed on every frame (a KeyError), and the camera stopped turning the table
    into events for the rest of the evening (mutant L14, session 50)."""
    session = Session("snap", ["Alex", "Beth"])
    link = SessionLink(session)
    session.append(GameEvent(1, 0, Source.MANUAL, "deal", {"dealer": "Beth"}))
    told: list[tuple[str, bool]] = []

    class Listener:
        def rejected(self, proposal: str, undone: bool) -> None:
            told.append((proposal, undone))

    mine = CameraEvents(keep=2)
    for k, card in enumerate(["5S", "7D", "9H", "JC"]):
        seq, _ = link.append(flip(card, player=("Alex", "Beth")[k % 2]))
        mine.add(seq, f"the {card} flip")
        if card == "5S":
            session.append(GameEvent(session.next_seq, 0, Source.MANUAL, "undo", {"target": seq}))
        mine.follow(link, Listener())
    assert told == [("the 5S flip", True)] and sorted(mine.proposals) == [seq - 1, seq]
    session.append(GameEvent(session.next_seq, 0, Source.MANUAL, "undo", {"target": seq}))
    mine.follow(link, Listener())
    assert told == [("the 5S flip", True), ("the JC flip", True)]


def test_camera_events_forget_a_corrected_event_they_no_longer_follow() -> None:
    """Alex's 5S flip, read 5C, is corrected on a phone, then the camera sends more flips than it follows (``keep``):
    the old flip is forgotten with its correction, and a later correction is told as usual. Kept among the corrected
    ones (a hand mutant of CameraEvents.add, review3, session 50), the old flip was looked up in the events followed on
    every frame (a KeyError): the camera stopped turning the table into events for the rest of the evening."""
    session = Session("snap", ["Alex", "Beth"])
    link = SessionLink(session)
    session.append(GameEvent(1, 0, Source.MANUAL, "deal", {"dealer": "Beth"}))
    told: list[tuple[str, Any]] = []

    class Listener:
        def rejected(self, proposal: str, undone: bool) -> None:
            told.append((proposal, undone))

        def corrected(self, proposal: str, event: Any) -> None:
            told.append((proposal, event))

    mine = CameraEvents(keep=2)
    five = {"type": "flip", "player": "Alex", "card": "5S"}
    for k, card in enumerate(["5C", "7D", "9H", "JC"]):
        seq, _ = link.append(flip(card, player=("Alex", "Beth")[k % 2]))
        mine.add(seq, f"the {card} flip")
        if card == "5C":
            session.append(GameEvent(session.next_seq, 0, Source.MANUAL, "correct", {"target": seq, "event": five}))
        mine.follow(link, Listener())
    assert told == [("the 5C flip", five)] and sorted(mine.proposals) == [seq - 1, seq]
    jack = {"type": "flip", "player": "Beth", "card": "JD"}
    session.append(GameEvent(session.next_seq, 0, Source.MANUAL, "correct", {"target": seq, "event": jack}))
    mine.follow(link, Listener())
    assert told == [("the 5C flip", five), ("the JC flip", jack)]


def spades_old_trick() -> tuple[Driver, dict[str, list[str]]]:
    """Trick 1 (AC 7C 4C 2C) lies on the spots after Alex claimed the rest of the hand; the next deal is bid (Beth
    leads), then serve restarts: a new observer whose start (:meth:`CameraEvents.settle`) must know the old trick."""
    d, table = spades_trick_claimed()
    for name in ("Beth", "Charlie", "David", "Alex"):
        d.manual("bid", player=name, bid=3)
    return d, table


@pytest.mark.parametrize(
    ("step", "late"),
    [
        pytest.param(200, 4, id="5_fps_first_seen_in_the_fifth_picture"),
        pytest.param(66, 10, id="15_fps_first_seen_660_ms_after_the_first_picture"),
    ],
)
def test_the_start_after_dark_pictures_is_five_pictures_and_700_ms_from_the_first_that_is_not_blank(
    step: int, late: int
) -> None:
    """After two seconds of blank pictures a hand lifts off Beth's 7C of the old trick only in the start's last
    picture: START_FRAMES (5) non-blank pictures and START_MS (700 ms) from the first of them, whichever is later.
    At 5 fps, blank pictures counted (or 3 frames) ended the start after 600 ms; at 15 fps, START_MS counted from the
    first blank picture ended it after 5 pictures (264 ms): either way her old card went in as her lead of the new
    hand."""
    d, table = spades_old_trick()
    d.step = step
    d.restart()
    d.show({}, frames=2000 // step, moved=False, blank=True)
    first = d.ts  # the first picture that is not blank
    d.show({k: v for k, v in table.items() if k != "trick/1"}, frames=late, frozen=["trick/1"])
    assert d.show(table, frames=40) == [] and d.session.view()["trick"] == []
    assert d.mine.first == first and d.mine.cutoff == first + late * step and d.mine.over
    d.show({}, frames=10)  # gathered; the hand starts
    assert [(b["player"], b["card"]) for _, b, _ in d.show({"trick/1": ["9H"]})] == [("Beth", "9H")]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("[tracking]", "[trackng]"), "no setting or section 'trackng'"),
        (lambda t: t.replace("[calibration]", "[calibraton]"), "no setting or section 'calibraton'"),
        (lambda t: t.replace("error_mm =", "eror_mm ="), "[calibration] has no key 'eror_mm'"),
        (lambda t: t.replace("image_size = [1280, 720]", "image_size = [0, 0]"), "image_size must be a width"),
    ],
    ids=["tracking_misspelt", "calibration_misspelt", "calibration_key", "image_size_zero"],
)
def test_a_hand_edited_table_config_is_read_or_refused_not_half_read(
    tmp_path: Path, edit: Callable[[str], str], message: str
) -> None:
    """A misspelt section was dropped without a word (the settings, or the calibration, lost), and an image_size of
    [0, 0] broke the camera on every frame; a byte-order mark (Windows Notepad) was 'not valid TOML'."""
    config = default_config("snap", 2).with_calibration(Calibration(np.diag([0.5, 0.5, 1.0]), (1280, 720), "corners"))
    path = save_config(tmp_path / "table.toml", config)
    path.write_text("\ufeff" + path.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_config(path).to_toml() == config.to_toml()  # read through the mark
    path.write_text(edit(path.read_text(encoding="utf-8-sig")), encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(path)


def test_card_names_finds_the_cards_anywhere_in_a_payload() -> None:
    """What a camera starting on a game reads of its log (vision.links.CameraEvents.start)."""
    assert card_names({"player": "Alex", "card": "5S"}) == {"5S"}
    assert card_names({"hands": {"Beth": ["KS", "10H/2"], "David": []}, "out": "Alex"}) == {"KS", "10H"}
    assert card_names({"melds": [{"kind": "set", "cards": ["7S", "7H", "JK"]}]}) == {"7S", "7H", "JK"}
    assert card_names({"target": 3, "event": {"type": "play", "player": "AS", "card": "2C"}}) == {"2C"}
    assert card_names({"player": "KD", "bid": 3}) == set()  # a player called KD is not the K♦ (a session review)
    assert card_names({"cards": {"Alex": "3S", "Beth": "9D"}, "piles": {"Alex": 0, "Beth": 1}}) == {"3S", "9D"}
    assert card_names({"player": "Ann", "points": 3, "bid": 5, "nil": True}) == set()


@pytest.mark.parametrize("fail_once", [False, True], ids=["no_failure", "observe_fails_once_at_the_start"])
def test_an_observer_failing_at_the_start_does_not_send_the_old_trick_lying_there(fail_once: bool) -> None:
    """Trick 1 left lying after a claim, the next deal bid, a restart: the start's settling marks those cards as
    played. Undoing an observer's marks after it failed (so that a flip it had taken is news again) undid the
    settling's too, and the old trick went in as four plays of the new hand (a review, session 41)."""
    from collections import deque
    from types import SimpleNamespace

    d, table = spades_old_trick()
    d.restart()
    live = LiveTable.__new__(LiveTable)  # the parts of a live table that _observe uses, on the driver's link
    live.link, live._referee_waits, live._events, live.sent, live._alerts = d.link, {}, deque(maxlen=50), [], deque()
    live.on_event, live._trouble, live._logged_trouble = None, None, {}
    real = type(d.observer).observe
    failed: list[int] = []

    def observe(self, update, view):  # type: ignore[no-untyped-def]
        out = real(self, update, view)
        if fail_once and not failed and any(c.id in self.done for c in update.state.cards):
            failed.append(update.ts)
            raise KeyError("stand-in: one odd failure in the observer")
        return out

    type(d.observer).observe = observe  # type: ignore[method-assign]
    try:
        image = np.random.default_rng(0).integers(0, 255, (54, 96, 3), dtype=np.uint8)  # not a blank picture
        for k in range(40):
            update = d.tracker.update(d.sightings(table), set(), d.ts)
            live._observe(
                d.observer, d.mine, update, SimpleNamespace(index=k, wall_ms=d.ts, pos_ms=d.ts, image=image), None
            )  # type: ignore[arg-type]
            d.ts += 66
    finally:
        type(d.observer).observe = real  # type: ignore[method-assign]
    assert bool(failed) == fail_once
    assert [(e.body["player"], e.body["card"]) for e in live.sent] == []


@pytest.mark.parametrize("path", ["LiveTable", "Driver"])
def test_a_proposal_refused_after_another_of_its_frame_went_in_waits_for_news(path: str) -> None:
    """Alex plays his 3S on the 2C and his 4S on it at once: one frame sends the 3S's play, then the 4S's, and the
    referee refuses the 4S (injected, a stand-in for a misread it catches). It was held against the view from before
    the frame's first proposal, already out of date once the 3S went in, so it was tried again in the very next
    frame and refused again: one wasted referee call and a second "refused" line (review5 F5, session 51). Held
    against the view just before it, it waits for news."""
    from collections import deque
    from types import SimpleNamespace

    d = Driver("spit", ["Alex", "Beth"])
    alex, beth = ["3S", "4S", "5S", "6S", "7S"], ["10H", "JD", "AD", "5C", "6D"]
    d.manual("layout", player="Alex", counts=[1, 2, 3, 4, 5], tops=alex)
    d.manual("layout", player="Beth", counts=[1, 2, 3, 4, 5], tops=beth)
    table = {f"stock/{seat}/{k}": [c] for seat, cards in enumerate([alex, beth]) for k, c in enumerate(cards)}
    d.show(table | {"spit/0": ["2C"], "spit/1": ["9D"]})  # the opening Spit!
    real, frame, refusals = d.link.append, [0], []

    def append(event: VisionEvent) -> Any:
        if event.body.get("card") == "4S":
            refusals.append(frame[0])
            raise EventError("stand-in: the referee refuses the 4S")
        return real(event)

    d.link.append = append  # type: ignore[method-assign]
    table |= {"stock/0/0": [], "stock/0/1": [], "spit/0": ["2C", "3S", "4S"], "spit/1": ["9D"]}
    live = LiveTable.__new__(LiveTable)  # the parts of a live table that _observe uses, on the driver's link
    live.link, live._referee_waits, live._events, live.sent, live._alerts = d.link, {}, deque(maxlen=50), [], deque()
    live.on_event, live._trouble, live._logged_trouble = None, None, {}
    image = np.random.default_rng(0).integers(0, 255, (54, 96, 3), dtype=np.uint8)  # not a blank picture
    for k in range(20):
        frame[0] = k
        if path == "Driver":
            d.show(table, frames=1, moved=k == 0)
            continue
        update = d.tracker.update(d.sightings(table), {"stock/0/0", "stock/0/1", "spit/0"} if k == 0 else set(), d.ts)
        live._observe(
            d.observer, d.mine, update, SimpleNamespace(index=k, wall_ms=d.ts, pos_ms=d.ts, image=image), None
        )  # type: ignore[arg-type]
        d.ts += 10
    plays = [e.data["card"] for e in d.session.events if e.type == "play"]
    assert plays == ["3S"] and len(refusals) == 1, (plays, refusals)


def test_the_camera_s_view_of_the_game_is_never_one_an_entry_was_rewound_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The camera read the referee's view while a phone's entry was taken and then refused (a bug drawing the new
    state): it cached the rewound view under the longer log's length, and when the next event made that length again
    it kept the old view (turn, pile tops) until another came (a review, session 41)."""
    import threading
    import time

    from web.hub import Hub, RefereeFault
    from web.store import Store

    the_hub = Hub(Store(tmp_path / "x.sqlite3"))
    live = the_hub.create("snap", ["Alex", "Beth"], {})
    game_id = live.record.id
    the_hub.append(game_id, {"type": "deal", "dealer": "Beth"}, "host")
    link = HubLink(the_hub, game_id)
    real = Hub.snapshot
    entered, go = threading.Event(), threading.Event()

    def snapshot(self: Hub, game: Any) -> Any:
        if len(game.session.events) == 2 and not go.is_set():
            entered.set()
            go.wait(5)
            raise KeyError("stand-in: a referee bug in view()")
        return real(self, game)

    monkeypatch.setattr(Hub, "snapshot", snapshot)
    refused: list[str] = []

    def phone() -> None:
        with pytest.raises(RefereeFault):
            the_hub.append(game_id, {"type": "flip", "player": "Alex", "card": "9H"}, "player", seen=1)
        refused.append("9H")

    entry = threading.Thread(target=phone)
    entry.start()
    assert entered.wait(5)
    camera = threading.Thread(target=link.view)
    camera.start()
    time.sleep(0.3)  # the camera waits for the game's lock
    go.set()
    entry.join()
    camera.join()
    monkeypatch.undo()
    assert refused == ["9H"]
    the_hub.append(game_id, {"type": "flip", "player": "Alex", "card": "5S"}, "player", seen=1)
    assert link.view() == live.session.view()
    assert [p["top"] for p in link.view()["piles"]] == ["5S", None]
    the_hub.store.close()


def test_hub_link_times_a_frame_on_the_game_s_clock_after_a_start_on_a_clock_set_back(tmp_path: Path) -> None:
    """Started again on a clock set back (NTP after a sleep), a game's clock goes on from its latest event
    (web.hub.Hub._resume): the camera's frame times go by it too, not 20 s back (the clock audit, session 43)."""
    db = str(tmp_path / "t.sqlite3")
    app = create_app({"TESTING": True, "DATABASE": db})
    hub(app).clock = lambda: 1_765_000_600_000
    live = hub(app).create("snap", ["Alex", "Beth"], {})
    hub(app).clock = lambda: 1_765_000_600_000 + 600_000
    hub(app).append(live.record.id, {"type": "deal", "dealer": "Beth"}, author="host")
    store(app).close()
    app = create_app({"TESTING": True, "DATABASE": db})
    now = 1_765_000_600_000 + 600_000 - 60_000  # a minute set back
    hub(app).clock = lambda: now
    link = HubLink(hub(app), live.record.id)
    link.append(flip("5S", wall_ms=now - 150))
    [deal, seen] = store(app).events(live.record.id)
    resumed = hub(app).live(live.record.id)
    assert resumed is not None and seen.ts == hub(app).game_time(resumed) - 150 > deal.ts
    store(app).close()
