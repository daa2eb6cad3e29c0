"""Load benchmark (a script, not a test): a real ``tablecall serve`` on loopback, 12 phones holding live
streams, and a steady burst of events for a minute. Reports lost events (must be 0) and the
event-to-phone latency: from the moment a writer sends an event to the moment each phone's stream
delivers it.

    .venv/bin/python -m web.bench_load                      # 12 streams, 20 events/s, 60 s
    .venv/bin/python -m web.bench_load --seconds 10 --rate 5

Writers post Spades events: mostly whole hands that do not add up to 13 tricks (the referee answers
with an alert, so every message carries a ruling too) and every fourth one a real hand (the history
grows, so the messages grow as a long evening would). Only loopback addresses are used.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

PLAYERS = ["Alex", "Beth", "Charlie", "David"]


def start_server(db: Path, threads: int) -> tuple[subprocess.Popen[bytes], int, Path]:
    out = db.with_suffix(".out")
    with out.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "web.bench_load", "--serve", str(db), "--threads", str(threads)],
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    ends = time.monotonic() + 30
    while time.monotonic() < ends and process.poll() is None:
        text = out.read_text(errors="replace")
        if "serving on " in text:
            return process, int(text.split("serving on http://127.0.0.1:")[1].split("/")[0]), out
        time.sleep(0.05)
    process.kill()
    raise SystemExit(f"the server did not start: {out.read_text(errors='replace')}")


def request(port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        data = None if body is None else json.dumps(body)
        connection.request(method, path, body=data, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


class Phone(threading.Thread):
    """One live stream: records when each event (by its bench key) arrived, and every id in order."""

    def __init__(self, port: int, game_id: str, token: str) -> None:
        super().__init__(daemon=True)
        self.port, self.game_id, self.token = port, game_id, token
        self.arrived: dict[str, float] = {}
        self.ids: list[int] = []
        self.ready = threading.Event()
        self.stop = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request("GET", f"/api/games/{self.game_id}/stream", headers={"X-Join-Token": self.token})
            response = connection.getresponse()
            if response.status != 200:
                self.error = f"stream answered {response.status}"
                return
            event = ""
            while not self.stop.is_set():
                line = response.readline()
                if not line:
                    if not self.stop.is_set():
                        self.error = "the stream ended early"
                    return
                text = line.decode("utf-8").rstrip("\n")
                if text.startswith("event: "):
                    event = text[7:]
                elif text.startswith("data: "):
                    self._message(event, text[6:])
        except OSError as exc:
            if not self.stop.is_set():
                self.error = repr(exc)
        finally:
            connection.close()

    def _message(self, event: str, data: str) -> None:
        now = time.perf_counter()
        if event == "state":
            self.ready.set()
        elif event == "event":
            message = json.loads(data)
            self.ids.append(message["event"]["seq"])
            self.arrived[message["event"]["bench"]] = now


class Writer(threading.Thread):
    """Posts events at ``rate`` per second; records when each was sent and which were acknowledged."""

    def __init__(self, port: int, game_id: str, token: str, rate: float, seconds: float, name: str) -> None:
        super().__init__(daemon=True)
        self.port, self.game_id, self.token = port, game_id, token
        self.rate, self.seconds, self.tag = rate, seconds, name
        self.sent: dict[str, float] = {}
        self.acked: dict[str, int] = {}
        self.refused: list[str] = []

    def body(self, n: int) -> dict[str, Any]:
        real = n % 4 == 0
        tricks = [4, 3, 3, 3] if real else [3, 3, 3, 3]
        return {
            "type": "hand",
            "bids": dict(zip(PLAYERS, [1, 1, 1, 1], strict=True)),
            "tricks": dict(zip(PLAYERS, tricks, strict=True)),
            "bench": f"{self.tag}-{n}",
        }

    def run(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Content-Type": "application/json", "X-Join-Token": self.token}
        start = time.perf_counter()
        n = 0
        while (due := start + n / self.rate) < start + self.seconds:
            time.sleep(max(0.0, due - time.perf_counter()))
            body = self.body(n)
            self.sent[body["bench"]] = time.perf_counter()
            connection.request("POST", f"/api/games/{self.game_id}/events", body=json.dumps(body), headers=headers)
            response = connection.getresponse()
            answer = json.loads(response.read())
            if response.status == 201:
                self.acked[body["bench"]] = answer["event"]["seq"]
            else:
                self.refused.append(f"{response.status}: {answer.get('error')}")
            n += 1
        connection.close()


def resident_mb(pid: int) -> float | None:
    """The process's resident memory (VmRSS) in MB, where /proc tells it (Linux)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    kb = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")), None)
    return round(int(kb) / 1024, 1) if kb else None


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def run(streams: int, rate: float, seconds: float, writers: int, threads: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        process, port, _ = start_server(Path(folder) / "bench.sqlite3", threads)
        try:
            status, created = request(
                port, "POST", "/api/games", {"game": "spades", "players": PLAYERS, "options": {"target": 10000}}
            )
            assert status == 201, created
            game_id = created["id"]
            share = request(port, "GET", f"/api/games/{game_id}/share")[1]
            player_token = share["player"][0].split("?t=")[1]
            viewer_token = share["viewer"][0].split("?t=")[1]
            phones = [Phone(port, game_id, viewer_token) for _ in range(streams)]
            for phone in phones:
                phone.start()
            for phone in phones:
                if not phone.ready.wait(20):
                    raise SystemExit(f"a stream did not start: {phone.error}")
            rss_start = resident_mb(process.pid)
            pens = [Writer(port, game_id, player_token, rate / writers, seconds, f"w{i}") for i in range(writers)]
            started = time.perf_counter()
            for pen in pens:
                pen.start()
            for pen in pens:
                pen.join()
            wrote = time.perf_counter() - started
            acked = {key: seq for pen in pens for key, seq in pen.acked.items()}
            sent = {key: t for pen in pens for key, t in pen.sent.items()}
            ends = time.monotonic() + 10
            while time.monotonic() < ends and any(len(p.arrived) < len(acked) for p in phones):
                time.sleep(0.05)
            rss_end = resident_mb(process.pid)
            for phone in phones:
                phone.stop.set()
        finally:
            process.terminate()
            process.wait(10)
    latencies = [(t - sent[key]) * 1000 for p in phones for key, t in p.arrived.items() if key in sent]
    lost = sum(len(set(acked) - set(p.arrived)) for p in phones)
    out_of_order = sum(p.ids != sorted(p.ids) for p in phones)
    return {
        "streams": streams,
        "seconds": round(wrote, 1),
        "events_sent": len(sent),
        "events_acknowledged": len(acked),
        "events_refused": sum(len(pen.refused) for pen in pens),
        "deliveries": len(latencies),
        "lost": lost,
        "streams_out_of_order": out_of_order,
        "stream_errors": [p.error for p in phones if p.error],
        "latency_ms": {
            "p50": round(percentile(latencies, 50), 1),
            "p95": round(percentile(latencies, 95), 1),
            "p99": round(percentile(latencies, 99), 1),
            "max": round(max(latencies), 1),
        },
        "server_rss_mb": {"start": rss_start, "end": rss_end},  # when the writers start, and once all arrived
    }


def serve(db: str, threads: int) -> int:
    from web.cli import main

    return main(["serve", "--db", db, "--port", "0", "--threads", str(threads)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], prog="python -m web.bench_load")
    parser.add_argument("--streams", type=int, default=12, help="live streams (phones), default 12")
    parser.add_argument("--rate", type=float, default=20.0, help="events per second, all writers together (20)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to write (60)")
    parser.add_argument("--writers", type=int, default=4, help="phones entering events at once (4)")
    parser.add_argument("--threads", type=int, default=32, help="server threads (32, as tablecall serve)")
    parser.add_argument("--serve", metavar="DB", help=argparse.SUPPRESS)  # the server side of the benchmark
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve, args.threads)
    if not (1 <= args.streams <= 100 and 0 < args.rate <= 500 and 0 < args.seconds <= 120):
        parser.error("streams 1-100, rate up to 500/s, seconds up to 120 (this is bounded on purpose)")
    result = run(args.streams, args.rate, args.seconds, args.writers, args.threads)
    print(json.dumps(result, indent=2))
    return 0 if result["lost"] == 0 and not result["events_refused"] and not result["streams_out_of_order"] else 1


if __name__ == "__main__":
    sys.exit(main())
