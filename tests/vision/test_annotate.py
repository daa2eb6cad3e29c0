"""The annotated camera view's text: what OpenCV's font cannot draw."""

from __future__ import annotations

import numpy as np

from vision import annotate
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
