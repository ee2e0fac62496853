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
 *   chunk_sums  one block per chunk of 1024 terms (256 lanes x 4): each lane
 *               adds its 4 terms in order, lanes by the ordered tree in
 *               groups of 64, groups in order: eq_ordsum_chunk_sums()'s
 *               grouping, so the approximate sums are the same bits.
 *   plan        one block per sum: an approximate prefix (a block scan, any
 *               grouping is advice) and eq_ord_plan_binade() per chunk.
 *   chunk_runs  one block per chunk: each lane composes its 4 terms under
 *               the chunk's binade, lanes by the ordered tree
 *               (eq_ord_tree's pairing, as in eq_ordsum_chunk_runs()).
 *   segments    one block per aligned group of 64 chunks: the stretches of
 *               one planned binade, each by the ordered tree from its head
 *               (eq_ordsum_segment_runs()).
 *   walk        one block per sum: records staged 256 chunks at a time in
 *               shared memory; lane 0 applies segments and chunks with the
 *               checked eq_ord_apply(). Where a check fails the whole block
 *               adds that chunk's terms exactly (eqc_block_exact_add below)
 *               instead of one lane adding 1024 terms in a row.
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

static __device__ __forceinline__ EqOrdRun eqc_shfl_down(const EqOrdRun &r, int k)
{
    EqOrdRun o;
    for (int p = 0; p < 2; p++) {
        o.d[p] = __shfl_down_sync(0xffffffffu, r.d[p], k);
        o.lo[p] = __shfl_down_sync(0xffffffffu, r.lo[p], k);
        o.hi[p] = __shfl_down_sync(0xffffffffu, r.hi[p], k);
    }
    return o;
}

static __device__ __forceinline__ EqOrdRun eqc_shfl_up(const EqOrdRun &r, int k)
{
    EqOrdRun o;
    for (int p = 0; p < 2; p++) {
        o.d[p] = __shfl_up_sync(0xffffffffu, r.d[p], k);
        o.lo[p] = __shfl_up_sync(0xffffffffu, r.lo[p], k);
        o.hi[p] = __shfl_up_sync(0xffffffffu, r.hi[p], k);
    }
    return o;
}

/*
 * The ordered tree over the block's 256 lanes with eq_ord_tree()'s pairing
 * (at step k, lane i, a multiple of 2k, takes lane i + k). The result is
 * valid in thread 0. `sh` holds EQC_ORD_WARPS runs.
 */
static __device__ __forceinline__ EqOrdRun eqc_block_tree(EqOrdRun r, EqOrdRun *sh)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int k = 1; k < 32; k *= 2) {
        EqOrdRun o = eqc_shfl_down(r, k);
        if ((lane & (2 * k - 1)) == 0)
            r = eq_ord_compose(r, o);
    }
    if (lane == 0)
        sh[warp] = r;
    __syncthreads();
    if (threadIdx.x == 0) {
        EqOrdRun w[EQC_ORD_WARPS];
        for (int i = 0; i < EQC_ORD_WARPS; i++)
            w[i] = sh[i];
        for (int k = 1; k < EQC_ORD_WARPS; k *= 2)
            for (int i = 0; i + k < EQC_ORD_WARPS; i += 2 * k)
                w[i] = eq_ord_compose(w[i], w[i + k]);
        r = w[0];
    }
    __syncthreads();
    return r;
}

/* Inclusive ordered scan over the block's lanes (lane i gets the run of
 * lanes 0..i); `excl` gets lanes 0..i-1 (empty for lane 0). `sh` holds
 * EQC_ORD_WARPS runs. Any grouping: composition is associative. */
static __device__ __forceinline__ EqOrdRun eqc_block_scan(EqOrdRun r, EqOrdRun *excl,
                                                          EqOrdRun *sh)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int k = 1; k < 32; k *= 2) {
        EqOrdRun o = eqc_shfl_up(r, k);
        if (lane >= k)
            r = eq_ord_compose(o, r);
    }
    if (lane == 31)
        sh[warp] = r;
    __syncthreads();
    EqOrdRun before = eq_ord_empty();
    for (int w = 0; w < warp; w++)
        before = eq_ord_compose(before, sh[w]);
    EqOrdRun in_warp_excl = eqc_shfl_up(r, 1);
    if (lane == 0)
        in_warp_excl = eq_ord_empty();
    *excl = eq_ord_compose(before, in_warp_excl);
    __syncthreads();
    return eq_ord_compose(before, r);
}

struct EqcExactShared {
    EqOrdRun warp[EQC_ORD_WARPS];
    double s;
    int k;
};

/*
 * The block adds terms v[0..3] of each thread (thread t holds the chunk's
 * terms 4t .. 4t+3; `count` terms in all) to the exact running sum s, in
 * index order, with the loop's bits. Returns the new sum in every thread.
 */
static __device__ double eqc_block_exact_add(double s, const double v[EQC_ORD_TPL], int count,
                                             EqcExactShared *sh)
{
    const int t0 = threadIdx.x * EQC_ORD_TPL;
    int pos = 0;

    while (pos < count) {
        const int e = eq_ord_binade(s);
        if (e == EQ_ORD_NONE && eq_ord_bits(s) == 0) {
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
