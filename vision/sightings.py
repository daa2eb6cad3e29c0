"""Detections as table sightings (:func:`sightings`): projected onto the table plane (mm), the two corner indices of one
card merged, each assigned to the layout zone that holds it (cards outside every zone are in transit: ignored). Where
the game says which cards a zone can hold (``possible``: Spades knows every hand once the deal is entered, so a card
on Beth's trick spot is none that another player holds), a reading there is **read among those cards**, as a person
who knows the hands would read a smudged index: the likeliest allowed one of the detector's alternatives (a ruled-out
top reading is re-read), its confidence the detector's score times its share of the probability the allowed cards
got. If they got too little (under ``reread_floor``) the reading stays as it was, and the referee judges it; nor is a
reading re-read into a card the game has once that is read plainly in another zone in the same frame (a covered
card's corner at a pile's edge, taken for the next pile's top, was a duplicate flagged for nothing). Where the game
also says what would be legal there (``likely``: the Spades spot in turn, Spit's piles in play), a card that would be
a foul counts ``foul_prior`` times as much: a doubtful reading leans to a legal card, a plain one stays what it is. A
zone that holds one card at a time (a Spades trick spot, :data:`SINGLE_KINDS`) whose indices read differently is read
once from all of them (:func:`joint_reading`): the two corners of a sideways 10D read 10S at 66 % (10D 21 %) and 10D
at 76 % (10S 2 %), and together say 10D.

Step 1 of the live table; :class:`vision.track.Tracker` (step 2) turns the sightings of each frame into the stable
table.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.detections import Detections
from vision.track import Sighting, TrackSettings
from vision.zones import Layout, Zone

__all__ = ["SINGLE_KINDS", "joint_reading", "reread_card", "sightings"]

#: zone kinds that hold one card at a time: every index read there is that card's (a trick spot)
SINGLE_KINDS = frozenset({"trick"})
#: the classifier's names (52 cards, the joker, "not an index"): the unlisted ones share what the listed left
CLASSES = 54
#: an index in a one-card zone is read with the others only if it gives the name they make together this much
JOINT_FLOOR = 0.1
#: in a joint reading every name gets at least this much from each index (so one cannot rule a name out alone)
JOINT_EPSILON = 0.01


def sightings(
    detections: Detections,
    to_table: np.ndarray,
    layout: Layout,
    settings: TrackSettings,
    possible: Mapping[str, Collection[str]] | None = None,
    likely: Mapping[str, Collection[str]] | None = None,
    deck: Mapping[str, int] | None = None,
) -> list[Sighting]:
    """Detections (image px) as table sightings; ``to_table`` is the calibration's image->table homography;
    ``possible``: the cards each zone can hold, ``likely``: those it would hold if the players keep the rules,
    where the game knows (see the module docstring); ``deck``: the game's cards (and how many copies of each),
    among which a reading of a card the game does not use (court art read as a joker) is read again where the game
    tells no more of its zone. A reading read again among the cards a zone can hold does not become a card of
    which the game has one copy that is read plainly (``min_confidence``) in another zone in the same frame: a
    covered card's corner at a pile's edge, its own name ruled out there, was taken for the card on the next pile
    and flagged as a duplicate."""
    if not len(detections):
        return []
    anchors = detections.anchor
    ones = np.hstack([anchors, np.ones((len(anchors), 1))]) @ np.asarray(to_table).T
    points = ones[:, :2] / ones[:, 2:3]
    reading = _Readings(
        list(detections.card),
        detections.confidence.copy(),
        list(detections.alternatives),
        [layout.zone_at((float(x), float(y))) for x, y in points],
    )
    reading.read_single_zones()
    if possible or likely or deck:
        reading.read_again(settings, possible, likely, deck)
    return _merged(reading, points, layout, settings)


@dataclass
class _Readings:
    """One frame's detections as :func:`sightings` reads them: each one's name, confidence, alternatives (best
    first) and zone (None: outside every zone), and the detector's certainty that an index is there (a card's
    confidence is it times the name's probability)."""

    names: list[str]
    confidence: np.ndarray
    alternatives: list[Sequence[tuple[str, float]]]
    zones: list[Zone | None]
    scores: list[float] = field(init=False)

    def __post_init__(self) -> None:
        c = self.confidence
        self.scores = [
            min(1.0, c[i] / max(a[0][1], 1e-6)) if a else float(c[i]) for i, a in enumerate(self.alternatives)
        ]

    def read_single_zones(self) -> None:
        """A zone that holds one card (:data:`SINGLE_KINDS`) whose indices disagree: the card read from all of
        them (:func:`joint_reading`), but for any that gives the name they make together under JOINT_FLOOR
        (another card's index partly in the zone, or no index at all)."""
        single: dict[str, list[int]] = {}
        for i, zone in enumerate(self.zones):
            if zone is not None and zone.kind in SINGLE_KINDS and self.alternatives[i]:
                single.setdefault(zone.name, []).append(i)
        names, alternatives = self.names, self.alternatives
        for members in single.values():
            if len({names[i] for i in members}) < 2:
                continue
            joint = joint_reading([alternatives[i] for i in members])
            members = [i for i in members if dict(alternatives[i]).get(joint[0][0], 0.0) >= JOINT_FLOOR]
            if len({names[i] for i in members}) > 1:
                joint = joint_reading([alternatives[i] for i in members])
                # a card is there unless every one of its index boxes is a false sighting
                score = 1.0 - float(np.prod([1.0 - self.scores[i] for i in members]))
                for i in members:
                    names[i], alternatives[i], self.scores[i] = joint[0][0], joint, score
                    self.confidence[i] = score * joint[0][1]

    def read_again(
        self,
        settings: TrackSettings,
        possible: Mapping[str, Collection[str]] | None,
        likely: Mapping[str, Collection[str]] | None,
        deck: Mapping[str, int] | None,
    ) -> None:
        """Each reading the game rules out (or a card it does not use) read again among the cards its zone allows
        (:func:`reread_card`), but not into a one-copy card read plainly in another zone (see :func:`sightings`)."""
        names, confidence = self.names, self.confidence
        plain: dict[str, set[str]] = {}  # a card the game has once -> the zones it is read plainly in
        for i, zone in enumerate(self.zones) if deck else ():
            if deck.get(names[i]) == 1 and zone is not None and confidence[i] >= settings.min_confidence:
                plain.setdefault(names[i], set()).add(zone.name)
        for i, zone in enumerate(self.zones):
            allowed = possible.get(zone.name) if possible and zone else None
            if allowed is None and deck and names[i] not in deck:
                allowed = deck.keys()
            if allowed is not None and plain and zone is not None:  # not into a card read plainly in another zone
                elsewhere = {card for card, where in plain.items() if zone.name not in where}
                if elsewhere:
                    allowed = set(allowed) - elsewhere
            legal = likely.get(zone.name) if likely and zone else None
            reread = (
                reread_card(self.alternatives[i], allowed, settings.reread_floor, legal, settings.foul_prior)
                if allowed or legal
                else None
            )
            if reread is not None:  # the detector's score times the name's probability among the allowed ones
                names[i], confidence[i] = reread[0], min(1.0, self.scores[i] * reread[1])


def _merged(reading: _Readings, points: np.ndarray, layout: Layout, settings: TrackSettings) -> list[Sighting]:
    """The readings sure enough for the tracker, one card's indices (the same name within ``merge_mm``) merged
    into one sighting at their mean point, at the surest one's confidence."""
    names, confidence = reading.names, reading.confidence
    floor = min(settings.min_confidence, settings.weak_confidence)
    kept = [i for i in np.argsort(-confidence) if confidence[i] >= floor]
    groups: list[list[int]] = []
    for i in kept:
        for group in groups:
            if names[group[0]] == names[i] and math.dist(points[group[0]], points[i]) <= settings.merge_mm:
                group.append(int(i))
                break
        else:
            groups.append([int(i)])
    out = []
    for group in groups:
        x, y = points[group].mean(axis=0)
        zone = layout.zone_at((float(x), float(y)))
        out.append(
            Sighting(names[group[0]], (float(x), float(y)), float(confidence[group].max()), zone.name if zone else None)
        )
    return out


def joint_reading(readings: Sequence[Sequence[tuple[str, float]]]) -> tuple[tuple[str, float], ...]:
    """One card's name from several of its indices' alternatives (best first): their probabilities multiplied and
    normalised, best first (the five likeliest). A name an index did not list gets an equal share of what that
    index left over, and every name at least ``JOINT_EPSILON``: one index cannot rule a name out alone."""
    names = sorted({name for alternatives in readings for name, _ in alternatives})
    unlisted = max(0, CLASSES - len(names))  # names no index listed: each as likely as any other of them
    logs = np.zeros(len(names) + 1)  # the last: one unlisted name
    for alternatives in readings:
        given = dict(alternatives)
        rest = max(0.0, 1.0 - sum(given.values())) / max(1, CLASSES - len(given))
        logs += np.log(np.array([given.get(name, rest) for name in names] + [rest]) + JOINT_EPSILON)
    weights = np.exp(logs - logs.max())
    total = weights[:-1].sum() + weights[-1] * unlisted
    ranked = sorted(zip(names, weights[:-1] / total, strict=True), key=lambda c: (-c[1], c[0]))
    return tuple((name, round(float(p), 4)) for name, p in ranked[:5])


def reread_card(
    alternatives: Sequence[tuple[str, float]],
    allowed: Collection[str] | None,
    floor: float,
    likely: Collection[str] | None = None,
    foul_prior: float = 1.0,
) -> tuple[str, float] | None:
    """The likeliest of ``alternatives`` (best first) that is ``allowed``, with its probability among the allowed
    ones; None when the allowed names got less than ``floor`` of the probability in all (the reading stays).

    The alternatives are the classifier's top few: the probability it gave names not listed counts as allowed
    (it may be), so a name is not made surer than the classifier was. Measured on the held-out indices
    (``evaluate --stages``), re-readings are right about as often as this share says; counting only the listed
    names made them surer than they were.

    ``allowed`` None: any card. ``likely``: the cards it would be legal to put there; any other counts
    ``foul_prior`` times as much (the unlisted names count in full: they may be legal), so a doubtful reading leans
    to a legal card and a plain one stays what it is."""
    candidates = [(name, p) for name, p in alternatives if allowed is None or name in allowed]
    unlisted = max(0.0, 1.0 - sum(p for _, p in alternatives))
    mass = sum(p for _, p in candidates) + unlisted
    if not candidates or mass < floor or mass <= 0:
        return None
    if likely is not None:
        candidates = [(name, p if name in likely else p * foul_prior) for name, p in candidates]
        mass = sum(p for _, p in candidates) + unlisted
    name, p = max(candidates, key=lambda c: c[1])
    return name, p / mass
