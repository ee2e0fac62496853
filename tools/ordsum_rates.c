/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * exactquality-ordsum-rates: how often the exact ordered-sum engine falls
 * back to the plain add on real frames, for every double sum the metrics
 * form (docs/ordered-sum.md, "Fixture rates").
 *
 *   exactquality-ordsum-rates REF.yuv DIST.yuv W H SUB BITDEPTH [options]
 *
 * REF and DIST are raw planar frames (SUB 420, 422, 444 or 400; BITDEPTH 8
 * or 10..16 as little-endian 16-bit words), decoded elsewhere (e.g. by
 * ffmpeg, as tests/lib/run_fixture.sh does). The argument order is
 * run_fixture.sh's, so the meson test decodes a fixture with that script.
 *
 * The term streams are the CPU reference's, formed by its stage functions:
 *   float_ssim     (lib/cpu/ssim.h) per window l, c, (double)s and l*c*s
 *                  after the automatic box decimation: 4 sums;
 *   float_ms_ssim  per window l, c, (double)s at each of 5 scales: 15 sums;
 *   SSIMULACRA2    (lib/cpu/ssimulacra2.h) per pixel, per scale and
 *                  channel: d, d^4, artifact, artifact^4, detail, detail^4
 *                  (eq_s2_run on one thread with its `sums` stage replaced
 *                  by a recorder that calls eq_s2_sums_c and keeps the
 *                  stage's inputs; the recorded sums must be the score's
 *                  ssimulacra2_sums): up to 108 sums.
 * PSNR sums integers (its SSE is a uint64_t): no double sum, not measured.
 * Each stream is contiguous in raster order, as the CUDA kernels hand it to
 * the engine (lib/cuda/ssim.cu, ms_ssim.cu, ssimulacra2.cu: stride 1).
 *
 * For every sum the tool runs
 *   - the plain loop (eq_ordsum_loop: the definition);
 *   - the host pipeline eq_ordsum_host(), layout 4 x 256, segments of 64,
 *     pieces of 16 lanes, tree plan, with its stats;
 *   - the same stages again with the walk instrumented to count pieces
 *     (eq_ordsum_walk's loop with eq_ord_walk_pieces' loop, counting);
 *   - a model of the CUDA walk (lib/cuda/ordsum.cu, ordsum.cuh): the plan
 *     and approximate prefixes from the device's prefix grouping and
 *     eq_ord_plan_chunk(), zero chunks stepped over, a chunk planned term
 *     by term walked by its split record (its pieces as split_chunk forms
 *     them: a crossing term's plain add, each run piece's checked apply),
 *     and a failed chunk added from the failing piece (else its first
 *     term) by eqc_block_exact_add's algorithm (the run of the longest
 *     prefix that passes, then one plain add, repeated); in the launches
 *     the device fuses (ord_small_chunks_kernel), a sum's first chunk
 *     planned term by term is added before the walk (the prewalk; with
 *     --chain also in the launches that the large walk takes);
 * and CHECKs that all of them give the loop's bits (and, for SSIMULACRA2,
 * the bits of the CPU's own eq_s2_sums_c; for SSIM, of dsp.frame_sums).
 * Prints one Markdown table row per metric and sum kind (per scale with
 * --by-scale). --splits adds a second table: the device's split records
 * (each chunk planned term by term but a prewalked first one, of at most
 * 32 pieces: pieces at every crossing term and code change, as
 * split_chunk forms them), how many the block's fast path would take
 * (every run term eq_ord_rising_term's OK or TIE, at most 16 TIE; a launch
 * splits by a block up to 2048 chunks, by a warp beyond), their pieces,
 * those with a negative term, and the chunks of more pieces. --chain adds
 * a table of the larger launches' walk as one chain (chain_model, the
 * device's walk_big_chain): the sums it holds for, each held to the loop,
 * and its steps before and after composing. REF and DIST
 * `bench` score tools/bench_cuda's generated pairs instead of files. Exit status 0 when every
 * sum agrees, 1 when any differs (each difference is printed with its frame, metric, kind,
 * scale and channel), 2 on usage or I/O errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/ssim.h"
#include "cpu/ssimulacra2.h"
#include "cuda/cuda.h" /* the engine's launch rule and record limits (plain C) */
#include "exact/ordsum_host.h"
#include "exact/ssim_terms.h"
#include "exactquality.h"
#include "frame.h"
#include "../tests/common/framegen.h"

/* ------------------------------------------------------------ tallies */

enum { M_SSIM, M_MS_SSIM, M_S2, M_COUNT };
static const char *const metric_name[M_COUNT] = { "float_ssim", "float_ms_ssim", "ssimulacra2" };
static const char *const ssim_kind[4] = { "l", "c", "s", "l*c*s" };
static const char *const s2_kind[6] = { "d", "d^4", "artifact", "artifact^4", "detail",
                                        "detail^4" };
/* The name of sum kind k of metric m. */
static const char *kind_name(int m, int k)
{
    return m == M_S2 ? s2_kind[k] : ssim_kind[k];
}
#define MAX_KINDS 6
#define MAX_SCALES 8

typedef struct Tally {
    size_t sums, terms, chunks;
    /* host pipeline */
    size_t h_failed, h_seg_tried, h_seg_applied, h_pieces, h_pieces_plain, h_plain, h_checks;
    /* device model */
    size_t d_zero, d_failed, d_prewalked, d_records, d_rec_failed, d_seg_tried, d_seg_applied,
        d_checks, d_scans, d_plain;
    /* the device's split records (chunks planned term by term, but a
     * prewalked first one, of at most EQ_CUDA_SPLIT_MAX pieces): on the
     * block's fast path, pieces, with a negative term; chunks of more
     * pieces (no record: the walk adds them) */
    size_t sp_records, sp_fast, sp_pieces, sp_pieces_max, sp_negative, sp_over;
    /* records of at most EQ_ORD_SHORT_PIECES pieces; in the small walk, of more */
    size_t sp_short, sp_small_long;
    /* --lanes: the planned chunks, those whose every lane of 32 terms
     * raises neither NEG nor BIG in eq_ord_run_scaled1 (the monotone run
     * that the device's chunk_run and twins take, exact halves added
     * apart), and those with a lane flagged TIE, NEG or BIG (a binade
     * below EQ_ORD_SCALED_EMIN counts as BIG) */
    size_t ln_planned, ln_mono, ln_tie, ln_neg, ln_big;
    /* of the records walked, those of one binade crossing, and those that
     * lane runs under two binades would walk whole (DevCount) */
    size_t sp_cross_one, sp_cross_whole;
    /* such a record formed before the plan is known, from the frame
     * before's (DevCount's cross_prev..., and guess_false) */
    size_t sp_cross_prev, sp_cross_hit_plan, sp_cross_hit_guess, sp_guess_false;
    size_t sp_stale_tried, sp_stale_whole;
    /* with model_cross: crossing records walked whole, handed to the block */
    size_t xr_whole, xr_failed;
    /* the large walk as one chain (chain_model; sums of larger launches):
     * sums tried, held, given up before the walk (over its limits), failed
     * a check; steps before and after composing, their largest; the chunks
     * the block added between stretches */
    size_t ch_tried, ch_held, ch_over, ch_failed, ch_steps, ch_left, ch_steps_max, ch_left_max,
        ch_breaks;
    /* the sums themselves: mean (sum / n) range, negative sums */
    double mean_lo, mean_hi;
    size_t negative;
} Tally;

static Tally tally[M_COUNT][MAX_KINDS][MAX_SCALES];
static long mismatches;
static int cur_frame;

static const EqOrdLayout layout = { 4, 256, 64, 16 }; /* the device's: lib/cuda/ordsum.cuh */

/* ------------------------------------------------- host walk, counted */

typedef struct PieceCount {
    size_t tried, plain;
} PieceCount;

/* eq_ord_walk_pieces() with counts: pieces checked, pieces added plainly. */
static int walk_pieces_counted(double *s, const double *x, int n, int piece, PieceCount *pc)
{
    int k, plain = 0;
    if (piece < 1 || piece >= n)
        piece = n;
    for (k = 0; k < n; k += piece) {
        const double *xp = x + k;
        int len = n - k < piece ? n - k : piece, i;
        int e = eq_ord_binade(*s);
        double t;
        if (piece < n && e != EQ_ORD_NONE) {
            EqOrdRun r = eq_ord_run_terms(xp, len, 1, e);
            pc->tried++;
            if (eq_ord_apply(s, &r, e))
                continue;
        }
        pc->plain++;
        t = *s;
        for (i = 0; i < len; i++)
            t += xp[i];
        *s = t;
        plain += len;
    }
    return plain;
}

/* eq_ordsum_walk() with the pieces counted. */
static double host_walk_counted(const double *x, size_t n, const int *plan,
                                const EqOrdRun *runs, const EqOrdRun *seg, const int *seg_len,
                                EqOrdStats *st, PieceCount *pc)
{
    size_t ct = eq_ordsum_chunk_terms(&layout), nchunks = eq_ordsum_nchunks(n, &layout);
    int piece = layout.lanes_per_piece * layout.terms_per_lane;
    double s = 0.0;
    size_t c = 0;

    memset(st, 0, sizeof(*st));
    st->terms = n;
    st->chunks = nchunks;
    while (c < nchunks) {
        size_t len = seg_len[c] > 0 ? (size_t)seg_len[c] : 1, end = c + len;
        if (len > 1) {
            st->segments++;
            st->checks++;
            if (eq_ord_apply(&s, &seg[c], plan[c])) {
                st->segments_applied++;
                st->chunks_applied += len;
                c = end;
                continue;
            }
        }
        for (; c < end; c++) {
            size_t first = c * ct, last = (c + 1) * ct < n ? (c + 1) * ct : n;
            if (plan[c] != EQ_ORD_NONE) {
                st->checks++;
                if (eq_ord_apply(&s, &runs[c], plan[c])) {
                    st->chunks_applied++;
                    continue;
                }
            }
            st->chunks_term_by_term++;
            st->terms_term_by_term +=
                (size_t)walk_pieces_counted(&s, x + first, (int)(last - first), piece, pc);
        }
    }
    return s;
}

/* ------------------------------------------------- the device's walk */

/* ord_plan_kernel (lib/cuda/ordsum.cu): 256 threads each add a stretch of
 * `per` chunk sums; plan_prefix scans the stretch totals (eqc_scan: within
 * each warp of 32 the inclusive shuffle scan, at step o lane l >= o adding
 * lane l - o's value; the warp's prefix the totals of the warps before it
 * added in order, then added to each lane's; the exclusive prefix lane
 * l - 1's value, the warp's prefix in lane 0, 0.0 in thread 0); then
 * eq_ord_plan_chunk() of the running prefix before and after each chunk.
 * The same double operations in the same order, so the same plan, and
 * the same approximate prefix before each chunk (approx: the kernel keeps
 * it for the chunks planned term by term, whose split records it
 * places). */
static void device_plan(const double *chunk_sum, size_t nch, int *plan, double *approx)
{
    enum { T = 256, W = T / 32 };
    double x[T], pre[W];
    size_t per = (nch + T - 1) / T;
    for (int t = 0; t < T; t++) {
        size_t a = (size_t)t * per, b = a + per < nch ? a + per : nch;
        double l = 0.0;
        for (size_t c = a; c < b; c++)
            l += chunk_sum[c];
        x[t] = l;
    }
    for (int o = 1; o < 32; o *= 2) {
        double y[T];
        for (int t = 0; t < T; t++)
            y[t] = t % 32 >= o ? x[t - o] : 0.0;
        for (int t = 0; t < T; t++)
            if (t % 32 >= o)
                x[t] = y[t] + x[t];
    }
    /* the warps' prefixes from their inclusive totals (lane 31) */
    for (int w = 0; w < W; w++) {
        pre[w] = w ? x[31] : 0.0;
        for (int j = 1; j < w; j++)
            pre[w] = pre[w] + x[j * 32 + 31];
    }
    for (int t = 32; t < T; t++)
        x[t] = pre[t / 32] + x[t];
    for (int t = 0; t < T; t++) {
        size_t a = (size_t)t * per, b = a + per < nch ? a + per : nch;
        double prefix = t % 32 ? x[t - 1] : pre[t / 32];
        for (size_t c = a; c < b; c++) {
            const double next = prefix + chunk_sum[c];
            plan[c] = eq_ord_plan_chunk(prefix, next);
            approx[c] = prefix;
            prefix = next;
        }
    }
}

typedef struct DevCount {
    size_t zero, failed, prewalked, records, rec_failed, seg_tried, seg_applied, checks, scans,
        plain;
    /* the records walked: those whose plan's prefixes cross one binade,
     * and of those, the ones eq_ord_walk_cross would walk whole from the
     * same start (the design for the device's split block, docs/cuda.md
     * "Open work": counted beside the walk, which they do not change) */
    size_t cross_one, cross_whole;
    /* of those, the ones with a frame before (the same sum's): where its
     * plan crossed one binade in the same chunk from the same e0 (the
     * record formed before this frame's plan is known, from the frame
     * before's plan, is this frame's); where the frame before's prefix
     * and this frame's chunk sum name the same two binades (the guess a
     * block can make before its wait) */
    size_t cross_prev, cross_hit_plan, cross_hit_guess;
    /* of those, where the frame before planned the chunk term by term: the
     * ones whose split record formed from that frame's prefix (today's
     * record, of pieces) walks whole from this frame's start */
    size_t stale_tried, stale_whole;
    /* with model_cross: crossing records walked whole, handed to the block */
    size_t xr_whole, xr_failed;
} DevCount;

/* EQ_CUDA_CROSSREC_ENV "on" (with --device or without): the model gives a
 * fused launch's chunks whose prefixes cross one binade crossing records
 * (EqCudaCross) instead of split records, as the device does then. */
static int model_cross;
/* --chain: the larger launches' walk as one chain (chain_model) tallied;
 * with --device, the engine's launches take it too (_BIGCHAIN) */
static int model_chain;
/* --lanes: the planned chunks' lane flags tallied (Tally's ln_*) */
static int lanes_table;

/* The same sum's plan, approximate prefixes and chunk sums in the frame
 * before (set by measure() for device_walk's cross_model; prev_nch 0:
 * none). */
static const int *prev_plan;
static const double *prev_approx, *prev_cs;
static size_t prev_nch;

/* The device fuses a launch of sums (eq_cuda_fused_launch, exact mode):
 * one kernel forms its chunk sums, plan and runs, and there a sum's
 * first chunk, when it is planned term by term, is added where it is
 * staged, with the plain adds from +0.0 (its start is known), and the walk
 * starts at chunk 1 (the prewalk, EQ_CUDA_PREWALK_ENV). The launches are
 * the metrics' (lib/cuda/ssim.cu, ms_ssim.cu, ssimulacra2.cu): float_ssim's
 * 4 sums; float_ms_ssim's 15; SSIMULACRA2's 18 of scale 0, and those of
 * scales 1.. in a second launch. */
static int launch_fused; /* the sums measured next are in a fused launch */
static size_t fused_sums; /* the sums measured in fused launches */
/* ... and walked by ord_walk_small_kernel (every sum at most
 * EQ_CUDA_FUSED_SUM_CHUNKS chunks, fused or not), whose lean records
 * (branch s24walk) read a record of more than EQ_ORD_SHORT_PIECES pieces
 * from the pool */
static int launch_small;

/* Whether a launch of `count` sums of n[0], n[1], ... terms is fused;
 * *small: whether the small walk takes it. */
static int fused_launch(const size_t *n, int count, int *small)
{
    size_t total = 0, most = 0;
    for (int i = 0; i < count; i++) {
        const size_t c = eq_ordsum_nchunks(n[i], &layout);
        total += c;
        most = c > most ? c : most;
    }
    *small = eq_cuda_small_walk((long long)most);
    return eq_cuda_fused_launch((long long)most, (long long)total, -1);
}

/* eqc_block_exact_add (lib/cuda/ordsum.cuh), one thread: while s is +0.0
 * the first non-zero term is added; while s has no binade one plain add;
 * else the longest prefix whose run passes is applied and the next term is
 * added plainly. A "scan" is one round of the block. */
static double block_exact_add(double s, const double *v, int count, DevCount *dc)
{
    int pos = 0;
    while (pos < count) {
        int e = eq_ord_binade(s);
        dc->scans++;
        if (e == EQ_ORD_NONE && eq_bits(s) == 0) {
            int k = pos;
            while (k < count && v[k] == 0.0)
                k++;
            if (k < count) {
                s = s + v[k];
                dc->plain++;
            }
            pos = k + 1;
            continue;
        }
        if (e == EQ_ORD_NONE) {
            s = s + v[pos];
            dc->plain++;
            pos++;
            continue;
        }
        EqOrdRun acc = eq_ord_empty();
        double pass = s;
        int k = count;
        for (int i = pos; i < count; i++) {
            double t = s;
            acc = eq_ord_compose(acc, eq_ord_term(v[i], e));
            if (!eq_ord_apply(&t, &acc, e)) {
                k = i;
                break;
            }
            pass = t;
        }
        s = pass;
        if (k < count) {
            s = s + v[k];
            dc->plain++;
        }
        pos = k + 1;
    }
    return s;
}

/* A split record as the device forms it (lib/cuda/ordsum.cu, split_chunk;
 * EqCudaSplit): its pieces' first terms (chunk positions) and codes. */
typedef struct SplitRec {
    int np; /* pieces (over EQ_CUDA_SPLIT_MAX: no record, only counted) */
    /* with model_cross, a crossing record's binade instead (EQ_ORD_NONE:
     * none, np says) */
    int cross_e0;
    int head[EQ_CUDA_SPLIT_MAX], code[EQ_CUDA_SPLIT_MAX];
    int fast, neg; /* the block's fast path would take it; a term is negative */
} SplitRec;

/* The record of chunk c (planned term by term) as split_chunk forms it
 * from the chunk's approximate prefix `approx` (the plan's): the codes by
 * eq_ord_split_code of the approximate sum before each non-zero term,
 * which the device forms for row r (terms 32r .. 32r+31) from its rows'
 * sums (each from 0.0, all 32 values, those past the chunk's end 0.0) by
 * a warp's inclusive shuffle scan, approx plus row r - 1's prefix (plus
 * 0.0 for row 0), then the row's non-zero terms added in order. The same
 * for a warp's split and a block's (SPLIT_NT threads add their row's
 * terms before their own first). Pieces start at every crossing term and
 * code change (EQ_ORD_SPLIT_HEAD). rec->fast: every run term is
 * eq_ord_rising_term's OK or TIE, at most EQ_CUDA_SPLIT_FAST_TIES TIE. */
static void device_split(const double *x, size_t n, size_t c, double approx, SplitRec *rec)
{
    enum { ROWS = 32, ROW = 32 };
    const size_t ct = eq_ordsum_chunk_terms(&layout), a = c * ct, b = a + ct < n ? a + ct : n;
    double inc[ROWS];
    int prev = EQ_ORD_SPLIT_NOCODE, ties = 0, slow = 0;
    for (int r = 0; r < ROWS; r++) {
        double ls = 0.0;
        for (int k = 0; k < ROW; k++) {
            const size_t i = a + (size_t)(r * ROW + k);
            ls += i < b ? x[i] : 0.0;
        }
        inc[r] = ls;
    }
    for (int o = 1; o < ROWS; o *= 2) {
        double y[ROWS];
        for (int r = 0; r < ROWS; r++)
            y[r] = r >= o ? inc[r - o] : 0.0;
        for (int r = o; r < ROWS; r++)
            inc[r] += y[r];
    }
    rec->np = 0;
    rec->neg = 0;
    for (int r = 0; r < ROWS; r++) {
        double cur = approx + (r ? inc[r - 1] : 0.0);
        for (int k = 0; k < ROW; k++) {
            const size_t i = a + (size_t)(r * ROW + k);
            const double v = i < b ? x[i] : 0.0;
            if (v == 0.0)
                continue;
            const int code = eq_ord_split_code(cur, v);
            if (EQ_ORD_SPLIT_HEAD(code, prev)) {
                if (rec->np < EQ_CUDA_SPLIT_MAX) {
                    rec->head[rec->np] = r * ROW + k;
                    rec->code[rec->np] = code;
                }
                rec->np++;
            }
            if (code != EQ_ORD_CROSS) {
                int64_t ti;
                const int kd = eq_ord_rising_term(v, code, &ti);
                slow += kd == EQ_ORD_RISING_SLOW;
                ties += kd == EQ_ORD_RISING_TIE;
            }
            rec->neg |= v < 0.0;
            prev = code;
            cur += v;
        }
    }
    rec->fast = slow == 0 && ties <= EQ_CUDA_SPLIT_FAST_TIES;
}

/* split_walk (lib/cuda/ordsum.cu): the pieces of rec over chunk terms
 * v[0 .. count - 1] (a run piece's run composed from its terms up to the
 * next piece, under its code) walked by their definition,
 * eq_ord_walk_record. Returns -1 when every piece was added, else the
 * first term of the piece that failed its check, *s exact before it. */
static int split_walk_model(double *s, const double *v, int count, const SplitRec *rec,
                            DevCount *dc)
{
    EqOrdPiece pc[EQ_CUDA_SPLIT_MAX];
    for (int p = 0; p < rec->np; p++) {
        const int h = rec->head[p], end = p + 1 < rec->np ? rec->head[p + 1] : count;
        memset(&pc[p], 0, sizeof(pc[p]));
        pc[p].x = v[h];
        pc[p].e = rec->code[p];
        pc[p].start = h;
        if (rec->code[p] != EQ_ORD_CROSS)
            pc[p].run = eq_ord_run_terms(v + h, end - h, 1, rec->code[p]);
    }
    const int failed = eq_ord_walk_record(s, pc, rec->np, -1);
    for (int p = 0; p < rec->np && (failed < 0 || pc[p].start < failed); p++)
        dc->plain += rec->code[p] == EQ_ORD_CROSS; /* the crossing terms added */
    return failed;
}

/* The walks (ord_walk_kernel, ord_walk_small_kernel): segments, then
 * chunks (a zero chunk stepped over while s is finite); a chunk planned
 * term by term by its split record (recs[c], np 1 .. EQ_CUDA_SPLIT_MAX;
 * any other np: no record); a chunk whose check fails, from the term where
 * it failed (a record's failed piece; else its first), by block_exact_add.
 * With `prewalk` (a fused launch) a first chunk planned term by term is
 * added before, with the plain adds from +0.0. */
/* What a record of lane runs under two binades would do for chunk terms
 * v[0 .. count-1] from the exact sum s, the plan's prefixes before and
 * after the chunk being approx and approx + cs (DevCount's cross fields). */
/* The binade e0 a chunk's prefixes cross from, when they cross exactly
 * one (before: the approximate prefix before it, cs its sum), else
 * EQ_ORD_NONE. */
static int one_crossing(double before, double cs)
{
    const int e0 = eq_ord_binade(before), e1 = eq_ord_binade(before + cs);
    return e0 != EQ_ORD_NONE && e1 == e0 + 1 ? e0 : EQ_ORD_NONE;
}

static void cross_model(double s, const double *x, size_t n, size_t c, int count,
                        double approx, double cs, DevCount *dc)
{
    const double *v = x + c * eq_ordsum_chunk_terms(&layout);
    enum { LANES = 32, PER = 32 };
    const int e0 = one_crossing(approx, cs);
    if (e0 == EQ_ORD_NONE)
        return;
    EqOrdRun P[LANES], S[LANES];
    eq_ord_cross_record(v, count, LANES, PER, e0, P, S);
    dc->cross_one++;
    dc->cross_whole += eq_ord_walk_cross(&s, P, S, e0, v, count, LANES, PER) < 0;
    if (c < prev_nch) {
        dc->cross_prev++;
        dc->cross_hit_plan += prev_plan[c] == EQ_ORD_NONE &&
                              one_crossing(prev_approx[c], prev_cs[c]) == e0;
        dc->cross_hit_guess += one_crossing(prev_approx[c], cs) == e0;
        if (prev_plan[c] == EQ_ORD_NONE) {
            SplitRec r;
            DevCount scratch;
            double t = s;
            memset(&scratch, 0, sizeof(scratch));
            device_split(x, n, c, prev_approx[c], &r);
            dc->stale_tried++;
            dc->stale_whole += r.np >= 1 && r.np <= EQ_CUDA_SPLIT_MAX &&
                               split_walk_model(&t, v, count, &r, &scratch) < 0;
        }
    }
}

static double device_walk(const double *x, size_t n, const int *plan, const EqOrdRun *runs,
                          const EqOrdRun *seg, const int *seg_len, const unsigned char *zero,
                          const SplitRec *recs, int prewalk, const double *approx,
                          const double *chunk_sum, DevCount *dc)
{
    size_t ct = eq_ordsum_chunk_terms(&layout), nch = eq_ordsum_nchunks(n, &layout);
    double sum = 0.0;
    size_t c = 0;
    if (prewalk && nch > 0 && plan[0] == EQ_ORD_NONE) {
        const size_t count = n < ct ? n : ct;
        for (size_t i = 0; i < count; i++)
            sum += x[i];
        dc->prewalked++;
        c = 1;
    }
    while (c < nch) {
        size_t k = c;
        int pos0 = 0;
        while (k < nch) {
            int len = seg_len[k];
            if (len > 1) {
                dc->seg_tried++;
                dc->checks++;
                if (eq_ord_apply(&sum, &seg[k], plan[k])) {
                    dc->seg_applied++;
                    k += (size_t)len;
                    continue;
                }
            }
            size_t end = k + (size_t)(len > 1 ? len : 1);
            while (k < end) {
                if (zero[k] && eq_exp_field(sum) != 0x7ff) {
                    dc->zero++;
                    k++;
                } else if (plan[k] != EQ_ORD_NONE) {
                    dc->checks++;
                    if (!eq_ord_apply(&sum, &runs[k], plan[k]))
                        break;
                    k++;
                } else if (recs[k].cross_e0 != EQ_ORD_NONE) {
                    /* a crossing record (model_cross), walked as the
                     * device's cross_walk walks it */
                    enum { L = EQ_ORD_CROSS_LANES };
                    const size_t first = k * ct;
                    const int count = (int)(n - first < ct ? n - first : ct);
                    EqOrdRun P[L], S[L];
                    eq_ord_cross_record(x + first, count, L, L, recs[k].cross_e0, P, S);
                    pos0 = eq_ord_walk_cross(&sum, P, S, recs[k].cross_e0, x + first, count, L,
                                             L);
                    if (pos0 >= 0) {
                        dc->xr_failed++;
                        break;
                    }
                    dc->xr_whole++;
                    pos0 = 0;
                    k++;
                } else if (recs[k].np >= 1 && recs[k].np <= EQ_CUDA_SPLIT_MAX) {
                    const size_t first = k * ct;
                    const int count = (int)(n - first < ct ? n - first : ct);
                    dc->records++;
                    cross_model(sum, x, n, k, count, approx[k], chunk_sum[k], dc);
                    pos0 = split_walk_model(&sum, x + first, count, &recs[k], dc);
                    if (pos0 >= 0) {
                        dc->rec_failed++;
                        break;
                    }
                    pos0 = 0;
                    k++;
                } else {
                    break;
                }
            }
            if (k < end)
                break;
        }
        c = k;
        if (c < nch) {
            size_t first = c * ct, count = n - first < ct ? n - first : ct;
            dc->failed++;
            sum = block_exact_add(sum, x + first + pos0, (int)count - pos0, dc);
            c++;
        }
    }
    return sum;
}

/* The large walk as one chain (walk_big_chain, lib/cuda/ordsum.cu; every
 * sum of a launch that the small walk does not take, up to EQC_BIG_CHUNKS
 * chunks): from the sum of the first chunk added by the loop's adds (the
 * runs kernel's first_sum) where it is planned term by term, each later
 * chunk's steps in order: a segment of more than one chunk its run; a
 * chunk that is a segment of its own nothing when zero, else its run when
 * planned, else its split record's pieces, else (no record) it ends a
 * stretch and the block adds it (block_exact_add). With no such chunk,
 * the stretches of run steps under one binade are composed first
 * (eq_ord_compose_chain, as compose_steps). Each stretch by
 * eq_ord_walk_chain. Returns 1 with *sum where every stretch held, 0 where
 * it did not (*why 1: over the chain's limits before the walk; 2: a
 * failed check or a sum not finite), the walk above then taking the sum
 * from +0.0. *steps, *left: the steps before and after composing;
 * *records: the split records among the steps (which the device counts
 * as walked whole where the chain holds). */
#define CHAIN_CHUNKS 8192 /* EQC_BIG_CHUNKS */
#define CHAIN_STEPS 512   /* EQC_BIG_STEPS */
#define CHAIN_BREAKS 8    /* EQC_BIG_BREAKS */
#define CHAIN_RECS 128    /* EQC_BIG_RECS */
static int chain_model(const double *x, size_t n, const int *plan, const EqOrdRun *runs,
                       const EqOrdRun *seg, const int *seg_len, const unsigned char *zero,
                       const SplitRec *recs, double *sum, size_t *steps, size_t *left,
                       size_t *breaks, size_t *records, int *why)
{
    static EqOrdPiece prog[CHAIN_STEPS + EQ_CUDA_SPLIT_MAX];
    const size_t ct = eq_ordsum_chunk_terms(&layout), nch = eq_ordsum_nchunks(n, &layout);
    size_t brk[CHAIN_BREAKS + 1], brk_at[CHAIN_BREAKS + 1], nbrk = 0, nrec = 0, np = 0, own = 0;
    double y = 0.0;
    size_t c = 0;
    *steps = *left = *breaks = *records = 0;
    *why = 1;
    if (nch > CHAIN_CHUNKS)
        return 0;
    if (n > 0 && plan[0] == EQ_ORD_NONE) {
        const size_t count = n < ct ? n : ct;
        for (size_t i = 0; i < count; i++)
            y += x[i];
        c = 1;
    }
    for (; c < nch; c++) {
        const size_t first = c * ct;
        const int count = (int)(n - first < ct ? n - first : ct);
        EqOrdPiece q;
        memset(&q, 0, sizeof(q));
        if (seg_len[c] > 1 || (seg_len[c] == 1 && !zero[c] && plan[c] != EQ_ORD_NONE)) {
            if (++own > CHAIN_STEPS)
                return 0;
            if (np >= CHAIN_STEPS) {
                np++;
                continue;
            }
            q.run = seg_len[c] > 1 ? seg[c] : runs[c];
            q.e = plan[c];
            prog[np++] = q;
        } else if (seg_len[c] == 1 && !zero[c] && recs[c].np >= 1 &&
                   recs[c].np <= EQ_CUDA_SPLIT_MAX) {
            const SplitRec *r = &recs[c];
            if (++nrec > CHAIN_RECS)
                return 0;
#if EQ_ORDSUM_MUTATION == 17
            /* mutation: a record's last piece left out */
            for (int k = 0; k < r->np - 1; k++, np++) {
#else
            for (int k = 0; k < r->np; k++, np++) {
#endif
                const int h = r->head[k], end = k + 1 < r->np ? r->head[k + 1] : count;
                if (np >= CHAIN_STEPS)
                    continue;
                memset(&q, 0, sizeof(q));
                q.x = x[first + (size_t)h];
                q.e = r->code[k];
                q.start = h;
                if (q.e != EQ_ORD_CROSS)
                    q.run = eq_ord_run_terms(x + first + h, end - h, 1, q.e);
                prog[np] = q;
            }
        } else if (seg_len[c] == 1 && !zero[c]) {
            if (nbrk >= CHAIN_BREAKS)
                return 0;
            brk[nbrk] = c;
            brk_at[nbrk++] = np;
        }
    }
    *steps = np;
    if (np > CHAIN_STEPS)
        return 0;
    *why = 2;
    *breaks = nbrk;
    *records = nrec;
    if (nbrk == 0)
        np = (size_t)eq_ord_compose_chain(prog, (int)np);
    *left = np;
    brk_at[nbrk] = np;
    size_t from = 0;
    for (size_t b = 0; b <= nbrk; b++) {
        if (!eq_ord_walk_chain(&y, prog + from, (int)(brk_at[b] - from)))
            return 0;
        if (b < nbrk) {
            const size_t first = brk[b] * ct;
            const int count = (int)(n - first < ct ? n - first : ct);
            DevCount dc;
            memset(&dc, 0, sizeof(dc));
            y = block_exact_add(y, x + first, count, &dc);
        }
        from = brk_at[b];
    }
    *sum = y;
    return 1;
}

/* ---------------------------------------------------- one sum, checked */

typedef struct Scratch {
    size_t cap;
    double *chunk_sum, *approx;
    int *plan, *seg_len;
    SplitRec *recs;
    EqOrdRun *runs, *seg, lane_runs[256];
    EqOrdSegRun segscratch[64];
    unsigned char *zero;
} Scratch;

static Scratch scr;

/* Each sum's plan, approximate prefixes and chunk sums of its last frame
 * (cross_model's frame before). */
typedef struct PrevSum {
    size_t nch, cap;
    int *plan;
    double *approx, *cs;
} PrevSum;

static PrevSum prev_sums[M_COUNT][MAX_KINDS][MAX_SCALES][3];

static void prev_keep(PrevSum *p, size_t nch)
{
    if (nch > p->cap) {
        free(p->plan);
        free(p->approx);
        free(p->cs);
        p->plan = malloc(nch * sizeof(int));
        p->approx = malloc(nch * sizeof(double));
        p->cs = malloc(nch * sizeof(double));
        if (!p->plan || !p->approx || !p->cs) {
            fprintf(stderr, "exactquality-ordsum-rates: out of memory\n");
            exit(2);
        }
        p->cap = nch;
    }
    memcpy(p->plan, scr.plan, nch * sizeof(int));
    memcpy(p->approx, scr.approx, nch * sizeof(double));
    memcpy(p->cs, scr.chunk_sum, nch * sizeof(double));
    p->nch = nch;
}

/* What measure() found for its sum, for --device (dev_add). */
static struct {
    double loop;
    size_t nch, made, whole, failed;
    size_t xr_made, xr_whole, xr_failed; /* crossing records (model_cross) */
    int chained; /* with --chain: the sum held as one chain (chain_model) */
    int *plan;
    size_t plan_cap;
} last;


static void scratch_reserve(size_t nch)
{
    if (nch <= scr.cap)
        return;
    free(scr.chunk_sum);
    free(scr.approx);
    free(scr.recs);
    free(scr.plan);
    free(scr.seg_len);
    free(scr.runs);
    free(scr.seg);
    free(scr.zero);
    scr.chunk_sum = malloc(nch * sizeof(double));
    scr.approx = malloc(nch * sizeof(double));
    scr.recs = malloc(nch * sizeof(SplitRec));
    scr.plan = malloc(nch * sizeof(int));
    scr.seg_len = malloc(nch * sizeof(int));
    scr.runs = malloc(nch * sizeof(EqOrdRun));
    scr.seg = malloc(nch * sizeof(EqOrdRun));
    scr.zero = malloc(nch);
    if (!scr.chunk_sum || !scr.approx || !scr.recs || !scr.plan || !scr.seg_len || !scr.runs ||
        !scr.seg || !scr.zero) {
        fprintf(stderr, "exactquality-ordsum-rates: out of memory\n");
        exit(2);
    }
    scr.cap = nch;
}

static void mismatch(const char *what, int m, int kind, int scale, int ch, double loop,
                     double got)
{
    printf("MISMATCH frame %d %s %s scale %d channel %d: %s %a, loop %a\n", cur_frame,
           metric_name[m], kind_name(m, kind), scale, ch, what, got, loop);
    mismatches++;
}

static int same_bits(double a, double b)
{
    return eq_bits(a) == eq_bits(b);
}

/* Runs every engine on x[0..n-1] and adds the counts to the tallies.
 * ref: the CPU stage's own sum of the stream. */
static void measure(const double *x, size_t n, int m, int kind, int scale, int ch, double ref)
{
    const EqOrdPlanSpec tree = { EQ_ORD_PLAN_TREE, 0, 0 };
    double loop = eq_ordsum_loop(x, n, 1, 0.0), host, counted, dev;
    EqOrdStats st, st2;
    PieceCount pc = { 0, 0 };
    DevCount dc;
    size_t nch = eq_ordsum_nchunks(n, &layout), ct = eq_ordsum_chunk_terms(&layout);

    if (!same_bits(loop, ref))
        mismatch("CPU stage sum", m, kind, scale, ch, loop, ref);
    if (eq_ordsum_host(x, n, 1, 0.0, &layout, &tree, &host, &st) < 0) {
        fprintf(stderr, "exactquality-ordsum-rates: eq_ordsum_host failed\n");
        exit(2);
    }
    if (!same_bits(loop, host))
        mismatch("eq_ordsum_host", m, kind, scale, ch, loop, host);

    scratch_reserve(nch ? nch : 1);
    eq_ordsum_chunk_sums(x, n, 1, &layout, scr.chunk_sum);
    eq_ordsum_plan_tree(0.0, scr.chunk_sum, nch, scr.plan);
    eq_ordsum_chunk_runs(x, n, 1, &layout, scr.plan, scr.runs, scr.lane_runs);
    eq_ordsum_segment_runs(scr.runs, scr.plan, nch, &layout, scr.seg, scr.seg_len,
                           scr.segscratch);
    counted = host_walk_counted(x, n, scr.plan, scr.runs, scr.seg, scr.seg_len, &st2, &pc);
    if (!same_bits(loop, counted))
        mismatch("host walk (counted)", m, kind, scale, ch, loop, counted);
    if (st2.chunks_term_by_term != st.chunks_term_by_term ||
        st2.terms_term_by_term != st.terms_term_by_term || st2.segments != st.segments ||
        st2.segments_applied != st.segments_applied || st2.checks != st.checks)
        mismatch("host walk counts differ from eq_ordsum_host's stats;", m, kind, scale, ch,
                 loop, counted);

    /* the device: its plan, runs and segments under that plan, its walk */
    for (size_t c = 0; c < nch; c++) {
        size_t first = c * ct, last = first + ct < n ? first + ct : n;
        unsigned char z = 1;
        for (size_t i = first; i < last && z; i++)
            z = x[i] == 0.0;
        scr.zero[c] = z;
    }
    device_plan(scr.chunk_sum, nch, scr.plan, scr.approx);
    eq_ordsum_chunk_runs(x, n, 1, &layout, scr.plan, scr.runs, scr.lane_runs);
    eq_ordsum_segment_runs(scr.runs, scr.plan, nch, &layout, scr.seg, scr.seg_len,
                           scr.segscratch);
    /* --lanes: each planned chunk's lanes as the device forms their runs
     * first (32 consecutive terms a lane, eq_ord_run_scaled1) */
    size_t ln[5] = { 0, 0, 0, 0, 0 };
    for (size_t c = 0; lanes_table && c < nch; c++) {
        const int e = scr.plan[c];
        if (e == EQ_ORD_NONE)
            continue;
        const size_t first = c * ct, last = first + ct < n ? first + ct : n;
        const int fl = eq_ord_chunk_lane_flags(x + first, last - first, e);
        ln[0]++;
        ln[1] += !(fl & (EQ_ORD_SF_NEG | EQ_ORD_SF_BIG));
        ln[2] += (fl & EQ_ORD_SF_TIE) != 0;
        ln[3] += (fl & EQ_ORD_SF_NEG) != 0;
        ln[4] += (fl & EQ_ORD_SF_BIG) != 0;
    }
    /* the split records: every non-zero chunk planned term by term but a
     * prewalked first one (the engine's pool of EQC_SPLIT_POOL records a
     * launch is not modelled: no fixture's launch comes near it); a
     * first chunk is prewalked in fused launches, and with --chain in
     * the launches that the large walk takes (its chain starts there) */
    const int prewalk = launch_fused || (model_chain && !launch_small);
    size_t sp_records = 0, sp_fast = 0, sp_pieces = 0, sp_max = 0, sp_neg = 0, sp_over = 0;
    size_t sp_short = 0, sp_small_long = 0;
    size_t xr_made = 0;
    for (size_t c = 0; c < nch; c++) {
        SplitRec *r = &scr.recs[c];
        r->np = 0;
        r->cross_e0 = EQ_ORD_NONE;
        if (scr.plan[c] != EQ_ORD_NONE || scr.zero[c] || (c == 0 && prewalk))
            continue;
        if (model_cross && launch_fused &&
            (r->cross_e0 = eq_ord_cross_binade(scr.approx[c], scr.chunk_sum[c])) !=
                EQ_ORD_NONE) {
            xr_made++;
            continue;
        }
        device_split(x, n, c, scr.approx[c], r);
        if (r->np > EQ_CUDA_SPLIT_MAX) {
            sp_over++;
            continue;
        }
        sp_records++;
        sp_fast += (size_t)r->fast;
        sp_pieces += (size_t)r->np;
        sp_max = (size_t)r->np > sp_max ? (size_t)r->np : sp_max;
        sp_neg += (size_t)r->neg;
        sp_short += r->np <= EQ_ORD_SHORT_PIECES;
        sp_small_long += launch_small && r->np > EQ_ORD_SHORT_PIECES;
    }
    /* the frame before's plan for cross_model, and the chunks whose guess
     * from it (that prefix and this frame's chunk sum) names a crossing
     * that this frame's plan does not have */
    PrevSum *ps = &prev_sums[m][kind][scale < MAX_SCALES ? scale : MAX_SCALES - 1][ch % 3];
    size_t guess_false = 0;
    prev_nch = ps->nch == nch ? nch : 0;
    prev_plan = ps->plan;
    prev_approx = ps->approx;
    prev_cs = ps->cs;
    for (size_t c = 0; c < prev_nch; c++) {
        const int g = one_crossing(prev_approx[c], scr.chunk_sum[c]);
        guess_false += g != EQ_ORD_NONE &&
                       (scr.plan[c] != EQ_ORD_NONE ||
                        one_crossing(scr.approx[c], scr.chunk_sum[c]) != g);
    }
    memset(&dc, 0, sizeof(dc));
    dev = device_walk(x, n, scr.plan, scr.runs, scr.seg, scr.seg_len, scr.zero, scr.recs,
                      prewalk, scr.approx, scr.chunk_sum, &dc);
    if (!same_bits(loop, dev))
        mismatch("device walk model", m, kind, scale, ch, loop, dev);
    fused_sums += (size_t)launch_fused;
    /* the larger launches' walk as one chain, where it holds */
    size_t ch_steps = 0, ch_left = 0, ch_breaks = 0, ch_records = 0;
    int ch_why = 0, ch_held = 0;
    if (!launch_small) {
        double cs = 0.0;
        ch_held =
            chain_model(x, n, scr.plan, scr.runs, scr.seg, scr.seg_len, scr.zero, scr.recs, &cs,
                        &ch_steps, &ch_left, &ch_breaks, &ch_records, &ch_why);
        if (ch_held && !same_bits(loop, cs))
            mismatch("large chain model", m, kind, scale, ch, loop, cs);
    }
    prev_keep(ps, nch);

    last.loop = loop;
    last.nch = nch;
    if (nch > last.plan_cap) {
        last.plan = realloc(last.plan, nch * sizeof(int));
        if (!last.plan)
            exit(2);
        last.plan_cap = nch;
    }
    memcpy(last.plan, scr.plan, nch * sizeof(int));
    last.made = sp_records;
    last.whole = dc.records - dc.rec_failed;
    last.failed = dc.rec_failed;
    last.xr_made = xr_made;
    last.xr_whole = dc.xr_whole;
    last.xr_failed = dc.xr_failed;
    /* with --chain the device's launches take the chain too: a sum it holds
     * for counts its records walked whole, and no group walk follows */
    last.chained = model_chain && ch_held;
    if (last.chained) {
        last.whole = ch_records;
        last.failed = 0;
    }

    for (int s = 0; s < 2; s++) {
        Tally *t = &tally[m][kind][s == 0 ? 0 : scale + 1];
        double mean = n ? loop / (double)n : 0.0;
        if (s == 1 && scale + 1 >= MAX_SCALES)
            break;
        if (t->sums == 0 || mean < t->mean_lo)
            t->mean_lo = mean;
        if (t->sums == 0 || mean > t->mean_hi)
            t->mean_hi = mean;
        t->negative += loop < 0.0;
        t->sums++;
        t->terms += n;
        t->chunks += st.chunks;
        t->h_failed += st.chunks_term_by_term;
        t->h_seg_tried += st.segments;
        t->h_seg_applied += st.segments_applied;
        t->h_pieces += pc.tried;
        t->h_pieces_plain += pc.plain;
        t->h_plain += st.terms_term_by_term;
        t->h_checks += st.checks;
        t->d_zero += dc.zero;
        t->d_failed += dc.failed;
        t->d_prewalked += dc.prewalked;
        t->d_records += dc.records;
        t->d_rec_failed += dc.rec_failed;
        t->d_seg_tried += dc.seg_tried;
        t->d_seg_applied += dc.seg_applied;
        t->d_scans += dc.scans;
        t->d_checks += dc.checks;
        t->d_plain += dc.plain;
        t->sp_records += sp_records;
        t->sp_fast += sp_fast;
        t->sp_pieces += sp_pieces;
        t->sp_pieces_max = sp_max > t->sp_pieces_max ? sp_max : t->sp_pieces_max;
        t->sp_negative += sp_neg;
        t->sp_over += sp_over;
        t->sp_short += sp_short;
        t->sp_small_long += sp_small_long;
        t->ln_planned += ln[0];
        t->ln_mono += ln[1];
        t->ln_tie += ln[2];
        t->ln_neg += ln[3];
        t->ln_big += ln[4];
        t->sp_cross_one += dc.cross_one;
        t->sp_cross_whole += dc.cross_whole;
        t->sp_cross_prev += dc.cross_prev;
        t->sp_cross_hit_plan += dc.cross_hit_plan;
        t->sp_cross_hit_guess += dc.cross_hit_guess;
        t->sp_guess_false += guess_false;
        t->sp_stale_tried += dc.stale_tried;
        t->sp_stale_whole += dc.stale_whole;
        t->xr_whole += dc.xr_whole;
        t->xr_failed += dc.xr_failed;
        if (!launch_small) {
            t->ch_tried++;
            t->ch_held += (size_t)ch_held;
            t->ch_over += !ch_held && ch_why == 1;
            t->ch_failed += !ch_held && ch_why == 2;
            t->ch_steps += ch_steps;
            t->ch_left += ch_left;
            t->ch_steps_max = ch_steps > t->ch_steps_max ? ch_steps : t->ch_steps_max;
            t->ch_left_max = ch_left > t->ch_left_max ? ch_left : t->ch_left_max;
            t->ch_breaks += ch_breaks;
        }
    }
}

/* each launch of a frame in a slot of its own, as the scorer (the binades
 * a fused launch keeps for the next frame's crossing records) */
enum { DEV_SLOT_SSIM, DEV_SLOT_MS_SSIM, DEV_SLOT_S2 /* + scale, 0 .. 5 */ };

#ifdef EQ_RATES_CUDA
/* ---------------------------------------------- the engine itself (--device) */

/* With --device, each launch that the model describes is also run by the
 * CUDA engine (eq_cuda_stage_ordsum: the metric's sums in one launch, fused
 * where the metric's is, SSIMULACRA2's terms formed on the device from its
 * d and d1 planes as the metric forms them, a fresh plan as the model's),
 * and held to the model: every sum's bits (the loop's), every chunk's plan,
 * and the launch's split records: made, walked whole, handed to the block
 * part way. A difference in the last two says that the model (and the
 * tables made with it) no longer describes the device. */
#define DEV_MAX_SUMS 128
typedef struct DevSum {
    const double *x;
    double *own; /* a copy of the terms, freed after the launch */
    size_t n;
    int kind, m, k, scale, ch;
    double loop;
    int *plan;
    size_t nch;
} DevSum;
static EqCuda *dev_cuda;
static DevSum dev_sum[DEV_MAX_SUMS];
static int dev_n;
static size_t dev_made, dev_whole, dev_failed; /* the model's, this launch */
static size_t dev_xr[3];                       /* and its crossing records' */
static long dev_launches, dev_sums, dev_differ, dev_model_diff;
static size_t dev_plan_diff, dev_plan_chunks, dev_tot[2][3]; /* [model, device][made, whole, failed] */
static size_t dev_xtot[2][3], dev_xearly; /* the same of crossing records; formed early */
/* sums held as one chain: this launch's model's; [model, device] */
static size_t dev_chained, dev_chtot[2];
/* the small walk's forms that the environment names (EQ_CUDA_FEDWALK_ENV
 * "two" or "end", EQ_CUDA_WALKCHAIN_ENV "on"), which the stage takes from
 * its flags only */
static int dev_walk_flags;

static void dev_add(const double *x, size_t n, int kind, int copy, int m, int k, int scale,
                    int ch)
{
    if (!dev_cuda)
        return;
    if (dev_n == DEV_MAX_SUMS) {
        fprintf(stderr, "exactquality-ordsum-rates: more than %d sums in a launch\n",
                DEV_MAX_SUMS);
        exit(2);
    }
    DevSum *d = &dev_sum[dev_n++];
    *d = (DevSum){ .x = x, .n = n, .kind = kind, .m = m, .k = k, .scale = scale, .ch = ch,
                   .loop = last.loop, .nch = last.nch };
    if (copy && n) {
        d->own = malloc(n * sizeof(double));
        if (!d->own)
            exit(2);
        memcpy(d->own, x, n * sizeof(double));
        d->x = d->own;
    }
    d->plan = malloc((last.nch ? last.nch : 1) * sizeof(int));
    if (!d->plan)
        exit(2);
    memcpy(d->plan, last.plan, last.nch * sizeof(int));
    dev_made += last.made;
    dev_whole += last.whole;
    dev_failed += last.failed;
    dev_xr[0] += last.xr_made;
    dev_xr[1] += last.xr_whole;
    dev_xr[2] += last.xr_failed;
    dev_chained += (size_t)last.chained;
}

/* The pending sums in one launch of the engine, compared. */
static void dev_flush(int fused, int slot)
{
    if (!dev_cuda || dev_n == 0)
        return;
    EqCudaSumCase cases[DEV_MAX_SUMS];
    double sums[DEV_MAX_SUMS];
    size_t total = 0;
    for (int i = 0; i < dev_n; i++) {
        cases[i] = (EqCudaSumCase){ dev_sum[i].x, dev_sum[i].n, 1, dev_sum[i].kind };
        total += eq_cuda_stage_ordsum_chunks(dev_sum[i].n);
    }
    EqCudaSumPartials part;
    memset(&part, 0, sizeof(part));
    part.chunk_sum = malloc(total * sizeof(double));
    part.plan = malloc(total * sizeof(int));
    part.runs = malloc(total * sizeof(EqOrdRun));
    part.seg = malloc(total * sizeof(EqOrdRun));
    part.seg_len = malloc(total * sizeof(int));
    if (!part.chunk_sum || !part.plan || !part.runs || !part.seg || !part.seg_len)
        exit(2);
    const int fed = dev_walk_flags & (EQ_CUDA_STAGE_SUM_FED | EQ_CUDA_STAGE_SUM_FED_END);
    const int flags = (fused ? EQ_CUDA_STAGE_SUM_FUSED | fed : 0) |
                      (dev_walk_flags & (EQ_CUDA_STAGE_SUM_CHAIN | EQ_CUDA_STAGE_SUM_CROSS)) |
                      (model_chain ? EQ_CUDA_STAGE_SUM_BIGCHAIN : 0) |
                      EQ_CUDA_STAGE_SUM_SLOT(slot);
    int err = eq_cuda_stage_ordsum(dev_cuda, cases, dev_n, flags, sums, &part);
    if (err < 0) {
        fprintf(stderr, "exactquality-ordsum-rates: the device's launch failed: %s\n",
                eq_strerror(err));
        exit(2);
    }
    size_t off = 0;
    for (int i = 0; i < dev_n; i++) {
        const DevSum *d = &dev_sum[i];
        if (!same_bits(sums[i], d->loop)) {
            mismatch("device engine", d->m, d->k, d->scale, d->ch, d->loop, sums[i]);
            dev_differ++;
        }
        size_t diff = 0;
        for (size_t c = 0; c < d->nch; c++)
            diff += part.plan[off + c] != d->plan[c];
        if (diff)
            printf("DEVICE MODEL frame %d %s %s scale %d channel %d: the plan differs in %zu of "
                   "%zu chunks\n",
                   cur_frame, metric_name[d->m], kind_name(d->m, d->k), d->scale, d->ch, diff,
                   d->nch);
        dev_plan_diff += diff;
        dev_plan_chunks += d->nch;
        off += eq_cuda_stage_ordsum_chunks(d->n);
    }
    const size_t got[3] = { (size_t)part.split_made, (size_t)part.split_applied,
                            (size_t)part.split_failed };
    const size_t want[3] = { dev_made, dev_whole, dev_failed };
    if (memcmp(got, want, sizeof(got)))
        printf("DEVICE MODEL frame %d %s launch of %d sums%s: split records made %zu (model "
               "%zu), walked whole %zu (%zu), handed to the block %zu (%zu)\n",
               cur_frame, metric_name[dev_sum[0].m], dev_n, fused ? " (fused)" : "", got[0],
               want[0], got[1], want[1], got[2], want[2]);
    dev_model_diff += memcmp(got, want, sizeof(got)) != 0;
    if (model_cross) {
        const size_t xgot[3] = { (size_t)part.cross_made, (size_t)part.cross_applied,
                                 (size_t)part.cross_failed };
        if (memcmp(xgot, dev_xr, sizeof(xgot)))
            printf("DEVICE MODEL frame %d %s launch of %d sums%s: crossing records made %zu "
                   "(model %zu), walked whole %zu (%zu), handed to the block %zu (%zu)\n",
                   cur_frame, metric_name[dev_sum[0].m], dev_n, fused ? " (fused)" : "",
                   xgot[0], dev_xr[0], xgot[1], dev_xr[1], xgot[2], dev_xr[2]);
        dev_model_diff += memcmp(xgot, dev_xr, sizeof(xgot)) != 0;
        for (int j = 0; j < 3; j++) {
            dev_xtot[0][j] += dev_xr[j];
            dev_xtot[1][j] += xgot[j];
        }
        dev_xearly += (size_t)part.cross_early;
    }
    if (model_chain) {
        if ((size_t)part.big_chains != dev_chained)
            printf("DEVICE MODEL frame %d %s launch of %d sums%s: sums walked as one chain %d "
                   "(model %zu)\n",
                   cur_frame, metric_name[dev_sum[0].m], dev_n, fused ? " (fused)" : "",
                   part.big_chains, dev_chained);
        dev_model_diff += (size_t)part.big_chains != dev_chained;
        dev_chtot[0] += dev_chained;
        dev_chtot[1] += (size_t)part.big_chains;
    }
    for (int j = 0; j < 3; j++) {
        dev_tot[0][j] += want[j];
        dev_tot[1][j] += got[j];
    }
    dev_launches++;
    dev_sums += dev_n;
    for (int i = 0; i < dev_n; i++) {
        free(dev_sum[i].own);
        free(dev_sum[i].plan);
    }
    free(part.chunk_sum);
    free(part.plan);
    free(part.runs);
    free(part.seg);
    free(part.seg_len);
    dev_n = 0;
    dev_made = dev_whole = dev_failed = 0;
    dev_chained = 0;
    memset(dev_xr, 0, sizeof(dev_xr));
}
#else
static void dev_add(const double *x, size_t n, int kind, int copy, int m, int k, int scale,
                    int ch)
{
    (void)x, (void)n, (void)kind, (void)copy, (void)m, (void)k, (void)scale, (void)ch;
}

static void dev_flush(int fused, int slot)
{
    (void)fused, (void)slot;
}
#endif

/* --------------------------------------------------- SSIM term streams */

/* The windows of a w x h scale: the sum's terms. */
static size_t ssim_windows(int w, int h)
{
    return (size_t)(w - (EQ_SSIM_WINDOW - 1)) * (size_t)(h - (EQ_SSIM_WINDOW - 1));
}

typedef struct SsimTerms {
    double *l, *c, *s, *lcs; /* ow * oh each, raster order */
    float *sf;
    int ow, oh;
} SsimTerms;

/* One scale with the C reference stages, whole planes at a time: the
 * windows' l, c, s, l*c*s in raster order (what eq_cpu_ssim_scale's
 * window_terms produce and frame_sums adds). *cpu_sums gets frame_sums
 * over the rows in order: the CPU's own sums of these streams. */
static void ssim_scale_terms(const EqSsimDsp *dsp, const float *ref, const float *dist, int w,
                             int h, SsimTerms *t, EqSsimSums *cpu_sums)
{
    const int ow = w - (EQ_SSIM_WINDOW - 1), oh = h - (EQ_SSIM_WINDOW - 1);
    float *prod = malloc(sizeof(float) * 3 * (size_t)w);
    float *hb = malloc(sizeof(float) * 5 * (size_t)ow * (size_t)h); /* [map][row][ow] */
    float *vb = malloc(sizeof(float) * 5 * (size_t)ow);
    size_t nw = (size_t)ow * (size_t)oh;
    t->l = malloc(nw * sizeof(double));
    t->c = malloc(nw * sizeof(double));
    t->s = malloc(nw * sizeof(double));
    t->lcs = malloc(nw * sizeof(double));
    t->sf = malloc(nw * sizeof(float));
    if (!prod || !hb || !vb || !t->l || !t->c || !t->s || !t->lcs || !t->sf) {
        fprintf(stderr, "exactquality-ordsum-rates: out of memory\n");
        exit(2);
    }
    t->ow = ow;
    t->oh = oh;
    for (int y = 0; y < h; y++) {
        const float *ir = ref + (size_t)y * w, *id = dist + (size_t)y * w;
        dsp->products(ir, id, w, prod, prod + w, prod + 2 * w);
        const float *in[5] = { ir, id, prod, prod + w, prod + 2 * w };
        for (int m = 0; m < 5; m++)
            dsp->blur_h(in[m], w, hb + ((size_t)m * h + y) * ow);
    }
    memset(cpu_sums, 0, sizeof(*cpu_sums));
    for (int y = 0; y < oh; y++) {
        for (int m = 0; m < 5; m++) {
            const float *rows[EQ_SSIM_WINDOW];
            for (int k = 0; k < EQ_SSIM_WINDOW; k++)
                rows[k] = hb + ((size_t)m * h + y + k) * ow;
            dsp->blur_v(rows, ow, vb + (size_t)m * ow);
        }
        float *mu1 = vb, *mu2 = vb + ow, *v1 = vb + 2 * ow, *v2 = vb + 3 * ow, *cv = vb + 4 * ow;
        size_t o = (size_t)y * ow;
        dsp->moments(mu1, mu2, v1, v2, cv, ow);
        dsp->window_terms(mu1, mu2, v1, v2, cv, ow, t->l + o, t->c + o, t->sf + o, t->lcs + o);
        dsp->frame_sums(t->l + o, t->c + o, t->sf + o, t->lcs + o, ow, cpu_sums);
    }
    for (size_t i = 0; i < nw; i++)
        t->s[i] = (double)t->sf[i];
    free(prod);
    free(hb);
    free(vb);
}

static void ssim_terms_free(SsimTerms *t)
{
    free(t->l);
    free(t->c);
    free(t->s);
    free(t->lcs);
    free(t->sf);
}

static void measure_ssim_scale(const EqSsimDsp *dsp, int m, int scale, const float *r,
                               const float *d, int w, int h)
{
    SsimTerms t;
    EqSsimSums cpu;
    ssim_scale_terms(dsp, r, d, w, h, &t, &cpu);
    size_t nw = (size_t)t.ow * (size_t)t.oh;
    measure(t.l, nw, m, 0, scale, 0, cpu.l);
    dev_add(t.l, nw, EQ_CUDA_TERM_X, 1, m, 0, scale, 0);
    measure(t.c, nw, m, 1, scale, 0, cpu.c);
    dev_add(t.c, nw, EQ_CUDA_TERM_X, 1, m, 1, scale, 0);
    measure(t.s, nw, m, 2, scale, 0, cpu.s);
    dev_add(t.s, nw, EQ_CUDA_TERM_X, 1, m, 2, scale, 0);
    if (m == M_SSIM) {
        measure(t.lcs, nw, m, 3, scale, 0, cpu.lcs);
        dev_add(t.lcs, nw, EQ_CUDA_TERM_X, 1, m, 3, scale, 0);
    }
    ssim_terms_free(&t);
}

static void luma_float(const EqSsimDsp *dsp, const EqFrame *f, float *dst)
{
    EqPlane p;
    eq_frame_plane(f, 0, &p);
    for (int y = 0; y < f->height; y++)
        dsp->to_float(&p, y, f->bitdepth, dst + (size_t)y * f->width);
}

static void do_ssim(const EqSsimDsp *dsp, const EqFrame *ref, const EqFrame *dist)
{
    const int w = ref->width, h = ref->height, scale = eq_ssim_auto_scale(w, h);
    float *r = malloc(sizeof(float) * (size_t)w * h), *d = malloc(sizeof(float) * (size_t)w * h);
    if (!r || !d)
        exit(2);
    luma_float(dsp, ref, r);
    luma_float(dsp, dist, d);
    int sw = w, sh = h;
    if (scale > 1) {
        sw = eq_decimated_size(w, scale);
        sh = eq_decimated_size(h, scale);
        float *rs = malloc(sizeof(float) * (size_t)sw * sh);
        float *ds = malloc(sizeof(float) * (size_t)sw * sh);
        if (!rs || !ds)
            exit(2);
        for (int y = 0; y < sh; y++) {
            dsp->box_decimate(r, w, h, scale, y, rs + (size_t)y * sw);
            dsp->box_decimate(d, w, h, scale, y, ds + (size_t)y * sw);
        }
        free(r);
        free(d);
        r = rs;
        d = ds;
    }
    {
        const size_t nw = ssim_windows(sw, sh);
        const size_t n4[4] = { nw, nw, nw, nw };
        launch_fused = fused_launch(n4, 4, &launch_small);
    }
    measure_ssim_scale(dsp, M_SSIM, 0, r, d, sw, sh);
    dev_flush(launch_fused, DEV_SLOT_SSIM);
    free(r);
    free(d);
}

static void do_ms_ssim(const EqSsimDsp *dsp, const EqFrame *ref, const EqFrame *dist)
{
    int w = ref->width, h = ref->height;
    float *r = malloc(sizeof(float) * (size_t)w * h), *d = malloc(sizeof(float) * (size_t)w * h);
    if (!r || !d)
        exit(2);
    luma_float(dsp, ref, r);
    luma_float(dsp, dist, d);
    {
        /* the launch: l, c, s of every scale */
        size_t nk[3 * EQ_MS_SSIM_SCALES];
        int sw = w, sh = h;
        for (int k = 0; k < EQ_MS_SSIM_SCALES; k++) {
            if (k > 0) {
                sw = eq_decimated_size(sw, 2);
                sh = eq_decimated_size(sh, 2);
            }
            nk[3 * k] = nk[3 * k + 1] = nk[3 * k + 2] = ssim_windows(sw, sh);
        }
        launch_fused = fused_launch(nk, 3 * EQ_MS_SSIM_SCALES, &launch_small);
    }
    for (int k = 0; k < EQ_MS_SSIM_SCALES; k++) {
        if (k > 0) {
            int nw = eq_decimated_size(w, 2), nh = eq_decimated_size(h, 2);
            float *rs = malloc(sizeof(float) * (size_t)nw * nh);
            float *ds = malloc(sizeof(float) * (size_t)nw * nh);
            if (!rs || !ds)
                exit(2);
            for (int y = 0; y < nh; y++) {
                dsp->lpf_decimate(r, w, h, y, rs + (size_t)y * nw);
                dsp->lpf_decimate(d, w, h, y, ds + (size_t)y * nw);
            }
            free(r);
            free(d);
            r = rs;
            d = ds;
            w = nw;
            h = nh;
        }
        measure_ssim_scale(dsp, M_MS_SSIM, k, r, d, w, h);
    }
    dev_flush(launch_fused, DEV_SLOT_MS_SSIM);
    free(r);
    free(d);
}

/* ----------------------------------------------- SSIMULACRA2 term streams */

/* eq_s2_run calls its `sums` stage once per band of rows and plane
 * (scale, channel), continuing from acc[] = &sums[eq_s2_sum_index(scale,
 * channel, 0)]: the planes' bands are interleaved (rows stream through all
 * scales at once), each plane's calls come in raster order, and the first
 * call is scale 0 channel 0's (acc = &sums[0]). The recorder appends each
 * plane's terms to its own stream and measures them when the frame is done. */
#define S2_PLANES (3 * EQ_S2_MAX_SCALES)
static const double *s2_base; /* acc of the first call: sums[0] */
static int s2_plane;          /* planes recorded: highest plane index + 1 */
static double s2_cpu[S2_PLANES][6]; /* acc after a plane's last call: the CPU's sums */
static double *s2_d[S2_PLANES], *s2_d1[S2_PLANES]; /* a plane's ssim_d, edge_d1 */
static size_t s2_n[S2_PLANES], s2_cap[S2_PLANES];
static double *s2_buf; /* terms of one sum */
static size_t s2_buf_cap;
static double s2_seen[EQ_SSIMULACRA2_SUMS]; /* the CPU's sums, by eq_s2_sum_index */

static void *s2_grow(void *p, size_t n)
{
    p = realloc(p, n * sizeof(double));
    if (!p) {
        fprintf(stderr, "exactquality-ordsum-rates: out of memory\n");
        exit(2);
    }
    return p;
}

static void s2_reserve(int plane, size_t n)
{
    if (n <= s2_cap[plane])
        return;
    size_t cap = s2_cap[plane] ? s2_cap[plane] : 1 << 16;
    while (cap < n)
        cap *= 2;
    s2_d[plane] = s2_grow(s2_d[plane], cap);
    s2_d1[plane] = s2_grow(s2_d1[plane], cap);
    s2_cap[plane] = cap;
}

/* The six term streams of each recorded plane as eq_s2_sums_c forms them
 * (sum k adds eq_s2_term of d or d1, lib/exact/ssimulacra2.h), each
 * measured against the CPU's own sum; planes in the order scale 0 channel
 * 0, 1, 2, scale 1, ... */
static void s2_flush(void)
{
    /* the launches: scale 0's 18 sums, those of scales 1.. */
    size_t n0[18], n1[S2_PLANES * 6];
    int c0 = 0, c1 = 0, fused[2], small[2];
    for (int plane = 0; plane < s2_plane; plane++)
        for (int k = 0; k < 6; k++) {
            if (plane < 3)
                n0[c0++] = s2_n[plane];
            else
                n1[c1++] = s2_n[plane];
        }
    fused[0] = fused_launch(n0, c0, &small[0]);
    fused[1] = fused_launch(n1, c1, &small[1]);
    for (int plane = 0; plane < s2_plane; plane++) {
        const int scale = plane / 3, ch = plane % 3;
        size_t n = s2_n[plane];
        launch_fused = fused[scale > 0];
        launch_small = small[scale > 0];
        if (n > s2_buf_cap) {
            s2_buf = s2_grow(s2_buf, n);
            s2_buf_cap = n;
        }
        for (int k = 0; k < 6; k++) {
            for (size_t i = 0; i < n; i++)
                s2_buf[i] = eq_s2_term(k, eq_s2_sum_of_d1(k) ? s2_d1[plane][i] : s2_d[plane][i]);
            measure(s2_buf, n, M_S2, k, scale, ch, s2_cpu[plane][k]);
            s2_seen[eq_s2_sum_index(scale, ch, k)] = s2_cpu[plane][k];
            /* the device forms the terms from the planes, as the metric */
            dev_add(eq_s2_sum_of_d1(k) ? s2_d1[plane] : s2_d[plane], n, k, 0, M_S2, k, scale,
                    ch);
        }
        s2_n[plane] = 0;
        if (plane == 2 || plane == s2_plane - 1)
            dev_flush(fused[scale > 0], DEV_SLOT_S2 + scale); /* scale < EQ_S2_MAX_SCALES */
    }
}

/* The `sums` stage of eq_s2_run, recording: the CPU's eq_s2_sums_c, and a
 * copy of the terms' inputs, appended to the plane's stream. */
static void s2_sums_recorder(const double *ssim_d, const double *edge_d1, size_t n,
                             double acc[6])
{
    if (!s2_base)
        s2_base = acc;
    ptrdiff_t off = acc - s2_base;
    if (off < 0 || off % 6 != 0 || off / 6 >= S2_PLANES) {
        fprintf(stderr, "exactquality-ordsum-rates: ssimulacra2 sums outside the frame's\n");
        exit(2);
    }
    int plane = (int)(off / 6);
    if (plane >= s2_plane)
        s2_plane = plane + 1;
    eq_s2_sums_c(ssim_d, edge_d1, n, acc);
    memcpy(s2_cpu[plane], acc, sizeof(s2_cpu[plane]));
    s2_reserve(plane, s2_n[plane] + n);
    memcpy(s2_d[plane] + s2_n[plane], ssim_d, n * sizeof(double));
    memcpy(s2_d1[plane] + s2_n[plane], edge_d1, n * sizeof(double));
    s2_n[plane] += n;
}

static void do_s2(const EqFrame *ref, const EqFrame *dist)
{
    EqSettings settings;
    EqS2Source src[2];
    EqS2Dsp dsp;
    EqLog log = { NULL, NULL };
    EqScores sc;
    double *mem = malloc(eq_s2_run_doubles(ref->width, ref->height, 1) * sizeof(double));

    eq_settings_init(&settings);
    if (!mem || eq_s2_source_init(&src[0], &settings, ref, NULL) < 0 ||
        eq_s2_source_init(&src[1], &settings, dist, NULL) < 0) {
        fprintf(stderr, "exactquality-ordsum-rates: cannot read the frames for ssimulacra2\n");
        exit(2);
    }
    eq_s2_dsp_init_c(&dsp);
    dsp.sums = s2_sums_recorder;
    s2_plane = 0;
    s2_base = NULL;
    if (eq_s2_run(&dsp, NULL, mem, NULL, &log, &src[0], &src[1], &sc) < 0) {
        fprintf(stderr, "exactquality-ordsum-rates: ssimulacra2 failed\n");
        exit(2);
    }
    s2_flush();
    /* the recorded planes are the score's: every plane, the same sums */
    if (s2_plane != 3 * sc.ssimulacra2_scales) {
        printf("MISMATCH frame %d ssimulacra2: %d planes recorded, %d scales scored\n",
               cur_frame, s2_plane, sc.ssimulacra2_scales);
        mismatches++;
    }
    for (int i = 0; i < 6 * s2_plane && i < EQ_SSIMULACRA2_SUMS; i++)
        if (!same_bits(s2_seen[i], sc.ssimulacra2_sums[i])) {
            printf("MISMATCH frame %d ssimulacra2 sum %d: recorded %a, scored %a\n", cur_frame,
                   i, s2_seen[i], sc.ssimulacra2_sums[i]);
            mismatches++;
        }
    free(mem);
}

/* ------------------------------------------------------------- output */

static double pct(size_t a, size_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void print_row(const char *label, const char *kind, const char *scale, const Tally *t)
{
    printf("| %s | %s | %s | %zu | %zu | %zu | %zu (%.2f %%) | %zu / %zu | %zu / %zu | %zu "
           "(%.4f %%) | %zu | %zu | %zu | %zu / %zu | %zu (%.2f %%) | %zu / %zu | %zu | %zu | "
           "%zu (%.4f %%) | %.3g .. %.3g%s |\n",
           label, kind, scale, t->sums, t->terms, t->chunks, t->h_failed,
           pct(t->h_failed, t->chunks), t->h_seg_tried - t->h_seg_applied, t->h_seg_tried,
           t->h_pieces_plain, t->h_pieces, t->h_plain, pct(t->h_plain, t->terms), t->h_checks,
           t->d_zero, t->d_prewalked, t->d_rec_failed, t->d_records, t->d_failed,
           pct(t->d_failed, t->chunks), t->d_seg_tried - t->d_seg_applied, t->d_seg_tried,
           t->d_checks, t->d_scans, t->d_plain, pct(t->d_plain, t->terms), t->mean_lo,
           t->mean_hi, t->negative ? " (some < 0)" : "");
}

typedef void (*RowFn)(const char *label, const char *kind, const char *scale, const Tally *t);

/* A table's rows: one per metric and sum kind (per scale with by_scale,
 * but float_ssim's single one) */
static void print_rows(const char *label, int by_scale, RowFn row)
{
    for (int m = 0; m < M_COUNT; m++) {
        int nk = m == M_S2 ? 6 : m == M_SSIM ? 4 : 3;
        for (int k = 0; k < nk; k++) {
            char name[64], sc[16];
            snprintf(name, sizeof(name), "%s %s", metric_name[m], kind_name(m, k));
            if (tally[m][k][0].sums == 0)
                continue;
            if (!by_scale || m == M_SSIM) {
                row(label, name, m == M_SSIM ? "auto" : "all", &tally[m][k][0]);
                continue;
            }
            for (int s = 1; s < MAX_SCALES; s++) {
                if (tally[m][k][s].sums == 0)
                    continue;
                snprintf(sc, sizeof(sc), "%d", s - 1);
                row(label, name, sc, &tally[m][k][s]);
            }
        }
    }
}

/* A Markdown table: its header row from `head` (a cell "| name " a
 * column, the closing "|" left out), the separator row for as many
 * columns, then a row per metric and sum kind (print_rows). */
static void print_md_table(const char *head, const char *label, int by_scale, RowFn row)
{
    printf("%s|\n", head);
    for (const char *p = head; *p; p++)
        if (*p == '|')
            printf("|---");
    printf("|\n");
    print_rows(label, by_scale, row);
}

static void print_table(const char *label, int by_scale)
{
    print_md_table(
        "| fixture | metric / sum | scale | sums | terms | chunks | host: failed chunks "
        "| failed / tried segments | plain / tried pieces | plain adds | checks | device: zero "
        "chunks skipped | first chunks prewalked | failed / walked split records | chunks "
        "added by the block | failed / tried segments | checks | block rounds | plain adds "
        "| sum / n ",
        label, by_scale, print_row);
}

static void print_split_row(const char *label, const char *kind, const char *scale,
                            const Tally *t)
{
    printf("| %s | %s | %s | %zu | %zu | %.2f | %zu (%.2f %%) | %.2f | %zu | %zu (%.2f %%) | %zu "
           "| %zu | %zu | %zu / %zu | %zu / %zu / %zu (%zu) | %zu / %zu |\n",
           label, kind, scale, t->sums, t->sp_records,
           t->sums ? (double)t->sp_records / (double)t->sums : 0.0, t->sp_fast,
           pct(t->sp_fast, t->sp_records),
           t->sp_records ? (double)t->sp_pieces / (double)t->sp_records : 0.0, t->sp_pieces_max,
           t->sp_short, pct(t->sp_short, t->sp_records), t->sp_small_long, t->sp_negative,
           t->sp_over, t->sp_cross_whole, t->sp_cross_one, t->sp_cross_hit_plan,
           t->sp_cross_hit_guess, t->sp_cross_prev, t->sp_guess_false, t->sp_stale_whole,
           t->sp_stale_tried);
}

static void print_lanes_row(const char *label, const char *kind, const char *scale,
                            const Tally *t)
{
    printf("| %s | %s | %s | %zu | %zu | %zu (%.2f %%) | %zu | %zu | %zu |\n", label, kind, scale,
           t->sums, t->ln_planned, t->ln_mono, pct(t->ln_mono, t->ln_planned), t->ln_tie,
           t->ln_neg, t->ln_big);
}

/* --lanes: the planned chunks whose runs take the monotone form. */
static void print_lanes_table(const char *label, int by_scale)
{
    print_md_table(
        "| fixture | metric / sum | scale | sums | planned chunks | no lane negative or "
        "large (monotone run) | a lane with an exact half | with a negative term | with "
        "2^47 units or more ",
        label, by_scale, print_lanes_row);
}

/* --splits: the device's split records per metric and sum kind. */
static void print_split_table(const char *label, int by_scale)
{
    print_md_table(
        "| fixture | metric / sum | scale | sums | split records | a sum | on the block's fast "
        "path | pieces a record | most pieces | of at most 4 pieces | in the small walk, of "
        "more | with a negative term | chunks of over 32 pieces | one crossing: walked "
        "whole by lane runs / all | of those with a frame before: its record from that "
        "frame's plan "
        "/ from that frame's prefix and this chunk sum / all (guesses of a crossing that "
        "is not) | where that frame planned it term by term: today's record from that "
        "frame's prefix walked whole / all ",
        label, by_scale, print_split_row);
}

static void print_chain_row(const char *label, const char *kind, const char *scale,
                            const Tally *t)
{
    const double nt = t->ch_tried ? (double)t->ch_tried : 1.0;
    printf("| %s | %s | %s | %zu | %zu | %zu (%.2f %%) | %zu | %zu | %.1f | %zu | %.1f | %zu | "
           "%zu |\n",
           label, kind, scale, t->sums, t->ch_tried, t->ch_held, pct(t->ch_held, t->ch_tried),
           t->ch_over, t->ch_failed, (double)t->ch_steps / nt, t->ch_steps_max,
           (double)t->ch_left / nt, t->ch_left_max, t->ch_breaks);
}

/* --chain: the larger launches' walk as one chain (chain_model). */
static void print_chain_table(const char *label, int by_scale)
{
    print_md_table(
        "| fixture | metric / sum | scale | sums | in larger launches | held as one chain | "
        "over its limits | failed a check | steps a sum | most steps | after composing | "
        "most after composing | chunks added by the block ",
        label, by_scale, print_chain_row);
}

/* --------------------------------------------------------------- main */

static void usage(FILE *f)
{
    fprintf(f, "usage: exactquality-ordsum-rates REF.yuv DIST.yuv W H SUB BITDEPTH [options]\n"
               "  SUB 420|422|444|400; BITDEPTH 8, or 10..16 (16-bit little-endian words)\n"
               "  --frames N      at most N frame pairs (default all)\n"
               "  --label NAME    first column of the table (default: the REF file name)\n"
               "  --by-scale      one row per scale for float_ms_ssim and ssimulacra2\n"
               "  --metrics LIST  ssim,ms_ssim,ssimulacra2 (default all)\n"
               "  --splits        a second table: the device's split records (their\n"
               "                  pieces, how many the block's fast path takes)\n"
               "  --chain         a table of the larger launches' walk as one chain:\n"
               "                  the sums it holds for, its steps before and after\n"
               "                  composing (every sum it holds for is held to the loop);\n"
               "                  with --device the engine's launches take the chain\n"
               "                  too, and its count of chained sums and of records\n"
               "                  walked whole must be the model's\n"
               "  --lanes         a table of the planned chunks: those whose every lane\n"
               "                  of 32 terms raises neither NEG nor BIG in\n"
               "                  eq_ord_run_scaled1 (the device's monotone runs, the\n"
               "                  twins', exact halves added apart), and those with\n"
               "                  an exact half, a negative term or a large one\n"
               "  --expect-paths  exit 1 also when the device model walked no split\n"
               "                  record or, with fused launches, prewalked no first\n"
               "                  chunk (for the tests), or\n"
               "                  with crossing records walked none whole, or with\n"
               "                  --chain held no sum as one chain, or with --lanes\n"
               "                  found no chunk of monotone runs\n"
               "  --device        each launch also on the CUDA engine, held to the loop\n"
               "                  and to the model (plans, split records made, walked\n"
               "                  whole, handed to the block); exit 77 without a device;\n"
               "                  the small walk's forms that EXACTQUALITY_CUDA_FEDWALK\n"
               "                  and EXACTQUALITY_CUDA_WALKCHAIN name; with\n"
               "                  EXACTQUALITY_CUDA_CROSSREC=on (with --device or not)\n"
               "                  the model's fused launches take crossing records\n"
               "REF and DIST `bench` (W H 420 8): tools/bench_cuda's generated pairs\n"
               "(pair k: tests/common/framegen.h, fill 1000 + k, distortion 2000 + k),\n"
               "--frames of them (default 1).\n"
               "Exit status: 0 when the engine's bits equal the loop's for every sum,\n"
               "1 when any differs, 2 on errors.\n");
}

int main(int argc, char **argv)
{
    if (argc < 7) {
        usage(stderr);
        return 2;
    }
    const char *refp = argv[1], *distp = argv[2];
    const int w = atoi(argv[3]), h = atoi(argv[4]), sub = atoi(argv[5]), bd = atoi(argv[6]);
    long max_frames = -1;
    int by_scale = 0, splits = 0, chain = 0, expect_paths = 0, device = 0,
        want[M_COUNT] = { 1, 1, 1 };
    const char *label = refp;

    for (int i = 7; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            max_frames = atol(argv[++i]);
        } else if (!strcmp(argv[i], "--label") && i + 1 < argc) {
            label = argv[++i];
        } else if (!strcmp(argv[i], "--by-scale")) {
            by_scale = 1;
        } else if (!strcmp(argv[i], "--splits")) {
            splits = 1;
        } else if (!strcmp(argv[i], "--chain")) {
            chain = model_chain = 1;
        } else if (!strcmp(argv[i], "--lanes")) {
            lanes_table = 1;
        } else if (!strcmp(argv[i], "--expect-paths")) {
            expect_paths = 1;
        } else if (!strcmp(argv[i], "--device")) {
            device = 1;
        } else if (!strcmp(argv[i], "--metrics") && i + 1 < argc) {
            char list[256], *save = NULL;
            snprintf(list, sizeof(list), "%s", argv[++i]);
            want[M_SSIM] = want[M_MS_SSIM] = want[M_S2] = 0;
            for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (!strcmp(tok, "ssim"))
                    want[M_SSIM] = 1;
                else if (!strcmp(tok, "ms_ssim"))
                    want[M_MS_SSIM] = 1;
                else if (!strcmp(tok, "ssimulacra2"))
                    want[M_S2] = 1;
                else {
                    fprintf(stderr, "exactquality-ordsum-rates: unknown metric '%s'\n", tok);
                    return 2;
                }
            }
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "exactquality-ordsum-rates: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (w < 16 || h < 16 || w > EQ_MAX_DIMENSION || h > EQ_MAX_DIMENSION ||
        (sub != 420 && sub != 422 && sub != 444 && sub != 400) || bd < 8 || bd > 16 ||
        (bd > 8 && bd < 10)) {
        fprintf(stderr, "exactquality-ordsum-rates: bad geometry %s %s %s %s\n", argv[3],
                argv[4], argv[5], argv[6]);
        return 2;
    }
    const char *slash = strrchr(label, '/');
    if (slash)
        label = slash + 1;
    /* "split" is not modelled here: the device runs without it */
    model_cross = eq_cuda_crossrec_form(getenv(EQ_CUDA_CROSSREC_ENV)) == 1;
    if (device) {
#ifdef EQ_RATES_CUDA
        char why[256];
        EqSettings ds;
        EqLog dlog = { NULL, NULL };
        if (!eq_cuda_device_available(why, sizeof(why))) {
            printf("exactquality-ordsum-rates: no CUDA device (%s): skipped\n", why);
            return 77;
        }
        const int fed = eq_cuda_fedwalk_form(getenv(EQ_CUDA_FEDWALK_ENV));
        dev_walk_flags = (fed == 2   ? EQ_CUDA_STAGE_SUM_FED
                          : fed == 1 ? EQ_CUDA_STAGE_SUM_FED_END
                                     : 0) |
                         (eq_cuda_walkchain_form(getenv(EQ_CUDA_WALKCHAIN_ENV))
                              ? EQ_CUDA_STAGE_SUM_CHAIN
                              : 0);
        dev_walk_flags |= model_cross ? EQ_CUDA_STAGE_SUM_CROSS : 0;
        eq_settings_init(&ds);
        int err = eq_cuda_open(&dev_cuda, &ds, &dlog);
        if (err < 0) {
            fprintf(stderr, "exactquality-ordsum-rates: the CUDA backend failed to open: %s\n",
                    eq_strerror(err));
            return 2;
        }
#else
        printf("exactquality-ordsum-rates: built without CUDA: --device skipped\n");
        return 77;
#endif
    }

    int bytes = bd > 8 ? 2 : 1, ssx = sub == 420 || sub == 422, ssy = sub == 420;
    int pw[3] = { w, (w + ssx) >> ssx, (w + ssx) >> ssx };
    int ph[3] = { h, (h + ssy) >> ssy, (h + ssy) >> ssy };
    int np = sub == 400 ? 1 : 3;
    size_t psz[3], fsz = 0;
    for (int i = 0; i < np; i++)
        fsz += psz[i] = (size_t)pw[i] * ph[i] * bytes;

    EqSsimDsp dsp;
    eq_ssim_dsp_init_c(&dsp);
    int frames = 0;
    if (!strcmp(refp, "bench") && !strcmp(distp, "bench")) {
        /* bench_cuda's pairs (make_pairs) */
        static const FgFormat fmt = { "yuv420p", EQ_LAYOUT_YUV420P, 8, 0 };
        if (sub != 420 || bd != 8) {
            fprintf(stderr, "exactquality-ordsum-rates: bench pairs are 420 8-bit\n");
            return 2;
        }
        for (; frames < (max_frames < 0 ? 1 : max_frames); frames++) {
            FgFrame pr[2];
            if (fg_alloc(&pr[0], &fmt, w, h, 0) < 0 || fg_alloc(&pr[1], &fmt, w, h, 0) < 0) {
                fprintf(stderr, "exactquality-ordsum-rates: out of memory\n");
                return 2;
            }
            fg_fill(&pr[0], 1000 + (uint64_t)frames, 1);
            fg_distort(&pr[1], &pr[0], 2000 + (uint64_t)frames, 6);
            cur_frame = frames;
            if (want[M_SSIM])
                do_ssim(&dsp, &pr[0].f, &pr[1].f);
            if (want[M_MS_SSIM])
                do_ms_ssim(&dsp, &pr[0].f, &pr[1].f);
            if (want[M_S2])
                do_s2(&pr[0].f, &pr[1].f);
            fg_free(&pr[0]);
            fg_free(&pr[1]);
        }
        goto report;
    }
    FILE *fr = fopen(refp, "rb"), *fd = fopen(distp, "rb");
    uint8_t *rb = malloc(fsz), *db = malloc(fsz);
    if (!fr || !fd || !rb || !db) {
        fprintf(stderr, "exactquality-ordsum-rates: cannot open %s or %s\n", refp, distp);
        return 2;
    }
    while (max_frames < 0 || frames < max_frames) {
        size_t a = fread(rb, 1, fsz, fr), b = fread(db, 1, fsz, fd);
        if (a == 0 && b == 0)
            break;
        if (a != fsz || b != fsz) {
            fprintf(stderr, "exactquality-ordsum-rates: frame %d is short (the files do not "
                            "hold whole %dx%d frames)\n", frames, w, h);
            return 2;
        }
        EqFrame f[2];
        for (int j = 0; j < 2; j++) {
            const uint8_t *p = j ? db : rb;
            memset(&f[j], 0, sizeof(f[j]));
            f[j].layout = sub == 420   ? EQ_LAYOUT_YUV420P
                          : sub == 422 ? EQ_LAYOUT_YUV422P
                          : sub == 444 ? EQ_LAYOUT_YUV444P
                                       : EQ_LAYOUT_GRAY;
            f[j].width = w;
            f[j].height = h;
            f[j].bitdepth = bd;
            for (int i = 0; i < np; i++) {
                f[j].data[i] = p;
                f[j].stride[i] = (ptrdiff_t)pw[i] * bytes;
                p += psz[i];
            }
        }
        cur_frame = frames;
        if (want[M_SSIM])
            do_ssim(&dsp, &f[0], &f[1]);
        if (want[M_MS_SSIM])
            do_ms_ssim(&dsp, &f[0], &f[1]);
        if (want[M_S2])
            do_s2(&f[0], &f[1]);
        frames++;
    }
    fclose(fr);
    fclose(fd);
    free(rb);
    free(db);
report:
    if (frames == 0) {
        fprintf(stderr, "exactquality-ordsum-rates: no frames in %s\n", refp);
        return 2;
    }
    printf("%d frame pairs of %dx%d, layout %dx%d seg%d piece%d, tree plan\n", frames, w, h,
           layout.terms_per_lane, layout.lanes_per_chunk, layout.chunks_per_segment,
           layout.lanes_per_piece);
    print_table(label, by_scale);
    if (splits) {
        printf("\n");
        print_split_table(label, by_scale);
    }
    if (chain) {
        printf("\n");
        print_chain_table(label, by_scale);
    }
    if (lanes_table) {
        printf("\n");
        print_lanes_table(label, by_scale);
    }
    size_t nsums = 0, records = 0, prewalked = 0, xr_whole = 0, xr_failed = 0, chained = 0;
    size_t monotone = 0;
    for (int m = 0; m < M_COUNT; m++)
        for (int k = 0; k < MAX_KINDS; k++) {
            nsums += tally[m][k][0].sums;
            chained += tally[m][k][0].ch_held;
            monotone += tally[m][k][0].ln_mono;
            records += tally[m][k][0].d_records;
            prewalked += tally[m][k][0].d_prewalked;
            xr_whole += tally[m][k][0].xr_whole;
            xr_failed += tally[m][k][0].xr_failed;
        }
    printf("%zu sums, %ld differ from the loop\n", nsums, mismatches);
    if (expect_paths) {
        /* the model's paths must be taken, or a test of it tests little */
        printf("device model paths: %zu split records walked, %zu first chunks prewalked "
               "(%zu sums in fused launches)\n",
               records, prewalked, fused_sums);
        if (model_cross)
            printf("device model paths: %zu crossing records walked whole, %zu handed to the "
                   "block part way\n",
                   xr_whole, xr_failed);
        if (chain)
            printf("device model paths: %zu sums of larger launches held as one chain\n",
                   chained);
        if (lanes_table)
            printf("device model paths: %zu planned chunks of monotone runs\n", monotone);
        /* the prewalk is the fused launches' (none in larger frames),
         * and with --chain the larger launches' too */
        if (records == 0 || (fused_sums > 0 && prewalked == 0) ||
            (model_cross && xr_whole == 0) || (chain && chained == 0) ||
            (lanes_table && monotone == 0))
            return 1;
    }
#ifdef EQ_RATES_CUDA
    if (dev_cuda) {
        printf("device: %ld launches, %ld sums, %ld differ from the loop; plans differ in %zu "
               "of %zu chunks; split records made %zu (model %zu), walked whole %zu (model "
               "%zu), handed to the block part way %zu (model %zu)\n",
               dev_launches, dev_sums, dev_differ, dev_plan_diff, dev_plan_chunks, dev_tot[1][0],
               dev_tot[0][0], dev_tot[1][1], dev_tot[0][1], dev_tot[1][2], dev_tot[0][2]);
        if (model_cross)
            printf("device: crossing records made %zu (model %zu), %zu of them formed before "
                   "the fused kernel's wait, walked whole %zu (model %zu), handed to the block "
                   "part way %zu (model %zu)\n",
                   dev_xtot[1][0], dev_xtot[0][0], dev_xearly, dev_xtot[1][1], dev_xtot[0][1],
                   dev_xtot[1][2], dev_xtot[0][2]);
        if (model_chain)
            printf("device: sums of larger launches walked as one chain %zu (model %zu)\n",
                   dev_chtot[1], dev_chtot[0]);
        eq_cuda_close(&dev_cuda);
        if (dev_differ || dev_plan_diff || dev_model_diff || dev_tot[1][0] + dev_xtot[1][0] == 0)
            return 1;
    }
#endif
    return mismatches ? 1 : 0;
}
