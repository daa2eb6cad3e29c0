"""Card faces for the scene renderer: a registry of artwork designs, face rendering and a cache.

A *design* is one deck's artwork.  Four sources:

* ``gnome:<theme>``: the Debian package ``gnome-cards-data`` (AisleRiot's SVG sprite sheets, ids such as
  ``spade_1`` or ``heart_king``), rendered with ``rsvg-convert -z ZOOM -i ID``;
* ``kde:<deck>``: the Debian package ``kdegames-card-data-kf5`` (KDE's SVG sprite sheets under
  ``/usr/share/carddecks/svg-<deck>/``, ids such as ``1_spade`` or ``king_heart``), rendered the same way;
* ``npm:<package>``: SVG decks from npm installed under ``data/npm`` (one SVG per card, or a sprite sheet);
  both usable ones (``svg-cards``, ``@heruka_urgyen/react-playing-cards``) are held out.  ``cardsJS`` is not on
  the npm registry (404), and ``deck-of-cards``' faces carry no rank index, so neither is used;
* ``proc:<seed>``: a procedural design of ours (:mod:`vision.procedural`): many fonts, suit shapes, index
  sizes and layouts, drawn on demand and never cached.

Third-party artwork stays out of git: faces are rendered once into ``data/faces/<design>/`` (gitignored), one
PNG per face plus ``index.json`` with the corner-index boxes found on each face.  ``DESIGNS`` says which designs
train and which are held out for evaluation (never used in training).

Cards are named as in :mod:`scorer.cards`: ``AS``, ``10H``, ``QD``, ``JK`` (joker).
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
JOKER = "JK"
CARDS = (*(f"{rank}{suit}" for suit in SUITS for rank in RANKS), JOKER)
FACE_HEIGHT = 400  # pixels; scenes draw cards at most ~360 px tall

ROOT = Path(__file__).resolve().parent.parent
GNOME_DIRS = (Path("/usr/share/aisleriot/cards"), Path("/usr/share/gnome-games-common/cards"))
KDE_DIR = Path("/usr/share/carddecks")
T = TypeVar("T")


def data_dir() -> Path:
    """Where generated and third-party data live (gitignored); ``TABLECALL_DATA`` overrides."""
    return Path(os.environ.get("TABLECALL_DATA", ROOT / "data"))


class ArtError(RuntimeError):
    """Card artwork is missing or cannot be rendered; the message says how to install it."""


@dataclass(frozen=True)
class Design:
    """One deck's artwork: ``name`` is ``source:key``; ``split`` is ``train`` or ``heldout``."""

    name: str
    split: str
    note: str = ""

    @property
    def source(self) -> str:
        return self.name.split(":", 1)[0]

    @property
    def key(self) -> str:
        return self.name.split(":", 1)[1]


@dataclass(frozen=True)
class Face:
    """A rendered card face: RGBA pixels and the corner-index boxes ``(x1, y1, x2, y2)`` on it."""

    card: str
    design: str
    image: np.ndarray  # H x W x 4, uint8, RGBA
    indices: tuple[tuple[float, float, float, float], ...]


# English indices (A K Q J) only: themes printed with French (R D V), German (K D B) or Russian (К Д В Т)
# letters would teach the classifier that "D" is a queen; ``tango_nuevo`` prints the rank alone (its suit sits in
# another corner).  Checked by eye on the contact sheet of faces with their index boxes.
_GNOME_TRAIN = (
    "anglo",
    "anglo_bitmap",
    "anglo_modern",
    "anglo_modern_4_color",
    "atlasnye",
    "gnomangelo",
    "gnomangelo_bitmap",
    "neoclassical",
    "neoclassical_4_color",
    "ornamental",
    "plastic",
    "simplistic",
    "tango",
)
_GNOME_HELDOUT = ("anglo_poker", "bellot", "paris")
# KDE's decks with English indices, rank over suit in one corner (the usable ones, checked by eye on their faces
# with index boxes): not ``gm-paris`` (the Paris pattern, whose GNOME theme is held out), ``xskat-german`` (German
# suits), ``oxygen``, ``oxygen-air`` and ``oxygen-white`` (rank and suit in different corners), ``future`` (no
# card layout); ``konqi-modern`` and ``xskat-french`` are embedded 72x96 bitmaps; ``ancient-egyptians``' court
# figures reach past their cards' edges; the corner search finds few of ``jolly-royal``'s shaded indices.
# ``nicu-ornamental`` is GNOME's ``ornamental``.
_KDE_TRAIN = (
    "dondorf",
    "nicu-white",
    "penguins",
    "standard",
    "tigullio-international",
)
DESIGNS: tuple[Design, ...] = (
    *(Design(f"gnome:{theme}", "train") for theme in _GNOME_TRAIN),
    *(Design(f"kde:{deck}", "train") for deck in _KDE_TRAIN),
    *(Design(f"gnome:{theme}", "heldout") for theme in _GNOME_HELDOUT),
    Design("npm:svg-cards", "heldout"),
    *(Design(f"npm:react-playing-cards/{v}", "heldout") for v in ("2color", "4color", "2color-bf", "4color-bf")),
)


def designs(split: str | None = None, sources: Iterable[str] = ("gnome", "kde", "npm")) -> tuple[Design, ...]:
    """The registered artwork designs of one split (``train``/``heldout``/None for all)."""
    wanted = set(sources)
    return tuple(d for d in DESIGNS if (split is None or d.split == split) and d.source in wanted)


def design(name: str) -> Design:
    """The registered design called ``name`` (procedural ``proc:N`` designs always train)."""
    if name.startswith("proc:"):
        return Design(name, "train")
    for candidate in DESIGNS:
        if candidate.name == name:
            return candidate
    known = ", ".join(d.name for d in DESIGNS)
    raise ArtError(f"no card design called {name!r}; known: {known}, and proc:N (our own, any whole number N)")


# -- sources ---------------------------------------------------------------------------------------
_GNOME_RANK = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
_GNOME_SUIT = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}


def _sprite_ids(card: str, kde: bool = False) -> tuple[str, ...]:
    """The sprite sheet's ids for ``card``: GNOME's ``suit_rank``, KDE's ``rank_suit``."""
    if card == JOKER:
        return ("black_joker", "red_joker", "joker") if kde else ("joker_black", "joker_red", "joker")
    rank, suit = _GNOME_RANK.get(card[:-1], card[:-1]), _GNOME_SUIT[card[-1]]
    return (f"{rank}_{suit}",) if kde else (f"{suit}_{rank}",)


def _gnome_file(theme: str) -> Path:
    for folder in GNOME_DIRS:
        for suffix in (".svgz", ".svg"):
            if (folder / f"{theme}{suffix}").exists():
                return folder / f"{theme}{suffix}"
    raise ArtError(f"GNOME card theme {theme!r} not found: apt-get install gnome-cards-data (see ./dev vision)")


def _kde_file(deck: str) -> Path:
    found = sorted((KDE_DIR / f"svg-{deck}").glob("*.svg*"))
    if not found:
        raise ArtError(f"KDE card deck {deck!r} not found: apt-get install kdegames-card-data-kf5 (see ./dev vision)")
    return found[0]


def _npm_root() -> Path:
    return data_dir() / "npm" / "node_modules"


def _npm_file_faces(key: str) -> dict[str, Path]:
    """Card -> SVG file for the one-file-per-card npm decks."""
    root = _npm_root()
    if key.startswith("react-playing-cards/"):
        folder = root / "@heruka_urgyen" / "react-playing-cards" / "src" / "images" / key.split("/", 1)[1]
        names = {"10": "T"}
        faces = {card: folder / f"{names.get(card[:-1], card[:-1])}{card[-1]}.svg" for card in CARDS[:-1]}
        faces[JOKER] = folder / "2J.svg"
    else:
        return {}
    missing = [str(p) for p in faces.values() if not p.exists()]
    if missing:
        raise ArtError(f"npm deck {key!r} is missing {missing[0]}: run ./dev vision (npm install into data/npm)")
    return faces


def _rsvg(args: list[str]) -> np.ndarray:
    """Run rsvg-convert, return its PNG as RGBA pixels."""
    if not shutil.which("rsvg-convert"):
        raise ArtError("rsvg-convert not found: apt-get install librsvg2-bin (see ./dev vision)")
    done = subprocess.run(["rsvg-convert", "-f", "png", *args], capture_output=True, timeout=300, check=False)
    if done.returncode != 0:
        raise ArtError(f"rsvg-convert {' '.join(args)} failed: {done.stderr.decode(errors='replace')[:200]}")
    image = cv2.imdecode(np.frombuffer(done.stdout, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise ArtError(f"rsvg-convert {' '.join(args)} gave no RGBA image")
    return cv2.cvtColor(image, cv2.COLOR_BGRA2RGBA)


#: the scouting render that finds where a sprite's ink lies is made at this fraction of the zoom (1/64 of the
#: pixels), and the page is cut this many scouting pixels past the ink it found
_SCOUT, _SCOUT_MARGIN = 8, 2


def _canvas_size(sheet: Path, sprite: str, zoom: str) -> tuple[int, int] | None:
    """The plain call's canvas (width, height) in pixels, from the size ``-f svg`` prints (six decimals), or None
    where a printed whole number leaves it in doubt (the PNG canvas is the size rounded up)."""
    done = subprocess.run(
        ["rsvg-convert", "-f", "svg", "-z", zoom, "-i", sprite, str(sheet)],
        capture_output=True,
        timeout=300,
        check=False,
    )
    head = done.stdout[:1000].decode(errors="replace")
    found = re.search(r'<svg[^>]* width="([0-9.]+)" height="([0-9.]+)"', head)
    if done.returncode != 0 or not found or "." not in found[1] or "." not in found[2]:
        return None
    return math.ceil(float(found[1])), math.ceil(float(found[2]))


def _render_sprite(sheet: Path, sprite: str, zoom: str) -> np.ndarray:
    """``rsvg-convert -z ZOOM -i SPRITE``'s image, cut short to the right and below the sprite's ink where that
    image runs far past it (``--page-width``/``--page-height``: the same pixels, the page's corner is the canvas's).

    The plain call's canvas is the box librsvg reckons the sprite's ink fills, for many sprites far larger than the
    card: ``anglo``'s king of hearts is a 200-pixel column of a 5063x945 canvas at zoom 1 (0.7 s, most of it
    filling and PNG-encoding empty canvas).  A scouting render at 1/``_SCOUT`` of the zoom says where the ink ends;
    the page ends ``_SCOUT_MARGIN`` scouting pixels past it on a side where that is well inside the canvas, and at
    the canvas's own edge (:func:`_canvas_size`) on a side where it is not (a canvas can cut a sprite's last row).
    Moving the page's corner to the ink too (``--left``, ``--top``) would save more but changes some pixels by a
    few levels (embedded bitmaps most: up to 5 of 255), so the page keeps the canvas's corner.  The plain call is
    made where no side can be cut, the canvas's size is in doubt, or ink reaches the page's cut edge.
    """
    plain = ["-z", zoom, "-i", sprite, str(sheet)]
    low = f"{float(zoom) / _SCOUT:.5f}"
    ratio = float(zoom) / float(low)
    try:  # (an id the sheet lacks fails here and then in the plain call, as before)
        scout = _rsvg(["-z", low, "-i", sprite, str(sheet)])
    except ArtError:  # or cairo wrote a wholly opaque scout as RGB: the plain call decides
        return _rsvg(plain)
    ys, xs = np.nonzero(scout[:, :, 3])
    if len(xs) == 0:
        return _rsvg(plain)
    # the canvas is at least (scout's size - 1) * ratio; 2 pixels to spare for rounding
    right, bottom = math.ceil((xs.max() + 1 + _SCOUT_MARGIN) * ratio), math.ceil((ys.max() + 1 + _SCOUT_MARGIN) * ratio)
    cut_x, cut_y = right + 2 < (scout.shape[1] - 1) * ratio, bottom + 2 < (scout.shape[0] - 1) * ratio
    if not cut_x and not cut_y:
        return _rsvg(plain)
    if not cut_x or not cut_y:
        canvas = _canvas_size(sheet, sprite, zoom)
        if canvas is None:
            return _rsvg(plain)
        right, bottom = right if cut_x else canvas[0], bottom if cut_y else canvas[1]
    image = _rsvg([f"--page-width={right}px", f"--page-height={bottom}px", *plain])
    alpha = image[:, :, 3]
    if image.shape[:2] != (bottom, right) or (cut_x and alpha[:, -1].any()) or (cut_y and alpha[-1].any()):
        return _rsvg(plain)  # the scout missed ink past the cut
    return image


def _crop_alpha(image: np.ndarray) -> np.ndarray:
    """Crop to the opaque part: sprite ids render with invisible neighbours around the card."""
    ys, xs = np.nonzero(image[:, :, 3] > 8)
    if len(xs) == 0:
        raise ArtError("rendered an empty card face")
    return image[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _to_height(image: np.ndarray, height: int = FACE_HEIGHT) -> np.ndarray:
    width = max(1, round(image.shape[1] * height / image.shape[0]))
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)


def _render_sprite_faces(svg: Path, kde: bool = False) -> dict[str, np.ndarray]:
    """Every card of a sprite sheet, each scaled so that the card back is FACE_HEIGHT tall."""
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "deck.svg"
        raw = svg.read_bytes()
        plain.write_bytes(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
        back = _crop_alpha(_render_sprite(plain, "back", "1"))
        zoom = 1.25 * FACE_HEIGHT / back.shape[0]  # render a little larger, then shrink (antialiasing)
        aspect = back.shape[1] / back.shape[0]

        def render(card: str) -> np.ndarray | None:
            for sprite in _sprite_ids(card, kde):
                try:
                    image = _crop_alpha(_render_sprite(plain, sprite, f"{zoom:.5f}"))
                except ArtError:
                    continue
                if abs(image.shape[1] / image.shape[0] - aspect) < 0.05 * aspect:
                    return _to_height(image)
            return None

        rendered = _each_card(render, CARDS)
    return {card: image for card, image in zip(CARDS, rendered, strict=True) if image is not None}


def _each_card(render: Callable[[str], T], cards: Sequence[str]) -> list[T]:
    """``render`` of each card, in order, one card per core at a time: each of a card's rsvg-convert calls (two to
    four, :func:`_render_sprite`) parses the whole sprite sheet, and a design's 53 cards one after another took
    5-23 s when each was one call (session 40; 18 designs: two minutes on a fresh checkout)."""
    with ThreadPoolExecutor(max_workers=max(1, len(os.sched_getaffinity(0)))) as pool:
        return list(pool.map(render, cards))


def _render_file_faces(files: dict[str, Path]) -> dict[str, np.ndarray]:
    """One SVG per card: the SVG's canvas is the card (no alpha crop: the ink may not reach the edges)."""
    cards = list(files)
    images = _each_card(lambda card: _to_height(_rsvg(["-h", str(FACE_HEIGHT * 5 // 4), str(files[card])])), cards)
    return dict(zip(cards, images, strict=True))


def _render_design(item: Design) -> dict[str, np.ndarray]:
    if item.source == "gnome":
        return _render_sprite_faces(_gnome_file(item.key))
    if item.source == "kde":
        return _render_sprite_faces(_kde_file(item.key), kde=True)
    if item.key == "svg-cards":
        path = _npm_root() / "svg-cards" / "svg-cards.svg"
        if not path.exists():
            raise ArtError(f"{path} missing: run ./dev vision (npm install into data/npm)")
        return _render_sprite_faces(path)
    return _render_file_faces(_npm_file_faces(item.key))


# -- corner indices --------------------------------------------------------------------------------
Box = tuple[float, float, float, float]


JUMBO = 1.45  # how much larger the search for a jumbo index is


def find_corner_index(face: np.ndarray, jumbo: bool = False) -> Box | None:
    """The box of the index (rank over suit) nearest the top-left corner of an RGBA face, or None.

    Ink is whatever differs from the card's paper colour; the index is the cluster of small ink blobs that
    starts near the corner, grown blob by blob while the next blob is close.  Card outlines and pictures
    (blobs touching the search window's edges or spanning most of it) are left out.  ``jumbo`` searches a
    larger corner for the indices of "big index" decks (a rank about a quarter of the card tall), which the
    ordinary search cuts at its edges or mistakes for pictures, and allows a wider gap below the rank.
    """
    h, w = face.shape[:2]
    scale = JUMBO if jumbo else 1.0
    win_w, win_h = int(0.30 * scale * w), int(0.34 * scale * h)
    paper = np.median(face[int(0.4 * h) : int(0.6 * h), int(0.02 * w) : int(0.06 * w), :3], axis=(0, 1))
    blobs = [
        b for b in _ink_blobs(face, paper, win_w, win_h) if b[2] - b[0] <= 0.6 * win_w and b[3] - b[1] <= 0.6 * win_h
    ]
    near = [b for b in blobs if b[0] < 0.14 * w and b[1] < 0.12 * h]
    if not near:
        return None
    box = min(near, key=lambda b: b[0] + b[1])
    rank_height = box[3] - box[1]
    gap = 0.03 * h
    below = max(gap, 0.18 * rank_height) if jumbo else gap  # a jumbo rank sits further above its suit
    grown = True
    while grown:
        grown = False
        for b in blobs:
            inside = b[0] >= box[0] and b[1] >= box[1] and b[2] <= box[2] and b[3] <= box[3]
            close = b[0] < box[2] + gap and b[2] > box[0] - gap and b[1] < box[3] + below and b[3] > box[1] - gap
            if close and not inside:
                box = (min(box[0], b[0]), min(box[1], b[1]), max(box[2], b[2]), max(box[3], b[3]))
                grown = True
    if box[2] - box[0] > 0.25 * w or box[3] - box[1] > 0.32 * scale * h or box[3] - box[1] < 0.05 * h:
        return None
    if not jumbo and box[3] - box[1] < 1.2 * rank_height:
        suit = _suit_below(face, paper, box, rank_height)
        if suit is not None:
            box = (min(box[0], suit[0]), box[1], max(box[2], suit[2]), suit[3])
    return box


def _ink_blobs(face: np.ndarray, paper: np.ndarray, win_w: int, win_h: int) -> list[Box]:
    """The boxes of the ink blobs (whatever differs from the paper colour) in the face's top-left ``win_w`` x
    ``win_h`` window, but for those touching the window's edges (outlines, pictures cut by it) and specks."""
    h = face.shape[0]
    window = face[:win_h, :win_w].astype(np.int16)
    ink = (np.abs(window[:, :, :3] - paper).sum(axis=2) > 90) & (window[:, :, 3] > 128)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    blobs = []
    for x, y, bw, bh, area in stats[1:count]:
        touches = x + bw >= win_w - 1 or y + bh >= win_h - 1 or x <= 0 or y <= 0
        if not touches and area >= 0.0002 * h * h:
            blobs.append((float(x), float(y), float(x + bw), float(y + bh)))
    return blobs


def _suit_below(face: np.ndarray, paper: np.ndarray, rank: Box, rank_height: float) -> Box | None:
    """The suit of an index found as its rank alone, where the suit sits further below than the search's gap
    and reaches past its window (``ornamental`` and ``tango`` print a suit as large as the rank, a quarter of
    the rank's height below it): the nearest blob starting just below the rank, under it, at most 1.5 times
    its height and twice its width, in a window half the card tall.  None where there is no such blob."""
    h, w = face.shape[:2]
    width = rank[2] - rank[0]
    best: Box | None = None
    for b in _ink_blobs(face, paper, int(0.30 * w), int(0.50 * h)):
        bw = b[2] - b[0]
        if b[3] - b[1] > 1.5 * rank_height or bw > 2.0 * width:
            continue
        overlap = min(rank[2], b[2]) - max(rank[0], b[0])
        below = b[1] - rank[3]
        near = overlap >= 0.5 * min(width, bw) and 0 <= below <= 0.35 * rank_height
        if near and (best is None or b[1] < best[1]):
            best = b
    return best


def corner_indices(face: np.ndarray, jumbo: bool = False) -> tuple[Box, ...]:
    """Index boxes in all four corners (the card turned or mirrored so each corner is the top-left)."""
    h, w = face.shape[:2]
    boxes: list[Box] = []
    views = (
        (face, lambda b: b),
        (face[::-1, ::-1], lambda b: (w - b[2], h - b[3], w - b[0], h - b[1])),
        (face[:, ::-1], lambda b: (w - b[2], b[1], w - b[0], b[3])),
        (face[::-1, :], lambda b: (b[0], h - b[3], b[2], h - b[1])),
    )
    for number, (view, back) in enumerate(views):
        found = find_corner_index(np.ascontiguousarray(view), jumbo)
        if found is None:
            continue
        if number >= 2 and boxes:  # a mirrored corner counts only if it looks like the first index found
            first = boxes[0]
            ratio = (found[2] - found[0]) * (found[3] - found[1]) / ((first[2] - first[0]) * (first[3] - first[1]))
            if not 0.6 < ratio < 1.6:
                continue
        boxes.append(back(found))
    return tuple(boxes)


def _median_box(boxes: list[Box]) -> Box:
    arr = np.array(boxes)
    return tuple(float(v) for v in np.median(arr, axis=0))  # type: ignore[return-value]


def _fix_outliers(index: dict[str, list[Box]], size: tuple[int, int]) -> dict[str, list[Box]]:
    """Cards whose top-left index was not found or looks unlike the design's usual one get the usual box.

    A box much shorter than the usual one is a rank whose suit the search left out (Paris clubs, the kings of
    several decks): the suit is part of the index."""
    h, w = size
    firsts = [boxes[0] for card, boxes in index.items() if boxes and card != JOKER]
    if not firsts:
        return index
    usual = _median_box(firsts)
    rotated = (w - usual[2], h - usual[3], w - usual[0], h - usual[1])
    fixed = {}
    for card, boxes in index.items():
        if card == JOKER and not boxes:
            fixed[card] = []  # a joker without a found index stays unlabelled rather than guessed
        elif not boxes or iou(boxes[0], usual) < 0.3 or boxes[0][3] - boxes[0][1] < 0.8 * (usual[3] - usual[1]):
            fixed[card] = [usual, rotated]  # not found, elsewhere, or a rank whose suit sits too far below it
        else:
            fixed[card] = boxes
    return fixed


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two ``(x1, y1, x2, y2)`` boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def design_indices(faces: dict[str, np.ndarray]) -> dict[str, list[Box]]:
    """Each face's index boxes, searched as one design: a deck whose indices the ordinary search mostly
    misses is searched again as a jumbo-index deck; boxes unlike the design's usual one get the usual one."""
    index = {card: list(corner_indices(image)) for card, image in faces.items()}
    if sum(bool(boxes) for boxes in index.values()) < len(index) / 2:
        index = {card: list(corner_indices(image, jumbo=True)) for card, image in faces.items()}
    some = next(iter(faces.values()))
    return _fix_outliers(index, some.shape[:2])


# -- cache -----------------------------------------------------------------------------------------
def cache_dir(item: Design) -> Path:
    """Where ``item``'s rendered faces are cached (``data/faces/<design>``, ``:`` and ``/`` made ``_``)."""
    return data_dir() / "faces" / item.name.replace(":", "_").replace("/", "_")


#: the corner search's version: a cache labelled by an older search is labelled again from its PNGs (2: suits that
#: sit a quarter of the rank's height below it, ``ornamental`` and ``tango``)
INDEX_VERSION = "2"


def _read_face(folder: Path, card: str) -> np.ndarray:
    """A cached face's RGBA pixels."""
    image = cv2.imread(str(folder / f"{card}.png"), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ArtError(f"{folder / card}.png is unreadable: delete {folder} and render again")
    return cv2.cvtColor(image, cv2.COLOR_BGRA2RGBA)


def _relabel(folder: Path) -> None:
    """Search a cached design's faces for their indices again (the corner search changed; the PNGs did not)."""
    faces = {card: _read_face(folder, card) for card in json.loads((folder / "index.json").read_text())}
    _write_atomically(folder / "index.json", json.dumps(design_indices(faces), indent=1))
    _write_atomically(folder / "index.version", INDEX_VERSION)


def _write_atomically(path: Path, text: str) -> None:
    """``path`` holds ``text`` whole or its old content, whoever reads it meanwhile."""
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    part.write_text(text)
    os.replace(part, path)


def prepare(item: Design, force: bool = False) -> Path:
    """Render ``item``'s faces into the cache (once) and return the cache folder.

    The faces are written into a folder of their own beside the cache's and it is renamed into place whole: another
    process (a second command, a test run's other worker) finds the design cached only once every face of it is, and
    a render stopped half-way leaves nothing that looks cached."""
    folder = cache_dir(item)
    if (folder / "index.json").exists() and not force:
        version = folder / "index.version"
        if not version.exists() or version.read_text().strip() != INDEX_VERSION:
            _relabel(folder)
        return folder
    faces = _render_design(item)
    missing = [card for card in CARDS[:-1] if card not in faces]
    if missing:
        raise ArtError(f"design {item.name} lacks faces for {', '.join(missing[:5])}")
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".part", dir=folder.parent))
    try:
        staging.chmod(0o755)  # (a temporary folder is its owner's alone: the cache is readable by all, as it was)
        index = design_indices(faces)
        for card, image in faces.items():
            cv2.imwrite(str(staging / f"{card}.png"), cv2.cvtColor(image, cv2.COLOR_RGBA2BGRA))
        (staging / "index.json").write_text(json.dumps(index, indent=1))
        (staging / "index.version").write_text(INDEX_VERSION)
        _publish(staging, folder, replace=force)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def _publish(staging: Path, folder: Path, replace: bool) -> None:
    """Rename ``staging`` to ``folder``; one already there is kept where it is a whole cache (another process
    rendered the same faces meanwhile) unless ``replace``, and moved aside and removed where it is not (a folder
    left half-written by a render stopped before renders were published whole)."""
    while True:
        try:
            os.rename(staging, folder)
            return
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            if not folder.exists():
                continue  # removed meanwhile
            if (folder / "index.json").exists() and not replace:
                return
            aside = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".old", dir=folder.parent))
            with contextlib.suppress(FileNotFoundError):  # another process moved it first
                os.rename(folder, aside / "faces")
            shutil.rmtree(aside, ignore_errors=True)
            replace = False  # what comes in now is another process's whole render


@cache
def _load_design(name: str) -> dict[str, Face]:
    folder = prepare(design(name))
    index = json.loads((folder / "index.json").read_text())
    return {
        card: Face(card, name, _read_face(folder, card), tuple(tuple(b) for b in boxes))
        for card, boxes in index.items()
    }


def face(design_name: str, card: str) -> Face:
    """The face of ``card`` in design ``design_name`` (artwork from the cache, procedural drawn now)."""
    if card not in CARDS:
        raise ArtError(f"{card!r} is not a card name (AS, 10H, QD, JK …)")
    if design_name.startswith("proc:"):
        from vision.procedural import procedural_face

        return procedural_face(int(design_name.split(":", 1)[1]), card)
    faces = _load_design(design_name)
    if card not in faces:
        raise ArtError(f"design {design_name} has no face for {card}")
    return faces[card]


def has_card(design_name: str, card: str) -> bool:
    """Whether the design can draw ``card`` (a few artwork decks have no joker)."""
    return design_name.startswith("proc:") or card in _load_design(design_name)
