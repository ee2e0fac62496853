/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CUDA backend: device detection, the scorer's own stream, uploads
 * through pinned staging, the per-metric kernels (one file each), and one
 * small read-back per frame.
 *
 * Overlap. eq_cuda_score() is synchronous: it returns with the scores of
 * the frame it was given, so it never holds frame n+1 while frame n is being
 * scored, and nothing can overlap across frames inside the library. What the
 * synchronous API allows is overlap inside a frame: planes are staged into
 * pinned memory one at a time (their rows split across up to 8 host
 * threads), and each plane's asynchronous upload runs while the host stages
 * the next one; when the caller's buffers are already
 * page-locked (cudaHostAlloc / cudaHostRegister) they are copied directly
 * with no staging. A caller that wants frame n+1's upload to overlap frame
 * n's kernels uploads into its own device buffers on its own stream and
 * calls eq_cuda_score_device() (eq_scorer_score_device), whose work is
 * ordered on that stream; running several scorers on several threads also
 * overlaps (each scorer has its own stream and buffers).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/common.cuh"
extern "C" {
#include "cpu/pool.h"
#include "exact/ssimulacra2.h"
}

static unsigned table_metrics(void);

/* ------------------------------------------------------------ errors */

int eqc_fail(EqCuda *cuda, cudaError_t e, const char *what, const char *file, int line)
{
    /* Clear a non-sticky error so that the next frame starts clean. */
    (void)cudaGetLastError();
    if (cuda)
        eq_log(&cuda->log, EQ_LOG_ERROR, "CUDA error %s (%s) in %s at %s:%d",
               cudaGetErrorName(e), cudaGetErrorString(e), what, file, line);
    if (e == cudaErrorMemoryAllocation)
        return EQ_ERR_NO_MEMORY;
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
        e == cudaErrorInitializationError || e == cudaErrorInvalidDevice)
        return EQ_ERR_NO_DEVICE;
    return EQ_ERR_DEVICE;
}

int eqc_buf_reserve(EqCuda *cuda, EqcBuf *buf, size_t size)
{
    int err = 0;
    void *p = NULL;

    if (size <= buf->cap)
        return 0;
    if (buf->ptr) {
        /* work queued earlier in this frame may still read the old buffer */
        EQC_CHECK(cuda, EQC_SITE_OTHER, cudaDeviceSynchronize());
        cudaFree(buf->ptr);
        buf->ptr = NULL;
        buf->cap = 0;
    }
    EQC_CHECK(cuda, EQC_SITE_ALLOC, cudaMalloc(&p, size));
    buf->ptr = p;
    buf->cap = size;
    return 0;
fail:
    return err;
}

static int parse_fault(void)
{
    const char *f = getenv(EQ_CUDA_FAULT_ENV);
    if (!f || !*f)
        return EQC_SITE_NONE;
    if (!strcmp(f, "init"))
        return EQC_SITE_INIT;
    if (!strcmp(f, "alloc"))
        return EQC_SITE_ALLOC;
    if (!strcmp(f, "copy"))
        return EQC_SITE_COPY;
    if (!strcmp(f, "launch"))
        return EQC_SITE_LAUNCH;
    return EQC_SITE_NONE;
}

/* ------------------------------------------------------------ open/close */

extern "C" int eq_cuda_is_built(void)
{
    return 1;
}

extern "C" int eq_cuda_device_available(char *why, size_t why_size)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        (void)cudaGetLastError();
        if (why && why_size)
            snprintf(why, why_size, "%s", e != cudaSuccess ? cudaGetErrorName(e)
                                                           : "no CUDA device");
        return 0;
    }
    return 1;
}

/* The scorer's streams and events (band_ev included), for creation,
 * synchronisation and teardown in one place. */
#define N_STREAMS 3
#define N_EVENTS (4 + 2 * EQC_UPLOAD_BANDS_MAX + 1)

static void scorer_streams(EqCuda *cuda, cudaStream_t *out[N_STREAMS])
{
    out[0] = &cuda->stream;
    out[1] = &cuda->aux;
    out[2] = &cuda->aux2;
}

static void scorer_events(EqCuda *cuda, cudaEvent_t *out[N_EVENTS])
{
    int n = 0;
    out[n++] = &cuda->fork_ev;
    out[n++] = &cuda->join_ev;
    out[n++] = &cuda->fork2_ev;
    out[n++] = &cuda->join2_ev;
    for (int f = 0; f < 2; f++)
        for (int b = 0; b < EQC_UPLOAD_BANDS_MAX; b++)
            out[n++] = &cuda->band_ev[f][b];
    out[n++] = &cuda->xyb_done_ev;
}

extern "C" void eq_cuda_close(EqCuda **pcuda)
{
    EqCuda *cuda;

    if (!pcuda || !*pcuda)
        return;
    cuda = *pcuda;
    cudaSetDevice(cuda->device);
    cudaStream_t *streams[N_STREAMS];
    cudaEvent_t *events[N_EVENTS];
    scorer_streams(cuda, streams);
    scorer_events(cuda, events);
    for (int i = 0; i < N_STREAMS; i++)
        if (*streams[i])
            cudaStreamSynchronize(*streams[i]);
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < 3; i++)
            cudaFree(cuda->frame[f][i].ptr);
    for (int i = 0; i < EQC_SCRATCH_COUNT; i++)
        cudaFree(cuda->scratch[i].ptr);
    for (int i = 0; i < EQC_TABLE_SLOTS; i++)
        cudaFree(cuda->keep[i].buf.ptr);
    if (cuda->pinned)
        cudaFreeHost(cuda->pinned);
    if (cuda->hres)
        cudaFreeHost(cuda->hres);
    if (cuda->htables)
        cudaFreeHost(cuda->htables);
    if (cuda->dtables)
        cudaFree(cuda->dtables);
    if (cuda->dres)
        cudaFree(cuda->dres);
    eq_pool_close(&cuda->stage_pool);
    for (int i = 0; i < N_EVENTS; i++)
        if (*events[i])
            cudaEventDestroy(*events[i]);
    for (int i = 0; i < N_STREAMS; i++)
        if (*streams[i])
            cudaStreamDestroy(*streams[i]);
    (void)cudaGetLastError();
    free(cuda);
    *pcuda = NULL;
}

extern "C" int eq_cuda_open(EqCuda **out, const EqSettings *settings, const EqLog *log)
{
    EqCuda *cuda;
    int err = 0, count = 0;
    cudaError_t e;

    *out = NULL;
    cuda = (EqCuda *)calloc(1, sizeof(*cuda));
    if (!cuda)
        return EQ_ERR_NO_MEMORY;
    cuda->settings = *settings;
    cuda->log = *log;
    cuda->device = settings->cuda_device;
    cuda->fault = parse_fault();
    cuda->sum_mode = EQ_CUDA_SUM_EXACT;
    {
        const char *walk = getenv(EQ_CUDA_WALK_ENV);
        if (!walk || !*walk)
            walk = EQ_CUDA_WALK_DEFAULT;
        cuda->walk_mode = !strcmp(walk, "seq")    ? EQC_WALK_SEQ
                          : !strcmp(walk, "plan") ? EQC_WALK_PLAN
                                                  : EQC_WALK_SCAN;
        const char *split = getenv(EQ_CUDA_SPLIT_ENV);
        cuda->walk_no_split = split && !strcmp(split, "off");
        cuda->split_block = split && !strcmp(split, "block") ? 1
                            : split && !strcmp(split, "warp") ? 0
                                                               : -1;
        const char *runs = getenv(EQ_CUDA_RUNS_ENV);
        cuda->runs_per_sum = !runs || !*runs         ? -1
                             : !strcmp(runs, "group") ? 0
                             : !strcmp(runs, "sum")   ? 1
                                                      : -1;
        const char *fused = getenv(EQ_CUDA_FUSED_ENV);
        cuda->fused = fused && !strcmp(fused, "off") ? 0 : fused && !strcmp(fused, "on") ? 1 : -1;
        const char *prewalk = getenv(EQ_CUDA_PREWALK_ENV);
        cuda->prewalk = !(prewalk && !strcmp(prewalk, "off"));
        const char *early = getenv(EQ_CUDA_EARLYWALK_ENV);
        cuda->early_walk = !(early && !strcmp(early, "off"));
        cuda->walk_chain = eq_cuda_walkchain_form(getenv(EQ_CUDA_WALKCHAIN_ENV));
        cuda->big_chain = eq_cuda_bigchain_form(getenv(EQ_CUDA_BIGCHAIN_ENV));
        const char *twins = getenv(EQ_CUDA_TWINS_ENV);
        cuda->twins = !(twins && !strcmp(twins, "off"));
        cuda->fed_walk = eq_cuda_fedwalk_form(getenv(EQ_CUDA_FEDWALK_ENV));
        cuda->cross_rec = eq_cuda_crossrec_form(getenv(EQ_CUDA_CROSSREC_ENV));
        const char *fwait = getenv(EQ_CUDA_FUSEDWAIT_ENV);
        cuda->fused_wait_warp = !(fwait && !strcmp(fwait, "thread"));
        const char *lean = getenv(EQ_CUDA_LEANWALK_ENV);
        cuda->lean_walk = !(lean && !strcmp(lean, "off"));
        const char *plan = getenv(EQ_CUDA_PLAN_ENV);
        cuda->plan_reuse = !(plan && !strcmp(plan, "fresh"));
        const char *bands = getenv(EQ_CUDA_BANDS_ENV);
        cuda->upload_bands = bands ? atoi(bands) : 0;
        const char *s0sums = getenv(EQ_CUDA_S0SUMS_ENV);
        cuda->s0_sums_aux2 = !(s0sums && !strcmp(s0sums, "stream"));
    }

    /* Detection: with no driver (or an old one) the runtime says so here;
     * the message carries its error name, and the scorer can fall back. */
    e = eqc_fault(cuda, EQC_SITE_INIT, cudaGetDeviceCount(&count));
    if (e != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        eq_log(log, EQ_LOG_ERROR, "no usable CUDA device: %s (%s)",
               e != cudaSuccess ? cudaGetErrorName(e) : "cudaSuccess",
               e != cudaSuccess ? cudaGetErrorString(e) : "the runtime reports no device");
        free(cuda);
        return EQ_ERR_NO_DEVICE;
    }
    if (cuda->device < 0 || cuda->device >= count) {
        eq_log(log, EQ_LOG_ERROR, "CUDA device %d requested, but only %d present",
               cuda->device, count);
        free(cuda);
        return EQ_ERR_NO_DEVICE;
    }
    EQC_CHECK(cuda, EQC_SITE_INIT, cudaSetDevice(cuda->device));
    {
        /* aux and aux2 at the greatest priority: SSIMULACRA2's scales 1..
         * and their sums, the longer chain, then take free multiprocessors
         * first and scale 0's wide kernels on `stream` fill the rest
         * (docs/cuda.md) */
        int least = 0, greatest = 0;
        cudaStream_t *streams[N_STREAMS];
        cudaEvent_t *events[N_EVENTS];
        scorer_streams(cuda, streams);
        scorer_events(cuda, events);
        EQC_CHECK(cuda, EQC_SITE_OTHER, cudaDeviceGetStreamPriorityRange(&least, &greatest));
        for (int i = 0; i < N_STREAMS; i++)
            EQC_CHECK(cuda, EQC_SITE_OTHER,
                      cudaStreamCreateWithPriority(streams[i], cudaStreamNonBlocking,
                                                   streams[i] == &cuda->stream ? least
                                                                               : greatest));
        for (int i = 0; i < N_EVENTS; i++)
            EQC_CHECK(cuda, EQC_SITE_OTHER,
                      cudaEventCreateWithFlags(events[i], cudaEventDisableTiming));
    }
    /* Not EQC_SITE_ALLOC: the injected "alloc" fault is meant for scoring. */
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaMalloc((void **)&cuda->dres, sizeof(EqcResults)));
    EQC_CHECK(cuda, EQC_SITE_OTHER,
              cudaHostAlloc((void **)&cuda->hres, sizeof(EqcResults), cudaHostAllocDefault));
    EQC_CHECK(cuda, EQC_SITE_OTHER,
              cudaMalloc((void **)&cuda->dtables, EQC_TABLE_SLOTS * sizeof(EqcSumTable)));
    EQC_CHECK(cuda, EQC_SITE_OTHER,
              cudaHostAlloc((void **)&cuda->htables, EQC_TABLE_SLOTS * sizeof(EqcSumTable),
                            cudaHostAllocDefault));
    {
        cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, cuda->device) == cudaSuccess) {
            cuda->sm_count = prop.multiProcessorCount;
            eq_log(log, EQ_LOG_INFO, "CUDA device %d: %s, compute capability %d.%d, %d SMs",
                   cuda->device, prop.name, prop.major, prop.minor, prop.multiProcessorCount);
        }
        if (cuda->sm_count <= 0)
            cuda->sm_count = 16;
    }
    {
        /* Host threads that copy pageable frames into pinned staging. */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int threads = cores > 8 ? 8 : cores > 1 ? (int)cores : 1;
        if (threads > 1 && eq_pool_open(&cuda->stage_pool, threads) < 0)
            cuda->stage_pool = NULL; /* staging on the calling thread */
    }
    *out = cuda;
    return 0;

fail:
    if (err == EQ_ERR_DEVICE && cuda->fault == EQC_SITE_INIT)
        err = EQ_ERR_NO_DEVICE;
    eq_cuda_close(&cuda);
    return err;
}

extern "C" unsigned eq_cuda_metrics(const EqCuda *cuda)
{
    (void)cuda;
    return table_metrics();
}

extern "C" int eq_cuda_set_sum_mode(EqCuda *cuda, int mode)
{
    if (!cuda || (mode != EQ_CUDA_SUM_EXACT && mode != EQ_CUDA_SUM_TREE))
        return EQ_ERR_INVALID_ARGUMENT;
    cuda->sum_mode = mode;
    return 0;
}

/* ------------------------------------------------------------ frames */

/* Number of separate memory blocks (data[] entries) a layout uses. */
static int frame_buffers(const EqFrame *f)
{
    if (f->layout == EQ_LAYOUT_GRAY || eq_frame_is_rgb(f))
        return 1;
    return f->layout == EQ_LAYOUT_NV12 ? 2 : 3;
}

/* Bytes of one row and number of rows of data[i]. */
static void buffer_extent(const EqFrame *f, int i, size_t *row, int *rows)
{
    EqPlane p;
    eq_frame_plane(f, i, &p);
    if (eq_frame_is_rgb(f))
        *row = (size_t)p.width * (size_t)p.step;
    else if (f->layout == EQ_LAYOUT_NV12 && i == 1)
        *row = (size_t)p.width * 2 * (size_t)p.bytes;
    else
        *row = (size_t)p.width * (size_t)p.bytes;
    *rows = p.height;
}

static size_t pitch_of(size_t row)
{
    return (row + 255) & ~(size_t)255;
}

/* Views of every component of f, with data[i] of f located at base[i]
 * (device memory) with row pitch pitch[i]. */
static void frame_views(const EqFrame *f, uint8_t *const base[3], const size_t pitch[3],
                        EqcFrame *out)
{
    out->desc = f;
    out->ncomp = eq_frame_components(f);
    for (int c = 0; c < out->ncomp; c++) {
        EqPlane p;
        int b = eq_frame_is_rgb(f) ? 0 : (f->layout == EQ_LAYOUT_NV12 && c == 2 ? 1 : c);
        eq_frame_plane(f, c, &p);
        EqcPlane *d = &out->comp[c];
        d->data = base[b] + (p.data - (const uint8_t *)f->data[b]);
        d->stride = (ptrdiff_t)pitch[b];
        d->step = (int)p.step;
        d->width = p.width;
        d->height = p.height;
        d->bytes = p.bytes;
        d->shift = p.shift;
    }
}

/* Copying one buffer's pageable rows into pinned staging, split in bands
 * of rows. */
typedef struct StageJob {
    const uint8_t *src;
    ptrdiff_t sstride;
    uint8_t *dst;
    size_t row, pitch;
    int rows, bands;
} StageJob;

static void stage_rows(void *ctx, int band, int worker)
{
    StageJob *j = (StageJob *)ctx;
    (void)worker;
    const int y0 = (int)((int64_t)j->rows * band / j->bands);
    const int y1 = (int)((int64_t)j->rows * (band + 1) / j->bands);
    if ((size_t)j->sstride == j->pitch) {
        if (y1 > y0)
            memcpy(j->dst + (size_t)y0 * j->pitch, j->src + (size_t)y0 * j->pitch,
                   j->pitch * (size_t)(y1 - y0 - 1) + j->row);
        return;
    }
    for (int y = y0; y < y1; y++)
        memcpy(j->dst + (size_t)y * j->pitch, j->src + (ptrdiff_t)y * j->sstride, j->row);
}

static int host_is_pinned(const void *ptr)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

/*
 * Uploads ref and dist (host memory) into the scorer's device buffers on its
 * stream and fills the device views. Pageable input goes through pinned
 * staging, so that each copy overlaps the staging of the next; page-locked
 * input is copied directly. Each frame goes up in `bands` bands of luma rows
 * (fewer where the frame is short; one where a buffer's rows are not the
 * luma rows or half of them), each band with the buffer rows that its
 * pixels read, and band_ev[f][b] recorded after it.
 */
int eqc_upload_pair(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist, EqcFrame *dref,
                    EqcFrame *ddist, int bands)
{
    const EqFrame *fr[2] = { ref, dist };
    int nbuf = frame_buffers(ref);
    size_t row[3], pitch[3], total = 0;
    int rows[3];
    uint8_t *base[2][3] = { { NULL } };
    int err = 0;

    for (int i = 0; i < nbuf; i++) {
        buffer_extent(ref, i, &row[i], &rows[i]);
        pitch[i] = pitch_of(row[i]);
        total += 2 * pitch[i] * (size_t)rows[i];
    }
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < nbuf; i++) {
            if ((err = eqc_buf_reserve(cuda, &cuda->frame[f][i], pitch[i] * rows[i])) < 0)
                return err;
            base[f][i] = (uint8_t *)cuda->frame[f][i].ptr;
        }
    if (total > cuda->pinned_cap) {
        void *p = NULL;
        if (cuda->pinned)
            cudaFreeHost(cuda->pinned);
        cuda->pinned = NULL;
        cuda->pinned_cap = 0;
        EQC_CHECK(cuda, EQC_SITE_ALLOC, cudaHostAlloc(&p, total, cudaHostAllocDefault));
        cuda->pinned = p;
        cuda->pinned_cap = total;
    }

    int pinned[2][3];
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < nbuf; i++)
            pinned[f][i] = host_is_pinned(fr[f]->data[i]);

    /* the bands: luma boundaries at even rows, each band not empty */
    {
        const int H = ref->height;
        if (bands > EQC_UPLOAD_BANDS_MAX)
            bands = EQC_UPLOAD_BANDS_MAX;
        if (bands > H / 2)
            bands = H / 2;
        for (int i = 0; i < nbuf; i++)
            if (rows[i] != H && rows[i] != (H + 1) / 2)
                bands = 1;
        /* pageable rows are staged by the host first: there each band
         * would cost a round on the staging threads */
        for (int f = 0; f < 2; f++)
            for (int i = 0; i < nbuf; i++)
                if (!pinned[f][i])
                    bands = 1;
        if (bands < 1)
            bands = 1;
        for (int b = 0; b < bands; b++)
            cuda->band_y[b] = 2 * (int)((int64_t)(H / 2) * b / bands);
        cuda->band_y[bands] = H;
    }

    cuda->bands = 0;
    {
        /* the reference's bands first, then the distorted frame's: work
         * that needs only the first rows can start while the rest is
         * copied */
        uint8_t *stage = (uint8_t *)cuda->pinned;
        for (int f = 0; f < 2; f++) {
            const uint8_t *src[3];
            ptrdiff_t sstride[3];
            uint8_t *dst[3];
            for (int i = 0; i < nbuf; i++) {
                src[i] = (const uint8_t *)fr[f]->data[i];
                sstride[i] = rows[i] == 1 ? (ptrdiff_t)row[i] : fr[f]->stride[i];
                dst[i] = stage;
                stage += pitch[i] * rows[i];
            }
            for (int b = 0; b < bands; b++) {
                for (int i = 0; i < nbuf; i++) {
                    /* the buffer's rows that band b's luma rows read
                     * beyond the bands before it (all of them in one band) */
                    const int y0 = b == 0 ? 0
                                          : eq_s2_chroma_rows_for(rows[i], ref->height,
                                                                  cuda->band_y[b]);
                    const int y1 = b + 1 == bands ? rows[i]
                                                  : eq_s2_chroma_rows_for(rows[i], ref->height,
                                                                          cuda->band_y[b + 1]);
                    if (y1 <= y0)
                        continue;
                    const uint8_t *s = src[i] + (ptrdiff_t)y0 * sstride[i];
                    uint8_t *d = base[f][i] + (size_t)y0 * pitch[i];
                    if (pinned[f][i]) {
                        EQC_CHECK(cuda, EQC_SITE_COPY,
                                  cudaMemcpy2DAsync(d, pitch[i], s, (size_t)sstride[i], row[i],
                                                    (size_t)(y1 - y0), cudaMemcpyHostToDevice,
                                                    cuda->stream));
                        continue;
                    }
                    /* the rows in parts, on the staging threads, then one
                     * copy of the staged rows */
                    uint8_t *st = dst[i] + (size_t)y0 * pitch[i];
                    StageJob job;
                    memset(&job, 0, sizeof(job));
                    job.src = s;
                    job.sstride = sstride[i];
                    job.dst = st;
                    job.row = row[i];
                    job.rows = y1 - y0;
                    job.pitch = pitch[i];
                    int parts = cuda->stage_pool ? 4 * eq_pool_threads(cuda->stage_pool) : 1;
                    if (parts > job.rows)
                        parts = job.rows;
                    job.bands = parts;
                    if (cuda->stage_pool && parts > 1)
                        eq_pool_run(cuda->stage_pool, parts, stage_rows, &job);
                    else
                        for (int k = 0; k < parts; k++)
                            stage_rows(&job, k, 0);
                    EQC_CHECK(cuda, EQC_SITE_COPY,
                              cudaMemcpyAsync(d, st, pitch[i] * (size_t)(y1 - y0),
                                              cudaMemcpyHostToDevice, cuda->stream));
                }
                EQC_CHECK(cuda, EQC_SITE_OTHER,
                          cudaEventRecord(cuda->band_ev[f][b], cuda->stream));
            }
        }
        cuda->bands = bands;
    }
    frame_views(ref, base[0], pitch, dref);
    frame_views(dist, base[1], pitch, ddist);
    return 0;
fail:
    return err;
}

/* Views of frames already in device memory (the caller's layout). */
static void device_views(const EqFrame *f, EqcFrame *out)
{
    uint8_t *base[3] = { NULL, NULL, NULL };
    size_t pitch[3] = { 0, 0, 0 };
    for (int i = 0; i < frame_buffers(f); i++) {
        base[i] = (uint8_t *)f->data[i];
        pitch[i] = (size_t)f->stride[i];
    }
    frame_views(f, base, pitch, out);
}

/* ------------------------------------------------------------ scoring */

typedef int (*EqcLaunchFn)(EqCuda *, const EqcFrame *, const EqcFrame *, cudaStream_t);
typedef int (*EqcFinishFn)(EqCuda *, const EqFrame *, const EqcResults *, EqScores *);

/* The metrics the device scores, each with its kernels (one file each). */
static const struct {
    unsigned metric;
    EqcLaunchFn launch;
    EqcFinishFn finish;
} metric_table[] = {
    { EQ_METRIC_PSNR, eqc_psnr_launch, eqc_psnr_finish },
    { EQ_METRIC_SSIM, eqc_ssim_launch, eqc_ssim_finish },
    { EQ_METRIC_MS_SSIM, eqc_ms_ssim_launch, eqc_ms_ssim_finish },
    { EQ_METRIC_SSIMULACRA2, eqc_ssimulacra2_launch, eqc_ssimulacra2_finish },
};
#define N_DEVICE_METRICS (sizeof(metric_table) / sizeof(metric_table[0]))

/* What eq_cuda_metrics() claims (the scorer sends the
 * rest to the CPU). It must be exactly the table's metrics. */
static unsigned table_metrics(void)
{
    unsigned m = 0;
    for (size_t k = 0; k < N_DEVICE_METRICS; k++)
        m |= metric_table[k].metric;
    return m;
}

static void fail_metrics(EqScores *out, unsigned metrics, int err)
{
    for (int i = 0; i < EQ_METRIC_COUNT; i++)
        if (metrics & (1u << i)) {
            out->status[i] = err;
            out->scored &= ~(1u << i);
        }
}

/* Enqueues every metric on `stream`, reads the results back once, and
 * finishes them on the host. */
static int run_metrics(EqCuda *cuda, const EqcFrame *ref, const EqcFrame *dist,
                       cudaStream_t stream, unsigned metrics, EqScores *out)
{
    int err = 0, first_err = 0;
    unsigned launched = 0;

    cuda->table_next = 0;
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaMemsetAsync(cuda->dres, 0, sizeof(EqcResults), stream));
    for (size_t k = 0; k < N_DEVICE_METRICS; k++) {
        if (!(metrics & metric_table[k].metric))
            continue;
        err = metric_table[k].launch(cuda, ref, dist, stream);
        if (err == EQ_ERR_TOO_SMALL || err == EQ_ERR_UNSUPPORTED) {
            /* refused before any device work (message logged): this
             * metric only, as on the CPU */
            out->status[eq_metric_index(metric_table[k].metric)] = err;
            out->scored &= ~metric_table[k].metric;
            if (!first_err)
                first_err = err;
            err = 0;
            continue;
        }
        if (err < 0)
            goto fail;
        launched |= metric_table[k].metric;
    }
    EQC_CHECK(cuda, EQC_SITE_COPY,
              cudaMemcpyAsync(cuda->hres, cuda->dres, sizeof(EqcResults),
                              cudaMemcpyDeviceToHost, stream));
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaStreamSynchronize(stream));

    for (size_t k = 0; k < N_DEVICE_METRICS; k++) {
        unsigned m = metric_table[k].metric;
        if (!(launched & m))
            continue;
        int e = metric_table[k].finish(cuda, ref->desc, cuda->hres, out);
        out->status[eq_metric_index(m)] = e;
        if (e < 0) {
            out->scored &= ~m;
            if (!first_err)
                first_err = e;
        } else {
            out->scored |= m;
        }
    }
    return first_err;

fail:
    /* Leave the stream idle before the buffers are reused or freed. */
    cudaStreamSynchronize(stream);
    (void)cudaGetLastError();
    fail_metrics(out, metrics, err);
    return err;
}

extern "C" int eq_cuda_score(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist,
                             unsigned metrics, EqScores *out)
{
    EqcFrame dref, ddist;
    int err = 0;

    metrics &= table_metrics();
    if (!metrics)
        return 0;
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaSetDevice(cuda->device));
    {
        /* bands only where a kernel takes them (SSIMULACRA2's conversion) */
        int bands = 1;
        if (metrics & EQ_METRIC_SSIMULACRA2)
            bands = cuda->upload_bands > 0 ? cuda->upload_bands
                                           : ref->height / EQ_CUDA_BAND_ROWS;
        if ((err = eqc_upload_pair(cuda, ref, dist, &dref, &ddist, bands)) < 0)
            goto fail;
    }
    err = run_metrics(cuda, &dref, &ddist, cuda->stream, metrics, out);
    cuda->bands = 0;
    return err;
fail:
    cuda->bands = 0;
    cudaStreamSynchronize(cuda->stream);
    (void)cudaGetLastError();
    fail_metrics(out, metrics, err);
    return err;
}

extern "C" int eq_cuda_score_device(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist,
                                    void *stream, unsigned metrics, EqScores *out)
{
    EqcFrame dref, ddist;
    unsigned missing = metrics & ~table_metrics();
    int err = 0, first_err = 0;

    for (unsigned m = 1; m <= EQ_METRIC_SSIMULACRA2; m <<= 1) {
        if (!(missing & m))
            continue;
        eq_log(&cuda->log, EQ_LOG_ERROR,
               "%s: not available on the CUDA backend for device frames yet; "
               "score host frames to have it computed on the CPU",
               eq_metric_name(m));
        out->status[eq_metric_index(m)] = EQ_ERR_NOT_BUILT;
        if (!first_err)
            first_err = EQ_ERR_NOT_BUILT;
    }
    metrics &= table_metrics();
    if (!metrics)
        return first_err;
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaSetDevice(cuda->device));
    device_views(ref, &dref);
    device_views(dist, &ddist);
    cuda->bands = 0; /* the caller's frames: nothing was uploaded */
    err = run_metrics(cuda, &dref, &ddist, (cudaStream_t)stream, metrics, out);
    return first_err ? first_err : err;
fail:
    fail_metrics(out, metrics, err);
    return err;
}

/* ------------------------------------------------------------ stages */

extern "C" int eq_cuda_stage_psnr_sse(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist,
                                      int comp, uint64_t *sse)
{
    EqcFrame dref, ddist;
    int err = 0;

    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaSetDevice(cuda->device));
    if ((err = eqc_upload_pair(cuda, ref, dist, &dref, &ddist, 1)) < 0)
        return err;
    if (comp < 0 || comp >= dref.ncomp)
        return EQ_ERR_INVALID_ARGUMENT;
    EQC_CHECK(cuda, EQC_SITE_OTHER,
              cudaMemsetAsync(cuda->dres, 0, sizeof(EqcResults), cuda->stream));
    if ((err = eqc_psnr_launch(cuda, &dref, &ddist, cuda->stream)) < 0)
        goto fail;
    EQC_CHECK(cuda, EQC_SITE_COPY,
              cudaMemcpyAsync(cuda->hres, cuda->dres, sizeof(EqcResults),
                              cudaMemcpyDeviceToHost, cuda->stream));
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaStreamSynchronize(cuda->stream));
    *sse = cuda->hres->psnr_sse[comp];
    return 0;
fail:
    cudaStreamSynchronize(cuda->stream);
    (void)cudaGetLastError();
    return err;
}

/* EqCuda keeps its events together, fork_ev .. xyb_done_ev (common.cuh): an
 * event added among them without its place in scorer_events and N_EVENTS
 * stops the build here. (At the end of the file, so that no line number
 * the error messages carry moves.) */
static_assert(offsetof(EqCuda, xyb_done_ev) + sizeof(cudaEvent_t) - offsetof(EqCuda, fork_ev) ==
                  N_EVENTS * sizeof(cudaEvent_t),
              "scorer_events lists every event of EqCuda");
