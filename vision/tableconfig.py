"""The table's config file (TOML): the layout of zones, the calibration, the tracking settings, the camera.

Read with :mod:`tomllib`; written by hand (a small, fixed shape: no TOML library needed)::

    # tablecall table config
    source = "0"                     # camera index, video file, stream URL or image folder (optional)
    game = "snap"                    # the layout (vision.zones.Layout.to_toml): game, players, table,
    players = 2                      #   [[seats]], [[markers]], [[zones]]
    ...
    [calibration]                    # absent until the table is calibrated
    method = "aruco"
    image_size = [1280, 720]
    homography = [[...], [...], [...]]   # image px -> table mm
    [tracking]                       # vision.track.TrackSettings (every key optional)
    appear_frames = 3
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from vision.calibrate import Calibration, CalibrationError
from vision.track import TrackSettings
from vision.zones import Layout, LayoutError, default_layout

__all__ = ["ConfigError", "TableConfig", "default_config", "load_config", "save_config", "write_whole"]


class ConfigError(ValueError):
    """A config file that cannot be read or used; the message names the file and what to do."""


@dataclass(frozen=True)
class TableConfig:
    layout: Layout
    calibration: Calibration | None = None
    tracking: TrackSettings = field(default_factory=TrackSettings)
    source: str | None = None

    def with_calibration(self, calibration: Calibration | None) -> TableConfig:
        return replace(self, calibration=calibration)

    def to_toml(self) -> str:
        lines = ["# tablecall table config: written by tablecall (calibrate, zones); safe to edit by hand"]
        if self.source is not None:
            lines.append(f"source = {json.dumps(self.source)}")
        lines.append(self.layout.to_toml().rstrip("\n"))
        if self.calibration is not None:
            lines += ["", "[calibration]"] + [f"{k} = {_value(v)}" for k, v in self.calibration.to_json().items()]
        lines += ["", "[tracking]"] + [
            f"{f.name} = {_value(getattr(self.tracking, f.name))}" for f in fields(self.tracking)
        ]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_toml(cls, text: str) -> TableConfig:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"not valid TOML: {exc}") from None
        # a misspelt section ([trackng], [calibraton]) was dropped without a word: the settings or the calibration lost
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise ConfigError(f"no setting or section {unknown[0]!r} (a config has: {', '.join(sorted(_KEYS))})")
        extra = sorted(set(data.get("calibration") or {}) - _CALIBRATION_KEYS)
        if extra:
            raise ConfigError(
                f"[calibration] has no key {extra[0]!r} (its keys: {', '.join(sorted(_CALIBRATION_KEYS))})"
            )
        try:
            layout = Layout.from_json(data)
        except LayoutError as exc:
            raise ConfigError(str(exc)) from None
        calibration = None
        if "calibration" in data:
            try:
                calibration = Calibration.from_json(data["calibration"])
            except CalibrationError as exc:
                raise ConfigError(str(exc)) from None
        tracking = _tracking(data.get("tracking", {}))
        source = data.get("source")
        if source is not None and not isinstance(source, (str, int)):
            raise ConfigError(f"'source' must be a camera number, a file, a folder or a URL, not {source!r}")
        return cls(layout, calibration, tracking, None if source is None else str(source))


_KEYS = {"source", "game", "players", "table", "seats", "markers", "zones", "calibration", "tracking"}
_CALIBRATION_KEYS = {"method", "image_size", "homography", "error_mm", "markers", "corners"}


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return repr(value)


def _tracking(raw: Any) -> TrackSettings:
    if not isinstance(raw, dict):
        raise ConfigError("[tracking] must be a table of settings")
    known = {f.name: f for f in fields(TrackSettings)}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ConfigError(f"[tracking] has no setting {unknown[0]!r} (settings: {', '.join(known)})")
    try:
        return TrackSettings(**raw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"[tracking]: {exc}") from None


def default_config(game: str, players: int, source: str | None = None) -> TableConfig:
    """A fresh config: the game's default layout (with corner markers), not calibrated yet."""
    try:
        return TableConfig(default_layout(game, players), source=source)
    except LayoutError as exc:
        raise ConfigError(str(exc)) from None


def load_config(path: str | os.PathLike[str]) -> TableConfig:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # Windows Notepad saves a byte-order mark
    except FileNotFoundError:
        raise ConfigError(f"{path}: no table config here yet (tablecall calibrate writes one)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it ({exc})") from None
    try:
        return TableConfig.from_toml(text)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def save_config(path: str | os.PathLike[str], config: TableConfig) -> Path:
    """Write ``config`` (atomically: a half-written file never replaces a good one)."""
    path = Path(path)
    text = config.to_toml()
    TableConfig.from_toml(text)  # what we write must read back
    return write_whole(path, text)


def write_whole(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` (its folder made) in one go: beside it, then renamed over it, so a file read at
    any moment, or left by a crash, is the old text or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)
    return path
