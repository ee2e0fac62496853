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
set -euo pipefail
BUILD_DIR=$(cd "${1:?usage: tools/bench_element.sh BUILD_DIR [FRAMES] [WxH] [BACKEND]}" && pwd)
FRAMES=${2:-300}
SIZE=${3:-576x324}
BACKEND=${4:-cpu}
W=${SIZE%x*}
H=${SIZE#*x}
export GST_PLUGIN_PATH_1_0="$BUILD_DIR/gst"
export GST_REGISTRY_1_0="$BUILD_DIR/bench-registry.bin"

SRC="videotestsrc num-buffers=$FRAMES pattern=smpte ! video/x-raw,format=I420,width=$W,height=$H,framerate=25/1 ! tee name=t"
DIST="t. ! queue max-size-buffers=4 ! videobalance saturation=0.7 contrast=0.9"

# seconds of one gst-launch run (its own "Execution ended after" line)
run() {
  local out
  out=$(gst-launch-1.0 "$@" 2>&1) || { echo "$out" >&2; exit 1; }
  echo "$out" | sed -n 's/^Execution ended after \([0-9]*\):\([0-9]*\):\([0-9.]*\)$/\1 \2 \3/p' |
    awk '{ printf "%.3f\n", $1 * 3600 + $2 * 60 + $3 }'
}

echo "exactquality element throughput: $FRAMES frames ${W}x${H} I420, backend=$BACKEND"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "gst-launch-1.0 $(gst-launch-1.0 --version | sed -n 's/.*version //p' | head -1)"
echo

base=$(run $SRC ! queue max-size-buffers=4 ! fakesink sync=false $DIST ! fakesink sync=false)
printf "%-50s %8s s %7.1f fps\n" "baseline (no element)" "$base" "$(echo "$FRAMES / $base" | bc -l)"
ALL=psnr+ssim+ms-ssim+ssimulacra2
for cfg in "metrics=psnr" "metrics=ssim" "metrics=ms-ssim" "metrics=ssimulacra2" \
    "metrics=$ALL" "metrics=$ALL frames-in-flight=2"; do
  t=$(run exactquality name=eq backend=$BACKEND $cfg post-messages=false ! \
      fakesink sync=false $SRC ! queue max-size-buffers=4 ! eq.ref_sink $DIST ! eq.dist_sink)
  fps=$(echo "$FRAMES / $t" | bc -l)
  if [ "$(echo "$t > $base" | bc)" = 1 ]; then
    own=$(printf "%.1f" "$(echo "$FRAMES / ($t - $base)" | bc -l)")
  else
    own="n/a"
  fi
  printf "%-50s %8s s %7.1f fps  (element alone ~%s fps)\n" "${cfg/$ALL/all}" "$t" "$fps" "$own"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
