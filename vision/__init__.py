"""tablecall's eyes: capture, card detection, tracking, calibration, zones and the table simulator.

Only this package imports OpenCV, NumPy or Ultralytics.
"""

import os

# OpenCV's own log lines (a webcam number that is not there: eight lines of C++ warnings every few seconds) buried
# tablecall's one clear message, and tablecall says what went wrong itself; OPENCV_LOG_LEVEL=INFO brings them back.
os.environ.setdefault("OPENCV_LOG_LEVEL", "FATAL")
# The same for FFmpeg's, which OpenCV passes through (a stream URL that refuses: a "[tcp @ 0x…] Connection to … failed"
# line at every retry); OPENCV_FFMPEG_LOGLEVEL=16 (errors) brings them back.
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
