#!/bin/bash
# Builds the CUDA backend on a GPU machine and runs, in one go, what needs
# the GPU: the kernel harness, the error tests, the parity test, the
# sanitizers and the benchmark. Full logs under $OUT (default ./gpu-out);
# a short summary on stdout.
#
#   tools/cuda_gpu_check.sh [steps]   steps: any of
#       build kernels kernels-full errors parity parity-full fixtures memcheck racecheck
#       bench bench-full bench4k threads threads-tree upload mutation rates-device profile fedwalk fedbench ratios,
#       gate (SSIM at 4K and 1080p interleaved: as is, bench_cuda --gate 300, --pairs 1),
#       gate-trace (the light trace of SSIM as is, then with --gate 300),
#       scorers (SSIM at 4K, six scorers open at once and timed in turn, in
#       three processes, then gated: bench_cuda --scorers 6),
#       rates-mutation (rates-device's 4K chain run with bigplace's sed: must fail),
#       trace (nsys timeline of a 4K SSIMULACRA2 frame, exact and tree;
#       needs nsys, which the GPU machine lacks),
#       racecheck-ordsum, crossrec-ab (SSIM at 4K and 1080p interleaved,
#       EXACTQUALITY_CUDA_CROSSREC off then split, three rounds of 2000
#       frames; parity with off, split being the default; the light traces
#       of split and off: tools/trace/run.sh),
#       racecheck-ssim-front racecheck-s2 (one stage of racecheck each), and kernels-plan
#       parity-plan memcheck-plan bench-plan (the same with
#       EXACTQUALITY_CUDA_WALK=plan; the default walk is seq), kernels-scan
# upload: the copies of the banded upload (tools/bench_upload)
# bundle: every log under $OUT packed into $OUT/logs.tar.gz (last)
# bench4k: 3840x2160 only, 50 frames; threads: SSIMULACRA2 at 1080p and 4K
#   with 1, 2, 4, 8 concurrent scorers; threads-tree: SSIM and SSIMULACRA2
#   at 4K with 1, 2, 4 scorers, exact and tree sums (the ratio when scorers
#   share the device); mutation: the 88 mutants below
#   (MUTANTS="name ..": those alone), each
#   checkkernels built with one mutated line (in 7 copies of the tree at
#   once, each run as soon as it is built; about 4 minutes on the H200), each
#   of which must fail its stage, and each copy's tree unmutated, which must
#   pass it; rates-device: exactquality-ordsum-rates
#   --device on the fixtures in $FIX (the engine held to the loop and to the
#   tool's model of it); profile-s2: ncu
#   sections of four kernels of one 4K SSIMULACRA2 frame
# fixtures: decoded fixture pairs in $FIX (default ../fix; see docs/cuda.md)
#   (default: build kernels errors parity memcheck racecheck bench)
set -u
OUT=${OUT:-$PWD/gpu-out}
B=${BUILD_DIR:-/tmp/eq-gpu-build}
SEED=${SEED:-1}
mkdir -p "$OUT"
steps=${*:-build kernels errors parity memcheck racecheck bench}
export PATH=$PATH:/usr/local/cuda/bin
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

clear_forms() { # the library's default forms again for the steps after
  unset EXACTQUALITY_CUDA_FEDWALK EXACTQUALITY_CUDA_CROSSREC EXACTQUALITY_CUDA_WALKCHAIN
}

set_forms() { # FED:CHAIN:CROSS, the small walk's forms for what follows (fedwalk)
  local f=$1
  export EXACTQUALITY_CUDA_FEDWALK=${f%%:*} EXACTQUALITY_CUDA_CROSSREC=${f##*:}
  f=${f#*:}
  export EXACTQUALITY_CUDA_WALKCHAIN=${f%:*}
}

run() { # name timeout cmd...
  local name=$1 t=$2; shift 2
  local t0=$(date +%s.%N)
  timeout "$t" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  printf '== %-12s rc=%-3s %6.1fs  %s\n' "$name" "$rc" "$(awk "BEGIN{print $(date +%s.%N) - $t0}")" \
    "$(grep -E 'passed, .* failed|ERROR SUMMARY|RACECHECK SUMMARY|parity:' "$OUT/$name.log" | tail -3 | tr '\n' ' ')"
  [ $rc -ne 0 ] && grep -E 'FAIL|MISMATCH|error' "$OUT/$name.log" | head -8
  return $rc
}

ssim_rounds() { # label [bench_cuda args...]: one interleaved round of SSIM
  # at 4K and 1080p, 2000 frames (session 48: rounds of 300 spread by
  # 0.05-0.1), its device lines labelled
  local label=$1
  shift
  timeout 60 "$B/tools/bench_cuda" --sizes 3840x2160,1920x1080 --metrics ssim --frames 2000 \
    --warmup 50 --interleave "$@" 2>&1 | grep ' device ' | sed "s/^/$label: /"
}

for s in $steps; do
  case $s in
    build)
      nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
      run build 400 bash -c "meson setup '$B' -Dgst=disabled -Dcuda=enabled --buildtype=release && ninja -C '$B'" || exit 1 ;;
    kernels) run kernels 240 "$B/tests/checkkernels/checkkernels" --seed "$SEED" ;;
    kernels-full) run kernels-full 400 "$B/tests/checkkernels/checkkernels" --seed "$SEED" --full ;;
    kernels-plan) EXACTQUALITY_CUDA_WALK=plan run kernels-plan 240 "$B/tests/checkkernels/checkkernels" --seed "$SEED" ;;
    kernels-scan) EXACTQUALITY_CUDA_WALK=scan run kernels-scan 240 "$B/tests/checkkernels/checkkernels" --seed "$SEED" ;;
    parity-plan) EXACTQUALITY_CUDA_WALK=plan run parity-plan 200 "$B/tests/lib/test_cuda_parity" --seed "$SEED" ;;
    memcheck-plan) EXACTQUALITY_CUDA_WALK=plan run memcheck-plan 200 "$san" --tool memcheck "$B/tests/checkkernels/checkkernels" --quick --seed "$SEED" --only ordsum ;;
    bench-plan) EXACTQUALITY_CUDA_WALK=plan run bench-plan 240 "$B/tools/bench_cuda" --frames 100 --warmup 10 --metrics ssim,ms_ssim,ssimulacra2; cat "$OUT/bench-plan.log" ;;
    errors) run errors 60 "$B/tests/lib/test_cuda_errors" ;;
    parity) run parity 200 "$B/tests/lib/test_cuda_parity" --seed "$SEED" ;;
    parity-full) run parity-full 400 "$B/tests/lib/test_cuda_parity" --seed "$SEED" --full ;;
    fixtures)
      F=${FIX:-$PWD/../fix} G=$B/tests/lib/gen_frames T=/tmp/eqfix
      mkdir -p $T
      $G odd 1920 1080 1 $F/raindrops_ref.yuv $T/odd_ref.yuv && $G odd 1920 1080 2 $F/raindrops_crf30.yuv $T/odd_dist.yuv
      $G p12 576 324 1 $F/wood_ref.yuv $T/p12_ref.yuv && $G p12 576 324 2 $F/wood_crf35.yuv $T/p12_dist.yuv
      $G p16 640 360 1 $F/garden_ref.yuv $T/p16_ref.yuv && $G p16 640 360 2 $F/garden_blurnoise.yuv $T/p16_dist.yuv
      run fixtures 300 "$B/tests/lib/test_cuda_parity" --raw \
        $F/lady_ref.yuv $F/lady_crf38.yuv 576 324 420 8 $F/wood_ref.yuv $F/wood_crf35.yuv 576 324 420 10 \
        $F/garden_ref.yuv $F/garden_blurnoise.yuv 640 360 444 8 \
        $F/raindrops_ref.yuv $F/raindrops_crf30.yuv 1920 1080 420 8 \
        $T/odd_ref.yuv $T/odd_dist.yuv 1921 1081 420 8 $T/p12_ref.yuv $T/p12_dist.yuv 576 324 422 12 \
        $T/p16_ref.yuv $T/p16_dist.yuv 640 360 444 16 ;;
    memcheck) run memcheck 200 "$san" --tool memcheck --leak-check full "$B/tests/checkkernels/checkkernels" --quick --seed "$SEED" ;;
    racecheck) run racecheck 300 "$san" --tool racecheck "$B/tests/checkkernels/checkkernels" --quick --seed "$SEED" --only ordsum
               run racecheck-ssim 240 "$san" --tool racecheck "$B/tests/checkkernels/checkkernels" --quick --seed "$SEED" --only ssim
               run racecheck-ssim-front 300 "$san" --tool racecheck "$B/tests/checkkernels/checkkernels" --quick --seed "$SEED" --only ssim_front
               run racecheck-s2 300 "$san" --tool racecheck "$B/tests/checkkernels/checkkernels" --quick --seed "$SEED" --only ssimulacra2 ;;
    racecheck-ordsum) run racecheck 300 "$san" --tool racecheck "$B/tests/checkkernels/checkkernels" --quick --seed "$SEED" --only ordsum ;;
    racecheck-ssim-front) run racecheck-ssim-front 300 "$san" --tool racecheck "$B/tests/checkkernels/checkkernels" --quick --seed "$SEED" --only ssim_front ;;
    racecheck-s2) run racecheck-s2 300 "$san" --tool racecheck "$B/tests/checkkernels/checkkernels" --quick --seed "$SEED" --only ssimulacra2 ;;
    bench4k) run bench4k 240 "$B/tools/bench_cuda" --sizes 3840x2160 --frames 50 --warmup 5 --metrics ssim,ms_ssim,ssimulacra2; cat "$OUT/bench4k.log" ;;
    threads) run threads 300 "$B/tools/bench_cuda" --sizes 1920x1080,3840x2160 --metrics ssimulacra2 --frames 100 --warmup 10 --threads 1,2,4,8; cat "$OUT/threads.log" ;;
    crossrec-ab)
      for r in 1 2 3; do
        for v in off split; do
          EXACTQUALITY_CUDA_CROSSREC=$v ssim_rounds "$v r$r"
        done
      done
      EXACTQUALITY_CUDA_CROSSREC=off run parity-off 200 "$B/tests/lib/test_cuda_parity" --seed "$SEED"
      for v in split off; do
        echo "== light trace, EXACTQUALITY_CUDA_CROSSREC=$v"
        EXACTQUALITY_CUDA_CROSSREC=$v TRACE_REUSE=$([ $v = off ] && echo 1 || echo 0) LIGHT=1 \
          OUT="$OUT/trace-$v" timeout 150 bash tools/trace/run.sh 2>&1 | tail -14
      done ;;
    threads-tree) run threads-tree 300 "$B/tools/bench_cuda" --sizes 3840x2160 --metrics ssim,ssimulacra2 --frames 100 --warmup 10 --threads 1,2,4 --tree; grep ' device ' "$OUT/threads-tree.log" ;;
    mutation)
      # each mutation must turn the ordsum harness red (rc 1):
      #  fast: the chunk-run fast path told that no chunk has a tie
      #  carry: a split record's stretch loses the run carried from the lanes before
      #  restage: sums of one plane never stage x again (DETAIL formed from ARTIFACT4)
      #  seq: the walk's fallback skips the failing term
      #  prefetch: the split walk's first pass takes the current piece as the
      #    next (its second pass is eq_ord_walk_record since branch s24walk)
      #  persum: every warp of a per-sum runs launch forms the group's first sum
      #  again: with a reused plan, only chunks planned term by term are formed again
      #    (not those whose binade changed)
      #  specsum: the runs kernel's chunk sums (plan reused) form the sum's terms twice
      #  walkrec: the walk reads every staged split chunk's pieces from the group's first record
      #  walkgrp: the walk's group records read once at its start: each group takes its
      #    neighbour's segment run
      #  walkcomp: the walk's composed groups leave out the last group of the prefix
      #  mono: a chunk of tie-free non-negative lanes takes lane 1's first increment
      #    (not lane 0's) as its run's lowest prefix
      #  splitscan: eqc_scan over a block (split records made by a block, the walk's
      #    block scans) takes the total of the warp before alone, not the
      #    composition of all the warps before
      #  segscan: a group's second warp of segment runs leaves out the first warp's
      #    (segment_group: ord_segments_kernel and the walk of small launches)
      #  seghead: segment_group puts each segment's run at its last chunk, not its head
      #  smallrec: the walk of small launches (ord_walk_small_kernel) reads every kept
      #    split record from the sum's first
      #  fastwalk: the split walk's first pass drops the crossing pieces' terms
      #  fastok: the split walk's lanes pass their pieces without their checks
      #    (red through EQ_CUDA_STAGE_SUM_LIE's poisoned pieces)
      #  fusedwait: the fused small-launch kernel (ord_small_chunks_kernel) reads
      #    the chunk sums before its chunk without waiting for their ready flags
      #    (in both forms of the wait: a warp's, the default since branch
      #    s24walk, and every thread's)
      #  fusedscan: its scan leaves out the chunk sum just before its chunk
      #  fusedflags: its ready flags inside the engine's other arrays (as before
      #    363a539: here in `again`, which small launches leave alone), which
      #    _FUSED_LATE fills with the launch's epoch
      #  prewalk: the walk of a small launch starts after a prewalked first
      #    chunk from +0.0 instead of that chunk's sum (its lean form, the
      #    default since branch s24walk)
      #  prewalkn: the fused kernel's prewalk of a first chunk leaves out
      #    every sixteenth term of its whole batches (prewalk_chunk)
      #  prewalkt: ... the last term of its tail (a chunk of fewer than 16k terms)
      #  prewalkearly: its prewalk, formed beside the chunk sum (thread 32),
      #    leaves out the chunk's last term
      #  fasttie: the block's fast split (split_fast_pieces) takes an exact
      #    half's increment for the start's parity, not the sum's before it
      #  fastpre: the parity before an exact half counts the chunk's tie-free
      #    increments before its piece too
      #  fastfirst: a piece's lowest prefix is its head's increment after an
      #    even sum for both parities
      #  (fasttie, fastpre, fastfirst: on every seed through the ordsum stage's
      #  kind 19, since session 23)
      #  (leancross and leanok, the short records' first pass, are below
      #  with the header's mutants)
      #  leanwords: the lean copy leaves out the last piece a lean record may have
      #  leanlong: a kept record of more pieces is not copied again whole (the
      #    walk reads it from the lean copy)
      #  fedwait: the small walk fed by the fused kernel's chunk flags
      #    (EXACTQUALITY_CUDA_FEDWALK, the default since session 28) reads its
      #    chunks' runs, plans and records without waiting for their flags
      #  chainok: the small walk as one chain (EXACTQUALITY_CUDA_WALKCHAIN,
      #    the default since session 28; the stage's _CHAIN runs) takes the
      #    chain's sum where a check failed too (red through _LIE's poisoned
      #    pieces)
      #  chainrec: a record's last piece left out of the chain
      #  chainseg: a segment of two chunks left out of the chain
      #  bigok: the large walk as one chain (EXACTQUALITY_CUDA_BIGCHAIN, the
      #    default since session 36; the stage's _BIGCHAIN runs) takes the
      #    chain's sum where a check failed too (red through _LIE's poisoned
      #    pieces)
      #  bigbreak: a chunk without a split record between two stretches of
      #    the large chain left out
      #  bigrec: a record's last piece left out of the large chain
      #  bigseg: a segment of two chunks left out of the large chain
      #  bigfirst: the runs kernel's add of a sum's first chunk leaves out
      #    its last term
      #  bigstart: the large chain starts from +0.0, not the first chunk's sum
      #  bigcount: the large chain is never taken (its count of sums must
      #    not be 0)
      #  bigpair, bigbefore: the large chain's composition of the stretches
      #    of one binade (compose_steps) leaves out, for a thread's second
      #    step, its first; for its first, the threads' before it
      #  bighead, biglast: that composition joins run steps of two binades
      #    (a stretch's head not broken where the binade changes; the last
      #    step of a stretch not seen where it does)
      #  firstagain: a first chunk that the runs kernel added for the large
      #    chain is formed again after a reused plan (its split record made
      #    all the same: the harness's count of chunks formed again)
      #  firstwalk: where the large chain fails, the walk below steps over
      #    that first chunk from +0.0 without its sum (red through _LIE)
      #  twinfirst, twintie, twinneg, twinnz, twinhalf, twinalone: the kept
      #    plan's twins (a base sum and its quartic from one read of x,
      #    EXACTQUALITY_CUDA_TWINS, since session 38): a run's first
      #    increment from the lane's second half; exact halves not flagged;
      #    X's negative terms not flagged; X's non-zero terms not seen (its
      #    chunks flagged zero); the chunk sum's first half replaced by its
      #    second; a flagged sum not formed alone; (twinunit) exact halves
      #    looked for at u, not u/2 (eq_ord_round_unit's half_u, since the
      #    twins add in units of the terms)
      #  halfpair, halfshfl, halflead, halfterm, halfrun, halftwin: exact
      #    halves added apart (EqOrdHalves, since session 39): a chunk's
      #    lanes composed in the wrong order; a lane's odd-start part taken
      #    from its even start's; the first increment's half looked for at
      #    the lane's second term; the quartic's halves from its base's
      #    terms; chunk_run's and the twins' halves not added
      #  (no mutant for the large chain's places: bigplace, which gave the
      #    upper half of each 16-byte word's pair its lower half's place, was
      #    green in session 37: such steps were overwritten or left unwritten,
      #    every such chain failed its checks, and the walk below took the
      #    sum from +0.0, exact; docs/cuda.md, Open work)
      # and the blurs' (s2_blur_terms_kernel; lib/cuda/s2_blur_terms.cuh), red in the
      # ssimulacra2 stage of the harness:
      #  blurmargin: the row blurs leave out the margin's last row below the tile
      #  bluredge: the margin takes the column past the frame's right edge as
      #    a pixel (reads the next row's first)
      #  blurcol: the column blur of a warp's first row reads its window one
      #    row low
      #  blurstore: the terms of the frame's last row are not stored
      #  lut8ss: 8-bit 4:2:0 frames through s2_xyb_down's 4:2:2 kernel (the
      #    to_linear stage)
      # The mutants are listed first (one line each in $ML: group, name, files,
      # harness stage, sed), then built in 7 copies of the tree, each mutant in
      # turn in its group's copy (only the mutated file recompiles), and each
      # run as soon as it is built, one run on the GPU at a time: the engine's
      # in 4 groups, the header's in 2, ssimulacra2.cu's in 1.
      ML=$(mktemp); ne=0; nh=0
      mut() { # name sed: the engine (ordsum.cu, ordsum.cuh), the ordsum stage
        printf 'E%d\t%s\t%s\t%s\t%s\n' $((ne % 4 + 1)) "$1" "lib/cuda/ordsum.cu lib/cuda/ordsum.cuh" ordsum "$2" >> $ML; ne=$((ne + 1))
      }
      mut_s2() { # name target sed args...: lib/cuda/ssimulacra2.cu and s2_blur_terms.cuh, the ssimulacra2 stage
        printf 'S\t%s\t%s\t%s\t%s\n' "$1" "lib/cuda/ssimulacra2.cu lib/cuda/s2_blur_terms.cuh" ssimulacra2 "$3" >> $ML
      }
      mut fast 's/l->slow |= a == EQ_ORD_FAST_SLOW;/l->slow |= 0;/; s/lf.slow = (fl \& EQ_ORD_SF_TIE) != 0;/lf.slow = 0;/'
      mut carry 's/rec->p\[pb - 1\].run = eq_ord_compose(exs.run, before_head);/rec->p[pb - 1].run = before_head;/'
      mut restage 's/} else if (held != EQC_TERM_X) {/} else if (0) {/'
      mut seq 's/for (int k = pos0; k < count; k++)/for (int k = pos0 + 1; k < count; k++)/'
      mut prefetch 's/mine, (p + 1) \& 31)/mine, p \& 31)/'
      mut persum 's/\*j0 = (int)(local % t->gcount\[gi\]);/*j0 = 0;/'
      mut again 's/if (prev \&\& (e == EQ_ORD_NONE || e != prev\[off + c\]) \&\& !pre)/if (prev \&\& e == EQ_ORD_NONE \&\& !pre)/'
      mut specsum 's/chunk_sum_of(mine, EQC_TERM_X, lane, \&nonzero)/chunk_sum_of(mine, kind, lane, \&nonzero)/'
      mut walkrec 's/sh.slot\[k\] = kept ? rank : -1;/sh.slot[k] = kept ? 0 : -1;/'
      mut walkgrp 's/r = pre->r\[gi\];/r = pre->r[gi ^ 1];/'
      mut walkcomp 's/eqc_shfl_run(c, len - 1)/eqc_shfl_run(c, len > 2 ? len - 2 : len - 1)/'
      mut mono 's/        first\[i\] = __shfl_sync(0xffffffffu, sf\[i\], 0);/        first[i] = __shfl_sync(0xffffffffu, sf[i], 1);/'
      mut splitscan 's/                pre = op(pre, wtot\[j\]);/                pre = wtot[j];/'
      mut segscan 's/        x = eq_ord_seg_combine(g->first, x);/        x = x;/'
      mut seghead 's/\*head_at = 63 - __clzll((long long)(gh \& upto));/*head_at = j;/'
      mut smallrec 's/sh.slot\[c\] = (signed char)(kept ? rank : -1);/sh.slot[c] = (signed char)(kept ? 0 : -1);/'
      mut fastwalk 's/y = cur.e == EQ_CUDA_SPLIT_CROSS ? plain : run_sum;/y = cur.e == EQ_CUDA_SPLIT_CROSS ? y : run_sum;/'
      mut fastok 's/const int good = lane >= np ||/const int good = 1 ||/'
      mut fusedwait 's/while (ld_acquire_u32(\&ready\[off + tid\]) != epoch) {/while (0) {/; s/while (ld_acquire_u32(\&ready\[off + j\]) != epoch) {/while (0) {/'
      mut fusedscan 's/    if (tid < c) {/    if (tid < c - 1) {/'
      mut fusedflags 's/unsigned \*ready = (unsigned \*)cuda->scratch\[scratch\].ptr;/unsigned *ready = (unsigned *)again;/'
      mut prewalk 's/sh.first = pre ? first_sum\[s\] : 0.0;/sh.first = 0.0;/'
      mut prewalkn 's/            x += v\[j\];/            x += j < 15 ? v[j] : 0.0;/'
      mut prewalkt 's/^    for (; i < count; i++)$/    for (; i < count - 1; i++)/'
      mut prewalkearly 's/            pw = prewalk_chunk(stage, count);/            pw = prewalk_chunk(stage, count - 1);/'
      mut fasttie 's/const int odd = eq_ord_rising_parity(par, h.pre - s0, acc);/const int odd = par;/'
      mut fastpre 's/eq_ord_rising_parity(par, h.pre - s0, acc)/eq_ord_rising_parity(par, h.pre, acc)/'
      mut fastfirst 's/tf_run + acc, sh->first\[t\]\[par\]);/tf_run + acc, sh->first[t][0]);/'
      mut leanwords 's/EQC_LEAN_PIECES \* sizeof(EqCudaSplitPiece)/(EQC_LEAN_PIECES - 1) * sizeof(EqCudaSplitPiece)/'
      mut leanlong 's/        if (__syncthreads_or(long_rec)) {/        if (__syncthreads_or(0)) {/'
      mut fedwait 's/    for (unsigned n = 0; ld_acquire_u32(f) != epoch; n++) {/    for (unsigned n = 0; 0; n++) {/'
      mut chainok 's/            if (sh.next) {/            if (1) {/'
      mut chainrec 's/                cnt = sh.recs\[sh.slot\[c\]\].np, rec = 1;/                cnt = sh.recs[sh.slot[c]].np - 1, rec = 1;/'
      mut chainseg 's/            if (len > 1 || kind == WALK_RUN)/            if (len > 2 || kind == WALK_RUN)/'
      mut bigok 's/                B.ok = good;/                B.ok = 1;/'
      mut bigbreak 's/            y = walk_rest(d, B.brk\[b\], y, 0, walk, sh.terms, \&sh.ex, \&sh.s);/            (void)0;/'
      mut bigrec 's/        B.at\[B.rec_c\[r\]\] = (unsigned short)pool\[B.rec_i\[r\]\].np;/        B.at[B.rec_c[r]] = (unsigned short)(pool[B.rec_i[r]].np - 1);/'
      mut bigseg 's/        bool own = lens\[k\] > 1;/        bool own = lens[k] > 2;/'
      mut bigfirst 's/prewalk_chunk<8>(st, q.count)/prewalk_chunk<8>(st, q.count - 1)/'
      mut bigstart 's/pre ? 1 : 0, pre ? first_sum\[s\] : 0.0,/pre ? 1 : 0, 0.0,/'
      mut bigcount 's/    if (chain \&\& !none_plan \&\& nch <= EQC_BIG_CHUNKS) {/    if (0) {/'
      mut bigpair 's/    v\[1\] = eq_ord_seg_combine(v\[0\], v\[1\]);/    v[1] = v[1];/'
      mut bigbefore 's/    v\[0\] = eq_ord_seg_combine(before, v\[0\]);/    v[0] = v[0];/'
      mut bighead 's/        v\[j\].head = !in || !eq_ord_chain_joins(pe, q\[j\].e);/        v[j].head = !in || cross || pe == EQ_ORD_CROSS;/'
      mut biglast 's/        last\[j\] = in \&\& !eq_ord_chain_joins(q\[j\].e, ne);/        last[j] = in \&\& (cross || ne == EQ_ORD_CROSS);/'
      mut firstagain 's/if (prev \&\& (e == EQ_ORD_NONE || e != prev\[off + c\]) \&\& !pre)/if (prev \&\& (e == EQ_ORD_NONE || e != prev[off + c]))/'
      mut firstwalk 's/^            sum = first_sum\[s\];$/            sum = 0.0;/'
      mut twinfirst 's/                        first\[m\] = h == 0 ? r : first\[m\];/                        first[m] = r;/'
      mut twintie 's/        o->tie\[m\] = tie\[m\];/        o->tie[m] = false;/'
      mut twinneg 's/                    neg = neg | (t\[0\] < 0.0);/                    neg = neg;/'
      mut twinnz 's/                    nz = nz | (t\[0\] != 0.0);/                    nz = nz;/'
      mut twinhalf 's/                    h0\[m\] = h == 0 ? H : h0\[m\];/                    h0[m] = H;/'
      mut twinalone 's/        const int alone = (e\[0\] != EQ_ORD_NONE \&\& bad0) | (e\[1\] != EQ_ORD_NONE \&\& bad1) << 1;/        const int alone = 0;/'
      mut twinunit 's/        half_u\[m\] = eq_ord_half_unit(c\[m\]);/        half_u[m] = c[m] * 0x1p-52;/'
      mut halfpair 's/            h = eq_ord_halves_compose(h, o);/            h = eq_ord_halves_compose(o, h);/'
      mut halfshfl 's/        o.c\[1\] = __shfl_down_sync(0xffffffffu, h.c\[1\], k);/        o.c[1] = __shfl_down_sync(0xffffffffu, h.c[0], k);/'
      mut halflead 's/        eq_ord_halves_push(\&h, term(mine\[k\]), c, half_u, k == 0);/        eq_ord_halves_push(\&h, term(mine[k]), c, half_u, k == 1);/'
      mut halfterm 's/                                        return m ? eq_s2_quartic(t) : t;/                                        return t;/'
      mut halfrun 's/^            eq_ord_halves_apply(\&r, \&h);$/            (void)h;/'
      mut halftwin 's/^            eq_ord_halves_apply(\&r\[m\], \&h);$/            (void)h;/'
      # crossing records (EQ_CUDA_CROSSREC_ENV, session 27; crosslane and
      # crossok in the header, below): a record formed before the wait kept
      # whatever its binade; no binade kept for the next launch (none formed
      # before the wait); the prefixes composed in the wrong order; in the
      # walk as one chain, the suffix's check ignored
      mut crossearly 's/        if (crossed \&\& e0 != early_e0)/        if (crossed \&\& early_e0 == EQ_ORD_NONE)/'
      mut crosskeep 's/            keep_e0\[g\] = e0;/            keep_e0[g] = EQ_ORD_NONE;/'
      mut crossscan 's/                    r = eq_ord_compose(y, r);/                    r = eq_ord_compose(r, y);/'
      mut crosschain 's/            ok \&= end < 0 \&\& eq_exp_field(y) != 0x7ff;/            ok \&= eq_exp_field(y) != 0x7ff;/'
      # split records formed from crossing records' runs (EQ_CUDA_CROSSREC_ENV
      # "split", session 46): a lane's total formed from its neighbour's
      # terms; the form taken whatever binade the runs were formed under;
      # the plan's prefix after the chunk given as the one before it; the
      # record's last piece
      # not copied to the pool; the crossing lane's part after the crossing
      # composed in the wrong order
      mut xstot 's/        const double tot = eq_ord_lane_total(stage, RUNS_ROW, 32, count, lane);/        const double tot = eq_ord_lane_total(stage, RUNS_ROW, 32, count, lane ^ 1);/'
      mut xsearly 's/        const bool early = e0 != EQ_ORD_NONE \&\& e0 == early_e0;/        const bool early = e0 != EQ_ORD_NONE \&\& early_e0 != EQ_ORD_NONE;/'
      mut xsapprox 's/cross_split(stage, count, e0, own_prefix, g,/cross_split(stage, count, e0, own_prefix + cs, g,/'
      mut xscopy 's/^            for (int q = 0; q < np; q++)$/            for (int q = 0; q < np - 1; q++)/'
      mut xsscan 's/            r3 = eq_ord_compose(y3, r3);/            r3 = eq_ord_compose(r3, y3);/'
      # the crossing lane's scan of terms, formed before the wait for every
      # lane (session 53), from its neighbour's terms
      mut xsrows 's/xs->rows\[l\]\[lane\] = warp_scan_sum(row_term(stage, l, nt, lane), lane);/xs->rows[l][lane] = warp_scan_sum(row_term(stage, l ^ 1, nt, lane), lane);/'
      # their rising forms (session 47): the crossing lane's part before the
      # crossing starting with lane 31's increment; the part after it with
      # its last term's; and cross_runs' monotone form: S[l] starting with
      # lane l's first increment, P with lane 1's. (A part's poison,
      # eq_ord_rising_part, is host mutation 20 of test_ordsum: no chunk
      # that crosses once has a rising part past EQ_ORD_CAP.)
      mut xsrise 's/        r1 = m1 ? eq_ord_rising_part(d1, f1) : eq_ord_empty();/        r1 = m1 ? eq_ord_rising_part(d1, up) : eq_ord_empty();/'
      mut xsrise3 's/(long long)up, m3 ? __ffs(m3) - 1 : 0)/(long long)up, m3 ? 31 - __clz(m3) : 0)/'
      mut xsmonos 's/eq_ord_run_monotone(all - pre, next)/eq_ord_run_monotone(all - pre, f)/'
      mut xsmonop 's/P\[lane\] = eq_ord_run_monotone(pre, __shfl_sync(0xffffffffu, f, 0));/P[lane] = eq_ord_run_monotone(pre, __shfl_sync(0xffffffffu, f, 1));/'
      # the tie-free run's arithmetic (lib/exact/ordsum.h, eq_ord_run_scaled1),
      # red in the ordsum stage: one of its four interleaved totals left out,
      # no lane flagged for a negative term, no exact half flagged. No lane
      # flagged for a total of 2^47 units or more (scaledbig, 's/    return
      # !(total < 0x1p47);/    return false;/') was red from session 23 to
      # 38 through kind 18's exact half of 2^51 units in a planned chunk,
      # whose lane then went to the pair form, which gave the empty run; since
      # session 39 such a lane's halves are added apart, exact there too, and
      # the mutant is green (SEED 441): with non-negative terms a run of 2^47
      # units or more is exact below 2^53 and fails its binade's check above,
      # so the flag guards the int64 conversions only (test_ordsum holds it
      # on the host). The pair form's own BIG flag (eq_ord_run_scaled) has no
      # mutant either: the device discards its flags, for it runs only on
      # lanes that eq_ord_run_scaled1 found below 2^47 units.
      # Exact halves added apart (EqOrdHalves): the integer left odd after a
      # half taken at its odd neighbour (halfout, the header's mutation 19);
      # a lane's part for the parity it starts at taken for an even start
      # whatever the lanes before it leave (halfcompose, as mutation 18).
      mx() { # name sed: lib/exact/ordsum.h, the ordsum stage
        printf 'H%d\t%s\t%s\t%s\t%s\n' $((nh % 2 + 1)) "$1" lib/exact/ordsum.h ordsum "$2" >> $ML; nh=$((nh + 1))
      }
      mx scaledpart 's/    return ((part\[0\] + part\[1\]) + (part\[2\] + part\[3\])) \* scale;/    return ((part[0] + part[1]) + part[2]) * scale;/'
      mx scaledneg 's/        neg = neg | (xi < 0.0);/        neg = neg;/'
      mx scaledtie 's/    \*tie = \*tie | (half != 0);/    *tie = *tie;/'
      mx halfout 's/^        h->out\[p\] ^= (int)(pr ^ o);$/        h->out[p] ^= (int)pr;/'
      mx halfcompose 's/        h.c\[p\] = a.c\[p\] + (odd ? b.c\[1\] : b.c\[0\]);/        h.c[p] = a.c[p] + b.c[0];/'
      # the split walk's apply for a non-negative sum (eq_ord_apply_try_pos)
      # taking the even start's entries whatever the sum's parity
      # the small walk's short records (eq_ord_walk_short, branch s24walk): the
      # first pass's crossing terms left out (in eq_ord_chain_step since
      # session 26, which the walk as one chain shares); its checks ignored
      mx leancross 's/    return cross ? y + p->x : next;/    return cross ? y : next;/'
      mx leanok 's/^            ok \&= good;$/            ok \&= 1;/'
      # crossing records' walk end (eq_ord_cross_tail, shared with the host
      # walk): the crossing lane's last term left out; the suffix's check
      # ignored (red through the stage's poisoned suffixes)
      mx crosslane 's/^    for (i = a; i < stop; i++)$/    for (i = a; i < stop - 1; i++)/'
      mx crossok 's/^    if (stop < n \&\& !eq_ord_apply(\&t, S, e0 + 1))$/    if (0)/'
      mx posapply 's/    eq_ord_pick(r, (int)(b \& 1), \&d, \&lo, \&hi);/    eq_ord_pick(r, 0, \&d, \&lo, \&hi);/'
      K=tests/checkkernels/checkkernels
      mut_s2 blurmargin $K 's/    for (int r = warp; r < S2_FH; r += WARPS) {/    for (int r = warp; r < S2_FH - 1; r += WARPS) {/' --seed "$SEED" --only ssimulacra2
      mut_s2 bluredge $K 's/const bool in = y >= 0 \&\& y < h \&\& x >= 0 \&\& x < w;/const bool in = y >= 0 \&\& y < h \&\& x >= 0 \&\& x <= w;/' --seed "$SEED" --only ssimulacra2
      mut_s2 blurcol $K 's/            mu\[m\]\[j\] = eq_s2_fir9_at(v + j, 1);/            mu[m][j] = eq_s2_fir9_at(v + (j ? j : 1), 1);/' --seed "$SEED" --only ssimulacra2
      mut_s2 blurstore $K 's/        if (y < h \&\& x < w) {/        if (y < h - 1 \&\& x < w) {/' --seed "$SEED" --only ssimulacra2
      mut_s2 lut8ss $K 's/s2_xyb_down_kernel<true, 1, 1><<</s2_xyb_down_kernel<true, 1, 0><<</' --seed "$SEED" --only ssimulacra2
      K=tests/checkkernels/checkkernels SRC=$(mktemp) M0=/tmp/eq-mut
      tar --exclude='./build*' --exclude=./.git --exclude=./.dev -cf $SRC .
      mut_run() { # name stage: one run at a time on the GPU
        ( flock 9; timeout 120 /tmp/eq-mut-bin-$1 --seed "$SEED" --only $2 > "$OUT/mutation-$1.log" 2>&1
          echo "rc=$?" >> "$OUT/mutation-$1.log" ) 9> $M0.lock
      }
      mut_group() { # group: its mutants in turn, in its own copy of the tree
        local g=$1 T=$M0-$1 Bg=$M0-b-$1 gg n fs st sx f same
        rm -rf $T $Bg; mkdir -p $T && tar -xf $SRC -C $T
        (cd $T && meson setup $Bg -Dgst=disabled -Dcuda=enabled --buildtype=release > $Bg.log 2>&1 &&
         ninja -j 3 -C $Bg $K >> $Bg.log 2>&1) || { echo "mutation group $g: the tree did not build"; return; }
        # the group's tree unmutated, on its stage: it must pass (rc 0), or
        # its mutants' red means nothing
        st=$(awk -F'\t' -v g=$g '$1 == g { print $4; exit }' $ML)
        cp $Bg/$K /tmp/eq-mut-bin-clean-$g && mut_run clean-$g $st < /dev/null &
        while IFS=$'\t' read -r -u 3 gg n fs st sx; do
          [ "$gg" = "$g" ] || continue
          same=1
          for f in $fs; do cp $f $T/$f; sed -i "$sx" $T/$f; cmp -s $f $T/$f || same=0; done
          if [ $same = 1 ]; then echo "did not apply" > "$OUT/mutation-$n.log"
          elif ninja -j 3 -C $Bg $K >> $Bg.log 2>&1; then cp $Bg/$K /tmp/eq-mut-bin-$n; mut_run $n $st < /dev/null &
          else echo "did not build" > "$OUT/mutation-$n.log"; fi
          for f in $fs; do cp $f $T/$f; done
        done 3< $ML
        wait
      }
      # MUTANTS="a b ..": only the mutants so named (a call too short for
      # all of them)
      if [ -n "${MUTANTS:-}" ]; then
        awk -F'\t' -v keep=" $MUTANTS " 'index(keep, " " $2 " ")' $ML > $ML.keep && mv $ML.keep $ML
      fi
      groups="E1 E2 E3 E4 H1 H2 S" # the copies of the tree, built at once
      for g in $groups; do
        grep -q "^$g"$'\t' $ML && mut_group $g &
      done
      wait
      red=0 tot=0
      while IFS=$'\t' read -r g n fs st sx; do
        tot=$((tot + 1))
        rc=$(grep -oE '^rc=[0-9]+' "$OUT/mutation-$n.log" 2>/dev/null | tail -1 | cut -d= -f2)
        fl=$(grep -oE '[0-9]+ failed' "$OUT/mutation-$n.log" 2>/dev/null | tail -1 | cut -d' ' -f1)
        [ "$rc" = 1 ] && red=$((red + 1))
        echo "mutation $n rc (must be 1): ${rc:-$(head -1 "$OUT/mutation-$n.log" 2>/dev/null)} (${fl:-?} failed)"
      done < $ML
      for g in $groups; do
        [ -f "$OUT/mutation-clean-$g.log" ] &&
          echo "unmutated $g rc (must be 0): $(grep -oE '^rc=[0-9]+' "$OUT/mutation-clean-$g.log" | tail -1 | cut -d= -f2) ($(grep -oE '[0-9]+ passed, [0-9]+ failed' "$OUT/mutation-clean-$g.log" | tail -1))"
      done
      echo "mutations: $red of $tot red"
      rm -f $ML $SRC ;;
    rates-device)
      F=${FIX:-$PWD/../fix} RT=$B/tools/exactquality-ordsum-rates
      run rates-lady 200 $RT $F/lady_ref.yuv $F/lady_crf38.yuv 576 324 420 8 --device --label lady
      run rates-wood 200 $RT $F/wood_ref.yuv $F/wood_crf35.yuv 576 324 420 10 --device --label wood
      run rates-garden 200 $RT $F/garden_ref.yuv $F/garden_blurnoise.yuv 640 360 444 8 --device --label garden
      run rates-raindrops 200 $RT $F/raindrops_ref.yuv $F/raindrops_crf30.yuv 1920 1080 420 8 --device --label raindrops
      run rates-4k 200 $RT bench bench 3840 2160 420 8 --device --frames 1
      # the larger launches' walk as one chain, its count of chained sums the
      # model's (--chain, since session 37; first run on a GPU in session 38:
      # 4K's 246 chained sums, the model's 246)
      run rates-raindrops-chain 200 $RT $F/raindrops_ref.yuv $F/raindrops_crf30.yuv 1920 1080 420 8 --device --chain --label raindrops
      run rates-4k-chain 200 $RT bench bench 3840 2160 420 8 --device --chain --frames 2
      grep -h '^device:' "$OUT"/rates-*.log ;;
    rates-mutation)
      # the engine's large chain with bigplace's sed (every 16-byte word's
      # upper chunk given its lower one's place: chains that fail where the
      # model holds them), built in a copy of the tree: rates-4k-chain's
      # run must then fail (rc 1, "DEVICE MODEL" lines). The checks' own
      # mutant of it was green (session 37); this is the tool's (written in
      # session 37; red on an H100 in session 38: rc 1, 3 DEVICE MODEL lines)
      T=/tmp/eq-rates-mut Bm=/tmp/eq-rates-mut-b
      rm -rf $T $Bm; mkdir -p $T
      tar --exclude='./build*' --exclude=./.git --exclude=./.dev -cf - . | tar -xf - -C $T
      sed -i 's/            u\[h\] = a | b << 16;/            u[h] = a | a << 16;/' $T/lib/cuda/ordsum.cu
      if cmp -s lib/cuda/ordsum.cu $T/lib/cuda/ordsum.cu; then
        echo "rates-mutation: bigplace's sed did not apply"
      elif (cd $T && meson setup $Bm -Dgst=disabled -Dcuda=enabled --buildtype=release > $Bm.log 2>&1 &&
            ninja -C $Bm tools/exactquality-ordsum-rates >> $Bm.log 2>&1); then
        run rates-mutation-4k 200 $Bm/tools/exactquality-ordsum-rates bench bench 3840 2160 420 8 --device --chain --frames 1
        echo "rates-mutation bigplace: $(grep -c "^DEVICE MODEL" "$OUT/rates-mutation-4k.log") DEVICE MODEL lines (must be more than 0, and rc 1)"
      else
        echo "rates-mutation: the mutated tree did not build"
      fi ;;
    bench) run bench 240 "$B/tools/bench_cuda" --frames 100 --warmup 10; cat "$OUT/bench.log" ;;
    upload) run upload 60 "$B/tools/bench_upload"; cat "$OUT/upload.log" ;;
    bundle)
      # every file under $OUT packed into $OUT/logs.tar.gz (the device
      # tool brings back at most 8 files, two folders down): a last step
      if tar -czf /tmp/gpu-logs.tar.gz -C "$OUT" . 2>/dev/null; then
        find "$OUT" -mindepth 1 -delete && mv /tmp/gpu-logs.tar.gz "$OUT/logs.tar.gz"
        echo "logs: $OUT/logs.tar.gz"
      fi ;;
    profile) run profile 300 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
               "$B/tools/bench_cuda" --sizes 3840x2160 --metrics ssim,ms_ssim,ssimulacra2 --frames 1 --warmup 0 --profile
             python3 - "$OUT/profile.log" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; ki = hdr.index("Kernel Name"); vi = hdr.index("Metric Value")
ui = hdr.index("Metric Unit"); print("  unit:", rows[1][ui] if len(rows) > 1 else "?")
tot = collections.OrderedDict()
for r in rows[1:]:
    k = r[ki].split("(")[0]
    tot[k] = tot.get(k, 0.0) + float(r[vi].replace(",", ""))
for k, v in sorted(tot.items(), key=lambda x: -x[1]):
    print("  %-40s %12.1f" % (k, v))
PY
             ;;
    profile-s2) for k in s2_blur_terms ord_chunk_runs ord_chunk_sums ord_walk; do
               run profile-$k 120 ncu --clock-control none -k regex:$k --launch-count 1 \
                 --section SpeedOfLight --section Occupancy --section WarpStateStats \
                 "$B/tools/bench_cuda" --sizes 3840x2160 --metrics ssimulacra2 --frames 1 --warmup 0 --profile
               grep -E '^  [a-z_0-9]+_kernel|Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per Thread|Warp Cycles Per Issued|stall|Stall' "$OUT/profile-$k.log" | cut -c1-220 | head -12
             done ;;
    bench-full) run bench 400 "$B/tools/bench_cuda" --frames 200 --warmup 20 --threads 4; cat "$OUT/bench.log" ;;
    fedwalk)
      # the small walk's forms, FED:CHAIN:CROSS (EXACTQUALITY_CUDA_FEDWALK: two,
      # fed in two steps, the default since session 28; end, at each chunk's
      # end; off, after the fused kernel's end. EXACTQUALITY_CUDA_WALKCHAIN:
      # on, the walk as one chain, the default since session 28; off, step
      # by step.
      # EXACTQUALITY_CUDA_CROSSREC: on, crossing records; off, the default).
      # The ordsum stage sets the forms by its own flags whatever the
      # environment (every form in every run): here again at two more
      # seeds; the ssim stage, the parity test and the rates tool's model
      # follow the environment, in each form. fedbench times them.
      for sd in $((SEED + 1)) $((SEED + 2)); do
        run fed-ordsum-$sd 300 "$B/tests/checkkernels/checkkernels" --seed "$sd" --only ordsum
      done
      F=${FIX:-$PWD/../fix} RT=$B/tools/exactquality-ordsum-rates
      for fm in two:on:off two:off:on two:on:on end:off:on; do
        set_forms $fm
        n=${fm//:/-}
        run fed-ssim-$n 200 "$B/tests/checkkernels/checkkernels" --seed "$SEED" --only ssim
        run fed-parity-$n 300 "$B/tests/lib/test_cuda_parity" --seed "$SEED"
        run fed-rates-lady-$n 200 $RT $F/lady_ref.yuv $F/lady_crf38.yuv 576 324 420 8 --device --label lady
        run fed-rates-4k-$n 200 $RT bench bench 3840 2160 420 8 --device --frames 2
        grep -h '^device:' "$OUT"/fed-rates-*-$n.log | sed "s/^/forms $fm: /"
      done
      clear_forms ;;
    fedbench)
      # SSIM at 4K in two rounds of the forms in turn (record bench and
      # --interleave), then at 1080p and 576x324; a summary line each
      forms="off:off:off two:off:off off:on:off two:on:off two:off:on two:on:on"
      for r in 1 2; do
        for fm in $forms; do
          set_forms $fm
          for mode in record interleave; do
            extra=; [ $mode = interleave ] && extra=--interleave
            L="$OUT/fed-$mode-${fm//:/-}-$r.log"
            timeout 120 "$B/tools/bench_cuda" --sizes 3840x2160 --metrics ssim --frames 200 \
              --warmup 20 $extra > "$L" 2>&1
            printf 'walk %-11s %-10s round %d: %s\n' $fm $mode $r "$(grep -E ' device ' "$L" | head -1)"
          done
        done
      done
      for fm in off:off:off two:on:off two:on:on; do
        set_forms $fm
        L="$OUT/fed-small-${fm//:/-}.log"
        timeout 120 "$B/tools/bench_cuda" --sizes 576x324,1920x1080 --metrics ssim --frames 200 \
          --warmup 20 > "$L" 2>&1
        grep -E ' device ' "$L" | sed "s/^/walk $fm: /"
      done
      clear_forms ;;
    trace)
      # an nsys timeline of 4K SSIMULACRA2 frames (SZ: another size), exact
      # then tree: each kernel of the last frame with its start and end (us
      # from the frame's first kernel), duration, stream and grid, and the
      # frame's span; which chain ends the frame. Written in session 35;
      # session 36 found no nsys on the GPU machine (its CUDA 13.0 holds
      # ncu and compute-sanitizer alone), so there the step says so and
      # goes on: take ncu's durations (profile) or the engine's debug
      # lines (EXACTQUALITY_CUDA_BIGCHAIN=debug) instead.
      command -v nsys > /dev/null || { echo "trace: no nsys on this machine's PATH"; continue; }
      for mode in exact tree; do
        extra=; [ $mode = tree ] && extra=--tree
        nsys profile -t cuda -o "$OUT/tr-$mode" -f true "$B/tools/bench_cuda" --sizes "${SZ:-3840x2160}" \
          --metrics ssimulacra2 --frames 4 --warmup 0 --profile $extra > "$OUT/tr-$mode.log" 2>&1
        nsys stats -q --report cuda_gpu_trace --format csv -o "$OUT/tr-$mode" "$OUT/tr-$mode.nsys-rep" \
          > /dev/null 2>&1 ||
          { echo "trace $mode: nsys failed (see tr-$mode.log)"; continue; }
        python3 - "$OUT/tr-${mode}_cuda_gpu_trace.csv" $mode <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ks = [r for r in rows if r.get("Name") and "[CUDA" not in r["Name"]]
g = lambda r: int(r.get("GrdX") or 1) * int(r.get("GrdY") or 1) * int(r.get("GrdZ") or 1)
big = max(g(r) for r in ks if "s2_xyb_down" in r["Name"])
# a frame starts with scale 0's xyb_down (one launch: device input)
starts = [i for i, r in enumerate(ks) if "s2_xyb_down" in r["Name"] and g(r) == big]
fr = ks[starts[-1]:]
t0 = int(fr[0]["Start (ns)"])
end = 0.0
for r in fr:
    s = (int(r["Start (ns)"]) - t0) / 1000
    d = int(r["Duration (ns)"]) / 1000
    end = max(end, s + d)
    print("%s %8.1f %8.1f %7.1f  stream %-3s grid %-8d %s" % (sys.argv[2], s, s + d, d,
          r.get("Strm", r.get("Stream", "?")), g(r), r["Name"].split("(")[0][:60]))
print("%s frame span %.1f us" % (sys.argv[2], end))
PY
      done ;;
    gate)
      # SSIM at 4K and 1080p interleaved, three rounds, each round as is,
      # gated (bench_cuda --gate 300: every launch of a call queued before
      # the GPU reaches it; compare the events, "tree event" and the exact
      # event_ms column) and with one pair (--pairs 1: the input's
      # footprint a quarter): is the exact sums' larger cost at 4K the
      # host's launching (hiding part of it at 1080p) or the input's
      # footprint (the L2, the TLBs)? (docs/cuda.md, Open work, session 49)
      for r in 1 2 3; do
        ssim_rounds "as-is r$r"
        ssim_rounds "--gate 300 r$r" --gate 300
        ssim_rounds "--pairs 1 r$r" --pairs 1
      done ;;
    gate-trace)
      # the light trace (tools/trace/run.sh) of SSIM at 4K and 1080p as is,
      # then with every launch of a frame queued before the GPU reaches it
      # (--gate 300): which launch does 1080p's exact path wait for?
      # (session 50: gated, its events drop by about 6 us, the tree's not)
      for g in 0 300; do
        echo "== light trace, --gate $g"
        TRACE_REUSE=$([ $g = 300 ] && echo 1 || echo 0) LIGHT=1 \
          BENCH_ARGS="$([ $g = 300 ] && echo --gate 300)" \
          OUT="$OUT/trace-gate$g" timeout 150 bash tools/trace/run.sh 2>&1 | tail -14
      done ;;
    scorers)
      # is 4K's spread between processes (session 50: events exact minus
      # tree 10-15 us, one binary) where a scorer's buffers lie? Six
      # scorers open at once, each timed in turn, three rounds, in three
      # processes; then one process gated (events only). Columns: exact,
      # tree and exact event ms, ratio, scorer, round, tree event ms,
      # events' ratio.
      # Then, per scorer, its rounds' events exact minus tree in us: apart
      # from the others' and steady across rounds would mean placement
      # (session 51: they moved together, round by round; not placement).
      for p in 1 2 3 gated; do
        echo "== scorers, process $p"
        timeout 90 "$B/tools/bench_cuda" --sizes 3840x2160 --metrics ssim --frames 1000 \
          --warmup 50 --interleave --scorers 6 $([ $p = gated ] && echo --gate 300) \
          > "$OUT/scorers-$p.log" 2>&1
        grep -E '^[0-9]+x[0-9]+ +ssim +device ' "$OUT/scorers-$p.log" | tr -d ',)' | awk '
          {print $4, $5, $6, $7, $9, $11, $14, $16; d[$9] = d[$9] sprintf(" %.1f", ($6 - $14) * 1000)}
          END {for (k = 0; k in d; k++) printf "scorer %d: events ex - tree (us):%s\n", k, d[k]}'
      done ;;
    ratios)
      # exact / tree of the default forms, interleaved (--interleave: each
      # sum mode on its own frame pair, each first as often as second),
      # three rounds: SSIM at 4K and 1080p, MS-SSIM and SSIMULACRA2 at 4K
      for r in 1 2 3; do
        L="$OUT/ratios-$r.log"
        timeout 150 "$B/tools/bench_cuda" --sizes 3840x2160,1920x1080 --metrics ssim --frames 2000 \
          --warmup 50 --interleave > "$L" 2>&1
        timeout 150 "$B/tools/bench_cuda" --sizes 3840x2160 --metrics ms_ssim,ssimulacra2 --frames 300 \
          --warmup 20 --interleave >> "$L" 2>&1
        grep -E ' device ' "$L" | sed "s/^/round $r: /"
      done ;;
  esac
done
