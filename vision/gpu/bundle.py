"""Pack what a lent GPU machine needs to render scenes and train there, and unpack it on arrival.

That machine has Python, torch and OpenCV but none of our apt or npm packages, no Ultralytics, and no internet, and
what travels there is capped at 64 MiB.  So ``pack`` writes, under ``.gpu/`` (gitignored):

- ``fonts.tar.gz``: every font the procedural design draws with, subset to the glyphs it draws (0.6 MB instead of
  hundreds); the subset fonts draw those glyphs as the full ones do;
- ``faces.tar``: the rendered face cache of the training designs (``data/faces``), PNG recompressed as WebP
  (10 MB instead of 50 MB; the scene renderer blurs, warps, relights and JPEG-compresses them anyway);
- ``whl/``: the Ultralytics wheels of this checkout's virtual environment (``pip download`` from PyPI).

``unpack DIR`` turns the WebP faces back into the PNG cache on the GPU machine.

    python -m vision.gpu.bundle pack        # here, after `tablecall synth` has rendered data/faces
    python -m vision.gpu.bundle unpack data/faces   # there (vision/gpu/round.sh does it)
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
from concurrent.futures import ProcessPoolExecutor
from importlib import metadata
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / ".gpu"
GLYPHS = "AKQJ0123456789OER\u2660\u2665\u2666\u2663"  # every character vision/procedural.py draws
WHEELS = ("ultralytics", "ultralytics-thop")


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def pack_fonts(out: Path) -> int:
    from vision.procedural import fonts

    ranks, suits = fonts()
    paths = sorted(set(ranks) | set(suits))
    with tarfile.open(out, "w:gz") as tar:
        for path in paths:
            _add(tar, path.lstrip("/"), subset_font(path))  # unpacked at / there: the same paths as here
    return len(paths)


def subset_font(path: str, text: str = GLYPHS) -> bytes:
    """The font file cut down to the glyphs of ``text``, kerning and hinting kept."""
    from fontTools import subset

    options = subset.Options()
    options.notdef_outline = True
    options.name_IDs = ["*"]
    options.hinting = True
    font = subset.load_font(io.BytesIO(Path(path).read_bytes()), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    buffer = io.BytesIO()
    font.save(buffer)
    return buffer.getvalue()


def pack_faces(faces: Path, out: Path) -> int:
    if not faces.is_dir():
        raise SystemExit(f"{faces} does not exist: render it first (tablecall synth data/smoke --scenes 40)")
    from vision.cardart import cache_dir, designs  # here only: the GPU machine's unpack needs none of it

    # only the training designs travel: a round renders training scenes, and held-out art never leaves this machine
    training = {cache_dir(d).name for d in designs("train")}
    count = 0
    with tarfile.open(out, "w") as tar:
        for folder in sorted(p for p in faces.iterdir() if p.is_dir() and p.name in training):
            for path in sorted(folder.iterdir()):
                name = f"faces/{folder.name}/{path.name}"
                data = path.read_bytes()
                if path.suffix == ".png":
                    buffer = io.BytesIO()
                    Image.open(io.BytesIO(data)).save(buffer, "WEBP", quality=90, method=4)
                    data, name = buffer.getvalue(), name[: -len(".png")] + ".webp"
                    count += 1
                _add(tar, name, data)
    return count


def pack_wheels(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    pins = [f"{name}=={metadata.version(name)}" for name in WHEELS]
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(out), *pins], check=True)


def _unwebp(path: Path) -> None:
    Image.open(path).save(path.with_suffix(".png"))
    path.unlink()


def unpack_faces(faces: Path, workers: int = 16) -> int:
    files = sorted(faces.rglob("*.webp"))
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_unwebp, files, chunksize=32))
    return len(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.gpu.bundle", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    pack = sub.add_parser("pack", help="write .gpu/ (fonts, faces, wheels)")
    pack.add_argument("--faces", type=Path, default=ROOT / "data" / "faces")
    pack.add_argument("--out", type=Path, default=BUNDLE)
    unpack = sub.add_parser("unpack", help="turn the WebP faces back into PNG (on the GPU machine)")
    unpack.add_argument("faces", type=Path)
    args = parser.parse_args(argv)
    if args.command == "unpack":
        print(f"faces: {unpack_faces(args.faces)} unpacked")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"fonts: {pack_fonts(args.out / 'fonts.tar.gz')} subset")
    print(f"faces: {pack_faces(args.faces, args.out / 'faces.tar')} recompressed")
    pack_wheels(args.out / "whl")
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"bundle: {args.out} ({size / 2**20:.1f} MiB; carry it with run(carry=['.gpu']))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
