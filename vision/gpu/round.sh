#!/usr/bin/env bash
# One GPU round of the index detector on the lent machine: render scenes on its CPUs, train warm from the shipped
# models/index-detector.onnx on its GPU, leave the weights in $OUT.  Run from the repository root there, with the
# bundle of `python -m vision.gpu.bundle pack` carried along (docs/vision.md, "A GPU round"):
#   run(command="OUT=$OUT bash vision/gpu/round.sh", carry=[".gpu"], timeout_s=590)
# Knobs (environment): BUDGET seconds in all, RENDER_S seconds of rendering, SEED, BATCH, LR0, WORKERS.
set -uo pipefail
T0=$(date +%s); OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
BUDGET=${BUDGET:-560}; RENDER_S=${RENDER_S:-170}; MAXSCENES=${MAXSCENES:-20000}; CHUNK=${CHUNK:-2000}
WORKERS=${WORKERS:-16}; DEVICE=${DEVICE:-0}; BATCH=${BATCH:-64}; LR0=${LR0:-0.001}; SEED=${SEED:-27}
SET=${SET:-data/gpu}; RUNS=${RUNS:-runs/gpu}; PYTHON=${PYTHON:-python3}
el() { echo $(( $(date +%s) - T0 )); }
log() { echo "[$(el)s] $*"; }
export PYTHONUNBUFFERED=1
if [ "${SKIP_SETUP:-0}" != 1 ]; then
  [ -d /tmp/site/ultralytics ] || $PYTHON -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --target /tmp/site .gpu/whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD/vision/gpu/shim:$PWD
  tar -xzf .gpu/fonts.tar.gz -C / --skip-old-files
  [ -d data/faces ] || { mkdir -p data && tar -xf .gpu/faces.tar -C data && $PYTHON -m vision.gpu.bundle unpack data/faces; }
  nvidia-smi -L; nproc; free -g | head -2
else
  export PYTHONPATH=$PWD/vision/gpu/shim:$PWD
fi
log "setup done"
TC() { $PYTHON -c "import sys; from web.cli import main; sys.argv[0]='tablecall'; sys.exit(main())" "$@"; }
n=0; rm -rf "$RUNS" "$SET"
while [ $n -eq 0 ] || { [ $n -lt "$MAXSCENES" ] && [ "$(el)" -lt "$RENDER_S" ]; }; do  # one chunk at least
  TC synth "$SET" --scenes "$CHUNK" --start $n --seed "$SEED" --workers "$WORKERS" 2>&1 | tail -c 200; echo
  n=$((n + CHUNK)); log "rendered $n scenes"
done
log "tiles: $(ls "$SET"/detect/images/train | wc -l) train, $(ls "$SET"/detect/images/val | wc -l) val"
MIN=$($PYTHON -c "print(max(0.3, ($BUDGET - $(el) - 75) / 60))"); log "training for $MIN minutes"
W=$RUNS/index-detector
save() { for f in $W/weights/best.pt $W/weights/last.pt $W/results.csv; do [ -f "$f" ] && cp "$f" "$OUT/"; done; }
( while sleep 15; do save; done ) &  # a run cut short still brings back its latest weights
COPIER=$!
TC train --data "$SET" --stage detector --warm --det-minutes "$MIN" --det-lr0 "$LR0" --det-batch "$BATCH" \
  --device "$DEVICE" --no-export --runs "$RUNS" --models models 2>&1 | grep -v "it/s]" | tail -n 60
kill $COPIER; save
cut -d, -f1-12 "$W/results.csv" | tail -n 40
log "done"; ls -la "$OUT"
