#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A change to the CUDA code timed against the tree it applies to, in one
# call on the GPU machine, when the change lives as a patch (docs/patches/;
# a branch may not survive to the next session's checkout).
#
# Here, before the call (copies the files the patch changes, patched, to
# .dev/abtree, which the call carries; the working tree stays as it is):
#   [CARRY=1] tools/cuda_ab_patch.sh prepare docs/patches/NAME.diff
# CARRY=1 also builds both trees' binaries here (tools/cuda_carry.sh pack
# tree=. copy=<the patched tree>), and `run` then takes them from
# .dev/carry.tar.xz instead of building: no device time spent building.
# Without it, prepare removes .dev/carry.tar.xz, and run builds both.
# On the GPU machine (the device tool's run, carry [".dev"]):
#   OUT=$OUT SEED=N [MUTANTS="name .."] [TRACE=1] [LIMIT=s] [FRAMES=n] tools/cuda_ab_patch.sh run
#
# run: copies the tree and lays .dev/abtree over the copy; builds the
# tree's bench_cuda and the copy at once; then three interleaved rounds of
# SSIM at 4K and 1080p (tree, then copy; FRAMES frames each, default 2000:
# rounds of 300 spread by 0.05-0.1 in the ratio from one round to the
# next, rounds of 2000 by 0.01, docs/performance.md session 48), and three
# gated ones (--gate 300: read their events, the GPU's time alone); the
# copy's kernels, parity and fixtures (FIX, default .dev/fix) with
# cuda_gpu_check.sh's own mutation step for MUTANTS beside them (each must
# be red, its unmutated tree green); with TRACE=1 each tree's light trace
# (tools/trace/run.sh).
# Steps stop LIMIT seconds (default 420) after the start. At the end the
# logs under OUT are packed into OUT/logs.tar.gz (BUNDLE=0: not).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cmd=${1:-}
case "$cmd" in
  prepare)
    patch=$(realpath "${2:?usage: tools/cuda_ab_patch.sh prepare PATCH}") || exit 2
    cd "$(dirname "$0")/.." || exit 2
    tmp=$(mktemp -d)
    git worktree add -q --detach "$tmp" HEAD || exit 1
    if ! git -C "$tmp" apply "$patch"; then
      git worktree remove --force "$tmp"
      exit 1
    fi
    rm -rf .dev/abtree && mkdir -p .dev/abtree
    git -C "$tmp" diff --name-only | while read -r f; do
      mkdir -p ".dev/abtree/$(dirname "$f")" && cp "$tmp/$f" ".dev/abtree/$f"
    done
    rm -f .dev/carry.tar.xz
    rc=0
    [ "${CARRY:-0}" = 1 ] && { tools/cuda_carry.sh pack tree=. copy="$tmp" || rc=1; }
    git worktree remove --force "$tmp"
    [ $rc = 0 ] || exit 1
    find .dev/abtree -type f
    exit 0 ;;
  run) ;;
  *) echo "usage: tools/cuda_ab_patch.sh prepare PATCH | run" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.." || exit 2
O=${OUT:-$PWD/gpu-out}; mkdir -p "$O"
R=$PWD LIMIT=${LIMIT:-420} SEED=${SEED:-1} FIX=${FIX:-$PWD/.dev/fix}
t0=$(date +%s)
left() { echo $((LIMIT - $(date +%s) + t0)); }
[ -d .dev/abtree ] || { echo "no .dev/abtree: run 'prepare' first" >&2; exit 2; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
A=/tmp/ab-a B=/tmp/ab-b
rm -rf /tmp/ab-* && mkdir -p $B
tar --exclude=./.dev --exclude='./build*' --exclude=./.git -cf - . | tar -xf - -C $B
cp -r .dev/abtree/. $B/
bld() { # src build name targets...
  local src=$1 b=$2 name=$3
  shift 3
  (cd "$src" && meson setup "$b" -Dgst=disabled -Dcuda=enabled --buildtype=release \
    > "$O/build-$name.log" 2>&1 && ninja -C "$b" "$@" >> "$O/build-$name.log" 2>&1) ||
    echo "build $name failed (build-$name.log)"
}
if [ -f .dev/carry.tar.xz ]; then
  # the binaries built here (prepare with CARRY=1): A-build and B-build
  # are the carried trees
  tools/cuda_carry.sh unpack /tmp/ab-carry > /dev/null || exit 1
  [ -d /tmp/ab-carry/tree ] && [ -d /tmp/ab-carry/copy ] ||
    { echo ".dev/carry.tar.xz holds no tree and copy: prepare with CARRY=1" >&2; exit 2; }
  ln -s /tmp/ab-carry/tree $A-build && ln -s /tmp/ab-carry/copy $B-build
  echo "carried: $(tr '\n' ' ' < /tmp/ab-carry/MANIFEST)"
else
  bld "$R" $A-build tree tools/bench_cuda &
  bld $B $B-build copy
  wait
fi
echo "builds $(( $(date +%s) - t0 )) s"

# three rounds as is, then three gated (bench_cuda --gate 300: every
# launch of a frame queued before the GPU reaches it): the events then
# time the GPU's work alone (session 51, call 2: a gated process's SSIM
# 4K events within about 1 us of each other, the ungated ones 5-6 us
# apart; docs/performance.md). Read these events for a change of a few us.
for gate in "" "--gate 300"; do
  for r in 1 2 3; do
    for v in tree copy; do
      b=$A-build; [ $v = copy ] && b=$B-build
      timeout 60 $b/tools/bench_cuda --sizes 3840x2160,1920x1080 --metrics ssim \
        --frames ${FRAMES:-2000} --warmup 50 --interleave $gate 2>&1 | grep ' device ' |
        sed "s/^/$v${gate:+ gated} r$r: /"
    done
  done
done
echo "bench $(( $(date +%s) - t0 )) s"

# the mutants by cuda_gpu_check.sh's own mutation step (MUTANTS: those
# alone), in the copy, beside the checks
[ -n "${MUTANTS:-}" ] && (cd $B && OUT=$O/mutation SEED=$SEED MUTANTS="$MUTANTS" \
  timeout $(($(left) > 10 ? $(left) : 10)) tools/cuda_gpu_check.sh mutation 2>&1 |
  grep -E '^mutation|^unmutated|^mutations|did not') &
(cd $B && OUT=$O/checks BUILD_DIR=$B-build SEED=$SEED FIX=$FIX \
  timeout $(($(left) > 10 ? $(left) : 10)) tools/cuda_gpu_check.sh kernels parity fixtures 2>&1 | tail -12)
wait
# the light traces (tools/trace/run.sh, each tree's own), one after the
# other: the TW lines, and the TWC lines where the tree's trace patch
# stamps the chain
if [ "${TRACE:-0}" = 1 ] && [ "$(left)" -gt 60 ]; then
  for v in a b; do
    src=$R; [ $v = b ] && src=$B
    echo "== trace $v"
    (cd "$src" && LIGHT=1 OUT=$O/trace-$v bash tools/trace/run.sh 2>&1 | tail -14)
    grep -h '^TWC' "$O/trace-$v/trace-3840x2160.log" 2>/dev/null | awk '{n++; st+=$3; f+=$4; ch+=$5}
      END {if (n) printf "TWC %d sums: steps %.1f, placing %.0f and walking %.0f cycles (means)\n", n, st/n, f/n, ch/n}'
  done
fi
echo "total $(( $(date +%s) - t0 )) s"
# every log in one file (cuda_gpu_check.sh's step bundle: the device tool
# brings back at most 8 files); BUNDLE=0 leaves them as they are
[ "${BUNDLE:-1}" = 1 ] && OUT=$O tools/cuda_gpu_check.sh bundle
