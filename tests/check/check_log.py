#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The element's log files, end to end through gst-launch-1.0.

Scores the same pair twice (log-format=jsonl, then csv) and checks:
- every jsonl line parses as JSON; one object per frame, the summary last;
- the csv header is frame + the library's value names, one row per frame;
- both logs carry the same values (%.17g parses back to the same bits);
- the summary's pooled statistics equal a computation made here: mean and
  libvmaf's harmonic mean summed in frame order, min, max, population
  standard deviation, nearest-rank percentiles.
Usage: check_log.py GST_LAUNCH REF DIST (REF/DIST: .mkv files or "-" for
videotestsrc).
"""
import json
import math
import os
import subprocess
import sys
import tempfile

STATS = ["mean", "harmonic_mean", "min", "max", "stddev", "p1", "p5", "p50"]


def sources(ref, dist):
    if ref == "-" or not os.path.exists(ref):
        caps = "video/x-raw,format=I420,width=256,height=192,framerate=25/1"
        return (f"videotestsrc num-buffers=9 pattern=ball ! {caps}",
                f"videotestsrc num-buffers=9 pattern=ball ! {caps} ! "
                "videobalance contrast=0.7 saturation=0.8")
    dec = ("filesrc location={} ! matroskademux ! decodebin ! videoconvert ! "
           "video/x-raw,format=I420")
    return dec.format(ref), dec.format(dist)


def run(gst_launch, ref, dist, fmt, path):
    s_ref, s_dist = sources(ref, dist)
    cmd = [gst_launch, "-q"] + (
        f"exactquality name=eq log-location={path} log-format={fmt} ! fakesink "
        f"{s_ref} ! eq.ref_sink {s_dist} ! eq.dist_sink").split()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit(f"gst-launch failed ({r.returncode}): {r.stderr}")


def pooled(xs):
    n = len(xs)
    s = 0.0
    inv = 0.0
    for x in xs:
        s += x
        inv += 1.0 / (x + 1.0)
    mean = s / n
    sq = 0.0
    for x in xs:
        d = x - mean
        sq += d * d
    srt = sorted(xs)

    def pct(k):
        rank = max(1, -(-k * n // 100))  # ceil(k n / 100)
        return srt[rank - 1]
    return {"mean": mean, "harmonic_mean": n / inv - 1.0, "min": min(xs),
            "max": max(xs), "stddev": math.sqrt(sq / n), "p1": pct(1),
            "p5": pct(5), "p50": pct(50)}


def main():
    gst_launch, ref, dist = sys.argv[1:4]
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        jpath, cpath = os.path.join(tmp, "log.jsonl"), os.path.join(tmp, "log.csv")
        run(gst_launch, ref, dist, "jsonl", jpath)
        run(gst_launch, ref, dist, "csv", cpath)
        with open(jpath) as f:
            records = [json.loads(line) for line in f]
        with open(cpath) as f:
            lines = f.read().splitlines()

    frames, summary = records[:-1], records[-1]
    assert "summary" in summary, "the summary is not the last record"
    summary = summary["summary"]
    assert all("frame" in r for r in frames)
    assert [r["frame"] for r in frames] == list(range(len(frames)))
    assert summary["frames"] == len(frames), summary
    assert summary["unpaired"] == 0, summary
    # a pair fails when one of its metrics could not be scored (for instance
    # a metric not built into this library): its main value is then absent
    mains = ("psnr_y", "float_ssim", "float_ms_ssim", "ssimulacra2")
    failed = sum(1 for r in frames if any(r.get(m, 0) is None for m in mains))
    assert summary["failed"] == failed, (summary["failed"], failed)
    for r in frames:
        for key in ("timestamp", "stream_time", "running_time", "duration", "backend"):
            assert key in r, (key, r)

    header = lines[0].split(",")
    assert header[0] == "frame" and header[1:4] == ["psnr_y", "psnr_cb", "psnr_cr"], header
    rows = [l.split(",") for l in lines[1:1 + len(frames)]]
    for i, row in enumerate(rows):
        assert row[0] == str(i) and len(row) == len(header), row
        for name, cell in zip(header[1:], row[1:]):
            assert name in frames[i], (i, name)
            if cell == "nan":
                assert frames[i][name] is None, (i, name)
                continue
            if float(cell) != frames[i][name]:
                print(f"frame {i} {name}: csv {cell}, jsonl {frames[i][name]!r}")
                fails += 1
    stat_rows = lines[1 + len(frames):1 + len(frames) + len(STATS)]
    assert [r.split(",")[0] for r in stat_rows] == STATS, stat_rows
    assert lines[-1].startswith(f"# summary frames={len(frames)} "), lines[-1]

    checked = 0
    for name in header[1:]:
        xs = [r[name] for r in frames if r[name] is not None]
        if not xs:
            assert name not in summary["pooled"]
            continue
        want = pooled(xs)
        got = summary["pooled"][name]
        assert got["n"] == len(xs)
        for k in STATS:
            if got[k] != want[k]:
                print(f"{name} {k}: element {got[k]!r}, computed here {want[k]!r}")
                fails += 1
        col = header.index(name)
        for k, row in zip(STATS, stat_rows):
            if float(row.split(",")[col]) != want[k]:
                print(f"{name} {k}: csv {row.split(',')[col]}, computed {want[k]!r}")
                fails += 1
        checked += 1
    print(f"{len(frames)} frames, {checked} values pooled; {fails} differences")
    return 1 if fails or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
