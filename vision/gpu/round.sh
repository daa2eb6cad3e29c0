#!/usr/bin/env bash
# One GPU round on the lent machine: render scenes on its CPUs, train the index detector (and, asked, the classifier)
# warm from the shipped models/ on its GPU, leave the weights in $OUT.  Run from the repository root there, with the
# bundle of `python -m vision.gpu.bundle pack` carried along (docs/vision.md, "A GPU round"):
#   run(command="OUT=$OUT bash vision/gpu/round.sh", carry=[".gpu"], timeout_s=590)
# Knobs (environment): BUDGET seconds in all, RENDER_S seconds of rendering, SEED, BATCH, LR0, WORKERS;
# STAGES "detector" (default), "classifier" or "detector classifier"; for the classifier READER_BOXES scenes boxed by
# the shipped detector and cut as the reader cuts (synth --reader-boxes, beside the scenes' labelled crops), and
# FACE_DESIGNS new procedural designs' index crops (synth --face-designs, ~106 a design: more designs), CLS_SHARE
# of the training time when both stages train, CLS_LR0, CLS_BATCH; WARM_FROM a folder whose <stage>.onnx each stage
# starts from (default models, the shipped networks; for a second round in one session, the first round's export
# folder, carried).
set -uo pipefail
T0=$(date +%s); OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
BUDGET=${BUDGET:-560}; RENDER_S=${RENDER_S:-170}; MAXSCENES=${MAXSCENES:-20000}; CHUNK=${CHUNK:-2000}
WORKERS=${WORKERS:-16}; DEVICE=${DEVICE:-0}; BATCH=${BATCH:-64}; LR0=${LR0:-0.001}; SEED=${SEED:-27}
SET=${SET:-data/gpu}; RUNS=${RUNS:-runs/gpu}; PYTHON=${PYTHON:-python3}
STAGES=${STAGES:-detector}; READER_BOXES=${READER_BOXES:-0}; FACE_DESIGNS=${FACE_DESIGNS:-0}
CLS_SHARE=${CLS_SHARE:-0.3}; CLS_LR0=${CLS_LR0:-0.0005}; CLS_BATCH=${CLS_BATCH:-512}; WARM_FROM=${WARM_FROM:-models}
case " $STAGES " in *" classifier "*) CLS=1 ;; *) CLS=0 ;; esac
case " $STAGES " in *" detector "*) DET=1 ;; *) DET=0 ;; esac
[ $((CLS + DET)) -gt 0 ] || { echo "STAGES must name detector, classifier or both, not '$STAGES'"; exit 2; }
for stage in $([ $CLS = 1 ] && echo card-classifier) $([ $DET = 1 ] && echo index-detector); do
  [ -f "$WARM_FROM/$stage.onnx" ] || { echo "WARM_FROM=$WARM_FROM holds no $stage.onnx to start from"; exit 2; }
done
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
log "setup done; the stages start from $WARM_FROM"
TC() { $PYTHON -c "import sys; from web.cli import main; sys.argv[0]='tablecall'; sys.exit(main())" "$@"; }
n=0; rm -rf "$RUNS" "$SET"
while [ $n -eq 0 ] || { [ $n -lt "$MAXSCENES" ] && [ "$(el)" -lt "$RENDER_S" ]; }; do  # one chunk at least
  TC synth "$SET" --scenes "$CHUNK" --start $n --seed "$SEED" --workers "$WORKERS" 2>&1 | tail -c 200; echo
  n=$((n + CHUNK)); log "rendered $n scenes"
done
log "tiles: $(ls "$SET"/detect/images/train | wc -l) train, $(ls "$SET"/detect/images/val | wc -l) val"
if [ $CLS = 1 ] && [ "$FACE_DESIGNS" -gt 0 ]; then  # one more scene, and the designs drawn from its number on
  TC synth "$SET" --scenes 1 --start "$n" --face-designs "$FACE_DESIGNS" --seed "$SEED" --workers "$WORKERS" 2>&1 \
    | tail -c 200
  n=$((n + 1)); echo; log "index crops of $FACE_DESIGNS new designs"
fi
if [ $CLS = 1 ] && [ "$READER_BOXES" -gt 0 ]; then  # scene numbers after the rendered ones: no scene twice
  TC synth "$SET" --reader-boxes "$READER_BOXES" --start "$n" --seed "$SEED" --workers "$WORKERS" 2>&1 | tail -c 200
  echo; log "reader-box crops of $READER_BOXES scenes"
fi
[ $CLS = 1 ] && log "classifier crops: $(find "$SET"/classify/train -type f | wc -l) train"
read -r CMIN DMIN < <($PYTHON -c "
left = max(0.3, ($BUDGET - $(el) - 75 * ($CLS + $DET)) / 60)  # minutes, less each stage's start and export
c = round(left * ($CLS_SHARE if $DET else 1), 2) if $CLS else 0
print(c, round(max(0.3, left - c), 2) if $DET else 0)")
log "training: classifier $CMIN minutes, detector $DMIN minutes"
save() {
  for stage in card-classifier index-detector; do
    for f in weights/best.pt weights/last.pt results.csv; do
      [ -f "$RUNS/$stage/$f" ] && cp "$RUNS/$stage/$f" "$OUT/$stage-$(basename "$f")"
    done
  done
}
( while sleep 15; do save; done ) &  # a run cut short still brings back its latest weights
COPIER=$!
if [ $CLS = 1 ]; then
  TC train --data "$SET" --stage classifier --warm --cls-minutes "$CMIN" --cls-lr0 "$CLS_LR0" --cls-batch "$CLS_BATCH" \
    --device "$DEVICE" --no-export --runs "$RUNS" --models "$WARM_FROM" 2>&1 | grep -v "it/s]" | tail -n 40
fi
if [ $DET = 1 ]; then
  TC train --data "$SET" --stage detector --warm --det-minutes "$DMIN" --det-lr0 "$LR0" --det-batch "$BATCH" \
    --device "$DEVICE" --no-export --runs "$RUNS" --models "$WARM_FROM" 2>&1 | grep -v "it/s]" | tail -n 60
fi
kill $COPIER; save
for stage in card-classifier index-detector; do
  [ -f "$RUNS/$stage/results.csv" ] && { echo "$stage:"; cut -d, -f1-12 "$RUNS/$stage/results.csv" | tail -n 30; }
done
log "done"; ls -la "$OUT"
