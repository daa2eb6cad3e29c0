"""The stable table state: hysteresis, buried pile cards, moves, occlusion freeze and the impossible-table flags,
all with synthetic sightings (no pictures)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.track import Sighting, Tracker, TrackSettings, deck_for, face_down_zones, spread_zones
from vision.zones import default_layout

LAYOUT = default_layout("snap", 2)
PILE0 = LAYOUT.zone("face_up/0").centre
PILE1 = LAYOUT.zone("face_up/1").centre
POT = LAYOUT.zone("pot").centre
SETTINGS = TrackSettings(appear_frames=3, leave_frames=4, flag_frames=3)


def seen(card: str, where: tuple[float, float], zone: str, dx: float = 0.0) -> Sighting:
    return Sighting(card, (where[0] + dx, where[1]), 0.9, zone)


def tracker(game: str = "snap") -> Tracker:
    return Tracker(SETTINGS, deck_for(game))


def run(t: Tracker, frames: list[list[Sighting]], frozen: list[set[str]] | None = None, start: int = 0) -> list:
    updates = []
    for i, frame in enumerate(frames):
        updates.append(t.update(frame, (frozen[i] if frozen else set()), ts=(start + i) * 100))
    return updates


def changes(updates: list) -> list[tuple[str, str, str]]:
    return [(c.kind, c.card.card, c.card.zone) for u in updates for c in u.changes]


# -- hysteresis ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "frames, expected",
    [
        pytest.param(2, [], id="appear_needs_appear_frames"),
        pytest.param(3, [("appear", "AS", "face_up/0")], id="appear_after_appear_frames"),
    ],
)
def test_a_card_appears_only_after_it_held(frames: int, expected: list) -> None:
    t = tracker()
    ups = run(t, [[seen("AS", PILE0, "face_up/0")]] * frames)
    assert changes(ups) == expected


def test_appear_time_is_the_first_frame_it_was_seen() -> None:
    t = tracker()
    ups = run(
        t, [[], [seen("AS", PILE0, "face_up/0")], [seen("AS", PILE0, "face_up/0")], [seen("AS", PILE0, "face_up/0")]]
    )
    (change,) = [c for u in ups for c in u.changes]
    assert change.ts == 100 and ups[-1].state.names("face_up/0") == ("AS",)


def test_one_missed_frame_is_forgiven_while_appearing() -> None:
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    ups = run(t, [a, [], a, a])
    assert changes(ups) == [("appear", "AS", "face_up/0")]


def test_a_frame_the_detector_saw_nothing_in_does_not_settle_a_card_waiting_to_appear() -> None:
    """A frame with no sightings at all (the detector failed on it: ``LiveTable._detect`` gives None and the tracker
    gets no sightings; nothing moving) is no evidence: a second reading of the pile's AS on the other pile, held back
    as a duplicate, does not appear there as a move of the AS for it, and the AS stays where it lies."""
    t = tracker()
    a0, a1 = seen("AS", PILE0, "face_up/0"), seen("AS", PILE1, "face_up/1")
    ups = run(t, [[a0]] * 3 + [[a0, a1]] * 6 + [[]] + [[a0, a1]] * 2)
    assert changes(ups) == [("appear", "AS", "face_up/0")]
    assert ups[-1].state.names("face_up/0") == ("AS",) and ups[-1].state.names("face_up/1") == ()


def test_two_missed_frames_start_over() -> None:
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    assert changes(run(t, [a, a, [], [], a, a])) == []


@pytest.mark.parametrize(
    "missing, left",
    [pytest.param(3, False, id="short_flicker_keeps_the_card"), pytest.param(4, True, id="leave_after_leave_frames")],
)
def test_a_card_leaves_only_after_it_was_gone_long_enough(missing: int, left: bool) -> None:
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    ups = run(t, [a] * 3 + [[]] * missing + [a])
    assert (("leave", "AS", "face_up/0") in changes(ups)) is left
    assert ups[-1].state.names("face_up/0") == (() if left else ("AS",))


def test_leave_time_is_the_first_frame_it_was_missing() -> None:
    t = tracker()
    ups = run(t, [[seen("AS", PILE0, "face_up/0")]] * 3 + [[]] * 4)
    leave = [c for u in ups for c in u.changes if c.kind == "leave"]
    assert [c.ts for c in leave] == [300]


def faint(card: str, where: tuple[float, float], zone: str) -> Sighting:
    return Sighting(card, where, 0.4, zone)  # over weak_confidence, under min_confidence


@pytest.mark.parametrize(
    "weak, frames, expected",
    [
        pytest.param(0.3, 9, [], id="faint_for_fewer_than_weak_frames"),
        pytest.param(0.3, 10, [("appear", "KH", "face_up/0")], id="faint_for_weak_frames_appears"),
    ],
)
def test_a_faint_reading_counts_only_once_it_held_for_weak_frames(weak: float, frames: int, expected: list) -> None:
    t = Tracker(TrackSettings(weak_confidence=weak, weak_frames=10), deck_for("snap"))
    assert changes(run(t, [[faint("KH", PILE0, "face_up/0")]] * frames)) == expected


def test_faint_frames_between_clear_ones_keep_a_card_appearing() -> None:
    t = Tracker(TrackSettings(weak_confidence=0.3, weak_frames=10), deck_for("snap"))
    clear, dim = [seen("KH", PILE0, "face_up/0")], [faint("KH", PILE0, "face_up/0")]
    assert changes(run(t, [clear, dim, dim, clear, dim, clear])) == [("appear", "KH", "face_up/0")]


def test_a_card_under_a_later_card_is_buried_not_gone() -> None:
    t = tracker()
    a, b = seen("AS", PILE0, "face_up/0"), seen("KD", PILE0, "face_up/0", dx=6)
    landing = [set()] * 3 + [{"face_up/0"}] + [set()] * 12  # KD is laid on the pile: it moves as it lands
    ups = run(t, [[a]] * 3 + [[a, b]] * 3 + [[b]] * 10, landing)
    assert changes(ups) == [("appear", "AS", "face_up/0"), ("appear", "KD", "face_up/0")]
    assert ups[-1].state.names("face_up/0") == ("AS", "KD")
    assert ups[-1].state.top("face_up/0").card == "KD"


def test_a_pile_taken_away_leaves_with_its_buried_cards() -> None:
    t = tracker()
    a, b = seen("AS", PILE0, "face_up/0"), seen("KD", PILE0, "face_up/0", dx=6)
    ups = run(t, [[a]] * 3 + [[a, b]] * 3 + [[b]] * 5 + [[]] * 4, [set()] * 3 + [{"face_up/0"}] + [set()] * 11)
    left = [(c.card.card, c.ts) for u in ups for c in u.changes if c.kind == "leave"]
    assert sorted(left) == [("AS", 1100), ("KD", 1100)]
    assert ups[-1].state.cards == ()


def test_a_card_sliding_in_counts_from_its_first_frame_but_appears_once_still() -> None:
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    ups = run(t, [a] * 5 + [a] * 2, [{"face_up/0"}] * 5 + [set()] * 2)
    assert [changes([u]) for u in ups] == [[]] * 6 + [[("appear", "AS", "face_up/0")]]
    assert ups[-1].changes[0].ts == 0  # when it was first seen there


def test_a_card_held_over_a_zone_for_a_still_moment_does_not_appear() -> None:
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    ups = run(t, [a] * 8, [{"face_up/0"}] * 3 + [set()] + [{"face_up/0"}] * 3 + [set()])
    assert changes(ups) == []


# a pile hands pass near every few hundred ms (Alex's last KC in the seed-31 Spit video read at every 3rd frame): the
# motion meter compares each frame with the one before, so at 5 fps one still frame spans 200 ms without motion
PASSING = [{"face_up/0"}, {"face_up/0"}, set(), {"face_up/0"}, {"face_up/0"}, set(), {"face_up/0"}, {"face_up/0"}]


@pytest.mark.parametrize(
    "step, expected",
    [
        pytest.param(200, [("appear", "AS", "face_up/0")], id="5fps: a still frame spans 200 ms"),
        pytest.param(150, [("appear", "AS", "face_up/0")], id="6.7fps: 150 ms"),
        pytest.param(125, [], id="8fps: 125 ms, less than two frames at 15 fps"),
        pytest.param(67, [], id="15fps: 67 ms, a still moment"),
        pytest.param(100, [], id="10fps: 100 ms, still less than two frames at 15 fps"),
    ],
)
def test_at_a_lower_frame_rate_a_card_settles_once_its_zone_was_still_as_long_as_two_frames_take_at_15fps(
    step: int, expected: list
) -> None:
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    ups = [t.update(a, PASSING[i], ts=i * step) for i in range(len(PASSING))]
    assert changes(ups) == expected
    if expected:
        assert [bool(u.changes) for u in ups].index(True) == 2  # at the first still frame, seen three times by then
        assert ups[2].changes[0].ts == 0


def test_with_three_still_frames_a_card_that_slid_in_under_a_hand_waits_for_three_still_frames() -> None:
    """``still_frames`` 3 (a group's ``[tracking]`` setting), 15 fps: the frame a card is first seen in under a moving
    hand counts towards ``appear_frames``, not towards the still frames (a card held in a moving hand never appears)."""
    t = Tracker(TrackSettings(still_frames=3), deck_for("snap"))
    a = [seen("AS", PILE0, "face_up/0")]
    ups = [t.update(a, ({"face_up/0"} if i == 0 else ()), ts=i * 67) for i in range(4)]
    assert [changes([u]) for u in ups] == [[]] * 3 + [[("appear", "AS", "face_up/0")]]


def test_with_three_still_frames_at_10fps_the_still_time_runs_from_the_first_still_frame() -> None:
    """``still_frames`` 3 at 10 fps: three frames at 15 fps take 200 ms, and a card still in two frames after the hand
    that slid it in (each frame measured against the one before: 200 ms without motion) has lain still that long."""
    t = Tracker(TrackSettings(still_frames=3), deck_for("snap"))
    a = [seen("AS", PILE0, "face_up/0")]
    ups = run(t, [a] * 3, [{"face_up/0"}, set(), set()])
    assert [changes([u]) for u in ups] == [[], [], [("appear", "AS", "face_up/0")]]


def test_at_a_lower_frame_rate_a_card_in_a_moving_hand_still_never_appears() -> None:
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    assert changes([t.update(a, {"face_up/0"}, ts=i * 200) for i in range(10)]) == []


def test_a_still_frame_just_after_the_camera_was_away_does_not_count_the_time_away() -> None:
    """The first picture after a gap has nothing before it to measure motion against: one still frame is one."""
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    ups = [t.update(a, {"face_up/0"}, ts=i * 200) for i in range(3)]
    ups.append(t.update(a, (), ts=5000, moved=("face_up/0",)))
    assert changes(ups) == []
    assert changes([t.update(a, (), ts=5200)]) == [("appear", "AS", "face_up/0")]


@pytest.mark.parametrize("step", [67, 33, 100, 125], ids=["15fps", "30fps", "10fps", "8fps"])
def test_a_card_carried_over_a_zone_still_for_one_frame_does_not_appear_under_the_hand_that_moves_on(step: int) -> None:
    """A card in a hand carried over a pile: seen there while it moves, still for one frame (a still moment), then
    the hand moves on over the pile (frozen, the card no longer seen there) and lifts: nothing was laid. The frames
    it is not seen in show nothing lying still (review4, session 51: the time ran on to them, and it appeared under
    the hand two frames after its still frame, at 15 fps too)."""
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    frames = [(a, {"face_up/0"})] * 2 + [(a, set())] + [([], {"face_up/0"})] * 4 + [([], set())] * 6
    assert changes([t.update(s, f, ts=i * step) for i, (s, f) in enumerate(frames)]) == []


def test_the_first_frame_ever_counts_no_still_time() -> None:
    """The motion meter's first picture has none before it to be compared with: with ``appear_frames`` 1, a card in
    the tracker's first frame (the wall clock at 5 s) does not appear there, only once a second frame was still."""
    t = Tracker(TrackSettings(appear_frames=1), deck_for("snap"))
    a = [seen("AS", PILE0, "face_up/0")]
    assert changes([t.update(a, (), ts=5000)]) == []
    assert changes([t.update(a, (), ts=5200)]) == [("appear", "AS", "face_up/0")]


def test_a_frame_the_motion_meter_compared_with_nothing_counts_no_still_time() -> None:
    """At 5 fps a card in a hand moving over a pile, when the corners are clicked again (a new motion meter: its first
    frame finds no motion, having measured none; ``Tracker.unmeasured``): it does not appear there, nor once the hand
    moved on and took it away."""
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    ups = [t.update(a, {"face_up/0"}, ts=i * 200) for i in range(3)]
    t.unmeasured()
    ups.append(t.update(a, (), ts=600))
    ups += [t.update([], {"face_up/0"}, ts=i * 200) for i in range(4, 7)]
    ups += [t.update([], (), ts=i * 200) for i in range(7, 15)]
    assert changes(ups) == []


def test_at_5fps_a_card_still_for_one_frame_before_it_was_seen_three_times_waits_for_the_hand_to_stop() -> None:
    """A card first seen in a still frame (200 ms: enough time), then in a hand moving over the zone: it is seen a
    third time while the hand moves, and its earlier still frame does not let it appear under the hand (nor once
    the hand has taken it away)."""
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    ups = [t.update([], (), ts=0), t.update(a, (), ts=200)]
    ups += [t.update(a, {"face_up/0"}, ts=200 * i) for i in range(2, 5)]
    ups += [t.update([], (), ts=200 * i) for i in range(5, 12)]
    assert changes(ups) == []


def test_a_card_seen_in_the_frame_the_camera_came_back_then_hidden_by_a_moving_hand_does_not_appear() -> None:
    """At 5 fps, back after 5 s: the first frame has nothing to measure motion against, and the frames after it that
    a hand over the pile hides the card in show nothing still either (it was picked up)."""
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    ups = [t.update(a, {"face_up/0"}, ts=i * 200) for i in range(2)]
    ups.append(t.update(a, (), ts=5000, moved=("face_up/0",)))
    ups += [t.update([], {"face_up/0"}, ts=5000 + k * 200) for k in range(1, 5)]
    ups += [t.update([], (), ts=5000 + k * 200) for k in range(5, 10)]
    assert changes(ups) == []


@pytest.mark.parametrize("frames", [2, 3], ids=["seen two frames", "seen three frames"])
def test_a_card_covered_before_it_settled_is_glimpsed_under_the_card_that_covered_it(frames: int) -> None:
    """Spit's opening 5S, Alex's 4C sliding onto it 100 ms after it landed (spitpace audit F1, session 48): both read
    plainly while the hand moves over the pile, then only the 4C, still. The 5S never settled: it was lost (the
    camera's Spit! never went). Read for ``appear_frames`` it is glimpsed under the 4C, as long as the 4C lies there;
    it does not appear (no event of its own)."""
    t = tracker()
    under, top = seen("AS", PILE0, "face_up/0"), seen("2H", PILE0, "face_up/0", dx=30)
    ups = run(t, [[under, top]] * frames + [[top]] * 4, [{"face_up/0"}] * (frames + 1) + [set()] * 3)
    assert changes(ups) == [("appear", "2H", "face_up/0")]
    glimpsed = [(c.card, c.zone, c.since) for c in ups[-1].glimpsed]
    assert glimpsed == ([("AS", "face_up/0", 0)] if frames >= SETTINGS.appear_frames else [])
    ups = run(t, [[]] * SETTINGS.leave_frames, start=10)  # the pile taken away: nothing lies under anything
    assert changes(ups) == [("leave", "2H", "face_up/0")] and ups[-1].glimpsed == ()


def test_a_card_carried_over_a_pile_is_not_glimpsed() -> None:
    """A card read in a hand passing over a pile, with nothing laid there meanwhile, lies under nothing."""
    t = tracker()
    ups = run(t, [[seen("AS", PILE0, "face_up/0")]] * 4 + [[]] * 3, [{"face_up/0"}] * 5 + [set()] * 2)
    assert changes(ups) == [] and all(u.glimpsed == () for u in ups)


def test_a_faint_card_covered_before_it_settled_is_not_glimpsed() -> None:
    """Only a card read plainly is glimpsed under the card that covered it: one read faintly (a buried card's edge
    read as another name, as on ``_under_top``'s piles) would be taken for the card under the top (Spit's opening
    card) on no better evidence than a misreading."""
    t = Tracker(TrackSettings(weak_confidence=0.3, weak_frames=10), deck_for("snap"))
    under, top = faint("AS", PILE0, "face_up/0"), seen("2H", PILE0, "face_up/0", dx=30)
    ups = run(t, [[under, top]] * 3 + [[top]] * 4, [{"face_up/0"}] * 4 + [set()] * 3)
    assert changes(ups) == [("appear", "2H", "face_up/0")] and all(u.glimpsed == () for u in ups)


def test_a_card_carried_over_a_settled_pile_is_not_glimpsed_under_it() -> None:
    """A card read in a hand held over a pile's settled top (Beth's JD over the 2C of a Spit pile) lies over it, not
    under it: the top lay there before the card came, it covered nothing (review1, session 49: the JD, glimpsed under
    the 2C, went as Beth's play under the next card laid there)."""
    t = tracker()
    run(t, [[seen("2H", PILE0, "face_up/0")]] * 5)
    old, held = seen("2H", PILE0, "face_up/0"), seen("AS", PILE0, "face_up/0", dx=30)
    ups = run(t, [[old, held]] * 4 + [[old]] * 4, [{"face_up/0"}] * 5 + [set()] * 3, start=5)
    assert changes(ups) == [] and all(u.glimpsed == () for u in ups)


def test_a_card_that_changes_zone_is_one_move() -> None:
    t = tracker()
    ups = run(t, [[seen("AS", PILE0, "face_up/0")]] * 3 + [[]] + [[seen("AS", POT, "pot")]] * 3)
    moved = [c for c in ups[-1].changes]
    assert [(c.kind, c.card.zone, c.moved_from, c.to) for c in moved] == [
        ("leave", "face_up/0", None, "pot"),
        ("appear", "pot", "face_up/0", None),
    ]
    assert ups[-1].state.where("AS")[0].zone == "pot"


def test_a_card_nudged_within_its_zone_is_no_change() -> None:
    t = tracker()
    ups = run(t, [[seen("AS", PILE0, "face_up/0")]] * 3 + [[seen("AS", PILE0, "face_up/0", dx=30)]] * 8)
    assert changes(ups) == [("appear", "AS", "face_up/0")]


def test_a_card_whose_point_jumps_across_its_pile_is_no_change_and_no_flag() -> None:
    """One deck: a card read further than ``match_mm`` from where it lay, in the same pile, is still that card (its
    point is the mean of its two indices' points, ``vision.sightings``, some 90 mm apart: a thumb over one moves it
    some 45 mm). It is no second copy to flag, nor a leave and a new appear (a second flip of the same card)."""
    t = tracker()
    ups = run(t, [[seen("AS", PILE0, "face_up/0")]] * 3 + [[seen("AS", PILE0, "face_up/0", dx=50)]] * 8)
    assert changes(ups) == [("appear", "AS", "face_up/0")] and all(u.flags == () for u in ups)


def test_cards_outside_every_zone_are_in_transit() -> None:
    t = tracker()
    ups = run(t, [[Sighting("AS", (10.0, 10.0), 0.9, None)]] * 5)
    assert changes(ups) == [] and ups[-1].state.cards == ()


# -- occlusion freeze ---------------------------------------------------------------------------------------------
def test_a_card_read_anew_in_place_takes_the_old_readings_place() -> None:
    t = tracker()
    run(t, [[seen("5S", PILE0, "face_up/0")]] * 4, frozen=[{"face_up/0"}, set(), set(), set()])
    (old,) = t.state.cards
    ups = run(t, [[seen("5C", PILE0, "face_up/0")]] * 4, start=4)  # the same card, nothing moved: a re-read
    (new,) = t.state.cards
    assert new.card == "5C" and new.replaces == old.id
    appear = next(c for u in ups for c in u.changes if c.kind == "appear")
    assert appear.reread_of == "5S"


def test_a_lower_card_read_anew_keeps_its_place_under_the_top() -> None:
    """Two cards flipped onto a pile under one hand settle in the same frame; the lower one's corner, in view at the
    pile's edge, is read anew (5S, then 5C): it takes the 5S's place under the KD, it does not become the top."""
    t = tracker()
    low, top = seen("5S", PILE0, "face_up/0"), seen("KD", PILE0, "face_up/0", dx=40)
    run(t, [[low, top]] * 4, frozen=[{"face_up/0"}, set(), set(), set()])
    assert t.state.names("face_up/0") == ("5S", "KD")
    ups = run(t, [[seen("5C", PILE0, "face_up/0"), top]] * 4, start=4)
    assert ups[-1].state.names("face_up/0") == ("5C", "KD") and ups[-1].state.top("face_up/0").card == "KD"


@pytest.mark.parametrize(("later_s", "reread"), [(0.0, False), (0.5, False), (60.0, True)])
def test_a_card_first_seen_just_after_the_camera_was_away_was_laid_one_seen_later_is_judged_as_ever(
    later_s: float, reread: bool
) -> None:
    """The camera away (a phone's stream stalled): a card first seen on a pile as it comes back was laid meanwhile,
    with no hand seen. One first seen a minute later, nothing having moved, is the pile's top read anew (the light
    changed): the mark of the gap held for good, and such a misreading was sent as a card laid (session 44's
    review)."""
    t = tracker()
    run(t, [[seen("5S", PILE0, "face_up/0")]] * 4, frozen=[{"face_up/0"}, set(), set(), set()])
    back = 10_000  # the first picture after the stall
    zones = tuple(z.name for z in LAYOUT.zones)
    t.update([seen("5S", PILE0, "face_up/0")] if later_s else [seen("5C", PILE0, "face_up/0")], ts=back, moved=zones)
    first = back + round(later_s * 1000)
    ups = [t.update([seen("5C", PILE0, "face_up/0")], ts=first + i * 100) for i in range(4)]
    appear = next(c for u in ups for c in u.changes if c.kind == "appear")
    assert appear.card.card == "5C" and appear.reread_of == ("5S" if reread else None)


def test_a_card_laid_on_a_pile_with_motion_is_a_new_card() -> None:
    t = tracker()
    run(t, [[seen("5S", PILE0, "face_up/0")]] * 4, frozen=[{"face_up/0"}, set(), set(), set()])
    run(t, [[seen("5C", PILE0, "face_up/0", dx=3)]] * 5, frozen=[{"face_up/0"}, set(), set(), set(), set()], start=4)
    assert [(c.card, c.replaces) for c in t.state.cards] == [("5S", None), ("5C", None)]  # 5S buried under it


def test_a_card_first_read_late_in_a_meld_strip_is_a_card_of_its_own() -> None:
    """Push: a meld laid out side by side; the 8H beside the 7H read only once the 7H had settled, nothing having
    moved (glare on it at first). In a spread zone cards lie side by side: it is another card, not the 7H read anew,
    and the 7H stays in the meld."""
    layout = default_layout("push", 4)
    t = Tracker(SETTINGS, deck_for("push"), spread_zones(layout))
    strip = layout.zone("melds/0").centre
    seven, eight = seen("7H", strip, "melds/0"), seen("8H", strip, "melds/0", dx=50)
    run(t, [[seven]] * 4, frozen=[{"melds/0"}, set(), set(), set()])
    ups = run(t, [[seven, eight]] * 4, start=4)
    assert changes(ups) == [("appear", "8H", "melds/0")]
    assert ups[-1].state.names("melds/0") == ("7H", "8H")


def _laid_on(under: list[Sighting]) -> tuple[list[list[Sighting]], list[set[str]]]:
    """5S settles on pile 0; then KD is laid on it (the zone moves for 3 frames) while ``under`` shows too, and
    both stay in view for 15 frames."""
    first = [seen("5S", PILE0, "face_up/0")]
    top = seen("KD", PILE0, "face_up/0", dx=6)
    frames = [first] * 4 + [[top, *under]] * 18
    return frames, [{"face_up/0"}, set(), set(), set()] + [{"face_up/0"}] * 3 + [set()] * 15


def test_a_faint_card_seen_under_the_top_since_it_landed_is_a_buried_edge_not_a_new_card() -> None:
    t = Tracker(TrackSettings(weak_confidence=0.3, weak_frames=10), deck_for("snap"))
    frames, frozen = _laid_on([faint("5D", PILE0, "face_up/0")])  # 5S's corner at the edge, read 5D
    ups = run(t, frames, frozen)
    assert changes(ups) == [("appear", "5S", "face_up/0"), ("appear", "KD", "face_up/0")]
    assert ups[-1].state.names("face_up/0") == ("5S", "KD")


@pytest.mark.parametrize("missed", [1, 2, 3])
def test_a_faint_card_under_the_top_stays_out_when_the_detector_misses_the_top_for_a_frame_or_two(missed: int) -> None:
    """The KD on the 5S not read in a frame or two, nothing moving (detector flicker: it has not left): the 5S's
    corner at the edge, read 5D all along, is still under it. Before, the first such frame let the 5D appear, a
    phantom card on top of the KD (``data/s52/muttrack/scripts/top_flicker.py``, session 52: hand mutant T37)."""
    t = Tracker(TrackSettings(weak_confidence=0.3, weak_frames=10), deck_for("snap"))
    frames, frozen = _laid_on([faint("5D", PILE0, "face_up/0")])
    frames[14 : 14 + missed] = [[faint("5D", PILE0, "face_up/0")]] * missed  # the KD not read, nothing moving
    ups = run(t, frames, frozen)
    assert changes(ups) == [("appear", "5S", "face_up/0"), ("appear", "KD", "face_up/0")]
    assert ups[-1].state.names("face_up/0") == ("5S", "KD")


@pytest.mark.parametrize("read", [0.4, 0.9], ids=["faint", "plain"])
def test_a_card_that_lay_under_a_top_taken_away_waits_for_the_top_to_leave(read: float) -> None:
    """A Spit race: the 5S lands and the KD on it before the 5S settled, the 5S read faintly at the KD's edge; the KD's
    player takes it back into their hand (a hand over the pile 2 frames). The 5S, read faintly or plainly now, lay
    under the KD: it appears once the KD has left, not over it. Before (plainly read, and faintly before session 52),
    it appeared at once as the pile's new top while the KD was only missing, so the KD counted as buried under it
    and never left: the Spit observer then sent the KD as a play under the 5S, the race given to its loser
    (``data/s52/review3/scripts/spit_race_hand.py``)."""
    t = Tracker(TrackSettings(), deck_for("snap"))
    low, top = Sighting("5S", (PILE0[0] - 8, PILE0[1]), 0.4, "face_up/0"), seen("KD", PILE0, "face_up/0")
    frames = [[low]] * 2 + [[low, top]] * 2 + [[low, top]] * 15 + [[]] * 2
    frozen = [{"face_up/0"}] * 4 + [set()] * 15 + [{"face_up/0"}] * 2
    exposed = Sighting("5S", (PILE0[0] - 8, PILE0[1]), read, "face_up/0")
    ups = run(t, frames + [[exposed]] * 12, frozen + [set()] * 12)
    assert changes(ups) == [("appear", "KD", "face_up/0"), ("leave", "KD", "face_up/0"), ("appear", "5S", "face_up/0")]
    assert ups[-1].state.names("face_up/0") == ("5S",)


def test_a_card_held_over_a_pile_as_its_top_settled_then_laid_on_it_buries_it() -> None:
    """The 5S lands and settles while the KD, in a hand held still over the pile, is read there for two frames; then
    the KD is laid on the 5S (the hand moving 2 frames), hiding it. The KD came over the 5S, first seen after it: it
    appears over it and the 5S is buried, no leave (the card that lay under a top taken away waits for that top to
    leave only when seen there before the top was)."""
    t = tracker()
    x, y = seen("5S", PILE0, "face_up/0"), seen("KD", PILE0, "face_up/0", dx=20)
    frames = [[x], [x, y], [x, y]] + [[y]] * 12
    frozen = [{"face_up/0"}, set(), set(), {"face_up/0"}, {"face_up/0"}] + [set()] * 10
    ups = [t.update(f, z, ts=i * 67) for i, (f, z) in enumerate(zip(frames, frozen, strict=True))]
    assert changes(ups) == [("appear", "5S", "face_up/0"), ("appear", "KD", "face_up/0")]
    assert ups[-1].state.names("face_up/0") == ("5S", "KD")


def test_a_plain_card_seen_under_the_top_still_appears() -> None:
    t = Tracker(TrackSettings(weak_confidence=0.3, weak_frames=10), deck_for("snap"))
    frames, frozen = _laid_on([seen("5D", PILE0, "face_up/0", dx=-8)])  # laid just before KD, read plainly
    assert ("appear", "5D", "face_up/0") in changes(run(t, frames, frozen))


def test_a_faint_card_laid_on_the_settled_top_still_appears() -> None:
    t = Tracker(TrackSettings(weak_confidence=0.3, weak_frames=10), deck_for("snap"))
    run(t, [[seen("5S", PILE0, "face_up/0")]] * 4, [{"face_up/0"}, set(), set(), set()])
    dim = [seen("5S", PILE0, "face_up/0"), faint("KD", PILE0, "face_up/0")]
    ups = run(t, [dim] * 14, [{"face_up/0"}] * 2 + [set()] * 12, start=4)  # it lands after 5S settled
    assert changes(ups) == [("appear", "KD", "face_up/0")]


def test_a_covered_zone_does_not_lose_its_cards() -> None:
    t = tracker()
    a = [seen("AS", PILE0, "face_up/0")]
    frozen = [set()] * 3 + [{"face_up/0"}] * 20 + [set()]
    ups = run(t, [a] * 3 + [[]] * 20 + [a], frozen)
    assert changes(ups) == [("appear", "AS", "face_up/0")]
    assert ups[10].frozen == ("face_up/0",)


def test_a_covered_zone_does_not_gain_cards() -> None:
    """Cards held in a hand over a zone are seen, but the zone is frozen: no appearance."""
    t = tracker()
    held = [seen("7H", PILE1, "face_up/1")]
    ups = run(t, [held] * 10, [{"face_up/1"}] * 10)
    assert changes(ups) == []


def test_other_zones_go_on_while_one_is_covered() -> None:
    t = tracker()
    frames = [[seen("7H", PILE1, "face_up/1")]] * 3
    ups = run(t, frames, [{"face_up/0"}] * 3)
    assert changes(ups) == [("appear", "7H", "face_up/1")]


def test_a_card_leaving_a_covered_zone_waits_for_the_zone_to_clear() -> None:
    """The hand picks the card up: it leaves only after the hand is gone and the card is still missing."""
    t = tracker()
    frames = [[seen("AS", PILE0, "face_up/0")]] * 3 + [[]] * 10
    frozen = [set()] * 3 + [{"face_up/0"}] * 6 + [set()] * 4
    ups = run(t, frames, frozen)
    leave = [c for u in ups for c in u.changes if c.kind == "leave"]
    assert [c.ts for c in leave] == [900] and ups[-1].state.cards == ()


# -- the impossible table -------------------------------------------------------------------------------------------
def test_the_same_card_in_two_places_is_flagged_not_acted_on() -> None:
    t = tracker()
    a0, a1 = seen("AS", PILE0, "face_up/0"), seen("AS", PILE1, "face_up/1")
    ups = run(t, [[a0]] * 3 + [[a0, a1]] * 6)
    assert changes(ups) == [("appear", "AS", "face_up/0")]
    assert [f.code for f in ups[-1].flags] == ["duplicate_card"]
    assert ups[-1].flags[0].zones == ("face_up/0", "face_up/1")
    assert ups[-1].state.names("face_up/1") == ()
    cleared = run(t, [[a0]] * 3, start=9)
    assert cleared[-1].flags == () and changes(cleared) == []


def test_a_duplicate_must_persist_to_be_flagged() -> None:
    t = tracker()
    a0, a1 = seen("AS", PILE0, "face_up/0"), seen("AS", PILE1, "face_up/1")
    ups = run(t, [[a0]] * 3 + [[a0, a1]] * 3)
    assert all(u.flags == () for u in ups)


def test_a_card_the_game_does_not_use_is_flagged_and_ignored() -> None:
    t = tracker("snap")
    ups = run(t, [[seen("JK", PILE0, "face_up/0")]] * 4)
    assert changes(ups) == []
    assert [f.code for f in ups[-1].flags] == ["unknown_card"]
    assert run(t, [[]], start=4)[-1].flags == ()


def test_a_faint_unknown_card_is_flagged_only_as_a_faint_card_would_appear() -> None:
    faint = Sighting("JK", PILE0, 0.35, "face_up/0")  # court art read as a joker, faintly: weak_frames (10)
    t = tracker("snap")
    ups = run(t, [[faint]] * 9)
    assert all(u.flags == () for u in ups)
    assert [f.code for f in run(t, [[faint]], start=9)[-1].flags] == ["unknown_card"]
    t = tracker("snap")  # sure for two frames then faint: neither count reached
    ups = run(t, [[seen("JK", PILE0, "face_up/0")]] * 2 + [[faint]] * 3)
    assert all(u.flags == () for u in ups) and changes(ups) == []


def test_a_card_outside_the_game_read_on_a_face_down_pile_is_not_flagged() -> None:
    """The spadescam audit's trained runs (session 49): the white-edged corner of team 0's won pile, face-down backs,
    read JK at 0.33-0.53 for tens of frames in a row (data/s50/spadesleft/scripts/jk_frames.py: frames 465-636 of the
    held-out brisk run), flagged "JK is not a card of this game" on the camera view in 3 of 7 runs. A face-down zone
    holds no face to read: nothing is flagged there. On a trick spot a joker is still flagged, sure or faint."""
    layout = default_layout("spades", 4)
    assert face_down_zones(layout) == {"won/0", "won/1"}
    won, spot = layout.zone("won/0").centre, layout.zone("trick/0").centre
    for confidence, frames in ((0.45, 40), (0.52, 5)):
        t = Tracker(TrackSettings(), deck_for("spades"), spread_zones(layout), face_down_zones(layout))
        ups = run(t, [[Sighting("JK", won, confidence, "won/0")]] * frames)
        assert all(u.flags == () for u in ups) and changes(ups) == []
        ups = run(t, [[Sighting("JK", spot, confidence, "trick/0")]] * frames, start=frames)
        assert [f.code for f in ups[-1].flags] == ["unknown_card"] and ups[-1].flags[0].zones == ("trick/0",)


def test_a_faint_unknown_card_at_a_pile_edge_under_its_settled_top_is_not_flagged() -> None:
    # the bench's Spit game at seed 6 (GNOME anglo_poker): under a stock pile's JS the corner of the card below,
    # a sliver at the pile's edge, read JK at 0.99 (0.35-0.46 with the detector's score) from when JS landed
    t = Tracker(TrackSettings(weak_confidence=0.3, weak_frames=10), deck_for("snap"))
    frames, frozen = _laid_on([faint("JK", PILE0, "face_up/0")])
    ups = run(t, frames, frozen)
    assert all(u.flags == () for u in ups)
    assert changes(ups) == [("appear", "5S", "face_up/0"), ("appear", "KD", "face_up/0")]
    gone = run(t, [[faint("JK", PILE0, "face_up/0")]] * 10, start=len(frames))  # the top gone, the joker not
    assert [f.code for f in gone[-1].flags] == ["unknown_card"]


def test_a_faint_unknown_card_read_now_and_then_at_a_pile_edge_is_not_flagged() -> None:
    # the same sliver read in runs of frames, each starting after the top settled
    t = Tracker(TrackSettings(weak_confidence=0.3, weak_frames=10), deck_for("snap"))
    frames, frozen = _laid_on([])
    run(t, frames, frozen)
    top, edge = seen("KD", PILE0, "face_up/0", dx=6), faint("JK", PILE0, "face_up/0")
    ups = run(t, ([[top, edge]] * 12 + [[top]] * 2) * 3, start=len(frames))
    assert all(u.flags == () for u in ups) and changes(ups) == []


def test_a_faint_unknown_card_under_a_top_the_detector_misses_for_two_frames_is_not_flagged() -> None:
    """The JK sliver under the KD, as above, the KD not read in two frames, nothing moving (detector flicker: it has
    not left): the sliver is still a buried card's edge, no ``unknown_card`` flag (a red zone on the camera view
    for those frames before; review3, session 52, ``data/s52/review3/scripts/flag_flicker.py``)."""
    t = Tracker(TrackSettings(weak_confidence=0.3, weak_frames=10), deck_for("snap"))
    frames, frozen = _laid_on([faint("JK", PILE0, "face_up/0")])
    run(t, frames, frozen)
    top, edge = seen("KD", PILE0, "face_up/0", dx=6), faint("JK", PILE0, "face_up/0")
    ups = run(t, [[edge]] * 2 + [[top, edge]] * 4, start=len(frames))
    assert [u.flags for u in ups] == [()] * 6
    assert changes(ups) == [] and ups[-1].state.names("face_up/0") == ("5S", "KD")


def test_a_faint_card_in_a_meld_strip_laid_with_the_others_appears() -> None:
    """Push: 7H 8H 9H laid in one go, the 9H read only faintly. A meld strip is no pile (its cards lie side by
    side), so the 9H is no buried card's edge under the 8H: it appears, and the meld has all three (review3,
    session 52, ``data/s52/review3/scripts/meld_faint.py``)."""
    layout = default_layout("push", 4)
    t = Tracker(TrackSettings(weak_confidence=0.3, weak_frames=10), deck_for("push"), spread_zones(layout))
    strip = layout.zone("melds/0").centre
    nine = faint("9H", (strip[0] + 100, strip[1]), "melds/0")
    cards = [seen("7H", strip, "melds/0"), seen("8H", strip, "melds/0", dx=50), nine]
    ups = run(t, [cards] * 20, [{"melds/0"}] * 2 + [set()] * 18)
    assert ups[-1].state.names("melds/0") == ("7H", "8H", "9H")


def test_an_unknown_card_on_a_seen_pile_top_is_flagged_only_when_read_plainly() -> None:
    t = Tracker(TrackSettings(weak_confidence=0.3, weak_frames=10), deck_for("snap"))
    run(t, [[seen("5S", PILE0, "face_up/0")]] * 4, [{"face_up/0"}, set(), set(), set()])
    dim = [seen("5S", PILE0, "face_up/0"), faint("JK", PILE0, "face_up/0")]
    ups = run(t, [dim] * 12, [{"face_up/0"}] * 2 + [set()] * 10, start=4)  # it lands after 5S settled
    assert all(u.flags == () for u in ups)
    plain = [seen("5S", PILE0, "face_up/0"), seen("JK", PILE0, "face_up/0")]
    assert [f.code for f in run(t, [plain] * 3, start=16)[-1].flags] == ["unknown_card"]


def test_two_copies_in_a_two_deck_game_are_fine_a_third_is_flagged() -> None:
    layout = default_layout("push", 4)
    t = Tracker(SETTINGS, deck_for("push"))
    zone = layout.zone("melds/0")
    (x, y) = zone.centre
    copies = [Sighting("7H", (x + dx, y), 0.9, "melds/0") for dx in (-150.0, 0.0, 150.0)]
    ups = run(t, [copies[:2]] * 3 + [copies] * 6)
    assert changes(ups) == [("appear", "7H", "melds/0"), ("appear", "7H", "melds/0")]
    assert [f.code for f in ups[-1].flags] == ["duplicate_card"] and "only 2" in ups[-1].flags[0].message


def test_a_copy_under_a_hand_may_be_on_its_way_no_flag() -> None:
    t = tracker()
    a0, a1 = seen("AS", PILE0, "face_up/0"), seen("AS", POT, "pot")
    ups = run(t, [[a0]] * 3 + [[a1]] * 6, [set()] * 3 + [{"face_up/0"}] * 6)
    assert all(u.flags == () for u in ups) and changes(ups) == [("appear", "AS", "face_up/0")]
    ups = run(t, [[a1]] * 2, start=9)
    assert changes(ups) == [("leave", "AS", "face_up/0"), ("appear", "AS", "pot")]


@pytest.mark.parametrize(
    "field, value",
    [
        pytest.param("appear_frames", 0, id="appear_frames_at_least_1"),
        pytest.param("leave_frames", 1.5, id="leave_frames_whole"),
        pytest.param("min_confidence", 2, id="confidence_at_most_1"),
        pytest.param("occlusion", -0.1, id="occlusion_a_fraction"),
        pytest.param("motion_hold", True, id="motion_hold_not_bool"),
    ],
)
def test_bad_settings_are_refused(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field):
        TrackSettings(**{field: value})  # type: ignore[arg-type]


# -- properties ----------------------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=60))
def test_flicker_shorter_than_the_thresholds_never_changes_a_stable_card(pattern: list[bool]) -> None:
    """A stable card missing for fewer than leave_frames frames at a time never leaves, and a spurious card
    seen for fewer than appear_frames frames (with gaps of two) never appears."""
    t = tracker()
    a = seen("AS", PILE0, "face_up/0")
    run(t, [[a]] * 3)
    gap = 0
    for i, present in enumerate(pattern):
        gap = 0 if present else gap + 1
        if gap >= SETTINGS.leave_frames:
            gap, present = 0, True
        ghost = [seen("KD", PILE1, "face_up/1")] if i % 4 < 2 else []
        u = t.update([a, *ghost] if present else ghost, (), ts=1000 + i)
        assert u.changes == () and u.state.names("face_up/0") == ("AS",) and u.state.names("face_up/1") == ()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(["AS", "KD", "7H", "2C", "QS"]), min_size=1, max_size=5, unique=True), st.integers(0, 4)
)
def test_every_card_seen_long_enough_appears_once_and_leaves_once(cards: list[str], lag: int) -> None:
    t = tracker()
    zones = ["face_up/0", "face_up/1", "pot"]
    spots = {"face_up/0": PILE0, "face_up/1": PILE1, "pot": POT}
    frames = []
    for k, card in enumerate(cards):
        zone = zones[k % 3]
        frames += [[seen(card, spots[zone], zone, dx=k * 2)]] * (3 + lag) + [[]] * 4
    ups = run(t, frames)
    kinds = changes(ups)
    assert [c for c in kinds if c[0] == "appear"] == [("appear", c, zones[k % 3]) for k, c in enumerate(cards)]
    assert sorted(c[1] for c in kinds if c[0] == "leave") == sorted(cards)
