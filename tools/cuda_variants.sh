#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Several carried trees side by side on the GPU machine, in one call:
# after `tools/cuda_carry.sh unpack` (their binaries built here by
# `tools/cuda_carry.sh pack NAME=DIR ...`),
#
#   STEPS="trace checks ab" tools/cuda_variants.sh BASE NAME ...
#
# runs the steps in order, each as far as the time left allows (LIMIT
# seconds in all, default 420):
#   trace   the traced tree TRACE (default tf: a tree patched by
#           tools/trace/patch_ordsum.py), SSIM at each size of
#           TRACE_SIZES (default 3840x2160) gated and not
#           (bench_cuda --frames 6 --warmup 2 --profile [--gate 300]),
#           each log read by tools/trace/report.py; its TG and TH lines
#           printed (--fine)
#   checks  every NAME but BASE through cuda_gpu_check.sh's steps CHECKS
#           (default "kernels parity fixtures"; add "errors memcheck"
#           for a tree that changes the device code; SEED, FIX as there)
#   ab      ROUNDS (default 3) gated rounds: BASE and each NAME in turn,
#           a process each (bench_cuda --sizes S --metrics ssim --frames
#           1000 --warmup 50 --interleave --scorers 2 --gate 300, S in
#           SIZES, default 3840x2160), one line per process: exact minus
#           tree, exact and tree, CUDA-event medians in us of each
#           scorer and round; then the minimum and median of each tree's
#           lines (gated, each mode has two levels that hold for seconds,
#           session 52: compare minima, or like levels)
#   all     every metric, BASE and each NAME in turn, ALL_ROUNDS rounds
#           (default 1): a process each (bench_cuda --sizes ALL_SIZES
#           --metrics psnr,ssim,ms_ssim,ssimulacra2 --frames 200 --warmup
#           20 --interleave --gate 300; ALL_SIZES default
#           3840x2160,1920x1080), its lines into all.log; then, per
#           metric, size and input (device gated, pinned, pageable), each
#           tree's exact and tree medians in ms (device: CUDA events;
#           host input: walls, upload included) over its rounds' lines
#   bundle  (last) cuda_gpu_check.sh's bundle: every log under OUT packed
#           into OUT/logs.tar.gz (the device tool brings back 8 files)
# Logs under OUT (default ./gpu-out); the carried trees under CARRY
# (default /tmp/carry). Session 52's calls ran these steps as scripts in
# .dev; this is their form for any set of trees.
set -u
R=$(cd "$(dirname "$0")/.." && pwd) || exit 2
OUT=${OUT:-$PWD/gpu-out} C=${CARRY:-/tmp/carry} L=${LIMIT:-420}
STEPS=${STEPS:-checks ab} ROUNDS=${ROUNDS:-3} SIZES=${SIZES:-3840x2160} TRACE=${TRACE:-tf}
TRACE_SIZES=${TRACE_SIZES:-3840x2160} CHECKS=${CHECKS:-kernels parity fixtures}
ALL_ROUNDS=${ALL_ROUNDS:-1} ALL_SIZES=${ALL_SIZES:-3840x2160,1920x1080}
[ $# -ge 1 ] || { echo "usage: STEPS=\"trace checks ab\" tools/cuda_variants.sh BASE NAME ..." >&2; exit 2; }
for v in "$@"; do
  [ -x "$C/$v/tools/bench_cuda" ] || { echo "cuda_variants.sh: no carried tree $C/$v" >&2; exit 2; }
done
mkdir -p "$OUT"
t0=$(date +%s)
left() { echo $((L - ($(date +%s) - t0))); }

trace() {
  [ -x "$C/$TRACE/tools/bench_cuda" ] || { echo "trace: no carried tree $C/$TRACE" >&2; return; }
  local sz g tag log
  for sz in ${TRACE_SIZES//,/ }; do
    for g in 300 0; do
      [ "$(left)" -gt 20 ] || return
      # (4K alone keeps session 53's names)
      tag=$TRACE-g$g$([ "$sz" = 3840x2160 ] || echo "-$sz")
      log=$OUT/trace-$tag.log
      timeout 30 "$C/$TRACE/tools/bench_cuda" --sizes "$sz" --metrics ssim --frames 6 \
        --warmup 2 --profile $([ $g = 300 ] && echo --gate 300) > "$log" 2>&1
      echo "trace $TRACE $sz gate $g: rc=$?, $(grep -c '^T' "$log") lines"
      python3 "$R/tools/trace/report.py" "$log" > "$OUT/report-$tag.txt" 2>&1
      grep -E '^(TG|TH) ' "$OUT/report-$tag.txt"
    done
  done
}

checks() {
  shift
  for v in "$@"; do
    [ "$(left)" -gt 40 ] || return
    # shellcheck disable=SC2086 # CHECKS is a list of steps
    BUILD_DIR=$C/$v OUT=$OUT/checks-$v "$R/tools/cuda_gpu_check.sh" $CHECKS 2>&1 |
      grep -E '^== ' | sed "s/^/$v: /"
  done
}

n=0
one() { # name size: one gated process; its lines into ab.log, each scorer and
  # round's CUDA-event medians (us) into ab.tsv: label size exact tree
  local label="p$n-$1"
  n=$((n + 1))
  timeout 60 "$C/$1/tools/bench_cuda" --sizes "$2" --metrics ssim --frames 1000 --warmup 50 \
    --interleave --scorers 2 --gate 300 2>&1 | sed "s/^/$label /" >> "$OUT/ab.log"
  grep "^$label " "$OUT/ab.log" | grep -E ' ssim +device ' | tr -d ',)' |
    awk '{ print $1, $2, $7 * 1000, $(NF - 2) * 1000 }' >> "$OUT/ab.tsv"
  awk -v L="$label" -v S="$2" '$1 == L {
      d = d sprintf(" %.1f", $3 - $4); x = x sprintf(" %.1f", $3); y = y sprintf(" %.1f", $4) }
    END { printf "%-24s ex-tree%s | ex%s | tree%s\n", L " " S, d, x, y }' "$OUT/ab.tsv"
}

ab() {
  local r v sz
  : > "$OUT/ab.log"
  : > "$OUT/ab.tsv"
  for r in $(seq "$ROUNDS"); do
    for v in "$@"; do
      for sz in ${SIZES//,/ }; do
        [ "$(left)" -gt 15 ] && one "$v" "$sz"
      done
    done
  done
  # per tree and size: minimum and median of the exact and tree lines
  [ -s "$OUT/ab.tsv" ] || return
  python3 - "$OUT/ab.tsv" <<'PY'
import sys, statistics as st
E, T = {}, {}
for line in open(sys.argv[1]):
    label, size, e, t = line.split()
    k = "%s %s" % (label.split("-", 1)[1], size)
    E.setdefault(k, []).append(float(e)); T.setdefault(k, []).append(float(t))
for k in sorted(E):
    e, t = E[k], T[k]
    print("%-24s n=%2d exact min %.1f median %.1f | tree min %.1f median %.1f | min/min %.3f" % (
        k, len(e), min(e), st.median(e), min(t), st.median(t), min(e) / min(t)))
PY
}

all() {
  local r v
  : > "$OUT/all.log"
  for r in $(seq "$ALL_ROUNDS"); do
    for v in "$@"; do
      [ "$(left)" -gt 65 ] || break 2
      timeout 60 "$C/$v/tools/bench_cuda" --sizes "$ALL_SIZES" \
        --metrics psnr,ssim,ms_ssim,ssimulacra2 --frames 200 --warmup 20 --interleave \
        --gate 300 2>&1 | sed "s/^/$v-r$r /" >> "$OUT/all.log"
      echo "all $v round $r: $(grep -c "^$v-r$r .* interleaved" "$OUT/all.log") lines"
    done
  done
  # a line: tree size metric input wall-exact wall-tree event-exact ...
  # (tree event X, ex/tree R)
  python3 - "$OUT/all.log" "$@" <<'PY'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    f = line.replace(",", " ").replace(")", " ").split()
    if len(f) < 12 or "interleaved" not in f:
        continue
    tree = f[0].rsplit("-r", 1)[0]
    size, metric, inp = f[1], f[2], f[3]
    wall_ex, wall_tr, ev_ex, ev_tr = float(f[4]), float(f[5]), float(f[6]), float(f[-3])
    ex, tr = (ev_ex, ev_tr) if inp == "device" else (wall_ex, wall_tr)
    rows.setdefault((size, metric, inp), {}).setdefault(tree, []).append((ex, tr))
trees = sys.argv[2:]
print("%-10s %-12s %-13s" % ("size", "metric", "input") +
      "".join(" | %-22s" % (t + " exact/tree ms") for t in trees))
for k in sorted(rows):
    cells = []
    for t in trees:
        v = rows[k].get(t)
        cells.append(" | %-22s" % ("%.4f / %.4f" % (st.median(e for e, _ in v), st.median(x for _, x in v))
                                   if v else "-"))
    print("%-10s %-12s %-13s" % k + "".join(cells))
PY
}

for s in $STEPS; do
  echo "== $s ($(( $(date +%s) - t0 )) s)"
  case $s in
    trace) trace ;;
    checks) checks "$@" ;;
    ab) ab "$@" ;;
    all) all "$@" ;;
    bundle) OUT=$OUT "$R/tools/cuda_gpu_check.sh" bundle > /dev/null ;;
    *) echo "cuda_variants.sh: no step '$s'" >&2; exit 2 ;;
  esac
done
echo "== total $(( $(date +%s) - t0 )) s"
