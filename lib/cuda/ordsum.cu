/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The ordered-sum engine's kernels and their launcher (the design is in
 * ordsum.cuh). A metric hands over up to EQC_MAX_SUMS sums of device terms
 * at once; the engine leaves each sum's double in the frame's results.
 */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/ordsum.cuh"
#include "exact/ssimulacra2.h"

/* Programmatic dependent launch (sm_90): the engine's kernels after the
 * first are launched with programmatic stream serialization, so that the
 * next kernel's launch is prepared while this one's last blocks run. Only
 * the fused small-launch kernel triggers that launch early
 * (griddepcontrol.launch_dependents), for the small walk's few blocks
 * (EQ_CUDA_EARLYWALK_ENV, session 22): a large kernel's followers would
 * sit waiting on multiprocessors that other streams' kernels could use,
 * which on the H200 was slower (docs/performance.md, session 9). Every
 * kernel launched so waits, before its first read of anything the kernel
 * before wrote, until that kernel has completed and its writes are
 * visible (griddepcontrol.wait: the stream order's guarantee). Launched
 * the ordinary way, the wait does nothing. */
static __device__ __forceinline__ void pdl_wait(void)
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
}

template <typename... Params, typename... Args>
static cudaError_t launch_pdl_smem(void (*kernel)(Params...), unsigned grid, unsigned block,
                                   size_t smem, cudaStream_t stream, Args... args)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, kernel, static_cast<Params>(args)...);
}

template <typename... Params, typename... Args>
static cudaError_t launch_pdl(void (*kernel)(Params...), unsigned grid, unsigned block,
                              cudaStream_t stream, Args... args)
{
    return launch_pdl_smem(kernel, grid, block, 0, stream, args...);
}

/* The last index i of 0 .. n - 1 with off(i) <= w, off rising with i
 * (binary search; 0 when there is none): the sum or plane group that a
 * chunk, segment group or warp index w belongs to, off(i) being its first. */
template <typename Off>
static __device__ __forceinline__ int last_at_most(int n, long long w, Off off)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if (off(mid) <= w)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* eq_s2_term of the kind KIND on K values in place (the formula folded
 * in at compile time). */
template <int KIND, int K>
static __device__ __forceinline__ void terms_as(double v[K])
{
#pragma unroll
    for (int j = 0; j < K; j++)
        v[j] = eq_s2_term(KIND, v[j]);
}

/* The term of kind `kind` (EQC_TERM_*: eq_s2_term) on K values in place,
 * the (block-uniform) kind tested once: the loads before it then issue
 * together instead of one branch at a time. Kind X (and any other) leaves
 * the values as they are. A value 0.0 stays +0.0 for every kind. */
template <int K>
static __device__ __forceinline__ void terms_of(int kind, double v[K])
{
    switch (kind) {
    case EQC_TERM_QUARTIC:
        terms_as<EQC_TERM_QUARTIC, K>(v);
        break;
    case EQC_TERM_ARTIFACT:
        terms_as<EQC_TERM_ARTIFACT, K>(v);
        break;
    case EQC_TERM_ARTIFACT4:
        terms_as<EQC_TERM_ARTIFACT4, K>(v);
        break;
    case EQC_TERM_DETAIL:
        terms_as<EQC_TERM_DETAIL, K>(v);
        break;
    case EQC_TERM_DETAIL4:
        terms_as<EQC_TERM_DETAIL4, K>(v);
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

/* Where value i of a staged chunk lies (stage_chunk): row i / 32, column
 * i % 32, rows of RUNS_ROW doubles. */
static __device__ __forceinline__ int staged_at(int i)
{
    return (i >> 5) * RUNS_ROW + (i & 31);
}
#define SPLIT_NT 256 /* a block's threads on one split chunk (ord_runs_again_kernel) */
/* launches of at most this many chunks split by a block (EQ_CUDA_SPLIT_ENV) */
#define EQC_SPLIT_BLOCK_MAX 2048
/* which launches ord_small_chunks_kernel takes, a block a chunk
 * (eq_cuda_fused_launch, lib/cuda/cuda.h; EQ_CUDA_FUSED_ENV): a thread of
 * the block per chunk of a sum */
static_assert(EQ_CUDA_FUSED_SUM_CHUNKS == EQC_ORD_LANES, "a thread per chunk of a sum");
/* split_idx of a sum's first chunk that ord_small_chunks_kernel added
 * itself (EQ_CUDA_PREWALK_ENV), or ord_chunk_runs_kernel for the large
 * walk's chain (EQ_CUDA_BIGCHAIN_ENV): no split record, the sum in
 * first_sum */
#define EQC_SPLIT_PREWALKED (-2)
/* split_idx of a chunk with a crossing record (EQ_CUDA_CROSSREC_ENV): the
 * record is cross[chunk], no split record */
#define EQC_SPLIT_CROSSREC (-3)
/* the table's counters of crossing records: made (and walked), of those
 * formed before the fused kernel's wait, applied whole, handed to the
 * block part way */
enum { EQC_CNT_CROSS = 5, EQC_CNT_CROSS_EARLY, EQC_CNT_CROSS_APPLIED, EQC_CNT_CROSS_FAILED };
static_assert(sizeof(EqCudaCross) % 16 == 0, "crossing records copied in 16-byte words");
/* the fused kernel's ready flags: one per chunk of a launch at most
 * (EQC_MAX_SUMS sums of EQC_ORD_LANES chunks: a fused launch's largest,
 * forced fused included), at the start of the engine's buffer */
#define EQC_READY_FLAGS ((size_t)EQC_MAX_SUMS * EQC_ORD_LANES)
/* and after them as many of each of the chunks' flags for the small walk
 * (EQ_CUDA_FEDWALK_ENV): run and plan written, all written */
#define EQC_READY_BYTES (3 * EQC_READY_FLAGS * sizeof(unsigned))

/* A chunk of x (count >= 1 values) into shared rows by NT threads (a warp,
 * or the block's first NT threads), each value as the term of `kind`
 * (terms_of; X: as it is): 16 loads of a thread in flight at once (clamped
 * index, no branch), as often as it takes; values past the end are 0.0.
 * Value i lands at row i / 32, column i % 32: lane l of a warp then finds
 * the chunk's values 32l .. 32l+31 at st + l * RUNS_ROW (rows of 33
 * doubles: the stores and the lanes' reads are free of bank conflicts).
 * The sums of a plane group form their terms from these values
 * (rows_to_terms). Ends with the threads' barrier. */
template <int NT = 32>
static __device__ __forceinline__ void stage_chunk(const EqcSumDesc &d, long long first,
                                                   int count, double *st, int tid,
                                                   int kind = EQC_TERM_X)
{
    constexpr int PER = EQC_ORD_CHUNK / NT, B = PER < 16 ? PER : 16;
    const double *x = d.x + first * d.stride;
    const bool whole = count == EQC_ORD_CHUNK && d.stride == 1;
#pragma unroll
    for (int h = 0; h < PER; h += B) {
        double raw[B];
        if (whole) {
            /* a whole chunk of contiguous terms: constant offsets */
#pragma unroll
            for (int j = 0; j < B; j++)
                raw[j] = x[(h + j) * NT + tid];
        } else {
#pragma unroll
            for (int j = 0; j < B; j++) {
                const int i = (h + j) * NT + tid;
                raw[j] = x[(long long)(i < count ? i : count - 1) * d.stride];
                raw[j] = i < count ? raw[j] : 0.0;
            }
        }
        terms_of<B>(kind, raw);
#pragma unroll
        for (int j = 0; j < B; j++) {
            const int i = (h + j) * NT + tid;
            st[NT == 32 ? (h + j) * RUNS_ROW + tid : staged_at(i)] = raw[j];
        }
    }
    if (NT == 32)
        __syncwarp();
    else
        __syncthreads();
}

/* Warp G's plane group, its chunk c and the chunk's count of values
 * (<= 0: an empty sum's one chunk). */
struct GroupChunk {
    int s0, k;       /* sums s0 .. s0 + k - 1 */
    long long c, first;
    int count;
};

/* The prologue both chunk kernels share: warp W of the grid (RUNS_WARPS
 * to a block) takes chunk c of a plane group, for all k sums of the group
 * (per_sum 0: W = gchunk_off[group] + c; *j0 = 0, *j1 = k) or for its sum j
 * alone (per_sum 1, the runs kernel's small launches: W = chunk_off[gfirst]
 * + c * k + j, so that the k warps of one chunk are neighbours and the
 * second and later stagings of the chunk hit the cache; *j0 = j,
 * *j1 = j + 1). Returns false when the warp has nothing to stage: W past
 * the last chunk (whole warps return, so the kernels have no block
 * barrier), or an empty sum's one chunk, for which lane 0 calls empty(g)
 * with the chunk index g of each of its sums. */
template <typename Empty>
static __device__ __forceinline__ bool warp_chunk(const EqcSumTable *t, long long total,
                                                  int per_sum, GroupChunk *q, int *j0, int *j1,
                                                  Empty empty)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long W = (long long)blockIdx.x * RUNS_WARPS + warp;
    if (W >= total)
        return false;
    int gi;
    if (per_sum) {
        gi = last_at_most(t->ngroups, W, [&](int g) { return t->chunk_off[t->gfirst[g]]; });
        const long long local = W - t->chunk_off[t->gfirst[gi]];
        q->c = local / t->gcount[gi];
        *j0 = (int)(local % t->gcount[gi]);
        *j1 = *j0 + 1;
    } else {
        gi = last_at_most(t->ngroups, W, [&](int g) { return t->gchunk_off[g]; });
        q->c = W - t->gchunk_off[gi];
        *j0 = 0;
        *j1 = t->gcount[gi];
    }
    q->s0 = t->gfirst[gi];
    q->k = t->gcount[gi];
    q->first = q->c * EQC_ORD_CHUNK;
    const long long n = t->d[q->s0].n;
    q->count = n - q->first < EQC_ORD_CHUNK ? (int)(n - q->first) : EQC_ORD_CHUNK;
    if (q->count <= 0) {
        if (lane == 0)
            for (int j = *j0; j < *j1; j++)
                empty(t->chunk_off[q->s0 + j] + q->c);
        return false;
    }
    return true;
}

/* Up to this many chunks in a launch, the runs kernel takes a warp per
 * chunk of each sum: the launch is short, and its chunks planned term by
 * term (k of them at the same chunk index of a plane group of k sums)
 * would otherwise add up in one warp, the kernel's last. Above it, a warp
 * per chunk of a plane group: one staging of the terms for k sums, less
 * traffic where the kernel is bound by its throughput. On the H200
 * (docs/performance.md, session 8) per sum took SSIMULACRA2 at 576x324 from
 * 0.29 to 0.24 ms and at 1080p (36450 and 12168 chunks) from 0.88 to 0.85;
 * at 4K (145800 and 48582) group was faster, 2.70 against 2.76-2.78. Since
 * then (session 20) group is faster at 1080p too (0.698-0.705 against
 * 0.710-0.723 ms) and still slower at 576x324 (3294 and 1152 chunks:
 * 0.248-0.258 against 0.239-0.249); with 8192, 720p (16200 chunks at scale
 * 0 in groups, 5400 per sum) 0.443-0.445 against 0.445-0.449. */
#define EQC_RUNS_PER_SUM_MAX 8192

/* chunk_sum_of's steps across the lanes (8, 16 and 32 of the tree, then
 * the groups in order from 0.0), from each lane's part g[i] (the tree's
 * first three steps inside the lane), for N sums at once (their shuffles
 * interleaved: one chain of latencies for all): lane 0's acc[i] is sum
 * i's. */
template <int N>
static __device__ __forceinline__ void chunk_sum_lanes(const double *gsum, int lane,
                                                       double *acc)
{
    double g[N];
#pragma unroll
    for (int i = 0; i < N; i++)
        g[i] = gsum[i];
#pragma unroll
    for (int k = 1; k < 8; k *= 2) {
        double o[N];
#pragma unroll
        for (int i = 0; i < N; i++)
            o[i] = __shfl_down_sync(0xffffffffu, g[i], k);
        if ((lane & (2 * k - 1)) == 0)
#pragma unroll
            for (int i = 0; i < N; i++)
                g[i] += o[i];
    }
#pragma unroll
    for (int i = 0; i < N; i++) {
        const double g1 = __shfl_sync(0xffffffffu, g[i], 8),
                     g2 = __shfl_sync(0xffffffffu, g[i], 16),
                     g3 = __shfl_sync(0xffffffffu, g[i], 24);
        double a = 0.0;
        a += g[i];
        a += g1;
        a += g2;
        a += g3;
        acc[i] = a;
    }
}

/* Approximate sum of a chunk, in eq_ordsum_chunk_sums()'s grouping: the
 * chunk's 256 "lanes" of 4 terms each add their terms in order from 0.0,
 * the ordered tree inside each group of 64 lanes, the groups in order from
 * 0.0. Lane l holds the lanes 8l .. 8l+7 (the chunk's values 32l ..
 * 32l+31 at `mine`, whose terms of kind `kind` it forms as it reads them)
 * and does the tree's first three steps itself, the next three across
 * lanes (a group of 64 lanes is 8 warp lanes). The sum is lane 0's;
 * *nonzero (every lane): some term of the chunk is not 0.0. */
static __device__ __forceinline__ double chunk_sum_of(const double *mine, int kind, int lane,
                                                      int *nonzero)
{
    double ls[8];
    int nz = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        double v[EQC_ORD_TPL], a = 0.0;
#pragma unroll
        for (int u = 0; u < EQC_ORD_TPL; u++)
            v[u] = mine[i * EQC_ORD_TPL + u];
        terms_of<EQC_ORD_TPL>(kind, v);
#pragma unroll
        for (int u = 0; u < EQC_ORD_TPL; u++) {
            a += v[u]; /* past the end: lane sums of 0.0 terms, as the host's */
            nz |= v[u] != 0.0;
        }
        ls[i] = a;
    }
    /* steps 1, 2, 4 of the tree inside the lane */
#pragma unroll
    for (int k = 1; k < 8; k *= 2)
#pragma unroll
        for (int i = 0; i + k < 8; i += 2 * k)
            ls[i] += ls[i + k];
    *nonzero = __any_sync(0xffffffffu, nz);
    double acc;
    chunk_sum_lanes<1>(ls, lane, &acc);
    return acc;
}

/* Each chunk's approximate sum (chunk_sum_of) and its "every term zero"
 * flag: one warp per chunk of a plane group, staged once for the group's
 * sums. Also clears the count of chunks formed again (a fresh plan forms
 * none). */
__global__ void __launch_bounds__(32 * RUNS_WARPS, 6)
ord_chunk_sums_kernel(const EqcSumTable *t, double *chunk_sum, unsigned char *zero,
                      long long total, int *counters)
{
    __shared__ double stage[RUNS_WARPS][32 * RUNS_ROW];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        counters[3] = 0;
    GroupChunk q;
    int j0, j1;
    if (!warp_chunk(t, total, 0, &q, &j0, &j1, [&](long long g) {
            chunk_sum[g] = 0.0; /* an empty sum's one chunk */
            zero[g] = 1;
        }))
        return;
    double *st = stage[warp];
    stage_chunk(t->d[q.s0], q.first, q.count, st, lane);
    const double *mine = st + lane * RUNS_ROW;
    for (int j = 0; j < q.k; j++) {
        int nonzero;
        const double acc = chunk_sum_of(mine, t->d[q.s0 + j].kind, lane, &nonzero);
        if (lane == 0) {
            const long long g = t->chunk_off[q.s0 + j] + q.c;
            chunk_sum[g] = acc;
            zero[g] = !nonzero;
        }
    }
}

/* The exclusive scan of a total per thread over a block of LANES
 * (`local` this thread's; wtot: shared, a double a warp): this thread's
 * prefix. eqc_excl_dsum: a warp's shuffles, one barrier, then the totals
 * of the warps before in order. Advice only (the plan), but the same bits
 * in every kernel that plans: the scan's value at thread i reads no total
 * after i's, so a kernel may leave those 0.0, and a block of 1024 gives
 * its first 256 threads what a block of 256 gives. */
template <int LANES>
static __device__ __forceinline__ double plan_prefix(double *wtot, double local)
{
    return eqc_excl_dsum<LANES>(local, wtot);
}

template <int LANES>
__global__ void __launch_bounds__(LANES)
ord_plan_kernel(const EqcSumTable *t, const double *chunk_sum, int *plan, double *approx,
                double *out, int tree_mode, int *counters, const int *prev, int *again,
                int first_pre)
{
    __shared__ double part[LANES];
    const int s = blockIdx.x;
    pdl_wait();
    if (!tree_mode && s == 0 && threadIdx.x < 4) /* split records: made, applied, */
        counters[threadIdx.x < 3 ? threadIdx.x : 4] = 0; /* failed; sums as one chain */
    const long long off = t->chunk_off[s], nch = t->chunk_off[s + 1] - off;
    const long long per = (nch + LANES - 1) / LANES;
    const long long a = threadIdx.x * per, b = a + per < nch ? a + per : nch;
    double local = 0.0;
    for (long long c = a; c < b; c++)
        local += chunk_sum[off + c];
    if (tree_mode) {
        part[threadIdx.x] = local;
        __syncthreads();
        for (int k = LANES / 2; k > 0; k >>= 1) {
            if (threadIdx.x < k)
                part[threadIdx.x] += part[threadIdx.x + k];
            __syncthreads();
        }
        if (threadIdx.x == 0)
            out[t->d[s].out] = part[0];
        return;
    }
    double prefix = plan_prefix<LANES>(part, local);
    for (long long c = a; c < b; c++) {
        const double next = prefix + chunk_sum[off + c];
        const int e = eq_ord_plan_chunk(prefix, next);
        plan[off + c] = e;
        if (e == EQ_ORD_NONE)
            approx[off + c] = prefix; /* for the chunk's split record */
        /* formed again: a chunk planned term by term, or otherwise than
         * before; but a first chunk that the runs kernel added under the
         * kept plan (first_pre: the large walk's chain starts from it) */
        const bool pre =
            prev && first_pre && c == 0 && e == EQ_ORD_NONE && prev[off] == EQ_ORD_NONE;
        if (prev && (e == EQ_ORD_NONE || e != prev[off + c]) && !pre)
            again[atomicAdd(&counters[3], 1)] = (int)(off + c);
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

/* ---- split records (EqCudaSplit, lib/cuda/cuda.h) ---- */

/* A term's code (its piece's binade, or EQ_CUDA_SPLIT_CROSS) and where a
 * piece starts: eq_ord_split_code and EQ_ORD_SPLIT_HEAD
 * (lib/exact/ordsum.h), SPLIT_NOCODE before a chunk's first non-zero
 * term. */
#define SPLIT_NOCODE EQ_ORD_SPLIT_NOCODE
static_assert(EQ_CUDA_SPLIT_CROSS == EQ_ORD_CROSS, "a crossing piece's code");

#define SPLIT_TIES EQ_CUDA_SPLIT_FAST_TIES
struct SplitTie {
    long long pre; /* tie-free increments of the chunk before the term */
    long long r0, r1; /* its increments after an even and an odd sum */
    int p, pos;       /* its piece and its index in the chunk */
};
struct SplitHeads {
    long long inc; /* tie-free increments */
    int nh;        /* piece heads */
};
/* The scratch of a split chunk formed by a whole block (split_chunk with
 * NT > 32). */
struct SplitShared {
    double base[32];
    EqOrdSegRun wseg[SPLIT_NT / 32];
    int wint[SPLIT_NT / 32];
    SplitHeads whi[SPLIT_NT / 32];
    int slot;
    /* the fast path (split_fast_pieces): each piece's code, the tie-free
     * increments before its head, its head's increments for both
     * parities; the exact halves (in term order in `sorted`) */
    int pe[EQ_CUDA_SPLIT_MAX];
    long long pstart[EQ_CUDA_SPLIT_MAX];
    long long first[EQ_CUDA_SPLIT_MAX][2];
    SplitTie tie[SPLIT_TIES], sorted[SPLIT_TIES];
    int ntie;
};

/*
 * The pieces' runs of a split chunk whose run terms are all positive
 * (eq_ord_rising_term, no SLOW term), by a block of NT threads, instead of
 * the segmented scan of pair runs. Each piece is a rising stretch
 * (lib/exact/ordsum.h: eq_ord_rising_parity, eq_ord_rising_entry, held to
 * eq_ord_push by test_ordsum): its run needs no prefix of runs, only of
 * integers. A term that is not an exact half adds the same for both
 * parities: those are the tie-free increments, whose exclusive prefix over
 * the chunk (tf_base for this thread, tf_all in all) came with the heads'
 * scan; a piece's own are the difference of two such prefixes. A thread
 * per piece walks its exact halves in term order, each taking its
 * increment for the parity of the sum before it. Up to SPLIT_TIES halves a
 * chunk; with more, returns false (every thread alike) having written only
 * what the general path writes the same (each piece's e, start and x).
 * `mine`: the thread's tpt terms from term index t0, `base` the
 * approximate prefix before them, prev_in the code before them, pb the
 * pieces that start before them.
 */
static __device__ __forceinline__ bool split_fast_pieces(const double *mine, int tpt,
                                                         double base, int prev_in, int pb,
                                                         int np, long long tf_base,
                                                         long long tf_all, int t0,
                                                         EqCudaSplit *rec, SplitShared *sh)
{
    {
        double cur = base;
        long long pre = tf_base;
        int c = prev_in, p = pb - 1;
        for (int k = 0; k < tpt; k++) {
            const double x = mine[k];
            if (x == 0.0)
                continue;
            const int code = eq_ord_split_code(cur, x);
            const bool head = EQ_ORD_SPLIT_HEAD(code, c);
            if (head) {
                p++;
                rec->p[p].e = code;
                rec->p[p].start = t0 + k;
                rec->p[p].x = x;
                sh->pe[p] = code;
                sh->pstart[p] = pre;
            }
            if (code != EQ_CUDA_SPLIT_CROSS) {
                int64_t inc = 0;
                if (eq_ord_rising_term(x, code, &inc) == EQ_ORD_RISING_OK) {
                    if (head)
                        sh->first[p][0] = sh->first[p][1] = inc;
                    pre += inc;
                } else {
                    const EqOrdRun r = eq_ord_term(x, code);
                    if (head) {
                        sh->first[p][0] = r.d[0];
                        sh->first[p][1] = r.d[1];
                    }
                    const int j = atomicAdd(&sh->ntie, 1);
                    if (j < SPLIT_TIES)
                        sh->tie[j] = SplitTie{ pre, r.d[0], r.d[1], p, t0 + k };
                }
            }
            c = code;
            cur += x;
        }
    }
    __syncthreads();
    const int nt = sh->ntie;
    if (nt > SPLIT_TIES)
        return false;
    const int t = threadIdx.x;
    if (nt > 0) {
        /* the halves in term order: each by its rank */
        if (t < nt) {
            const int pos = sh->tie[t].pos;
            int rank = 0;
            for (int j = 0; j < nt; j++)
                rank += sh->tie[j].pos < pos;
            sh->sorted[rank] = sh->tie[t];
        }
        __syncthreads();
    }
    if (t < np && sh->pe[t] != EQ_CUDA_SPLIT_CROSS) {
        const long long s0 = sh->pstart[t];
        const long long tf_run = (t + 1 < np ? sh->pstart[t + 1] : tf_all) - s0;
        EqOrdRun r;
        for (int par = 0; par < 2; par++) {
            long long acc = 0;
            for (int j = 0; j < nt; j++) {
                const SplitTie &h = sh->sorted[j];
                if (h.p != t)
                    continue;
                const int odd = eq_ord_rising_parity(par, h.pre - s0, acc);
                acc += odd ? h.r1 : h.r0;
            }
            eq_ord_rising_entry(&r, par, tf_run + acc, sh->first[t][par]);
        }
        rec->p[t].run = r;
    }
    return true;
}

/* An inclusive scan of v over the warp in doubles: eq_ord_warp_scan_sum's
 * steps (lane j adds lane j - o's value to its own) */
static __device__ __forceinline__ double warp_scan_sum(double v, int lane)
{
    for (int o = 1; o < 32; o *= 2) {
        const double y = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o)
            v += y;
    }
    return v;
}

/*
 * NT threads (one warp, or a block of SPLIT_NT) split a staged chunk (row
 * l of `st`: terms 32l .. 32l+31) into pieces, with `approx` the
 * approximate sum before the chunk (the plan's prefix). Thread i takes
 * row i / (NT / 32), a stretch of 32 / (NT / 32) of its terms. The
 * approximate prefix inside the chunk is advice: the rows' totals and a
 * warp scan of them, then each term's add in its row, the same values
 * whatever NT (so the same pieces). Each non-zero term gets its code
 * (eq_ord_split_code); a piece starts at every crossing term and wherever the
 * code changes. The pieces' runs are composed across threads by a
 * segmented scan: a thread closes the pieces that start and end in it, its
 * first head closes the piece open from the threads before it (their
 * carried run), the last thread closes the last one. Returns the record's
 * index in the pool, or -1 (too many pieces, pool full); with NT > 32 the
 * whole block calls it and gets the same result.
 */
template <int NT>
static __device__ int split_chunk(const double *st, double approx, EqCudaSplit *pool,
                                  int pool_cap, int *counters, SplitShared *sh)
{
    constexpr int SUB = NT / 32, TPT = 32 / SUB; /* threads a row, terms a thread */
    const int lane = threadIdx.x & 31, t = NT > 32 ? (int)threadIdx.x : lane;
    const int row = t / SUB, q = t % SUB;
    const auto upi = [](int v, int o) { return __shfl_up_sync(0xffffffffu, v, o); };

    /* the approximate prefix before the thread's first term */
    double base = 0.0;
    if (NT == 32 || t < 32) {
        const double *rp = st + lane * RUNS_ROW;
        double ls = 0.0;
#pragma unroll
        for (int k = 0; k < 32; k++)
            ls += rp[k];
        const double inc = warp_scan_sum(ls, lane);
        const double ex = __shfl_up_sync(0xffffffffu, inc, 1);
        base = approx + (lane ? ex : 0.0);
        if (NT > 32)
            sh->base[lane] = base;
    }
    if (NT > 32) {
        __syncthreads();
        base = sh->base[row];
    }
    const double *rowp = st + row * RUNS_ROW, *mine = rowp + q * TPT;
    if (SUB > 1)
        for (int k = 0; k < q * TPT; k++)
            if (rowp[k] != 0.0)
                base += rowp[k];

    /* one pass over the thread's codes: those of its first and last
     * non-zero terms, and the heads after its first one (a crossing term,
     * or a code other than the one before) */
    int first = SPLIT_NOCODE, last = SPLIT_NOCODE, nh = 0;
    /* the block's fast path (split_fast_pieces) takes a chunk whose terms
     * in runs are all positive with increments of at most 2^52 units:
     * here the thread's tie-free increments and whether it has such terms
     * only */
    long long tf = 0;
    bool fast = true;
    {
        double cur = base;
        for (int k = 0; k < TPT; k++) {
            const double x = mine[k];
            if (x != 0.0) {
                const int e = eq_ord_split_code(cur, x);
                if (last == SPLIT_NOCODE)
                    first = e;
                else
                    nh += EQ_ORD_SPLIT_HEAD(e, last);
                last = e;
                cur += x;
                if (NT > 32 && e != EQ_CUDA_SPLIT_CROSS) {
                    int64_t inc;
                    const int a = eq_ord_rising_term(x, e, &inc);
                    fast = fast && a != EQ_ORD_RISING_SLOW;
                    tf += a == EQ_ORD_RISING_OK ? inc : 0;
                }
            }
        }
    }
    /* the code of the last non-zero term up to this thread, and before it */
    int prev_in;
    bool has;
    const int last_all = eqc_scan<NT>(
        last, sh ? sh->wint : nullptr,
        [](int a, int b) { return b != SPLIT_NOCODE ? b : a; }, upi, &prev_in, &has);
    if (!has)
        prev_in = SPLIT_NOCODE;

    /* heads: how many pieces start in this thread (its first non-zero term
     * starts one when it crosses or its code is not prev_in), and before
     * it */
    nh += first != SPLIT_NOCODE && EQ_ORD_SPLIT_HEAD(first, prev_in);
    int np = 0, pb;
    long long tf_base = 0, tf_all = 0;
    if (NT == 32) {
        int hx;
        const int incn = eqc_scan<NT>(
            nh, (int *)nullptr, [](int a, int b) { return a + b; }, upi, &hx, &has);
        np = __shfl_sync(0xffffffffu, incn, 31);
        pb = incn - nh;
    } else {
        /* the heads and the tie-free increments in one scan */
        SplitHeads v = { tf, nh }, ex, all;
        const SplitHeads inc = eqc_scan<NT>(
            v, sh->whi,
            [](const SplitHeads &a, const SplitHeads &b) {
                return SplitHeads{ a.inc + b.inc, a.nh + b.nh };
            },
            [](const SplitHeads &a, int o) {
                return SplitHeads{ (long long)__shfl_up_sync(0xffffffffu, a.inc, o),
                                   __shfl_up_sync(0xffffffffu, a.nh, o) };
            },
            &ex, &has, &all);
        np = all.nh;
        pb = inc.nh - nh;
        tf_base = inc.inc - tf;
        tf_all = all.inc;
    }
    if (np > EQ_CUDA_SPLIT_MAX)
        return -1;
    int slot = 0;
    bool all_fast = false;
    if (NT == 32) {
        if (lane == 0)
            slot = atomicAdd(&counters[0], 1);
        slot = __shfl_sync(0xffffffffu, slot, 0);
    } else {
        if (t == 0) {
            sh->slot = atomicAdd(&counters[0], 1);
            sh->ntie = 0;
        }
        all_fast = __syncthreads_and(fast) != 0;
        slot = sh->slot;
    }
    if (slot >= pool_cap)
        return -1;
    EqCudaSplit *rec = pool + slot;
    if (t == 0)
        rec->np = np;
    if (NT > 32 && all_fast && split_fast_pieces(mine, TPT, base, prev_in, pb, np, tf_base,
                                                 tf_all, row * 32 + q * TPT, rec, sh))
        return slot;

    /* the pieces: runs of the stretches under their binades (the codes
     * formed again, the same values: keeping them from the pass above
     * would cost registers or shared memory) */
    EqOrdRun r = eq_ord_empty(), before_head = eq_ord_empty();
    int p = pb - 1, had_head = 0;
    {
        double cur = base;
        int c = prev_in;
        for (int k = 0; k < TPT; k++) {
            const double x = mine[k];
            if (x == 0.0)
                continue;
            const int code = eq_ord_split_code(cur, x);
            if (EQ_ORD_SPLIT_HEAD(code, c)) {
                if (had_head) {
                    if (c != EQ_CUDA_SPLIT_CROSS)
                        rec->p[p].run = r; /* opened and closed in this thread */
                } else {
                    before_head = r; /* closes the piece open before this thread */
                }
                p++;
                had_head = 1;
                rec->p[p].e = code;
                rec->p[p].start = row * 32 + q * TPT + k;
                rec->p[p].x = x;
                r = eq_ord_empty();
            }
            if (code != EQ_CUDA_SPLIT_CROSS)
                eq_ord_push(&r, x, code);
            c = code;
            cur += x;
        }
    }
    EqOrdSegRun agg, exs;
    agg.run = r;
    agg.head = had_head;
    const EqOrdSegRun incs = eqc_scan<NT>(
        agg, sh ? sh->wseg : nullptr,
        [](const EqOrdSegRun &a, const EqOrdSegRun &b) { return eq_ord_seg_combine(a, b); },
        [](const EqOrdSegRun &v, int o) { return eqc_shfl_up_seg(v, o); }, &exs, &has);
    if (!has) {
        exs.run = eq_ord_empty();
        exs.head = 0;
    }
    if (had_head && pb >= 1 && prev_in != EQ_CUDA_SPLIT_CROSS)
        rec->p[pb - 1].run = eq_ord_compose(exs.run, before_head);
    if (t == NT - 1 && np > 0 && last_all != EQ_CUDA_SPLIT_CROSS)
        rec->p[np - 1].run = incs.run;
    return slot;
}

/* A chunk's run where every lane's eq_ord_run_scaled1 raised no flag (sd,
 * sf: the lane's d and f; nt its real terms): eq_ord_run_monotone of the
 * lanes' total (a warp sum of integers below 2^52, exact in any order;
 * lanes past the end add 0) and lane 0's first increment; for N chunks'
 * (or sums') runs at once, their shuffles interleaved. Every lane gets
 * them. */
template <int N>
static __device__ __forceinline__ void monotone_runs(const double *sd, const double *sf, int nt,
                                                     EqOrdRun *r)
{
    double dsum[N], first[N];
#pragma unroll
    for (int i = 0; i < N; i++)
        dsum[i] = nt > 0 ? sd[i] : 0.0;
#pragma unroll
    for (int k = 16; k >= 1; k >>= 1)
#pragma unroll
        for (int i = 0; i < N; i++)
            dsum[i] += __shfl_xor_sync(0xffffffffu, dsum[i], k);
#pragma unroll
    for (int i = 0; i < N; i++)
        first[i] = __shfl_sync(0xffffffffu, sf[i], 0);
#pragma unroll
    for (int i = 0; i < N; i++)
        r[i] = eq_ord_run_monotone(dsum[i], first[i]);
}

/* The halves (EqOrdHalves) of the lane's 32 values at `mine` (those past
 * the chunk's end +0.0, whose terms add 0 and keep the parity), the term
 * of value v being term(v), under binade e (at least EQ_ORD_SCALED_EMIN):
 * for a chunk whose lanes are non-negative and below 2^47 units
 * (eq_ord_run_scaled1 raising no flag but TIE). */
template <typename F>
static __device__ __forceinline__ EqOrdHalves lane_halves(const double *mine, int e, F term)
{
    const double c = eq_pow2(e), half_u = eq_ord_half_unit(c);
    EqOrdHalves h = eq_ord_halves_empty();
#pragma unroll 4
    for (int k = 0; k < 32; k++)
        eq_ord_halves_push(&h, term(mine[k]), c, half_u, k == 0);
    return h;
}

/* The chunk's halves: the lanes' (h) composed in order, neighbours in
 * pairs, then pairs of those (eq_ord_halves_compose is associative);
 * lane 0's result. */
static __device__ __forceinline__ EqOrdHalves chunk_halves(EqOrdHalves h, int lane)
{
#pragma unroll
    for (int k = 1; k < 32; k *= 2) {
        EqOrdHalves o;
        const int out = __shfl_down_sync(0xffffffffu, h.out[0] | h.out[1] << 1, k);
        o.c[0] = __shfl_down_sync(0xffffffffu, h.c[0], k);
        o.c[1] = __shfl_down_sync(0xffffffffu, h.c[1], k);
        o.out[0] = out & 1;
        o.out[1] = out >> 1;
        o.f1 = 0; /* not the first lane's */
        if ((lane & (2 * k - 1)) == 0)
            h = eq_ord_halves_compose(h, o);
    }
    return h;
}

/* One chunk's run under its binade e (not EQ_ORD_NONE), lane l holding
 * the terms 32l .. 32l+31 (nt of them real) at `mine`; the run is lane 0's
 * result. */
static __device__ __forceinline__ EqOrdRun chunk_run(const double *mine, int nt, int e,
                                                     int no_fast, int lane)
{
    /* Lanes of non-negative terms (every lane of SSIMULACRA2's sums): the
     * tie-free run in double arithmetic (eq_ord_run_scaled1; the 32 staged
     * terms, those past the end +0.0, which add 0 and raise no flag),
     * exact halves added apart (EqOrdHalves) where every lane is such; in
     * a chunk with other lanes too, a lane with an exact half forms both
     * parities' runs below. A lane with a negative or a large term (or an
     * infinity, a NaN) takes the int64 one-term rule. */
    int fl = EQ_ORD_SF_BIG;
    double sd = 0.0, sf = 0.0;
    if (!no_fast && e >= EQ_ORD_SCALED_EMIN)
        fl = eq_ord_run_scaled1(mine, 32, e, &sd, &sf);
    const bool scaled = !(fl & (EQ_ORD_SF_BIG | EQ_ORD_SF_NEG));
    LaneFast lf = { 0, EQ_ORD_POISON, -EQ_ORD_POISON, 0, 0 };
    if (scaled) {
        /* the tie-free run (empty for a lane past the end) */
        lf.slow = (fl & EQ_ORD_SF_TIE) != 0;
        if (nt > 0) {
            lf.d = (int64_t)sd;
            lf.lo = (int64_t)sf;
            lf.hi = lf.d;
        }
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
    if (!__any_sync(0xffffffffu, !scaled || no_fast)) {
        /* every lane scaled (SSIMULACRA2's sums): the run is
         * eq_ord_run_monotone's, from a warp sum of the lanes' totals
         * (lanes past the end add 0) and lane 0's first increment, instead
         * of the five steps of int64 triples below; with an exact half in
         * some lane, plus the halves' (eq_ord_halves_apply) */
        monotone_runs<1>(&sd, &sf, nt, &r);
        if (__any_sync(0xffffffffu, lf.slow)) {
            const EqOrdHalves h =
                chunk_halves(lane_halves(mine, e, [](double v) { return v; }), lane);
            eq_ord_halves_apply(&r, &h);
        }
    } else if (!__any_sync(0xffffffffu, lf.slow | no_fast)) {
        for (int k = 1; k < 32; k *= 2) {
            EqOrdRun1 o = shfl_down1(r1, k);
            if ((lane & (2 * k - 1)) == 0)
                r1 = eq_ord_compose1(r1, o);
        }
        r = eq_ord_run_from1(r1);
    } else {
        /* a tie in a chunk with a negative or a large lane too: the pair
         * runs, composed by pairs; a scaled lane forms its pair run
         * (eq_ord_run_scaled), a tie-free int64 lane writes its run as a
         * pair, the others (and every lane with no_fast) compose the pair
         * functions term by term */
        if (scaled && !no_fast) {
            /* both parities in double arithmetic, ties included */
            r = eq_ord_empty();
            if (nt > 0)
                (void)eq_ord_run_scaled(mine, 32, eq_ord_scale(e), &r);
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
    return r;
}

/* The rows' terms (lane l: the chunk's 32l .. 32l+31 at `mine`) in place
 * from the values they hold (kind `todo` of them; EQC_TERM_X: as they are).
 * Four terms a step, the steps not unrolled: unrolled, its variants made
 * the runs kernel 124 KB of code, and 18.6 % of the kept-plan pass's warp
 * samples waited for instructions (session 19; 4K scale 0 263 -> 238 us). */
static __device__ __forceinline__ void rows_to_terms(double *mine, int todo)
{
#pragma unroll 1
    for (int i = 0; i < 32; i += EQC_ORD_TPL) {
        double v[EQC_ORD_TPL];
#pragma unroll
        for (int u = 0; u < EQC_ORD_TPL; u++)
            v[u] = mine[i + u];
        terms_of<EQC_ORD_TPL>(todo, v);
#pragma unroll
        for (int u = 0; u < EQC_ORD_TPL; u++)
            mine[i + u] = v[u];
    }
}

/* A base sum and its quartic's (twins: kinds BASE, EQC_TERM_X,
 * _ARTIFACT or _DETAIL, and BASE + 1) from one read of the x values in
 * the lane's row (lane l: the chunk's 32l .. 32l+31 at `mine`), for the
 * kept plan's runs kernel: per sum m (0 the base, 1 the quartic) what
 * chunk_sum_of gives inside the lane (gsum: its tree's first three steps)
 * and what eq_ord_run_scaled1 gives for the lane's 32 terms under binade
 * e[m] (sd, sf, and its TIE flag), with the same operations in the same
 * order. The other flags need no test per term where the terms
 * cannot be negative: a quartic's (a square squared: +0.0, positive or
 * NaN) and a clamped base's (ARTIFACT, DETAIL: +0.0 or positive); there
 * "some term is not 0.0" is "the chunk's sum is not 0.0", for a sum of
 * such terms is 0.0 only where all are. For X, neg and nz are the base's
 * NEG flag and chunk_sum_of's nonzero test. */
struct TwinLane {
    double gsum[2], sd[2], sf[2];
    bool tie[2];
    bool neg, nz; /* the base's, for BASE == EQC_TERM_X */
};

template <int BASE>
static __device__ __forceinline__ void twin_lane(const double *mine, const int e[2],
                                                 TwinLane *o)
{
    static_assert(BASE == EQC_TERM_X || BASE == EQC_TERM_ARTIFACT || BASE == EQC_TERM_DETAIL,
                  "a base kind");
    static_assert(EQC_TERM_QUARTIC == EQC_TERM_X + 1 &&
                      EQC_TERM_ARTIFACT4 == EQC_TERM_ARTIFACT + 1 &&
                      EQC_TERM_DETAIL4 == EQC_TERM_DETAIL + 1,
                  "the quartic's kind follows its base's");
    double part[2][4], first[2] = { 0.0, 0.0 }, h0[2] = { 0.0, 0.0 }, h1[2] = { 0.0, 0.0 };
    bool tie[2] = { false, false }, neg = false, nz = false;
    /* eq_ord_run_scaled1's constants (any binade: a sum without one has
     * no run to form) */
    double c[2], half_u[2];
#pragma unroll
    for (int m = 0; m < 2; m++) {
        c[m] = e[m] >= EQ_ORD_SCALED_EMIN ? eq_pow2(e[m]) : 1.0;
        half_u[m] = eq_ord_half_unit(c[m]);
#pragma unroll
        for (int u = 0; u < 4; u++)
            part[m][u] = 0.0;
    }
    /* two halves of 16 terms (batches 4h .. 4h+3 of chunk_sum_of's 8) */
#pragma unroll 1
    for (int h = 0; h < 2; h++) {
        /* the half's tree, (l0 + l1) + (l2 + l3), its pairs added as soon
         * as they are formed (fewer values live) */
        double p01[2], l2[2];
#pragma unroll
        for (int b = 0; b < 4; b++) {
            double v[EQC_ORD_TPL], a[2] = { 0.0, 0.0 };
#pragma unroll
            for (int u = 0; u < EQC_ORD_TPL; u++)
                v[u] = mine[16 * h + EQC_ORD_TPL * b + u];
#pragma unroll
            for (int u = 0; u < EQC_ORD_TPL; u++) {
                double t[2];
                t[0] = eq_s2_term(BASE, v[u]);
                t[1] = eq_s2_quartic(t[0]); /* eq_s2_term(BASE + 1, v[u]) */
#pragma unroll
                for (int m = 0; m < 2; m++) {
                    a[m] += t[m];
                    /* term 16h + 4b + u of eq_ord_run_scaled1: its total
                     * part (16h + 4b + u) & 3 = u */
                    const double r = eq_ord_scaled1_term(t[m], c[m], half_u[m], &tie[m]);
                    part[m][u] += r;
                    if (b == 0 && u == 0)
                        first[m] = h == 0 ? r : first[m];
                }
                if (BASE == EQC_TERM_X) {
                    neg = neg | (t[0] < 0.0);
                    nz = nz | (t[0] != 0.0);
                }
            }
#pragma unroll
            for (int m = 0; m < 2; m++) {
                if (b == 0) {
                    p01[m] = a[m];
                } else if (b == 1) {
                    p01[m] = p01[m] + a[m];
                } else if (b == 2) {
                    l2[m] = a[m];
                } else {
                    const double H = p01[m] + (l2[m] + a[m]);
                    h0[m] = h == 0 ? H : h0[m];
                    h1[m] = h == 0 ? h1[m] : H;
                }
            }
        }
    }
#pragma unroll
    for (int m = 0; m < 2; m++) {
        const double scale = e[m] >= EQ_ORD_SCALED_EMIN ? eq_ord_scale(e[m]) : 1.0;
        o->gsum[m] = h0[m] + h1[m];
        o->sd[m] = eq_ord_scaled1_total(part[m], scale);
        o->sf[m] = first[m] * scale;
        o->tie[m] = tie[m];
    }
    o->neg = neg;
    o->nz = nz;
}

/* The halves (EqOrdHalves) of a chunk of twins' sum m (0: kind BASE, 1:
 * its quartic) under binade e, from the x values in the rows (lane l:
 * the chunk's 32l .. 32l+31 at `mine`); lane 0's result. */
template <int BASE>
static __device__ __forceinline__ EqOrdHalves twin_halves(const double *mine, int e, int m,
                                                          int lane)
{
    return chunk_halves(lane_halves(mine, e,
                                    [m](double v) {
                                        const double t = eq_s2_term(BASE, v);
                                        return m ? eq_s2_quartic(t) : t;
                                    }),
                        lane);
}

/* A sum's first chunk added from +0.0 by one thread, in term order: the
 * loop's own adds (its start, +0.0, is the only one known). B terms at a
 * time (16; 8 in the runs kernel, whose registers are few) are read into
 * registers before their adds, so that the shared loads stay out of the
 * chain of adds; the adds and their order are the loop's. */
template <int B = 16>
static __device__ __forceinline__ double prewalk_chunk(const double *stage, int count)
{
    static_assert(32 % B == 0, "a batch within one row");
    double x = 0.0;
    int i = 0;
#pragma unroll 2
    for (; i + B <= count; i += B) {
        double v[B];
#pragma unroll
        for (int j = 0; j < B; j++)
            v[j] = stage[staged_at(i) + j]; /* i a multiple of B: one row */
#pragma unroll
        for (int j = 0; j < B; j++)
            x += v[j];
    }
    for (; i < count; i++)
        x += stage[staged_at(i)];
    return x;
}

/* Chunk g's result under its plan e, the rows holding its terms (nt of
 * them real in this lane): its run, or, planned term by term, its split
 * record (zero chunks are stepped over by the walk and get none). */
static __device__ __forceinline__ void chunk_result(const double *mine, int nt, int e,
                                                    long long g, int no_fast,
                                                    const double *approx,
                                                    const unsigned char *zero, EqOrdRun *runs,
                                                    int *split_idx, EqCudaSplit *pool,
                                                    int pool_cap, int *counters, int lane)
{
    if (e == EQ_ORD_NONE) {
        int slot = -1;
        if (!zero[g] && pool_cap > 0)
            slot = split_chunk<32>(mine - lane * RUNS_ROW, approx[g], pool, pool_cap, counters,
                                   nullptr);
        if (lane == 0) {
            runs[g] = eq_ord_poison();
            split_idx[g] = slot;
        }
        return;
    }
    const EqOrdRun r = chunk_run(mine, nt, e, no_fast, lane);
    if (lane == 0) {
        runs[g] = r;
        split_idx[g] = -1;
    }
}

/* A chunk past its sum's end (an empty sum's one chunk): the empty run,
 * or, planned term by term (by its zero prefix), the poisoned run and no
 * split record. !store_run: the run is stored already. */
static __device__ __forceinline__ void empty_chunk(long long g, int e, EqOrdRun *runs,
                                                   int *split_idx, bool store_run = true)
{
    if (store_run)
        runs[g] = e == EQ_ORD_NONE ? eq_ord_poison() : eq_ord_empty();
    split_idx[g] = -1;
}

/* Lane l's run of its nt terms at `mine` (row l of a staged chunk) under
 * binade e: eq_ord_run_terms' run, which eq_ord_cross_record composes; a
 * whole lane of non-negative terms by eq_ord_run_scaled (both parities in
 * double arithmetic, as chunk_run's lanes), any other term by term. */
static __device__ __forceinline__ EqOrdRun cross_lane_run(const double *mine, int nt, int e)
{
    if (nt == 32 && e >= EQ_ORD_SCALED_EMIN) {
        EqOrdRun r = eq_ord_empty();
        const int fl = eq_ord_run_scaled(mine, 32, eq_ord_scale(e), &r);
        if (!(fl & (EQ_ORD_SF_BIG | EQ_ORD_SF_NEG)))
            return r;
    }
    return eq_ord_run_terms(mine, nt, 1, e);
}

/* A crossing record's runs (EqCudaCross, EQ_CUDA_CROSSREC_ENV) of a chunk
 * of count terms staged in `stage` (row l: lane l's terms), under binade
 * e0, by warps 0 and 1 of a block: warp 0 the prefixes P (lane l's run
 * under e0, an inclusive scan of the runs in lane order), warp 1 the
 * suffixes S (under e0 + 1, a scan from the last lane, shifted by one:
 * S[l] holds lanes l + 1 ..): the runs of eq_ord_cross_record, which
 * composes them in this grouping (a part's poison depends on it) for the
 * harness to compare bit for bit.
 *
 * A warp whose 32 lanes are full and raise no flag in eq_ord_run_scaled1
 * under its binade (SSIM's crossing chunks) takes the monotone form, as
 * chunk runs do: each lane's run is (d, f, d) for both parities, so the
 * lanes from a to b compose to (the sum of their d, lane a's f, that sum)
 * (eq_ord_run_monotone). The lanes' totals are integers below 2^47, so
 * their scan in doubles is exact, and no sum of them reaches EQ_ORD_CAP:
 * no part is poisoned in any grouping, and the runs are the scan's. */
static __device__ __forceinline__ void cross_runs(const double *stage, int count, int e0,
                                                  EqOrdRun *P, EqOrdRun *S)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    static_assert(EQ_ORD_CROSS_LANES == 32 && EQ_CUDA_CROSS_TERMS == EQC_ORD_CHUNK,
                  "a lane a row of the staged chunk");
    if (count == EQC_ORD_CHUNK && e0 + warp >= EQ_ORD_SCALED_EMIN) {
        double d, f;
        const int fl = eq_ord_run_scaled1(stage + lane * RUNS_ROW, 32, e0 + warp, &d, &f);
        if (__all_sync(0xffffffffu, fl == 0)) {
            const double pre = warp_scan_sum(d, lane);
            if (warp == 0) {
                P[lane] = eq_ord_run_monotone(pre, __shfl_sync(0xffffffffu, f, 0));
            } else {
                const double all = __shfl_sync(0xffffffffu, pre, 31),
                             next = __shfl_down_sync(0xffffffffu, f, 1);
                S[lane] = lane < 31 ? eq_ord_run_monotone(all - pre, next) : eq_ord_empty();
            }
            return;
        }
    }
    const int nt = eq_ord_lane_at(lane + 1, 32, count) - eq_ord_lane_at(lane, 32, count);
    EqOrdRun r = cross_lane_run(stage + lane * RUNS_ROW, nt, e0 + warp);
    if (warp == 0) {
        for (int o = 1; o < 32; o *= 2) {
            const EqOrdRun y = eqc_shfl_up(r, o);
            if (lane >= o)
                r = eq_ord_compose(y, r);
        }
        P[lane] = r;
    } else {
        for (int o = 1; o < 32; o *= 2) {
            const EqOrdRun y = eqc_shfl_down(r, o);
            if (lane + o < 32)
                r = eq_ord_compose(r, y);
        }
        const EqOrdRun after = eqc_shfl_down(r, 1);
        S[lane] = lane < 31 ? after : eq_ord_empty();
    }
}

/* The crossing record of such a chunk under e0, by a block of SPLIT_NT
 * threads, every one of which calls it (no barrier: the caller's fence and
 * barrier publish it): its runs (cross_runs) by warps 0 and 1, its terms
 * by the others. */
static __device__ __forceinline__ void cross_form(const double *stage, int count, int e0,
                                                  EqCudaCross *rec)
{
    const int tid = threadIdx.x;
    if (tid < 64) {
        cross_runs(stage, count, e0, rec->P, rec->S);
        if (tid == 0) {
            rec->e0 = e0;
            rec->count = count;
        }
    } else {
        for (int i = tid - 64; i < count; i += SPLIT_NT - 64)
            rec->x[i] = stage[staged_at(i)];
    }
}

/* EQ_CUDA_CROSSREC_ENV "split": a crossing chunk's runs under the binade
 * e0 its launch slot kept (formed before the fused kernel's wait), the
 * scan of its lanes' totals, each lane's scan of its terms and which lanes
 * hold a non-zero term, and the split record
 * formed from them after the wait where this launch's e0 is the same
 * (cross_split). */
struct CrossSplitShared {
    EqOrdRun P[32], S[32];
    /* cross_split's two scans, formed before the wait: the lanes' totals'
     * (inc) and each lane's terms' (rows: lane l's terms a lane a term) */
    double inc[32], rows[32][32];
    unsigned nz_rows;
    int formed; /* 1: the chunk took the form (its slot, or -1, in split_idx) */
};
template <int CROSS> struct CrossShared {
};
template <> struct CrossShared<2> : CrossSplitShared {
};

/* Term k of lane l's row of a staged chunk (nt terms), 0.0 past them:
 * the values of cross_split's scan of the crossing lane's terms, whether
 * formed before the wait or read after it */
static __device__ __forceinline__ double row_term(const double *stage, int l, int nt, int k)
{
    return k < nt ? stage[l * RUNS_ROW + k] : 0.0;
}

/* Before the wait, by a block of SPLIT_NT threads, every one of which
 * calls it (the barriers before the wait's end publish it): the runs
 * (cross_runs) by warps 0 and 1; by warp 2 each lane's total (its terms
 * added in order from +0.0, as eq_ord_split_from_cross forms them), the
 * scan of those totals and whether it holds a non-zero term; by warps 3
 * and up the scan of each lane's terms. The two scans are cross_split's,
 * the same operations on the same values, formed here off the path after
 * the wait, where the crossing lane is not known yet: every lane's. */
static __device__ __forceinline__ void cross_split_runs(const double *stage, int count, int e0,
                                                        CrossSplitShared *xs)
{
    const int tid = threadIdx.x, lane = tid & 31;
    if (tid < 64) {
        cross_runs(stage, count, e0, xs->P, xs->S);
    } else if (tid < 96) {
        const int nt = eq_ord_lane_at(lane + 1, 32, count) - eq_ord_lane_at(lane, 32, count);
        const double *rp = stage + lane * RUNS_ROW;
        bool nz = false;
        for (int k = 0; k < nt; k++)
            nz |= rp[k] != 0.0;
        const double tot = eq_ord_lane_total(stage, RUNS_ROW, 32, count, lane);
        xs->inc[lane] = warp_scan_sum(tot, lane);
        const unsigned m = __ballot_sync(0xffffffffu, nz);
        if (lane == 0)
            xs->nz_rows = m;
    } else {
        static_assert(SPLIT_NT / 32 > 3, "warps for the rows' scans");
        for (int l = (tid >> 5) - 3; l < 32; l += SPLIT_NT / 32 - 3) {
            const int nt = eq_ord_lane_at(l + 1, 32, count) - eq_ord_lane_at(l, 32, count);
            xs->rows[l][lane] = warp_scan_sum(row_term(stage, l, nt, lane), lane);
        }
    }
}

/*
 * After the wait, by one warp: the split record of a chunk whose plan's
 * prefixes cross binade e0, the one its runs were formed under before the
 * wait, as eq_ord_split_from_cross_at forms it from the approximate
 * prefix `approx` before the chunk (the plan's), bit for bit: the crossing
 * lane by a scan of the lanes' totals, the crossing term by a scan of that
 * lane's terms (a lane a term; both scans formed before the wait by
 * cross_split_runs), the lane's parts before and after it as an
 * inclusive scan of one-term runs (the empty run for the others), held to
 * eq_ord_run_spread_ok, then composed with P and S by lane 31. Where the
 * form fits, a slot of the pool (as split_chunk takes one: -1 where the
 * pool is full or absent) holds it, split_idx[g] names it, and its run is
 * poisoned (!store_run: stored already); xs->formed says whether it fit
 * (if not, the block goes on to split_chunk).
 */
static __device__ __forceinline__ void cross_split(const double *stage, int count, int e0,
                                                   double approx, long long g, EqOrdRun *runs,
                                                   int *split_idx, EqCudaSplit *pool,
                                                   int pool_cap, int *counters,
                                                   CrossSplitShared *xs, bool store_run)
{
    const int lane = threadIdx.x & 31;
    const double inc = xs->inc[lane];
    const unsigned out = __ballot_sync(0xffffffffu, eq_ord_binade(approx + inc) != e0);
    if (!(approx > 0.0) || eq_ord_binade(approx) != e0 || !out) {
        if (lane == 31)
            xs->formed = 0;
        return;
    }
    const int l = __ffs(out) - 1, a = eq_ord_lane_at(l, 32, count),
              nt = eq_ord_lane_at(l + 1, 32, count) - a;
    const double before = __shfl_sync(0xffffffffu, inc, l > 0 ? l - 1 : 0);
    const double base = approx + (l ? before : 0.0);
    const double x = row_term(stage, l, nt, lane);
    const double c = xs->rows[l][lane];
    const unsigned cross =
        __ballot_sync(0xffffffffu, x != 0.0 && eq_ord_binade(base + c) != e0);
    if (!cross) {
        if (lane == 31)
            xs->formed = 0;
        return;
    }
    const int tt = __ffs(cross) - 1;
    const unsigned nz = __ballot_sync(0xffffffffu, x != 0.0);
    EqOrdRun r1, r3;
    /* the parts before and after the crossing term. Where every non-zero
     * term of them is positive and no exact half (eq_ord_rising_term), each
     * term's run is (inc, inc, inc) for both parities, and a part composes
     * to eq_ord_rising_part of its increments' total and its first term's
     * in every grouping: two sums of integers below 2^57 instead of a scan
     * of runs */
    int64_t up = 0;
    const bool in = x != 0.0 && lane != tt;
    const bool rising =
        !in || eq_ord_rising_term(x, lane < tt ? e0 : e0 + 1, &up) == EQ_ORD_RISING_OK;
    if (__all_sync(0xffffffffu, rising)) {
        const unsigned m1 = nz & ((1u << tt) - 1), m3 = nz & ~((2u << tt) - 1);
        long long d1 = lane < tt ? up : 0, d3 = lane > tt ? up : 0;
        for (int o = 16; o >= 1; o >>= 1) {
            d1 += __shfl_xor_sync(0xffffffffu, d1, o);
            d3 += __shfl_xor_sync(0xffffffffu, d3, o);
        }
        const long long f1 = __shfl_sync(0xffffffffu, (long long)up, m1 ? __ffs(m1) - 1 : 0),
                        f3 = __shfl_sync(0xffffffffu, (long long)up, m3 ? __ffs(m3) - 1 : 0);
        if (lane != 31)
            return;
        r1 = m1 ? eq_ord_rising_part(d1, f1) : eq_ord_empty();
        r3 = m3 ? eq_ord_rising_part(d3, f3) : eq_ord_empty();
    } else {
        r1 = x != 0.0 && lane < tt ? eq_ord_term(x, e0) : eq_ord_empty();
        r3 = x != 0.0 && lane > tt ? eq_ord_term(x, e0 + 1) : eq_ord_empty();
        for (int o = 1; o < 32; o *= 2) {
            const EqOrdRun y1 = eqc_shfl_up(r1, o), y3 = eqc_shfl_up(r3, o);
            if (lane >= o) {
                r1 = eq_ord_compose(y1, r1);
                r3 = eq_ord_compose(y3, r3);
            }
        }
        if (lane != 31)
            return;
    }
    /* lane 31: the scans' totals, the pieces (eq_ord_split_pieces, as the
     * host's model ends) */
    const unsigned before_t = nz & ((1u << tt) - 1), after_t = nz & ~((2u << tt) - 1);
    EqOrdCrossParts parts;
    parts.r1 = r1;
    parts.r3 = r3;
    parts.l = l;
    parts.b = a + nt;
    parts.t = a + tt;
    parts.k0 = before_t ? a + __ffs(before_t) - 1 : -1;
    parts.k1 = after_t ? a + __ffs(after_t) - 1 : -1;
    parts.nz_before = (xs->nz_rows & ((1u << l) - 1)) != 0;
    parts.nz_after = l < 31 && (xs->nz_rows >> (l + 1)) != 0;
    EqCudaSplitPiece pc[3];
    const int np =
        eq_ord_split_pieces(stage, RUNS_ROW, 32, count, &parts, xs->P, xs->S, e0, pc);
    xs->formed = np >= 0;
    if (np < 0)
        return;
    atomicAdd(&counters[EQC_CNT_CROSS_EARLY], 1);
    int slot = -1;
    if (pool_cap > 0) {
        slot = atomicAdd(&counters[0], 1);
        if (slot >= pool_cap) {
            slot = -1;
        } else {
            EqCudaSplit *const to = pool + slot;
            to->np = np;
            for (int q = 0; q < np; q++)
                to->p[q] = pc[q];
        }
    }
    if (store_run)
        runs[g] = eq_ord_poison();
    split_idx[g] = slot;
}

/* A chunk planned term by term, staged in `stage` for a block of SPLIT_NT
 * threads: its split record (split_chunk), none for a zero chunk or where
 * there is no pool; its run poisoned (!store_run: stored already). Every
 * thread of the block calls it. */
static __device__ __forceinline__ void split_by_block(const double *stage, double approx,
                                                      bool nonzero, long long g,
                                                      EqOrdRun *runs, int *split_idx,
                                                      EqCudaSplit *pool, int pool_cap,
                                                      int *counters, SplitShared *sh,
                                                      bool store_run = true)
{
    int slot = -1;
    if (nonzero && pool_cap > 0)
        slot = split_chunk<SPLIT_NT>(stage, approx, pool, pool_cap, counters, sh);
    if (threadIdx.x == 0) {
        if (store_run)
            runs[g] = eq_ord_poison();
        split_idx[g] = slot;
    }
}

/* The chunk runs under `plan`. SPEC (a kept plan reused): `plan` is the
 * previous frame's, and the same pass forms each chunk's approximate sum
 * and zero flag (as ord_chunk_sums_kernel, from the terms in the rows);
 * a chunk planned term by term there is left to ord_runs_again_kernel,
 * which takes every chunk whose new plan is that or differs. Also clears
 * the count of those chunks. SPEC with twins (EQ_CUDA_TWINS_ENV): in a
 * plane group, a base sum and its quartic's that follow each other
 * (SSIMULACRA2's d and d^4, d1's artifact and its quartic, its detail and
 * its quartic) are formed together from x in the rows (twin_lane), not
 * from their terms formed in place: one read of x for two sums, and no
 * second staging of d1 for its detail. */
template <int SPEC>
__global__ void __launch_bounds__(32 * RUNS_WARPS, SPEC ? 5 : 6)
ord_chunk_runs_kernel(const EqcSumTable *t, const int *plan, EqOrdRun *runs, long long total,
                      int no_fast, const double *approx, unsigned char *zero,
                      int *split_idx, EqCudaSplit *pool, int pool_cap, int *counters,
                      int per_sum, double *chunk_sum, double *first_sum, int twins)
{
    __shared__ double stage[RUNS_WARPS][32 * RUNS_ROW];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    pdl_wait();
    if (SPEC && blockIdx.x == 0 && threadIdx.x == 0)
        counters[3] = 0;
    GroupChunk q;
    int j0, j1;
    if (!warp_chunk(t, total, per_sum, &q, &j0, &j1, [&](long long g) {
            /* an empty sum's chunk (planned "none" by its zero prefix anyway) */
            empty_chunk(g, plan[g], runs, split_idx);
            if (SPEC) {
                chunk_sum[g] = 0.0;
                zero[g] = 1;
            }
        }))
        return;
    double *st = stage[warp];
    double *mine = st + lane * RUNS_ROW;
    stage_chunk(t->d[q.s0], q.first, q.count, st, lane);
    const int nt = min(max(q.count - lane * 32, 0), 32);
    int held = EQC_TERM_X; /* what the rows hold now */
    /* the rows formed into terms of `kind`: in place from x, or the
     * quartic of the held term where this kind is that (d -> d^4,
     * max(d1, 0) -> its quartic, ...), else x staged again (from L2: this
     * warp read it a moment ago) */
    const auto form = [&](int kind) {
        if (kind == held)
            return;
        int todo = kind;
        if (kind == eq_s2_term_quartic(held)) {
            todo = EQC_TERM_QUARTIC;
        } else if (held != EQC_TERM_X) {
            __syncwarp();
            stage_chunk(t->d[q.s0], q.first, q.count, st, lane);
        }
        rows_to_terms(mine, todo);
        held = kind;
    };
    /* sum j alone, from its terms in the rows */
    const auto single = [&](int j) {
        const long long g = t->chunk_off[q.s0 + j] + q.c;
        const int e = plan[g];
        form(t->d[q.s0 + j].kind);
        if (first_sum && q.c == 0) {
            /* a sum's first chunk, planned term by term (its prefix +0.0
             * has no binade), added by the loop's own adds for the large
             * walk's chain (EQ_CUDA_BIGCHAIN_ENV) */
            __syncwarp();
            if (lane == 0)
                first_sum[q.s0 + j] = prewalk_chunk<8>(st, q.count);
            __syncwarp();
        }
        if (SPEC) {
            int nonzero;
            const double acc = chunk_sum_of(mine, EQC_TERM_X, lane, &nonzero);
            if (lane == 0) {
                chunk_sum[g] = acc;
                zero[g] = !nonzero;
            }
        }
        if (first_sum && q.c == 0 && e == EQ_ORD_NONE) {
            /* added above: no split record (the walk starts from
             * first_sum), and not formed again (ord_plan_kernel) */
            if (lane == 0) {
                runs[g] = eq_ord_poison();
                split_idx[g] = EQC_SPLIT_PREWALKED;
            }
            return;
        }
        if (SPEC && e == EQ_ORD_NONE)
            return; /* its split record needs this frame's prefix */
        chunk_result(mine, nt, e, g, no_fast, approx, zero, runs, split_idx, pool, pool_cap,
                     counters, lane);
    };
    for (int j = j0; j < j1;) {
        const int kind = t->d[q.s0 + j].kind;
        if (!SPEC || !twins || (first_sum && q.c == 0) || j + 1 >= j1 ||
            (kind != EQC_TERM_X && kind != EQC_TERM_ARTIFACT && kind != EQC_TERM_DETAIL) ||
            t->d[q.s0 + j + 1].kind != kind + 1) {
            single(j++);
            continue;
        }
        /* twins (EQ_CUDA_TWINS_ENV): sums j and j + 1, a base kind and its
         * quartic, from one read of x (twin_lane): their chunk sums, and
         * where every lane's terms are non-negative and below 2^47 units
         * (eq_ord_run_scaled1 raising no flag but TIE) their runs as
         * chunk_run's monotone form gives them, exact halves added apart;
         * a sum with a flag in some lane is formed alone from its terms
         * (chunk_result) */
        if (held != EQC_TERM_X) {
            __syncwarp();
            stage_chunk(t->d[q.s0], q.first, q.count, st, lane);
            held = EQC_TERM_X;
        }
        long long g[2];
        int e[2];
#pragma unroll
        for (int m = 0; m < 2; m++) {
            g[m] = t->chunk_off[q.s0 + j + m] + q.c;
            e[m] = plan[g[m]];
        }
        TwinLane o;
        if (kind == EQC_TERM_X)
            twin_lane<EQC_TERM_X>(mine, e, &o);
        else if (kind == EQC_TERM_ARTIFACT)
            twin_lane<EQC_TERM_ARTIFACT>(mine, e, &o);
        else
            twin_lane<EQC_TERM_DETAIL>(mine, e, &o);
        /* both sums' shuffles at once */
        double acc[2];
        chunk_sum_lanes<2>(o.gsum, lane, acc);
        const bool nz0 = kind == EQC_TERM_X ? __any_sync(0xffffffffu, o.nz) : acc[0] != 0.0;
        /* eq_ord_scaled1_flags' BIG and NEG, as truth values (the
         * quartic without NEG: its terms are never negative) */
        const bool flag0 = (kind == EQC_TERM_X && o.neg) || eq_ord_scaled1_big(o.sd[0]);
        const bool flag1 = eq_ord_scaled1_big(o.sd[1]);
        const bool bad0 =
            __any_sync(0xffffffffu, flag0 || no_fast || e[0] < EQ_ORD_SCALED_EMIN);
        const bool bad1 =
            __any_sync(0xffffffffu, flag1 || no_fast || e[1] < EQ_ORD_SCALED_EMIN);
        EqOrdRun r[2];
        monotone_runs<2>(o.sd, o.sf, nt, r);
        /* a sum with an exact half (TIE) in some lane: its run plus its
         * halves' (EqOrdHalves), from the x values in the rows again */
#pragma unroll
        for (int m = 0; m < 2; m++) {
            if ((m ? bad1 : bad0) || !__any_sync(0xffffffffu, o.tie[m]))
                continue;
            EqOrdHalves h;
            if (kind == EQC_TERM_X)
                h = twin_halves<EQC_TERM_X>(mine, e[m], m, lane);
            else if (kind == EQC_TERM_ARTIFACT)
                h = twin_halves<EQC_TERM_ARTIFACT>(mine, e[m], m, lane);
            else
                h = twin_halves<EQC_TERM_DETAIL>(mine, e[m], m, lane);
            eq_ord_halves_apply(&r[m], &h);
        }
        /* a sum without a binade is left to ord_runs_again_kernel (its
         * split record needs this frame's prefix); one with a flag in some
         * lane is formed alone from its terms */
        const int alone = (e[0] != EQ_ORD_NONE && bad0) | (e[1] != EQ_ORD_NONE && bad1) << 1;
        if (lane == 0) {
#pragma unroll
            for (int m = 0; m < 2; m++) {
                chunk_sum[g[m]] = acc[m];
                zero[g[m]] = !(m ? acc[1] != 0.0 : nz0);
                if (e[m] != EQ_ORD_NONE && !(m ? bad1 : bad0)) {
                    runs[g[m]] = r[m];
                    split_idx[g[m]] = -1;
                }
            }
        }
        /* a sum with a flag in some lane: formed alone from its terms */
        for (int m = 0; m < 2; m++)
            if (alone >> m & 1) {
                form(kind + m);
                chunk_result(mine, nt, m ? e[1] : e[0], m ? g[1] : g[0], no_fast, approx, zero,
                             runs, split_idx, pool, pool_cap, counters, lane);
            }
        j += 2;
    }
}

/* After a reused plan: the chunks ord_plan_kernel put on `again`
 * (counters[3] of them), each formed again under its new plan, by one warp
 * each, RUNS_WARPS warps of a block striding over the list. BLOCK: a chunk
 * to split (planned term by term, not all zero) is taken by a whole block
 * of SPLIT_NT threads instead, the blocks striding over the list first
 * (the split's chains of codes and pushes an eighth of a warp's: the
 * latency of launches with few chunks to split; launches with many keep a
 * warp each, which forms more at once). */
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK ? SPLIT_NT : 32 * RUNS_WARPS, BLOCK ? 2 : 4)
ord_runs_again_kernel(const EqcSumTable *t, const int *plan, EqOrdRun *runs, int no_fast,
                      const double *approx, const unsigned char *zero, int *split_idx,
                      EqCudaSplit *pool, int pool_cap, int *counters, const int *again)
{
    static_assert(SPLIT_NT == EQC_ORD_LANES && SPLIT_NT >= 32 * RUNS_WARPS, "block sizes");
    __shared__ double stage[RUNS_WARPS][32 * RUNS_ROW];
    __shared__ SplitShared sh;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    pdl_wait();
    const int n = counters[3];
    /* the chunk to form again at list index i: sum, description, terms */
    const auto item = [&](int i, long long *g, const EqcSumDesc **d, long long *first) {
        *g = again[i];
        const int s = last_at_most(t->nsums, *g, [&](int j) { return t->chunk_off[j]; });
        *d = &t->d[s];
        *first = (*g - t->chunk_off[s]) * EQC_ORD_CHUNK;
        return (*d)->n - *first < EQC_ORD_CHUNK ? (int)((*d)->n - *first) : EQC_ORD_CHUNK;
    };
    const auto to_split = [&](long long g, int count) {
        return count > 0 && plan[g] == EQ_ORD_NONE && !zero[g] && pool_cap > 0;
    };
    for (int i = blockIdx.x; BLOCK && i < n; i += gridDim.x) {
        long long g, first;
        const EqcSumDesc *d;
        const int count = item(i, &g, &d, &first);
        if (!to_split(g, count))
            continue;
        stage_chunk<SPLIT_NT>(*d, first, count, stage[0], threadIdx.x, d->kind);
        split_by_block(stage[0], approx[g], true, g, runs, split_idx, pool, pool_cap, counters,
                       &sh);
        __syncthreads(); /* the rows are staged again for the next chunk */
    }
    if (warp >= RUNS_WARPS)
        return;
    double *st = stage[warp];
    double *mine = st + lane * RUNS_ROW;
    for (int i = blockIdx.x * RUNS_WARPS + warp; i < n; i += gridDim.x * RUNS_WARPS) {
        long long g, first;
        const EqcSumDesc *d;
        const int count = item(i, &g, &d, &first);
        if (count <= 0) {
            if (lane == 0)
                empty_chunk(g, plan[g], runs, split_idx);
            continue;
        }
        if (BLOCK && to_split(g, count))
            continue;
        stage_chunk(*d, first, count, st, lane);
        rows_to_terms(mine, d->kind);
        chunk_result(mine, min(max(count - lane * 32, 0), 32), plan[g], g, no_fast, approx,
                     zero, runs, split_idx, pool, pool_cap, counters, lane);
        __syncwarp(); /* the rows are staged again for the next chunk */
    }
}

/* ---- small launches: one kernel from the terms to the walk ---- */

/* Launches whose sums have at most EQC_ORD_LANES chunks each are walked by
 * ord_walk_small_kernel. Before it, by default (EQ_CUDA_FUSED_ENV), one
 * kernel does what the chunk runs, plan and runs-again kernels do for
 * larger launches: SSIM's launch at 4K is 480 chunks, and its three
 * kernels were a chain of latencies (about 19 us on the H200) more than
 * of work. A block of SPLIT_NT threads takes a chunk: it stages the
 * chunk's terms, forms the chunk's approximate sum (chunk_sum_of: the host
 * pipeline's grouping) and publishes it (a release store of the launch's
 * epoch in the chunk's ready flag), then waits for the chunk sums before
 * it in its sum (acquire loads) and plans the chunk as ord_plan_kernel
 * does with a block of SPLIT_NT threads: the same scan of the sum's chunk
 * sums (plan_prefix), whose value at chunk c reads no chunk after c, so
 * the same approximate prefixes and the same plan. Then warp 0 forms the
 * chunk's run under its binade (chunk_run), or the block its split record
 * (split_chunk). No plan is kept between launches.
 *
 * A block waits only for blocks that took a lower ticket (the chunks are
 * handed out in the order blocks start, by an atomic counter), and every
 * block publishes before it waits: so the blocks that it waits for are
 * running or done, and none of them waits for it. The flags are not
 * cleared between launches: each launch marks them with its own epoch, a
 * number no launch before it used (until the 32-bit count wraps). They
 * lie in a region of the engine's buffer that holds nothing else and is
 * zeroed when the buffer is allocated (EQC_READY_BYTES), so a flag holds 0
 * or an earlier launch's epoch, never this launch's before its chunk is
 * published. (Inside the buffer's other arrays, whose places move with the
 * launch's layout, an earlier launch's data could equal the epoch: the
 * scan then took a stale chunk sum, a wrong plan, seen once in the
 * harness; the walk's checks still gave the loop's bits.) */
static __device__ __forceinline__ unsigned ld_acquire_u32(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ void st_release_u32(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* The small walk's wait for a chunk flag of the fused kernel
 * (EQ_CUDA_FEDWALK_ENV). A flag that never comes (a defect: every fused
 * block is resident or done before the walk launches) ends the launch
 * with an error after 2^25 polls, a second or more, where it would hang
 * the stream and whatever waits on it. */
static __device__ __forceinline__ void wait_flag(const unsigned *f, unsigned epoch)
{
    for (unsigned n = 0; ld_acquire_u32(f) != epoch; n++) {
        if (n == 1u << 25)
            __trap();
        __nanosleep(32);
    }
}

/* tests (EQ_CUDA_STAGE_SUM_FUSED_LATE): n words of p set to v */
__global__ void fill_u32_kernel(unsigned *p, size_t n, unsigned v)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}

/* A fused block's chunk sum and zero flag, published: its ready flag
 * set (release) after them. */
static __device__ __forceinline__ void publish_chunk_sum(const EqcSumTable *t, int s, long long g,
                                                         int late, double cs, int nonzero,
                                                         double *chunk_sum, unsigned char *zero,
                                                         unsigned *ready, unsigned epoch)
{
    /* tests (EQ_CUDA_STAGE_SUM_FUSED_LATE): the later chunks first */
    for (long long k = late ? t->chunk_off[s + 1] - g : 0; k > 0; k--)
        __nanosleep(2000);
    chunk_sum[g] = cs;
    zero[g] = (unsigned char)!nonzero;
    st_release_u32(&ready[g], epoch);
}

template <int FED, int CROSS>
__global__ void __launch_bounds__(SPLIT_NT, 4)
ord_small_chunks_kernel(const EqcSumTable *t, int *counters, double *chunk_sum,
                        unsigned char *zero, int *plan, double *approx, EqOrdRun *runs,
                        int *split_idx, EqCudaSplit *pool, int pool_cap, unsigned *ready,
                        unsigned epoch, int no_fast, int late, double *first_sum, int prewalk,
                        int early_walk, int wait_warp, unsigned *run_ready, unsigned *done,
                        EqCudaCross *cross, int *keep_e0)
{
    static_assert(SPLIT_NT == EQC_ORD_LANES, "a thread per chunk of a sum");
    __shared__ double stage[32 * RUNS_ROW];
    __shared__ double wtot[SPLIT_NT / 32];
    __shared__ double before[SPLIT_NT]; /* wait_warp: the chunk sums before c */
    __shared__ SplitShared sh;
    __shared__ CrossShared<CROSS> xs;
    __shared__ long long ticket;
    __shared__ double own, own_prefix;
    __shared__ int own_nz, own_plan;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    /* the small walk after it may launch now (EQ_CUDA_EARLYWALK_ENV): its
     * blocks wait in griddepcontrol.wait for this kernel's end, on
     * multiprocessors that this launch's blocks, all running by then,
     * leave over */
    if (early_walk)
        asm volatile("griddepcontrol.launch_dependents;");
    if (tid == 0)
        ticket = atomicAdd(&counters[4], 1);
    __syncthreads();
    const long long g = ticket;
    const int s = last_at_most(t->nsums, g, [&](int j) { return t->chunk_off[j]; });
    const EqcSumDesc d = t->d[s];
    const long long off = t->chunk_off[s];
    const int c = (int)(g - off);
    const long long first = (long long)c * EQC_ORD_CHUNK;
    const int count = d.n - first < EQC_ORD_CHUNK ? (int)(d.n - first) : EQC_ORD_CHUNK;

    /* the chunk's approximate sum and zero flag (an empty sum's one chunk:
     * 0.0 and zero, as ord_chunk_sums_kernel), published by thread 0
     * before the block's next barrier. A sum's first chunk is prewalked
     * meanwhile, by thread 32 (`pw`): its plan is always "term by term"
     * (its prefix, +0.0, has no binade: eq_ord_binade), so its walk below
     * is always this one. The barrier waits for it, but no other block
     * waits for this one past its published sum. */
    double pw = 0.0;
    if (count > 0) {
        stage_chunk<SPLIT_NT>(d, first, count, stage, tid, d.kind);
        if (warp == 0) {
            int nonzero;
            const double acc = chunk_sum_of(stage + lane * RUNS_ROW, EQC_TERM_X, lane, &nonzero);
            if (lane == 0) {
                own = acc;
                own_nz = nonzero;
                publish_chunk_sum(t, s, g, late, acc, nonzero, chunk_sum, zero, ready, epoch);
            }
        } else if (tid == 32 && c == 0 && prewalk) {
            pw = prewalk_chunk(stage, count);
        }
    } else if (tid == 0) {
        own = 0.0;
        own_nz = 0;
        publish_chunk_sum(t, s, g, late, 0.0, 0, chunk_sum, zero, ready, epoch);
    }
    __syncthreads();
    const double cs = own;

    /* CROSS (EQ_CUDA_CROSSREC_ENV): the chunk's crossing record formed
     * now, before the wait, under the binade keep_e0[g] that this launch's
     * slot kept from its launch before (the same sums a frame before;
     * advice, any value: only a normal binade is taken); kept below where
     * this launch's plan names the same. CROSS 2 ("split"): its runs and
     * its lanes' totals only, in shared memory, for its split record */
    int early_e0 = EQ_ORD_NONE;
    if (CROSS && count > 0 && own_nz && !(c == 0 && prewalk)) {
        const int k = keep_e0[g];
        if (k >= EQ_ORD_EMIN && k < EQ_ORD_EMAX) {
            if constexpr (CROSS == 2)
                cross_split_runs(stage, count, k, &xs);
            else
                cross_form(stage, count, k, cross + g);
            early_e0 = k;
        }
    }

    /* ord_plan_kernel<SPLIT_NT>'s scan (a chunk a thread), the entries
     * after chunk c left 0.0. The chunk sums before c: with wait_warp
     * (EQ_CUDA_FUSEDWAIT_ENV) warp 0 waits for their flags, lane l for
     * chunks l, l + 32, .., and reads them for the block (fewer threads
     * polling the launch's few lines of flags, and polling less often);
     * else thread j waits for chunk j's */
    if (wait_warp) {
        if (warp == 0) {
            for (int j = lane; j < c; j += 32) {
                while (ld_acquire_u32(&ready[off + j]) != epoch) {
                    __nanosleep(32);
                }
                before[j] = __ldcg(&chunk_sum[off + j]);
            }
        }
        __syncthreads();
    }
    double local = 0.0;
    if (tid < c) {
        if (!wait_warp)
            while (ld_acquire_u32(&ready[off + tid]) != epoch) {
            }
        local += wait_warp ? before[tid] : __ldcg(&chunk_sum[off + tid]);
    } else if (tid == c) {
        local += cs;
    }
    const double prefix = plan_prefix<SPLIT_NT>(wtot, local);
    if (tid == c) {
        const int e = eq_ord_plan_chunk(prefix, prefix + cs);
        own_plan = e;
        own_prefix = prefix;
        plan[g] = e;
        if (e == EQ_ORD_NONE)
            approx[g] = prefix;
    }
    __syncthreads();
    const int e = own_plan;
    /* a chunk planned term by term: its run (poisoned) and plan are
     * known now, its split record comes later; the small walk forms its
     * segments meanwhile (EQ_CUDA_FEDWALK_ENV) */
    if (FED == 2 && e == EQ_ORD_NONE) {
        if (tid == 0)
            runs[g] = eq_ord_poison();
        __threadfence();
        __syncthreads();
        if (tid == 0)
            st_release_u32(&run_ready[g], epoch);
    }

    /* the chunk's run, or its split record (as ord_runs_again_kernel);
     * FED 2 stored a poisoned run above */
    const bool run_left = FED != 2 || e != EQ_ORD_NONE;
    /* CROSS: a chunk whose prefixes cross one binade takes a crossing
     * record: the one formed before the wait where its binade is this
     * plan's, else one formed now; the binade kept for the slot's next
     * launch (EQ_ORD_NONE: none) */
    bool crossed = false, xsplit = false;
    if constexpr (CROSS == 2) {
        /* "split": where this plan's binade is the one the runs were
         * formed under before the wait, the split record formed from them
         * (cross_split), else as ever (split_chunk below); the binade
         * kept for the slot's next launch */
        const int e0 = e == EQ_ORD_NONE ? eq_ord_cross_binade(own_prefix, cs) : EQ_ORD_NONE;
        const bool early = e0 != EQ_ORD_NONE && e0 == early_e0;
        if (tid == 0) {
            keep_e0[g] = e0;
            if (early)
                atomicAdd(&counters[EQC_CNT_CROSS], 1);
        }
        if (early) {
            if (warp == 0)
                cross_split(stage, count, e0, own_prefix, g, runs, split_idx, pool, pool_cap,
                            counters, &xs, run_left);
            __syncthreads();
            xsplit = xs.formed;
        }
    } else if constexpr (CROSS == 1) {
        const int e0 = e == EQ_ORD_NONE ? eq_ord_cross_binade(own_prefix, cs) : EQ_ORD_NONE;
        crossed = e0 != EQ_ORD_NONE && count > 0 && own_nz && !(c == 0 && prewalk);
        if (crossed && e0 != early_e0)
            cross_form(stage, count, e0, cross + g);
        if (tid == 0) {
            keep_e0[g] = e0;
            if (crossed) {
                if (run_left)
                    runs[g] = eq_ord_poison();
                split_idx[g] = EQC_SPLIT_CROSSREC;
                atomicAdd(&counters[EQC_CNT_CROSS], 1);
                if (e0 == early_e0)
                    atomicAdd(&counters[EQC_CNT_CROSS_EARLY], 1);
            }
        }
    }
    if (count <= 0) {
        if (tid == 0)
            empty_chunk(g, e, runs, split_idx, run_left);
    } else if (e == EQ_ORD_NONE && c == 0 && prewalk) {
        /* a sum's first chunk starts from +0.0, which is known: the loop
         * itself (prewalked above, by this thread), off the walk's chain,
         * instead of a split record */
        if (tid == 32) {
            first_sum[s] = pw;
            if (run_left)
                runs[g] = eq_ord_poison();
            split_idx[g] = EQC_SPLIT_PREWALKED;
        }
    } else if (e == EQ_ORD_NONE) {
        if (!crossed && !xsplit)
            split_by_block(stage, own_prefix, own_nz, g, runs, split_idx, pool, pool_cap,
                           counters, &sh, run_left);
    } else if (warp == 0) {
        chunk_result(stage + lane * RUNS_ROW, min(max(count - lane * 32, 0), 32), e, g, no_fast,
                     approx, zero, runs, split_idx, pool, pool_cap, counters, lane);
    }
    /* the chunk is done (EQ_CUDA_FEDWALK_ENV): what its threads wrote for
     * the walk (plan, run, split slot and record, a first chunk's sum)
     * made visible before its flag, which the small walk's thread c waits
     * for with an acquire load */
    if (FED) {
        __threadfence();
        __syncthreads();
        if (tid == 0) {
            if (FED == 2 && e != EQ_ORD_NONE) /* else published after the plan */
                st_release_u32(&run_ready[g], epoch);
            st_release_u32(&done[g], epoch);
        }
    }
}

/* The segment records of one aligned group of EQC_ORD_SEG chunks: two
 * warps of the block, thread j of the group (threadIdx.x % EQC_ORD_SEG)
 * holding chunk j as x (its run, and whether it heads a segment:
 * eq_ord_segment_head; a chunk past the sum's end is the empty run heading
 * a segment of its own, read by no chunk of the sum). The segmented
 * inclusive scan of eq_ordsum_segment_runs() (shuffles within each warp,
 * then the first warp's total into the second: eq_ord_seg_combine is
 * associative, so the runs are the same whatever the pairing). Returns
 * the scan's value at chunk j, the composition from its segment's head to
 * it; *len gets the segment's length at its head (0 elsewhere), *head_at
 * where j's segment starts, *last whether j ends it (its run is then the
 * segment's), *zero whether no chunk of the group is `nonzero`. The
 * segments' ends come from the group's heads as bits (two ballots). Every
 * thread of the block calls it (one barrier). */
struct SegGroup {
    unsigned heads[2], nonzero[2];
    EqOrdSegRun first; /* the scan over the group's first warp */
};
static_assert(EQC_ORD_SEG == 64, "a group is two warps");

static __device__ __forceinline__ EqOrdSegRun segment_group(EqOrdSegRun x, bool nonzero,
                                                            SegGroup *g, int *len, int *head_at,
                                                            bool *last, bool *zero)
{
    const int lane = threadIdx.x & 31, j = threadIdx.x % EQC_ORD_SEG, hw = j >> 5;
    const bool own = x.head; /* x.head is the scan's after it */
    const unsigned hm = __ballot_sync(0xffffffffu, own);
    const unsigned nz = __ballot_sync(0xffffffffu, nonzero);
    for (int k = 1; k < 32; k *= 2) {
        const EqOrdSegRun y = eqc_shfl_up_seg(x, k);
        if (lane >= k)
            x = eq_ord_seg_combine(y, x);
    }
    if (lane == 0) {
        g->heads[hw] = hm;
        g->nonzero[hw] = nz;
    }
    if (lane == 31 && !hw)
        g->first = x;
    __syncthreads();
    if (hw)
        x = eq_ord_seg_combine(g->first, x);
    /* chunk j's segment ends before the first head past j (EQC_ORD_SEG
     * past the group), and starts at the last head up to j */
    const unsigned long long gh =
        (unsigned long long)g->heads[0] | (unsigned long long)g->heads[1] << 32;
    const unsigned long long upto = (2ull << j) - 1; /* bits 0 .. j (all of them for j = 63) */
    const int next = gh & ~upto ? __ffsll((long long)(gh & ~upto)) - 1 : EQC_ORD_SEG;
    *len = own ? next - j : 0;
    *head_at = 63 - __clzll((long long)(gh & upto));
    *last = next == j + 1;
    *zero = !(g->nonzero[0] | g->nonzero[1]);
    return x;
}

/* Block g covers group g of the table (segment_group): the segments' runs
 * at their heads, every chunk's seg_len, the group's zero flag. */
__global__ void __launch_bounds__(EQC_ORD_SEG)
ord_segments_kernel(const EqcSumTable *t, const int *plan, const EqOrdRun *runs,
                    const unsigned char *zero, EqOrdRun *seg, int *seg_len,
                    unsigned char *gzero)
{
    __shared__ SegGroup sh;
    pdl_wait();
    const long long gidx = blockIdx.x;
    const int s = last_at_most(t->nsums, gidx, [&](int i) { return t->group_off[i]; });
    const long long off = t->chunk_off[s], nch = t->chunk_off[s + 1] - off;
    const int j = threadIdx.x;
    const long long c0 = (gidx - t->group_off[s]) * EQC_ORD_SEG, c = c0 + j;
    const bool in = c < nch;
    EqOrdSegRun x;
    x.run = eq_ord_empty();
    x.head = 1;
    if (in) {
        x.run = runs[off + c];
        x.head = eq_ord_segment_head(plan + off, (int64_t)c, EQC_ORD_SEG);
    }
    int len, h;
    bool last, all_zero;
    x = segment_group(x, in && !zero[off + c], &sh, &len, &h, &last, &all_zero);
    if (in) {
        seg_len[off + c] = len;
        if (last)
            seg[off + c0 + h] = x.run;
        if (j == 0)
            gzero[gidx] = (unsigned char)all_zero;
    }
}

#define EQC_SPLIT_POOL 4096

/* The first EQC_WALK_GROUPS groups' records of the walk's sum, read once
 * by the whole block when the walk starts (one round of loads instead of
 * a dependent round for every 32 groups walk_groups takes). */
#define EQC_WALK_GROUPS 128 /* SSIMULACRA2's largest sums at 4K: 127 */
struct WalkGroups {
    EqOrdRun r[EQC_WALK_GROUPS];
    int e[EQC_WALK_GROUPS];
    unsigned char kind[EQC_WALK_GROUPS];
};

#define EQC_WALK_SPLITS 8

/* The first W words (of type Word) of records src[0 .. n-1] of a pool
 * copied to dst[0 .. n-1] by the block's EQC_ORD_LANES threads, PER words
 * a thread from word q0 (its thread index, or a later batch's start):
 * load() issues every load of a thread into v, store() writes them. One
 * round trip to L2 for the whole batch, not one for each word (a loop of
 * load-then-store waits for each load in turn); and a caller may do other
 * work between the two (the small walk's lean copy: its segments). CG:
 * the loads bypass L1 (__ldcg). SplitCopy<W>: the first W 8-byte words
 * of at most EQC_WALK_SPLITS split records in one batch. */
template <typename Rec, typename Word, int W, int PER, bool CG = false>
struct RecCopy {
    static constexpr int WORDS = (int)(sizeof(Rec) / sizeof(Word));
    static_assert(sizeof(Rec) % sizeof(Word) == 0, "records copied in whole words");
    static_assert(W >= 1 && W <= WORDS, "a part of a record");
    Word v[PER];

    __device__ __forceinline__ void load(const int *src, int n, const Rec *pool,
                                         int q0 = (int)threadIdx.x)
    {
#pragma unroll
        for (int k = 0; k < PER; k++) {
            const int q = q0 + k * EQC_ORD_LANES;
            if (q < n * W) {
                const Word *w = reinterpret_cast<const Word *>(pool + src[q / W]) + q % W;
                v[k] = CG ? __ldcg(w) : *w;
            }
        }
    }
    __device__ __forceinline__ void store(Rec *dst, int n, int q0 = (int)threadIdx.x) const
    {
#pragma unroll
        for (int k = 0; k < PER; k++) {
            const int q = q0 + k * EQC_ORD_LANES;
            if (q < n * W) {
                if (W == WORDS) /* whole records: one contiguous run of words */
                    reinterpret_cast<Word *>(dst)[q] = v[k];
                else
                    reinterpret_cast<Word *>(dst + q / W)[q % W] = v[k];
            }
        }
    }
};

template <int W>
using SplitCopy = RecCopy<EqCudaSplit, unsigned long long, W,
                          (EQC_WALK_SPLITS * W + EQC_ORD_LANES - 1) / EQC_ORD_LANES>;

/* Records src[0 .. n-1] of the pool, whole, copied to dst (the walk's
 * split records, read from shared memory while it walks). */
static __device__ __forceinline__ void copy_split_records(EqCudaSplit *dst, const int *src,
                                                          const int &n, const EqCudaSplit *pool)
{
    SplitCopy<(int)(sizeof(EqCudaSplit) / 8)> c;
    c.load(src, n, pool);
    c.store(dst, n);
}

/* The small walk's lean records (EQ_CUDA_LEANWALK_ENV): records of at
 * most EQC_LEAN_PIECES pieces (SSIM's crossing chunks: a run, the
 * crossing term, a run) are walked by split_walk_lean from their first
 * LEAN_WORDS words in shared memory; where a kept record has more pieces,
 * the kept records are copied again whole (one more round trip) and those
 * walked by split_walk. walk_chunks' `lean`: 0 off (whole records, every
 * one by split_walk), 1 the first words of each, 2 whole records. */
#define EQC_LEAN_PIECES EQ_ORD_SHORT_PIECES
#define EQC_LEAN_WORDS \
    ((int)((offsetof(EqCudaSplit, p) + EQC_LEAN_PIECES * sizeof(EqCudaSplitPiece)) / 8))
static_assert(offsetof(EqCudaSplit, p) % 8 == 0 && sizeof(EqCudaSplitPiece) % 8 == 0,
              "whole pieces in 8-byte words");

/* The records of the one group of EQC_ORD_SEG chunks the walk stages
 * (thread i stages chunk i of the group; every index is a chunk of it). */
struct WalkShared {
    EqOrdRun run[EQC_ORD_SEG];
    EqOrdRun seg[EQC_ORD_SEG];
    int plan[EQC_ORD_SEG];
    int seg_len[EQC_ORD_SEG];
    unsigned char zero[EQC_ORD_SEG];
    int split[EQC_ORD_SEG];
    WalkGroups groups;
    /* the staged group's first EQC_WALK_SPLITS split records (chunk k's
     * at recs[slot[k]], slot -1: read from the pool) */
    EqCudaSplit recs[EQC_WALK_SPLITS];
    int slot[EQC_ORD_SEG];
    int rec_src[EQC_WALK_SPLITS];
    int nrec;
    double s;
    long long next;
    int pos0;
    union {
        EqcExactShared ex;             /* the block's exact add */
        double terms[EQC_ORD_CHUNK];   /* EQC_WALK_SEQ */
    };
};

/* Warp 0 applies the pieces of a split chunk to the exact sum *x. Lane p
 * loads piece p once (every lane its slot). First the sums alone, piece
 * after piece, every lane the same arithmetic on the same values
 * (eq_ord_next_pos: a select and an add from one sum to the next; a
 * crossing piece's plain add taken by a select), each piece's increments
 * reaching every lane by shuffles a piece ahead, so that the chain waits
 * on no load (a load of the increment of the sum's parity would be one),
 * lane p keeping the sum piece p starts from; then lane p forms piece p's
 * check from it (eq_ord_apply_try_pos: a negative sum fails it), all
 * pieces' checks side by side. When every check passed, the last sum is
 * the exact sum. Otherwise the record by its definition, every lane alike
 * (eq_ord_walk_record, lib/exact/ordsum.h: each piece checked before the
 * next, read from the record; a cold path). Returns -1 when every
 * piece was added; otherwise the start of the first piece whose check
 * failed, *x then being the exact sum of the terms before it. `lie` (tests
 * only, EQ_CUDA_STAGE_SUM_LIE): the walk takes the middle run piece for a
 * poisoned run (eq_ord_poison: a run that fails every check, and adds
 * nothing), so that its check fails and the block adds the rest of the
 * chunk, with the same bits; a walk that skipped the check would lose the
 * piece's terms. */
static_assert(EQ_CUDA_SPLIT_MAX == 32, "one piece per lane, a piece for every lane");

/* The piece `lie` poisons in a record of np pieces (-1: none), for
 * piece_run and the header's walks (their `poison`). */
static __device__ __forceinline__ int lie_piece(int np, int lie)
{
    return lie ? np / 2 : -1;
}

static __device__ __forceinline__ EqOrdRun piece_run(const EqOrdRun &r, int p, int np, int lie)
{
    return lie && p == lie_piece(np, lie) ? eq_ord_poison() : r;
}

/* What the first pass's chain needs of piece p (lane p's): the run's
 * increments for both parities (its extremes left 0: eq_ord_next_pos does
 * not read them), the plain term and the binade. */
struct SplitPieceStep {
    EqOrdRun r;
    double x;
    int e;
};

static __device__ __forceinline__ SplitPieceStep split_step(const EqOrdRun &run,
                                                            const EqCudaSplitPiece &mine, int p)
{
    SplitPieceStep o;
    o.r = eq_ord_empty();
    o.r.d[0] = __shfl_sync(0xffffffffu, run.d[0], p);
    o.r.d[1] = __shfl_sync(0xffffffffu, run.d[1], p);
    o.x = __shfl_sync(0xffffffffu, mine.x, p);
    o.e = __shfl_sync(0xffffffffu, mine.e, p);
    return o;
}

static __device__ int split_walk(const EqCudaSplit *rec, double *x, int lane, int lie)
{
    /* every lane's piece loaded beside np, not after it: a record always
     * holds EQ_CUDA_SPLIT_MAX pieces, and those past np are never applied
     * (nor checked: their lanes pass) */
    const int np = rec->np;
    const EqCudaSplitPiece mine = rec->p[lane];
    const EqOrdRun my_run = piece_run(mine.run, lane, np, lie);
    /* piece p's increments, plain term and binade, shuffled to every lane
     * one piece ahead of the chain (the chain never waits on a load) */
    SplitPieceStep nx = split_step(my_run, mine, 0);
    double y = *x, mine_y = y;
#pragma unroll 4
    for (int p = 0; p < np; p++) {
        const SplitPieceStep cur = nx;
        nx = split_step(my_run, mine, (p + 1) & 31); /* unused past np */
        mine_y = lane == p ? y : mine_y; /* the sum piece p starts from */
        const double run_sum = eq_ord_next_pos(y, &cur.r);
        const double plain = y + cur.x;
        y = cur.e == EQ_CUDA_SPLIT_CROSS ? plain : run_sum;
    }
    double next;
    const int good = lane >= np || mine.e == EQ_CUDA_SPLIT_CROSS ||
                     eq_ord_apply_try_pos(mine_y, &my_run, mine.e, &next);
    if (__all_sync(0xffffffffu, good)) {
        *x = y;
        return -1;
    }
    /* a check failed (rare): the record by its definition, every lane
     * alike, from *x */
    return eq_ord_walk_record(x, rec->p, np, lie_piece(np, lie));
}

/* split_walk for a record of at most EQ_ORD_SHORT_PIECES pieces, every
 * lane alike (lib/exact/ordsum.h: the pieces read by every lane from the
 * same place, broadcasts, no shuffles; the checks off the chain of sums).
 * Returns as split_walk does; `lie` as there. */
static __device__ __forceinline__ int split_walk_lean(const EqCudaSplit *rec, double *x, int lie)
{
    const int np = rec->np;
    return eq_ord_walk_short(x, rec->p, np, lie_piece(np, lie));
}

/* walk_chunks' rules at chunk k where no segment of more than one chunk
 * covers it, tried in this order: a zero chunk leaves a finite sum as it
 * is; a planned chunk applies its run; a chunk planned term by term with a
 * split record walks the record; any other is added by the block.
 * walk_chunks tries the three tests in turn (macros, so that its code is
 * what it was before the walk as one chain), the chain takes walk_kind,
 * their order as a kind, for sums it knows to be finite. sh: the walk's
 * shared records (zero, plan, split). */
#define WALK_ZERO_AT(sh, k) ((sh).zero[k])
#define WALK_RUN_AT(sh, k) ((sh).plan[k] != EQ_ORD_NONE)
#define WALK_RECORD_AT(sh, k) ((sh).split[k] >= 0)
/* (the small walk's crossing forms: a chunk with a crossing record) */
#define WALK_CROSS_AT(sh, k) ((sh).split[k] == EQC_SPLIT_CROSSREC)

/* Warp 0 (every lane) walks a crossing record (EqCudaCross) from the
 * sum y, as eq_ord_walk_cross (lib/exact/ordsum.h) defines it: lane l
 * applies the prefix P[l] to y; the prefixes that pass are those of the
 * lanes before the first that fails (a longer prefix's check covers every
 * shorter one's sums), lo of them, so that, y being exact, the sum after
 * lane lo - 1's prefix is; lane lo's terms follow by the loop's own adds
 * (the crossing is among them), then the suffix S[lo] under e0 + 1,
 * checked. Returns the sum, *end -1 when every term was added; else *end
 * is the first term not added (S's check failed: a second crossing, or a
 * start outside e0), the sum the one before it. `lie` (tests only,
 * EQ_CUDA_STAGE_SUM_LIE): S taken for a poisoned run, whose check fails. */
static __device__ __forceinline__ double cross_step(const EqCudaCross &r, double y, int lane,
                                                    int lie, int *end)
{
    double u = y;
    const bool pass = eq_ord_apply(&u, &r.P[lane], r.e0);
    const unsigned b = __ballot_sync(0xffffffffu, pass);
    const int lo = b == 0xffffffffu ? 32 : __ffs(~b) - 1;
    const double before = __shfl_sync(0xffffffffu, u, lo > 0 ? lo - 1 : 0);
    /* the lane's adds and the suffix: the header's, as the host walks it */
    const EqOrdRun poison = eq_ord_poison();
    return eq_ord_cross_tail(lo > 0 ? before : y, r.x, r.count, lo, 32,
                             lie || lo == 32 ? &poison : &r.S[lo], r.e0, end);
}

/* A step of the walk as one chain (EQ_CUDA_WALKCHAIN_ENV) that is a
 * crossing record: EqOrdPiece's e this, start its place in the walk's
 * records (WalkCrossShared) */
#define EQC_STEP_CROSSREC (EQ_ORD_NONE + 2)
static_assert(EQC_STEP_CROSSREC != EQ_ORD_CROSS && EQC_STEP_CROSSREC < EQ_ORD_EMIN,
              "a step's kind apart from every binade and the crossing term");

enum { WALK_ZERO, WALK_RUN, WALK_RECORD, WALK_BLOCK };

/* One chunk's records as values, for walk_kind(v, 0) (the large walk's
 * chain, which loads them from global memory at once) */
struct ChunkVals {
    unsigned char zero[1];
    int plan[1], split[1];
};

template <typename Sh>
static __device__ __forceinline__ int walk_kind(const Sh &sh, int k)
{
    return WALK_ZERO_AT(sh, k)     ? WALK_ZERO
           : WALK_RUN_AT(sh, k)    ? WALK_RUN
           : WALK_RECORD_AT(sh, k) ? WALK_RECORD
                                   : WALK_BLOCK;
}

/* Warp 0's walk over staged chunks k .. nb - 1 (every lane alike): each
 * segment's run with the checked apply; where a segment fails (or is one
 * chunk), its chunks one by one: a zero chunk leaves a finite s (never
 * -0.0) as it is, a planned chunk applies run_of(k), a chunk planned term
 * by term goes by its split record. Returns the chunk that failed its
 * check (nb when none did), *x being exact before it; *pos0 is the term of
 * that chunk from which the block goes on (a split record's failed piece,
 * else 0). Sh: the walk's shared records (seg_len, seg, plan, zero, split,
 * slot, recs). */
template <bool CROSS = false, typename Sh, typename RunOf, typename CrossOf = decltype(nullptr)>
static __device__ __forceinline__ int walk_chunks(const Sh &sh, int k, int nb, double *x,
                                                  int *pos0, const EqCudaSplit *pool,
                                                  int *counters, int lane, int lie, int lean,
                                                  RunOf run_of, CrossOf cross_of = nullptr)
{
    *pos0 = 0;
    while (k < nb) {
        const int len = sh.seg_len[k];
        if (len > 1 && eq_ord_apply(x, &sh.seg[k], sh.plan[k])) {
            k += len;
            continue;
        }
        const int end = k + (len > 1 ? len : 1);
        while (k < end) {
            if (WALK_ZERO_AT(sh, k) && eq_exp_field(*x) != 0x7ff) {
                k++;
            } else if (WALK_RUN_AT(sh, k)) {
                const EqOrdRun r = run_of(k);
                if (!eq_ord_apply(x, &r, sh.plan[k]))
                    break;
                k++;
            } else if (WALK_RECORD_AT(sh, k)) {
                const int sl = sh.slot[k];
                /* lean 1: the kept records' first EQC_LEAN_WORDS words alone
                 * are in recs, and none has more pieces */
                const int p0 =
                    lean && sl >= 0 && sh.recs[sl].np <= EQC_LEAN_PIECES
                        ? split_walk_lean(&sh.recs[sl], x, lie)
                        : split_walk(sl >= 0 ? &sh.recs[sl] : pool + sh.split[k], x, lane, lie);
                if (lane == 0)
                    atomicAdd(&counters[p0 < 0 ? 1 : 2], 1);
                if (p0 >= 0) {
                    *pos0 = p0;
                    break;
                }
                k++;
            } else if constexpr (CROSS) {
                if (!WALK_CROSS_AT(sh, k))
                    break;
                /* CROSS: the chunk's crossing record (cross_of: where) */
                int p0;
                *x = cross_step(*cross_of(k), *x, lane, lie, &p0);
                if (lane == 0)
                    atomicAdd(&counters[p0 < 0 ? EQC_CNT_CROSS_APPLIED : EQC_CNT_CROSS_FAILED],
                              1);
                if (p0 >= 0) {
                    *pos0 = p0;
                    break;
                }
                k++;
            } else {
                break;
            }
        }
        if (k < end)
            break; /* chunk k fails its check */
    }
    return k;
}

/* A group's record for the walk: kind 1 (one segment covers the group: its
 * run `r` under binade `e`), 2 (every chunk zero) or 0 (neither: walked
 * chunk by chunk). */
static __device__ __forceinline__ int group_record(const EqcSumTable *t, int s, long long gs,
                                                   long long nch, const int *plan,
                                                   const EqOrdRun *seg, const int *seg_len,
                                                   const unsigned char *gzero, int *e,
                                                   EqOrdRun *r)
{
    const long long off = t->chunk_off[s];
    const int glen = nch - gs < EQC_ORD_SEG ? (int)(nch - gs) : EQC_ORD_SEG;
    if (gzero[t->group_off[s] + gs / EQC_ORD_SEG])
        return 2;
    *e = plan[off + gs];
    if (*e != EQ_ORD_NONE && seg_len[off + gs] == glen) {
        *r = seg[off + gs];
        return 1;
    }
    return 0;
}

/* Warp 0 applies whole aligned segment groups from chunk `base` (a
 * multiple of EQC_ORD_SEG): lane j takes group j's record (group_record;
 * from `pre` for the first EQC_WALK_GROUPS groups), then every lane
 * applies them in order (shuffles) until one is neither a segment nor
 * zero chunks. Returns the number of groups added; *x is exact after them. */
static __device__ int walk_groups(const EqcSumTable *t, int s, long long base, long long nch,
                                  const int *plan, const EqOrdRun *seg, const int *seg_len,
                                  const unsigned char *gzero, const WalkGroups *pre, double *x,
                                  int lane)
{
    const long long gs = base + (long long)lane * EQC_ORD_SEG;
    const long long gi = gs / EQC_ORD_SEG;
    int kind = 0, e = EQ_ORD_NONE; /* kind 1: one segment, 2: zero chunks only */
    EqOrdRun r = eq_ord_empty();
    if (gs < nch) {
        if (gi < EQC_WALK_GROUPS) {
            kind = pre->kind[gi];
            e = pre->e[gi];
            r = pre->r[gi];
        } else {
            kind = group_record(t, s, gs, nch, plan, seg, seg_len, gzero, &e, &r);
        }
    }
    /* The longest prefix of lanes whose groups are zero chunks or one
     * segment under one binade e0 (the first segment's): their runs
     * composed in order (zero groups as the empty run; an inclusive scan
     * across the lanes) and applied at once. Composition is associative
     * and the composed run's lowest and highest prefixes are those of the
     * runs one after another, so its check passes exactly when every one
     * of theirs would, and gives the same sum. When it fails (or the
     * prefix is shorter than 2) the groups go one by one below. */
    const unsigned seg1 = __ballot_sync(0xffffffffu, kind == 1);
    if (seg1) {
        const int e0 = __shfl_sync(0xffffffffu, e, __ffs(seg1) - 1);
        const unsigned ok = __ballot_sync(0xffffffffu, kind == 2 || (kind == 1 && e == e0));
        const int len = ~ok ? __ffs(~ok) - 1 : 32;
        if (len >= 2) {
            EqOrdRun c = kind == 1 ? r : eq_ord_empty();
            for (int k = 1; k < 32; k *= 2) {
                const EqOrdRun o = eqc_shfl_up(c, k);
                if (lane >= k)
                    c = eq_ord_compose(o, c);
            }
            const EqOrdRun all = eqc_shfl_run(c, len - 1);
            if (eq_ord_apply(x, &all, e0))
                return len;
        }
    }
    int j = 0;
    for (; j < 32; j++) {
        const int k = __shfl_sync(0xffffffffu, kind, j);
        if (k == 2 && eq_exp_field(*x) != 0x7ff)
            continue; /* s + 0 == s (s is never -0.0) */
        if (k != 1)
            break;
        const EqOrdRun rr = eqc_shfl_run(r, j);
        if (!eq_ord_apply(x, &rr, __shfl_sync(0xffffffffu, e, j)))
            break;
    }
    return j;
}

/* The walk's fallback: the block adds terms pos0.. of chunk c of sum d to
 * the exact running sum, in index order (EQC_WALK_SEQ: the loop's own
 * adds by one thread; else eqc_block_exact_add). Every thread of the block
 * calls it; every thread gets the new sum. */
static __device__ double walk_rest(const EqcSumDesc &d, long long c, double sum, int pos0,
                                   int walk, double *terms, EqcExactShared *ex, double *s_sh)
{
    double v[EQC_ORD_TPL];
    int nt;
    load_terms(d, c, v, &nt);
    (void)nt;
    const long long first = c * EQC_ORD_CHUNK;
    const int count = d.n - first < EQC_ORD_CHUNK ? (int)(d.n - first) : EQC_ORD_CHUNK;
    if (walk != EQC_WALK_SEQ)
        return eqc_block_exact_add(sum, v, count, ex, walk == EQC_WALK_PLAN, pos0);
#pragma unroll
    for (int j = 0; j < EQC_ORD_TPL; j++)
        terms[threadIdx.x * EQC_ORD_TPL + j] = v[j];
    __syncthreads();
    if (threadIdx.x == 0) {
        double x = sum;
#pragma unroll 8
        for (int k = pos0; k < count; k++)
            x += terms[k];
        *s_sh = x;
    }
    __syncthreads();
    sum = *s_sh;
    __syncthreads();
    return sum;
}

/* The large walk as one chain (EQ_CUDA_BIGCHAIN_ENV): a sum of at most
 * EQC_BIG_CHUNKS chunks whose steps (its segments' runs, its split
 * records' pieces) number at most EQC_BIG_STEPS, and whose chunks planned
 * term by term without a split record (EQ_CUDA_SPLIT_MAX pieces or more:
 * an early chunk that crosses many binades) number at most EQC_BIG_BREAKS.
 * In dynamic shared memory: the steps; per chunk its count of steps, then
 * the place of its first; the chunks without a record, in order. */
#define EQC_BIG_CHUNKS 8192
/* Session 36 took only sums of at most 4096 chunks: at 8100 (4K's scale
 * 0) the chain's three parts took up to 25k, 44k and 54k cycles (placing,
 * copying the steps, the walk of about 200 steps), slower than the walk
 * below. With the steps of one binade composed before the walk (some 200
 * become 40) and the places formed from 16-byte words, it is faster there
 * too (session 37). */
#define EQC_BIG_STEPS 512
#define EQC_BIG_BREAKS 8
#define EQC_BIG_RECS 128
#define EQC_BIG_PER (EQC_BIG_CHUNKS / EQC_ORD_LANES)
struct BigChainShared {
    EqOrdPiece prog[EQC_BIG_STEPS];
    __align__(16) unsigned short at[EQC_BIG_CHUNKS]; /* read as 16-byte words */
    int brk[EQC_BIG_BREAKS];
    int rec_c[EQC_BIG_RECS], rec_i[EQC_BIG_RECS]; /* the chunks with a record, its index */
    int step_c[EQC_BIG_STEPS]; /* the chunks with a step of their own (a segment's run) */
    double y;
    int ok, nrec, nbrk, nstep;
};

/* The chain's steps prog[0 .. steps-1] composed in place, as
 * eq_ord_compose_chain composes them: each stretch of consecutive run
 * steps under one binade (eq_ord_chain_joins; a crossing term's step
 * ends and starts one) becomes one step, its runs composed in order.
 * Thread i takes steps 2i and 2i + 1 (EQC_BIG_STEPS is twice the block:
 * one round, no stretch carried from a round before), a segmented block
 * scan composes the threads' pairs in order, and each stretch's last step
 * takes its stretch's composition. Composition is associative and a
 * composed run's lowest and highest prefixes are those of its runs one
 * after another, so its check passes exactly where each of theirs would,
 * with the same sum (walk_groups composes whole groups so); a sum inside a
 * stretch lies in its binade, so it is finite. Returns the steps left.
 * Every thread calls it. */
static __device__ int compose_steps(EqOrdPiece *prog, EqcExactShared *ex, int steps)
{
    static_assert(EQC_BIG_STEPS == 2 * EQC_ORD_LANES, "two steps a thread");
    EqOrdPiece q[2];
    EqOrdSegRun v[2];
    bool last[2];
    /* every read before the scans' barriers, every write after them (a
     * step goes to a place at most its own) */
#pragma unroll
    for (int j = 0; j < 2; j++) {
        const int k = 2 * (int)threadIdx.x + j;
        const bool in = k < steps;
        q[j].e = EQ_ORD_CROSS;
        if (in)
            q[j] = prog[k];
        const int pe = k > 0 && in ? prog[k - 1].e : EQ_ORD_CROSS;
        const int ne = k + 1 < steps ? prog[k + 1].e : EQ_ORD_CROSS;
        const bool cross = q[j].e == EQ_ORD_CROSS;
        v[j].run = in && !cross ? q[j].run : eq_ord_empty();
        v[j].head = !in || !eq_ord_chain_joins(pe, q[j].e);
        last[j] = in && !eq_ord_chain_joins(q[j].e, ne);
    }
    const EqOrdSegRun before = eqc_block_excl_seg(eq_ord_seg_combine(v[0], v[1]), ex);
    v[0] = eq_ord_seg_combine(before, v[0]);
    v[1] = eq_ord_seg_combine(v[0], v[1]);
    int total;
    int pos = eqc_block_excl_isum((int)last[0] + (int)last[1], &total, ex);
#pragma unroll
    for (int j = 0; j < 2; j++)
        if (last[j]) {
            if (q[j].e != EQ_ORD_CROSS)
                q[j].run = v[j].run;
            prog[pos++] = q[j];
        }
    __syncthreads();
    return total;
}

/* compose_steps alone (eq_cuda_stage_ord_compose, the harness): block b
 * composes chain b, its n[b] steps at in + b EQC_BIG_STEPS, into the same
 * place of out; nout[b], the steps left. */
__global__ void __launch_bounds__(EQC_ORD_LANES)
ord_compose_kernel(const EqOrdPiece *in, const int *n, EqOrdPiece *out, int *nout)
{
    __shared__ EqOrdPiece prog[EQC_BIG_STEPS];
    __shared__ EqcExactShared ex;
    const size_t at = (size_t)blockIdx.x * EQC_BIG_STEPS;
    const int steps = n[blockIdx.x];
    for (int k = threadIdx.x; k < steps; k += EQC_ORD_LANES)
        prog[k] = in[at + k];
    __syncthreads();
    const int left = compose_steps(prog, &ex, steps);
    for (int k = threadIdx.x; k < left; k += EQC_ORD_LANES)
        out[at + k] = prog[k];
    if (threadIdx.x == 0)
        nout[blockIdx.x] = left;
}

/* The large walk's sum s as one chain, by the whole block: chunk c's steps
 * (a segment of more than one chunk: its run; a segment of one chunk:
 * none if the chunk is zero, else its run or, planned term by term, its
 * split record's pieces), placed in chunk order by a block scan, then
 * eq_ord_walk_chain from `start` at chunk c0 (the small walk's chain, of
 * a whole large sum: segments and records staged at once, instead of a
 * group at a time as the walk below meets them). A chunk planned term by
 * term without a record ends a stretch of the chain: the block adds its
 * terms (walk_rest: the loop's own adds by default) and the chain goes on
 * after it. Returns 1 with *sum the sum, or 0 (too many steps or chunks
 * without a record, a failed check or a sum not finite) for the walk below
 * to take the sum from +0.0, as before. Every thread calls it; *sum and
 * the result are every thread's. dbg: a line per sum (tests of speed). */
static __device__ int walk_big_chain(BigChainShared &B, WalkShared &sh, const EqcSumDesc &d,
                                     long long off, int nch, int c0, double start,
                                     const int *plan, const EqOrdRun *seg, const int *seg_len,
                                     const unsigned char *zero, const int *split_idx,
                                     const EqCudaSplit *pool, int *counters, int lie, int walk,
                                     int dbg, double *sum)
{
    const int i = threadIdx.x;
    long long t0 = dbg ? clock64() : 0, t1 = 0, t2 = 0, t3 = 0;
    if (i == 0) {
        B.nrec = 0;
        B.nbrk = 0;
        B.nstep = 0;
    }
    __syncthreads();
    /* every chunk's segment length at once (one round of loads); a
     * chunk that is a segment of its own reads its zero flag, plan and
     * split index */
    int lens[EQC_BIG_PER];
#pragma unroll
    for (int k = 0; k < EQC_BIG_PER; k++) {
        const int c = i + k * EQC_ORD_LANES;
        lens[k] = c >= c0 && c < nch ? seg_len[off + c] : 0;
    }
#pragma unroll
    for (int k = 0; k < EQC_BIG_PER; k++) {
        const int c = i + k * EQC_ORD_LANES;
        int cnt = 0;
        bool own = lens[k] > 1; /* a step of its own: a segment's run */
        if (lens[k] == 1) {
            /* the three loads at once (one round), then walk_kind's rules
             * as the walk below takes the chunk */
            const ChunkVals v = { { zero[off + c] }, { plan[off + c] }, { split_idx[off + c] } };
            const int kind = walk_kind(v, 0), sp = v.split[0];
            if (kind == WALK_RUN) {
                own = true;
            } else if (kind == WALK_RECORD) {
                /* its count of pieces below, for all records at once */
                const int r = atomicAdd(&B.nrec, 1);
                if (r < EQC_BIG_RECS) {
                    B.rec_c[r] = c;
                    B.rec_i[r] = sp;
                }
            } else if (kind == WALK_BLOCK) {
                /* the block adds it */
                const int b = atomicAdd(&B.nbrk, 1);
                if (b < EQC_BIG_BREAKS)
                    B.brk[b] = c;
            }
        }
        if (own) {
            cnt = 1;
            const int q = atomicAdd(&B.nstep, 1);
            if (q < EQC_BIG_STEPS)
                B.step_c[q] = c;
        }
        B.at[c] = (unsigned short)cnt; /* 0 past nch */
    }
    __syncthreads();
    const int nbrk = B.nbrk, nrec = B.nrec, nstep = B.nstep;
    if (nbrk > EQC_BIG_BREAKS || nrec > EQC_BIG_RECS || nstep > EQC_BIG_STEPS) {
        if (dbg && i == 0)
            printf("bigchain nch %d c0 %d breaks %d recs %d runs %d: walk\n", nch, c0, nbrk,
                   nrec, nstep);
        return 0;
    }
    for (int r = i; r < nrec; r += EQC_ORD_LANES)
        B.at[B.rec_c[r]] = (unsigned short)pool[B.rec_i[r]].np;
    __syncthreads();
    /* the places: thread i's 32 chunks 32 i .. 32 i + 31 in order (four
     * 16-byte words of B.at, every chunk's count written above, 0 past
     * nch), a block scan */
    static_assert(EQC_BIG_PER == 32, "a thread's chunks are four words of B.at");
    uint4 *const atw = reinterpret_cast<uint4 *>(B.at) + 4 * i;
    uint4 w[4];
    int mine = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        w[j] = atw[j];
        const unsigned u[4] = { w[j].x, w[j].y, w[j].z, w[j].w };
#pragma unroll
        for (int h = 0; h < 4; h++)
            mine += (int)(u[h] & 0xffffu) + (int)(u[h] >> 16);
    }
    int steps;
    int at = eqc_block_excl_isum(mine, &steps, &sh.ex);
    if (steps > EQC_BIG_STEPS) {
        if (dbg && i == 0)
            printf("bigchain nch %d c0 %d breaks %d steps %d: walk\n", nch, c0, nbrk, steps);
        return 0;
    }
    /* each count replaced by its chunk's place (at most EQC_BIG_STEPS) */
#pragma unroll
    for (int j = 0; j < 4; j++) {
        unsigned u[4] = { w[j].x, w[j].y, w[j].z, w[j].w };
#pragma unroll
        for (int h = 0; h < 4; h++) {
            const unsigned a = (unsigned)at, b = a + (u[h] & 0xffffu);
            at = (int)(b + (u[h] >> 16));
            u[h] = a | b << 16;
        }
        atw[j] = make_uint4(u[0], u[1], u[2], u[3]);
    }
    if (dbg)
        t1 = clock64();
    if (i == 0) {
        /* the chunks without a record in chunk order (a few) */
        for (int a = 1; a < nbrk; a++)
            for (int b = a; b > 0 && B.brk[b - 1] > B.brk[b]; b--) {
                const int x = B.brk[b];
                B.brk[b] = B.brk[b - 1];
                B.brk[b - 1] = x;
            }
    }
    __syncthreads();
    /* the steps, each chunk's at its place: a segment's run by a thread
     * of the list of such chunks (spread over the block: the groups'
     * first chunks would all fall on four threads of a chunk-strided
     * loop), a record's pieces by a warp (lane p piece p: one round of
     * loads for the record) */
    for (int r = i; r < nstep; r += EQC_ORD_LANES) {
        const int c = B.step_c[r];
        EqOrdPiece q;
        q.run = seg[off + c];
        q.x = 0.0;
        q.e = plan[off + c]; /* a segment of more chunks is planned */
        q.start = 0;
        B.prog[B.at[c]] = q;
    }
    {
        const int lane = i & 31;
        for (int r = i >> 5; r < nrec; r += EQC_ORD_WARPS) {
            const int c = B.rec_c[r], o = B.at[c];
            const int np = (c + 1 < nch ? B.at[c + 1] : steps) - o; /* the record's pieces */
            if (lane < np) {
                EqOrdPiece q = pool[B.rec_i[r]].p[lane];
                q.run = piece_run(q.run, lane, np, lie);
                B.prog[o + lane] = q;
            }
        }
    }
    __syncthreads();
    /* without a chunk that the block adds, the stretches of one binade
     * composed first (about 200 steps of a 4K sum become 40) */
    if (nbrk == 0)
        steps = compose_steps(B.prog, &sh.ex, steps);
    if (dbg)
        t2 = clock64();
    /* the stretches between the chunks without a record, each one chain */
    double y = start;
    int from = 0, ok = 1;
    for (int b = 0; b <= nbrk; b++) {
        const int to = b < nbrk ? B.at[B.brk[b]] : steps;
        if (i < 32) {
            double x = y;
            const int good = eq_ord_walk_chain(&x, B.prog + from, to - from);
            if (i == 0) {
                B.y = x;
                B.ok = good;
            }
        }
        __syncthreads();
        y = B.y;
        ok = B.ok;
        __syncthreads();
        if (!ok)
            break;
        if (b < nbrk)
            y = walk_rest(d, B.brk[b], y, 0, walk, sh.terms, &sh.ex, &sh.s);
        from = to;
    }
    if (i == 0) {
        if (ok && B.nrec)
            atomicAdd(&counters[1], B.nrec);
        if (ok)
            atomicAdd(&counters[4], 1);
        if (dbg) {
            t3 = clock64();
            printf("bigchain nch %d c0 %d breaks %d steps %d recs %d: %s; cycles %lld %lld %lld\n",
                   nch, c0, nbrk, steps, B.nrec, ok ? "chain" : "failed", t1 - t0, t2 - t1,
                   t3 - t2);
        }
    }
    *sum = y;
    return ok;
}

/* Per sum, the exact running sum from +0.0. Warp 0 first adds whole
 * aligned groups of EQC_ORD_SEG chunks (walk_groups: one segment run per
 * group, or a group of zero chunks), the records of the sum's first
 * EQC_WALK_GROUPS groups read by the block when it starts.
 * Where a group is neither (a chunk planned term by term, a plan that
 * changes inside it) or its check fails, the group is staged in shared
 * memory and walked chunk by chunk: segments and chunk runs with the
 * checked apply, split records piece by piece, and a chunk that fails is
 * added exactly by the whole block from the failing term on. */
__global__ void __launch_bounds__(EQC_ORD_LANES)
ord_walk_kernel(const EqcSumTable *t, const int *plan, const EqOrdRun *runs, const EqOrdRun *seg,
                const int *seg_len, const unsigned char *zero, const unsigned char *gzero,
                const int *split_idx, const EqCudaSplit *pool,
                int *counters, double *out, int none_plan, int walk, int lie,
                const double *first_sum, int chain)
{
    __shared__ WalkShared sh;
    extern __shared__ __align__(16) unsigned char big_dyn[];
    const int s = blockIdx.x;
    pdl_wait();
    const EqcSumDesc d = t->d[s];
    const long long off = t->chunk_off[s], nch = t->chunk_off[s + 1] - off;
    const int i = threadIdx.x;
    double sum = 0.0;
    if (chain && !none_plan && nch <= EQC_BIG_CHUNKS) {
        /* one chain (EQ_CUDA_BIGCHAIN_ENV), from the sum of the first
         * chunk that the runs kernel added (first_sum: every sum's first
         * chunk is planned term by term, its prefix +0.0 having no binade) */
        const bool pre = d.n > 0 && plan[off] == EQ_ORD_NONE;
        double y;
        if (walk_big_chain(*reinterpret_cast<BigChainShared *>(big_dyn), sh, d, off, (int)nch,
                           pre ? 1 : 0, pre ? first_sum[s] : 0.0, plan, seg, seg_len, zero,
                           split_idx, pool, counters, lie, walk, chain == 2, &y)) {
            if (i == 0)
                out[d.out] = y;
            return;
        }
    }
    static_assert(EQC_ORD_SEG <= EQC_ORD_LANES, "a thread per chunk of a group");
    if (!none_plan) {
        const long long ng = (nch + EQC_ORD_SEG - 1) / EQC_ORD_SEG;
        for (int g = i; g < ng && g < EQC_WALK_GROUPS; g += EQC_ORD_LANES) {
            int e = EQ_ORD_NONE;
            EqOrdRun r = eq_ord_empty();
            sh.groups.kind[g] = (unsigned char)group_record(
                t, s, (long long)g * EQC_ORD_SEG, nch, plan, seg, seg_len, gzero, &e, &r);
            sh.groups.e[g] = e;
            sh.groups.r[g] = r;
        }
        __syncthreads();
    }
    long long base = 0;
    while (base < nch) {
        if (!none_plan) {
            if (threadIdx.x < 32) {
                double x = sum;
                const int adv = walk_groups(t, s, base, nch, plan, seg, seg_len, gzero,
                                            &sh.groups, &x, threadIdx.x);
                if (threadIdx.x == 0) {
                    sh.s = x;
                    sh.next = adv;
                }
            }
            __syncthreads();
            sum = sh.s;
            const long long adv = sh.next;
            __syncthreads();
            if (adv > 0) {
                base += adv * EQC_ORD_SEG;
                continue;
            }
        }
        /* one group, chunk by chunk */
        const int nb = nch - base < EQC_ORD_SEG ? (int)(nch - base) : EQC_ORD_SEG;
        if (i < nb) {
            const long long j = off + base + i;
            sh.run[i] = runs[j];
            sh.seg[i] = seg[j];
            sh.plan[i] = none_plan ? EQ_ORD_NONE : plan[j];
            sh.seg_len[i] = none_plan ? 0 : seg_len[j];
            sh.zero[i] = none_plan ? 0 : zero[j];
            sh.split[i] = none_plan ? -1 : split_idx[j];
        }
        __syncthreads();
        if (!none_plan) {
            /* the group's split records (the first EQC_WALK_SPLITS of them,
             * in chunk order) copied by the whole block at once, so that
             * the walk does not wait for each record's load in turn */
            if (threadIdx.x < 32) {
                int cnt = 0;
                for (int h = 0; h < nb; h += 32) {
                    const int k = h + threadIdx.x;
                    const bool has = k < nb && sh.split[k] >= 0;
                    const unsigned m = __ballot_sync(0xffffffffu, has);
                    const int rank = cnt + __popc(m & ((1u << threadIdx.x) - 1u));
                    const bool kept = has && rank < EQC_WALK_SPLITS;
                    if (k < nb)
                        sh.slot[k] = kept ? rank : -1;
                    if (kept)
                        sh.rec_src[rank] = sh.split[k];
                    cnt += __popc(m);
                }
                if (threadIdx.x == 0)
                    sh.nrec = cnt < EQC_WALK_SPLITS ? cnt : EQC_WALK_SPLITS;
            }
            __syncthreads();
            copy_split_records(sh.recs, sh.rec_src, sh.nrec, pool);
            __syncthreads();
        }
        int c = 0;
        if (base == 0 && sh.plan[0] == EQ_ORD_NONE && sh.split[0] == EQC_SPLIT_PREWALKED) {
            /* the first chunk, added by the runs kernel (the chain's
             * start): the sum from +0.0 after it */
            sum = first_sum[s];
            c = 1;
        }
        while (c < nb) {
            if (threadIdx.x < 32) {
                /* warp 0 walks, every lane alike (lane 0 writes) */
                const int lane = threadIdx.x;
                double x = sum;
                int pos0 = 0;
                const int k = walk_chunks(sh, c, nb, &x, &pos0, pool, counters, lane, lie, 0,
                                          [&](int j) { return sh.run[j]; });
                if (lane == 0) {
                    sh.s = x;
                    sh.next = k;
                    sh.pos0 = pos0;
                }
            }
            __syncthreads();
            sum = sh.s;
            c = (int)sh.next;
            const int pos0 = sh.pos0;
            __syncthreads();
            if (c < nb) {
                sum = walk_rest(d, base + c, sum, pos0, walk, sh.terms, &sh.ex, &sh.s);
                c++;
                /* a chunk inside a segment that failed: the rest of the
                 * segment's chunks are tried one by one (seg_len 0 there) */
            }
        }
        __syncthreads();
        base += nb;
    }
    if (threadIdx.x == 0)
        out[d.out] = sum;
}

/* Launches whose sums have at most EQC_ORD_LANES chunks each (SSIM's:
 * 127 chunks at 4K and 1080p, 174 at 576x324) walk by ord_walk_small_kernel:
 * a block per sum, thread c holding chunk c. The block forms the sum's
 * segments itself (the records ord_segments_kernel forms, written out as
 * it writes them) and keeps what the walk reads in shared memory: the
 * segments' runs at their heads, the chunks' plans, zero flags and split
 * slots, and the sum's first EQC_WALK_SPLITS split records. Nothing is
 * read back from global memory on the way (a failed segment's chunks read
 * their runs there), and there is no launch between the split records and
 * the walk. */
static_assert(EQC_ORD_LANES % EQC_ORD_SEG == 0 && EQC_ORD_SEG == 64, "two warps a group");
/* the most steps of the walk as one chain (EQ_CUDA_WALKCHAIN_ENV): as many
 * pieces as the staged terms' place holds */
#define EQC_WALK_CHAIN (EQC_ORD_CHUNK * (int)sizeof(double) / (int)sizeof(EqOrdPiece))

struct SmallWalkShared {
    EqOrdRun seg[EQC_ORD_LANES]; /* at a segment's head: the segment's run */
    int plan[EQC_ORD_LANES];
    int split[EQC_ORD_LANES];
    short seg_len[EQC_ORD_LANES];
    signed char slot[EQC_ORD_LANES]; /* the chunk's record in recs, or -1 */
    unsigned char zero[EQC_ORD_LANES];
    SegGroup groups[EQC_ORD_LANES / EQC_ORD_SEG];
    int nsplit[EQC_ORD_WARPS];
    int rec_src[EQC_WALK_SPLITS];
    EqCudaSplit recs[EQC_WALK_SPLITS];
    double s, first; /* first: a prewalked first chunk's sum (lean), else 0.0 */
    int next, pos0, c0;
    int nstep[EQC_ORD_WARPS]; /* the chain's steps a warp (EQ_CUDA_WALKCHAIN_ENV) */
    union {
        EqcExactShared ex;           /* the block's exact add */
        double terms[EQC_ORD_CHUNK]; /* EQC_WALK_SEQ */
        EqOrdPiece prog[EQC_WALK_CHAIN]; /* the chain's steps, before the walk */
    };
};

/* The small walk's crossing forms (EQ_CUDA_CROSSREC_ENV), in dynamic shared
 * memory: the sum's first EQC_WALK_CROSS crossing records in chunk order,
 * and each chunk's place among them. */
#define EQC_WALK_CROSS 8
struct WalkCrossShared {
    EqCudaCross rec[EQC_WALK_CROSS];
    int nx[EQC_ORD_WARPS];
    int src[EQC_WALK_CROSS];
    signed char slot[EQC_ORD_LANES]; /* the chunk's record in rec, or -1 */
};

/* eq_ord_walk_chain's walk with crossing records among the steps (a step
 * whose e is EQC_STEP_CROSSREC: record p[k].start of X, by cross_step,
 * its suffix's check beside the chain as a run's; the sum after it must
 * be finite), by warp 0, every lane. Returns 1 with *s the last sum, or 0
 * with *s as it was, as eq_ord_walk_chain. */
static __device__ int walk_chain_cross(double *s, const EqOrdPiece *p, int n,
                                       const WalkCrossShared *X, int lane, int lie)
{
    double y = *s;
    int ok = eq_exp_field(y) != 0x7ff;
    for (int k = 0; k < n; k++) {
        if (p[k].e == EQC_STEP_CROSSREC) {
            int end;
            y = cross_step(X->rec[p[k].start], y, lane, lie, &end);
            ok &= end < 0 && eq_exp_field(y) != 0x7ff;
        } else {
            y = eq_ord_chain_next(y, &p[k], k == n - 1, &ok);
        }
    }
    if (ok)
        *s = y;
    return ok;
}

template <int FED, int CHAIN, int CROSS>
__global__ void __launch_bounds__(EQC_ORD_LANES, 1)
ord_walk_small_kernel(const EqcSumTable *t, const int *plan, const EqOrdRun *runs, EqOrdRun *seg,
                      int *seg_len, const unsigned char *zero, unsigned char *gzero,
                      const int *split_idx, const EqCudaSplit *pool, int *counters, double *out,
                      int none_plan, int walk, int lie, const double *first_sum, int lean,
                      const unsigned *run_ready, const unsigned *done, unsigned epoch,
                      const EqCudaCross *cross)
{
    __shared__ SmallWalkShared sh;
    extern __shared__ __align__(16) unsigned char walk_dyn[];
    WalkCrossShared *const X = reinterpret_cast<WalkCrossShared *>(walk_dyn);
    const int s = blockIdx.x, c = threadIdx.x, lane = c & 31, w = c >> 5;
    const int g = c / EQC_ORD_SEG, j = c % EQC_ORD_SEG;
    if (!FED)
        pdl_wait();
    const EqcSumDesc d = t->d[s];
    const long long off = t->chunk_off[s];
    const int nch = (int)(t->chunk_off[s + 1] - off);
    const bool in = c < nch;
    if (FED) {
        /* fed by the fused kernel (EQ_CUDA_FEDWALK_ENV): thread c waits
         * for chunk c's flag (FED 2: the flag of its run and
         * plan; the rest below), and the barrier hands what each chunk's
         * block wrote to the whole block. Only this sum's chunks: the
         * walk starts when its own slowest chunk is done, not when the
         * launch's last block ends. The table was copied before the fused
         * kernel, which ran before this launch could start. */
        if (in)
            wait_flag(FED == 2 ? &run_ready[off + c] : &done[off + c], epoch);
        __syncthreads();
    }

    /* chunk c's records; a chunk past the end heads an empty segment of
     * its own (read by no chunk of the sum) */
    EqOrdSegRun x;
    x.run = eq_ord_empty();
    x.head = 1;
    int p = EQ_ORD_NONE, sp = -1;
    unsigned char z = 0;
    if (in) {
        x.run = runs[off + c];
        x.head = eq_ord_segment_head(plan + off, (int64_t)c, EQC_ORD_SEG);
        p = plan[off + c];
        z = zero[off + c];
        if (FED != 2)
            sp = none_plan ? -1 : split_idx[off + c];
    }
    /* the segments of each group of EQC_ORD_SEG chunks, as
     * ord_segments_kernel forms them; with_split: chunk c's split index
     * and record slot kept too */
    const auto segments = [&](bool with_split, int slot) {
        int len, h;
        bool last, all_zero;
        x = segment_group(x, in && !z, &sh.groups[g], &len, &h, &last, &all_zero);
        if (in) {
            seg_len[off + c] = len;
            if (last) {
                seg[off + c - j + h] = x.run;
                sh.seg[c - j + h] = x.run;
            }
            if (j == 0)
                gzero[t->group_off[s] + g] = (unsigned char)all_zero;
            sh.plan[c] = none_plan ? EQ_ORD_NONE : p;
            sh.zero[c] = none_plan ? 0 : z;
            sh.seg_len[c] = (short)(none_plan ? 0 : len);
            if (with_split) {
                sh.split[c] = sp;
                sh.slot[c] = (signed char)slot;
            }
        }
    };
    if (FED == 2) {
        /* fed in two steps: the segments while the split records are
         * formed, then a chunk planned term by term waits for its record
         * (the other chunks' flags came with their runs) */
        segments(false, 0);
        if (in && p == EQ_ORD_NONE)
            wait_flag(&done[off + c], epoch);
        if (in)
            sp = none_plan ? -1 : split_idx[off + c];
    }
    /* the first EQC_WALK_SPLITS split records in chunk order go to recs:
     * with `lean` (EQ_CUDA_LEANWALK_ENV) their first EQC_LEAN_WORDS words,
     * loaded here and stored after the segments, which hide the loads */
    const unsigned sm = __ballot_sync(0xffffffffu, sp >= 0);
    if (lane == 0)
        sh.nsplit[w] = __popc(sm);
    /* CROSS: the crossing records ranked the same way, the first
     * EQC_WALK_CROSS copied to X->rec below */
    unsigned xm = 0;
    if constexpr (CROSS) {
        xm = __ballot_sync(0xffffffffu, sp == EQC_SPLIT_CROSSREC);
        if (lane == 0)
            X->nx[w] = __popc(xm);
    }
    __syncthreads();
    int rank = __popc(sm & ((1u << lane) - 1u)), total = 0;
    for (int k = 0; k < EQC_ORD_WARPS; k++) {
        rank += k < w ? sh.nsplit[k] : 0;
        total += sh.nsplit[k];
    }
    int nxrec = 0;
    if constexpr (CROSS) {
        int xr = __popc(xm & ((1u << lane) - 1u)), xtot = 0;
        for (int k = 0; k < EQC_ORD_WARPS; k++) {
            xr += k < w ? X->nx[k] : 0;
            xtot += X->nx[k];
        }
        const bool xkept = sp == EQC_SPLIT_CROSSREC && xr < EQC_WALK_CROSS;
        if (in)
            X->slot[c] = (signed char)(xkept ? xr : -1);
        if (xkept)
            X->src[xr] = c;
        nxrec = xtot < EQC_WALK_CROSS ? xtot : EQC_WALK_CROSS;
    }
    const bool kept = sp >= 0 && rank < EQC_WALK_SPLITS;
    if (kept)
        sh.rec_src[rank] = sp;
    const int nrec = total < EQC_WALK_SPLITS ? total : EQC_WALK_SPLITS;
    SplitCopy<EQC_LEAN_WORDS> lean_recs;
    if (lean) {
        /* whether the fused kernel added the first chunk, and its sum,
         * loaded beside the records (thread 0 holds chunk 0) */
        if (c == 0) {
            const bool pre = in && !none_plan && p == EQ_ORD_NONE && sp == EQC_SPLIT_PREWALKED;
            sh.first = pre ? first_sum[s] : 0.0;
            sh.c0 = pre ? 1 : 0;
        }
        __syncthreads();
        lean_recs.load(sh.rec_src, nrec, pool);
    }
    if (FED != 2) {
        segments(true, kept ? rank : -1);
    } else if (in) {
        sh.split[c] = sp;
        sh.slot[c] = (signed char)(kept ? rank : -1);
    }
    if (lean) {
        lean_recs.store(sh.recs, nrec);
        __syncthreads();
        /* a kept record of more pieces: all copied again whole */
        const bool long_rec = c < nrec && sh.recs[c].np > EQC_LEAN_PIECES;
        if (__syncthreads_or(long_rec)) {
            copy_split_records(sh.recs, sh.rec_src, nrec, pool);
            lean = 2;
        }
    } else {
        __syncthreads();
        copy_split_records(sh.recs, sh.rec_src, nrec, pool);
    }
    if constexpr (CROSS) {
        /* the kept crossing records, whole, in 16-byte words (their
         * sources placed before the barriers above), in batches of XB
         * words a thread (RecCopy) */
        constexpr int W = (int)(sizeof(EqCudaCross) / 16), XB = 8;
        const int words = nxrec * W;
        RecCopy<EqCudaCross, int4, W, XB, true> xc;
        __syncthreads();
        for (int q0 = c; q0 < words; q0 += XB * EQC_ORD_LANES) {
            xc.load(X->src, nxrec, cross + off, q0);
            xc.store(X->rec, nxrec, q0);
        }
    }
    __syncthreads();

    /* warp 0 walks (every lane alike, lane 0 writes); a chunk that fails
     * its check is added by the whole block from the failing term on */
    double sum = 0.0;
    int c0 = 0;
    if (lean) {
        sum = sh.first;
        c0 = sh.c0;
    } else if (nch > 0 && !none_plan && plan[off] == EQ_ORD_NONE &&
               split_idx[off] == EQC_SPLIT_PREWALKED) {
        /* the fused kernel added the first chunk (chunk 1 heads a segment:
         * chunk 0 is planned term by term) */
        sum = first_sum[s];
        c0 = 1;
    }
    if (CHAIN && !none_plan) {
        /* the walk as one chain (EQ_CUDA_WALKCHAIN_ENV): chunk c's steps
         * (at a segment's head its run, and a record's pieces; none for
         * a zero chunk, a chunk inside a segment or one before c0) in
         * chunk order by a block scan, then eq_ord_walk_chain, which
         * forms the sums alone and the checks beside them instead of a
         * step of walk_chunks per segment and record. A chunk planned
         * term by term without a record in recs, too many steps, or a
         * failed check or sum not finite: the walk below, as before,
         * from the same start. */
        int cnt = 0, bad = 0, rec = 0, xrec = 0;
        if (in && c >= c0) {
            /* walk_kind's rules (the chain's sums are all finite); CROSS:
             * a crossing record in X->rec, one step */
            const int len = sh.seg_len[c];
            const int kind = len == 1 ? walk_kind(sh, c) : WALK_ZERO;
            if (len > 1 || kind == WALK_RUN)
                cnt = 1;
            else if (kind == WALK_RECORD && sh.slot[c] >= 0)
                cnt = sh.recs[sh.slot[c]].np, rec = 1;
            else if (CROSS && kind == WALK_BLOCK && WALK_CROSS_AT(sh, c) && X->slot[c] >= 0)
                cnt = 1, xrec = 1;
            else if (kind != WALK_ZERO)
                bad = 1; /* the block adds it, or its record is not in recs */
        }
        int inc = cnt;
        for (int o = 1; o < 32; o *= 2) {
            const int y = __shfl_up_sync(0xffffffffu, inc, o);
            inc += lane >= o ? y : 0;
        }
        if (lane == 31)
            sh.nstep[w] = inc;
        const int nrec = __syncthreads_count(rec);
        const int nxchain = CROSS ? __syncthreads_count(xrec) : 0;
        bad = __syncthreads_or(bad);
        int at = inc - cnt, steps = 0;
        for (int k = 0; k < EQC_ORD_WARPS; k++) {
            at += k < w ? sh.nstep[k] : 0;
            steps += sh.nstep[k];
        }
        if (!bad && steps <= EQC_WALK_CHAIN) {
            if (rec) {
                const EqCudaSplit &r = sh.recs[sh.slot[c]];
                for (int k = 0; k < cnt; k++) {
                    EqOrdPiece q = r.p[k];
                    q.run = piece_run(q.run, k, cnt, lie);
                    sh.prog[at + k] = q;
                }
            } else if (cnt) {
                EqOrdPiece q;
                q.run = xrec ? eq_ord_empty() : sh.seg[c];
                q.x = 0.0;
                q.e = xrec ? EQC_STEP_CROSSREC : sh.plan[c];
                q.start = xrec ? X->slot[c] : 0;
                sh.prog[at] = q;
            }
            __syncthreads();
            if (w == 0) {
                double y = sum;
                const int ok = CROSS ? walk_chain_cross(&y, sh.prog, steps, X, lane, lie)
                                     : eq_ord_walk_chain(&y, sh.prog, steps);
                if (lane == 0) {
                    sh.s = y;
                    sh.next = ok;
                    if (ok && nrec)
                        atomicAdd(&counters[1], nrec);
                    if (ok && nxchain)
                        atomicAdd(&counters[EQC_CNT_CROSS_APPLIED], nxchain);
                }
            }
            __syncthreads();
            if (sh.next) {
                sum = sh.s;
                c0 = nch;
            }
            __syncthreads();
        }
    }
    while (c0 < nch) {
        if (w == 0) {
            double xs = sum;
            int pos0 = 0;
            /* a segment of one chunk holds the chunk's run; other chunks'
             * runs (a failed segment's) are read from global memory */
            const int k = walk_chunks<CROSS != 0>(
                sh, c0, nch, &xs, &pos0, pool, counters, lane, lie, lean,
                [&](int j) { return sh.seg_len[j] == 1 ? sh.seg[j] : runs[off + j]; },
                [&](int j) {
                    /* CROSS: a kept record in shared memory, else the pool's */
                    return X->slot[j] >= 0 ? &X->rec[X->slot[j]] : cross + off + j;
                });
            if (lane == 0) {
                sh.s = xs;
                sh.next = k;
                sh.pos0 = pos0;
            }
        }
        __syncthreads();
        sum = sh.s;
        c0 = sh.next;
        const int pos0 = sh.pos0;
        __syncthreads();
        if (c0 < nch) {
            /* a chunk inside a segment that failed: the rest of the
             * segment's chunks are tried one by one (seg_len 0 there) */
            sum = walk_rest(d, c0, sum, pos0, walk, sh.terms, &sh.ex, &sh.s);
            c0++;
        }
    }
    if (c == 0)
        out[d.out] = sum;
    /* fed: this launch ends only after the fused kernel has (the stream's
     * order for what follows; its blocks are done with everything the
     * walk read, so this costs nothing) */
    if (FED)
        pdl_wait();
}

/* ------------------------------------------------------------ launcher */

/* ord_plan_kernel with a block of 256 threads, or of 1024 where a sum has
 * more than 2048 chunks (SSIMULACRA2's scale 0 above 1080p): each thread's
 * stretch of chunk sums, added and then planned one by one, is the
 * kernel's latency (4K's 8100 chunks: 30 us with 256 threads, 15 with
 * 1024). Tree mode keeps 256, the grouping of its tree total. */
static cudaError_t plan_launch(long long most_chunks, int tree, cudaStream_t stream,
                               const EqcSumTable *dt, int nsums, const double *chunk_sum,
                               int *plan, double *approx, double *dout, int *counters,
                               const int *prev, int *again, int first_pre)
{
    if (!tree && most_chunks > 2048)
        return launch_pdl(ord_plan_kernel<1024>, (unsigned)nsums, 1024, stream, dt, chunk_sum,
                          plan, approx, dout, tree, counters, prev, again, first_pre);
    return launch_pdl(ord_plan_kernel<EQC_ORD_LANES>, (unsigned)nsums, EQC_ORD_LANES, stream,
                      dt, chunk_sum, plan, approx, dout, tree, counters, prev, again,
                      first_pre);
}

/* The fused kernel's ready flags of a newly allocated engine buffer
 * (its first EQC_READY_BYTES) set to 0, on `stream`. */
static int ready_zero(EqCuda *cuda, void *buf, cudaStream_t stream)
{
    int err = 0;
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaMemsetAsync(buf, 0, EQC_READY_BYTES, stream));
    return 0;
fail:
    return err;
}

int eqc_sums_launch(EqCuda *cuda, const EqcSumDesc *descs, int nsums, double *dout,
                    cudaStream_t stream)
{
    return eqc_sums_launch_in(cuda, descs, nsums, dout, stream, EQC_SCRATCH_SUM_A);
}

/* The launch's layout is the one its kept plan was made for: the same
 * sums (lengths, strides, kinds) in the same plane groups. */
static int same_layout(const EqcSumTable *a, const EqcSumTable *b)
{
    if (a->nsums != b->nsums || a->ngroups != b->ngroups)
        return 0;
    for (int i = 0; i < a->nsums; i++)
        if (a->d[i].n != b->d[i].n || a->d[i].stride != b->d[i].stride ||
            a->d[i].kind != b->d[i].kind)
            return 0;
    for (int g = 0; g < a->ngroups; g++)
        if (a->gfirst[g] != b->gfirst[g] || a->gcount[g] != b->gcount[g])
            return 0;
    return 1;
}

/* ord_walk_small_kernel's forms: [fed][chain] (EQ_CUDA_FEDWALK_ENV,
 * EQ_CUDA_WALKCHAIN_ENV), and with crossing records [fed][chain]
 * (EQ_CUDA_CROSSREC_ENV: their records in dynamic shared memory) */
static decltype(&ord_walk_small_kernel<0, 0, 0>) const walk_small[3][2] = {
    { ord_walk_small_kernel<0, 0, 0>, ord_walk_small_kernel<0, 1, 0> },
    { ord_walk_small_kernel<1, 0, 0>, ord_walk_small_kernel<1, 1, 0> },
    { ord_walk_small_kernel<2, 0, 0>, ord_walk_small_kernel<2, 1, 0> },
};
static decltype(&ord_walk_small_kernel<0, 0, 0>) const walk_small_cross[3][2] = {
    { ord_walk_small_kernel<0, 0, 1>, ord_walk_small_kernel<0, 1, 1> },
    { ord_walk_small_kernel<1, 0, 1>, ord_walk_small_kernel<1, 1, 1> },
    { ord_walk_small_kernel<2, 0, 1>, ord_walk_small_kernel<2, 1, 1> },
};

int eqc_sums_launch_in(EqCuda *cuda, const EqcSumDesc *descs, int nsums, double *dout,
                       cudaStream_t stream, int scratch)
{
    int err = 0;
    EqcSumTable *ht, *dt;
    EqcPlanKeep *keep;
    long long total = 0, groups = 0, most_chunks = 0;

    if (nsums <= 0)
        return 0;
    if (nsums > EQC_MAX_SUMS || cuda->table_next >= EQC_TABLE_SLOTS) {
        eq_log(&cuda->log, EQ_LOG_ERROR, "internal: too many sums for one frame");
        return EQ_ERR_INTERNAL;
    }
    ht = &cuda->htables[cuda->table_next];
    dt = &cuda->dtables[cuda->table_next];
    keep = &cuda->keep[cuda->table_next];
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
        most_chunks = nch > most_chunks ? nch : most_chunks;
        total += nch;
        groups += (nch + EQC_ORD_SEG - 1) / EQC_ORD_SEG;
    }
    ht->chunk_off[nsums] = total;
    ht->group_off[nsums] = groups;
    /* plane groups: runs of sums over the same terms' plane */
    long long gtotal = 0;
    for (int i = 0; i < nsums; i++) {
        const EqcSumDesc *a = &descs[i], *b = i ? &descs[i - 1] : NULL;
        if (b && a->x == b->x && a->n == b->n && a->stride == b->stride) {
            ht->gcount[ht->ngroups - 1]++;
            continue;
        }
        ht->gfirst[ht->ngroups] = i;
        ht->gcount[ht->ngroups] = 1;
        ht->gchunk_off[ht->ngroups] = gtotal;
        ht->ngroups++;
        gtotal += ht->chunk_off[i + 1] - ht->chunk_off[i];
    }
    ht->gchunk_off[ht->ngroups] = gtotal;

    /* split records: one per chunk planned term by term, up to the pool's
     * size (a chunk beyond it goes to the walk's fallback, as before) */
    const int pool_cap = (int)(total < EQC_SPLIT_POOL ? total : EQC_SPLIT_POOL);
    const int tree = cuda->sum_mode == EQ_CUDA_SUM_TREE;
    const int fused = !tree && !cuda->walk_none_plan &&
                      eq_cuda_fused_launch(most_chunks, total, cuda->fused);
    /* crossing records (EQ_CUDA_CROSSREC_ENV "on"): a fused launch with
     * split records, one a chunk after the buffer's arrays; "split" (2):
     * split records formed from their runs, in the fused kernel only */
    const int cross = fused && cuda->cross_rec == 1 && !cuda->walk_no_split;
    const int xsplit = fused && cuda->cross_rec == 2 && !cuda->walk_no_split;
    const size_t arrays = EQC_READY_BYTES + (size_t)pool_cap * sizeof(EqCudaSplit) +
                          (size_t)total * (2 * sizeof(double) + 3 * sizeof(int) +
                                           2 * sizeof(EqOrdRun) + 1) +
                          (size_t)nsums * sizeof(double) + 5 * sizeof(int) + (size_t)groups;
    const size_t cross_at = (arrays + 15) / 16 * 16;
    const size_t need = cross ? cross_at + (size_t)total * sizeof(EqCudaCross) : arrays;
    {
        /* a new allocation (its capacity changes) may hold anything, even
         * at the old address: its flags zeroed */
        const size_t had = cuda->scratch[scratch].cap;
        if ((err = eqc_buf_reserve(cuda, &cuda->scratch[scratch], need)) < 0)
            return err;
        if (cuda->scratch[scratch].cap != had &&
            (err = ready_zero(cuda, cuda->scratch[scratch].ptr, stream)) < 0)
            return err;
    }
    /* the plan: written to one of the slot's two arrays; the other holds
     * the plan of the slot's launch before, reused when it is there, of
     * this layout, on this stream (in stream order, so that it is
     * complete); a fused launch reuses no plan, and with crossing records
     * keeps its chunks' binades in the other array (advice for the slot's
     * next launch: whatever it holds) */
    int reuse = 0;
    int *plan = NULL, *prev = NULL;
    if (!tree) {
        void *was = keep->buf.ptr;
        reuse = !fused && cuda->plan_reuse && keep->valid && keep->stream == stream &&
                same_layout(&keep->tab, ht);
        keep->valid = 0;
        if ((err = eqc_buf_reserve(cuda, &keep->buf, 2 * (size_t)total * sizeof(int))) < 0)
            return err;
        reuse = reuse && keep->buf.ptr == was;
        prev = (int *)keep->buf.ptr + (size_t)keep->cur * total;
        plan = (int *)keep->buf.ptr + (size_t)(1 - keep->cur) * total;
    }
    cuda->last_reused = reuse;
    {
        /* the fused kernel's flags (below) first, in their own region */
        uint8_t *base = (uint8_t *)cuda->scratch[scratch].ptr + EQC_READY_BYTES;
        EqOrdRun *runs = (EqOrdRun *)base;
        EqOrdRun *seg = runs + total;
        EqCudaSplit *pool = (EqCudaSplit *)(seg + total);
        double *chunk_sum = (double *)(pool + pool_cap);
        double *approx = chunk_sum + total;
        double *first_sum = approx + total; /* a sum's first chunk, prewalked */
        int *again = (int *)(first_sum + nsums); /* chunks formed again */
        unsigned *ready = (unsigned *)cuda->scratch[scratch].ptr;
        int *seg_len = again + total;
        int *split_idx = seg_len + total;
        int *counters = split_idx + total;
        unsigned char *zero = (unsigned char *)(counters + 5);
        unsigned char *gzero = zero + total;
        EqCudaCross *xpool =
            cross ? (EqCudaCross *)((uint8_t *)cuda->scratch[scratch].ptr + cross_at) : NULL;
        cuda->last_sums =
            (EqcSumScratch){chunk_sum, plan,  runs,   seg,      seg_len, split_idx,
                            pool,      xpool, approx, counters, total,   5};

        EQC_CHECK(cuda, EQC_SITE_COPY,
                  cudaMemcpyAsync(dt, ht, sizeof(*ht), cudaMemcpyHostToDevice, stream));
        const int per_sum = cuda->runs_per_sum >= 0 ? cuda->runs_per_sum
                                                    : total <= EQC_RUNS_PER_SUM_MAX;
        const long long rwarps = per_sum ? total : gtotal;
        const unsigned rblocks = (unsigned)((rwarps + RUNS_WARPS - 1) / RUNS_WARPS);
        const int cap = cuda->walk_no_split ? 0 : pool_cap;
        /* the small walk waits for the fused kernel's chunk flags: 2 in
         * two steps, 1 for each chunk's end (EQ_CUDA_FEDWALK_ENV) */
        const int fed =
            fused && eq_cuda_small_walk(most_chunks) ? cuda->fed_walk : 0;
        /* the large walk as one chain (EQ_CUDA_BIGCHAIN_ENV): from the sum
         * of each sum's first chunk, which the runs kernel adds */
        const int big_chain =
            !eq_cuda_small_walk(most_chunks) && !cuda->walk_none_plan ? cuda->big_chain : 0;
        double *const big_first = big_chain ? first_sum : NULL;
        cuda->last_big_chain = big_chain;
        if (fused) {
            /* chunk sums, plan, runs and split records in one kernel; its
             * counters are the table's, cleared by the copy above */
            counters = dt->counters;
            cuda->last_sums.counters = counters;
            cuda->last_sums.ncounters = 12;
            cuda->sum_epoch = cuda->sum_epoch + 1 ? cuda->sum_epoch + 1 : 1;
            if (cuda->fused_late) {
                /* the buffer's arrays (all written by the launch before
                 * they are read) hold this launch's epoch, as an earlier
                 * launch's data could; a ready flag among them would read
                 * as published */
                const size_t words = (need - EQC_READY_BYTES) / sizeof(unsigned);
                fill_u32_kernel<<<eqc_blocks(words, 256), 256, 0, stream>>>(
                    (unsigned *)base, words, cuda->sum_epoch);
                EQC_CHECK_LAUNCH(cuda, "fill_u32_kernel");
                EQC_CHECK(cuda, EQC_SITE_COPY,
                          cudaMemsetAsync(chunk_sum, 0xff, (size_t)total * sizeof(double),
                                          stream));
            }
            static decltype(&ord_small_chunks_kernel<0, 0>) const fks[3][3] = {
                {ord_small_chunks_kernel<0, 0>, ord_small_chunks_kernel<0, 1>,
                 ord_small_chunks_kernel<0, 2>},
                {ord_small_chunks_kernel<1, 0>, ord_small_chunks_kernel<1, 1>,
                 ord_small_chunks_kernel<1, 2>},
                {ord_small_chunks_kernel<2, 0>, ord_small_chunks_kernel<2, 1>,
                 ord_small_chunks_kernel<2, 2>},
            };
            fks[fed][xsplit ? 2 : cross]<<<(unsigned)total, SPLIT_NT, 0, stream>>>(
                dt, counters, chunk_sum, zero, plan, approx, runs, split_idx, pool, cap, ready,
                cuda->sum_epoch, cuda->runs_no_fast, cuda->fused_late, first_sum,
                cuda->prewalk && !cuda->walk_no_split, cuda->early_walk, cuda->fused_wait_warp,
                ready + EQC_READY_FLAGS, ready + 2 * EQC_READY_FLAGS, xpool, prev);
            EQC_CHECK_LAUNCH(cuda, "ord_small_chunks_kernel");
        } else if (reuse) {
            /* runs under the kept plan, with this frame's chunk sums; the
             * plan; the chunks whose plan changed (or is term by term)
             * formed again */
            ord_chunk_runs_kernel<1><<<rblocks, 32 * RUNS_WARPS, 0, stream>>>(
                dt, prev, runs, rwarps, cuda->runs_no_fast, approx, zero, split_idx, pool, cap,
                counters, per_sum, chunk_sum, big_first, cuda->twins);
            EQC_CHECK_LAUNCH(cuda, "ord_chunk_runs_kernel");
            EQC_CHECK(cuda, EQC_SITE_LAUNCH,
                      plan_launch(most_chunks, 0, stream, dt, nsums, chunk_sum, plan, approx,
                                  dout, counters, prev, again, big_chain));
            const long long most = (long long)cuda->sm_count * 4; /* one wave */
            const int block = cuda->split_block >= 0 ? cuda->split_block
                                                     : total <= EQC_SPLIT_BLOCK_MAX;
            const unsigned ablocks = (unsigned)(rblocks < most ? rblocks : most);
            if (block)
                EQC_CHECK(cuda, EQC_SITE_LAUNCH,
                          launch_pdl(ord_runs_again_kernel<1>, ablocks, SPLIT_NT, stream, dt,
                                     plan, runs, cuda->runs_no_fast, approx, zero, split_idx,
                                     pool, cap, counters, again));
            else
                EQC_CHECK(cuda, EQC_SITE_LAUNCH,
                          launch_pdl(ord_runs_again_kernel<0>, ablocks, 32 * RUNS_WARPS,
                                     stream, dt, plan, runs, cuda->runs_no_fast, approx, zero,
                                     split_idx, pool, cap, counters, again));
        } else {
            ord_chunk_sums_kernel<<<(unsigned)((gtotal + RUNS_WARPS - 1) / RUNS_WARPS),
                                    32 * RUNS_WARPS, 0, stream>>>(dt, chunk_sum, zero, gtotal,
                                                                  counters);
            EQC_CHECK_LAUNCH(cuda, "ord_chunk_sums_kernel");
            EQC_CHECK(cuda, EQC_SITE_LAUNCH,
                      plan_launch(most_chunks, tree, stream, dt, nsums, chunk_sum, plan, approx,
                                  dout, counters, (const int *)NULL, again, 0));
            if (tree)
                return 0;
            EQC_CHECK(cuda, EQC_SITE_LAUNCH,
                      launch_pdl(ord_chunk_runs_kernel<0>, rblocks, 32 * RUNS_WARPS, stream, dt,
                                 plan, runs, rwarps, cuda->runs_no_fast, approx, zero,
                                 split_idx, pool, cap, counters, per_sum, chunk_sum,
                                 big_first, 0));
        }
        if (eq_cuda_small_walk(most_chunks)) {
            /* the crossing forms' records: dynamic shared memory beyond
             * the default 48 KB, allowed once */
            const size_t smem = cross ? sizeof(WalkCrossShared) : 0;
            const int chain = cuda->walk_chain && !cuda->walk_none_plan;
            const auto wk = cross ? walk_small_cross[fed][chain] : walk_small[fed][chain];
            if (cross && !cuda->cross_smem) {
                for (int f = 0; f < 6; f++)
                    EQC_CHECK(cuda, EQC_SITE_LAUNCH,
                              cudaFuncSetAttribute(walk_small_cross[f / 2][f % 2],
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   (int)sizeof(WalkCrossShared)));
                cuda->cross_smem = 1;
            }
            EQC_CHECK(cuda, EQC_SITE_LAUNCH,
                      launch_pdl_smem(wk, (unsigned)nsums, EQC_ORD_LANES, smem, stream, dt, plan,
                                      runs, seg, seg_len, zero, gzero, split_idx, pool,
                                      counters, dout, cuda->walk_none_plan, cuda->walk_mode,
                                      cuda->walk_lie, (const double *)first_sum,
                                      cuda->lean_walk, (const unsigned *)ready + EQC_READY_FLAGS,
                                      (const unsigned *)ready + 2 * EQC_READY_FLAGS,
                                      cuda->sum_epoch, (const EqCudaCross *)xpool));
        } else {
            EQC_CHECK(cuda, EQC_SITE_LAUNCH,
                      launch_pdl(ord_segments_kernel, (unsigned)groups, EQC_ORD_SEG, stream, dt,
                                 plan, runs, zero, seg, seg_len, gzero));
            if (big_chain && !cuda->big_chain_smem) {
                EQC_CHECK(cuda, EQC_SITE_LAUNCH,
                          cudaFuncSetAttribute(ord_walk_kernel,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)sizeof(BigChainShared)));
                cuda->big_chain_smem = 1;
            }
            EQC_CHECK(cuda, EQC_SITE_LAUNCH,
                      launch_pdl_smem(ord_walk_kernel, (unsigned)nsums, EQC_ORD_LANES,
                                      big_chain ? sizeof(BigChainShared) : 0, stream, dt, plan,
                                      runs, seg, seg_len, zero, gzero, split_idx, pool, counters,
                                      dout, cuda->walk_none_plan, cuda->walk_mode,
                                      cuda->walk_lie, (const double *)big_first, big_chain));
        }
        if (fused)
            return 0; /* no plan kept (keep->valid is 0) */
        /* kept for the slot's next launch */
        keep->cur = 1 - keep->cur;
        keep->valid = 1;
        keep->stream = stream;
        keep->tab.nsums = ht->nsums;
        keep->tab.ngroups = ht->ngroups;
        memcpy(keep->tab.d, ht->d, (size_t)nsums * sizeof(ht->d[0]));
        memcpy(keep->tab.gfirst, ht->gfirst, (size_t)ht->ngroups * sizeof(int));
        memcpy(keep->tab.gcount, ht->gcount, (size_t)ht->ngroups * sizeof(int));
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
    int runs_mode, reuse_mode, split_mode, fused_mode, fed_mode, chain_mode, cross_mode;
    int twins_mode;
    int big_chain_mode;

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
        if (i && cases[i].x == cases[i - 1].x && cases[i].n == cases[i - 1].n &&
            cases[i].stride == cases[i - 1].stride) {
            /* the same host terms: the same device plane, so that the
             * launch groups them as a metric's sums of one plane */
            dx = (double *)desc[i - 1].x;
            len = 0;
        } else if (len)
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
    static_assert(EQC_TABLE_SLOTS == 8, "EQ_CUDA_STAGE_SUM_SLOT's range");
    cuda->table_next = EQ_CUDA_STAGE_SUM_SLOT_OF(flags);
    cuda->walk_none_plan = none_plan;
    cuda->walk_lie = !!(flags & EQ_CUDA_STAGE_SUM_LIE);
    cuda->runs_no_fast = !!(flags & EQ_CUDA_STAGE_SUM_PAIRS);
    twins_mode = cuda->twins;
    if (flags & EQ_CUDA_STAGE_SUM_SINGLES)
        cuda->twins = 0;
    runs_mode = cuda->runs_per_sum;
    reuse_mode = cuda->plan_reuse;
    split_mode = cuda->split_block;
    if (flags & EQ_CUDA_STAGE_SUM_SPLIT_WARP)
        cuda->split_block = 0;
    else if (flags & EQ_CUDA_STAGE_SUM_SPLIT_BLOCK)
        cuda->split_block = 1;
    if (flags & EQ_CUDA_STAGE_SUM_RUNS_GROUP)
        cuda->runs_per_sum = 0;
    else if (flags & EQ_CUDA_STAGE_SUM_RUNS_SUM)
        cuda->runs_per_sum = 1;
    cuda->plan_reuse = !!(flags & EQ_CUDA_STAGE_SUM_REUSE);
    fused_mode = cuda->fused;
    cuda->fused = flags & EQ_CUDA_STAGE_SUM_FUSED ? 1 : 0;
    cuda->fused_late = !!(flags & EQ_CUDA_STAGE_SUM_FUSED_LATE);
    fed_mode = cuda->fed_walk;
    chain_mode = cuda->walk_chain;
    cuda->walk_chain = !!(flags & EQ_CUDA_STAGE_SUM_CHAIN);
    big_chain_mode = cuda->big_chain;
    cuda->big_chain = !!(flags & EQ_CUDA_STAGE_SUM_BIGCHAIN);
    cross_mode = cuda->cross_rec;
    cuda->cross_rec = flags & EQ_CUDA_STAGE_SUM_CROSS         ? 1
                      : flags & EQ_CUDA_STAGE_SUM_CROSS_SPLIT ? 2
                                                              : 0;
    cuda->fed_walk = flags & EQ_CUDA_STAGE_SUM_FED       ? 2
                     : flags & EQ_CUDA_STAGE_SUM_FED_END ? 1
                                                         : 0;
    err = eqc_sums_launch(cuda, desc, ncases, cuda->dres->sums, cuda->stream);
    cuda->walk_none_plan = 0;
    cuda->walk_lie = 0;
    cuda->runs_no_fast = 0;
    cuda->runs_per_sum = runs_mode;
    cuda->plan_reuse = reuse_mode;
    cuda->split_block = split_mode;
    cuda->twins = twins_mode;
    cuda->fused = fused_mode;
    cuda->fused_late = 0;
    cuda->fed_walk = fed_mode;
    cuda->walk_chain = chain_mode;
    cuda->big_chain = big_chain_mode;
    cuda->cross_rec = cross_mode;
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
        if (partials->approx && cuda->sum_mode == EQ_CUDA_SUM_EXACT)
            EQC_CHECK(cuda, EQC_SITE_COPY,
                      cudaMemcpyAsync(partials->approx, p->approx, n * sizeof(double),
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
    if (partials) {
        const EqcSumScratch *p = &cuda->last_sums;
        const size_t n = (size_t)p->total;
        /* the fused launch's counters are the table's 12; the others'
         * the first 5 of the buffer's */
        int cnt[12] = { 0 };
        if (cuda->sum_mode == EQ_CUDA_SUM_EXACT) {
            EQC_CHECK(cuda, EQC_SITE_COPY,
                      cudaMemcpy(cnt, p->counters, (size_t)p->ncounters * sizeof(int),
                                 cudaMemcpyDeviceToHost));
        }
        partials->split_made = cnt[0];
        partials->split_applied = cnt[1];
        partials->split_failed = cnt[2];
        partials->plan_reused = cuda->last_reused;
        partials->formed_again = cuda->last_reused ? cnt[3] : 0;
        partials->big_chains = cuda->last_big_chain ? cnt[4] : 0;
        partials->cross_made = cnt[EQC_CNT_CROSS];
        partials->cross_early = cnt[EQC_CNT_CROSS_EARLY];
        partials->cross_applied = cnt[EQC_CNT_CROSS_APPLIED];
        partials->cross_failed = cnt[EQC_CNT_CROSS_FAILED];
        if (partials->split || partials->cross) {
            int *idx = (int *)malloc(n * sizeof(int));
            if (!idx) {
                err = EQ_ERR_NO_MEMORY;
                goto fail;
            }
            for (size_t c = 0; c < n; c++)
                idx[c] = -1;
            cudaError_t ce = cudaSuccess;
            if (cuda->sum_mode == EQ_CUDA_SUM_EXACT)
                ce = cudaMemcpy(idx, p->split_idx, n * sizeof(int), cudaMemcpyDeviceToHost);
            for (size_t c = 0; c < n && ce == cudaSuccess; c++) {
                if (partials->split) {
                    partials->split[c].np = -1;
                    if (idx[c] >= 0)
                        ce = cudaMemcpy(&partials->split[c], p->split + idx[c],
                                        sizeof(EqCudaSplit), cudaMemcpyDeviceToHost);
                }
                if (partials->cross && ce == cudaSuccess) {
                    partials->cross[c].count = -1;
                    if (p->cross && idx[c] == EQC_SPLIT_CROSSREC)
                        ce = cudaMemcpy(&partials->cross[c], p->cross + c, sizeof(EqCudaCross),
                                        cudaMemcpyDeviceToHost);
                }
            }
            free(idx);
            if (ce != cudaSuccess) {
                err = eqc_fail(cuda, ce, "cudaMemcpy", __FILE__, __LINE__);
                goto fail;
            }
        }
    }
    return 0;
fail:
    cudaStreamSynchronize(cuda->stream);
    (void)cudaGetLastError();
    return err;
}

static_assert(EQ_CUDA_COMPOSE_STEPS == EQC_BIG_STEPS, "the harness's chains are the large chain's");

int eqc_ord_compose(EqCuda *cuda, const EqOrdPiece *din, const int *dn, int nchains,
                    EqOrdPiece *dout, int *dleft, cudaStream_t stream)
{
    int err = 0;
    ord_compose_kernel<<<(unsigned)nchains, EQC_ORD_LANES, 0, stream>>>(din, dn, dout, dleft);
    EQC_CHECK_LAUNCH(cuda, "ord_compose_kernel");
    return 0;
fail:
    return err;
}
