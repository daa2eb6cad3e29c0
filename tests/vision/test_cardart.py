"""Card faces: design registry split, procedural faces, corner-index search, artwork rendering (if installed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2")

from vision import cardart
from vision.cardart import CARDS, DESIGNS, designs, find_corner_index
from vision.procedural import procedural_face, style

HELD_OUT = {"gnome:anglo_poker", "gnome:bellot", "gnome:paris", "npm:svg-cards"}


def test_held_out_designs_never_train() -> None:
    train = {d.name for d in designs("train")}
    held = {d.name for d in designs("heldout")}
    assert held >= HELD_OUT
    assert not train & held
    assert not any("react-playing-cards" in name or "svg-cards" in name for name in train)
    assert len({d.name for d in DESIGNS}) == len(DESIGNS)


def test_card_names_follow_scorer_notation() -> None:
    from scorer.cards import parse_face

    assert len(CARDS) == 53
    assert all(str(parse_face(name)) in (name, "JOKER") for name in CARDS)


@pytest.mark.parametrize("card", ["AS", "10H", "QD", "7C", "JK"])
def test_procedural_faces_are_deterministic_and_boxes_hold_the_ink(card: str) -> None:
    a, b = procedural_face(5, card), procedural_face.__wrapped__(5, card)
    assert np.array_equal(a.image, b.image) and a.indices == b.indices
    h, w = a.image.shape[:2]
    assert h == cardart.FACE_HEIGHT and len(a.indices) in (2, 4)
    for x1, y1, x2, y2 in a.indices:
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        box = a.image[int(y1) : int(y2), int(x1) : int(x2), :3].astype(int)
        paper = np.array(a.image[h // 2, 2, :3], int)
        assert (np.abs(box - paper).sum(axis=2) > 90).mean() > 0.05  # the index is drawn there


def test_some_designs_have_jumbo_or_four_colour_indices_that_fit_their_corners() -> None:
    styles = {seed: style(seed) for seed in range(200)}
    jumbo = [seed for seed, st in styles.items() if st.rank_height > 0.19]
    four = [seed for seed, st in styles.items() if st.colours["D"] != st.colours["H"]]
    assert 10 <= len(jumbo) <= 50 and 20 <= len(four) <= 80
    for seed in jumbo[:8]:
        for card in ("10D", "QC"):
            face = procedural_face(seed, card)
            w = face.image.shape[1]
            (a, b) = face.indices[:2]
            assert a[2] - a[0] <= 0.41 * w  # even a jumbo "10" leaves the card a middle
            assert a[3] <= b[1] or a[2] <= b[0]  # the two corners' indices do not overlap


def test_designs_differ() -> None:
    faces = [procedural_face(seed, "KH").image for seed in range(4)]
    assert any(f.shape != faces[0].shape or not np.array_equal(f, faces[0]) for f in faces[1:])


@pytest.mark.parametrize("jumbo", [False, True], ids=["ordinary", "jumbo"])
def test_corner_index_search_finds_a_drawn_index(jumbo: bool) -> None:
    # artwork-like procedural designs: no frame, rank and suit close together (as printed decks have them)
    seeds = [
        s
        for s in range(300)
        if (st := style(s)).border == 0 and st.gap < 0.12 and not st.side and (st.rank_height > 0.19) == jumbo
    ][:5]
    assert seeds
    for seed in seeds:
        face = procedural_face(seed, "9S")
        found = find_corner_index(face.image, jumbo=jumbo)
        assert found is not None, seed
        assert cardart.iou(found, face.indices[0]) > 0.7, seed
    if jumbo:  # the ordinary search misses a jumbo index or boxes only part of it
        missed = [find_corner_index(procedural_face(seed, "9S").image) for seed in seeds]
        assert any(
            m is None or cardart.iou(m, procedural_face(seed, "9S").indices[0]) < 0.7
            for seed, m in zip(seeds, missed, strict=True)
        )


def test_corner_index_search_ignores_a_blank_card() -> None:
    blank = np.full((400, 280, 4), 255, np.uint8)
    assert find_corner_index(blank) is None


@pytest.mark.skipif(not shutil.which("rsvg-convert"), reason="needs librsvg2-bin")
def test_a_gnome_theme_renders_with_indices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        cardart._gnome_file("tango")
    except cardart.ArtError:
        pytest.skip("needs gnome-cards-data")
    monkeypatch.setenv("TABLECALL_DATA", str(tmp_path))
    folder = cardart.prepare(cardart.design("gnome:tango"))
    assert (folder / "index.json").exists()
    cardart._load_design.cache_clear()
    try:
        faces = cardart._load_design("gnome:tango")
        assert set(CARDS[:-1]) <= set(faces)
        for name in CARDS[:-1]:
            assert faces[name].indices, name
            assert faces[name].image.shape[0] == cardart.FACE_HEIGHT
    finally:
        cardart._load_design.cache_clear()


def _rendered(name: str, needs: str) -> dict[str, np.ndarray]:
    """Design ``name``'s faces rendered now (skips, naming ``needs``, where its artwork is not installed)."""
    try:
        return cardart._render_design(cardart.design(name))
    except cardart.ArtError:
        pytest.skip(f"needs {needs}")


@pytest.mark.skipif(not shutil.which("rsvg-convert"), reason="needs librsvg2-bin")
def test_a_kde_deck_renders_every_card_with_its_indices() -> None:
    # KDE's sprite ids are rank_suit ("king_heart", "1_spade"), GNOME's suit_rank
    faces = _rendered("kde:standard", "kdegames-card-data-kf5")
    assert set(CARDS[:-1]) <= set(faces)
    index = cardart.design_indices(faces)
    h = cardart.FACE_HEIGHT
    for card in CARDS[:-1]:
        assert faces[card].shape[0] == h
        assert len(index[card]) == 2, card
        _, y1, x2, y2 = index[card][0]
        assert x2 < 0.3 * faces[card].shape[1] and 0.12 * h < y2 - y1 < 0.35 * h, (card, index[card])
    assert not np.array_equal(faces["KH"], faces["KS"]) and not np.array_equal(faces["AS"], faces["AC"])


def test_kde_decks_train_and_the_paris_pattern_stays_held_out() -> None:
    kde = [d for d in DESIGNS if d.source == "kde"]
    assert kde and all(d.split == "train" for d in kde)
    assert not any("paris" in d.name for d in kde)


def test_a_jumbo_index_deck_gets_whole_index_boxes() -> None:
    # react-playing-cards' "bf" decks print a rank a quarter of the card tall: the ordinary corner search missed
    # 49 of 53 and the outlier repair then gave every card the "1" of a "10" as its index
    faces = _rendered("npm:react-playing-cards/2color-bf", "the npm decks (./dev test installs them)")
    index = cardart.design_indices(faces)
    h, w = faces["7D"].shape[:2]
    for card in ("7D", "KS", "10C", "AH"):
        assert len(index[card]) == 2, card
        x1, y1, x2, y2 = index[card][0]
        assert 0.33 * h < y2 - y1 < 0.45 * h and 0.15 * w < x2 - x1 < 0.25 * w, (card, index[card])


@pytest.mark.skipif(not shutil.which("rsvg-convert"), reason="needs librsvg2-bin")
def test_an_index_box_holds_the_suit_even_where_it_sits_apart() -> None:
    # the Paris theme prints its clubs and its king's spade further below the rank than the search's gap:
    # the search found the rank alone, and a crop of the rank alone cannot tell a club from a spade
    index = cardart.design_indices(_rendered("gnome:paris", "gnome-cards-data"))
    heights = sorted(boxes[0][3] - boxes[0][1] for card, boxes in index.items() if boxes and card != "JK")
    usual = heights[len(heights) // 2]
    for card in ("8C", "KS", "10C", "8H"):
        top, bottom = index[card][0][1], index[card][0][3]
        assert bottom - top >= 0.8 * usual, (card, index[card][0], usual)


@pytest.mark.skipif(not shutil.which("rsvg-convert"), reason="needs librsvg2-bin")
@pytest.mark.parametrize("name", ["gnome:ornamental", "gnome:tango"])
def test_an_index_box_holds_a_suit_as_large_as_its_rank(name: str) -> None:
    # these themes print the corner's suit as large as the rank, a quarter of the rank's height below it and
    # reaching past the search's window: the search found the rank alone, and crops of the rank alone left the
    # classifier to guess clubs from spades (validation scenes: 0.73 and 0.78 of their indices named right)
    faces = _rendered(name, "gnome-cards-data")
    index = cardart.design_indices(faces)
    h = cardart.FACE_HEIGHT
    for card in ("9H", "AS", "10C", "QD", "4S"):
        for x1, y1, x2, y2 in index[card][:2]:
            assert 0.25 * h < y2 - y1 < 0.45 * h, (card, index[card])
            ink = faces[card][int((y1 + y2) / 2) : int(y2), int(x1) : int(x2), 3] > 128
            assert ink.any(), card


def test_a_cache_labelled_by_an_older_corner_search_is_labelled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    import cv2

    monkeypatch.setenv("TABLECALL_DATA", str(tmp_path))
    folder = tmp_path / "faces" / "gnome_tango"
    folder.mkdir(parents=True)
    faces = {card: procedural_face(3, card).image for card in CARDS}
    for card, image in faces.items():
        cv2.imwrite(str(folder / f"{card}.png"), cv2.cvtColor(image, cv2.COLOR_RGBA2BGRA))
    (folder / "index.json").write_text(json.dumps({card: [[0, 0, 5, 5]] for card in CARDS}))
    assert cardart.prepare(cardart.design("gnome:tango")) == folder  # no rendering: the PNGs are kept
    index = json.loads((folder / "index.json").read_text())
    assert index == json.loads(json.dumps(cardart.design_indices(faces)))
    assert (folder / "index.version").read_text() == cardart.INDEX_VERSION
    (folder / "index.json").write_text(json.dumps({card: [[0, 0, 5, 5]] for card in CARDS}))
    cardart.prepare(cardart.design("gnome:tango"))  # labelled by this search: left as it is
    assert json.loads((folder / "index.json").read_text())["AS"] == [[0, 0, 5, 5]]


def _rendered_procedurally(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """``gnome:tango`` "rendered" as procedural faces (quick: the cache's handling is what is looked at) into a cache
    under ``tmp_path``; its cache folder."""
    faces = {card: procedural_face(3, card).image for card in CARDS}
    monkeypatch.setenv("TABLECALL_DATA", str(tmp_path))
    monkeypatch.setattr(cardart, "_render_design", lambda item: faces)
    return tmp_path / "faces" / "gnome_tango"


def _whole(folder: Path) -> bool:
    import cv2

    return (folder / "index.json").exists() and all(cv2.imread(str(folder / f"{c}.png")) is not None for c in CARDS)


def test_a_design_s_cache_folder_appears_only_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process (a second command, the test run's other worker) that finds a design's folder reads every face
    of it: the faces were written into the cache folder itself, index.json last, and a second render of the same
    design wrote its PNGs again under the first one's readers."""
    import cv2

    folder = _rendered_procedurally(monkeypatch, tmp_path)
    there_while_written: list[bool] = []
    imwrite = cv2.imwrite

    def write(path: str, image: np.ndarray) -> bool:
        there_while_written.append(folder.exists())
        return bool(imwrite(path, image))

    monkeypatch.setattr(cardart.cv2, "imwrite", write)
    assert cardart.prepare(cardart.design("gnome:tango")) == folder
    assert len(there_while_written) == len(CARDS) and not any(there_while_written)
    assert _whole(folder) and [p.name for p in folder.parent.iterdir()] == ["gnome_tango"]  # nothing left beside it
    assert folder.stat().st_mode & 0o777 == 0o755  # readable by all, as a folder made in place was


def test_a_cache_folder_left_half_written_is_rendered_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _rendered_procedurally(monkeypatch, tmp_path)
    folder.mkdir(parents=True)
    (folder / "AS.png").write_bytes(b"\x89PNG cut short")  # a render stopped before index.json was written
    assert cardart.prepare(cardart.design("gnome:tango")) == folder
    assert _whole(folder) and [p.name for p in folder.parent.iterdir()] == ["gnome_tango"]


@pytest.mark.parametrize("force", [False, True], ids=["kept", "forced"])
def test_a_design_cached_meanwhile_by_another(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, force: bool) -> None:
    """Two commands render one design at once: the second to finish keeps the first one's folder (the same faces),
    unless told to render it again; either way nothing is left beside it."""
    folder = _rendered_procedurally(monkeypatch, tmp_path)
    faces = cardart._render_design(cardart.design("gnome:tango"))

    def render_while_another_publishes(item: cardart.Design) -> dict[str, np.ndarray]:
        other = tmp_path / "other"
        other.mkdir()
        folder.parent.mkdir(exist_ok=True)
        (other / "index.json").write_text("{}")
        (other / "theirs").write_text("")
        other.rename(folder)
        return faces

    monkeypatch.setattr(cardart, "_render_design", render_while_another_publishes)
    cardart.prepare(cardart.design("gnome:tango"), force=force)
    assert (folder / "theirs").exists() != force and (force == _whole(folder))
    assert [p.name for p in folder.parent.iterdir()] == ["gnome_tango"]


def test_unknown_design_and_card_are_refused() -> None:
    with pytest.raises(cardart.ArtError, match="no card design"):
        cardart.design("gnome:nope")
    with pytest.raises(cardart.ArtError, match="not a card name"):
        cardart.face("proc:1", "1X")


def _plain_crop(sheet: Path, sprite: str, zoom: str) -> np.ndarray:
    """The sprite as the one plain call renders it, cropped to its opaque part."""
    return cardart._crop_alpha(cardart._rsvg(["-z", zoom, "-i", sprite, str(sheet)]))


def _page_crop(sheet: Path, sprite: str, zoom: str) -> tuple[np.ndarray, list[list[str]]]:
    """The sprite as :func:`cardart._render_sprite` renders it, cropped, and the PNG calls that took."""
    calls: list[list[str]] = []
    real = cardart._rsvg

    def counted(args: list[str]) -> np.ndarray:
        calls.append(args)
        return real(args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cardart, "_rsvg", counted)
        image = cardart._crop_alpha(cardart._render_sprite(sheet, sprite, zoom))
    return image, calls


def _page_width(calls: list[list[str]]) -> int | None:
    widths = [int(arg.split("=")[1].rstrip("px")) for arg in calls[-1] if arg.startswith("--page-width=")]
    return widths[0] if widths else None


@pytest.mark.skipif(not shutil.which("rsvg-convert"), reason="needs librsvg2-bin")
@pytest.mark.parametrize(
    ("theme", "sprites"),
    [("anglo", ("back", "club_1", "heart_king", "spade_queen", "joker_red")), ("anglo_bitmap", ("club_king",))],
)
def test_a_sprite_cut_short_has_the_plain_calls_pixels(tmp_path: Path, theme: str, sprites: tuple[str, ...]) -> None:
    # the plain call's canvas is the box librsvg reckons the sprite fills, for many sprites far wider than the card
    # (anglo's king of hearts: a 200-pixel column of a 5063x945 canvas at zoom 1, 0.7 s): the page is now cut short
    # past the ink, and the cache's faces (the synthetic data, the shipped model's evaluation) must not change.  A
    # page moved to the ink (--left, --top) changed anglo_bitmap's kings by up to 2 levels in 6860 pixels.
    import gzip

    try:
        raw = cardart._gnome_file(theme).read_bytes()
    except cardart.ArtError:
        pytest.skip("needs gnome-cards-data")
    sheet = tmp_path / f"{theme}.svg"
    sheet.write_bytes(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    for sprite in sprites:
        zoom = "1" if sprite == "back" else "1.58730"  # the cache's (the back 315 pixels tall at zoom 1)
        page, calls = _page_crop(sheet, sprite, zoom)
        assert np.array_equal(page, _plain_crop(sheet, sprite, zoom)), sprite
        if sprite.endswith("_king"):  # the card ends at x 2632 of a 5062.5-wide canvas (zoom 1): cut near half way
            canvas = cardart._canvas_size(sheet, sprite, zoom)
            width = _page_width(calls)
            assert canvas is not None and width is not None and width < 0.55 * canvas[0], (calls, canvas)


def _sheet(tmp_path: Path, sprite: str) -> Path:
    sheet = tmp_path / "sheet.svg"
    sheet.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300">'
        f'<rect x="5" y="5" width="50" height="80" fill="#222"/><g id="card">{sprite}</g></svg>'
    )
    return sheet


# a card (tigullio-international's outline) whose canvas ends short of its last row of ink at zoom 5.68182, and a
# transparent speck that makes the canvas 2165 pixels wide
_SPILLS = (
    '<rect width="57.6" x="0.2" y="0.2" rx="3" height="87.6" style="fill:white;stroke:black;stroke-width:0.1"/>'
    '<rect x="380" y="10" width="1" height="10" fill="#fff" fill-opacity="0"/>'
)


@pytest.mark.skipif(not shutil.which("rsvg-convert"), reason="needs librsvg2-bin")
def test_a_page_cut_short_keeps_the_canvas_edge_that_cuts_the_sprite(tmp_path: Path) -> None:
    # the page is cut past the ink on the right; below, the canvas cuts the card's last row, and so must the page
    sheet = _sheet(tmp_path, _SPILLS)
    plain = cardart._rsvg(["-z", "5.68182", "-i", "card", str(sheet)])
    assert plain.shape[:2] == (499, 2165)
    page, calls = _page_crop(sheet, "card", "5.68182")
    width = _page_width(calls)
    assert width is not None and width < 400
    assert np.array_equal(page, _plain_crop(sheet, "card", "5.68182"))


@pytest.mark.skipif(not shutil.which("rsvg-convert"), reason="needs librsvg2-bin")
def test_a_sprite_the_scout_undersized_is_not_cut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a page cut short of the ink (here: a negative margin) must not cut the sprite: ink on the cut edge means the
    # scout missed some, and the plain call is made instead
    sheet = _sheet(tmp_path, _SPILLS)
    monkeypatch.setattr(cardart, "_SCOUT_MARGIN", -3)
    page, calls = _page_crop(sheet, "card", "5.68182")
    assert len(calls) == 3 and _page_width(calls) is None
    assert np.array_equal(page, _plain_crop(sheet, "card", "5.68182"))
