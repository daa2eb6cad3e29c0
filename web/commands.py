"""``tablecall serve``: the dashboard under waitress (a production WSGI server).

By default it listens on 127.0.0.1 only (the laptop is the host). ``--lan`` listens on every
interface, prints the addresses phones on the Wi-Fi can use and a QR code of a game's join link.
``--demo`` plays an example game into a live table (until the camera pipeline exists).
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import socket
import struct
import sys
from pathlib import Path
from typing import Any

from web.cli import command, fail

__all__ = ["lan_addresses", "run_serve"]

DEFAULT_PORT = 8000


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0: any free)"
    )
    parser.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1; --lan: 0.0.0.0)")
    parser.add_argument("--lan", action="store_true", help="let phones on the local network join (prints a QR code)")
    parser.add_argument(
        "--db", type=Path, default=None, help="the SQLite file (default: $TABLECALL_DB or the data dir)"
    )
    parser.add_argument(
        "--threads", type=int, default=32, help="server threads; each live phone holds one (default 32)"
    )
    parser.add_argument("--demo", action="store_true", help="play an example game into a live demo table")
    parser.add_argument("--demo-pace", type=float, default=1.5, help="seconds between demo events (default 1.5)")
    parser.add_argument("--heartbeat", type=float, default=15.0, help="seconds between live-stream pings (default 15)")


def _is_lan(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast)


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
    with contextlib.suppress(OSError):
        found += [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    unique = list(dict.fromkeys(a for a in found if _is_lan(a)))
    return sorted(unique, key=lambda a: (not ipaddress.ip_address(a).is_private, a))


def _print_join(app: Any, bases: list[str], game_id: str | None, out: Any) -> None:
    from web.app import store
    from web.qr import qr_text

    if game_id is None:
        print("Create a game on this computer; its Share tab shows the QR code phones scan to join.", file=out)
        return
    record = store(app).game(game_id)
    assert record is not None
    url = f"{bases[0]}/join/{record.id}?t={record.player_token}"
    print(f"Phones join {record.title!s} by scanning this code (or opening {url}):", file=out)
    print(qr_text(url), file=out)


def run_serve(args: argparse.Namespace) -> int:
    import waitress  # type: ignore[import-untyped]

    from web.app import create_app, hub, store
    from web.store import StoreError

    host = args.host or ("0.0.0.0" if args.lan else "127.0.0.1")
    if not 0 <= args.port <= 65535:
        return fail(f"--port must be from 0 to 65535, not {args.port}")
    if args.threads < 4:
        return fail("--threads must be at least 4")
    config: dict[str, Any] = {
        "HEARTBEAT_S": args.heartbeat,
        "MAX_STREAMS": max(1, args.threads - 4),  # keep a few threads for ordinary requests
        "DEMO": args.demo,
    }
    if args.db:
        config["DATABASE"] = str(args.db)
    try:
        app = create_app(config)
    except StoreError as exc:
        return fail(str(exc))
    try:
        server = waitress.create_server(app, host=host, port=args.port, threads=args.threads, ident="tablecall")
    except OSError as exc:
        store(app).close()
        return fail(f"cannot listen on {host}:{args.port} ({exc.strerror or exc}); try another --port")
    port = int(server.effective_port)
    local = f"http://127.0.0.1:{port}"
    bases = [f"http://{a}:{port}" for a in lan_addresses()] if args.lan else []
    app.config["PUBLIC_URLS"] = bases

    demo = None
    if args.demo:
        from web.demo import DemoTable, find_example

        example = find_example()
        if example is None:
            print("tablecall: no example game log found for the demo (docs/examples/*.jsonl)", file=sys.stderr)
        else:
            demo = DemoTable(hub(app), example, pace=args.demo_pace)
            demo.start()
            demo.ready.wait(10)

    print(f"tablecall: serving on {local}/ (database {store(app).path})", flush=True)
    if args.lan:
        if bases:
            print("Phones on the same Wi-Fi can open:", *bases, sep="\n  ")
        else:
            print("No network address found: phones cannot reach this computer (is it on the Wi-Fi?)")
        print(f"Host link for another device (keep it private): {(bases or [local])[0]}/host?k={store(app).host_key}")
        latest = demo.game_ids[-1] if demo and demo.game_ids else next((g.id for g in store(app).games()), None)
        _print_join(app, bases or [local], latest, sys.stdout)
    if demo and demo.game_ids:
        print(f"Demo table: {local}/g/{demo.game_ids[-1]}", flush=True)
    print(f"Open {local}/ in a browser on this computer. Ctrl-C stops.", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if demo:
            demo.stop()
        hub(app).close_streams()
        server.close()
        store(app).close()
    return 0


run_serve.arguments = _serve_arguments  # type: ignore[attr-defined]
command("serve", "start the dashboard (phones join with --lan)")(run_serve)
