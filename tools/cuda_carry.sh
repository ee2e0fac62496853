#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GPU machine's test and benchmark binaries, built on this machine, so
# that a call spends none of its device time building (session 51: four
# trees' binaries carried in one call of 304 s, which ran the scorers and
# shift tests, three racechecks, a memcheck, one tree's checks, a mutant
# and an A/B of three rounds). nvcc builds here what it builds there
# (sm_90 and PTX, the build's own flags); the binaries link the CUDA
# runtime statically and run on the GPU machine's newer glibc.
#
# Here, before the call:
#   tools/cuda_carry.sh pack NAME=DIR [NAME=DIR ...]
# builds bench_cuda, checkkernels, test_cuda_parity, test_cuda_errors and
# gen_frames of each source tree DIR (this checkout, a worktree, a patched
# copy) in DIR/build-carry, and packs them, stripped, into
# .dev/carry.tar.xz (about 2 MB a tree; the call carries [".dev"]).
# On the GPU machine:
#   tools/cuda_carry.sh unpack [DIR]      (DIR default /tmp/carry)
# lays each NAME out as a build directory DIR/NAME, so that
#   BUILD_DIR=/tmp/carry/NAME tools/cuda_gpu_check.sh kernels parity fixtures memcheck
# runs on it, as do racecheck, errors, scorers, gate and bench; not the
# steps that build (build, mutation, the traces).
#
# Here, once a machine:
#   tools/cuda_carry.sh fix [DIR]          (DIR default .dev/fix)
# decodes the fixture pairs that cuda_gpu_check.sh's fixtures step reads
# (FIX=DIR there) with ffmpeg, which the GPU machine lacks (31 MB; the
# frames and formats docs/cuda.md, "Tests", lists).
set -u
R=$(cd "$(dirname "$0")/.." && pwd) || exit 2
targets="tools/bench_cuda tests/checkkernels/checkkernels tests/lib/test_cuda_parity
         tests/lib/test_cuda_errors tests/lib/gen_frames"
case "${1:-}" in
  pack)
    shift
    [ $# -gt 0 ] || { echo "usage: tools/cuda_carry.sh pack NAME=DIR ..." >&2; exit 2; }
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' EXIT
    export PATH=$PATH:/usr/local/cuda/bin
    for nd in "$@"; do
      name=${nd%%=*} dir=$(realpath "${nd#*=}") || exit 2
      case $name in '' | *[!A-Za-z0-9_-]*)
        echo "cuda_carry.sh: '$name' is not a name (letters, digits, - and _)" >&2; exit 2 ;;
      esac
      b=$dir/build-carry
      if [ ! -f "$b/build.ninja" ]; then
        meson setup "$b" "$dir" -Dgst=disabled -Dcuda=enabled --buildtype=release \
          > "$stage/setup-$name.log" 2>&1 || { tail -20 "$stage/setup-$name.log"; exit 1; }
      fi
      # shellcheck disable=SC2086
      ninja -C "$b" $targets > "$stage/build-$name.log" 2>&1 ||
        { tail -20 "$stage/build-$name.log"; exit 1; }
      for t in $targets; do
        mkdir -p "$stage/pack/$name/$(dirname "$t")"
        strip -o "$stage/pack/$name/$t" "$b/$t" || exit 1
      done
      echo "$name: $(git -C "$dir" describe --always --dirty 2>/dev/null || echo "$dir")" \
        >> "$stage/pack/MANIFEST"
    done
    mkdir -p "$R/.dev"
    tar -cJf "$R/.dev/carry.tar.xz" -C "$stage/pack" . || exit 1
    cat "$stage/pack/MANIFEST"
    echo ".dev/carry.tar.xz: $(du -k "$R/.dev/carry.tar.xz" | cut -f1) KB"
    ;;
  fix)
    dest=${2:-$R/.dev/fix}
    command -v ffmpeg > /dev/null || { echo "cuda_carry.sh: fix needs ffmpeg" >&2; exit 2; }
    mkdir -p "$dest" || exit 1
    # pair, frames, pixel format
    while read -r pair n fmt; do
      for f in "${pair%%:*}" "${pair#*:}"; do
        ffmpeg -nostdin -v error -y -i "$R/tests/data/$f.mkv" -frames:v "$n" -f rawvideo -pix_fmt "$fmt" \
          "$dest/$f.yuv" || exit 1
      done
    done <<'LIST'
lady_ref:lady_crf38 8 yuv420p
wood_ref:wood_crf35 6 yuv420p10le
garden_ref:garden_blurnoise 6 yuv444p
raindrops_ref:raindrops_crf30 2 yuv420p
LIST
    echo "$dest: $(find "$dest" -name '*.yuv' | wc -l) files, $(du -sk "$dest" | cut -f1) KB"
    ;;
  unpack)
    dest=${2:-/tmp/carry}
    [ -f "$R/.dev/carry.tar.xz" ] || { echo "no .dev/carry.tar.xz: run 'pack' here first" >&2; exit 2; }
    rm -rf "$dest" && mkdir -p "$dest" && tar -xJf "$R/.dev/carry.tar.xz" -C "$dest" || exit 1
    cat "$dest/MANIFEST"
    ;;
  *)
    echo "usage: tools/cuda_carry.sh pack NAME=DIR ... | unpack [DIR] | fix [DIR]" >&2
    exit 2
    ;;
esac
