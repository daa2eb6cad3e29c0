"""The annotated camera view's text: what OpenCV's font cannot draw."""

from __future__ import annotations

import numpy as np

from vision import annotate
from vision.calibrate import Calibration
from vision.detections import Detection, Detections
from vision.track import Flag, TableState, Update
from vision.zones import default_layout


def test_names_the_font_cannot_draw_are_not_rows_of_question_marks() -> None:
    """OpenCV's Hershey font draws "?" for every code point it lacks: a Burmese name in a ruling was a row of
    question marks on the camera view (a Burmese game-night audit, session 35). Accents are dropped instead."""
    assert annotate.drawable("Auction! ကိုအောင် drew *#: မမြင့် bids first") == "Auction! ... drew *#: ... bids first"
    assert annotate.drawable("José and Zoë") == "Jose and Zoe"
    image = np.zeros((360, 640, 3), np.uint8)
    layout = default_layout("snap", 2)

    def drawn(alert: str) -> np.ndarray:
        return annotate.draw(image, None, layout, alerts=[alert], status=[f"camera: {alert}"])

    assert np.array_equal(drawn("ကိုအောင် called Snap!"), drawn("... called Snap!"))
    assert not np.array_equal(drawn("ကိုအောင် called Snap!"), drawn("?????????? called Snap!"))


def near(picture: np.ndarray, colour: tuple[int, int, int], tolerance: int = 40) -> np.ndarray:
    """The (y, x) of each pixel within ``tolerance`` of ``colour`` in every channel."""
    return np.argwhere((np.abs(picture.astype(int) - colour) <= tolerance).all(axis=2))


def test_zones_are_drawn_where_they_are_on_a_camera_of_another_size_flagged_ones_red() -> None:
    """The corners were clicked on 1280 x 720 frames; the camera now gives 640 x 360. Each zone is outlined where it
    lies in the smaller picture (scaled as height by width, the outlines lay elsewhere), a zone with an impossible
    table in red, and a zone where a card is being read is named so in amber, not one a hand moves over."""
    layout = default_layout("snap", 2)
    calibration = Calibration(np.diag([1000 / 1280, 700 / 720, 1.0]), (1280, 720), "corners")  # px -> mm
    flag = Flag("duplicate_card", "7H is seen twice", "7H", ("pot",))
    update = Update(0, TableState(), frozen=("face_up/0",), unsettled=("face_up/1",))
    drawn = annotate.draw(np.zeros((360, 640, 3), np.uint8), calibration, layout, None, update, [flag])
    to_px = np.array([640 / 1000, 360 / 700])  # table mm -> px of this picture
    pot = np.array(layout.zone("pot").polygon) * to_px
    for a, b in zip(pot, np.roll(pot, 1, axis=0), strict=True):  # each side's middle is red
        x, y = np.round((a + b) / 2).astype(int)
        assert len(near(drawn[y - 1 : y + 2, x - 1 : x + 2], annotate.FLAG)), (x, y)
    x0, y0 = (np.array(layout.zone("face_up/1").polygon) * to_px).min(axis=0)
    amber = near(drawn, annotate.SETTLING)
    assert len(amber) > 20  # "face_up/1 reading..." at that zone's top left, and nothing else amber
    assert (amber[:, 1] >= x0).all() and (amber[:, 1] <= x0 + 160).all()
    assert (amber[:, 0] >= y0).all() and (amber[:, 0] <= y0 + 20).all()


def test_a_detection_is_boxed_where_it_is_and_alerts_are_at_the_bottom() -> None:
    """A card's box is drawn round it (its corners taken as x, y, not y, x); the referee's alerts are on a band at
    the bottom of the picture, the pipeline's status at the top."""
    white = np.full((360, 640, 3), 255, np.uint8)
    det = Detections.from_records([Detection("7H", 0.9, (100, 200, 180, 230))])
    drawn = annotate.draw(white, None, default_layout("snap", 2), det, alerts=["Snap! 7H 7D"])
    for x, y in ((140, 230), (180, 215), (100, 215)):  # its bottom, right and left sides' middles
        assert tuple(drawn[y, x]) == annotate.BOX, (x, y)
    assert (drawn[-1] == int(255 * 0.45)).all() and (drawn[0] == 255).all()  # shaded at the bottom only


def test_the_part_of_the_frame_not_read_is_dimmed_and_the_rest_left_as_it_is() -> None:
    """The detector reads only the region round the zones (x1, y1, x2, y2): outside it the picture is dimmed, so
    the host sees where cards are not read (the region's left and top taken one for the other, the picture was
    dimmed over the cards read and bright where nothing is)."""
    white = np.full((360, 640, 3), 255, np.uint8)
    drawn = annotate.draw(white, None, default_layout("snap", 2), region=(100.0, 20.0, 300.0, 200.0))
    assert (drawn[20:200, 100:300] == 255).all()
    assert (drawn[:20] == 127).all() and (drawn[200:] == 127).all()
    assert (drawn[:, :100] == 127).all() and (drawn[:, 300:] == 127).all()
