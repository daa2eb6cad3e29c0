"""``tablecall synth``, ``tablecall train``, ``tablecall detect`` and ``tablecall evaluate``.

Heavy imports happen inside each ``run``: ``tablecall detect`` never imports PyTorch or Ultralytics.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from web.cli import SEEDS, command, fail, out_of_range

EXIT_UNREADABLE = 2


# -- synth -----------------------------------------------------------------------------------------
def _synth_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, help="folder to write (detect/, classify/, contact_sheet.png)")
    parser.add_argument("--scenes", type=int, default=1000, help="number of scenes (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed: same seed, same data")
    parser.add_argument("--start", type=int, default=0, help="first scene number (to add to a set)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--heldout", action="store_true", help="held-out designs, whole scenes for evaluation")
    parser.add_argument(
        "--whole", action="store_true", help="training designs, whole scenes (a validation set for evaluate --tune)"
    )
    parser.add_argument(
        "--proc-share",
        type=float,
        default=0.6,
        help="share of the scenes' decks drawn procedurally (0.6; also --reader-boxes' and --face-scenes' scenes)",
    )
    parser.add_argument(
        "--face-designs", type=int, default=0, help="extra designs whose faces give classifier crops (~106 each)"
    )
    parser.add_argument(
        "--face-cards",
        type=int,
        default=0,
        metavar="DESIGNS",
        help="the face reader's crops instead (into OUT/faces): whole cards of this many designs (~106 each) ...",
    )
    parser.add_argument(
        "--face-scenes", type=int, default=0, help="... and the index pairs of this many scenes (~10 crops each)"
    )
    parser.add_argument(
        "--axis-aligned",
        action="store_true",
        help="the earlier kind of data: upright index boxes and crops at any angle (default: turned boxes and crops)",
    )
    parser.add_argument(
        "--sim-videos",
        type=int,
        default=0,
        metavar="N",
        help="classifier crops instead (into OUT/classify): indices of N simulated webcam videos of training designs",
    )
    parser.add_argument(
        "--face-videos",
        type=int,
        default=0,
        metavar="N",
        help="the face reader's crops (into OUT/faces) from N simulated webcam videos of training designs",
    )
    parser.add_argument(
        "--reader-boxes",
        type=int,
        default=0,
        metavar="N",
        help="classifier crops instead (into OUT/classify): N scenes of training designs boxed by a shipped detector"
        " and cut as the reader cuts its boxes",
    )
    parser.add_argument(
        "--models", type=Path, default=None, help="with --reader-boxes: the detector's folder (default models/)"
    )


def run_synth(args: argparse.Namespace) -> int:
    limits = {
        "--seed": SEEDS,
        "--start": (0, 10**9),
        "--workers": (1, 256),
        "--proc-share": (0, 1),
        "--face-designs": (0, 10**6),
    }
    if problem := out_of_range(args, limits) or _refused_counts(args):
        return fail(problem)
    if problem := _unwritable(args.out):
        return fail(problem)
    try:
        return _synth(args)
    except KeyboardInterrupt:
        print(
            f"\ntablecall: stopped; the scenes written in {args.out} so far are kept (each with its labels), and the "
            "same --seed and --start render the same scenes again",
            file=sys.stderr,
        )
        return 130


def _refused_counts(args: argparse.Namespace) -> str | None:
    """What is wrong with the counts of what synth is asked to render (None: nothing), said before OUT is made:
    a refused command leaves no empty folder behind. The first count given decides what synth renders."""
    if args.reader_boxes:
        return "--reader-boxes cannot be negative" if args.reader_boxes < 0 else None
    if args.sim_videos:
        return "--sim-videos cannot be negative" if args.sim_videos < 0 else None
    if args.face_cards or args.face_scenes or args.face_videos:
        if min(args.face_cards, args.face_scenes, args.face_videos) < 0:
            return "--face-cards, --face-scenes and --face-videos cannot be negative"
        return None
    return "--scenes must be at least 1" if args.scenes < 1 else None


def _synth(args: argparse.Namespace) -> int:
    """What synth renders (its counts checked first by `_refused_counts`): reader-box crops, sim crops, face crops
    or scenes."""
    from vision.cardart import ArtError
    from vision.dataset import default_pool, write_dataset

    if args.reader_boxes:
        from vision.backends import ModelError
        from vision.detect import MODELS
        from vision.readercrops import write_reader_crops

        try:
            out = args.out / "classify"
            models, pool = args.models or MODELS, default_pool(proc_share=args.proc_share)
            n = write_reader_crops(out, args.reader_boxes, models, args.seed, args.workers, args.start, pool=pool)
        except (ArtError, ModelError, ValueError) as exc:
            return fail(str(exc))
        print(json.dumps({"out": str(out), "reader_crops": n}))
        return 0
    if args.sim_videos:
        from vision.simcrops import write_sim_crops

        try:
            out = args.out / "classify"
            n = write_sim_crops(out, args.sim_videos, args.seed, args.workers, args.start)
        except (ArtError, FileNotFoundError) as exc:
            return fail(str(exc))
        print(json.dumps({"out": str(out), "sim_crops": n}))
        return 0
    if args.face_cards or args.face_scenes or args.face_videos:
        from vision.facecards import write_face_set
        from vision.simcrops import write_sim_crops

        out = args.out / "faces"
        n = 0
        try:
            if args.face_cards or args.face_scenes:
                pool = default_pool(proc_share=args.proc_share)
                n += write_face_set(
                    out, args.face_cards, args.face_scenes, args.seed, args.workers, args.start, pool=pool
                )
            if args.face_videos:
                n += write_sim_crops(out, args.face_videos, args.seed, args.workers, args.start, faces=True)
        except (ArtError, FileNotFoundError) as exc:
            return fail(str(exc))
        print(json.dumps({"out": str(out), "face_crops": n}))
        return 0
    try:
        totals = write_dataset(
            args.out,
            args.scenes,
            args.seed,
            args.workers,
            args.heldout,
            default_pool(args.heldout, args.proc_share),
            start=args.start,
            face_designs=args.face_designs,
            whole=args.heldout or args.whole,
            oriented=not args.axis_aligned,
        )
    except ArtError as exc:
        return fail(str(exc))
    print(json.dumps({"out": str(args.out), **totals}))
    return 0


def _unwritable(folder: Path) -> str | None:
    """Why the output ``folder`` cannot be made or written in (None: it can), said before any work is done."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"{folder}: cannot make that folder ({exc.strerror or exc})"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"{folder}: cannot write in that folder"
    return None


run_synth.arguments = _synth_arguments  # type: ignore[attr-defined]
command("synth", "render synthetic table scenes into detector and classifier training data")(run_synth)


# -- train -----------------------------------------------------------------------------------------
def _train_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=Path("data/synth"), help="what tablecall synth wrote")
    parser.add_argument(
        "--stage",
        choices=("both", "detector", "classifier", "face"),
        default="both",
        help="both: classifier then detector; face: the whole-card reader (data from synth --face-cards)",
    )
    parser.add_argument("--device", default="auto", help="auto (GPU 0 if any), cpu, 0, 0,1 …")
    parser.add_argument("--det-epochs", type=int, default=30, help="detector passes over its training tiles (30)")
    parser.add_argument("--det-minutes", type=float, default=None, help="wall-time cap (re-fits the schedule)")
    parser.add_argument("--det-imgsz", type=int, default=416, help="detector training image size, pixels (416)")
    parser.add_argument("--det-batch", type=int, default=32, help="detector images per training step (32)")
    parser.add_argument(
        "--det-lr0", type=float, default=0.002, help="detector start learning rate (lower it to continue --warm)"
    )
    parser.add_argument(
        "--det-scale", type=float, default=0.35, help="detector zoom augmentation: 1 +- this (default 0.35)"
    )
    parser.add_argument("--cls-epochs", type=int, default=20, help="classifier passes over its crops (20)")
    parser.add_argument("--cls-minutes", type=float, default=None, help="wall-time cap (re-fits the schedule)")
    parser.add_argument("--cls-batch", type=int, default=256, help="classifier crops per training step (256)")
    parser.add_argument("--cls-lr0", type=float, default=0.002, help="classifier start learning rate")
    parser.add_argument("--face-epochs", type=int, default=20, help="face reader passes over its crops (20)")
    parser.add_argument("--face-minutes", type=float, default=None, help="wall-time cap (re-fits the schedule)")
    parser.add_argument("--face-batch", type=int, default=128, help="face reader crops per training step (128)")
    parser.add_argument("--face-lr0", type=float, default=0.001, help="face reader start learning rate")
    parser.add_argument("--face-hue", type=float, default=0.5, help="hue jitter range (0.5, the default: any colour)")
    parser.add_argument(
        "--face-init", type=Path, default=None, help="start the face reader from these weights (e.g. the classifier's)"
    )
    parser.add_argument("--threads", type=int, default=2, help="torch threads on CPU (default 2)")
    parser.add_argument("--no-bf16", action="store_true", help="train in float32 on CPU")
    parser.add_argument("--resume", action="store_true", help="continue an interrupted run (each stage's last.pt)")
    parser.add_argument(
        "--warm", action="store_true", help="start each stage from its previous best.pt (none yet: from models/)"
    )
    parser.add_argument("--no-export", action="store_true", help="train only: leave models/ as it is")
    parser.add_argument(
        "--export-only",
        type=Path,
        default=None,
        metavar="WEIGHTS",
        help="train nothing: export these weights (a best.pt trained elsewhere) for --stage as a run would, with "
        "the --data and stage settings they were trained with recorded in data.yaml",
    )
    parser.add_argument(
        "--quantize-scenes",
        type=int,
        default=None,
        metavar="N",
        help="calibrate the detector's INT8 OpenVINO network on N rendered scenes (default 200; 0: keep it FP16)",
    )
    parser.add_argument("--fraction", type=float, default=1.0, help="use this share of the training images")
    parser.add_argument("--models", type=Path, default=None, help="where exports go (default models/)")
    parser.add_argument("--runs", type=Path, default=None, help="Ultralytics runs folder (default runs/vision)")


def run_train(args: argparse.Namespace) -> int:
    from vision import train

    limits = {
        "--det-epochs": (1, 10_000),
        "--cls-epochs": (1, 10_000),
        "--face-epochs": (1, 10_000),
        "--det-minutes": (0.01, 10_000),
        "--cls-minutes": (0.01, 10_000),
        "--face-minutes": (0.01, 10_000),
        "--det-imgsz": (32, 4096),
        "--det-batch": (1, 4096),
        "--cls-batch": (1, 65_536),
        "--face-batch": (1, 65_536),
        "--det-lr0": (1e-6, 1),
        "--cls-lr0": (1e-6, 1),
        "--face-lr0": (1e-6, 1),
        "--det-scale": (0, 0.9),
        "--face-hue": (0, 0.5),
        "--threads": (1, 256),
        "--fraction": (0.001, 1),
        "--quantize-scenes": (0, 100_000),
    }
    if problem := out_of_range(args, limits):
        return fail(problem)
    if problem := _device_problem(args.device):
        return fail(problem)
    if args.export_only is not None:
        if args.stage == "both":
            return fail("--export-only exports one stage's weights: give --stage detector, classifier or face")
        if not args.export_only.is_file():
            return fail(f"{args.export_only}: no such weights file")
        if args.stage == "classifier" and not args.data.exists():  # its oriented.json says how crops are turned
            return fail(f"{args.data}: no such folder; give the --data the classifier was trained on")
    elif not args.data.exists():
        return fail(f"{args.data}: no such folder; write training data first: tablecall synth {args.data}")
    recipe = train.Recipe(
        data=args.data,
        stages=("classifier", "detector") if args.stage == "both" else (args.stage,),
        detector=train.detector_config(
            args.det_epochs, args.det_minutes, args.det_imgsz, args.det_batch, args.det_lr0, args.det_scale
        ),
        classifier=train.classifier_config(args.cls_epochs, args.cls_minutes, batch=args.cls_batch, lr0=args.cls_lr0),
        face=train.face_config(
            args.face_epochs, args.face_minutes, batch=args.face_batch, lr0=args.face_lr0, hue=args.face_hue
        ),
        face_init=args.face_init,
        device=args.device,
        threads=args.threads,
        resume=args.resume,
        export=not args.no_export,
        models=args.models or train.MODELS,
        runs=args.runs or train.RUNS,
        bf16=not args.no_bf16,
        fraction=args.fraction,
        warm=args.warm,
        quantize=train.QUANTIZE_SCENES if args.quantize_scenes is None else max(0, args.quantize_scenes),
    )
    try:
        if args.export_only is not None:
            stage = recipe.stages[0]
            written = {stage: {"weights": str(args.export_only), **train.publish(args.export_only, stage, recipe)}}
        else:
            written = train.run(recipe)
    except FileNotFoundError as exc:
        return fail(str(exc))
    print(json.dumps(written, indent=2))
    return 0


def _device_problem(device: str) -> str | None:
    """Why ``--device`` cannot be used here (None: it can): ``auto`` and ``cpu`` always can; GPU numbers only where
    PyTorch sees that many GPUs."""
    text = str(device).strip().lower()
    if text in ("auto", "cpu"):
        return None
    numbers = text.split(",")
    if not all(n.strip().isdecimal() for n in numbers):
        return f"--device must be auto, cpu or GPU numbers like 0 or 0,1, not {device!r}"
    import torch

    count = torch.cuda.device_count()
    missing = [n.strip() for n in numbers if int(n) >= count]
    if missing:
        have = f"GPUs 0 to {count - 1}" if count else "no GPU PyTorch can use"
        return f"--device {device}: this machine has {have}; use --device cpu (or auto)"
    return None


run_train.arguments = _train_arguments  # type: ignore[attr-defined]
command("train", "train the corner-index detector and the card classifier, export ONNX + OpenVINO")(run_train)


# -- quantize --------------------------------------------------------------------------------------
def _quantize_arguments(parser: argparse.ArgumentParser) -> None:
    from vision.quantize import SCENES, SEED

    parser.add_argument("--models", type=Path, default=None, help="model folder (default models/)")
    parser.add_argument(
        "--scenes", type=int, default=SCENES, help=f"calibration scenes of the training designs ({SCENES})"
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"their seed ({SEED}; validation scenes are 77)")


def run_quantize(args: argparse.Namespace) -> int:
    from vision import quantize
    from vision.backends import ModelError
    from vision.detect import MODELS

    if args.scenes < 1:
        return fail("--scenes must be at least 1")
    if problem := out_of_range(args, {"--seed": SEEDS}):
        return fail(problem)
    try:
        record = quantize.quantize_detector(args.models or MODELS, args.scenes, args.seed)
    except ModelError as exc:
        return fail(str(exc))
    print(json.dumps(record))
    return 0


run_quantize.arguments = _quantize_arguments  # type: ignore[attr-defined]
command("quantize", "rewrite the detector's OpenVINO network in INT8, calibrated on rendered scenes")(run_quantize)


# -- detect ----------------------------------------------------------------------------------------
def _detect_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "images", type=Path, nargs="+", metavar="IMAGE", help="JPEG/PNG files, any size, or folders of them"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per image per line")
    parser.add_argument(
        "--save",
        type=Path,
        default=None,
        metavar="DIR",
        help="write annotated copies here, as NAME.jpg (NAME_.jpg where that is one of the images read: never over it)",
    )
    parser.add_argument("--models", type=Path, default=None, help="model folder (default models/)")
    _backend_argument(parser)
    parser.add_argument(
        "--conf", type=float, default=None, help="index detection threshold (default: data.yaml's tuned one, or 0.25)"
    )
    parser.add_argument(
        "--min-card", type=float, default=None, help="card reading threshold (default: data.yaml's tuned one, or 0.5)"
    )
    parser.add_argument(
        "--imgsz",
        type=_detector_size,
        default=None,
        help="detector input size, long side (default: as tuned, else 640; 1280 suits webcam frames of a table; "
        "auto: as tuned, and images whose indices come out small read again 1.5 times larger)",
    )
    parser.add_argument(
        "--no-faces", action="store_true", help="read the corner indices alone, without the whole-card reader"
    )


def _backend_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=("auto", "openvino", "onnxruntime", "opencv"),
        default="auto",
        help="the runtime that runs the networks (default auto: the fastest one installed)",
    )


def _detector_size(text: str) -> int | str:
    """``--imgsz``: a number of pixels, or ``auto`` (:data:`vision.detect.SMALL_INDEX`)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a number of pixels nor auto") from None


def _image_files(paths: list[Path]) -> list[tuple[Path, str | None]]:
    """The images to read, in order: each file as given, each folder's image files (by name); with each, why it
    cannot be read where that is known before trying (an empty folder)."""
    from vision.capture import IMAGE_SUFFIXES, image_files

    found: list[tuple[Path, str | None]] = []
    for path in paths:
        if not path.is_dir():
            found.append((path, None))
            continue
        inside = image_files(path)
        found += [(p, None) for p in inside] or [(path, f"a folder with no {'/'.join(IMAGE_SUFFIXES)} images in it")]
    return found


def run_detect(args: argparse.Namespace) -> int:
    import cv2

    from vision.backends import ModelError
    from vision.capture import read_image
    from vision.detect import MODELS, CardReader, annotate

    if problem := out_of_range(args, {"--conf": (0, 1), "--min-card": (0, 1)}):
        return fail(problem)
    try:
        reader = CardReader(
            args.models or MODELS,
            args.backend,
            conf=args.conf,
            min_card=args.min_card,
            imgsz=args.imgsz,
            faces=not args.no_faces,
        )
    except ModelError as exc:
        return fail(str(exc))
    if args.save:
        try:
            args.save.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return fail(f"--save {args.save}: cannot make that folder ({exc.strerror or exc})")
    unreadable = 0
    files = _image_files(args.images)
    used = {_same_file_key(p) for p, _ in files}  # the annotated copies never replace an image read
    for path, problem in files:
        image = read_image(path) if problem is None and path.is_file() else None
        if image is None:
            unreadable += 1
            problem = problem or ("no such file" if not path.exists() else "cannot read it as an image")
            print(f"tablecall: {path}: {problem} (skipped)", file=sys.stderr)
            continue
        cards = reader.read(image)
        if args.json:
            print(json.dumps({"image": str(path), "cards": [c.to_json() for c in cards]}), flush=True)
        else:
            listed = ", ".join(f"{c.card} {c.confidence:.2f}" for c in cards) or "no cards"
            print(f"{path}: {listed}", flush=True)
        if args.save:
            name = path.stem
            while _same_file_key(args.save / f"{name}.jpg") in used:
                name += "_"
            out = args.save / f"{name}.jpg"
            used.add(_same_file_key(out))
            if not cv2.imwrite(str(out), annotate(image, cards)):
                return fail(f"--save: cannot write {out} (is the folder writable?)")
    return EXIT_UNREADABLE if unreadable else 0


def _same_file_key(path: Path) -> str:
    """One key for the names that open the same file (``./a.jpg``, ``a.jpg``; ``A.JPG`` on a disk that ignores case)."""
    return str(path.resolve()).casefold()


run_detect.arguments = _detect_arguments  # type: ignore[attr-defined]
command("detect", "read the playing cards in images (prints JSON lines with --json)")(run_detect)


# -- evaluate --------------------------------------------------------------------------------------
def _evaluate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--heldout",
        type=Path,
        default=None,
        metavar="SCENES",
        help="measure on these held-out scenes: OUT/scenes of 'tablecall synth OUT --heldout'",
    )
    parser.add_argument("--pinochle", type=Path, default=None, help="the real pinochle photos folder")
    parser.add_argument("--latency", action="store_true", help="median ms per 1280x720 frame")
    parser.add_argument(
        "--stages", type=Path, default=None, metavar="DIR", help="where cards are lost, stage by stage, on these scenes"
    )
    parser.add_argument(
        "--ap", type=Path, default=None, metavar="DIR", help="mAP50 of the index boxes of these scenes (synth --whole)"
    )
    parser.add_argument("--sim", action="store_true", help="the demo games as simulated webcam video, held-out art")
    parser.add_argument("--sim-seed", type=int, nargs="+", default=[31], help="video seeds for --sim (default 31)")
    parser.add_argument(
        "--sim-train", action="store_true", help="--sim in training designs (to choose settings on), not held-out art"
    )
    parser.add_argument("--limit", type=int, default=None, help="at most this many images per set")
    parser.add_argument("--no-faces", action="store_true", help="measure the corner indices alone (no face reader)")
    parser.add_argument("--models", type=Path, default=None, help="model folder to measure (default models/)")
    _backend_argument(parser)
    parser.add_argument(
        "--imgsz",
        type=_detector_size,
        default=None,
        help="detector input size, long side (default: as tuned, else 640; --tune keeps 640 unless given one; "
        "auto: as tuned, and images whose indices come out small read again 1.5 times larger)",
    )
    parser.add_argument(
        "--tune",
        type=Path,
        default=None,
        metavar="DIR",
        help="choose the reader's thresholds on these validation scenes (synth --whole) and save them in data.yaml",
    )


def run_evaluate(args: argparse.Namespace) -> int:
    from vision import evaluate, stages
    from vision.backends import ModelError
    from vision.detect import MODELS, CardReader

    if problem := out_of_range(args, {"--sim-seed": SEEDS, "--limit": (1, 10**9)}) or _unmeasurable(args):
        return fail(problem)
    try:
        reader = CardReader(args.models or MODELS, args.backend, imgsz=args.imgsz, faces=not args.no_faces)
    except ModelError as exc:
        return fail(str(exc))
    report: dict[str, object] = {
        "backend": reader.backend,
        "detector_precision": reader.detector_precision,
        "imgsz": f"{reader.imgsz}, auto" if reader.auto else reader.imgsz,
        "faces": reader.face is not None,
    }
    if args.tune:
        try:
            tuned = evaluate.tune(args.tune, reader, args.limit, None if args.imgsz else evaluate.TUNE_IMGSZ)
        except FileNotFoundError as exc:
            return fail(str(exc))
        chosen = tuned["chosen"]
        reader.conf, reader.min_card = chosen["conf"], chosen["min_card"]
        reader.imgsz = int(chosen.get("imgsz", reader.imgsz))
        report["imgsz"] = reader.imgsz
        _save_thresholds(args.models or MODELS, {**chosen, "scenes": tuned["scenes"], "tuned_on": str(args.tune)})
        report["tune"] = tuned
    report["thresholds"] = {"conf": reader.conf, "min_card": reader.min_card}
    if args.heldout:
        report["heldout"] = evaluate.heldout(args.heldout, reader, args.limit)
    if args.pinochle:
        report["pinochle"] = evaluate.pinochle(args.pinochle, reader, args.limit)
    if args.stages:
        report["stages"] = stages.stages(args.stages, reader, args.limit)
    if args.ap:
        report["ap50"] = evaluate.ap50(args.ap, reader, args.limit)
    if args.sim:
        split = "train" if args.sim_train else "heldout"
        runs = [evaluate.simulated(reader, seed, split=split) for seed in args.sim_seed]
        report["sim"] = runs[0] if len(runs) == 1 else evaluate.combined(runs)
    if args.latency:
        from vision.synth import DesignPool, render_scene

        frame = render_scene(7, DesignPool((), proc_share=1.0), size=(1280, 720)).image[:, :, ::-1]
        report["latency"] = evaluate.latency(reader, frame.copy())
    print(json.dumps(report, indent=2))
    return 0


def _unmeasurable(args: argparse.Namespace) -> str | None:
    """Why a folder given to ``evaluate`` holds nothing to measure (None: each holds something), said before the
    measurements, which take minutes, rather than as zeros after them."""
    for option, folder in (("--heldout", args.heldout), ("--stages", args.stages), ("--ap", args.ap)):
        if folder is not None and (folder / "scenes").is_dir():
            return f"{option} {folder}: that is the folder tablecall synth wrote; give its scenes: {folder / 'scenes'}"
        if folder is not None and not any(folder.glob("*.json")):
            return (
                f"{option} {folder}: no rendered scenes there (tablecall synth OUT --heldout writes held-out scenes "
                "to OUT/scenes, --whole scenes of the training designs)"
            )
    if args.pinochle is not None and not (args.pinochle / "labels-yolo" / "classes.txt").is_file():
        return (
            f"--pinochle {args.pinochle}: not a folder of rank-labelled photos (images/ and labels-yolo/ with "
            "classes.txt, as in ../shared/realphotos/pinochle-phone)"
        )
    return None


def _save_thresholds(models: Path, chosen: dict[str, object]) -> None:
    import yaml

    from vision.backends import save_meta

    meta = yaml.safe_load((models / "data.yaml").read_text())
    meta["reader"] = chosen
    save_meta(models, meta)


run_evaluate.arguments = _evaluate_arguments  # type: ignore[attr-defined]
command("evaluate", "measure the card reader: held-out scenes, real photos, latency")(run_evaluate)
