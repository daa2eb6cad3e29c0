"""A real ``tablecall serve`` in a subprocess (the toy game registered), on a free loopback port."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SERVE = "import sys, tests.scorer.toygame; from web.cli import main; sys.exit(main(sys.argv[1:]))"


def start_server(db: Path, *args: str, timeout: float = 30.0, before: str = "") -> tuple[subprocess.Popen[bytes], str]:
    """``tablecall serve`` on a free loopback port; its output goes to a file beside the database.  ``timeout``:
    how long it may take to say it is serving (``--demo`` renders its video first on a new checkout); ``before``:
    Python run in the server's process first (a lower limit)."""
    out = db.with_suffix(f".{time.monotonic_ns()}.out")
    with out.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-c", before + SERVE, "serve", "--db", str(db), "--port", "0", "--threads", "8", *args],
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    ends = time.monotonic() + timeout
    while time.monotonic() < ends and process.poll() is None:
        text = out.read_text(errors="replace")
        if "serving on " in text:
            return process, text.split("serving on ")[1].split("/ ")[0]
        time.sleep(0.05)
    process.kill()
    process.wait(10)
    raise AssertionError(f"tablecall serve did not start: {out.read_text(errors='replace')}")


def call(base: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            return response.status, json.loads(
                text
            ) if response.headers.get_content_type() == "application/json" else text
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read().decode())


def output(db: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in sorted(db.parent.glob(db.stem + ".*.out")))
