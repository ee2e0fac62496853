/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The ordered-sum engine's kernels and their launcher (the design is in
 * ordsum.cuh). A metric hands over up to EQC_MAX_SUMS sums of device terms
 * at once; the engine leaves each sum's double in the frame's results.
 */
#include <string.h>

#include "cuda/ordsum.cuh"
#include "exact/ssimulacra2.h"

/* The sum a global chunk index belongs to (binary search of the offsets). */
static __device__ __forceinline__ int sum_of_chunk(const EqcSumTable *t, long long g)
{
    int lo = 0, hi = t->nsums - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if (t->chunk_off[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The term of kind `kind` (EQC_TERM_*) on K values in place, the
 * (block-uniform) kind tested once: the loads before it then issue
 * together instead of one branch at a time. A value 0.0 stays +0.0 for
 * every kind. */
template <int K>
static __device__ __forceinline__ void terms_of(int kind, double v[K])
{
    switch (kind) {
    case EQC_TERM_QUARTIC:
#pragma unroll
        for (int j = 0; j < K; j++)
            v[j] = eq_s2_quartic(v[j]);
        break;
    case EQC_TERM_ARTIFACT:
#pragma unroll
        for (int j = 0; j < K; j++)
            v[j] = eq_s2_artifact(v[j]);
        break;
    case EQC_TERM_ARTIFACT4:
#pragma unroll
        for (int j = 0; j < K; j++)
            v[j] = eq_s2_quartic(eq_s2_artifact(v[j]));
        break;
    case EQC_TERM_DETAIL:
#pragma unroll
        for (int j = 0; j < K; j++)
            v[j] = eq_s2_detail(v[j]);
        break;
    case EQC_TERM_DETAIL4:
#pragma unroll
        for (int j = 0; j < K; j++)
            v[j] = eq_s2_quartic(eq_s2_detail(v[j]));
        break;
    default:
        break;
    }
}

/* Terms past the end are 0.0 (and not counted in *nt). The loads read a
 * clamped index (the last term) and select, so that they carry no branch. */
static __device__ __forceinline__ void load_terms(const EqcSumDesc &d, long long c,
                                                  double v[EQC_ORD_TPL], int *nt)
{
    long long i0 = c * EQC_ORD_CHUNK + (long long)threadIdx.x * EQC_ORD_TPL;
    int k = 0;
#pragma unroll
    for (int j = 0; j < EQC_ORD_TPL; j++) {
        long long i = i0 + j;
        v[j] = d.n > 0 ? d.x[(i < d.n ? i : d.n - 1) * d.stride] : 0.0;
        v[j] = i < d.n ? v[j] : 0.0;
        k += i < d.n;
    }
    terms_of<EQC_ORD_TPL>(d.kind, v);
    *nt = k;
}

#define RUNS_WARPS 4
#define RUNS_ROW (32 + 1)

/* One warp's chunk of terms (count >= 1 of them) into its shared rows: 16
 * loads of a lane in flight at once (clamped index, no branch), twice, the
 * terms formed after; terms past the end are 0.0. Lane l then finds the
 * chunk's terms 32l .. 32l+31 at st + l * RUNS_ROW (rows of 33 doubles: the
 * stores and the lanes' reads are free of bank conflicts). */
static __device__ __forceinline__ void stage_chunk(const EqcSumDesc &d, long long first,
                                                   int count, double *st, int lane)
{
    const double *x = d.x + first * d.stride;
    const bool whole = count == EQC_ORD_CHUNK && d.stride == 1;
#pragma unroll
    for (int h = 0; h < 32; h += 16) {
        double raw[16];
        if (whole) {
            /* a whole chunk of contiguous terms: constant offsets */
#pragma unroll
            for (int j = 0; j < 16; j++)
                raw[j] = x[(h + j) * 32 + lane];
        } else {
#pragma unroll
            for (int j = 0; j < 16; j++) {
                const int i = (h + j) * 32 + lane;
                raw[j] = x[(long long)(i < count ? i : count - 1) * d.stride];
                raw[j] = i < count ? raw[j] : 0.0;
            }
        }
        terms_of<16>(d.kind, raw);
#pragma unroll
        for (int j = 0; j < 16; j++)
            st[(h + j) * RUNS_ROW + lane] = raw[j];
    }
    __syncwarp();
}

/* Approximate sum of each chunk, in eq_ordsum_chunk_sums()'s grouping: the
 * chunk's 256 "lanes" of 4 terms each add their terms in order from 0.0,
 * the ordered tree inside each group of 64 lanes, the groups in order from
 * 0.0. One warp per chunk: lane l holds the lanes 8l .. 8l+7 (the chunk's
 * terms 32l .. 32l+31) and does the tree's first three steps itself, the
 * next three across lanes (a group of 64 lanes is 8 warp lanes). */
__global__ void __launch_bounds__(32 * RUNS_WARPS, 6)
ord_chunk_sums_kernel(const EqcSumTable *t, double *chunk_sum, unsigned char *zero,
                      long long total)
{
    __shared__ double stage[RUNS_WARPS][32 * RUNS_ROW];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long g = (long long)blockIdx.x * RUNS_WARPS + warp;
    if (g >= total)
        return; /* whole warps only: no block barrier below */
    const int s = sum_of_chunk(t, g);
    const EqcSumDesc d = t->d[s];
    const long long first = (g - t->chunk_off[s]) * EQC_ORD_CHUNK;
    const int count = d.n - first < EQC_ORD_CHUNK ? (int)(d.n - first) : EQC_ORD_CHUNK;
    if (count <= 0) {
        /* an empty sum's one chunk */
        if (lane == 0) {
            chunk_sum[g] = 0.0;
            zero[g] = 1;
        }
        return;
    }
    double *st = stage[warp];
    stage_chunk(d, first, count, st, lane);
    const double *mine = st + lane * RUNS_ROW;
    double ls[8];
    int nonzero = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        double a = 0.0;
#pragma unroll
        for (int j = 0; j < EQC_ORD_TPL; j++) {
            const double v = mine[i * EQC_ORD_TPL + j];
            a += v; /* past the end: lane sums of 0.0 terms, as the host's */
            nonzero |= v != 0.0;
        }
        ls[i] = a;
    }
    /* steps 1, 2, 4 of the tree inside the lane, 8, 16, 32 across lanes */
#pragma unroll
    for (int k = 1; k < 8; k *= 2)
#pragma unroll
        for (int i = 0; i + k < 8; i += 2 * k)
            ls[i] += ls[i + k];
    double gsum = ls[0];
    for (int k = 1; k < 8; k *= 2) {
        const double o = __shfl_down_sync(0xffffffffu, gsum, k);
        if ((lane & (2 * k - 1)) == 0)
            gsum += o;
    }
    nonzero = __any_sync(0xffffffffu, nonzero);
    const double g1 = __shfl_sync(0xffffffffu, gsum, 8), g2 = __shfl_sync(0xffffffffu, gsum, 16),
                 g3 = __shfl_sync(0xffffffffu, gsum, 24);
    if (lane == 0) {
        double acc = 0.0;
        acc += gsum;
        acc += g1;
        acc += g2;
        acc += g3;
        chunk_sum[g] = acc;
        zero[g] = !nonzero;
    }
}

/* Per sum: the plan (eq_ord_plan_chunk of the approximate prefixes before
 * and after each chunk, as the host pipeline plans; the scan's grouping is
 * advice) or, in tree mode, the tree total. */
__global__ void __launch_bounds__(EQC_ORD_LANES)
ord_plan_kernel(const EqcSumTable *t, const double *chunk_sum, int *plan, double *out,
                int tree_mode)
{
    __shared__ double part[EQC_ORD_LANES];
    const int s = blockIdx.x;
    const long long off = t->chunk_off[s], nch = t->chunk_off[s + 1] - off;
    const long long per = (nch + EQC_ORD_LANES - 1) / EQC_ORD_LANES;
    const long long a = threadIdx.x * per, b = a + per < nch ? a + per : nch;
    double local = 0.0;
    for (long long c = a; c < b; c++)
        local += chunk_sum[off + c];
    part[threadIdx.x] = local;
    __syncthreads();
    if (tree_mode) {
        for (int k = EQC_ORD_LANES / 2; k > 0; k >>= 1) {
            if (threadIdx.x < k)
                part[threadIdx.x] += part[threadIdx.x + k];
            __syncthreads();
        }
        if (threadIdx.x == 0)
            out[t->d[s].out] = part[0];
        return;
    }
    /* exclusive scan of the thread totals (Hillis-Steele, advice only) */
    for (int k = 1; k < EQC_ORD_LANES; k *= 2) {
        double o = threadIdx.x >= k ? part[threadIdx.x - k] : 0.0;
        __syncthreads();
        part[threadIdx.x] += o;
        __syncthreads();
    }
    double prefix = part[threadIdx.x] - local;
    if (threadIdx.x == 0)
        prefix = 0.0;
    for (long long c = a; c < b; c++) {
        const double next = prefix + chunk_sum[off + c];
        plan[off + c] = eq_ord_plan_chunk(prefix, next);
        prefix = next;
    }
}

/* Per chunk: its run under the chunk's binade. Composition is associative
 * (docs/ordered-sum.md), so the run's bits do not depend on the grouping:
 * here one warp takes one chunk, lane l composes the chunk's terms
 * 32l .. 32l+31 in order, and the lanes are composed by eq_ord_tree's
 * pairing. The terms are read with coalesced loads into shared memory (row
 * of 33 doubles per 32 terms, so that both the loads' and the lanes' reads
 * are free of bank conflicts).
 *
 * Tie-free fast path: a term that is not an exact half under the binade has
 * one increment for both parities (eq_ord_term_fast, a few floating-point
 * operations instead of 64-bit shifts), so a chunk without such a term has
 * a run with equal entries for both parities, formed as eq_ord_push1 /
 * eq_ord_compose1 form it (one int64 triple instead of two). When any lane
 * finds a tie (or a subnormal term), the whole warp forms the chunk's run
 * again with the pair functions.
 * Both give the host pipeline's eq_ordsum_chunk_runs() bits (checkkernels). */
static __device__ __forceinline__ EqOrdRun1 shfl_down1(const EqOrdRun1 &r, int k)
{
    EqOrdRun1 o;
    o.d = __shfl_down_sync(0xffffffffu, r.d, k);
    o.lo = __shfl_down_sync(0xffffffffu, r.lo, k);
    o.hi = __shfl_down_sync(0xffffffffu, r.hi, k);
    return o;
}

/* One term on the fast path (eq_ord_term_fast): the running prefix of the
 * increments with its lowest and highest value; a poisoning term and an
 * exact half (or subnormal term) are only noted. The lane's run is then
 * eq_ord_push1's result from the empty run: the same prefixes, and
 * poisoned exactly when a term poisons or a prefix leaves +-EQ_ORD_CAP
 * (push1 poisons at the first such event and stays poisoned). */
struct LaneFast {
    int64_t d, lo, hi;
    int poison, slow;
};

static __device__ __forceinline__ void push_fast(LaneFast *l, double x, int e)
{
    int64_t inc = 0;
    const int a = eq_ord_term_fast(x, e, &inc);
    l->poison |= a == EQ_ORD_FAST_POISON;
    l->slow |= a == EQ_ORD_FAST_SLOW;
    l->d += a == EQ_ORD_FAST_OK ? inc : 0;
    l->lo = l->lo < l->d ? l->lo : l->d;
    l->hi = l->hi > l->d ? l->hi : l->d;
}

__global__ void __launch_bounds__(32 * RUNS_WARPS, 6)
ord_chunk_runs_kernel(const EqcSumTable *t, const int *plan, EqOrdRun *runs, long long total,
                      int no_fast)
{
    __shared__ double stage[RUNS_WARPS][32 * RUNS_ROW];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long g = (long long)blockIdx.x * RUNS_WARPS + warp;
    if (g >= total)
        return; /* whole warps only: no block barrier below */
    const int s = sum_of_chunk(t, g);
    const EqcSumDesc d = t->d[s];
    const long long c = g - t->chunk_off[s];
    const int e = plan[g];
    if (e == EQ_ORD_NONE) {
        if (lane == 0)
            runs[g] = eq_ord_poison();
        return;
    }
    const long long first = c * EQC_ORD_CHUNK;
    const int count = d.n - first < EQC_ORD_CHUNK ? (int)(d.n - first) : EQC_ORD_CHUNK;
    if (count <= 0) {
        /* an empty sum's chunk (planned "none" by its zero prefix anyway) */
        if (lane == 0)
            runs[g] = eq_ord_empty();
        return;
    }
    double *st = stage[warp];
    stage_chunk(d, first, count, st, lane);
    const double *mine = st + lane * RUNS_ROW;
    const int nt = min(max(count - lane * 32, 0), 32);

    /* Lanes of non-negative terms (every lane of SSIMULACRA2's sums): both
     * parities' runs in double arithmetic, ties included
     * (eq_ord_run_scaled; the 32 staged terms, those past the end +0.0,
     * which add 0 and raise no flag). A lane with a negative or a large
     * term (or an infinity, a NaN) takes the int64 one-term rule below. */
    EqOrdRun pr = eq_ord_empty();
    int fl = EQ_ORD_SF_BIG;
    if (!no_fast && e >= EQ_ORD_SCALED_EMIN)
        fl = eq_ord_run_scaled(mine, 32, eq_ord_scale(e), &pr);
    const bool scaled = !(fl & (EQ_ORD_SF_BIG | EQ_ORD_SF_NEG));
    if (scaled && nt == 0)
        pr = eq_ord_empty();
    LaneFast lf = { 0, EQ_ORD_POISON, -EQ_ORD_POISON, 0, 0 };
    if (scaled) {
        /* formed above; the tie-free run is parity 0's */
        lf.slow = (fl & EQ_ORD_SF_TIE) != 0;
        lf.d = pr.d[0];
        lf.lo = pr.lo[0];
        lf.hi = pr.hi[0];
    } else if (nt == 32) {
        /* unrolled: the terms' rules overlap, only the prefix is a chain */
#pragma unroll
        for (int k = 0; k < 32; k++)
            push_fast(&lf, mine[k], e);
    } else {
        for (int k = 0; k < nt; k++)
            push_fast(&lf, mine[k], e);
    }
    EqOrdRun1 r1 = { lf.d, lf.lo, lf.hi }; /* the empty run when nt == 0 */
    if (lf.poison || lf.lo < -EQ_ORD_CAP || lf.hi > EQ_ORD_CAP) {
        r1.d = 0;
        r1.lo = -EQ_ORD_POISON;
        r1.hi = EQ_ORD_POISON;
    }
    EqOrdRun r;
    if (!__any_sync(0xffffffffu, lf.slow | no_fast)) {
        for (int k = 1; k < 32; k *= 2) {
            EqOrdRun1 o = shfl_down1(r1, k);
            if ((lane & (2 * k - 1)) == 0)
                r1 = eq_ord_compose1(r1, o);
        }
        r = eq_ord_run_from1(r1);
    } else {
        /* a tie somewhere in the chunk: the pair runs, composed by pairs;
         * a scaled lane has its pair run already, a tie-free int64 lane
         * writes its run as a pair, the others (and every lane with
         * no_fast) compose the pair functions term by term */
        if (scaled && !no_fast) {
            r = pr;
        } else if (!lf.slow && !no_fast) {
            r = eq_ord_run_from1(r1);
        } else {
            r = eq_ord_empty();
            for (int k = 0; k < nt; k++)
                r = eq_ord_compose(r, eq_ord_term(mine[k], e));
        }
        for (int k = 1; k < 32; k *= 2) {
            EqOrdRun o = eqc_shfl_down(r, k);
            if ((lane & (2 * k - 1)) == 0)
                r = eq_ord_compose(r, o);
        }
    }
    if (lane == 0)
        runs[g] = r;
}

/* Per aligned group of EQC_ORD_SEG chunks of one sum: the segmented
 * inclusive scan of eq_ordsum_segment_runs() (eq_ord_seg_scan's pairing:
 * at step k every element j >= k takes eq_ord_seg_combine(v[j-k], v[j])),
 * and each segment's run, found at its last chunk, stored at its head.
 * Block g covers group g of the table. */
__global__ void __launch_bounds__(EQC_ORD_SEG)
ord_segments_kernel(const EqcSumTable *t, const int *plan, const EqOrdRun *runs,
                    EqOrdRun *seg, int *seg_len)
{
    __shared__ EqOrdSegRun v[EQC_ORD_SEG];
    __shared__ int head[EQC_ORD_SEG + 1];
    const long long gidx = blockIdx.x;
    int s = 0;
    {
        int lo = 0, hi = t->nsums - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >> 1;
            if (t->group_off[mid] <= gidx)
                lo = mid;
            else
                hi = mid - 1;
        }
        s = lo;
    }
    const long long off = t->chunk_off[s], nch = t->chunk_off[s + 1] - off;
    const long long c0 = (gidx - t->group_off[s]) * EQC_ORD_SEG;
    const int j = threadIdx.x;
    const long long c = c0 + j;
    const int n = nch - c0 < EQC_ORD_SEG ? (int)(nch - c0) : EQC_ORD_SEG;
    const int *p = plan + off;

    if (j < n) {
        v[j].run = runs[off + c];
        v[j].head = head[j] = eq_ord_segment_head(p, (int64_t)c, EQC_ORD_SEG);
    }
    if (j == 0)
        head[n] = 1;
    __syncthreads();
    for (int k = 1; k < EQC_ORD_SEG; k *= 2) {
        EqOrdSegRun nv;
        const int write = j < n && j >= k;
        if (write)
            nv = eq_ord_seg_combine(v[j - k], v[j]);
        __syncthreads();
        if (write)
            v[j] = nv;
        __syncthreads();
    }
    if (j < n) {
        seg_len[off + c] = 0;
        if (head[j + 1]) {
            /* j is the last chunk of its segment */
            int h = j;
            while (!head[h])
                h--;
            seg[off + c0 + h] = v[j].run;
        }
    }
    __syncthreads();
    if (j < n && head[j]) {
        int e = j + 1;
        while (!head[e])
            e++;
        seg_len[off + c] = e - j;
    }
}

#define WALK_BATCH 256

struct WalkShared {
    EqOrdRun run[WALK_BATCH];
    EqOrdRun seg[WALK_BATCH];
    int plan[WALK_BATCH];
    int seg_len[WALK_BATCH];
    unsigned char zero[WALK_BATCH];
    double s;
    long long next;
    EqcExactShared ex;
};

/* Per sum, the exact running sum from +0.0: segments and chunks applied by
 * lane 0 while their checks pass, a failing chunk added exactly by the
 * whole block. */
__global__ void __launch_bounds__(EQC_ORD_LANES)
ord_walk_kernel(const EqcSumTable *t, const int *plan, const EqOrdRun *runs,
                const EqOrdRun *seg, const int *seg_len, const unsigned char *zero, double *out,
                int none_plan, int planned)
{
    __shared__ WalkShared sh;
    const int s = blockIdx.x;
    const EqcSumDesc d = t->d[s];
    const long long off = t->chunk_off[s], nch = t->chunk_off[s + 1] - off;
    double sum = 0.0;
    /* Thread i stages chunk i of a batch (WALK_BATCH == the block). The
     * records of the next batch are loaded into registers while lane 0
     * walks this one (all loads independent: a segment run is read
     * whether or not the chunk heads a segment, and used only where it
     * does), and stored at the start of the next iteration. */
    static_assert(WALK_BATCH == EQC_ORD_LANES, "one chunk record per thread");
    const int i = threadIdx.x;
    EqOrdRun n_run, n_seg;
    int n_plan = EQ_ORD_NONE, n_len = 0;
    unsigned char n_zero = 0;
#define WALK_LOAD(b)                                                                      \
    do {                                                                                  \
        if ((b) + i < nch) {                                                              \
            const long long j_ = off + (b) + i;                                           \
            n_run = runs[j_];                                                             \
            n_seg = seg[j_];                                                              \
            n_plan = none_plan ? EQ_ORD_NONE : plan[j_];                                  \
            n_len = none_plan ? 0 : seg_len[j_];                                          \
            n_zero = none_plan ? 0 : zero[j_];                                            \
        }                                                                                 \
    } while (0)
    WALK_LOAD(0);

    for (long long base = 0; base < nch; base += WALK_BATCH) {
        const int nb = nch - base < WALK_BATCH ? (int)(nch - base) : WALK_BATCH;
        if (i < nb) {
            sh.plan[i] = n_plan;
            sh.seg_len[i] = n_len;
            sh.zero[i] = n_zero;
            sh.run[i] = n_run;
            sh.seg[i] = n_seg;
        }
        __syncthreads();
        if (base + WALK_BATCH < nch)
            WALK_LOAD(base + WALK_BATCH);
        int c = 0;
        while (c < nb) {
            if (threadIdx.x == 0) {
                double x = sum;
                int k = c;
                while (k < nb) {
                    int len = sh.seg_len[k];
                    if (len > 1 && eq_ord_apply(&x, &sh.seg[k], sh.plan[k])) {
                        k += len;
                        continue;
                    }
                    /* the segment failed: its chunks one by one; a zero
                     * chunk leaves a finite s (never -0.0) as it is */
                    int end = k + (len > 1 ? len : 1);
                    const int finite = ((eq_ord_bits(x) >> 52) & 0x7ff) != 0x7ff;
                    while (k < end && ((sh.zero[k] && finite) ||
                                       (sh.plan[k] != EQ_ORD_NONE &&
                                        eq_ord_apply(&x, &sh.run[k], sh.plan[k]))))
                        k++;
                    if (k < end)
                        break; /* chunk k fails its check */
                }
                sh.s = x;
                sh.next = k;
            }
            __syncthreads();
            sum = sh.s;
            c = (int)sh.next;
            __syncthreads();
            if (c < nb) {
                double v[EQC_ORD_TPL];
                int nt;
                load_terms(d, base + c, v, &nt);
                long long first = (base + c) * EQC_ORD_CHUNK;
                int count = d.n - first < EQC_ORD_CHUNK ? (int)(d.n - first) : EQC_ORD_CHUNK;
                (void)nt;
                sum = eqc_block_exact_add(sum, v, count, &sh.ex, planned);
                c++;
                /* a chunk inside a segment that failed: the rest of the
                 * segment's chunks are tried one by one (seg_len 0 there) */
            }
        }
        __syncthreads();
    }
#undef WALK_LOAD
    if (threadIdx.x == 0)
        out[d.out] = sum;
}

/* ------------------------------------------------------------ launcher */

int eqc_sums_launch(EqCuda *cuda, const EqcSumDesc *descs, int nsums, double *dout,
                    cudaStream_t stream)
{
    int err = 0;
    EqcSumTable *ht, *dt;
    long long total = 0, groups = 0;

    if (nsums <= 0)
        return 0;
    if (nsums > EQC_MAX_SUMS || cuda->table_next >= EQC_TABLE_SLOTS) {
        eq_log(&cuda->log, EQ_LOG_ERROR, "internal: too many sums for one frame");
        return EQ_ERR_INTERNAL;
    }
    ht = &cuda->htables[cuda->table_next];
    dt = &cuda->dtables[cuda->table_next];
    cuda->table_next++;
    memset(ht, 0, sizeof(*ht));
    ht->nsums = nsums;
    for (int i = 0; i < nsums; i++) {
        ht->d[i] = descs[i];
        ht->chunk_off[i] = total;
        ht->group_off[i] = groups;
        long long nch = (descs[i].n + EQC_ORD_CHUNK - 1) / EQC_ORD_CHUNK;
        if (nch == 0)
            nch = 1; /* an empty sum still has one (empty) chunk: the walk writes +0.0 */
        total += nch;
        groups += (nch + EQC_ORD_SEG - 1) / EQC_ORD_SEG;
    }
    ht->chunk_off[nsums] = total;
    ht->group_off[nsums] = groups;

    const size_t need =
        (size_t)total * (sizeof(double) + 2 * sizeof(int) + 2 * sizeof(EqOrdRun) + 1);
    if ((err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_SUM_A], need)) < 0)
        return err;
    {
        uint8_t *base = (uint8_t *)cuda->scratch[EQC_SCRATCH_SUM_A].ptr;
        EqOrdRun *runs = (EqOrdRun *)base;
        EqOrdRun *seg = runs + total;
        double *chunk_sum = (double *)(seg + total);
        int *plan = (int *)(chunk_sum + total);
        int *seg_len = plan + total;
        unsigned char *zero = (unsigned char *)(seg_len + total);
        cuda->last_sums = (EqcSumScratch){ chunk_sum, plan, runs, seg, seg_len, total };

        EQC_CHECK(cuda, EQC_SITE_COPY,
                  cudaMemcpyAsync(dt, ht, sizeof(*ht), cudaMemcpyHostToDevice, stream));
        ord_chunk_sums_kernel<<<(unsigned)((total + RUNS_WARPS - 1) / RUNS_WARPS),
                                32 * RUNS_WARPS, 0, stream>>>(dt, chunk_sum, zero, total);
        EQC_CHECK_LAUNCH(cuda, "ord_chunk_sums_kernel");
        const int tree = cuda->sum_mode == EQ_CUDA_SUM_TREE;
        ord_plan_kernel<<<nsums, EQC_ORD_LANES, 0, stream>>>(dt, chunk_sum, plan, dout, tree);
        EQC_CHECK_LAUNCH(cuda, "ord_plan_kernel");
        if (tree)
            return 0;
        ord_chunk_runs_kernel<<<(unsigned)((total + RUNS_WARPS - 1) / RUNS_WARPS),
                                32 * RUNS_WARPS, 0, stream>>>(dt, plan, runs, total,
                                                              cuda->runs_no_fast);
        EQC_CHECK_LAUNCH(cuda, "ord_chunk_runs_kernel");
        ord_segments_kernel<<<(unsigned)groups, EQC_ORD_SEG, 0, stream>>>(dt, plan, runs, seg,
                                                                          seg_len);
        EQC_CHECK_LAUNCH(cuda, "ord_segments_kernel");
        ord_walk_kernel<<<nsums, EQC_ORD_LANES, 0, stream>>>(dt, plan, runs, seg, seg_len, zero,
                                                            dout, cuda->walk_none_plan,
                                                            cuda->walk_planned);
        EQC_CHECK_LAUNCH(cuda, "ord_walk_kernel");
    }
    return 0;
fail:
    return err;
}

/* ------------------------------------------------------------ stage */

extern "C" size_t eq_cuda_stage_ordsum_chunks(size_t n)
{
    size_t c = (n + EQC_ORD_CHUNK - 1) / EQC_ORD_CHUNK;
    return c ? c : 1;
}

extern "C" int eq_cuda_stage_ordsum(EqCuda *cuda, const EqCudaSumCase *cases, int ncases,
                                    int flags, double *sums,
                                    EqCudaSumPartials *partials)
{
    EqcSumDesc desc[EQC_MAX_SUMS];
    size_t total_terms = 0, off = 0;
    int err = 0;
    const int none_plan = flags & EQ_CUDA_STAGE_SUM_NONE_PLAN;

    if (ncases <= 0 || ncases > EQC_MAX_SUMS)
        return EQ_ERR_INVALID_ARGUMENT;
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaSetDevice(cuda->device));
    for (int i = 0; i < ncases; i++)
        total_terms += cases[i].n ? (cases[i].n - 1) * (size_t)cases[i].stride + 1 : 0;
    if ((err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_SUM_B],
                               (total_terms + 1) * sizeof(double))) < 0)
        return err;
    for (int i = 0; i < ncases; i++) {
        double *dx = (double *)cuda->scratch[EQC_SCRATCH_SUM_B].ptr + off;
        size_t len = cases[i].n ? (cases[i].n - 1) * (size_t)cases[i].stride + 1 : 0;
        if (len)
            EQC_CHECK(cuda, EQC_SITE_COPY,
                      cudaMemcpyAsync(dx, cases[i].x, len * sizeof(double),
                                      cudaMemcpyHostToDevice, cuda->stream));
        desc[i].x = dx;
        desc[i].n = (long long)cases[i].n;
        desc[i].stride = cases[i].stride;
        desc[i].out = i;
        desc[i].kind = cases[i].kind;
        off += len;
    }
    cuda->table_next = 0;
    cuda->walk_none_plan = none_plan;
    cuda->runs_no_fast = !!(flags & EQ_CUDA_STAGE_SUM_PAIRS);
    err = eqc_sums_launch(cuda, desc, ncases, cuda->dres->sums, cuda->stream);
    cuda->walk_none_plan = 0;
    cuda->runs_no_fast = 0;
    if (err < 0)
        goto fail;
    EQC_CHECK(cuda, EQC_SITE_COPY,
              cudaMemcpyAsync(cuda->hres, cuda->dres, sizeof(EqcResults),
                              cudaMemcpyDeviceToHost, cuda->stream));
    if (partials) {
        const EqcSumScratch *p = &cuda->last_sums;
        size_t n = (size_t)p->total;
        EQC_CHECK(cuda, EQC_SITE_COPY,
                  cudaMemcpyAsync(partials->chunk_sum, p->chunk_sum, n * sizeof(double),
                                  cudaMemcpyDeviceToHost, cuda->stream));
        if (cuda->sum_mode == EQ_CUDA_SUM_EXACT) {
            EQC_CHECK(cuda, EQC_SITE_COPY,
                      cudaMemcpyAsync(partials->plan, p->plan, n * sizeof(int),
                                      cudaMemcpyDeviceToHost, cuda->stream));
            EQC_CHECK(cuda, EQC_SITE_COPY,
                      cudaMemcpyAsync(partials->runs, p->runs, n * sizeof(EqOrdRun),
                                      cudaMemcpyDeviceToHost, cuda->stream));
            EQC_CHECK(cuda, EQC_SITE_COPY,
                      cudaMemcpyAsync(partials->seg, p->seg, n * sizeof(EqOrdRun),
                                      cudaMemcpyDeviceToHost, cuda->stream));
            EQC_CHECK(cuda, EQC_SITE_COPY,
                      cudaMemcpyAsync(partials->seg_len, p->seg_len, n * sizeof(int),
                                      cudaMemcpyDeviceToHost, cuda->stream));
        }
    }
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaStreamSynchronize(cuda->stream));
    for (int i = 0; i < ncases; i++)
        sums[i] = cuda->hres->sums[i];
    return 0;
fail:
    cudaStreamSynchronize(cuda->stream);
    (void)cudaGetLastError();
    return err;
}
