"""Memory benchmark (a script, not a test): two ``tablecall serve --demo`` servers side by side on loopback, each
with the same simulated phones, for some minutes; their resident memory (VmRSS) each minute. One server runs as
shipped (at most ``web.commands.MEMORY_POOLS`` malloc pools), the other with glibc's own default (``MALLOC_ARENA_MAX``
set to 8 per core), so both see the same machine, load and demo rounds.

    .venv/bin/python -m web.bench_memory                       # 5 phones each, 12 minutes
    .venv/bin/python -m web.bench_memory --minutes 3 --phones 3

A phone, as table.js and camera.js do: the page's state, the live stream (reconnecting when it ends), the camera's
status every 1.5 s; phone 0 also holds the camera's MJPEG view, phones 1-2 fetch a snapshot every 0.7 s, phones 3-4
the Log every 1.5 s. Every 20 s each phone moves to the newest demo round. Linux only (it reads /proc); only
loopback addresses are used.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from web.bench_load import resident_mb

START_S = 300  # the demo renders its video first


def start(folder: Path, name: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    out = folder / f"{name}.out"
    with out.open("wb") as sink:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "web.cli",
                "serve",
                "--demo",
                "--port",
                "0",
                "--db",
                str(folder / f"{name}.sqlite3"),
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
        )
    ends = time.monotonic() + START_S
    while time.monotonic() < ends and process.poll() is None:
        text = out.read_text(errors="replace")
        if "Demo table: " in text and "serving on http://127.0.0.1:" in text:
            return process, "http://127.0.0.1:" + text.split("serving on http://127.0.0.1:")[1].split("/")[0]
        time.sleep(0.5)
    process.kill()
    raise SystemExit(f"the {name} server did not start: {out.read_text(errors='replace')[-2000:]}")


def get(url: str, timeout: float = 30) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return bytes(answer.read())


def newest_demo(base: str) -> str | None:
    games = json.loads(get(f"{base}/api/games"))["games"]
    demos = [g for g in games if g.get("origin") == "demo"]
    return max(demos, key=lambda g: g["created_ms"])["id"] if demos else None


class Phone:
    def __init__(self, base: str, number: int, stop: threading.Event) -> None:
        self.base, self.number, self.stop = base, number, stop
        self.game = newest_demo(base)
        self.errors: dict[str, int] = {}

    def failed(self, what: str, exc: OSError) -> None:
        key = f"{what}: {getattr(exc, 'code', None) or type(exc).__name__}"
        self.errors[key] = self.errors.get(key, 0) + 1

    def run(self) -> None:
        held = [("stream", "/stream", 3.0)] + ([("mjpeg", "/camera.mjpg?g=1&n=1", 1.0)] if self.number == 0 else [])
        threads = [threading.Thread(target=self.hold, args=what, daemon=True) for what in held]
        for thread in [*threads, threading.Thread(target=self.poll, daemon=True)]:
            thread.start()

    def hold(self, what: str, path: str, retry: float) -> None:
        """Hold a stream of the game followed (the live updates, the camera's MJPEG view), reading it until it ends,
        the game changes or 10 minutes pass; again after ``retry`` seconds."""
        while not self.stop.is_set():
            game, ends = self.game, time.monotonic() + 600
            try:
                with urllib.request.urlopen(f"{self.base}/api/games/{game}{path}", timeout=40) as answer:
                    while not self.stop.is_set() and game == self.game and time.monotonic() < ends:
                        if not answer.read1(65536):
                            break
            except OSError as exc:
                self.failed(what, exc)
            self.stop.wait(retry)

    def poll(self) -> None:
        due = {"state": 0.0, "status": 0.0, "snapshot": 0.0, "log": 0.0, "move": time.monotonic() + 20}
        every = {"state": 5.0, "status": 1.5, "snapshot": 0.7 if self.number in (1, 2) else None}
        every["log"] = 1.5 if self.number in (3, 4) else None
        paths = {"state": "", "status": "/camera", "snapshot": "/camera.jpg", "log": "/log"}
        while not self.stop.wait(0.1):
            now = time.monotonic()
            for what, period in every.items():
                if period is not None and now >= due[what]:
                    due[what] = now + period
                    try:
                        get(f"{self.base}/api/games/{self.game}{paths[what]}")
                    except OSError as exc:
                        self.failed(what, exc)
            if now >= due["move"]:
                due["move"] = now + 20
                try:
                    self.game = newest_demo(self.base) or self.game
                except OSError as exc:
                    self.failed("games", exc)


def run(minutes: float, phones: int) -> dict[str, Any]:
    default = str(8 * (os.cpu_count() or 1))  # glibc's own limit: 8 pools per core (64-bit)
    plain = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    stop = threading.Event()
    samples: dict[str, list[float | None]] = {"shipped": [], f"MALLOC_ARENA_MAX={default}": []}
    with tempfile.TemporaryDirectory() as folder:
        servers = {
            "shipped": start(Path(folder), "shipped", plain),
            f"MALLOC_ARENA_MAX={default}": start(Path(folder), "default", {**plain, "MALLOC_ARENA_MAX": default}),
        }
        crowd = [Phone(base, i, stop) for _, base in servers.values() for i in range(phones)]
        try:
            for phone in crowd:
                phone.run()
            for minute in range(int(minutes) + 1):
                for name, (process, _) in servers.items():
                    samples[name].append(resident_mb(process.pid))
                print(f"minute {minute}: " + ", ".join(f"{n} {s[-1]} MB" for n, s in samples.items()), flush=True)
                if minute < int(minutes):
                    time.sleep(60)
            rounds = {name: len(json.loads(get(f"{base}/api/games"))["games"]) for name, (_, base) in servers.items()}
        finally:
            stop.set()
            for process, _ in servers.values():
                process.terminate()
                process.wait(20)
    return {"minutes": int(minutes), "phones": phones, "rss_mb": samples, "games": rounds,
            "phone_errors": errors(crowd)}  # fmt: skip


def errors(crowd: list[Phone]) -> dict[str, int]:
    """The phones' failed requests, by what and why (a 404: the round they follow has no camera any more)."""
    total: dict[str, int] = {}
    for phone in crowd:
        for key, count in phone.errors.items():
            total[key] = total.get(key, 0) + count
    return dict(sorted(total.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], prog="python -m web.bench_memory")
    parser.add_argument("--minutes", type=float, default=12.0, help="how long to watch (12)")
    parser.add_argument("--phones", type=int, default=5, help="phones on each server (5)")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        parser.error("Linux only: the memory is read from /proc")
    if not (1 <= args.minutes <= 120 and 1 <= args.phones <= 20):
        parser.error("minutes 1-120, phones 1-20")
    print(json.dumps(run(args.minutes, args.phones), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
