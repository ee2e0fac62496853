#!/bin/bash
# Element throughput with gst-launch-1.0 and fakesink sync=false.
#
#   tools/bench_element.sh BUILD_DIR [FRAMES] [WIDTHxHEIGHT] [BACKEND]
#
# Scores FRAMES generated 8-bit 4:2:0 frames (default 300 at 576x324, CPU
# backend) against a videobalance'd copy, once per metric and once with all
# four (with frames-in-flight 1 and 2), next to a baseline pipeline without the element (sources, tee,
# videobalance only), all in one run. Prints frames per second of each
# pipeline, and the element's own rate with the baseline's time taken out.
#
# SOURCE=files renders 16 frames of each stream once (zone plate against a
# videobalance'd copy) into a temporary folder and loops them with
# multifilesrc + rawvideoparse: frames come from memory (page cache) at far
# more than videotestsrc's rate, so the element is what is measured (at 4K
# videotestsrc itself delivers under 100 frames a second on a 16-core host).
# FIF lists the frames-in-flight values tried with all four metrics
# (default "1 2"); SINGLE=0 skips the one-metric runs.
set -euo pipefail
BUILD_DIR=$(cd "${1:?usage: tools/bench_element.sh BUILD_DIR [FRAMES] [WxH] [BACKEND]}" && pwd)
FRAMES=${2:-300}
SIZE=${3:-576x324}
BACKEND=${4:-cpu}
W=${SIZE%x*}
H=${SIZE#*x}
export GST_PLUGIN_PATH_1_0="$BUILD_DIR/gst"
export GST_REGISTRY_1_0="$BUILD_DIR/bench-registry.bin"

SOURCE=${SOURCE:-videotestsrc}
FIF=${FIF:-1 2}
SINGLE=${SINGLE:-1}
if [ "$SOURCE" = files ]; then
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  gst-launch-1.0 -q videotestsrc num-buffers=16 pattern=zone-plate kx2=20 ky2=20 kt=1 ! \
    video/x-raw,format=I420,width=$W,height=$H ! tee name=g ! queue ! \
    multifilesink location="$TMP/ref_%02d.yuv" g. ! queue ! \
    videobalance saturation=0.7 contrast=0.9 ! multifilesink location="$TMP/dist_%02d.yuv"
  raw() { # stream name
    echo "multifilesrc location=$TMP/${1}_%02d.yuv loop=true num-buffers=$FRAMES" \
      "caps=video/x-raw,format=I420,width=$W,height=$H,framerate=25/1 ! rawvideoparse use-sink-caps=true"
  }
  SRC="$(raw ref)"
  DIST="$(raw dist)"
else
  SRC="videotestsrc num-buffers=$FRAMES pattern=smpte ! video/x-raw,format=I420,width=$W,height=$H,framerate=25/1 ! tee name=t"
  DIST="t. ! queue max-size-buffers=4 ! videobalance saturation=0.7 contrast=0.9"
fi

# seconds of one gst-launch run (its own "Execution ended after" line)
run() {
  local out
  out=$(gst-launch-1.0 "$@" 2>&1) || { echo "$out" >&2; exit 1; }
  echo "$out" | sed -n 's/^Execution ended after \([0-9]*\):\([0-9]*\):\([0-9.]*\)$/\1 \2 \3/p' |
    awk '{ printf "%.3f\n", $1 * 3600 + $2 * 60 + $3 }'
}

echo "exactquality element throughput: $FRAMES frames ${W}x${H} I420, backend=$BACKEND, source=$SOURCE"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "gst-launch-1.0 $(gst-launch-1.0 --version | sed -n 's/.*version //p' | head -1)"
echo

base=$(run $SRC ! queue max-size-buffers=4 ! fakesink sync=false $DIST ! fakesink sync=false)
printf "%-50s %8s s %7.1f fps\n" "baseline (no element)" "$base" "$(awk "BEGIN { print $FRAMES / $base }")"
ALL=psnr+ssim+ms-ssim+ssimulacra2
cfgs=()
[ "$SINGLE" = 1 ] && cfgs+=("metrics=psnr" "metrics=ssim" "metrics=ms-ssim" "metrics=ssimulacra2")
for n in $FIF; do
  if [ "$n" = 1 ]; then cfgs+=("metrics=$ALL"); else cfgs+=("metrics=$ALL frames-in-flight=$n"); fi
done
for cfg in "${cfgs[@]}"; do
  t=$(run exactquality name=eq backend=$BACKEND $cfg post-messages=false ! \
      fakesink sync=false $SRC ! queue max-size-buffers=4 ! eq.ref_sink $DIST ! eq.dist_sink)
  fps=$(awk "BEGIN { print $FRAMES / $t }")
  if awk "BEGIN { exit !($t > $base) }"; then
    own=$(awk "BEGIN { printf \"%.1f\", $FRAMES / ($t - $base) }")
  else
    own="n/a"
  fi
  printf "%-50s %8s s %7.1f fps  (element alone ~%s fps)\n" "${cfg/$ALL/all}" "$t" "$fps" "$own"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
