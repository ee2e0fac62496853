/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The ordered-sum engine on the device: the bits of the CPU's
 *
 *     double s = 0.0; for (i = 0; i < n; i++) s += x[i * stride];
 *
 * for many sums at once, with every piece of arithmetic taken from the
 * shared header lib/exact/ordsum.h (the one-term rule, composition, the
 * checked apply, the plan's rule). Only the grouping is the device's, and
 * where a partial result is compared with the host pipeline
 * (lib/exact/ordsum_host.c) the grouping is the host's too:
 *
 *   chunk_sums  one warp per chunk of 1024 terms (256 "lanes" x 4): each
 *               lane's 4 terms in order, the lanes by the ordered tree in
 *               groups of 64, groups in order: eq_ordsum_chunk_sums()'s
 *               grouping, so the approximate sums are the same bits.
 *   plan        one block per sum: an approximate prefix (a block scan, any
 *               grouping is advice) and eq_ord_plan_chunk() per chunk (the
 *               prefixes before and after it), as the host plans.
 *   chunk_runs  one warp per chunk: lane l composes the terms 32l..32l+31,
 *               the lanes by eq_ord_tree's pairing (composition is
 *               associative, so the run is eq_ordsum_chunk_runs()'s). A
 *               chunk without an exact half under its binade takes the
 *               tie-free path (eq_ord_term_fast, one increment per term);
 *               a chunk with one is formed again with the pair functions.
 *   segments    one block per aligned group of 64 chunks: the stretches of
 *               one planned binade, each by the ordered tree from its head
 *               (eq_ordsum_segment_runs()).
 *   walk        one block per sum: whole groups of 64 chunks by their one
 *               segment's run where they can; elsewhere a group's records
 *               staged in shared memory, and warp 0 applies segments and
 *               chunks with the checked eq_ord_apply(). Where a check fails
 *               one thread adds the chunk's terms from the failing one on,
 *               in order, with the loop's own add (EXACTQUALITY_CUDA_WALK=
 *               seq, the default), or the whole block adds them exactly
 *               (eqc_block_exact_add below; walk modes scan and plan). One
 *               thread's 1024 dependent adds take 12k-17k cycles on the
 *               H200; the block's exact add costs a block scan per binade
 *               crossing, and the first chunks of SSIMULACRA2's sums cross
 *               dozens of times (measured up to 340k cycles for one chunk).
 *
 * Small launches (at most 256 chunks a sum) walk by a block a sum
 * (ord_walk_small_kernel), and by default form their chunk sums, plan, runs
 * and split records in one kernel, a block a chunk, each waiting for the
 * chunk sums before it (ord_small_chunks_kernel, lib/cuda/ordsum.cu).
 *
 * eqc_block_exact_add: with the running sum s in binade E, every term's run
 * under E is formed in parallel and combined by an ordered block scan into
 * the run of each prefix. The checked apply of a prefix passes exactly when
 * all of its adds stay inside the binade, and the prefix bounds only widen
 * along the chunk, so the prefixes that pass are those before the first
 * failing index k. s becomes the apply of the prefix up to k - 1 (the loop's
 * bits by the shared proof), then the term k is added with the plain double
 * add (the loop's own operation), and the scan repeats from k + 1 under the
 * new binade. Each binade crossing costs one block scan, not a sequence of
 * dependent adds. While s is +0.0, zero terms leave it so and the first
 * non-zero term x makes it x (one block reduction for the whole stretch);
 * while s is -0.0, subnormal or not finite, terms are added one by one.
 *
 * Zero chunks: chunk_sums also records whether every term of a chunk is
 * zero (of either sign). Adding such a chunk leaves any finite s other than
 * -0.0 unchanged (s + 0 == s; +0.0 + -0.0 == +0.0), and s is never -0.0
 * (it starts at +0.0, and a rounded sum is -0.0 only when both operands
 * are), so the walk steps over zero chunks without looking at their terms:
 * SSIMULACRA2's artifact and detail sums, and all sums of identical frames,
 * are long stretches of zeros that the plan marks "term by term".
 */
#ifndef EQ_CUDA_ORDSUM_CUH
#define EQ_CUDA_ORDSUM_CUH

#include "cuda/common.cuh"
#include "exact/ordsum.h"

#define EQC_ORD_LANES 256
#define EQC_ORD_TPL 4
#define EQC_ORD_CHUNK (EQC_ORD_LANES * EQC_ORD_TPL)
#define EQC_ORD_SEG 64
#define EQC_ORD_WARPS (EQC_ORD_LANES / 32)

/* A run with each of its six int64 fields passed through f, a shuffle. */
template <typename F>
static __device__ __forceinline__ EqOrdRun eqc_shfl_each(const EqOrdRun &r, F f)
{
    EqOrdRun o;
    for (int p = 0; p < 2; p++) {
        o.d[p] = f(r.d[p]);
        o.lo[p] = f(r.lo[p]);
        o.hi[p] = f(r.hi[p]);
    }
    return o;
}

static __device__ __forceinline__ EqOrdRun eqc_shfl_down(const EqOrdRun &r, int k)
{
    return eqc_shfl_each(r, [k](int64_t v) { return __shfl_down_sync(0xffffffffu, v, k); });
}

/* Lane j's run, on every lane. */
static __device__ __forceinline__ EqOrdRun eqc_shfl_run(const EqOrdRun &r, int j)
{
    return eqc_shfl_each(r, [j](int64_t v) { return __shfl_sync(0xffffffffu, v, j); });
}

static __device__ __forceinline__ EqOrdRun eqc_shfl_up(const EqOrdRun &r, int k)
{
    return eqc_shfl_each(r, [k](int64_t v) { return __shfl_up_sync(0xffffffffu, v, k); });
}

/* Inclusive scan by the associative `op` over NT threads in thread order
 * (`up` the shuffle up of a T): NT == 32 within each warp, without a
 * barrier; otherwise over the block's first NT / 32 warps through wtot (a T
 * a warp), ending with a barrier (every thread of the block calls it).
 * *excl gets the exclusive value where *has (not for the first thread);
 * `all` (NT > 32), when given, the value over all NT threads, in every
 * thread. */
template <int NT, typename T, typename Op, typename Up>
static __device__ __forceinline__ T eqc_scan(T v, T *wtot, Op op, Up up, T *excl, bool *has,
                                             T *all = nullptr)
{
    const int lane = threadIdx.x & 31, w = NT > 32 ? (int)(threadIdx.x >> 5) : 0;
    T x = v;
    for (int o = 1; o < 32; o *= 2) {
        const T y = up(x, o);
        if (lane >= o)
            x = op(y, x);
    }
    T pre = x;
    if (NT > 32) {
        if (lane == 31)
            wtot[w] = x;
        __syncthreads();
        if (w > 0) {
            pre = wtot[0];
            for (int j = 1; j < w; j++)
                pre = op(pre, wtot[j]);
            x = op(pre, x);
        }
        if (all) {
            *all = wtot[0];
            for (int j = 1; j < NT / 32; j++)
                *all = op(*all, wtot[j]);
        }
        __syncthreads();
    }
    const T prev = up(x, 1);
    *excl = lane ? prev : pre;
    *has = lane > 0 || w > 0;
    return x;
}

/* Inclusive ordered scan over the block's lanes (lane i gets the run of
 * lanes 0..i); `excl` gets lanes 0..i-1 (empty for lane 0). `sh` holds
 * EQC_ORD_WARPS runs. Any grouping: composition is associative. */
static __device__ __forceinline__ EqOrdRun eqc_block_scan(EqOrdRun r, EqOrdRun *excl,
                                                          EqOrdRun *sh)
{
    bool has;
    const EqOrdRun inc = eqc_scan<EQC_ORD_LANES>(
        r, sh, [](const EqOrdRun &a, const EqOrdRun &b) { return eq_ord_compose(a, b); },
        [](const EqOrdRun &v, int k) { return eqc_shfl_up(v, k); }, excl, &has);
    if (!has)
        *excl = eq_ord_empty();
    return inc;
}

#define EQC_PLAN_MAX_SEGS 64

struct EqcExactShared {
    EqOrdRun warp[EQC_ORD_WARPS];
    double s;
    int k;
    /* the planned pass */
    double dwarp[EQC_ORD_WARPS];
    int iwarp[EQC_ORD_WARPS];
    EqOrdSegRun swarp[EQC_ORD_WARPS];
    int e[EQC_ORD_CHUNK];
    unsigned char head[EQC_ORD_CHUNK + 1];
    EqOrdRun seg_run[EQC_PLAN_MAX_SEGS];
    int seg_start[EQC_PLAN_MAX_SEGS];
    int seg_e[EQC_PLAN_MAX_SEGS];
    double seg_x[EQC_PLAN_MAX_SEGS];
    int nseg;
    int next;
};

static __device__ __forceinline__ EqOrdSegRun eqc_shfl_up_seg(const EqOrdSegRun &r, int k)
{
    EqOrdSegRun o;
    o.run = eqc_shfl_up(r.run, k);
    o.head = __shfl_up_sync(0xffffffffu, r.head, k);
    return o;
}

/* Exclusive block scans (thread order, eqc_scan) of a double (advice
 * only; eqc_excl_dsum over the first NT threads, wtot a double a warp), an
 * int (with the block's total) and a segmented run (eq_ord_seg_combine).
 * Each ends with a barrier. */
template <int NT>
static __device__ __forceinline__ double eqc_excl_dsum(double x, double *wtot)
{
    double ex;
    bool has;
    (void)eqc_scan<NT>(
        x, wtot, [](double a, double b) { return a + b; },
        [](double v, int k) { return __shfl_up_sync(0xffffffffu, v, k); }, &ex, &has);
    return has ? ex : 0.0;
}

static __device__ __forceinline__ double eqc_block_excl_dsum(double x, EqcExactShared *sh)
{
    return eqc_excl_dsum<EQC_ORD_LANES>(x, sh->dwarp);
}

static __device__ __forceinline__ int eqc_block_excl_isum(int x, int *total, EqcExactShared *sh)
{
    int ex;
    bool has;
    (void)eqc_scan<EQC_ORD_LANES>(
        x, sh->iwarp, [](int a, int b) { return a + b; },
        [](int v, int k) { return __shfl_up_sync(0xffffffffu, v, k); }, &ex, &has, total);
    return has ? ex : 0;
}

static __device__ __forceinline__ EqOrdSegRun eqc_block_excl_seg(EqOrdSegRun x,
                                                               EqcExactShared *sh)
{
    EqOrdSegRun ex;
    bool has;
    (void)eqc_scan<EQC_ORD_LANES>(
        x, sh->swarp,
        [](const EqOrdSegRun &a, const EqOrdSegRun &b) { return eq_ord_seg_combine(a, b); },
        [](const EqOrdSegRun &v, int k) { return eqc_shfl_up_seg(v, k); }, &ex, &has);
    if (!has) {
        ex.run = eq_ord_empty();
        ex.head = 0;
    }
    return ex;
}

/*
 * The planned pass (EXACTQUALITY_CUDA_WALK=plan): terms pos .. count-1
 * planned term by term, as the walk plans chunks: the binades of an
 * approximate sum before and after each term (advice); a term that crosses
 * a binade by the plan stands alone and is added with the plain double add;
 * stretches of one planned binade are composed by the segmented scan; lane
 * 0 applies the stretches in order with the checked eq_ord_apply until one
 * fails (or is planned "none"). Returns the index of the first term
 * not added (count when all were); *s is exact up to there. Needs s normal.
 */
static __device__ int eqc_block_planned_pass(double *s_io, const double v[EQC_ORD_TPL],
                                             int pos, int count, EqcExactShared *sh)
{
    const int t0 = threadIdx.x * EQC_ORD_TPL;
    const double s = *s_io;
    double loc[EQC_ORD_TPL], acc = 0.0;
    for (int j = 0; j < EQC_ORD_TPL; j++) {
        const int i = t0 + j;
        loc[j] = acc;
        if (i >= pos && i < count)
            acc += v[j];
    }
    const double excl = eqc_block_excl_dsum(acc, sh);
    int e[EQC_ORD_TPL];
    for (int j = 0; j < EQC_ORD_TPL; j++) {
        const int i = t0 + j;
        /* the plan of the term after the approximate sum before it; a term
         * that (by the plan) crosses, EQ_ORD_CROSS, is added alone with the
         * plain add */
        e[j] = eq_ord_plan_term(s + (excl + loc[j]), v[j]);
        if (i >= pos && i < count)
            sh->e[i] = e[j];
    }
    __syncthreads();
    int head[EQC_ORD_TPL], nh = 0;
    for (int j = 0; j < EQC_ORD_TPL; j++) {
        const int i = t0 + j;
        head[j] = 0;
        if (i >= pos && i < count)
            head[j] =
                i == pos || e[j] == EQ_ORD_NONE || e[j] == EQ_ORD_CROSS || e[j] != sh->e[i - 1];
        nh += head[j];
        sh->head[i] = (unsigned char)head[j];
    }
    if (threadIdx.x == 0)
        sh->head[EQC_ORD_CHUNK] = 1;
    int nseg;
    const int seg0 = eqc_block_excl_isum(nh, &nseg, sh);
    if (nseg > EQC_PLAN_MAX_SEGS)
        return pos; /* too many stretches: the caller goes scan by scan */
    /* the segmented scan of the terms' runs under their planned binades */
    EqOrdSegRun loc_inc[EQC_ORD_TPL], agg;
    agg.run = eq_ord_empty();
    agg.head = 0;
    for (int j = 0; j < EQC_ORD_TPL; j++) {
        const int i = t0 + j;
        EqOrdSegRun x;
        x.head = head[j];
        x.run = eq_ord_empty();
        if (i >= pos && i < count)
            x.run = e[j] == EQ_ORD_NONE || e[j] == EQ_ORD_CROSS ? eq_ord_poison()
                                                                : eq_ord_term(v[j], e[j]);
        agg = eq_ord_seg_combine(agg, x);
        loc_inc[j] = agg;
    }
    const EqOrdSegRun before = eqc_block_excl_seg(agg, sh);
    int segi = seg0;
    for (int j = 0; j < EQC_ORD_TPL; j++) {
        const int i = t0 + j;
        if (!(i >= pos && i < count))
            continue;
        if (head[j]) {
            sh->seg_start[segi] = i;
            sh->seg_e[segi] = e[j];
            sh->seg_x[segi] = v[j];
            segi++;
        }
        if (i == count - 1 || sh->head[i + 1]) {
            /* i ends the stretch segi - 1 */
            sh->seg_run[segi - 1] = eq_ord_seg_combine(before, loc_inc[j]).run;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double x = s;
        int k = 0;
        for (; k < nseg; k++) {
            if (sh->seg_e[k] == EQ_ORD_CROSS) {
                x = x + sh->seg_x[k]; /* the loop's own add */
                continue;
            }
            if (sh->seg_e[k] == EQ_ORD_NONE || !eq_ord_apply(&x, &sh->seg_run[k], sh->seg_e[k]))
                break;
        }
        sh->s = x;
        sh->next = k < nseg ? sh->seg_start[k] : count;
    }
    __syncthreads();
    *s_io = sh->s;
    const int next = sh->next;
    __syncthreads();
    return next;
}

/*
 * The block adds terms pos0 .. count-1 of a chunk (thread t holds the
 * chunk's terms 4t .. 4t+3 in v) to the exact running sum s, in index
 * order, with the loop's bits. Returns the new sum in every thread.
 */
static __device__ double eqc_block_exact_add(double s, const double v[EQC_ORD_TPL], int count,
                                             EqcExactShared *sh, int planned, int pos0)
{
    const int t0 = threadIdx.x * EQC_ORD_TPL;
    int pos = pos0, tried_plan_at = -1;

    while (pos < count) {
        const int e = eq_ord_binade(s);
        if (planned && e != EQ_ORD_NONE && tried_plan_at != pos) {
            /* one planned pass; where it stops, one scan step follows */
            tried_plan_at = pos;
            const int next = eqc_block_planned_pass(&s, v, pos, count, sh);
            if (next > pos) {
                pos = next;
                tried_plan_at = pos;
                continue;
            }
        }
        if (e == EQ_ORD_NONE && eq_bits(s) == 0) {
            /* s is +0.0: zero terms (of either sign) leave it +0.0, and the
             * first non-zero term x gives +0.0 + x == x exactly. */
            if (threadIdx.x == 0)
                sh->k = count;
            __syncthreads();
            for (int j = 0; j < EQC_ORD_TPL; j++) {
                int i = t0 + j;
                if (i >= pos && i < count && v[j] != 0.0) {
                    atomicMin(&sh->k, i);
                    break;
                }
            }
            __syncthreads();
            const int k = sh->k;
            if (k < count)
                for (int j = 0; j < EQC_ORD_TPL; j++)
                    if (k == t0 + j)
                        sh->s = s + v[j];
            __syncthreads();
            if (k < count)
                s = sh->s;
            pos = k + 1;
            __syncthreads();
            continue;
        }
        if (e == EQ_ORD_NONE) {
            /* s is -0.0, subnormal, infinite or NaN: one plain add. */
            for (int j = 0; j < EQC_ORD_TPL; j++)
                if (pos == t0 + j)
                    sh->s = s + v[j];
            __syncthreads();
            s = sh->s;
            pos++;
            __syncthreads();
            continue;
        }
        EqOrdRun pre[EQC_ORD_TPL];
        EqOrdRun acc = eq_ord_empty();
        for (int j = 0; j < EQC_ORD_TPL; j++) {
            int i = t0 + j;
            if (i >= pos && i < count)
                acc = eq_ord_compose(acc, eq_ord_term(v[j], e));
            pre[j] = acc;
        }
        EqOrdRun excl;
        (void)eqc_block_scan(acc, &excl, sh->warp);
        if (threadIdx.x == 0)
            sh->k = count;
        __syncthreads();
        for (int j = 0; j < EQC_ORD_TPL; j++) {
            int i = t0 + j;
            if (i >= pos && i < count) {
                EqOrdRun p = eq_ord_compose(excl, pre[j]);
                double t = s;
                if (!eq_ord_apply(&t, &p, e)) {
                    atomicMin(&sh->k, i);
                    break;
                }
            }
        }
        __syncthreads();
        const int k = sh->k;
        /* The prefix up to k - 1 passes: apply it. */
        if (k > pos && k - 1 >= t0 && k - 1 < t0 + EQC_ORD_TPL) {
            /* pre[] by compile-time index only (no local memory) */
            EqOrdRun q = pre[0];
            for (int j = 1; j < EQC_ORD_TPL; j++)
                if (j == k - 1 - t0)
                    q = pre[j];
            EqOrdRun p = eq_ord_compose(excl, q);
            double t = s;
            eq_ord_apply(&t, &p, e);
            sh->s = t;
        }
        __syncthreads();
        if (k > pos)
            s = sh->s;
        __syncthreads();
        if (k < count) {
            /* Term k leaves the binade (or poisons the run): the loop's add. */
            for (int j = 0; j < EQC_ORD_TPL; j++)
                if (k == t0 + j)
                    sh->s = s + v[j];
            __syncthreads();
            s = sh->s;
            __syncthreads();
        }
        pos = k + 1;
    }
    return s;
}

#endif /* EQ_CUDA_ORDSUM_CUH */
