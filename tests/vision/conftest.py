"""Fixtures shared by the card reader's tests: rendered held-out scenes (test_evaluate, test_stages)."""

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
