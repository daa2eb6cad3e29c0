"""The server's one clock: the wall clock's time when the process started, advanced by a steady clock since.

The laptop's wall clock is stepped by NTP after it wakes or boots, or by hand: a step back stamped later Snap calls
before earlier ones (the later press won), a step back further than a game's age held its clock at 0 for the whole
step (every press refused, every race a tie), and the camera's tracker compared frame times across the step (a card
read faintly on a pile was never taken as played); the clock audit, session 43. This clock never steps: it counts
time asleep too (``CLOCK_BOOTTIME`` on Linux; elsewhere ``CLOCK_MONOTONIC``, which counts it on macOS), so the
phones' clocks, which went on through a sleep, still agree with it. A step of the wall clock shows only in the
times shown as dates (when a game was created, last played) until tablecall starts again.

Standard library only: ``web`` takes its game clock from here, and the camera stamps its frames with it, so that
the two agree (``vision.links.HubLink``).
"""

from __future__ import annotations

import time


def _steady_clock() -> int:
    for name in ("CLOCK_BOOTTIME", "CLOCK_MONOTONIC"):
        clock_id = getattr(time, name, None)
        if clock_id is not None:
            try:
                time.clock_gettime(clock_id)
            except OSError:  # (a kernel without it)
                continue
            return int(clock_id)
    return -1


_STEADY = _steady_clock()


def _steady() -> float:
    return time.clock_gettime(_STEADY) if _STEADY >= 0 else time.monotonic()


_WALL0 = time.time()
_STEADY0 = _steady()


def wall() -> float:
    """Seconds since the epoch, as the wall clock said when the process started plus the steady time since."""
    return _WALL0 + (_steady() - _STEADY0)


def wall_ms() -> int:
    return int(wall() * 1000)


def asleep_ms() -> int:
    """How long the machine has been asleep (suspended) since the process started, ms: the steady clock counts time
    asleep (``CLOCK_BOOTTIME``), ``CLOCK_MONOTONIC`` does not on Linux; 0 where they cannot be told apart."""
    if _STEADY < 0 or getattr(time, "CLOCK_MONOTONIC", _STEADY) == _STEADY:
        return 0
    return max(0, round((_steady() - time.monotonic() - _ASLEEP0) * 1000))


_ASLEEP0 = _steady() - time.monotonic()
