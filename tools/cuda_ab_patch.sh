#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A change to the CUDA code timed against the tree it applies to, in one
# call on the GPU machine, when the change lives as a patch (docs/patches/;
# a branch may not survive to the next session's checkout).
#
# Here, before the call (copies the files the patch changes, patched, to
# .dev/abtree, which the call carries; the working tree stays as it is):
#   tools/cuda_ab_patch.sh prepare docs/patches/NAME.diff
# On the GPU machine (the device tool's run, carry [".dev"]):
#   OUT=$OUT SEED=N [MUTANTS="name .."] [TRACE=1] [LIMIT=s] tools/cuda_ab_patch.sh run
#
# run: copies the tree and lays .dev/abtree over the copy; builds the
# tree's bench_cuda, the copy's whole build, each mutant's checkkernels
# (its sed from the copy's tools/cuda_gpu_check.sh) and, with TRACE=1, both
# light-trace builds (tools/trace/patch_ordsum.py --light), all at once;
# then two interleaved rounds of SSIM at 4K and 1080p (tree, then copy);
# the copy's kernels, parity and fixtures (FIX, default .dev/fix) with
# each mutant's stage beside them (each must fail: rc 1); with TRACE=1
# the traces' TW and TWC lines. Steps stop LIMIT seconds (default 420)
# after the start.
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
    git worktree remove --force "$tmp"
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
bld "$R" $A-build tree tools/bench_cuda &
for m in ${MUTANTS:-}; do
  sed_m=$(grep -E "^ *mut $m '" $B/tools/cuda_gpu_check.sh | sed "s/^ *mut $m '//; s/'\$//")
  [ -n "$sed_m" ] || { echo "mutant $m: no such line in tools/cuda_gpu_check.sh"; continue; }
  mkdir -p /tmp/ab-mut-$m && cp -r $B/. /tmp/ab-mut-$m/
  sed -i "$sed_m" /tmp/ab-mut-$m/lib/cuda/ordsum.cu /tmp/ab-mut-$m/lib/cuda/ordsum.cuh
  cmp -s /tmp/ab-mut-$m/lib/cuda/ordsum.cu $B/lib/cuda/ordsum.cu &&
    cmp -s /tmp/ab-mut-$m/lib/cuda/ordsum.cuh $B/lib/cuda/ordsum.cuh && echo "mutant $m: its sed changed nothing"
  bld /tmp/ab-mut-$m /tmp/ab-mut-$m-build mut-$m tests/checkkernels/checkkernels &
done
if [ "${TRACE:-0}" = 1 ]; then
  for v in a b; do
    src=$R; [ $v = b ] && src=$B
    mkdir -p /tmp/ab-tr$v
    (cd "$src" && tar --exclude=./.dev --exclude='./build*' --exclude=./.git -cf - .) | tar -xf - -C /tmp/ab-tr$v
    python3 $B/tools/trace/patch_ordsum.py --light /tmp/ab-tr$v/lib/cuda/ordsum.cu &&
      bld /tmp/ab-tr$v /tmp/ab-tr$v-build tr$v tools/bench_cuda &
  done
fi
bld $B $B-build copy
wait
echo "builds $(( $(date +%s) - t0 )) s"

for r in 1 2; do
  for v in tree copy; do
    b=$A-build; [ $v = copy ] && b=$B-build
    timeout 60 $b/tools/bench_cuda --sizes 3840x2160,1920x1080 --metrics ssim --frames 300 \
      --warmup 30 --interleave 2>&1 | grep ' device ' | sed "s/^/$v r$r: /"
  done
done
echo "bench $(( $(date +%s) - t0 )) s"

for m in ${MUTANTS:-}; do
  [ -x /tmp/ab-mut-$m-build/tests/checkkernels/checkkernels ] || continue
  (timeout $(($(left) > 10 ? $(left) : 10)) /tmp/ab-mut-$m-build/tests/checkkernels/checkkernels \
    --seed "$SEED" --only ordsum > "$O/mutation-$m.log" 2>&1
   echo "mutant $m rc=$? (must be 1): $(grep -c FAIL "$O/mutation-$m.log") FAIL lines") &
done
(cd $B && OUT=$O/checks BUILD_DIR=$B-build SEED=$SEED FIX=$FIX \
  timeout $(($(left) > 10 ? $(left) : 10)) tools/cuda_gpu_check.sh kernels parity fixtures 2>&1 | tail -12)
wait
if [ "${TRACE:-0}" = 1 ] && [ "$(left)" -gt 30 ]; then
  for v in a b; do
    [ -x /tmp/ab-tr$v-build/tools/bench_cuda ] || continue
    /tmp/ab-tr$v-build/tools/bench_cuda --sizes 3840x2160 --metrics ssim --frames 4 --warmup 2 \
      --profile > "$O/trace-$v.log" 2>&1
    echo "== trace $v"; python3 tools/trace/report.py "$O/trace-$v.log" 2>&1 | tail -12
    grep -h '^TWC' "$O/trace-$v.log" | awk '{n++; st+=$3; f+=$4; ch+=$5}
      END {if (n) printf "TWC %d sums: steps %.1f, placing %.0f and walking %.0f cycles (means)\n", n, st/n, f/n, ch/n}'
  done
fi
echo "total $(( $(date +%s) - t0 )) s"
