/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal to lib/cuda/: the backend object, the one CUDA check macro,
 * device views of planes, and the per-metric entry points.
 */
#ifndef EQ_CUDA_COMMON_CUH
#define EQ_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuda/cuda.h"
#include "exact/ordsum.h"

/* Which kind of call a fault injected for tests hits (cuda.h). */
enum EqcSite {
    EQC_SITE_NONE = 0,
    EQC_SITE_INIT,
    EQC_SITE_ALLOC,
    EQC_SITE_COPY,
    EQC_SITE_LAUNCH,
    EQC_SITE_OTHER,
};

/*
 * One component as the kernels see it: a strided 2-D array of samples in
 * device memory (the device twin of EqPlane in lib/frame.h). Passed by value.
 */
struct EqcPlane {
    const uint8_t *data;
    ptrdiff_t stride; /* bytes between rows */
    int step;         /* bytes between samples of a row */
    int width;
    int height;
    int bytes;        /* 1 or 2 */
    int shift;        /* right shift of each 16-bit word (MSB-aligned input) */
};

/* Sample x of the plane's row starting at `row`. */
static __device__ __forceinline__ unsigned eqc_sample_in_row(const EqcPlane &p,
                                                             const uint8_t *row, int x)
{
    const uint8_t *s = row + (ptrdiff_t)x * p.step;
    if (p.bytes == 1)
        return s[0];
    return (unsigned)(uint16_t)(s[0] | (s[1] << 8)) >> p.shift;
}

static __device__ __forceinline__ unsigned eqc_sample(const EqcPlane &p, int x, int y)
{
    return eqc_sample_in_row(p, p.data + (ptrdiff_t)y * p.stride, x);
}

/* A frame whose planes are in device memory. */
struct EqcFrame {
    const EqFrame *desc; /* the caller's description (layout, colour, ...) */
    int ncomp;
    EqcPlane comp[3];
};

/*
 * Everything a frame's kernels leave for the host, copied back in ONE
 * transfer per frame. Its size does not depend on the resolution.
 */
#define EQC_RES_SSIM 0        /* sums[] slots of each metric */
#define EQC_RES_MS_SSIM 8
#define EQC_RES_SSIMULACRA2 32
#define EQC_RES_SUMS 160
struct EqcResults {
    unsigned long long psnr_sse[3];
    double sums[EQC_RES_SUMS];
};

/* ---- the ordered-sum engine (ordsum.cu) ---- */

#define EQC_MAX_SUMS 128
#define EQC_TABLE_SLOTS 8

/* One sum: s = 0.0; for (i = 0; i < n; i++) s += x[i * stride]; its double
 * goes to results sums[out] (or wherever `dout` points, index out). */
struct EqcSumDesc {
    const double *x; /* device */
    long long n;
    long long stride;
    int out;
    int kind;        /* EQC_TERM_*: the term is a shared function of x[i] */
};

/* What a sum adds: x[i] itself, or one of SSIMULACRA2's per-pixel functions
 * of it (lib/exact/ssimulacra2.h), formed on the fly by the engine so that
 * six sums share two stored planes. */
enum {
    EQC_TERM_X = EQ_CUDA_TERM_X,
    EQC_TERM_QUARTIC = EQ_CUDA_TERM_QUARTIC,
    EQC_TERM_ARTIFACT = EQ_CUDA_TERM_ARTIFACT,
    EQC_TERM_ARTIFACT4 = EQ_CUDA_TERM_ARTIFACT4,
    EQC_TERM_DETAIL = EQ_CUDA_TERM_DETAIL,
    EQC_TERM_DETAIL4 = EQ_CUDA_TERM_DETAIL4,
};

struct EqcSumTable {
    int nsums;
    EqcSumDesc d[EQC_MAX_SUMS];
    long long chunk_off[EQC_MAX_SUMS + 1]; /* first global chunk of each sum */
    long long group_off[EQC_MAX_SUMS + 1]; /* first segment group of each sum */
    /* Sums of one plane: consecutive sums with the same x, n and stride
     * (SSIMULACRA2's six sums of a channel read two planes). Chunk c of
     * plane group k is staged once for its sums gfirst[k] ..
     * gfirst[k] + gcount[k] - 1; gchunk_off[k] is its first chunk in the
     * kernels' grid. */
    int ngroups;
    int gfirst[EQC_MAX_SUMS];
    int gcount[EQC_MAX_SUMS];
    long long gchunk_off[EQC_MAX_SUMS + 1];
    /* Zero with every launch (the host clears the table it copies up):
     * the fused small launch's counters (ord_small_chunks_kernel: split
     * records made, applied, failed; 0; the blocks' ticket; crossing
     * records made, of those formed before the wait, applied, failed:
     * EQC_CNT_CROSS..). */
    int counters[12];
};

/* Where the last launch left its partial results (for the kernel harness). */
struct EqcSumScratch {
    double *chunk_sum;
    int *plan;
    EqOrdRun *runs;
    EqOrdRun *seg;
    int *seg_len;
    int *split_idx;     /* per chunk: its record in `split`, or -1 */
    EqCudaSplit *split; /* pool of split records */
    EqCudaCross *cross; /* crossing records, one a chunk (EQ_CUDA_CROSSREC_ENV), or NULL */
    double *approx;     /* the plan's prefix before each chunk planned term by term */
    int *counters;      /* split records made, applied, failed; chunks formed again;
                           sums walked as one chain by the large walk */
    long long total;
    int ncounters; /* 12 for a fused launch (EqcSumTable's), else 5 */
};

/* A device buffer that grows on demand (never shrinks while open). */
struct EqcBuf {
    void *ptr;
    size_t cap;
};

/* The plan of the engine's launch at one table slot (its place in the
 * frame), kept for the next frame's launch there: two device arrays of
 * `total` ints, the one written last at plans + cur * total. valid: it
 * was planned by an exact launch of the layout `tab` (the descriptors'
 * lengths, strides and kinds, and their plane groups) on `stream`. */
struct EqcPlanKeep {
    EqcBuf buf;
    int cur;
    int valid;
    cudaStream_t stream;
    EqcSumTable tab;
};

/* Device scratch buffers, one per use. */
enum {
    EQC_SCRATCH_SUM_A = 0,
    EQC_SCRATCH_SUM_B,
    EQC_SCRATCH_SSIM,
    EQC_SCRATCH_MS_SSIM,
    EQC_SCRATCH_S2,
    EQC_SCRATCH_STAGE,
    EQC_SCRATCH_S2LUT0, /* SSIMULACRA2's 8-bit Y'CbCr tables, ref and dist */
    EQC_SCRATCH_S2LUT1,
    EQC_SCRATCH_SUM_AUX, /* the engine's buffers for sums launched on cuda->aux */
    EQC_SCRATCH_COUNT
};

#define EQC_UPLOAD_BANDS_MAX 16

/* How the walk adds a chunk whose run or split record does not apply
 * (EQ_CUDA_WALK_ENV: scan, plan, seq). */
enum { EQC_WALK_SCAN = 0, EQC_WALK_PLAN = 1, EQC_WALK_SEQ = 2 };

struct EqCuda {
    EqSettings settings;
    EqLog log;
    int device;
    int fault;       /* enum EqcSite injected by EXACTQUALITY_CUDA_FAULT, test only */
    int sum_mode;    /* EQ_CUDA_SUM_EXACT or EQ_CUDA_SUM_TREE */
    int sm_count;    /* multiprocessors, to size grids */
    cudaStream_t stream;
    cudaStream_t aux;     /* a second stream for work beside `stream` */
    cudaStream_t aux2;    /* a third: SSIMULACRA2's scales 2.. */
    cudaEvent_t fork_ev, join_ev, fork2_ev, join2_ev; /* events: here to xyb_done_ev only */
    /* host frames: copied in `bands` bands of luma rows band_y[b] ..
     * band_y[b + 1] - 1 (even boundaries), band_ev[f][b] recorded on
     * `stream` once band b of frame f (0 ref, 1 dist) and the chroma rows
     * it reads are up; `bands` is 0 when the frames being scored were not
     * uploaded here. SSIMULACRA2 converts each band on `aux` while the
     * later ones are still being copied; xyb_done_ev: those conversions,
     * for `stream`. */
    cudaEvent_t band_ev[2][EQC_UPLOAD_BANDS_MAX], xyb_done_ev;
    int bands;
    int band_y[EQC_UPLOAD_BANDS_MAX + 1];

    EqcBuf frame[2][3];   /* uploaded planes of ref and dist */
    void *pinned;         /* pinned staging for host frames */
    struct EqPool *stage_pool; /* host threads that fill the staging */
    size_t pinned_cap;

    EqcBuf scratch[EQC_SCRATCH_COUNT];
    EqcSumTable *htables; /* pinned, EQC_TABLE_SLOTS, one per launch in a frame */
    EqcSumTable *dtables; /* device copies */
    int table_next;       /* next free slot; reset per frame */
    EqcSumScratch last_sums;
    EqcPlanKeep keep[EQC_TABLE_SLOTS];
    int plan_reuse;       /* EQ_CUDA_PLAN_ENV: 1 reuse (default), 0 fresh */
    int last_reused;      /* the last launch took a kept plan (for the harness) */
    int walk_none_plan;   /* test: plan every chunk "term by term" */
    int walk_lie;         /* test: a poisoned piece in each split record (STAGE_SUM_LIE) */
    int runs_no_fast;     /* test: chunk runs without the tie-free fast path */
    int walk_mode;        /* failing chunks: EQC_WALK_* (EQ_CUDA_WALK_ENV) */
    int walk_no_split;    /* no split records (EQ_CUDA_SPLIT_ENV) */
    int prewalk;          /* fused small launches add a sum's first chunk (EQ_CUDA_PREWALK_ENV) */
    int fused_wait_warp;  /* the fused kernel waits by a warp (EQ_CUDA_FUSEDWAIT_ENV) */
    int lean_walk;        /* the small walk's lean records (EQ_CUDA_LEANWALK_ENV) */
    int early_walk;       /* the fused kernel lets the small walk launch early
                             (EQ_CUDA_EARLYWALK_ENV) */
    int walk_chain;       /* the small walk as one chain (EQ_CUDA_WALKCHAIN_ENV) */
    int big_chain;        /* the large walk as one chain (EQ_CUDA_BIGCHAIN_ENV) */
    int big_chain_smem;   /* its dynamic shared memory allowed (cudaFuncSetAttribute) */
    int twins;            /* kept plan: a sum and its quartic at once (EQ_CUDA_TWINS_ENV) */
    int last_big_chain;   /* the last launch's large walk took the chain first */
    int cross_rec;        /* crossing records (EQ_CUDA_CROSSREC_ENV): 1 "on", 2 "split" */
    int cross_smem;       /* the dynamic shared memory the small walk's crossing
                             forms were allowed (cudaFuncSetAttribute), 0: not yet */
    int fed_walk;         /* the small walk waits for its chunks' flags, not for the
                             fused kernel's end: 2 in two steps, 1 at each chunk's
                             end, 0 no (EQ_CUDA_FEDWALK_ENV) */
    int split_block;      /* split records formed again: 1 a block each, 0 a warp each,
                             -1 by the launch's size (EQ_CUDA_SPLIT_ENV) */
    int fused;            /* small launches: 1 ord_small_chunks_kernel, 0 the kernels of
                             the larger ones, -1 by the launch's size (EQ_CUDA_FUSED_ENV) */
    unsigned sum_epoch;   /* the last launch's mark in its chunks' ready flags */
    int fused_late;       /* test: the fused kernel's chunk sums poisoned, published late */
    int runs_per_sum;     /* chunk runs: 1 a warp per chunk of each sum, 0 per plane group,
                             -1 by the launch's size (EQ_CUDA_RUNS_ENV) */
    int upload_bands;     /* bands for host frames, 0: by height (EQ_CUDA_BANDS_ENV) */
    int s0_sums_aux2;     /* SSIMULACRA2 scale 0's sums on aux2, 0: on the scorer's stream
                             (EQ_CUDA_S0SUMS_ENV) */
    double s2lut_key[2][8]; /* the EqS2Yuv each S2LUT buffer was built for */
    int s2lut_valid[2];

    EqcResults *dres;     /* device results */
    EqcResults *hres;     /* pinned host copy */
};

/* The CUDA error as a fault injected for tests may replace it. */
static inline cudaError_t eqc_fault(const EqCuda *cuda, int site, cudaError_t e)
{
    if (cuda && cuda->fault && cuda->fault == site && e == cudaSuccess) {
        switch (site) {
        case EQC_SITE_ALLOC: return cudaErrorMemoryAllocation;
        case EQC_SITE_COPY: return cudaErrorInvalidValue;
        case EQC_SITE_LAUNCH: return cudaErrorLaunchFailure;
        default: return cudaErrorUnknown;
        }
    }
    return e;
}

/* Logs "CUDA error NAME (text) in CALL at FILE:LINE" and maps it to EQ_ERR_*. */
int eqc_fail(EqCuda *cuda, cudaError_t e, const char *what, const char *file, int line);

/*
 * The one check macro: on failure it logs the error's name, the call, file
 * and line, stores the mapped code in `err` and jumps to `fail`. Never an
 * assert, never printf.
 */
#define EQC_CHECK(cuda, site, call)                                                \
    do {                                                                           \
        cudaError_t eqc_e_ = eqc_fault((cuda), (site), (call));                    \
        if (eqc_e_ != cudaSuccess) {                                               \
            err = eqc_fail((cuda), eqc_e_, #call, __FILE__, __LINE__);             \
            goto fail;                                                             \
        }                                                                          \
    } while (0)

/* After a <<<launch>>>: the launch's own error (bad configuration, ...). */
#define EQC_CHECK_LAUNCH(cuda, name) EQC_CHECK(cuda, EQC_SITE_LAUNCH, cudaGetLastError())

/* Uploads a host frame pair (pinned staging) and fills device views, in
 * up to `bands` bands of rows (see EqCuda.band_ev; 1: one band per frame). */
int eqc_upload_pair(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist, EqcFrame *dref,
                    EqcFrame *ddist, int bands);

/* Grows buf to at least `size` bytes (contents are not kept). */
int eqc_buf_reserve(EqCuda *cuda, EqcBuf *buf, size_t size);

static inline unsigned eqc_blocks(size_t n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

/* Enqueues the exact (or, in tree mode, the tree) sums of `descs`; sum i
 * lands in dout[descs[i].out] (device memory). The engine's buffers are
 * scratch[EQC_SCRATCH_SUM_A]. */
int eqc_sums_launch(EqCuda *cuda, const EqcSumDesc *descs, int nsums, double *dout,
                    cudaStream_t stream);
/* The same with the engine's buffers in scratch[scratch]: two launches that
 * may run at once (on two streams) take different buffers. */
int eqc_sums_launch_in(EqCuda *cuda, const EqcSumDesc *descs, int nsums, double *dout,
                       cudaStream_t stream, int scratch);
/* ord_compose_kernel alone on `stream` (eq_cuda_stage_ord_compose, the
 * harness): chain b of nchains, its dn[b] steps at din + b
 * EQ_CUDA_COMPOSE_STEPS, composed into the same place of dout, dleft[b]
 * the steps left (device memory). */
int eqc_ord_compose(EqCuda *cuda, const EqOrdPiece *din, const int *dn, int nchains,
                    EqOrdPiece *dout, int *dleft, cudaStream_t stream);

/* ---- per metric (one file each) ----
 * launch: enqueues the metric's kernels on `stream`; they leave their
 *         results in cuda->dres. finish: turns cuda->hres (copied back) into
 *         the public scores, with the CPU's host functions. */
int eqc_psnr_launch(EqCuda *cuda, const EqcFrame *ref, const EqcFrame *dist,
                    cudaStream_t stream);
int eqc_psnr_finish(EqCuda *cuda, const EqFrame *ref, const EqcResults *res,
                    EqScores *out);
int eqc_ssim_launch(EqCuda *cuda, const EqcFrame *ref, const EqcFrame *dist,
                    cudaStream_t stream);
int eqc_ssim_finish(EqCuda *cuda, const EqFrame *ref, const EqcResults *res,
                    EqScores *out);
int eqc_ms_ssim_launch(EqCuda *cuda, const EqcFrame *ref, const EqcFrame *dist,
                       cudaStream_t stream);
int eqc_ms_ssim_finish(EqCuda *cuda, const EqFrame *ref, const EqcResults *res,
                       EqScores *out);
int eqc_ssimulacra2_launch(EqCuda *cuda, const EqcFrame *ref, const EqcFrame *dist,
                           cudaStream_t stream);
int eqc_ssimulacra2_finish(EqCuda *cuda, const EqFrame *ref, const EqcResults *res,
                           EqScores *out);

#endif /* EQ_CUDA_COMMON_CUH */
