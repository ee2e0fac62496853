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

static __device__ __forceinline__ double term_of(int kind, double x)
{
    switch (kind) {
    case EQC_TERM_QUARTIC: return eq_s2_quartic(x);
    case EQC_TERM_ARTIFACT: return eq_s2_artifact(x);
    case EQC_TERM_ARTIFACT4: return eq_s2_quartic(eq_s2_artifact(x));
    case EQC_TERM_DETAIL: return eq_s2_detail(x);
    case EQC_TERM_DETAIL4: return eq_s2_quartic(eq_s2_detail(x));
    default: return x;
    }
}

static __device__ __forceinline__ void load_terms(const EqcSumDesc &d, long long c,
                                                  double v[EQC_ORD_TPL], int *nt)
{
    long long i0 = c * EQC_ORD_CHUNK + (long long)threadIdx.x * EQC_ORD_TPL;
    int k = 0;
    for (int j = 0; j < EQC_ORD_TPL; j++) {
        long long i = i0 + j;
        v[j] = 0.0;
        if (i < d.n) {
            v[j] = term_of(d.kind, d.x[i * d.stride]);
            k++;
        }
    }
    *nt = k;
}

/* Approximate sum of each chunk, in eq_ordsum_chunk_sums()'s grouping:
 * lanes in order over their terms, the ordered tree inside each group of
 * 64 lanes, the groups in order. */
__global__ void __launch_bounds__(EQC_ORD_LANES)
ord_chunk_sums_kernel(const EqcSumTable *t, double *chunk_sum, unsigned char *zero)
{
    __shared__ double group[EQC_ORD_LANES / 64 * 2];
    const long long g = blockIdx.x;
    const int s = sum_of_chunk(t, g);
    const EqcSumDesc d = t->d[s];
    const long long c = g - t->chunk_off[s];
    double v[EQC_ORD_TPL];
    int nt;

    load_terms(d, c, v, &nt);
    double ls = 0.0;
    int nonzero = 0;
    for (int j = 0; j < EQC_ORD_TPL; j++)
        if (j < nt) {
            ls += v[j];
            nonzero |= v[j] != 0.0;
        }
    nonzero = __syncthreads_or(nonzero);
    /* tree inside 32 lanes, then warp pairs (64 lanes) */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int k = 1; k < 32; k *= 2) {
        double o = __shfl_down_sync(0xffffffffu, ls, k);
        if ((lane & (2 * k - 1)) == 0)
            ls += o;
    }
    if (lane == 0)
        group[warp] = ls;
    __syncthreads();
    if (threadIdx.x == 0) {
        double acc = 0.0;
        for (int w = 0; w < EQC_ORD_WARPS; w += 2)
            acc += group[w] + group[w + 1];
        chunk_sum[g] = acc;
        zero[g] = !nonzero;
    }
}

/* Per sum: the plan (binade of the approximate prefix before each chunk;
 * the scan's grouping is advice) or, in tree mode, the tree total. */
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
        plan[off + c] = eq_ord_plan_binade(prefix);
        prefix += chunk_sum[off + c];
    }
}

/* Per chunk: lanes compose their terms in order under the chunk's binade,
 * the lanes by the ordered tree (eq_ordsum_chunk_runs()). */
__global__ void __launch_bounds__(EQC_ORD_LANES)
ord_chunk_runs_kernel(const EqcSumTable *t, const int *plan, EqOrdRun *runs)
{
    __shared__ EqOrdRun sh[EQC_ORD_WARPS];
    const long long g = blockIdx.x;
    const int s = sum_of_chunk(t, g);
    const EqcSumDesc d = t->d[s];
    const long long c = g - t->chunk_off[s];
    const int e = plan[g];
    if (e == EQ_ORD_NONE) {
        if (threadIdx.x == 0)
            runs[g] = eq_ord_poison();
        return;
    }
    double v[EQC_ORD_TPL];
    int nt;
    load_terms(d, c, v, &nt);
    /* eq_ord_run_terms' composition from the empty run; the first step,
     * compose(empty, t), is t itself (a term's entries are within +-2^53
     * or poisoned), so it starts from the first term's run. */
    EqOrdRun r = nt > 0 ? eq_ord_term(v[0], e) : eq_ord_empty();
    for (int j = 1; j < EQC_ORD_TPL; j++)
        if (j < nt)
            r = eq_ord_compose(r, eq_ord_term(v[j], e));
    r = eqc_block_tree(r, sh);
    if (threadIdx.x == 0)
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

    for (long long base = 0; base < nch; base += WALK_BATCH) {
        const int nb = nch - base < WALK_BATCH ? (int)(nch - base) : WALK_BATCH;
        for (int i = threadIdx.x; i < nb; i += blockDim.x) {
            sh.plan[i] = none_plan ? EQ_ORD_NONE : plan[off + base + i];
            sh.seg_len[i] = none_plan ? 0 : seg_len[off + base + i];
            sh.zero[i] = none_plan ? 0 : zero[off + base + i];
            sh.run[i] = runs[off + base + i];
            if (sh.seg_len[i] > 1)
                sh.seg[i] = seg[off + base + i];
        }
        __syncthreads();
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
        ord_chunk_sums_kernel<<<(unsigned)total, EQC_ORD_LANES, 0, stream>>>(dt, chunk_sum,
                                                                              zero);
        EQC_CHECK_LAUNCH(cuda, "ord_chunk_sums_kernel");
        const int tree = cuda->sum_mode == EQ_CUDA_SUM_TREE;
        ord_plan_kernel<<<nsums, EQC_ORD_LANES, 0, stream>>>(dt, chunk_sum, plan, dout, tree);
        EQC_CHECK_LAUNCH(cuda, "ord_plan_kernel");
        if (tree)
            return 0;
        ord_chunk_runs_kernel<<<(unsigned)total, EQC_ORD_LANES, 0, stream>>>(dt, plan, runs);
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
                                    int none_plan, double *sums,
                                    EqCudaSumPartials *partials)
{
    EqcSumDesc desc[EQC_MAX_SUMS];
    size_t total_terms = 0, off = 0;
    int err = 0;

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
    err = eqc_sums_launch(cuda, desc, ncases, cuda->dres->sums, cuda->stream);
    cuda->walk_none_plan = 0;
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
