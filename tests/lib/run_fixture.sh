#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Decodes a fixture pair with ffmpeg into a temporary folder, optionally
# derives a new pair from it with gen_frames, and runs test_fixtures on it.
#
#   run_fixture.sh TEST GEN REF.mkv DIST.mkv PIX_FMT FRAMES W H SUB BITDEPTH \
#                  GEN_MODE|- CSV...
#
# FRAMES limits the decoded frames (0: all). With GEN_MODE (odd, p12, p16,
# min:DWxDH) W H SUB BITDEPTH describe the generated frames and the decoded
# ones are gen_frames' input (see tests/lib/gen_frames.c); DWxDH is the
# decoded size where it is not implied (odd: one less than W x H; p12, p16:
# W x H).
set -eu
test_bin=$1 gen_bin=$2 ref=$3 dist=$4 pix_fmt=$5 frames=$6
w=$7 h=$8 sub=$9 bd=${10} gen=${11}
shift 11

if ! command -v ffmpeg >/dev/null 2>&1; then
  echo "run_fixture.sh: ffmpeg is needed to decode the fixtures (apt install ffmpeg)" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/eqfixture.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

limit=""
[ "$frames" != 0 ] && limit="-frames:v $frames"
for f in ref dist; do
  eval src=\$$f
  # shellcheck disable=SC2086
  ffmpeg -nostdin -v error -i "$src" $limit -f rawvideo -pix_fmt "$pix_fmt" "$tmp/$f.dec"
done

if [ "$gen" = "-" ]; then
  mv "$tmp/ref.dec" "$tmp/ref.yuv"
  mv "$tmp/dist.dec" "$tmp/dist.yuv"
else
  # the decoded size: odd adds a column and a row; MODE:DWxDH names it
  dw=$w dh=$h
  case "$gen" in
    odd) dw=$((w - 1)); dh=$((h - 1)) ;;
    *:*x*) size=${gen#*:}; gen=${gen%%:*}; dw=${size%x*}; dh=${size#*x} ;;
  esac
  "$gen_bin" "$gen" "$dw" "$dh" 1 "$tmp/ref.dec" "$tmp/ref.yuv"
  "$gen_bin" "$gen" "$dw" "$dh" 2 "$tmp/dist.dec" "$tmp/dist.yuv"
fi

# not exec: the trap above removes the decoded frames when the test ends
set +e
"$test_bin" "$tmp/ref.yuv" "$tmp/dist.yuv" "$w" "$h" "$sub" "$bd" "$@"
exit $?
