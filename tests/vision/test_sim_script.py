"""The simulator's script: demo logs, what lies where after each event, the timeline and its timing rules."""

from __future__ import annotations

import contextlib
import itertools
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.events import EventError, GameEvent, GameLog, LogHeader, Source, format_log, parse_log
from scorer.session import Session, replay
from vision.sim import DEMOS, SimError, Timing, demo_log
from vision.sim.script import _Builder, build
from vision.sim.tables import Item
from vision.sim.timeline import HandPath, Timeline
from vision.track import SPREAD_KINDS
from vision.zones import default_layout


def _log(name: str) -> GameLog:
    return parse_log(demo_log(name).read_text(encoding="utf-8"))


def _timeline(log: GameLog, seed: int = 0) -> Timeline:
    return build(log, default_layout(log.header.game, len(log.header.players)), seed)


# -- the demo logs ---------------------------------------------------------------------------------------
DEMO_RULINGS = {
    "snap": {"match", "snap_won", "false_call", "snap_pot_formed", "snap_pot_won"},
    "spit": {"round_ready", "round_over", "round_result"},
    "spades": {"must_follow_suit", "hand_scored"},
    "push": {"went_out", "deal_scored"},
}


@pytest.mark.parametrize("name", DEMOS)
def test_demo_logs_replay_through_the_referee(name: str) -> None:
    log = _log(name)
    session = replay(log)
    codes = {r.code for r in session.rulings}
    assert DEMO_RULINGS[name] <= codes, f"{name} demo lacks {DEMO_RULINGS[name] - codes}"
    assert parse_log(format_log(log)).events == log.events


def test_spit_demo_has_an_illegal_play_taken_back() -> None:
    log = _log("spit")
    illegal = next(e for e in log.events if e.type == "play" and _rulings_of(log, e.seq) & {"illegal_play"})
    undo = next(e for e in log.events if e.type == "undo")
    assert undo.data["target"] == illegal.seq


def _rulings_of(log: GameLog, seq: int) -> set[str]:
    session = Session(log.header.game, log.header.players, log.header.options)
    for event in log.events:
        rulings = session.append(event)
        if event.seq == seq:
            return {r.code for r in rulings}
    return set()


def test_spades_demo_is_a_whole_hand() -> None:
    summary = replay(_log("spades")).summary()
    assert len(summary["history"]) == 1 and sum(summary["history"][0]["tricks"].values()) == 13


# -- card events: every card a log puts face up on the table gets a landing in the timeline ----------------
REFUSED = {"invalid_meld", "requirement_not_met", "before_requirement", "invalid_layoff"}


def card_events(log: GameLog) -> list[tuple[int, str | None, str]]:
    """(seq, card, zone) for each card an event puts face up, read from the events (not from the simulator);
    the referee is asked only whether a Spit round has one pile and whether a Push meld was refused."""
    players = list(log.header.players)
    session = Session(log.header.game, players, log.header.options)
    out: list[tuple[int, str | None, str]] = []
    meld_owner: dict[int, int] = {}
    for e in log.events:
        single = log.header.game == "spit" and session.view()["single_pile"]
        refused = {r.code for r in session.append(e)} & REFUSED
        d, seat = e.data, players.index(e.data["player"]) if "player" in e.data else None
        game = log.header.game
        if game == "snap" and e.type == "flip":
            out.append((e.seq, d["card"], f"face_up/{seat}"))
        elif game == "spades" and e.type == "play":
            out.append((e.seq, d["card"], f"trick/{seat}"))
        elif game == "spit" and e.type == "layout":
            out += [(e.seq, top, f"stock/{seat}/{k}") for k, top in enumerate(d.get("tops", [])) if top]
        elif game == "spit" and e.type == "reveal":
            out.append((e.seq, d["card"], f"stock/{seat}/{d['stock']}"))
        elif game == "spit" and e.type == "play":
            out.append((e.seq, d["card"], f"spit/{d['pile']}"))
        elif game == "spit" and e.type == "move":
            out.append((e.seq, d.get("card"), f"stock/{seat}/{d['to']}"))
        elif game == "spit" and e.type == "spit":
            piles = d.get("piles", {})
            own = {name: 0 if single else players.index(name) for name in d["cards"]}
            out += [(e.seq, card, f"spit/{piles.get(name, own[name])}") for name, card in d["cards"].items()]
        elif game == "push" and e.type == "deal":
            meld_owner.clear()
            out.append((e.seq, d["upcard"], "discard"))
        elif game == "push" and e.type in ("discard", "upcard"):
            out.append((e.seq, d["card"], "discard"))
        elif game == "push" and e.type == "meld" and not refused:
            for meld in d["melds"]:
                meld_owner[len(meld_owner) + 1] = seat
                out += [(e.seq, card, f"melds/{seat}") for card in meld["cards"]]
        elif game == "push" and e.type == "layoff" and not refused:
            out += [(e.seq, card, f"melds/{meld_owner[d['meld']]}") for card in d["cards"]]
    return out


@pytest.mark.parametrize("name", DEMOS)
def test_every_card_put_down_is_expected_in_its_zone_within_the_video(name: str) -> None:
    log = _log(name)
    timeline = _timeline(log)
    landed = {(x.seq, x.card, x.zone): x.landed for x in timeline.expects}
    for seq, card, zone in card_events(log):
        matches = [t for (s, c, z), t in landed.items() if s == seq and z == zone and (card is None or c == card)]
        assert matches, f"event {seq}: {card} never lands in {zone}"
        assert 0 < min(matches) < timeline.duration
    times = [e["t_ms"] for e in timeline.events]
    assert times == sorted(times) and len(times) == len(log.events)


@pytest.mark.parametrize("name", DEMOS)
def test_each_timed_card_lands_face_up_in_its_zone_at_its_time_and_is_the_card_drawn(name: str) -> None:
    """An expected card's ``landed`` is when a move of its own card ends, face up, in its zone (the ground truth's
    ``landed_ms``: docs/simulator.md), and the card drawn there is the card the ground truth names."""
    _check_expects(_timeline(_log(name)))


def _check_expects(timeline: Timeline) -> None:
    """Each expected card is the card drawn, lands face up in its zone when a move of it ends, and was not lying face up
    in that zone already (docs/simulator.md: a card moved is timed when it ends up in a *new* zone)."""
    for x in timeline.expects:
        track = timeline.tracks[x.obj]
        assert track.card == x.card, f"event {x.seq}: the truth names {x.card}, the video shows {track.card}"
        k = next((i for i, s in enumerate(track.segments) if s.end == x.landed), None)
        assert k is not None, f"event {x.seq}: {x.card} stops moving at none of its moves' ends"
        seg = track.segments[k]
        assert seg.place is not None and seg.place[0] == x.zone and seg.dst.up, (x, seg)
        before = track.segments[k - 1] if k else None
        assert not (before and before.place and before.place[0] == x.zone and before.dst.up), f"{x}: it lay there"


@pytest.mark.parametrize(
    "path",
    [*(demo_log(name) for name in DEMOS), Path(__file__).parents[2] / "tests/golden/spit/blocked_round.jsonl"],
    ids=[*DEMOS, "spit_one_pile"],
)
def test_a_card_put_down_lies_half_a_second_uncovered_before_anything_lands_on_it_or_takes_it(path: Path) -> None:
    """docs/simulator.md: a card that lands lies uncovered for at least half a second before anything covers it (the
    hand that put it down first goes back); also when both players' Spit! cards go onto one pile (blocked_round.jsonl,
    event 7). Cards of a meld row lie side by side, so they are left out."""
    timeline = _timeline(parse_log(path.read_text(encoding="utf-8")))
    for x in timeline.expects:
        if timeline.layout.zone(x.zone).kind in SPREAD_KINDS:
            continue
        segments = timeline.tracks[x.obj].segments
        k = next(i for i, s in enumerate(segments) if s.end == x.landed)
        here = segments[k]
        covers = [
            s.end
            for t in timeline.tracks
            if t.obj != x.obj
            for s in t.segments
            if s.place == here.place and s.end >= x.landed and s.z > here.z
        ]
        covers += [segments[k + 1].start] if k + 1 < len(segments) else []
        assert min(covers, default=math.inf) - x.landed >= Timing().reach + 500, (path.name, x)


def test_a_long_pause_in_the_log_is_shortened_to_two_and_a_half_seconds() -> None:
    """docs/simulator.md: pauses longer than 2.5 s are shortened (a log with a minute's pause is no minute of an
    empty table in the video)."""
    header = LogHeader("snap", ("Ann", "Ben"), {})
    flips = [("deal", 0, {"dealer": "Ben"}), ("flip", 1000, {"player": "Ann", "card": "7H"})]
    flips += [("flip", 61_000, {"player": "Ben", "card": "2C"})]
    log = GameLog(header, tuple(GameEvent(n, ts, Source.VISION, t, d) for n, (t, ts, d) in enumerate(flips, 1)))
    times = [e["t_ms"] for e in _timeline(log).events]
    assert times[2] - times[1] == 2500, times


def test_cards_a_hand_puts_down_one_by_one_land_one_after_another() -> None:
    """A Spit layout: the hand puts its 15 cards down one after another (``Timing.stagger`` apart), not all at once."""
    timeline = _timeline(_log("spit"))
    firsts = sorted(t.segments[0].end for t in timeline.tracks if t.segments[0].place[0].startswith("stock/0/"))
    lands = firsts[:15]  # the first layout: 1 + 2 + 3 + 4 + 5 cards
    assert all(b - a >= Timing().stagger for a, b in itertools.pairwise(lands)), lands


def test_an_event_is_not_timed_before_the_one_before_it_starts() -> None:
    """Six Snap flips 20 ms apart in the log: each hand does one thing at a time, so the fourth flip (the first
    player's second) waits; the flips after it are timed from then on, never before the previous flip's hand sets off
    (docs/simulator.md: an event's ``t_ms`` is when it happens, its first action starting then or later)."""
    players = ("Ann", "Ben", "Cy")
    events = [GameEvent(1, 0, Source.VISION, "deal", {"dealer": "Cy"})]
    for k, card in enumerate(["2H", "3C", "4S", "5H", "6C", "7S"]):
        events.append(GameEvent(k + 2, 1000 + 20 * k, Source.VISION, "flip", {"player": players[k % 3], "card": card}))
    timeline = _timeline(GameLog(LogHeader("snap", players, {}), tuple(events)))
    sets_off = [track.segments[0].start - Timing().reach for track in timeline.tracks]  # one card per flip
    times = [e["t_ms"] for e in timeline.events[1:]]
    assert all(t >= before for t, before in zip(times[1:], sets_off, strict=False)), (times, sets_off)


class CheckedBuilder(_Builder):
    """After every event the table drawn must hold what the referee says lies there."""

    def event(self, event: GameEvent, t: float) -> float:
        start = super().event(event, t)
        target = self.table.places(self.session, self.rendered())
        drawn = self.rendered()
        for place in set(target) | set(drawn):
            want, have = target.get(place, []), drawn.get(place, [])
            assert len(want) == len(have) and all(a.same(b) for a, b in zip(want, have, strict=True)), (
                f"after event {event.seq} ({event.type}) {place} holds {have}, the referee says {want}"
            )
        return start


def _check_timeline(log: GameLog, seed: int = 0) -> Timeline:
    layout = default_layout(log.header.game, len(log.header.players))
    timeline = CheckedBuilder(log, layout, Timing(), seed, 1.0).run()
    for hand in timeline.hands:  # a hand does one thing at a time: its keys never go back in time
        times = [t for t, _ in hand.keys]
        assert times == sorted(times)
    for track in timeline.tracks:  # a card does one thing at a time too
        for a, b in itertools.pairwise(track.segments):
            assert a.end <= b.start + 1e-6
    return timeline


@pytest.mark.parametrize("name", DEMOS)
def test_the_table_follows_the_referee_event_by_event(name: str) -> None:
    timeline = _check_timeline(_log(name))
    zones = set(timeline.layout.names)
    assert all(seg.place is None or seg.place[0] in zones for t in timeline.tracks for seg in t.segments)


ROOT = Path(__file__).resolve().parents[2]
OTHER_LOGS = sorted(
    p
    for pattern in ("docs/examples/*.jsonl", "tests/golden/*/*.jsonl")
    for p in ROOT.glob(pattern)
    if p.parent.name in DEMOS or p.stem in DEMOS
)


@pytest.mark.parametrize("path", OTHER_LOGS, ids=[str(p.relative_to(ROOT)) for p in OTHER_LOGS])
def test_the_simulator_follows_every_example_and_golden_log(path: Path) -> None:
    """The referees' own example and golden logs (corrections, one-pile rounds, refused melds …) all render."""
    log = parse_log(path.read_text(encoding="utf-8"))
    timeline = _check_timeline(log)
    _check_expects(timeline)
    landed = {(x.seq, x.card, x.zone) for x in timeline.expects}
    for seq, card, zone in card_events(log):
        assert any(s == seq and z == zone and card in (None, c) for s, c, z in landed), f"event {seq}: {card} in {zone}"


class OrderBuilder(_Builder):
    """Notes, after each event, each place's cards bottom to top and when its actions have all ended."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.notes: list[tuple[float, dict[Any, list[int]]]] = []

    def event(self, event: GameEvent, t: float) -> float:
        start = super().event(event, t)
        done = max(s.end for track in self.tracks for s in track.segments) if self.tracks else t
        self.notes.append((done, {p: list(objs) for p, objs in self.stacks.items()}))
        return start


def test_the_cards_drawn_in_a_meld_lie_in_the_referees_order() -> None:
    """A Push wild swapped out for its card in the middle of a run (tests/golden/push/five_live_deals.jsonl, event 18):
    once an event's cards have landed, each place's cards are drawn bottom to top in the order the referee has them,
    so the card the next one overlaps is drawn under it, as on a real table."""
    log = parse_log((ROOT / "tests/golden/push/five_live_deals.jsonl").read_text(encoding="utf-8"))
    builder = OrderBuilder(log, default_layout(log.header.game, len(log.header.players)), Timing(), 0, 1.0)
    timeline = builder.run()
    for when, stacks in builder.notes:
        resting: dict[object, list[tuple[float, int]]] = {}
        for track in timeline.tracks:
            state = track.state(when + 1)
            if state is not None and state[1] >= 1 and state[0].place is not None:
                resting.setdefault(state[0].place, []).append((state[0].z, track.obj))
        for place, objs in stacks.items():
            drawn = [obj for _, obj in sorted(resting.get(place, []))]
            if sorted(drawn) == sorted(objs):  # nothing of a later event has moved them yet
                assert drawn == objs, (when, place)


def test_a_refused_spades_play_lies_down_then_goes_back_to_the_hand() -> None:
    log = _log("spades")
    refused = next(e for e in log.events if "must_follow_suit" in _rulings_of(log, e.seq))
    timeline = _timeline(log)
    expect = next(x for x in timeline.expects if x.seq == refused.seq)
    track = timeline.tracks[expect.obj]
    assert [s.place for s in track.segments] == [(f"trick/{log.header.players.index(refused.data['player'])}", 0), None]
    assert track.segments[1].start - track.segments[0].end >= Timing().look


def test_a_completed_trick_is_gathered_face_down_to_the_winners_pile() -> None:
    timeline = _timeline(_log("spades"))
    gathered = [t for t in timeline.tracks if len(t.segments) >= 2 and t.segments[1].place]
    assert len(gathered) == 52  # every card played (the refused one went back to the hand)
    assert all(t.segments[1].place[0] in ("won/0", "won/1") and not t.segments[1].dst.up for t in gathered)


def test_a_spit_reveal_turns_the_card_where_it_lies() -> None:
    log = _log("spit")
    reveal = next(e for e in log.events if e.type == "reveal")
    timeline = _timeline(log)
    expect = next(x for x in timeline.expects if x.seq == reveal.seq)
    segments = timeline.tracks[expect.obj].segments
    turn = next(i for i, s in enumerate(segments) if s.end == expect.landed)
    before, after = segments[turn - 1].dst, segments[turn].dst
    assert (before.x, before.y, before.up) == (after.x, after.y, False) and after.up


def test_after_a_spit_slap_each_pile_leaves_the_table_towards_the_player_who_takes_it() -> None:
    """The Spit demo ends with Alex slapping the smaller pile: he takes it, and Beth takes the other one."""
    log = _log("spit")
    slap = next(e for e in log.events if e.type == "slap")
    slapper, pile = log.header.players.index(slap.data["player"]), int(slap.data.get("pile", 0))
    timeline = _timeline(log)
    at = next(e["t_ms"] for e in timeline.events if e["seq"] == slap.seq)
    seats = timeline.layout.seats
    taken: dict[int, set[int]] = {}
    for track in timeline.tracks:
        for before, seg in itertools.pairwise(track.segments):
            if seg.place is None and seg.start >= at and before.place and before.place[0].startswith("spit/"):
                nearest = min(range(len(seats)), key=lambda k: math.dist(seats[k].position, seg.dst.centre))
                taken.setdefault(int(before.place[0].split("/")[1]), set()).add(nearest)
    assert taken == {pile: {slapper}, 1 - pile: {1 - slapper}}, taken


def test_a_card_landing_on_a_pile_shows_the_one_below_at_the_edge() -> None:
    timeline = _timeline(_log("snap"))
    piles: dict[object, list[tuple[float, float, float]]] = {}
    for track in timeline.tracks:
        first = track.segments[0]
        piles.setdefault(first.place, []).append((first.dst.x, first.dst.y, first.dst.angle))
    for poses in piles.values():
        for a, b in itertools.pairwise(poses):
            assert a != b  # each card lands a little off the last one, turned a little
            assert abs(a[0] - b[0]) < 15 and abs(a[1] - b[1]) < 15


def test_the_same_seed_gives_the_same_timeline_and_another_seed_another() -> None:
    log = _log("snap")
    a, b, c = _timeline(log, 3), _timeline(log, 3), _timeline(log, 4)
    assert [t.segments for t in a.tracks] == [t.segments for t in b.tracks]
    assert [h.keys for h in a.hands] == [h.keys for h in b.hands]
    assert [t.segments for t in a.tracks] != [t.segments for t in c.tracks]


def test_a_requested_duration_shortens_the_pauses() -> None:
    log = _log("push")
    layout = default_layout("push", 4)
    natural = build(log, layout)
    fitted = build(log, layout, duration=natural.duration * 0.9)
    assert fitted.duration <= natural.duration * 0.9
    assert len(fitted.expects) == len(natural.expects)
    with pytest.raises(SimError, match=r"this game needs at least \d+ s of video"):
        build(log, layout, duration=5000)


def test_the_layout_must_fit_the_log() -> None:
    with pytest.raises(SimError, match="the layout is for snap with 2 players, the log is snap with 3"):
        build(_log("snap"), default_layout("snap", 2))


def test_a_busy_hand_cannot_start_something_else() -> None:
    hand = HandPath(0, (0.0, 900.0), (0.0, 1200.0))
    hand.go(100, 400, (500.0, 350.0))
    assert hand.at(250) != (0.0, 900.0) and hand.at(400) == (500.0, 350.0)
    with pytest.raises(SimError, match="busy until 400 ms"):
        hand.go(300, 500, (0.0, 900.0))
    assert not hand.trip(200, 100, 100, (1.0, 1.0))
    hand.go(400, 600, (0.0, 900.0))
    assert hand.busy() == [(100, 600)] and hand.shown(300) and not hand.shown(700)


# -- random Snap games --------------------------------------------------------------------------------
CARDS = [r + s for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]


def _random_snap(draw: Any) -> GameLog:
    """A Snap log of accepted events: flips by whoever's turn it is (or not), calls, resolves."""
    players = ("Ann", "Ben", "Cy", "Di")[: draw(st.integers(2, 4))]
    options = {
        "false_call_penalty": draw(st.sampled_from(["card_to_turner", "card_to_each", "pile_to_pot"])),
        "call_style": draw(st.sampled_from(["voice", "slap"])),
    }
    session = Session("snap", players, options)
    ts = 0

    def send(type_: str, **data: Any) -> None:
        nonlocal ts
        ts += draw(st.sampled_from([20, 60, 300, 900, 1500]))
        with contextlib.suppress(EventError):
            session.append(GameEvent(session.next_seq, ts, Source.VISION, type_, data))

    send("deal", dealer=players[-1])
    unseen = list(CARDS)
    for _ in range(draw(st.integers(4, 26))):
        action = draw(st.sampled_from(["flip", "flip", "flip", "call", "resolve"]))
        if session.view()["matches"] and draw(st.booleans()):
            action = "call"  # someone sees the match
        if action == "flip":
            view = session.view()
            player = view["turn"] if draw(st.booleans()) or not view["turn"] else draw(st.sampled_from(players))
            card = draw(st.sampled_from(unseen))
            before = len(session.events)
            send("flip", player=player, card=card)
            if len(session.events) > before:
                unseen.remove(card)
        elif action == "call":
            kind = "slap" if options["call_style"] == "slap" else draw(st.sampled_from(["snap", "snap_pot"]))
            send("call", player=draw(st.sampled_from(players)), kind=kind)
        else:
            send("resolve")
    return GameLog(LogHeader("snap", players, options), tuple(session.events))


random_snap = st.composite(_random_snap)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_snap(), st.integers(0, 1000))
def test_random_snap_games_keep_the_table_and_the_referee_in_step(log: GameLog, seed: int) -> None:
    timeline = _check_timeline(log, seed)
    flips = [(e.seq, e.data["card"]) for e in log.events if e.type == "flip"]
    expected = {(x.seq, x.card) for x in timeline.expects}
    assert set(flips) <= expected
    assert all(x.landed < timeline.duration for x in timeline.expects)


def test_items_compare_as_the_camera_sees_them() -> None:
    assert Item("7H", True).same(Item("7H", True)) and not Item("7H", True).same(Item("7H", False))
    assert Item(None, False).same(Item("7H", False)) and not Item(None, False).same(Item("7H", True))
    assert not Item("7H", True).same(Item("7D", True))


def test_demo_names_are_checked() -> None:
    with pytest.raises(SimError, match="no demo called 'poker'"):
        demo_log("poker")
    assert all(Path(demo_log(name)).is_file() for name in DEMOS)


def test_a_real_pace_lets_cards_land_on_a_spit_pile_as_close_as_the_log_has_them() -> None:
    """``Timing.pile_gap``: two plays on one spit pile 300 ms apart in the log (tests/golden/spit/pace_races.jsonl: a
    legal play followed by another, a race, an illegal play covered by a legal one) land 300 ms apart, the first
    never seen alone for long, as at a real game; by default the second waits until the first lay uncovered for
    ``Timing.dwell`` (every card seen alone: docs/games/spit.md, "What the camera orders on a spit pile")."""
    log = parse_log((ROOT / "tests/golden/spit/pace_races.jsonl").read_text(encoding="utf-8"))
    layout = default_layout("spit", 2)
    plays = [e for e in log.events if e.type == "play"]
    races = [(a, b) for a, b in itertools.pairwise(plays) if a.data["pile"] == b.data["pile"] and b.ts - a.ts < 500]
    assert len(races) == 3
    for timing, apart in (
        (Timing(pile_gap=100), lambda gap, ts: gap == ts),
        (Timing(), lambda gap, ts: gap >= Timing().dwell + 1000),
    ):
        landed = {x.seq: x.landed for x in build(log, layout, timing=timing).expects}
        assert all(apart(landed[b.seq] - landed[a.seq], b.ts - a.ts) for a, b in races), timing
    wider = Timing(pile_gap=400)  # never closer than pile_gap
    landed = {x.seq: x.landed for x in build(log, layout, timing=wider).expects}
    assert all(landed[b.seq] - landed[a.seq] == 400 for a, b in races)
