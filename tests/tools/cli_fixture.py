#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""exactquality-score against libvmaf 3.2.0 on the fixtures in tests/data.

Decodes a pair with ffmpeg -- to YUV4MPEG2 (REF through a pipe on stdin, as
docs/cli.md shows), or to raw frames turned into a new pair by gen_frames
(tests/lib/gen_frames.c) -- runs the CLI, and compares every value of the
expected libvmaf CSVs with == (both sides parsed as doubles), column by name.
Also checks the pooled summary on stderr against libvmaf's pooling done here
in frame order, with ==.

Usage: cli_fixture.py TOOL GEN_FRAMES REF.mkv DIST.mkv PIX_FMT FRAMES MODE
                      [W H FORMAT] CSV...
  MODE y4m:  decode to PIX_FMT YUV4MPEG2 (FRAMES 0 = all)
  MODE odd|p12|p16: decode to raw PIX_FMT, gen_frames MODE W H, then score raw
                    frames W x H given as --format FORMAT
"""
import os
import shutil
import subprocess
import sys
import tempfile

from eqcheck import check, done

tool, gen, ref_mkv, dist_mkv, pix_fmt, frames, mode = sys.argv[1:8]
rest = sys.argv[8:]
if mode != "y4m":
    width, height, fmt = rest[0], rest[1], rest[2]
    rest = rest[3:]
csvs = rest


def read_csv(text):
    lines = [l for l in text.splitlines() if l and not l.startswith("#")]
    header = lines[0].split(",")
    return header, [dict(zip(header, (float(x) for x in l.split(",")))) for l in lines[1:]]


if not shutil.which("ffmpeg"):
    print("cli_fixture.py: ffmpeg is needed (apt install ffmpeg)", file=sys.stderr)
    sys.exit(1)
tmp = tempfile.mkdtemp(prefix="eq-cli-fixture-")
limit = ["-frames:v", frames] if frames != "0" else []
metrics = ["-m", "psnr,ssim,ms_ssim"]

try:
    if mode == "y4m":
        dist = os.path.join(tmp, "dist.y4m")
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", dist_mkv, *limit,
                        "-pix_fmt", pix_fmt, "-strict", "-1", "-f", "yuv4mpegpipe", dist],
                       check=True)
        dec = subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-i", ref_mkv, *limit,
                                "-pix_fmt", pix_fmt, "-strict", "-1", "-f", "yuv4mpegpipe",
                                "-"], stdout=subprocess.PIPE)
        p = subprocess.run([tool, *metrics, "-", dist], stdin=dec.stdout, capture_output=True)
        dec.stdout.close()
        check(dec.wait() == 0, "ffmpeg decoded REF into the pipe")
    else:
        paths = []
        for i, mkv in enumerate([ref_mkv, dist_mkv]):
            dec = os.path.join(tmp, f"{i}.dec")
            out = os.path.join(tmp, f"{i}.yuv")
            subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", mkv, *limit,
                            "-f", "rawvideo", "-pix_fmt", pix_fmt, dec], check=True)
            # gen_frames takes the decoded size: odd adds a column and a row
            dw, dh = int(width), int(height)
            if mode == "odd":
                dw, dh = dw - 1, dh - 1
            subprocess.run([gen, mode, str(dw), str(dh), str(i + 1), dec, out], check=True)
            paths.append(out)
        p = subprocess.run([tool, *metrics, "--width", width, "--height", height,
                            "--format", fmt, *paths], capture_output=True)

    out, err = p.stdout.decode(), p.stderr.decode()
    check(p.returncode == 0, "exit status 0", f"{p.returncode}: {err}")
    header, rows = read_csv(out)

    for csv in csvs:
        with open(csv) as f:
            exp_header, exp_rows = read_csv(f.read())
        name = os.path.basename(csv)
        check(len(rows) == len(exp_rows), f"{name}: {len(exp_rows)} frames", f"got {len(rows)}")
        cols = [c for c in exp_header if c != "frame"]
        missing = [c for c in cols if c not in header]
        check(not missing, f"{name}: every libvmaf column is printed", str(missing))
        differ = 0
        for i, (got, want) in enumerate(zip(rows, exp_rows)):
            check(got["frame"] == want["frame"] == i, f"{name}: frame {i} numbered")
            for c in cols:
                if c in got and got[c] != want[c]:
                    differ += 1
                    if differ <= 5:
                        print(f"  {name} frame {i} {c}: {got[c]!r} != {want[c]!r}",
                              file=sys.stderr)
                check(c in got and got[c] == want[c], f"{name} frame {i} {c} ==")
        print(f"{name}: {len(exp_rows)} frames x {len(cols)} values compared, "
              f"{differ} differ", file=sys.stderr)

    # The pooled summary: libvmaf's formulas over the printed values, in frame
    # order (Python adds floats one by one, as the C loop does).
    summary = {}
    for line in err.splitlines():
        f = line.split()
        if len(f) == 6 and f[0] in header:
            summary[f[0]] = [float(x) for x in f[1:]]
    check(set(summary) == set(header[1:]), "summary has every column", str(summary.keys()))
    for c, (n, mean, hmean, mn, mx) in summary.items():
        xs = [r[c] for r in rows]
        s = 0.0
        inv = 0.0
        for x in xs:
            s += x
            inv += 1.0 / (x + 1.0)
        ok = (n == len(xs) and mean == s / len(xs) and hmean == len(xs) / inv - 1.0 and
              mn == min(xs) and mx == max(xs))
        check(ok, f"summary of {c} == libvmaf's pooling",
              f"{n} {mean!r} {hmean!r} {mn!r} {mx!r} vs {s / len(xs)!r} "
              f"{len(xs) / inv - 1.0!r} {min(xs)!r} {max(xs)!r}")
finally:
    shutil.rmtree(tmp)

done()
