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


def stages(folder: Path, reader: CardReader, limit: int | None = None) -> dict[str, Any]:
    """Where cards are lost: the share of labelled cards whose index the detector boxes, and of labelled indices
    the classifier names right (one 1.3 crop; the reader's crops; and, as the live table re-reads a card the
    game rules out, knowing the card is one of a hand of 13: the truth and 12 others drawn at random). Also how
    often a right reading is bent into another card when the game wrongly rules it out (a hand of 13 without
    it, e.g. a deal entered wrong): the price of re-reading (and how often with a share of 0.5 or more, which the
    tracker could take). And whether a re-read is as sure as it says: the indices
    read wrong, their reading ruled out (as Snap does when the referee saw that card go elsewhere), by the share the
    re-read gets (its confidence before the detector's score), with how many of those come out right."""
    from vision.sightings import reread_card
    from vision.track import TrackSettings

    floor = TrackSettings().reread_floor
    rng = np.random.default_rng(0)
    deck = [n for n in reader.names if n not in ("bg", "JK")]
    cards = boxed = indices = 0
    right = {"one crop 1.3": 0, "reader's crops": 0, "knowing a hand of 13": 0}
    ruled_out = bent = bent_sure = 0
    by_share: dict[str, list[int]] = {band: [0, 0] for band, _ in SHARE_BANDS}
    by_visible: dict[str, list[int]] = {band: [0, 0] for band, _ in VISIBLE_BANDS}
    by_design: dict[str, list[int]] = {}
    crops = reader.crops
    fates: Counter[str] = Counter()
    legible = {band: [0, 0] for band, _, _ in LEGIBILITY}
    misreads: Counter[str] = Counter()
    suits: Counter[str] = Counter()
    for meta, image in rendered_scenes(folder, limit):
        readings = reader.readings(image)  # the reader's own boxes, read and paired as the reader does
        by_card = _by_card(meta)
        cards += len(by_card)
        boxed += sum(any(iou(lab["box"], r.box) >= 0.3 for lab in labs for r in readings) for labs in by_card.values())
        fate = _card_fates(meta, readings, reader)
        fates.update(fate.values())
        scale = reader.imgsz / max(image.shape[:2])
        for card_id, labs in by_card.items():
            visible, length = _most_legible(labs, scale)
            for band, least_visible, least_length in LEGIBILITY:
                if visible >= least_visible and length >= least_length:
                    legible[band][0] += 1
                    legible[band][1] += fate[card_id] == "found"
        labelled = np.array([lab["box"] for lab in meta["labels"]], np.float32).reshape(-1, 4)
        label_turns = labelled_turns(meta["labels"])
        indices += len(labelled)
        reader.crops = ((1.3, 0.0, 0.0),)
        try:
            names, _ = reader.classify(image, labelled, label_turns)
        finally:
            reader.crops = crops
        right["one crop 1.3"] += sum(n == lab["card"] for n, lab in zip(names, meta["labels"], strict=True))
        ranked = ranked_names(reader.probabilities(image, labelled, label_turns), reader.names)  # the reader's crops
        names = [r[0][0] for r in ranked]
        right["reader's crops"] += sum(n == lab["card"] for n, lab in zip(names, meta["labels"], strict=True))
        for n, lab in zip(names, meta["labels"], strict=True):  # the reader's crops, by how much of it shows
            band = next(b for b, low in VISIBLE_BANDS if lab.get("visible", 1.0) >= low)
            by_visible[band][0] += 1
            by_visible[band][1] += n == lab["card"]
            design = by_design.setdefault(str(lab.get("design", "?")), [0, 0])
            design[0] += 1
            design[1] += n == lab["card"]
            if n != lab["card"]:
                wrong = misread_kind(lab["card"], n)
                misreads[wrong] += 1
                if wrong == "suit only":
                    suits["".join(sorted(lab["card"][-1] + n[-1]))] += 1
        for alternatives, lab in zip(ranked, meta["labels"], strict=True):
            truth, read = lab["card"], alternatives[0][0]
            others = [c for c in deck if c != truth]
            hand = {truth, *rng.choice(others, HAND - 1, replace=False)} if truth in deck else {truth}
            reread = reread_card(alternatives, hand, floor) if read not in hand else None
            right["knowing a hand of 13"] += (reread[0] if reread else read) == truth
            if read == truth and truth in deck:
                ruled_out += 1
                bend = reread_card(alternatives, set(rng.choice(others, HAND, replace=False)), floor)
                bent += bend is not None
                bent_sure += bend is not None and bend[1] >= 0.5  # sure enough for the tracker at a perfect score
            elif truth in deck:
                again = reread_card(alternatives, set(deck) - {read}, floor)
                if again is not None:
                    band = next(b for b, low in SHARE_BANDS if again[1] >= low)
                    by_share[band][0] += 1
                    by_share[band][1] += again[0] == truth
    return {
        "cards": cards,
        "cards_boxed": round(boxed / cards, 4) if cards else 0.0,
        "indices": indices,
        "indices_named_right": {k: round(v / indices, 4) if indices else 0.0 for k, v in right.items()},
        "right_reading_bent_when_ruled_out": round(bent / ruled_out, 4) if ruled_out else 0.0,
        "right_reading_bent_sure_when_ruled_out": round(bent_sure / ruled_out, 4) if ruled_out else 0.0,
        "indices_named_right_by_share_visible": {
            band: {"indices": n, "named_right": round(ok / n, 4) if n else 0.0} for band, (n, ok) in by_visible.items()
        },
        "indices_named_right_by_design": {d: round(ok / n, 4) for d, (n, ok) in sorted(by_design.items())},
        "misread_indices_reread_right_by_share": {
            band: {"indices": n, "right": round(ok / n, 4) if n else 0.0} for band, (n, ok) in by_share.items()
        },
        "cards_by_fate": {fate: round(fates[fate] / cards, 4) if cards else 0.0 for fate in FATES},
        "misread_indices_by_kind": {kind: misreads[kind] for kind in MISREAD_KINDS},
        "suits_taken_for_each_other": dict(suits.most_common()),
        "cards_found_by_legibility": {
            band: {"cards": n, "share": round(n / cards, 4) if cards else 0.0, "found": round(ok / n, 4) if n else 0.0}
            for band, (n, ok) in legible.items()
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
