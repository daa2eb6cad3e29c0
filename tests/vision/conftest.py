"""Fixtures shared by the card reader's tests: rendered held-out scenes (test_evaluate, test_stages), the training
designs' face cache (test_commands, test_facecards)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three rendered held-out scenes of procedural designs, with their labels."""
    pytest.importorskip("cv2")
    from vision.dataset import write_dataset
    from vision.synth import DesignPool

    out = tmp_path_factory.mktemp("heldout")
    write_dataset(out, scenes=3, seed=6, pool=DesignPool((), proc_share=1.0), heldout=True, progress=False)
    return out / "scenes"


@pytest.fixture(scope="session")
def training_art() -> None:
    """The training artwork designs' faces in the cache (``data/faces``), rendered once for the whole run: on a
    fresh checkout that takes a minute or two, which a test timing something else should not wait out (the Ctrl-C
    test sent its signal while synth was still rendering the artwork, not its scenes, and the face-set test then
    rendered the designs again)."""
    pytest.importorskip("cv2")
    from vision.cardart import design, prepare
    from vision.dataset import default_pool

    for name in default_pool().artwork:
        prepare(design(name))
