"""tablecall's eyes: capture, card detection, tracking, calibration, zones and the table simulator.

Only this package imports OpenCV, NumPy or Ultralytics.
"""
