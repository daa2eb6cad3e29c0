"""The face reader's geometry, its training crops, and how its reading joins the indices' (vision.facecards,
vision.pairing.join_faces)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

cv2 = pytest.importorskip("cv2")

from vision.cardart import CARDS, face  # noqa: E402
from vision.facecards import (  # noqa: E402
    BACKGROUND,
    CLASSES,
    FACE_MARGIN,
    FULLY_SHOWN,
    _shown,
    candidate_pairs,
    could_pair,
    face_card_crop,
    pair_square,
    scene_pairs,
    squares_card,
    write_face_set,
)
from vision.pairing import FACE_MAX_BG, FACE_PLAUSIBLE, could_join, join_faces  # noqa: E402
from vision.synth import DesignPool, render_scene  # noqa: E402

PROC = DesignPool((), proc_share=1.0)


def _box(cx: float, cy: float, size: float = 10.0) -> tuple[float, float, float, float]:
    return cx - size / 2, cy - size * 0.6, cx + size / 2, cy + size * 0.6  # 12 px long side


@pytest.mark.parametrize(
    ("distance", "size", "expected"),
    [
        (60.0, 10.0, True),  # 5 index sizes apart: a card's diagonal
        (22.0, 10.0, True),  # 1.8 sizes: a jumbo index's card (react-playing-cards' 4color-bf: rank and suit 38 %)
        (16.0, 10.0, False),  # 1.3 sizes: rank and suit of one index, or a fan's neighbours
        (120.0, 10.0, False),  # 10 sizes: farther than any card's corners
        (60.0, 20.0, False),  # one box twice the other's size
    ],
)
def test_two_indices_could_be_one_cards_opposite_corners(distance: float, size: float, expected: bool) -> None:
    assert could_pair(_box(0, 0), _box(distance, 0, size)) is expected


def test_a_sideways_jumbo_index_cards_corners_are_a_pair() -> None:
    """David's 10D on his Spades trick spot (the slow end-to-end test's video, 4color-bf at 1280x720): its two
    index boxes, 32 px long, lie 1.8 of that apart; read as one card the face reader says 10D at 1.0, read apart
    one corner says 10S at 0.75."""
    assert could_pair((724, 340, 756, 353), (772, 305, 802, 318))


def test_candidate_pairs_lists_each_plausible_pair_once() -> None:
    boxes = [_box(0, 0), _box(60, 0), _box(0, 80), _box(500, 500)]
    assert candidate_pairs(boxes) == [(0, 1), (0, 2), (1, 2)]


_coord = st.floats(0, 400, allow_nan=False)
_side = st.one_of(st.just(0.0), st.floats(0, 40, allow_nan=False))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_coord, _coord, _side, _side), max_size=25))
def test_candidate_pairs_are_the_pairs_could_pair_accepts(raw: list[tuple[float, float, float, float]]) -> None:
    boxes = [(x, y, x + w, y + h) for x, y, w, h in raw]  # some empty (zero width or height), some far apart
    expected = [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if could_pair(boxes[i], boxes[j])]
    assert candidate_pairs(boxes) == expected


def test_the_square_is_centred_between_the_indices_and_holds_the_card() -> None:
    x1, y1, x2, y2 = pair_square(_box(100, 100), _box(160, 180))
    assert ((x1 + x2) / 2, (y1 + y2) / 2) == pytest.approx((130, 140))
    assert x2 - x1 == pytest.approx(y2 - y1) == pytest.approx(FACE_MARGIN * 100)


def test_a_face_crop_is_deterministic_and_shows_the_card_in_the_middle() -> None:
    f = face("proc:3", "8C")
    others = [face("proc:3", "2H"), face("proc:3", "KS")]
    a = face_card_crop(f, np.random.default_rng(5), others)
    b = face_card_crop(f, np.random.default_rng(5), others)
    assert a.shape == (96, 96, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    # the card (white paper) fills the centre: it is brighter there than at the square's corners on average
    crops = [face_card_crop(f, np.random.default_rng(seed)) for seed in range(12)]
    centre = np.mean([c[36:60, 36:60].mean() for c in crops])
    corners = np.mean([c[:12, :12].mean() for c in crops])
    assert centre > corners + 20


def test_scene_pairs_name_only_whole_cards_from_their_opposite_corners() -> None:
    named = bg = 0
    for seed in range(10):
        scene = render_scene(seed, PROC)
        by_box = {lab.box: lab for lab in scene.labels}
        quads = {c["card_id"]: np.float32(c["quad"]) for c in scene.cards}
        for name, a, b in scene_pairs(scene):
            la, lb = by_box[a], by_box[b]
            assert could_pair(a, b)
            if name == BACKGROUND:
                bg += 1
                continue
            named += 1
            assert name == la.card == lb.card and la.card_id == lb.card_id
            quad = quads[la.card_id]
            centre = np.mean([[(x[0] + x[2]) / 2, (x[1] + x[3]) / 2] for x in (a, b)], axis=0)
            assert cv2.pointPolygonTest(quad, (float(centre[0]), float(centre[1])), True) > 0  # the card's middle
            assert _shown(scene, la.card_id) >= FULLY_SHOWN
    assert named >= 10 and bg > 3 * named  # most candidate pairs at a table are not one card


@pytest.mark.parametrize(
    ("a", "b", "squares"),
    [
        pytest.param(_box(30, 20), _box(90, 100), True, id="opposite_corners_around_the_centre"),
        pytest.param(_box(30, 20), _box(94, 104), True, id="a_pile_4_px_off"),
        pytest.param(_box(30, 20), _box(80, 20), False, id="one_side_too_close"),
        pytest.param(_box(30, 20), _box(150, 100), False, id="midpoint_off_the_card"),
    ],
)
def test_which_two_indices_square_a_card(a: tuple, b: tuple, squares: bool) -> None:
    assert squares_card(a, b, np.array([60.0, 60.0]), 100.0) is squares  # a card of diagonal 100 around (60, 60)


def test_scene_pairs_leave_out_two_cards_whose_square_is_one_cards() -> None:
    """A pile's top card and the card under it: their square shows a card, so it is taught neither as that card
    nor as ``bg``.  The rendered scenes do have such pairs among their candidates."""
    left_out = 0
    for seed in range(10):
        scene = render_scene(seed, PROC)
        owner = {lab.box: lab.card_id for lab in scene.labels}
        quads = {c["card_id"]: np.float32(c["quad"]) for c in scene.cards}

        def on_a_card(a: tuple, b: tuple, quads: dict = quads, owner: dict = owner) -> bool:
            return any(
                squares_card(a, b, quads[k].mean(axis=0), float(np.linalg.norm(quads[k][0] - quads[k][2])))
                for k in (owner[a], owner[b])
            )

        kept = {(a, b) for name, a, b in scene_pairs(scene) if name == BACKGROUND and owner[a] != owner[b]}
        assert not any(on_a_card(a, b) for a, b in kept)
        boxes = [lab.box for lab in scene.labels]
        left_out += sum(
            owner[boxes[i]] != owner[boxes[j]] and on_a_card(boxes[i], boxes[j]) for i, j in candidate_pairs(boxes)
        )
    assert left_out > 0


def test_write_face_set_writes_every_crop_it_counts(tmp_path: Path) -> None:
    pool = DesignPool(("gnome:tango",), proc_share=0.5)
    n = write_face_set(tmp_path / "faces", designs=2, scenes=2, seed=4, workers=1, start=1, progress=False, pool=pool)
    files = list((tmp_path / "faces").glob("*/*/*.jpg"))
    assert n == len(files) > 100
    assert {p.parent.name for p in files} <= set(CLASSES)
    assert {p.parent.parent.name for p in files} <= {"train", "val"}


def test_a_face_set_renders_first_only_the_artwork_it_uses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.dataset

    prepared: list[str] = []
    monkeypatch.setattr(vision.dataset, "prepare", lambda item: prepared.append(item.name))
    pool = DesignPool(("gnome:tango", "kde:standard"), proc_share=0.5)
    write_face_set(tmp_path / "faces", designs=1, scenes=0, seed=4, start=8, progress=False, pool=pool)
    assert prepared == ["kde:standard"]  # design job 8: the pool's second design; no scene to draw the first


def test_synth_face_scenes_draw_as_many_procedural_decks_as_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--proc-share 1`` with ``--face-scenes``: procedural decks only, no artwork rendered first (the option was not
    passed on, and all 18 training designs were rendered first: minutes on a fresh machine)."""
    import json

    import vision.dataset
    from web.cli import main

    prepared: list[str] = []
    monkeypatch.setattr(vision.dataset, "prepare", lambda item: prepared.append(item.name))
    assert main(["synth", str(tmp_path), "--face-scenes", "1", "--workers", "1", "--proc-share", "1"]) == 0
    files = list((tmp_path / "faces").rglob("*.jpg"))
    assert json.loads(capsys.readouterr().out)["face_crops"] == len(files) > 0
    assert prepared == []


NAMES = [*CARDS, "bg"]


def _probs(**named: float) -> np.ndarray:
    row = np.full(len(NAMES), 0.0)
    for name, p in named.items():
        row[NAMES.index(name.replace("T", "10"))] = p
    rest = (1 - row.sum()) / (len(NAMES) - len(named))
    return np.where(row > 0, row, rest)


def test_a_sure_face_turns_two_misread_indices_into_the_card() -> None:
    probs = np.stack([_probs(QD=0.46, QS=0.3, TD=0.1), _probs(QD=0.75, QS=0.1, TD=0.07), _probs(KH=0.9)])
    faces = np.stack([_probs(TD=0.97)])
    out = join_faces(probs, [(0, 1)], faces, NAMES)
    assert [NAMES[int(i)] for i in out.argmax(axis=1)] == ["10D", "10D", "KH"]
    assert np.allclose(out.sum(axis=1), 1) and out[:, NAMES.index("bg")][:2].max() == 0
    assert np.array_equal(out[2], probs[2])


def test_a_face_sure_past_a_thousand_to_one_outvotes_two_small_indices_that_agree() -> None:
    # the held-out Snap video's 10D: both 6 px indices read QD (10D at about 2 %), the face reader 10D at 0.9999; with
    # the face keeping 1 % of every name, as the indices do, the indices' 0.6 x 0.55 outvoted it (session 16)
    probs = np.stack([_probs(QD=0.6, QS=0.29, TD=0.02), _probs(QD=0.55, QS=0.2, TD=0.02)])
    out = join_faces(probs, [(0, 1)], np.stack([_probs(TD=0.9999)]), NAMES)
    assert [NAMES[int(i)] for i in out.argmax(axis=1)] == ["10D", "10D"]
    # a face reader only 0.9 sure still loses to two indices that agree on another card
    out = join_faces(probs, [(0, 1)], np.stack([_probs(TD=0.9)]), NAMES)
    assert [NAMES[int(i)] for i in out.argmax(axis=1)] == ["QD", "QD"]


@pytest.mark.parametrize(
    ("face_row", "index_row", "why"),
    [
        (_probs(TD=0.5, bg=FACE_MAX_BG + 0.05), _probs(QD=0.6), "the face reader sees no whole card"),
        (_probs(TD=0.97), _probs(bg=0.7, QD=0.2), "the classifier says the box is no index"),
        (_probs(TD=0.45, QD=0.2), _probs(QD=0.45, TD=0.4), "the face reader is unsure (FACE_SURE 0.5)"),
        (_probs(TD=0.99), _probs(QD=0.99, TD=FACE_PLAUSIBLE / 2), "the index is sure it is another card"),
    ],
)
def test_the_face_leaves_the_indices_alone_when(face_row: np.ndarray, index_row: np.ndarray, why: str) -> None:
    probs = np.stack([index_row, _probs(TD=0.45, QD=0.4)])
    out = join_faces(probs, [(0, 1)], np.stack([face_row]), NAMES)
    assert NAMES[int(out[0].argmax())] == NAMES[int(index_row.argmax())], why


def test_an_index_in_several_pairs_takes_the_surest() -> None:
    probs = np.stack([_probs(TD=0.4, QD=0.4), _probs(TD=0.5), _probs(QD=0.5)])
    faces = np.stack([_probs(TD=0.9), _probs(QD=0.6, TD=0.2)])
    out = join_faces(probs, [(0, 1), (0, 2)], faces, NAMES)
    assert NAMES[int(out[0].argmax())] == "10D"


@pytest.mark.parametrize("seed", range(20))
def test_reading_only_the_pairs_that_could_join_changes_nothing(seed: int) -> None:
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.full(len(NAMES), 0.05), 6)  # peaked, as readings are
    pairs = [(i, j) for i in range(6) for j in range(i + 1, 6)]
    faces = rng.dirichlet(np.full(len(NAMES), 0.05), len(pairs))
    kept = [k for k, (i, j) in enumerate(pairs) if could_join(probs[i], probs[j], NAMES)]
    whole = join_faces(probs, pairs, faces, NAMES)
    assert np.array_equal(whole, join_faces(probs, [pairs[k] for k in kept], faces[kept], NAMES))


def test_could_join_needs_a_card_both_indices_find_plausible() -> None:
    sure_q = _probs(QD=1 - 1e-5)  # every other name ~2e-7, under FACE_PLAUSIBLE
    sure_t = _probs(TD=1 - 1e-5)
    assert could_join(sure_q, _probs(QD=0.6, TD=0.3), NAMES)
    assert not could_join(sure_q, sure_t, NAMES)
    assert not could_join(_probs(bg=0.6, QD=0.3), _probs(QD=0.6), NAMES)
    assert not could_join(_probs(QD=0.6), _probs(bg=0.6, QD=0.3), NAMES)  # either index taken for "bg"
    # two indices unsure they are indices ("bg" 0.4 each) that name two cards: "bg" is no card they agree on
    assert not could_join(_probs(bg=0.4, QD=0.6 - 1e-5), _probs(bg=0.4, TD=0.6 - 1e-5), NAMES)
