"""Stand-in for polars on the lent GPU machine (not installed there; too big to carry): Ultralytics reads its
results.csv with polars only to store it in checkpoints, inside a try that gives {} on any error."""


def read_csv(*_args, **_kwargs):
    raise RuntimeError("polars is not installed on this machine")
