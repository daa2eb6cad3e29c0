"""``tablecall serve``: the dashboard under waitress (a production WSGI server).

By default it listens on 127.0.0.1 only (the laptop is the host). ``--lan`` listens on every
interface, prints the addresses phones on the Wi-Fi can use and a QR code of a game's join link.

``--camera 0|URL`` or ``--video FILE`` give the server a camera (one per server, :mod:`web.camera`): it
follows the game named by ``--game ID``, or the one the host picks on its table screen. A camera that
cannot be opened, a video that cannot be read, a missing calibration are said on the dashboard and in the
log, and the games are entered by hand as before. ``--demo`` plays the Snap demo video through the camera
pipeline into a demo table (:mod:`web.camera_demo`); without the vision extras, or with a camera of its
own, it plays an example log into a demo table instead (:mod:`web.demo`).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import ipaddress
import logging
import os
import signal
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from web.cli import command, fail, out_of_range, output_gone

__all__ = ["LanBases", "lan_addresses", "run_serve"]

log = logging.getLogger(__name__)

DEFAULT_PORT = 8000
PROBE_AGAIN_S = 3.0  # a webcam or stream that did not answer at start is tried again this often (web.camera)
DEMO_READY_S = 300.0  # serve waits this long for the camera demo's first game (its video is rendered first)
MEMORY_POOLS = 2  # glibc's malloc pools (arenas) a server may make; its default is 8 per core (see _few_memory_pools)


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0: any free)"
    )
    parser.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1; --lan: 0.0.0.0)")
    parser.add_argument("--lan", action="store_true", help="let phones on the local network join (prints a QR code)")
    parser.add_argument(
        "--db", type=_user_path, default=None, help="the SQLite file (default: $TABLECALL_DB or the data dir)"
    )
    parser.add_argument(
        "--threads", type=int, default=32, help="server threads; each live phone holds one (default 32)"
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="a live demo table: the Snap demo video through the camera pipeline (an example log without OpenCV)",
    )
    parser.add_argument(
        "--demo-pace",
        type=float,
        default=1.5,
        help="seconds between the scripted demo's events (default 1.5; the camera demo, with the vision extras, "
        "goes at its video's pace)",
    )
    parser.add_argument("--heartbeat", type=float, default=15.0, help="seconds between live-stream pings (default 15)")
    camera = parser.add_argument_group("camera (one per server)")
    camera.add_argument(
        "--camera", metavar="INDEX|URL", help="a webcam number (0, 1 ...) or a stream URL (rtsp://, http://)"
    )
    camera.add_argument("--video", metavar="FILE", type=Path, help="a video file (or a folder of pictures) instead")
    camera.add_argument(
        "--table",
        metavar="FILE",
        type=Path,
        help="the table config: zones and calibration (default: tables/ beside the db)",
    )
    camera.add_argument(
        "--game", metavar="ID", help="the game the camera follows from the start (else: pick it on its page)"
    )
    camera.add_argument("--models", metavar="DIR", help="the card detector's weights (default: models/)")


def _is_lan(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


def _user_path(text: str) -> Path:
    """A path as given, ``~`` expanded: `--db=~/games.sqlite3` (no shell expands it after `=` or in quotes) made a
    folder named `~` in the working folder (the environment audit, session 43)."""
    return Path(text).expanduser()


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback (private ranges first). Sends nothing."""
    found: list[str] = []
    try:
        import fcntl

        for _, name in socket.if_nameindex():
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                try:  # SIOCGIFADDR: the interface's IPv4 address
                    packed = fcntl.ioctl(probe.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))
                except OSError:
                    continue
                found.append(socket.inet_ntoa(packed[20:24]))
    except (ImportError, OSError):
        pass
    # (UnicodeError: a host name IDNA cannot encode, a label over 63 letters, which Linux allows: `serve --lan` stopped
    # at the start with a traceback, the interfaces' addresses found above thrown away with it)
    with contextlib.suppress(OSError, UnicodeError):
        found += [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    unique = list(dict.fromkeys(a for a in found if _is_lan(a)))
    return sorted(unique, key=lambda a: (not ipaddress.ip_address(a).is_private, a))


def _local_url(host: str, port: int) -> str:
    """This computer's address of a server listening on ``host``: 127.0.0.1 was printed for any --host, and with
    --host ::1 it led nowhere, or to another user's tablecall on that port (the environment audit, session 43)."""
    if host in ("0.0.0.0", "127.0.0.1", "localhost", ""):
        return f"http://127.0.0.1:{port}"
    if host == "::":
        return f"http://[::1]:{port}"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class LanBases:
    """This computer's addresses on the network as phones' base URLs, found again while serving (the Share tab's QR
    code, the home page): a laptop given another address by the Wi-Fi (after a sleep, on another network) showed
    the one it had at the start for good. While none is found (the Wi-Fi down for a moment) the last ones found.
    Looked for at most every ``every`` seconds, and after the first time on a thread of their own: finding them may
    ask the name service, and a slow one held every page asking meanwhile (the review of this change, session 43)."""

    def __init__(
        self,
        port: int,
        find: Callable[[], list[str]] | None = None,
        every: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.port = port
        self.find = find or lan_addresses
        self.every = every
        self.clock = clock
        self.last: list[str] = []
        self._found_at: float | None = None
        self._looking = False
        self._failed = False  # (a failed look is logged once)
        self._lock = threading.Lock()

    def __call__(self) -> list[str]:
        with self._lock:
            first = self._found_at is None
            due = not self._looking and (self._found_at is None or self.clock() - self._found_at >= self.every)
            if due:
                self._looking = True
                self._found_at = self.clock()
        if due and first:  # (at the start: the welcome prints them)
            self._look()
        elif due:
            threading.Thread(target=self._look, name="tablecall addresses", daemon=True).start()
        with self._lock:
            return list(self.last)

    def _look(self) -> None:
        """Any failure of a look is said once in the log and the last addresses kept: one that raised on the thread
        printed its traceback every ``every`` seconds, and the first (the welcome's) stopped ``serve --lan`` (a review,
        session 43)."""
        found: list[str] = []
        try:
            found = [f"http://{a}:{self.port}" for a in self.find()]
        except Exception as exc:
            if not self._failed:
                self._failed = True
                log.warning("could not look up this computer's network addresses (%s: %s); the ones found before, "
                            "if any, are kept", type(exc).__name__, exc)  # fmt: skip
        finally:
            with self._lock:
                self.last = found or self.last
                self._looking = False


def _print_join(app: Any, bases: list[str], game_id: str | None, out: Any) -> None:
    from web.app import store
    from web.qr import qr_text

    if game_id is None:
        print("Create a game on this computer; its Share tab shows the QR code phones scan to join.", file=out)
        return
    record = store(app).game(game_id)
    assert record is not None
    url = f"{bases[0]}/join/{record.id}?t={record.player_token}"
    code = qr_text(url)
    try:
        code.encode(getattr(out, "encoding", None) or "utf-8")
    except UnicodeEncodeError:  # (it printed rows of "?" that no phone can scan; the environment audit, session 43)
        print(f"Phones join {record.title!s} by opening {url}; this terminal cannot show the QR code (its characters "
              "are not in its encoding): the game's Share tab on this computer shows it", file=out)  # fmt: skip
        return
    print(f"Phones join {record.title!s} by scanning this code (or opening {url}):", file=out)
    print(code, file=out)


CONNECTIONS = 500  # open connections waitress takes at once (its default: 100)
IDLE_CONNECTION_S = 30  # an idle kept-alive connection is closed after this (waitress's default: 120)
OUT_OF_FILES_REST_S = 0.5  # no new connection is taken this long after one could not be, for want of open files


def run_serve(args: argparse.Namespace) -> int:
    import waitress  # type: ignore[import-untyped]
    from waitress.task import ThreadedTaskDispatcher  # type: ignore[import-untyped]
    from waitress.wasyncore import close_all  # type: ignore[import-untyped]

    from web.app import camera, create_app, default_db_path, hub, store
    from web.store import StoreError

    host = args.host or ("0.0.0.0" if args.lan else "127.0.0.1")
    if args.threads < 4:
        return fail("--threads must be at least 4")
    if problem := out_of_range(args, {"--port": (0, 65535), "--demo-pace": (0.01, 3600), "--heartbeat": (0.5, 300)}):
        return fail(problem)
    source, problem = _camera_source(args)
    problem = problem or _bad_table(args.table)
    if not problem and args.models is not None and not Path(args.models).is_dir():
        problem = f"--models {args.models}: there is no such folder (leave it out for the weights in models/)"
    if problem:
        return fail(problem)
    camera_streams = 3 if source is not None or args.demo else 0
    config: dict[str, Any] = {
        "HEARTBEAT_S": args.heartbeat,
        "MAX_STREAMS": max(1, args.threads - 4 - camera_streams),  # keep a few threads for ordinary requests
        "CAMERA_STREAMS": camera_streams,
        "DEMO": args.demo,
    }
    if args.db:
        config["DATABASE"] = str(args.db)
    db = args.db if args.db is not None else default_db_path()
    held, holder = _hold_file(db)  # (before it is opened: see _hold_file)
    if holder is None:
        try:
            app = create_app(config)
        except StoreError as exc:
            _release(_Claim(file=held))
            return fail(str(exc))
        claim, holder = _claim(Path(store(app).path), held)
        if holder is not None:
            store(app).close()
            _release(_Claim(file=held))
    if holder is not None:
        return fail(
            f"the database {db} is in use by another tablecall server ({holder}): open that one, or stop it first "
            "(Ctrl-C in its terminal); --db FILE starts a server with games of its own"
        )
    if args.game and store(app).game(args.game) is None:
        store(app).close()
        _release(claim)
        return fail(f"--game: there is no game {args.game!r} in {store(app).path}")
    _room_for_connections(CONNECTIONS + 100)
    # The request threads are started once the port is taken: waitress starts its own before binding, and a port in
    # use left them waiting in the calling process (a test's: the suite audit and its review, session 43).
    dispatcher, opened = ThreadedTaskDispatcher(), {}  # (opened: its sockets, closed again on a refusal)
    try:
        server = waitress.create_server(
            app,
            opened,
            _dispatcher=dispatcher,
            host=host,
            port=args.port,
            threads=args.threads,
            ident="tablecall",
            # a phone's browser keeps 5-6 connections open after a page load: at waitress's 100 a new phone waited
            # two minutes, until idle ones were closed (after 120 s), from about the 17th phone on
            connection_limit=CONNECTIONS,
            channel_timeout=IDLE_CONNECTION_S,  # closes connections that wait idle, never a live stream
            channel_request_lookahead=1,  # a live stream hears that its phone closed the connection (web/live.py)
        )
    except (OSError, ValueError) as exc:  # ValueError: a --host waitress cannot resolve
        close_all(opened)
        store(app).close()
        _release(claim)
        if isinstance(exc, ValueError):
            return fail(f"--host {host}: not an address of this computer ({exc}); leave it out, or use --lan")
        taken = (  # (on a shared computer, a user who then opened it out of habit was the host of another's games)
            " (another program has it: another tablecall, perhaps another user's, whose games are not yours)"
            if getattr(exc, "errno", None) == errno.EADDRINUSE
            else ""
        )
        return fail(f"cannot listen on {host}:{args.port} ({exc.strerror or exc}){taken}; try another --port")
    _rest_when_out_of_files(opened.values())
    _few_memory_pools()  # (for the server's threads, before they start; not in a process a refusal goes on in)
    dispatcher.set_thread_count(args.threads)
    port = int(server.effective_port)
    local = _local_url(host, port)
    _say_who(claim, f"pid {os.getpid()}, {local}/")
    lan = LanBases(port) if args.lan else None
    bases = lan() if lan is not None else []
    app.config["PUBLIC_URLS"] = lan or []
    demos: list[Any] = []
    if source is not None or args.demo:
        _log_to_stderr()
    if source is not None:
        _start_camera(app, args, source)
    if args.demo:
        try:
            demos = _start_demo(app, args, camera=source is None)
        except KeyboardInterrupt:  # Ctrl-C while the demo video was rendered: the port, database and claim freed
            server.close()
            server.task_dispatcher.shutdown()  # (its threads: only a KeyboardInterrupt inside run() ends them)
            store(app).close()
            _release(claim)
            raise

    threading.Thread(target=hub(app).read_results, name="tablecall game list", daemon=True).start()
    try:
        _print_welcome(app, args, local, bases, demos)
    except BrokenPipeError:  # its reader stopped (`serve | head -1`): the server stopped at once, quietly, status 0
        output_gone()  # (environment audit): it serves all the same

    def wind_down() -> None:  # the demos, the camera and every live stream end (each can run more than once)
        for demo in demos:
            demo.stop()
        desk = camera(app)
        if desk is not None:
            desk.stop()
        hub(app).close_streams()

    stopping, undo = _stop_on_signals(wind_down)
    try:
        server.run()  # waitress takes a KeyboardInterrupt as the end: it waits for its threads, then returns
    except KeyboardInterrupt:
        pass
    finally:
        stopping()
        wind_down()
        server.close()
        store(app).close()
        _release(claim)
        undo()
    return 0


def _few_memory_pools() -> None:
    """Let glibc's malloc make at most MEMORY_POOLS pools (arenas) for the server's threads, as the environment
    variable MALLOC_ARENA_MAX does, unless that variable is set. By default each new request thread that
    allocates may get a pool of its own, which memory freed in it keeps mapped: a `serve --demo` with phones
    attached grew from 355 MB to about 850 MB in 40 minutes; with 2 pools it stayed near 430 MB over 12 minutes where
    glibc's default reached 565-719 MB (docs/web.md "Memory"). Elsewhere than glibc (macOS, Windows, musl) nothing
    is done."""
    if os.environ.get("MALLOC_ARENA_MAX") or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return
    mallopt(-8, MEMORY_POOLS)  # -8: M_ARENA_MAX in glibc's malloc.h


def _room_for_connections(files: int) -> None:
    """Raise this process's limit of open files to ``files`` where it is lower and may be raised (macOS allows
    256 by default: fewer than CONNECTIONS)."""
    try:
        import resource
    except ImportError:  # Windows: no such limit to raise
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= files:
        return
    want = files if hard == resource.RLIM_INFINITY else min(files, hard)
    if want > soft:
        with contextlib.suppress(OSError, ValueError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def _rest_when_out_of_files(sockets: Iterable[Any]) -> None:
    """A connection that cannot be taken for want of open files (EMFILE, ENFILE: ``ulimit -n`` too low for the
    phones' connections) is said once, plainly, with what to do, and none is taken for OUT_OF_FILES_REST_S: it waits
    in the queue. The listening socket stays readable, so waitress tried again at once, a traceback each time (26,653
    in 4 s with ``ulimit -n 64`` and 80 connections: except F10, session 41). ``sockets``: waitress's (its servers'
    accept and readable are wrapped; the others are left alone)."""
    from waitress.server import BaseWSGIServer

    said = threading.Event()
    for listening in sockets:
        if isinstance(listening, BaseWSGIServer):
            _rest(listening, said)


def _rest(listening: Any, said: threading.Event) -> None:
    accept, readable, resting = listening.accept, listening.readable, [0.0]

    def accept_unless_out_of_files() -> Any:
        try:
            return accept()
        except OSError as exc:
            if exc.errno not in (errno.EMFILE, errno.ENFILE):
                raise
            if not said.is_set():
                said.set()
                _say_out_of_files(exc)
        resting[0] = time.monotonic() + OUT_OF_FILES_REST_S
        return None  # (waitress's accept says None for "nothing to take now")

    listening.accept = accept_unless_out_of_files
    listening.readable = lambda: readable() and time.monotonic() >= resting[0]  # (readable() first: its upkeep)


def _say_out_of_files(exc: OSError) -> None:
    try:
        import resource

        allowed = f"; it may have {resource.getrlimit(resource.RLIMIT_NOFILE)[0]} open at once (ulimit -n)"
    except ImportError:  # Windows: no such limit
        allowed = ""
    with contextlib.suppress(OSError, ValueError):  # (no output: it serves all the same)
        print(
            f"tablecall: out of open files ({exc.strerror}{allowed}): phones' new connections wait until others "
            "close, and pages may not load. Stop it (Ctrl-C), run `ulimit -n 1024` in this terminal and start it "
            "again",
            file=sys.stderr,
            flush=True,
        )


def _take_signals(handler: Callable[[int, Any], None], *signals: signal.Signals) -> dict[signal.Signals, Any]:
    """``handler`` for ``signals``, where Python lets it be set (the main thread); returns the handlers it replaced."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {sig: signal.signal(sig, handler) for sig in signals}


def _stop_on_signals(wind_down: Callable[[], None]) -> tuple[Callable[[], None], Callable[[], None]]:
    """Ctrl-C (SIGINT) and SIGTERM (``kill``, a service manager, a laptop shutting down) stop the server, after
    ``wind_down`` has ended the live streams: waitress then waits for its threads to finish them (the streams of
    the phones still open had kept them busy: it gave up after 5 s and closed under them, a traceback each); the
    ``finally`` then closes the database and frees the lock.

    Pressed again while it stops, Ctrl-C says so; a third stops at once (as a kill, which loses nothing stored). The
    second used to cut short waitress's wait for the entries under way, and the database was closed under them ("a
    bug" answers and tracebacks), or to end the process by SIGINT inside the camera's OpenCV thread (SIGABRT,
    "terminate called without an active exception"; the kill audit, session 42). Returns (``stopping``: the
    ``finally`` has begun, a press now only says so; ``undo``: the handlers as they were, once all is done)."""
    if threading.current_thread() is not threading.main_thread():
        return (lambda: None), (lambda: None)
    presses: list[int] = []

    def interrupt(signum: int, frame: Any) -> None:
        presses.append(signum)
        if len(presses) == 1:
            wind_down()
            raise KeyboardInterrupt
        if len(presses) == 2:
            again = "Ctrl-C again" if signum == signal.SIGINT else "another kill"  # (a second SIGTERM: no Ctrl-C)
            print(f"tablecall: still stopping (the entries under way, the camera, the database); {again} stops it "
                  "at once", file=sys.stderr, flush=True)  # fmt: skip
            return
        os._exit(130)

    previous = _take_signals(interrupt, signal.SIGINT, signal.SIGTERM)

    def stopping() -> None:
        if not presses:  # (the server ended otherwise: a press now is the second)
            presses.append(0)

    def undo() -> None:  # stopped by a signal, the process ends now: a press on the way out is not heard (Python's
        for sig, handler in previous.items():  # own, put back, raised in its finalization: a traceback)
            signal.signal(sig, signal.SIG_IGN if any(presses) else handler)

    return stopping, undo


def _held(games: list[Any]) -> str:
    """What the database holds, for the welcome: a host who restored a backup and then started without its --db saw
    last week's games gone, and the terminal named only the file (weeks audit, session 47, F6)."""
    from web.pages import when_played

    if not games:
        return ""
    count = f"{len(games)} game{'s' if len(games) != 1 else ''}"
    return f": {count}, the latest played {when_played(games[0])[0]}"  # (the most recently played first)


def _print_welcome(app: Any, args: argparse.Namespace, local: str, bases: list[str], demos: list[Any]) -> None:
    """Where the dashboard is: this computer's address, with --lan the phones' (and the newest game's QR code),
    and each demo table's page."""
    from web.app import store

    new = "a new, empty database " if store(app).created else "database "
    print(f"tablecall: serving on {local}/ ({new}{store(app).path}{_held(store(app).games())})", flush=True)
    if args.lan:
        if bases:
            print("Phones on the same Wi-Fi can open:", *bases, sep="\n  ")
        else:
            print("No network address found: phones cannot reach this computer (is it on the Wi-Fi?)")
        print(f"Host link for another device (keep it private): {(bases or [local])[0]}/host?k={store(app).host_key}")
        demo_ids = [i for d in demos for i in d.game_ids]
        latest = demo_ids[-1] if demo_ids else next((g.id for g in store(app).games()), None)
        _print_join(app, bases or [local], latest, sys.stdout)
    for demo in demos:
        if demo.game_ids:
            how = " (the Snap demo video through the camera pipeline)" if getattr(demo, "desk", None) else ""
            print(f"Demo table: {local}/g/{demo.game_ids[-1]}{how}", flush=True)
    print(f"Open {local}/ in a browser on this computer. Ctrl-C stops.", flush=True)


@dataclass
class _Claim:
    """What a server holds while it runs: ``note``, the lock file ``<database>.server`` beside the file itself, which
    says who holds it; ``file``, the database file itself locked (Linux), which every name of it meets."""

    note: Any = None
    file: Any = None


def _claim(db: Path, file: Any = None) -> tuple[_Claim | None, str | None]:
    """Hold the database's server locks while this server runs, or say who holds them.

    Two servers on one database would each keep their own live copy of a game: phones of one would not see the
    events entered on the other until they enter one themselves; and one that reached it by another name (a hard
    link, a bind mount) kept a write-ahead log of its own, which SQLite finds by the name: a game and its entries
    answered 201 there were gone once both stopped (data/s47/store/). The locks are the operating system's, so they
    go with the process however it ends. Where the note cannot be taken (no ``fcntl``, a folder that cannot be
    written) it is not checked; ``file``: the file's lock where :func:`_hold_file` took it already."""
    try:
        import fcntl
    except ImportError:
        return None, None
    real = db.resolve()  # beside the file itself: a second server reaching it through a symlink ran beside the first
    lock = real.with_name(real.name + ".server")
    claim = _Claim(file=file)
    try:
        claim.note = lock.open("a+", encoding="utf-8")
    except OSError as exc:  # (one left by `sudo tablecall serve`: two servers then ran on one database, unsaid)
        print(
            f"tablecall: cannot lock {lock} ({exc.strerror or exc}): a second server on this database would not be "
            "stopped; fix that file's owner (it is tablecall's own)",
            file=sys.stderr,
        )
    else:
        try:
            fcntl.flock(claim.note, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            claim.note.seek(0)
            holder = claim.note.read().strip() or "starting"
            claim.note.close()
            claim.note = None
            if isinstance(exc, BlockingIOError):
                return None, holder
            # a file system without locks (some network shares): not a holder (it refused to start: "in use by another
            # tablecall server"; the environment audit, s43)
            print(f"tablecall: cannot lock {lock} ({exc.strerror or exc}): a second server on this database would "
                  "not be stopped", file=sys.stderr)  # fmt: skip
    if claim.file is None:
        claim.file, holder = _hold_file(db, noted=claim.note is not None)
        if holder is not None:
            _release(claim)
            return None, holder
    return (claim if claim.note is not None or claim.file is not None else None), None


def _hold_file(db: Path, noted: bool = False) -> tuple[Any, str | None]:
    """Lock the database file itself (flock; SQLite's own locks are fcntl's, which flock's do not meet on Linux),
    or say who holds it: taken before the database is opened, where it exists, so that a second server on another
    name of it writes nothing into it (its write-ahead log, beside that name, could be played into the file later).
    Elsewhere than Linux, where the two kinds of lock may meet, and where it cannot be taken, nothing. ``noted``:
    this server holds the note beside it (so the holder came by another name)."""
    if not sys.platform.startswith("linux"):
        return None, None
    import fcntl

    try:
        handle = db.open("rb")
    except OSError:  # (none yet: taken once it is made; a folder: said when it is opened)
        return None, None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        handle.close()  # (closing it drops SQLite's locks of this process on it, if any: only a server refused)
        if not isinstance(exc, BlockingIOError):
            return None, None
        return None, _holder_elsewhere(db, noted)
    return handle, None


def _holder_elsewhere(db: Path, noted: bool) -> str:
    """Who holds the database file: its note beside it where the server was started on this name, else its pid
    (from /proc/locks) and that it opened the file by another name."""
    import fcntl

    real = db.resolve()
    if not noted:
        with contextlib.suppress(OSError), real.with_name(real.name + ".server").open(encoding="utf-8") as note:
            try:
                fcntl.flock(note, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:  # held: that server's own words
                return note.read().strip() or "starting"
    pid = _flock_pid(db)
    if pid is not None and _opened_as(pid, real):  # a server on this name still starting: the note comes after the file
        return "starting"  # (it was said to have "opened it by another name"; a review, session 47)
    return f"{f'pid {pid}, ' if pid else ''}which opened it by another name: a hard link or a mount of it"


def _opened_as(pid: int, real: Path) -> bool:
    """Whether process ``pid`` has the file open by the name ``real`` (its /proc/PID/fd links name what was opened)."""
    with contextlib.suppress(OSError):
        return any(os.readlink(fd) == str(real) for fd in Path(f"/proc/{pid}/fd").iterdir())
    return False


def _served_by_another_name(db: Path) -> int | None:
    """The pid of a server holding ``db`` (Linux: its flock, :func:`_hold_file`) but not the lock file beside this
    name: it opened the file by another name, and a backup through this one read this name's write-ahead log, not
    the server's, so the copy lacked every game since its start (session 47). Read from /proc/locks, taking no lock:
    a server starting meanwhile is not refused for it."""
    if not sys.platform.startswith("linux") or (pid := _flock_pid(db)) is None:
        return None
    real = db.resolve()
    if _opened_as(pid, real):  # (this name: a server still starting, the note not yet taken)
        return None
    return None if _flock_pid(real.with_name(real.name + ".server")) == pid else pid


PROC_LOCKS = Path("/proc/locks")


def _flock_pid(db: Path) -> int | None:
    """The process that holds a flock on ``db`` (/proc/locks: "1: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF").
    Its device is the file system's, which is not always stat's (a btrfs subvolume, Fedora's /home: stat says the
    subvolume's): a line of the same inode on another device is the file where that process has it open."""
    try:
        found = os.stat(db)
        lines = PROC_LOCKS.read_text().splitlines()
    except OSError:
        return None
    where = f"{os.major(found.st_dev):02x}:{os.minor(found.st_dev):02x}:{found.st_ino}"
    for line in lines:
        fields = line.split()
        if len(fields) < 6 or fields[1] != "FLOCK" or fields[3] != "WRITE" or not fields[4].isdecimal():
            continue
        pid = int(fields[4])
        if fields[5] == where or (fields[5].endswith(f":{found.st_ino}") and _has_open(pid, found)):
            return pid
    return None


def _has_open(pid: int, found: os.stat_result) -> bool:
    """Whether process ``pid`` has the file ``found`` open (its /proc/PID/fd; False where they cannot be read)."""
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                other = fd.stat()
                if (other.st_dev, other.st_ino) == (found.st_dev, found.st_ino):
                    return True
    return False


def _say_who(claim: _Claim | None, who: str) -> None:
    if claim is not None and claim.note is not None:
        claim.note.seek(0)
        claim.note.truncate()
        claim.note.write(who)
        claim.note.flush()


def _release(claim: _Claim | None) -> None:
    """Let the locks go (closing the files does), once the database is closed: closing another handle of the database
    file drops every fcntl lock of this process on it, SQLite's too."""
    if claim is not None:
        for handle in (claim.note, claim.file):
            if handle is not None:
                handle.close()


def _camera_source(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The camera's source text from ``--camera`` / ``--video``, or why the options do not fit together."""
    if args.camera is not None and args.video is not None:
        return None, "give --camera or --video, not both (one camera per server)"
    if args.camera is not None:
        text = str(args.camera).strip()
        if not (text.isdecimal() or "://" in text):
            return None, f"--camera takes a webcam number (0, 1 ...) or a stream URL (rtsp://, http://), not {text!r}"
        return text, None
    if args.video is not None:
        return str(args.video), None
    for option in ("table", "game", "models"):
        if getattr(args, option) is not None and not (option == "models" and args.demo):
            return None, f"--{option} needs --camera or --video"
    return None, None


def _bad_table(table: Path | None) -> str | None:
    """Why the ``--table`` file given cannot be used (None: it can, or it is not written yet), said at start rather
    than when a game first asks for the camera."""
    if table is None or not table.exists():
        return None
    from vision.tableconfig import ConfigError, load_config

    try:
        load_config(table)
    except ConfigError as exc:
        return f"--table {exc}"
    return None


def _log_to_stderr() -> None:
    """The camera's messages (camera lost, calibrated, no detector ...) go to the terminal."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("tablecall: %(name)s: %(message)s"))
    for name in ("web", "vision"):
        logger = logging.getLogger(name)
        if not any(getattr(h, "tablecall", False) for h in logger.handlers):
            handler.tablecall = True  # type: ignore[attr-defined]
            logger.addHandler(handler)
        logger.setLevel(logging.INFO)


def _start_camera(app: Any, args: argparse.Namespace, source: str) -> None:
    from web.app import install_camera
    from web.camera import CameraError, describe_source

    desk = install_camera(app, source, table=args.table, models=args.models)
    if desk.unavailable:
        print(f"tablecall: {desk.unavailable}; enter the games by hand", file=sys.stderr)
        return
    if desk.problem:
        print(f"tablecall: {desk.problem} (the dashboard says so too); enter the games by hand", file=sys.stderr)
        return
    ready = f"Camera: {describe_source(source)} is ready: open a game and press 'Use the camera for this game'"
    absent = desk.probe(again_s=PROBE_AGAIN_S, on_answer=lambda: _say(ready))
    if absent:
        print(
            f"tablecall: {absent} (the dashboard says so too); it is tried again every {PROBE_AGAIN_S:g} s,"
            " and a game that uses the camera keeps trying it",
            file=sys.stderr,
        )
    if args.game:
        try:
            desk.attach(args.game)
        except CameraError as exc:
            print(f"tablecall: {exc.message}; enter the game by hand", file=sys.stderr)
            return
        later = " once it gives pictures (see above)" if absent else ""
        _say(f"Camera: {describe_source(source)} follows game {args.game}{later}")
    elif not absent:
        _say(ready)


def _say(text: str) -> None:
    """A line of serve's own before its welcome (the camera's, the demo's): standard output's reader gone (`serve |
    head -1`, a closed pipe) is no error; what is still written goes nowhere and it serves all the same. The welcome
    had this; the camera's "is ready", printed before it, met the closed pipe and the server stopped at once, status 0
    and not a word (mutation round of web/commands.py, session 54)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        output_gone()


def _scripted_demo(app: Any, pace: float) -> Any:
    from web.app import hub
    from web.demo import DemoTable, find_example

    example = find_example()
    if example is None:
        print("tablecall: no example game log found for the demo (docs/examples/*.jsonl)", file=sys.stderr)
        return None
    demo = DemoTable(hub(app), example, pace=pace)
    demo.start()
    return demo


def _start_demo(app: Any, args: argparse.Namespace, camera: bool) -> list[Any]:
    """The camera demo when the vision extras are here (and no camera of the host's), else the scripted one."""
    from web.app import hub, install_camera
    from web.camera import vision_problem

    problem = vision_problem() if camera else "the camera belongs to the host's games"
    if problem is not None:
        if camera:
            print(f"tablecall: {problem}: the demo table is scripted, without a camera", file=sys.stderr)
        demo = _scripted_demo(app, args.demo_pace)
        if demo is None:
            return []
        demo.ready.wait(10)
        return [demo]
    from web.camera_demo import CameraDemo

    demos: list[Any] = []

    def fallback() -> None:
        scripted = _scripted_demo(app, args.demo_pace)
        if scripted is not None:
            demos.append(scripted)
            scripted.ready.wait(10)

    desk = install_camera(app, None, models=args.models, demo=True, tables_dir=None)
    camera_demo = CameraDemo(desk, hub(app), fallback=fallback)
    demos.append(camera_demo)
    if camera_demo.video is None:
        from vision.sim import demo_video_made

        if demo_video_made(camera_demo.name) is None:
            _say("tablecall: rendering the demo video once, into data/sim/ (some seconds, more on a busy computer)")
    # Ctrl-C meanwhile: the rendering stops at its next frame, then the process ends (it was killed inside OpenCV's
    # video writer: "terminate called...", a core dump); a second Ctrl-C while it waits for that frame is not heard.
    # Installed before the rendering starts: a Ctrl-C between the two was Python's own, and a second one right
    # after it killed the process by SIGINT (status -2; the test of two presses failed one run in three)
    interrupted: list[int] = []

    def first_only(signum: int, frame: Any) -> None:
        if not interrupted:
            interrupted.append(signum)
            raise KeyboardInterrupt

    # SIGTERM as Ctrl-C (a laptop shutting down): it ended the process by the signal, the half-written video left
    # behind (the kill audit, session 42)
    previous = _take_signals(first_only, signal.SIGINT, signal.SIGTERM)
    try:
        camera_demo.start()
        camera_demo.ready.wait(DEMO_READY_S)  # the first run renders the demo video
    except KeyboardInterrupt:
        camera_demo.stop()
        if camera_demo.ident is not None:  # started
            camera_demo.join(DEMO_READY_S)
        for sig in previous:  # on the way out, through Python's own finalization, which puts back SIGINT's
            signal.signal(sig, signal.SIG_IGN)  # default: a second Ctrl-C then ended it by SIGINT (-2)
        raise
    finally:
        if not interrupted:  # stopping: a later Ctrl-C is not heard either (restored, one arriving on the way out
            for sig, handler in previous.items():  # killed the process by SIGINT, status -2)
                signal.signal(sig, handler)
    return demos


run_serve.arguments = _serve_arguments  # type: ignore[attr-defined]
command("serve", "start the dashboard (phones join with --lan)")(run_serve)


def _backup_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("copy", type=Path, help="the new file to write the copy to")
    parser.add_argument(
        "--db", type=_user_path, default=None, help="the SQLite file to copy (default: $TABLECALL_DB or the data dir)"
    )


def run_backup(args: argparse.Namespace) -> int:
    """Copy every game to a new file, also while `tablecall serve` runs (a copy of the file made by hand then lacks
    the latest games)."""
    from web.app import default_db_path
    from web.store import StoreError, backup

    db = args.db if args.db is not None else default_db_path()

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    # SIGTERM and SIGHUP (the terminal closed) as Ctrl-C: the half-made copy is taken away (it was left, 151 MB, that
    # opened as an empty dashboard; the backup audit, session 42)
    stops = (signal.SIGTERM, signal.SIGHUP) if hasattr(signal, "SIGHUP") else (signal.SIGTERM,)
    if (pid := _served_by_another_name(db)) is not None:
        return fail(
            f"the database {db} is served by another tablecall server (pid {pid}) that opened it by another name (a "
            "hard link or a mount of it): back up the name it serves (its welcome says it), or stop it first; through "
            "this name the copy would lack every game since it started"
        )
    previous = _take_signals(interrupt, *stops)
    try:
        games, events = backup(db, args.copy)
    except StoreError as exc:
        return fail(str(exc))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    counted = f"{games} game{'' if games == 1 else 's'} ({events} event{'' if events == 1 else 's'})"
    print(f"{counted} copied from {db} to {args.copy}")
    return 0


run_backup.arguments = _backup_arguments  # type: ignore[attr-defined]
command("backup", "copy every game to a new file, also while serve runs")(run_backup)
