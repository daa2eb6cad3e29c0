"""Where the card reader loses cards, stage by stage (``tablecall evaluate --stages``).

``stages(folder)``: the share of cards one of whose labelled indices the
detector boxes (IoU >= 0.3), and the share of labelled index boxes the classifier names right when given the
labelled box itself, with one crop 1.3 wide and with the reader's crops (``CROPS``); and every labelled card by
what became of it in the reader's answer (``cards_by_fate``; the readings ``read`` pairs, the face reader's
included since session 22): found, not boxed, misread, read right but under the card threshold, or read right
and joined with another copy of the same card (scenes mix decks: a second copy lying within a card's reach of
the first, at about its size, and told apart neither by the face reader nor by the boxes' angles, is taken for
the first's other corner). And the share found among the cards whose most legible index is at least so visible
and so long at the detector's input size (``cards_found_by_legibility``, bands in ``LEGIBILITY``; found as
``cards_by_fate`` counts it). And what the misread labelled indices got wrong (``misread_indices_by_kind``: the
suit only, the rank only, both; ``suits_taken_for_each_other``: the suit pairs, e.g. ``CS`` clubs and spades).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.cardart import iou
from vision.detect import CardReader, Reading, ranked_names
from vision.evaluate import labelled_turns, rendered_scenes

#: a Spades hand: what the live table's re-reading (vision.sightings.reread_card) gets to choose from at a trick spot
HAND = 13
#: how much of an index shows (scenes label indices at least 60 % uncovered), best band first
VISIBLE_BANDS = (("all of it", 0.98), ("80-98 %", 0.8), ("60-80 %", 0.0))
#: how sure a re-read is: its share of the allowed probability (vision.sightings.reread_card), surest band first
SHARE_BANDS = (("0.9 or more", 0.9), ("0.7-0.9", 0.7), ("0.5-0.7", 0.5), ("under 0.5", 0.0))
#: the ways of naming labelled indices measured (the reader's crops, and as the live table re-reads them)
NAMED_RIGHT = ("one crop 1.3", "reader's crops", "knowing a hand of 13")


def stages(folder: Path, reader: CardReader, limit: int | None = None) -> dict[str, Any]:
    """Where cards are lost: the share of labelled cards whose index the detector boxes, and of labelled indices
    the classifier names right (one 1.3 crop; the reader's crops; and, as the live table re-reads a card the
    game rules out, knowing the card is one of a hand of 13: the truth and 12 others drawn at random). Also how
    often a right reading is bent into another card when the game wrongly rules it out (a hand of 13 without
    it, e.g. a deal entered wrong): the price of re-reading (and how often with a share of 0.5 or more, which the
    tracker could take). And whether a re-read is as sure as it says: the indices
    read wrong, their reading ruled out (as Snap does when the referee saw that card go elsewhere), by the share the
    re-read gets (its confidence before the detector's score), with how many of those come out right."""
    tally = _Tally([n for n in reader.names if n not in ("bg", "JK")])
    for meta, image in rendered_scenes(folder, limit):
        tally.cards_of(meta, image, reader)
        tally.rereads(tally.indices_of(meta, image, reader), meta["labels"])
    return tally.report()


def _bands(names: Any) -> dict[str, list[int]]:
    """[how many, how many of them right] per band."""
    return {name: [0, 0] for name, *_ in names}


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def _shares(counts: dict[str, list[int]], total: str, right: str) -> dict[str, dict[str, Any]]:
    return {band: {total: n, right: _share(ok, n)} for band, (n, ok) in counts.items()}


@dataclass
class _Tally:
    """What :func:`stages` counts over the scenes: each scene's cards (:meth:`cards_of`), its labelled indices as
    the classifier names them (:meth:`indices_of`) and as the live table would read them again (:meth:`rereads`)."""

    deck: list[str]
    cards: int = 0
    boxed: int = 0
    indices: int = 0
    right: dict[str, int] = field(default_factory=lambda: dict.fromkeys(NAMED_RIGHT, 0))
    ruled_out: int = 0
    bent: int = 0
    bent_sure: int = 0
    by_share: dict[str, list[int]] = field(default_factory=lambda: _bands(SHARE_BANDS))
    by_visible: dict[str, list[int]] = field(default_factory=lambda: _bands(VISIBLE_BANDS))
    by_design: dict[str, list[int]] = field(default_factory=dict)
    fates: Counter[str] = field(default_factory=Counter)
    legible: dict[str, list[int]] = field(default_factory=lambda: _bands(LEGIBILITY))
    misreads: Counter[str] = field(default_factory=Counter)
    suits: Counter[str] = field(default_factory=Counter)
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))

    def cards_of(self, meta: dict[str, Any], image: np.ndarray, reader: CardReader) -> None:
        """The scene's cards: boxed or not, what became of each, and by how legible its best index is."""
        readings = reader.readings(image)  # the reader's own boxes, read and paired as the reader does
        by_card = _by_card(meta)
        self.cards += len(by_card)
        self.boxed += sum(
            any(iou(lab["box"], r.box) >= 0.3 for lab in labs for r in readings) for labs in by_card.values()
        )
        fate = _card_fates(meta, readings, reader)
        self.fates.update(fate.values())
        scale = reader.imgsz / max(image.shape[:2])
        for card_id, labs in by_card.items():
            visible, length = _most_legible(labs, scale)
            for band, least_visible, least_length in LEGIBILITY:
                if visible >= least_visible and length >= least_length:
                    self.legible[band][0] += 1
                    self.legible[band][1] += fate[card_id] == "found"

    def indices_of(self, meta: dict[str, Any], image: np.ndarray, reader: CardReader) -> list[Any]:
        """The scene's labelled index boxes named by the classifier (one 1.3 crop; the reader's crops, by how much
        of each shows, by design, and what the wrong ones got wrong); returns the reader's crops' ranked names."""
        labels = meta["labels"]
        labelled = np.array([lab["box"] for lab in labels], np.float32).reshape(-1, 4)
        label_turns = labelled_turns(labels)
        self.indices += len(labelled)
        crops, reader.crops = reader.crops, ((1.3, 0.0, 0.0),)
        try:
            names, _ = reader.classify(image, labelled, label_turns)
        finally:
            reader.crops = crops
        self.right[NAMED_RIGHT[0]] += sum(n == lab["card"] for n, lab in zip(names, labels, strict=True))
        ranked: list[Any] = ranked_names(reader.probabilities(image, labelled, label_turns), reader.names)
        names = [r[0][0] for r in ranked]
        self.right[NAMED_RIGHT[1]] += sum(n == lab["card"] for n, lab in zip(names, labels, strict=True))
        for n, lab in zip(names, labels, strict=True):
            band = next(b for b, low in VISIBLE_BANDS if lab.get("visible", 1.0) >= low)
            self.by_visible[band][0] += 1
            self.by_visible[band][1] += n == lab["card"]
            design = self.by_design.setdefault(str(lab.get("design", "?")), [0, 0])
            design[0] += 1
            design[1] += n == lab["card"]
            if n != lab["card"]:
                wrong = misread_kind(lab["card"], n)
                self.misreads[wrong] += 1
                if wrong == "suit only":
                    self.suits["".join(sorted(lab["card"][-1] + n[-1]))] += 1
        return ranked

    def rereads(self, ranked: list[Any], labels: list[dict[str, Any]]) -> None:
        """The indices read again among a hand of 13 (with the truth in it, and without: a right reading bent),
        and the misread ones read again with their reading ruled out, by the share the re-read gets."""
        from vision.sightings import reread_card
        from vision.track import TrackSettings

        floor = TrackSettings().reread_floor
        for alternatives, lab in zip(ranked, labels, strict=True):
            truth, read = lab["card"], alternatives[0][0]
            others = [c for c in self.deck if c != truth]
            hand = {truth, *self.rng.choice(others, HAND - 1, replace=False)} if truth in self.deck else {truth}
            reread = reread_card(alternatives, hand, floor) if read not in hand else None
            self.right[NAMED_RIGHT[2]] += (reread[0] if reread else read) == truth
            if read == truth and truth in self.deck:
                self.ruled_out += 1
                bend = reread_card(alternatives, set(self.rng.choice(others, HAND, replace=False)), floor)
                self.bent += bend is not None
                self.bent_sure += bend is not None and bend[1] >= 0.5  # sure enough for the tracker at a perfect score
            elif truth in self.deck:
                again = reread_card(alternatives, set(self.deck) - {read}, floor)
                if again is not None:
                    band = next(b for b, low in SHARE_BANDS if again[1] >= low)
                    self.by_share[band][0] += 1
                    self.by_share[band][1] += again[0] == truth

    def report(self) -> dict[str, Any]:
        """The counts as shares (see :func:`stages`)."""
        return {
            "cards": self.cards,
            "cards_boxed": _share(self.boxed, self.cards),
            "indices": self.indices,
            "indices_named_right": {k: _share(v, self.indices) for k, v in self.right.items()},
            "right_reading_bent_when_ruled_out": _share(self.bent, self.ruled_out),
            "right_reading_bent_sure_when_ruled_out": _share(self.bent_sure, self.ruled_out),
            "indices_named_right_by_share_visible": _shares(self.by_visible, "indices", "named_right"),
            "indices_named_right_by_design": {d: round(ok / n, 4) for d, (n, ok) in sorted(self.by_design.items())},
            "misread_indices_reread_right_by_share": _shares(self.by_share, "indices", "right"),
            "cards_by_fate": {fate: _share(self.fates[fate], self.cards) for fate in FATES},
            "misread_indices_by_kind": {kind: self.misreads[kind] for kind in MISREAD_KINDS},
            "suits_taken_for_each_other": dict(self.suits.most_common()),
            "cards_found_by_legibility": {
                band: {"cards": n, "share": _share(n, self.cards), "found": _share(ok, n)}
                for band, (n, ok) in self.legible.items()
            },
        }


FATES = (
    "found",
    "not boxed",
    "misread",
    "read right, under the card threshold",
    "read right, joined with a copy",
    "read right, lost in pairing",
)


#: what a misread index got wrong (the reader's crops on the labelled box)
MISREAD_KINDS = ("suit only", "rank only", "rank and suit", "not a card index (bg) or the joker")


def misread_kind(truth: str, read: str) -> str:
    """Which of ``MISREAD_KINDS`` reading ``truth`` as ``read`` (another name) is."""
    if "JK" in (truth, read) or "bg" in (truth, read):
        return MISREAD_KINDS[3]
    if truth[:-1] == read[:-1]:
        return MISREAD_KINDS[0]
    return MISREAD_KINDS[1] if truth[-1] == read[-1] else MISREAD_KINDS[2]


#: held-out recall among the cards whose most legible index is at least this visible and this long (px at the
#: detector's input size): (band, visible share, long side)
LEGIBILITY = (
    ("every card", 0.0, 0.0),
    ("an index 80 %+ visible", 0.8, 0.0),
    ("an index fully visible (98 %+)", 0.98, 0.0),
    ("an index fully visible, 12 px or longer", 0.98, 12.0),
)


def _by_card(meta: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    by_card: dict[int, list[dict[str, Any]]] = {}
    for lab in meta["labels"]:
        by_card.setdefault(lab["card_id"], []).append(lab)
    return by_card


def _most_legible(labs: list[dict[str, Any]], scale: float) -> tuple[float, float]:
    """(visible share, long side in px at ``scale``) of a card's most legible labelled index: a fully visible one
    first, then the longest (the label's outline where it has one, else its box)."""

    def length(lab: dict[str, Any]) -> float:
        if lab.get("quad"):
            q = np.asarray(lab["quad"], np.float64)
            return float(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1).max()) * scale
        x1, y1, x2, y2 = lab["box"]
        return max(x2 - x1, y2 - y1) * scale

    return max(((float(lab.get("visible", 1.0)), length(lab)) for lab in labs), key=lambda vl: (vl[0] >= 0.98, vl[1]))


def _card_fates(meta: dict[str, Any], readings: list[Reading], reader: CardReader) -> dict[int, str]:
    """What became of each labelled card (by its ``card_id``) of one scene in the reader's answer (see ``FATES``)."""
    reported = Counter(card.card for card in reader.cards(readings))
    by_card = _by_card(meta)
    copies = Counter(labs[0]["card"] for labs in by_card.values())
    out: dict[int, str] = {}
    for card_id, labs in by_card.items():
        truth = labs[0]["card"]
        if reported[truth] > 0:
            reported[truth] -= 1
            out[card_id] = "found"
            continue
        hits = [r for r in readings if r.score >= reader.conf and any(iou(lab["box"], r.box) >= 0.3 for lab in labs)]
        right = [r for r in hits if r.name == truth]
        if not hits:
            out[card_id] = "not boxed"
        elif not right:
            out[card_id] = "misread"
        elif all(r.prob < reader.min_card for r in right):
            out[card_id] = "read right, under the card threshold"
        else:  # reported under its name, but as one card with another copy (or lost some other way: counted here)
            out[card_id] = "read right, joined with a copy" if copies[truth] > 1 else "read right, lost in pairing"
    return out
