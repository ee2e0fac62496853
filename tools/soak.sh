#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Element soak: FRAMES frame pairs at 576x324 I420 through `exactquality`
# (CPU backend) in a real pipeline, sampling the process's resident memory
# from /proc/PID/statm once a second. After the warm-up (the first WARMUP
# frames, located by time: the source runs at a steady rate) resident memory
# may grow by at most MAX_GROWTH_KB (1024) — otherwise the script fails.
#
#   tools/soak.sh [BUILD_DIR]        (default: build)
#   FRAMES=20000 WARMUP=2000 METRICS=... BACKEND=cpu tools/soak.sh build
#
# ref: videotestsrc's moving ball; dist: the same through videobalance, so
# every metric sees a real difference. Per-frame messages stay on (as in a
# monitoring application) and are consumed by gst-launch's bus handler.
# Samples go to $OUT (default soak-rss.csv): seconds,rss_kB.
set -euo pipefail
BUILD=${1:-build}
FRAMES=${FRAMES:-20000}
WARMUP=${WARMUP:-2000}
BACKEND=${BACKEND:-cpu}
MAX_GROWTH_KB=${MAX_GROWTH_KB:-1024}
OUT=${OUT:-soak-rss.csv}
METRICS_PROP=${METRICS:+metrics=$METRICS}

export GST_PLUGIN_PATH="$(cd "$BUILD" && pwd)/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
caps="video/x-raw,format=I420,width=576,height=324,framerate=25/1"

gst-launch-1.0 -q \
  exactquality name=eq backend="$BACKEND" $METRICS_PROP ! fakesink sync=false \
  videotestsrc num-buffers="$FRAMES" pattern=ball ! "$caps" ! eq.ref_sink \
  videotestsrc num-buffers="$FRAMES" pattern=ball ! "$caps" ! \
    videobalance contrast=0.9 brightness=0.02 ! "$caps" ! eq.dist_sink \
  >/dev/null &
pid=$!
page_kb=$(( $(getconf PAGESIZE) / 1024 ))
start=$(date +%s%N)
echo "seconds,rss_kB" >"$OUT"
while kill -0 "$pid" 2>/dev/null; do
  if read -r _ res _ <"/proc/$pid/statm" 2>/dev/null; then
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "$((ms / 1000)).$(printf %03d $((ms % 1000))),$((res * page_kb))" >>"$OUT"
  fi
  sleep 1
done
rc=0
wait "$pid" || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "soak: the pipeline failed (exit $rc)" >&2
  exit 1
fi

python3 - "$OUT" "$FRAMES" "$WARMUP" "$MAX_GROWTH_KB" <<'PY'
import sys
path, frames, warmup, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = [tuple(map(float, l.split(','))) for l in open(path).read().split('\n')[1:] if l]
if len(rows) < 4:
    sys.exit("soak: too few samples (the run was too short to judge)")
total = rows[-1][0]
t_warm = total * warmup / frames
after = [r for r in rows if r[0] >= t_warm]
base = after[0][1]
growth_end = after[-1][1] - base
growth_max = max(r[1] for r in after) - base
print(f"soak: {frames} frames in ~{total:.0f} s ({frames / total:.1f} fps), "
      f"{len(rows)} samples")
print(f"rss: first {rows[0][1]:.0f} kB, after warm-up ({warmup} frames, {t_warm:.0f} s) "
      f"{base:.0f} kB, last {after[-1][1]:.0f} kB, max {max(r[1] for r in rows):.0f} kB")
print(f"rss growth after warm-up: {growth_end:.0f} kB (last sample), "
      f"{growth_max:.0f} kB (max); limit {limit} kB")
ok = growth_max < limit
print("soak:", "OK" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
