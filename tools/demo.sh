#!/bin/bash
# Scores the bundled fixture pair through a real GStreamer pipeline:
# decode tests/data/lady_ref.mkv and lady_crf38.mkv, score every frame with
# the exactquality element from BUILD_DIR (backend=auto: CUDA when a device
# opens, the CPU otherwise), print the per-frame scores and the summary.
#
#   tools/demo.sh BUILD_DIR [REF.mkv DIST.mkv]
set -euo pipefail
BUILD_DIR=$(cd "${1:?usage: tools/demo.sh BUILD_DIR [REF DIST]}" && pwd)
SRC_DIR=$(cd "$(dirname "$0")/.." && pwd)
REF=${2:-$SRC_DIR/tests/data/lady_ref.mkv}
DIST=${3:-$SRC_DIR/tests/data/lady_crf38.mkv}

if [ ! -f "$BUILD_DIR/gst/libgstexactquality.so" ]; then
  echo "demo: $BUILD_DIR/gst/libgstexactquality.so is missing: build with the GStreamer" \
       "development packages installed (meson option gst)" >&2
  exit 1
fi
# The plugin from this build, never an installed copy.
export GST_PLUGIN_PATH_1_0="$BUILD_DIR/gst"
export GST_REGISTRY_1_0="$BUILD_DIR/demo-registry.bin"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
LOG="$TMP/scores.csv"

DECODE="matroskademux ! decodebin ! videoconvert ! video/x-raw,format=I420"
echo "exactquality demo: $(basename "$REF") vs $(basename "$DIST")"
echo "pipeline: gst-launch-1.0 exactquality name=eq backend=auto log-location=scores.csv ! fakesink \\"
echo "            filesrc location=$(basename "$REF") ! $DECODE ! eq.ref_sink \\"
echo "            filesrc location=$(basename "$DIST") ! $DECODE ! eq.dist_sink"
echo

# -m: the bus messages; the per-frame backend comes from them
gst-launch-1.0 -m exactquality name=eq backend=auto log-location="$LOG" log-format=csv ! fakesink \
  filesrc location="$REF" ! $DECODE ! eq.ref_sink \
  filesrc location="$DIST" ! $DECODE ! eq.dist_sink > "$TMP/messages.txt" 2>&1 || {
  cat "$TMP/messages.txt" >&2
  echo "demo: the pipeline failed" >&2
  exit 1
}
grep -q "exactquality-summary" "$TMP/messages.txt" || {
  cat "$TMP/messages.txt" >&2
  echo "demo: no summary message" >&2
  exit 1
}
BACKEND=$(grep -o 'exactquality-summary.*backend=(string)[a-z]*' "$TMP/messages.txt" |
  sed 's/.*backend=(string)//')
echo "backend: $BACKEND"
echo

# Per-frame scores and the pooled rows, from the log (every double %.17g).
awk -F, '
  NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    n = split("frame psnr_y psnr_cb psnr_cr float_ssim float_ms_ssim ssimulacra2", want, " ")
    line = ""
    for (k = 1; k <= n; k++) line = line sprintf(k == 1 ? "%-13s" : " %22s", want[k])
    print line
    next
  }
  /^#/ { sub(/^# summary /, ""); summary = $0; next }
  $1 == "mean" { print "" }
  {
    line = ""
    for (k = 1; k <= n; k++) {
      v = (want[k] in col) ? $(col[want[k]]) : ""
      if (v == "") v = "-"
      line = line sprintf(k == 1 ? "%-13s" : " %22s", v)
    }
    print line
  }
  END { print ""; print "summary: " summary }' "$LOG"
