#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""exactquality-score's ssimulacra2 on the PNG pairs of tests/data/ssimulacra2
(8-bit sRGB), decoded by ffmpeg to raw RGB and scored as --format RGB:
identical images score exactly 100; photo pairs lie within 0.001 of the
float64 check (float64.csv) and beside libjxl's own band (its AVX2 and SSE4
results: not below by more than 0.005, above by at most 0.05), as
tests/lib/test_ssimulacra2.c holds the library to (another project's tool,
so a band, not ==); the same pictures as RGBx / BGRA score the same bits.

Usage: cli_ssimulacra2.py TOOL DATA_DIR
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

from eqcheck import check, done

tool, data = sys.argv[1:3]


def decode(png, pix_fmt, out):
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", png, "-f", "rawvideo",
                    "-pix_fmt", pix_fmt, out], check=True)


with open(os.path.join(data, "float64.csv")) as f:
    float64 = {(r["ref_png"], r["dist_png"]): float(r["float64"]) for r in csv.DictReader(f)}
tmp = tempfile.mkdtemp(prefix="eq-cli-ssimu2-")
photos = 0
try:
    with open(os.path.join(data, "scores.csv")) as f:
        for row in csv.DictReader(f):
            ref, dist = row["ref_png"], row["dist_png"]
            syn = ref.startswith("syn_")
            if ".rgb48." in ref or (syn and ref != dist):
                continue
            w, h = row["width"], row["height"]
            raws = []
            for i, png in enumerate([ref, dist]):
                raws.append(os.path.join(tmp, f"{i}.rgb"))
                decode(os.path.join(data, png), "rgb24", raws[-1])
            p = subprocess.run([tool, "-q", "-m", "ssimulacra2", "--width", w, "--height", h,
                                "--format", "RGB", *raws], capture_output=True, text=True)
            check(p.returncode == 0, f"{ref} {dist}: exit 0", p.stderr)
            lines = p.stdout.splitlines()
            check(lines[:1] == ["frame,ssimulacra2"] and len(lines) == 2,
                  f"{ref}: one row", p.stdout)
            ours = float(lines[1].split(",")[1])
            a, b = float(row["score"]), float(row["score_sse4"])
            if ref == dist:
                check(ours == 100.0, f"{ref} against itself: exactly 100", repr(ours))
            else:
                photos += 1
                f64 = float64[(ref, dist)]
                check(abs(ours - f64) <= 0.001,
                      f"{ref} {dist}: {ours!r} within 0.001 of the float64 check {f64!r}")
                check(min(a, b) - 0.005 <= ours <= max(a, b) + 0.05,
                      f"{ref} {dist}: {ours!r} beside libjxl's band [{a!r}, {b!r}]")
            # The same pictures in the 4-byte layouts: the same bits.
            for gst, pix in (("RGBx", "rgb0"), ("BGRA", "bgra")):
                for i, png in enumerate([ref, dist]):
                    decode(os.path.join(data, png), pix, raws[i])
                q = subprocess.run([tool, "-q", "-m", "ssimulacra2", "--width", w, "--height",
                                    h, "--format", gst, *raws], capture_output=True, text=True)
                check(q.stdout == p.stdout, f"{ref} as {gst}: the same bits as RGB",
                      q.stdout + q.stderr)
finally:
    shutil.rmtree(tmp)
check(photos >= 6, "photo pairs scored", str(photos))
done()
