"""Index readings joined into physical cards: the face reader's reading joined with two indices' own
(:func:`join_faces`), the pairs it sees as two cards (:func:`apart_pairs`), and the cards the indices make
(:func:`pair_corners`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.boxes import turn_between
from vision.facecards import SIZE_RATIO, box_centre

ALTERNATIVES = 5  # each reading keeps the classifier's five likeliest names (held-out indices: truth among them 98 %)

# the face reader (vision.facecards) joins in where it sees a whole card between two indices: a square whose "bg"
# probability is under FACE_MAX_BG; each index reading keeps INDEX_FLOOR of every name, the face reading FACE_FLOOR
# (a tenth of it: a face reader sure past 0.999 outvotes two tiny indices that agree on another card; session 16 in
# docs/model-history.md)
FACE_MAX_BG = 0.2
FACE_SURE = 0.5  # and whose likeliest card has at least this probability
INDEX_FLOOR = 0.01
FACE_FLOOR = 0.001
# ... and only where the name the three agree on is one each index gives at least FACE_PLAUSIBLE: two indices of
# different cards (a 7H read at 1.0 beside a QC) are no pair, whatever the face reader sees between them
FACE_PLAUSIBLE = 0.001

# pairing indices into cards (pair_corners; docs/model-history.md, "Telling copies apart", chose these on the
# validation scenes): two indices of one card have boxes of about the same width and height (each within
# SIZE_RATIO, the face reader's candidate pairs' ratio), and any further index of a card the face reader saw whole
# lies on the circle through its two opposite indices, around the card's centre (a card's indices are the corners
# of a rectangle), within ON_CIRCLE of its radius; two such whole cards whose centres are within SAME_CENTRE radii
# are one card
ON_CIRCLE = 0.5
SAME_CENTRE = 0.3
# ... and two indices of the same name are never joined through each other where the face reader sees no card
# between them ("bg" at least APART_BG) and their boxes are turned more than APART_TURN degrees apart: a card's
# indices turn with it, so these are two copies (two decks) lying near each other at different angles.  Either
# sign alone splits cards: the detector's angles are rough (one card's two indices: 95 % within 28 degrees of each
# other as the detector turns them, 98 % within 4.5 as labelled), and the face reader sees "bg" between a card's
# corners where another card covers its middle.  Of the held-out scenes' near pairs of one name, both read right,
# the two together flag 3 of 978 pairs of one card and 31 of 53 pairs of two copies (the face reader alone 32 and
# 42, the angle alone 87 and 36).  Chosen on the validation scenes (models/MODEL_CARD.md, "Session 22").
APART_BG = 0.9
APART_TURN = 15.0
# ... but only where both boxes are at least APART_SHAPE times as long as wide: a near-square box (a corner index
# half covered) has no long side to tell its axis by. The detector's boxes of 150 validation scenes are a median
# 2.55 times as long as wide, 3.7 % of them under 1.3; with session 24's classifier, which reads more such
# indices right, one card whose corners lie on either side of two other cards was reported twice
# (tests/vision/test_detect.py); validation F1 0.9213 -> 0.9217 (two false cards fewer: models/MODEL_CARD.md)
APART_SHAPE = 1.3

Alternatives = tuple[tuple[str, float], ...]
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Card:
    """One physical card: its name (``QH``), confidence, box in image pixels and the index boxes behind it;
    ``alternatives``: the classifier's likeliest names for it with their probabilities, best first (the live
    table re-reads a card the game rules out as the likeliest one it allows: :func:`vision.sightings.sightings`)."""

    card: str
    confidence: float
    box: tuple[float, float, float, float]
    indices: tuple[tuple[float, float, float, float], ...] = ()
    alternatives: Alternatives = ()

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card, "confidence": round(self.confidence, 3), "box": [round(v, 1) for v in self.box]}


def apart_pairs(pairs: Sequence[tuple[int, int]], background: np.ndarray, turns: np.ndarray) -> list[tuple[int, int]]:
    """Of these index pairs, those of two cards: the face reader's ``bg`` probability between them (``background``,
    one per pair) at least :data:`APART_BG`, and their boxes (``turns``, :func:`turns_of`) turned more than
    :data:`APART_TURN` degrees apart."""
    if not len(pairs):
        return []
    i, j = np.asarray(pairs).T
    turns = np.asarray(turns, np.float64)
    axis = turns[:, 2]
    shaped = turns[:, 0] >= APART_SHAPE * np.maximum(turns[:, 1], 1e-6)  # a near-square box's axis is no angle
    keep = (np.asarray(background) >= APART_BG) & (turn_between(axis[i], axis[j]) > APART_TURN) & shaped[i] & shaped[j]
    return [(int(a), int(b)) for a, b in zip(i[keep], j[keep], strict=True)]


def pair_corners(
    found: Sequence[tuple[str, float, Box] | tuple[str, float, Box, Alternatives]],
    reach: float = 9.0,
    whole: Collection[tuple[Box, Box]] = (),
    apart: Collection[tuple[Box, Box]] = (),
) -> list[Card]:
    """Join index readings ``(name, confidence, box[, alternatives])`` of the same card name into physical cards.

    ``whole``: pairs of index boxes the face reader saw as one card's opposite corners.  Each such pair is a card
    (two pairs sharing an index or a centre are one card, with up to four indices), and takes in every other index
    of its name lying on its circle (:data:`ON_CIRCLE`).  The rest go by distance and size: an index joins the
    surest card of its name with an index closer than ``reach`` times the larger index size (a card's diagonal is
    5-8.5 index heights) and of about its width and height (``SIZE_RATIO``); a card has at most four
    indices.  So farther copies of a name (two decks) stay apart, and so do near ones drawn at other sizes or lying
    off a whole card's corners.  ``apart``: pairs of index boxes known to be of two cards (:data:`APART_BG`); an
    index never joins a card through an index it is apart from.  A card's alternatives are its indices'
    probabilities averaged.
    """
    pairs = {frozenset(pair) for pair in whole if pair[0] != pair[1]}
    two = {frozenset(pair) for pair in apart if pair[0] != pair[1]}
    cards: list[Card] = []
    by_name: dict[str, list[tuple[float, Box, Alternatives]]] = {}
    for name, conf, box, *alts in found:
        by_name.setdefault(name, []).append((conf, box, alts[0] if alts else ()))
    for name, items in by_name.items():
        items.sort(key=lambda item: -item[0])
        for group in _group_corners(items, pairs, reach, two):
            boxes = np.array([b for _, b, _ in group])
            union = (
                float(boxes[:, 0].min()),
                float(boxes[:, 1].min()),
                float(boxes[:, 2].max()),
                float(boxes[:, 3].max()),
            )
            alternatives = _mean_alternatives([a for _, _, a in group])
            cards.append(Card(name, max(c for c, _, _ in group), union, tuple(b for _, b, _ in group), alternatives))
    cards.sort(key=lambda c: (c.box[1], c.box[0]))
    return cards


_Item = tuple[float, Box, Alternatives]


def _group_corners(
    items: Sequence[_Item], whole: set[frozenset[Box]], reach: float, apart: Collection[frozenset[Box]] = ()
) -> list[list[_Item]]:
    """One name's indices (surest first) grouped into cards: see :func:`pair_corners`."""
    faces: list[tuple[set[int], np.ndarray, float]] = []  # (members, centre, radius) of cards seen whole
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if frozenset((items[i][1], items[j][1])) in whole:
                ci, cj = box_centre(items[i][1]), box_centre(items[j][1])
                faces.append(({i, j}, (ci + cj) / 2, float(np.linalg.norm(ci - cj)) / 2))
    merged = True
    while merged:  # two pairs of one card: they share an index, or (four corners) their centres
        merged = False
        for a in range(len(faces)):
            for b in range(a + 1, len(faces)):
                (ma, ca, ra), (mb, cb, rb) = faces[a], faces[b]
                if ma & mb or np.linalg.norm(ca - cb) <= SAME_CENTRE * max(ra, rb):
                    faces[a] = (ma | mb, (ca + cb) / 2, max(ra, rb))
                    del faces[b]
                    merged = True
                    break
            if merged:
                break
    placed = set().union(*(members for members, _, _ in faces))
    rest: list[int] = []
    for k in range(len(items)):
        if k in placed:
            continue
        centre = box_centre(items[k][1])
        off = {id(f): abs(float(np.linalg.norm(centre - f[1])) - f[2]) for f in faces}  # from each circle
        on = [f for f in faces if len(f[0]) < 4 and off[id(f)] <= ON_CIRCLE * f[2]]
        if on:
            min(on, key=lambda f: off[id(f)])[0].add(k)
        else:
            rest.append(k)
    groups: list[list[int]] = []
    for k in rest:
        for group in groups:
            if len(group) < 4 and any(
                _near(items[k][1], items[o][1], reach)
                and _similar(items[k][1], items[o][1])
                and frozenset((items[k][1], items[o][1])) not in apart
                for o in group
            ):
                group.append(k)
                break
        else:
            groups.append([k])
    return [[items[k] for k in sorted(members)] for members, _, _ in faces] + [[items[k] for k in g] for g in groups]


def _similar(a: Box, b: Box) -> bool:
    """Whether two index boxes are about the same width and height (each within ``SIZE_RATIO``)."""
    wa, ha, wb, hb = a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1]
    return all(max(x, y) <= SIZE_RATIO * max(min(x, y), 1e-6) for x, y in ((wa, wb), (ha, hb)))


def _mean_alternatives(readings: Sequence[Alternatives]) -> Alternatives:
    """The indices' alternatives of one card averaged (a name missing from one index's list counts 0 there)."""
    readings = [r for r in readings if r]
    if not readings:
        return ()
    total: dict[str, float] = {}
    for alternatives in readings:
        for name, p in alternatives:
            total[name] = total.get(name, 0.0) + p / len(readings)
    ranked = sorted(total.items(), key=lambda item: -item[1])[:ALTERNATIVES]
    return tuple((name, round(p, 4)) for name, p in ranked)


def could_join(a: np.ndarray, b: np.ndarray, names: Sequence[str]) -> bool:
    """Whether :func:`join_faces` could join two indices with these probabilities, whatever the face reader
    says: neither is taken for ``bg`` and some card has at least ``FACE_PLAUSIBLE`` in both."""
    return bool(joinable(np.stack([a, b]), [(0, 1)], names)[0])


def joinable(probs: np.ndarray, pairs: Sequence[tuple[int, int]], names: Sequence[str]) -> np.ndarray:
    """:func:`could_join` for each of these pairs of rows of ``probs`` at once (bool, one per pair)."""
    if not len(pairs):
        return np.zeros(0, bool)
    i, j = np.asarray(pairs).T
    both = np.minimum(probs[i], probs[j]) >= FACE_PLAUSIBLE
    ok = np.ones(len(i), bool)
    if "bg" in names:
        bg = list(names).index("bg")
        ok = (probs[i, bg] < 0.5) & (probs[j, bg] < 0.5)
        both[:, bg] = False
    return ok & both.any(axis=1)


def join_faces(
    probs: np.ndarray, pairs: Sequence[tuple[int, int]], faces: np.ndarray, names: Sequence[str]
) -> np.ndarray:
    """Index probabilities (N, classes) joined with the face reader's for index pairs ``pairs`` (``faces``: one row
    of probabilities per pair, same class order).

    Where the face reader sees a whole card (``bg`` under ``FACE_MAX_BG``, its likeliest card at least
    ``FACE_SURE``) between two indices the classifier takes for indices, both get the product of the three readings
    (the indices keeping ``INDEX_FLOOR`` of every name, the face ``FACE_FLOOR``), normalised, provided each index
    gives the name they agree on at least ``FACE_PLAUSIBLE``; an index in several such pairs takes the surest
    product.  Everything else is left as it was."""
    bg = list(names).index("bg") if "bg" in names else None
    best: dict[int, np.ndarray] = {}
    for (i, j), q, ok in zip(pairs, faces, joinable(probs, pairs, names), strict=True):
        if not ok:
            continue
        cards = q if bg is None else np.delete(q, bg)
        if (bg is not None and q[bg] >= FACE_MAX_BG) or cards.max() < FACE_SURE:
            continue
        joint = (q + FACE_FLOOR) * (probs[i] + INDEX_FLOOR) * (probs[j] + INDEX_FLOOR)
        if bg is not None:
            joint[bg] = 0.0
        joint = joint / joint.sum()
        name = int(joint.argmax())
        if min(probs[i, name], probs[j, name]) < FACE_PLAUSIBLE:
            continue
        for k in (i, j):
            if k not in best or joint.max() > best[k].max():
                best[k] = joint
    out = probs.copy()
    for k, joint in best.items():
        out[k] = joint
    return out


def _near(a: tuple[float, ...], b: tuple[float, ...], reach: float) -> bool:
    size = max(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1])
    dx = (a[0] + a[2] - b[0] - b[2]) / 2
    dy = (a[1] + a[3] - b[1] - b[3]) / 2
    return bool(np.hypot(dx, dy) <= reach * size)
