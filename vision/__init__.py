"""tablecall's eyes: capture, card detection, tracking, calibration, zones and the table simulator.

Only this package imports OpenCV, NumPy or Ultralytics.
"""

import os
import sys

# OpenCV's own log lines (a webcam number that is not there: eight lines of C++ warnings every few seconds) buried
# tablecall's one clear message, and tablecall says what went wrong itself; OPENCV_LOG_LEVEL=INFO brings them back.
os.environ.setdefault("OPENCV_LOG_LEVEL", "FATAL")
# The same for FFmpeg's, which OpenCV passes through (a stream URL that refuses: a "[tcp @ 0x…] Connection to … failed"
# line at every retry); OPENCV_FFMPEG_LOGLEVEL=16 (errors) brings them back.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
# OpenVINO's Python package sends a usage event to Google Analytics when it is imported (openvino.tools.ovc, by way
# of openvino_telemetry, in a process forked from whichever thread imported it), unless the user has opted out:
# tablecall runs at a table on the host's Wi-Fi and says nothing to anyone. Without that package OpenVINO (and NNCF,
# for `tablecall quantize`) takes its stand-in that sends nothing (the suite audit, session 43).
sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[assignment]
