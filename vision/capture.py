"""Frames from a camera, a video file, a stream URL or a folder of images: always the newest one.

:class:`Capture` reads its source on its own thread and keeps only the latest frame, so whoever processes
frames never falls behind: a slow consumer simply skips frames. ``lossless=True`` instead makes the reader wait
for the consumer, so every frame of a file is processed: as fast as the consumer goes (tests and offline runs), or,
with ``realtime=True`` as well, **paced**: never sooner than its time in real time, and when the consumer falls
behind the video waits for it (a recorded game on a busy laptop is read card by card, only more slowly, where
skipping frames would miss cards). Each :class:`Frame` has its number, ``pos_ms`` (time in the video, or since the
camera or stream was first opened: it goes on across reopens), ``wall_ms`` (the wall clock when it was captured; for
files: when it is shown in real time, later by as long as a paced video has waited for its consumer) and, for a
camera or stream, ``away_ms``: the longest time the source gave no picture since the frame taken before it (a
phone's stream that stalled or reconnected), which a slow consumer skipping frames does not add to.

A camera or stream that fails is reported (:attr:`Capture.status`: ``lost`` with a message a person can act
on) and reopened with exponential backoff until it comes back; a video file or folder that cannot be read is
reported once (``failed``); the end of a file is ``ended``. The :class:`Source` spec is parsed from text:

* ``0``, ``1``, ...: a webcam index;
* ``rtsp://``, ``http://``, ``https://`` ...: a stream (RTSP, HTTP MJPEG from a phone camera app);
* a folder: its images in name order (``.jpg .jpeg .png .bmp .webp``), at ``fps`` frames a second;
* anything else: a video file.
"""

from __future__ import annotations

import base64
import http.client
import logging
import ssl
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import cv2
import numpy as np

from vision.clock import wall
from vision.urls import shown_url

__all__ = [
    "Capture",
    "CaptureStatus",
    "Frame",
    "Source",
    "SourceError",
    "blank",
    "image_files",
    "open_reader",
    "read_image",
]

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".heic", ".heif")  # HEIC: what iPhones save photos as
STREAM_PREFIXES = ("rtsp://", "rtsps://", "http://", "https://", "rtmp://", "udp://", "tcp://")


def image_files(folder: Path) -> list[Path]:
    """The image files of ``folder`` (by their suffix, ``IMAGE_SUFFIXES``), in name order."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())


def read_image(path: str | Path) -> np.ndarray | None:
    """An image file as a BGR uint8 picture, turned as a viewer shows it, or None when it is not a picture: what
    OpenCV reads (JPEGs by their EXIF orientation), and the HEIC/HEIF photos iPhones take (pillow-heif; libheif
    turns them as the phone was held)."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is not None:
        return np.asarray(image)
    try:
        import pillow_heif
    except ImportError:
        return None
    try:
        if not Path(path).is_file() or not pillow_heif.is_supported(str(path)):
            return None
        pixels = np.asarray(pillow_heif.open_heif(str(path), convert_hdr_to_8bit=True))
    except (OSError, ValueError, RuntimeError):  # a damaged file
        return None
    if pixels.ndim == 2:
        return np.ascontiguousarray(cv2.cvtColor(pixels, cv2.COLOR_GRAY2BGR))
    return np.ascontiguousarray(pixels[:, :, 2::-1])  # RGB or RGBA to BGR


#: a picture whose grey levels (0-255) spread less than this (their standard deviation) shows nothing: what a
#: webcam gives for its first moments while its exposure settles (black, or one flat colour, or white). Kept low: a
#: camera's picture of a table, however plain and dark, has its noise at least (the simulator's flattest tables
#: through its camera: 2.6), and a card on a black cloth is anything but flat
BLANK_SPREAD = 2.0


def _grey_sample(image: np.ndarray) -> np.ndarray:
    """Every 8th pixel each way of ``image`` (BGR or grey), in grey."""
    small = image[::8, ::8]
    return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small


def blank(image: np.ndarray) -> bool:
    """Whether ``image`` (BGR or grey) shows nothing: its grey levels spread less than :data:`BLANK_SPREAD` (read on
    every 8th pixel each way)."""
    return bool(_grey_sample(image).std() < BLANK_SPREAD)


class SourceError(ValueError):
    """A source that cannot be opened or read; the message says what to check."""


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # BGR, uint8
    index: int  # 0, 1, 2, ... in the order read (frames skipped by a slow consumer still count)
    pos_ms: int  # time in the video, or since the camera or stream was first opened
    wall_ms: int  # wall-clock time of capture (files: when the frame is due in real time)
    away_ms: int = 0  # a camera or stream: the longest wait for a picture since the frame taken before this one

    @property
    def size(self) -> tuple[int, int]:
        return int(self.image.shape[1]), int(self.image.shape[0])


@dataclass(frozen=True)
class Source:
    """Where frames come from: ``kind`` is ``camera``, ``stream``, ``folder`` or ``file``."""

    kind: str
    target: str
    fps: float = 0.0  # folders: frames a second (0: 2 fps); files: 0 means the file's own rate

    @classmethod
    def parse(cls, spec: str | int, fps: float = 0.0) -> Source:
        text = str(spec).strip()
        if not text:
            raise SourceError("no video source given: a camera number (0), a video file, a folder or a URL")
        if text.isdecimal():
            return cls("camera", text, fps)
        if text.lower().startswith(STREAM_PREFIXES):
            return cls("stream", text, fps)
        if Path(text).is_dir():
            return cls("folder", text, fps)
        return cls("file", text, fps)

    @property
    def live(self) -> bool:
        """A camera or stream: lost when it fails, reopened when it comes back."""
        return self.kind in ("camera", "stream")

    def describe(self) -> str:
        """The source's name in every message, status and log line (a stream's password hidden: :mod:`vision.urls`)."""
        return {"camera": f"camera {self.target}", "stream": f"stream {shown_url(self.target)}"}.get(
            self.kind, f"{self.kind} {self.target}"
        )


@dataclass(frozen=True)
class CaptureStatus:
    """``state``: ``starting``, ``running``, ``lost`` (reconnecting), ``failed``, ``ended`` or ``stopped``."""

    state: str
    message: str
    source: str
    frames: int = 0
    retries: int = 0
    since: float = 0.0  # wall time (s) of the last state change

    @property
    def ok(self) -> bool:
        return self.state == "running"

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "message": self.message,
            "source": self.source,
            "frames": self.frames,
            "retries": self.retries,
        }


class Reader:
    """One opened source: ``read()`` gives the next image, or None at the end; raises SourceError on failure."""

    fps: float = 0.0

    def read(self) -> np.ndarray | None:
        raise NotImplementedError

    def close(self) -> None:
        pass


class _VideoReader(Reader):
    def __init__(self, source: Source, timeout_ms: int) -> None:
        self.source = source
        if source.kind == "camera":
            self.cap = cv2.VideoCapture(int(source.target))
            self.cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        elif source.kind == "stream":
            params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, timeout_ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, timeout_ms]
            self.cap = cv2.VideoCapture(source.target, cv2.CAP_FFMPEG, params)
        else:
            path = Path(source.target)
            if not path.exists():
                raise SourceError(f"video file {source.target}: no such file")
            if not path.is_file():
                raise SourceError(f"{source.target}: not a video file")
            self.cap = cv2.VideoCapture(str(path))
        if not self.cap.isOpened():
            self.cap.release()
            raise SourceError(_cannot_open(source))
        rate = float(self.cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = source.fps or (rate if 1 <= rate <= 240 else 0.0)
        self.first = True
        # how many frames the file says it holds (0: unknown), to tell a damaged file from a finished one
        self.expected = int(self.cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0) if source.kind == "file" else 0

    def read(self) -> np.ndarray | None:
        ok, image = self.cap.read()
        if not ok or image is None:
            if self.source.kind == "file":
                if self.first:
                    raise SourceError(f"video file {self.source.target}: OpenCV opened it but cannot decode a frame")
                return None
            raise SourceError(f"{self.source.describe()} stopped sending pictures")
        self.first = False
        return np.asarray(image)

    def close(self) -> None:
        self.cap.release()


def _cannot_open(source: Source) -> str:
    if source.kind == "camera":
        return f"camera {source.target} cannot be opened: is it plugged in, and not in use by another program?"
    if source.kind == "stream":
        return (
            f"{source.describe()} cannot be opened: is the phone's camera app running, on the same Wi-Fi, "
            "and is the address right?"
        )
    return f"video file {source.target} cannot be read: not a video OpenCV can decode"


MJPEG = "multipart/x-mixed-replace"
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # a camera on the table's Wi-Fi: no proxy
BAD_PARTS = 30  # parts in a row that are no picture before an MJPEG stream counts as broken
PART_BYTES = 16 << 20  # an MJPEG part, or what comes before its boundary, longer than this: no picture is there


def _ask_http(source: Source, timeout_ms: int) -> tuple[Any, str | None]:
    """Ask an http(s) stream's address for its video: (the open response, None) where it answers with one, else
    (None, what a person can put right): nothing there or too slow, a login asked for or refused, the camera app's
    web page, one picture, nothing at that path. (None, None) where urllib cannot ask (OpenCV then tries).
    OpenCV only said that it could not open it, and opened one picture as a video that stopped at once (the phone-
    camera audit, session 44: each of these was told to check the phone's Wi-Fi, and /shot.jpg was "ready")."""
    parts = urlsplit(source.target)
    shown = source.describe()
    host = parts.netloc.rsplit("@", 1)[-1]
    try:
        request = urllib.request.Request(urlunsplit(parts._replace(netloc=host)), headers={"User-Agent": "tablecall"})
    except ValueError:
        return None, None
    login = parts.username is not None
    if login:
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        request.add_header("Authorization", "Basic " + base64.b64encode(pair.encode()).decode())
    try:
        response = NO_PROXY.open(request, timeout=timeout_ms / 1000)
    except urllib.error.HTTPError as exc:
        exc.close()
        challenge = str(exc.headers.get("WWW-Authenticate") or "").strip().lower()
        if exc.code == 401 and challenge and not challenge.startswith("basic"):
            return None, None  # Digest (many IP cameras): OpenCV's FFmpeg logs in so (the review of session 44)
        if exc.code in (401, 403) and login:
            return (
                None,
                f"{shown}: the camera refused its user name or password: check them in the camera app's settings",
            )
        if exc.code in (401, 403):
            return None, (
                f"{shown} asks for a user name and password: put them in the address, "
                f"{parts.scheme}://USER:PASSWORD@{host}{parts.path}"
            )
        if exc.code == 404:
            where = parts.path or "/"
            return (
                None,
                f"{shown}: the camera has nothing at {where} (404): IP Webcam's and DroidCam's video is at /video",
            )
        return None, f"{shown} answered {exc.code} {exc.reason}: is the address right?"
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, ssl.SSLError):  # a phone app's own certificate
            return None, f"{shown} uses https with a certificate that cannot be checked: use the app's http:// address"
        return None, _cannot_open(source)
    except (OSError, http.client.HTTPException):  # refused, silent, too slow, not HTTP
        return None, _cannot_open(source)
    except ValueError:
        return None, None
    kind = response.headers.get_content_type()
    if kind in ("text/html", "text/plain") or kind.startswith("image/"):
        response.close()
        if kind.startswith("image/"):
            return (
                None,
                f"{shown} gives one picture, not a video: use the camera app's video address (IP Webcam: /video)",
            )
        return None, (
            f"{shown} is a web page, not a video: a phone camera app's video is at another address "
            "(IP Webcam: http://PHONE:8080/video, DroidCam: http://PHONE:4747/video)"
        )
    return response, None


class _MjpegReader(Reader):
    """An HTTP MJPEG stream (``multipart/x-mixed-replace`` of JPEG pictures: IP Webcam, DroidCam and most phone camera
    apps), read here rather than by OpenCV, whose FFmpeg reader keeps the first picture's size for the whole connection:
    a phone turned to portrait gave the table squashed 3:1, read as no card at all while the status said "receiving
    1280x720 pictures" (the phone-camera audit, session 44). Each picture comes at its own size; one that cannot be
    decoded is skipped (``BAD_PARTS`` in a row: the stream is broken)."""

    def __init__(self, source: Source, response: Any) -> None:
        self.source, self.response = source, response
        # the parts' lines are "--" and the boundary; some apps name it with those dashes already, some not at all
        # (then the parts' own is taken, below)
        named = str(response.headers.get_param("boundary") or "").strip('"').lstrip("-")
        self.boundary = named.encode("latin-1", "replace")
        self._pending = b""  # a boundary line read already (a part without a length ends at it)
        self._pictures = 0

    def read(self) -> np.ndarray | None:
        for _ in range(BAD_PARTS):
            try:
                data = self._part()
            except SourceError:
                raise
            except (OSError, http.client.HTTPException, ValueError):  # silent past the timeout, or cut off
                raise SourceError(f"{self.source.describe()} stopped sending pictures") from None
            if data is None:
                raise SourceError(f"{self.source.describe()} stopped sending pictures")
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
            if image is not None:
                self._pictures += 1
                return np.asarray(image)
        raise SourceError(f"{self.source.describe()} sends no picture that can be decoded")

    def _part(self) -> bytes | None:
        """The next part's body (b"" for a part without one); None at the end of the stream."""
        line, self._pending, skipped = self._pending or self.response.readline(4096), b"", 0
        while line and not self._at_boundary(line):  # the boundary, after the last part's trailing line
            if not self._pictures and line.startswith(b"--") and line.strip(b"-\r\n"):
                # before any picture, a boundary other than the one its header names: some apps' boundaries differ
                # from their header's, and OpenCV's FFmpeg took theirs (it waited for the header's for ever: the
                # review of session 44)
                self.boundary = line.strip().lstrip(b"-")
                break
            skipped += len(line)
            if skipped > PART_BYTES:
                raise SourceError(f"{self.source.describe()} sends no picture tablecall can find in what it sends")
            line = self.response.readline(4096)
        if not line:
            return None
        length = None
        while (line := self.response.readline(4096)) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length" and value.strip().isdecimal():
                length = int(value)
        if not line:
            return None
        if length is not None and length > PART_BYTES:
            raise SourceError(f"{self.source.describe()} sends a picture of {length} bytes: not a camera's")
        if length is not None:
            return bytes(self.response.read(length))
        body = bytearray()  # no length given: up to the next boundary, which is then read again by the next call
        while (line := self.response.readline(1 << 16)) and not self._at_boundary(line):
            body += line
            if len(body) > PART_BYTES:  # no boundary after it: it grew for ever (the review of session 44)
                raise SourceError(f"{self.source.describe()} sends no picture tablecall can find in what it sends")
        self._pending = line
        return bytes(body)

    def _at_boundary(self, line: bytes) -> bool:
        return bool(self.boundary) and line.startswith(b"--") and line.lstrip(b"-").startswith(self.boundary)

    def close(self) -> None:
        self.response.close()


class _FolderReader(Reader):
    def __init__(self, source: Source) -> None:
        folder = Path(source.target)
        self.files = image_files(folder)
        if not self.files:
            raise SourceError(f"folder {folder} has no images ({', '.join(IMAGE_SUFFIXES)})")
        self.fps = source.fps or 2.0
        self._next = 0

    def read(self) -> np.ndarray | None:
        while self._next < len(self.files):
            path = self.files[self._next]
            self._next += 1
            image = read_image(path)
            if image is not None:
                return image
            log.warning("skipping %s: not an image OpenCV or pillow-heif can read", path)
        return None


def open_reader(source: Source, timeout_ms: int = 4000) -> Reader:
    """Open ``source``; raises SourceError with a message a person can act on. An http(s) stream is asked first what
    it sends: MJPEG is read by :class:`_MjpegReader`, other video (an MP4, HLS) by OpenCV."""
    if source.kind == "folder":
        return _FolderReader(source)
    if source.kind == "stream" and urlsplit(source.target).scheme.lower() in ("http", "https"):
        response, trouble = _ask_http(source, timeout_ms)
        if trouble is not None:
            raise SourceError(trouble)
        if response is not None and response.headers.get_content_type() == MJPEG:  # its boundary named or not
            return _MjpegReader(source, response)
        if response is not None:
            response.close()
    return _VideoReader(source, timeout_ms)


def probe(spec: str | int, timeout_ms: int = 4000) -> str | None:
    """Whether a source gives pictures now: None if it opens (it is closed again at once), else why not (a file
    that is not a video, a folder without images, a webcam or stream that does not answer). A camera plugged in
    later is opened by the capture all the same."""
    try:
        source = Source.parse(spec)
        reader = open_reader(source, timeout_ms)
        try:
            if not source.live and reader.read() is None:  # a file must give a first picture, not only open
                return f"{source.describe()}: no picture in it"
        finally:
            reader.close()
    except SourceError as exc:
        return str(exc)
    return None


class Capture:
    """Reads ``source`` on a thread; :meth:`next` gives the newest frame (see the module docstring)."""

    def __init__(
        self,
        source: Source | str | int,
        *,
        lossless: bool = False,
        realtime: bool | None = None,
        backoff: tuple[float, float] = (0.5, 8.0),
        opener: Callable[[Source], Reader] | None = None,
        clock: Callable[[], float] = wall,
    ) -> None:
        self.source = source if isinstance(source, Source) else Source.parse(source)
        self.lossless = lossless
        self.realtime = not lossless if realtime is None else realtime  # lossless and realtime: paced
        self.backoff = backoff
        self.opener = opener or open_reader
        self.clock = clock
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._taken = -1
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._index = 0  # the next frame's number
        self._origin: float | None = None  # when a camera or stream was first opened (its frames' pos_ms count from it)
        self._last_picture: float | None = None  # when a camera or stream last gave a picture (across reopens)
        self._away_ms = 0.0  # the longest wait for a picture since the consumer last took a frame
        self._status = CaptureStatus("starting", f"opening {self.source.describe()}", self.source.describe())
        self.attempts = 0
        self.last_error: str | None = None  # why the source last failed to open or read (without the retry note)

    # -- consumer side ------------------------------------------------------------------------------------
    @property
    def status(self) -> CaptureStatus:
        with self._cond:
            return self._status

    def start(self) -> Capture:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"capture {self.source.describe()}", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
        if self.status.state not in ("failed", "ended"):
            self._set("stopped", "capture stopped")

    def next(self, timeout: float = 1.0) -> Frame | None:
        """The newest frame not yet taken (waits up to ``timeout`` s); None if there is none (see :attr:`status`)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._latest is None or self._latest.index <= self._taken:
                left = deadline - time.monotonic()
                if left <= 0 or self._status.state in ("failed", "ended", "stopped"):
                    return None
                self._cond.wait(left)
            frame = self._latest
            self._taken = frame.index
            self._away_ms = 0.0
            self._cond.notify_all()
            return frame

    def silent_s(self) -> float:
        """How long a camera or stream that is running has given no picture (0 for a file or folder): a phone's
        stream that stalls stays ``running`` until its read times out (4 s), its last picture standing."""
        with self._cond:
            last, state = self._last_picture, self._status.state
        if not self.source.live or last is None or state != "running":
            return 0.0
        return max(0.0, self.clock() - last)

    def frames(self, timeout: float = 5.0) -> Iterator[Frame]:
        """Every frame :meth:`next` gives, until the source ends, fails, stops, or is silent for ``timeout`` s."""
        while (frame := self.next(timeout)) is not None:
            yield frame

    # -- reader thread ------------------------------------------------------------------------------------
    def _set(self, state: str, message: str) -> None:
        with self._cond:
            old = self._status
            if (old.state, old.message) != (state, message):
                level = logging.WARNING if state in ("lost", "failed") else logging.INFO
                log.log(level, "%s: %s", self.source.describe(), message)
            since = old.since if old.state == state else self.clock()
            self._status = CaptureStatus(
                state, message, old.source, old.frames, self.attempts - 1 if self.attempts else 0, since
            )
            self._cond.notify_all()

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            self.attempts += 1
            before = self._index
            try:
                reader = self.opener(self.source)
                try:
                    ended = self._pump(reader)
                finally:
                    reader.close()
            except Exception as error:  # not only SourceError: a decoder's surprise must not leave a dead camera
                exc = error if isinstance(error, SourceError) else self._unexpected(error)
                self.last_error = str(exc)
                if not self.source.live:
                    self._set("failed", str(exc))
                    return
                if self._index > before:  # it worked for a while: start the backoff afresh
                    delay = self.backoff[0]
                self._set("lost", f"{exc} (trying again in {delay:.1f} s)")
                if self._stop.wait(delay):
                    break
                delay = min(delay * 2, self.backoff[1])
                continue
            if ended:
                expected = int(getattr(reader, "expected", 0) or 0)
                if expected and self._index < min(expected - 5, 0.95 * expected):
                    message = (
                        f"the end of {self.source.describe()} after {self._index} of its {expected} frames: "
                        "the rest cannot be read (is the file damaged, or still being copied?)"
                    )
                    log.warning("%s", message)
                    self._set("ended", message)
                else:
                    self._set("ended", f"the end of {self.source.describe()} ({self._index} frames)")
                return
        self._set("stopped", "capture stopped")

    def _unexpected(self, error: Exception) -> SourceError:
        """What an error no reader expected says on the dashboard (its traceback goes to the log)."""
        log.error("%s: unexpected error while reading", self.source.describe(), exc_info=error)
        return SourceError(
            f"{self.source.describe()}: unexpected error while reading ({error.__class__.__name__}: {error})"
        )

    def _pump(self, reader: Reader) -> bool:
        """Read until the end (True), a stop (False) or a failure (raises). Frame numbers go on across reopens."""
        opened = self.clock()
        if self._origin is None:
            self._origin = opened
        first = True
        period = 1.0 / reader.fps if reader.fps else 0.0
        count = 0
        while not self._stop.is_set():
            image = reader.read()
            if image is None:
                return True
            if first:
                self._set("running", f"receiving {image.shape[1]}x{image.shape[0]} pictures")
                first = False
            if self.source.live:  # its time goes on across reopens: a game's events were stamped back to 0
                wall = self.clock()
                pos = (wall - self._origin) * 1000
            elif not period:
                wall = self.clock()
                pos = (wall - opened) * 1000
            else:
                pos = count * period * 1000
                wall = opened + count * period
                if self.realtime and self.lossless:
                    self._wait_for_consumer()
                    if (late := self.clock() - wall) > 0:  # it waited: the rest of the video plays on from now
                        opened += late
                        wall += late
                if self.realtime and (wait := wall - self.clock()) > 0 and self._stop.wait(wait):
                    return False
            self._publish(Frame(image, self._index, round(pos), round(wall * 1000)))
            self._index += 1
            count += 1
        return False

    def _wait_for_consumer(self) -> None:
        """Until the frame last published has been taken (or the capture stops)."""
        with self._cond:
            while self._latest is not None and self._latest.index > self._taken and not self._stop.is_set():
                self._cond.wait(0.5)

    def _publish(self, frame: Frame) -> None:
        if self.lossless:
            self._wait_for_consumer()
        with self._cond:
            if self.source.live:
                wall = frame.wall_ms / 1000
                if self._last_picture is not None:
                    self._away_ms = max(self._away_ms, (wall - self._last_picture) * 1000)
                # from when it reads again: a lossless capture's wait for its consumer is not the camera away (a
                # slow detector under `tablecall live --every-frame` was: the review of session 44)
                self._last_picture = max(wall, self.clock())
                frame = replace(frame, away_ms=round(self._away_ms))
            self._latest = frame
            s = self._status
            self._status = CaptureStatus(s.state, s.message, s.source, s.frames + 1, s.retries, s.since)
            self._cond.notify_all()
