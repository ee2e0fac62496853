/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * float_ssim, the CPU reference (libvmaf 3.2.0 feature "float_ssim":
 * libvmaf/src/feature/float_ssim.c -> ssim.c compute_ssim ->
 * iqa/ssim_tools.c _iqa_ssim with the 1-D separable convolution of
 * iqa/convolve.c), the choice of stage variant, and the driver that runs one
 * SSIM scale on the thread pool (shared with float_ms_ssim).
 *
 * The stage functions are in lib/cpu/ssim_stages.c, every formula in
 * lib/exact/ssim_terms.h, the mapping from sums to scores in lib/finish.c.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/pool.h"
#include "cpu/ssim.h"
#include "exact/ssim_terms.h"

/* --------------------------------------------------------------- dispatch */

int eq_ssim_dsp_init_isa(EqSsimDsp *dsp, const char *isa)
{
    if (!strcmp(isa, "c")) {
        eq_ssim_dsp_init_c(dsp);
        return 0;
    }
#if defined(EQ_HAVE_X86_ISA)
    __builtin_cpu_init();
    if (!strcmp(isa, "avx2") && __builtin_cpu_supports("avx2")) {
        eq_ssim_dsp_init_avx2(dsp);
        return 0;
    }
    if (!strcmp(isa, "avx512") && __builtin_cpu_supports("avx512f")) {
        eq_ssim_dsp_init_avx512(dsp);
        return 0;
    }
#endif
    return -1;
}

/* EXACTQUALITY_CPU_ISA=c|avx2|avx512 picks a variant (for tests and
 * benchmarks); unknown or unsupported values are ignored. */
void eq_ssim_dsp_init(EqSsimDsp *dsp)
{
    const char *isa = getenv("EXACTQUALITY_CPU_ISA");
    if (isa && eq_ssim_dsp_init_isa(dsp, isa) == 0)
        return;
    if (eq_ssim_dsp_init_isa(dsp, "avx512") == 0 || eq_ssim_dsp_init_isa(dsp, "avx2") == 0)
        return;
    eq_ssim_dsp_init_c(dsp);
}

/* --------------------------------------------------------- one scale, CPU */

enum { N_MAPS = 5 }; /* ref, dist, ref^2, dist^2, ref*dist */

/*
 * How one scale runs on the pool. The (w-10) x (h-10) windows are cut into
 * bands of rows; bands are handed out in order. A band rolls an 11-row ring
 * of horizontally blurred rows of the five maps down its rows, blurs
 * vertically, and writes its windows' terms into one of `slots` term
 * buffers. The frame sums are then formed strictly in raster order: bands
 * are added one after the other, row after row, by whichever worker finds
 * the next band finished (so the sums overlap the work). A band waits for a
 * free slot before it starts, which bounds the memory to `slots` bands.
 */
struct EqSsimWork {
    int threads, slots, band_rows;
    size_t row_cap;          /* floats in one input row */
    size_t slot_cap;         /* windows in one slot */
    double *l, *c, *lcs;     /* [slots][slot_cap] */
    float *s;
    float **scratch;         /* per worker: rings and row buffers */
    unsigned char *done;     /* per slot: its band is finished */
};

void eq_ssim_work_free(EqSsimWork **work)
{
    EqSsimWork *wk;
    if (!work || !*work)
        return;
    wk = *work;
    free(wk->l);
    free(wk->c);
    free(wk->lcs);
    free(wk->s);
    if (wk->scratch)
        for (int i = 0; i < wk->threads; i++)
            free(wk->scratch[i]);
    free(wk->scratch);
    free(wk->done);
    free(wk);
    *work = NULL;
}

/* Floats of one worker's scratch for rows of `row` floats: an 11-row ring of
 * each h-blurred map, 3 product rows, 5 v-blurred rows. */
static size_t scratch_floats(size_t row)
{
    return row * (N_MAPS * EQ_SSIM_WINDOW + 3 + N_MAPS);
}

enum { BAND_MIN = 32, BAND_MAX = 64 };

static int work_reserve(EqSsimWork **work, int threads, int w)
{
    EqSsimWork *wk = *work;
    const int slots = 2 * threads + 2;
    size_t row = (size_t)w;

    if (wk && wk->threads == threads && wk->row_cap >= row)
        return 0;
    if (wk) {
        if (wk->row_cap > row)
            row = wk->row_cap;
        eq_ssim_work_free(work);
    }
    wk = calloc(1, sizeof(*wk));
    if (!wk)
        return EQ_ERR_NO_MEMORY;
    wk->threads = threads;
    wk->slots = slots;
    wk->row_cap = row;
    wk->slot_cap = (size_t)BAND_MAX * row;
    const size_t n = wk->slot_cap * (size_t)slots;
    wk->l = malloc(n * sizeof(double));
    wk->c = malloc(n * sizeof(double));
    wk->lcs = malloc(n * sizeof(double));
    wk->s = malloc(n * sizeof(float));
    wk->scratch = calloc((size_t)threads, sizeof(float *));
    wk->done = calloc((size_t)slots, 1);
    if (!wk->l || !wk->c || !wk->lcs || !wk->s || !wk->scratch || !wk->done)
        goto fail;
    for (int i = 0; i < threads; i++) {
        wk->scratch[i] = malloc(scratch_floats(row) * sizeof(float));
        if (!wk->scratch[i])
            goto fail;
    }
    *work = wk;
    return 0;

fail:
    eq_ssim_work_free(&wk);
    return EQ_ERR_NO_MEMORY;
}

typedef struct {
    const EqSsimDsp *dsp;
    EqSsimWork *wk;
    const float *ref, *dist;
    int w, h, ow, oh;
    int band_rows, bands;
    int want_lcs;
    EqSsimSums *sums;
    pthread_mutex_t lock;
    pthread_cond_t slot_free;
    int next_sum;            /* first band not yet added to the sums */
    int summing;             /* a worker is adding bands */
} ScaleJob;

static void band_rows(const ScaleJob *j, int b, int *y0, int *y1)
{
    *y0 = b * j->band_rows;
    *y1 = *y0 + j->band_rows < j->oh ? *y0 + j->band_rows : j->oh;
}

/* Adds band b's windows to the frame sums, row by row in raster order. */
static void sum_band(ScaleJob *j, int b)
{
    const size_t off = (size_t)(b % j->wk->slots) * j->wk->slot_cap;
    int y0, y1;
    band_rows(j, b, &y0, &y1);
    for (int y = y0; y < y1; y++) {
        const size_t o = off + (size_t)(y - y0) * (size_t)j->ow;
        j->dsp->frame_sums(j->wk->l + o, j->wk->c + o, j->wk->s + o,
                           j->want_lcs ? j->wk->lcs + o : NULL, j->ow, j->sums);
    }
}

static void scale_band(void *ctx, int b, int worker)
{
    ScaleJob *j = ctx;
    const EqSsimDsp *dsp = j->dsp;
    EqSsimWork *wk = j->wk;
    const int w = j->w, ow = j->ow, slot = b % wk->slots;
    const size_t row = wk->row_cap;
    float *ring = wk->scratch[worker];                  /* [map][11][row] */
    float *prod = ring + row * N_MAPS * EQ_SSIM_WINDOW; /* rr, dd, rd */
    float *vb = prod + 3 * row;                         /* [map][row] */
    int y0, y1;

    band_rows(j, b, &y0, &y1);
    pthread_mutex_lock(&j->lock);
    while (b >= j->next_sum + wk->slots)
        pthread_cond_wait(&j->slot_free, &j->lock);
    pthread_mutex_unlock(&j->lock);

    for (int r = y0; r < y1 + EQ_SSIM_WINDOW - 1; r++) {
        const float *ir = j->ref + (size_t)r * w, *id = j->dist + (size_t)r * w;
        const int ring_row = r % EQ_SSIM_WINDOW;
        dsp->products(ir, id, w, prod, prod + row, prod + 2 * row);
        const float *in[N_MAPS] = { ir, id, prod, prod + row, prod + 2 * row };
        for (int m = 0; m < N_MAPS; m++)
            dsp->blur_h(in[m], w, ring + ((size_t)m * EQ_SSIM_WINDOW + ring_row) * row);
        if (r < y0 + EQ_SSIM_WINDOW - 1)
            continue;

        const int y = r - (EQ_SSIM_WINDOW - 1);
        for (int m = 0; m < N_MAPS; m++) {
            const float *rows[EQ_SSIM_WINDOW];
            for (int k = 0; k < EQ_SSIM_WINDOW; k++)
                rows[k] = ring + ((size_t)m * EQ_SSIM_WINDOW + (y + k) % EQ_SSIM_WINDOW) * row;
            dsp->blur_v(rows, ow, vb + (size_t)m * row);
        }
        float *mu1 = vb, *mu2 = vb + row, *v1 = vb + 2 * row, *v2 = vb + 3 * row,
              *cv = vb + 4 * row;
        dsp->moments(mu1, mu2, v1, v2, cv, ow);
        const size_t off = (size_t)slot * wk->slot_cap + (size_t)(y - y0) * (size_t)ow;
        dsp->window_terms(mu1, mu2, v1, v2, cv, ow, wk->l + off, wk->c + off, wk->s + off,
                          j->want_lcs ? wk->lcs + off : NULL);
    }

    pthread_mutex_lock(&j->lock);
    wk->done[slot] = 1;
    if (!j->summing) {
        j->summing = 1;
        while (j->next_sum < j->bands && wk->done[j->next_sum % wk->slots]) {
            int s = j->next_sum;
            pthread_mutex_unlock(&j->lock);
            sum_band(j, s);
            pthread_mutex_lock(&j->lock);
            wk->done[s % wk->slots] = 0;
            j->next_sum++;
            pthread_cond_broadcast(&j->slot_free);
        }
        j->summing = 0;
    }
    pthread_mutex_unlock(&j->lock);
}

int eq_cpu_ssim_scale(EqCpu *cpu, EqSsimWork **work, const float *ref, const float *dist,
                      int w, int h, int want_lcs, EqSsimSums *sums)
{
    EqSsimDsp dsp;
    ScaleJob j;
    const int threads = eq_pool_threads(cpu->pool);
    const int oh = h - (EQ_SSIM_WINDOW - 1);
    int err;

    eq_ssim_dsp_init(&dsp);
    memset(&j, 0, sizeof(j));
    j.dsp = &dsp;
    j.ref = ref;
    j.dist = dist;
    j.w = w;
    j.h = h;
    j.ow = w - (EQ_SSIM_WINDOW - 1);
    j.oh = oh;
    /* About four bands per thread, so that the ordered sum overlaps the
     * work; at least BAND_MIN rows (each band blurs 10 rows more than it
     * outputs), at most BAND_MAX (the size of a term slot). */
    j.band_rows = (oh + 4 * threads - 1) / (4 * threads);
    if (j.band_rows < BAND_MIN)
        j.band_rows = BAND_MIN;
    if (j.band_rows > BAND_MAX)
        j.band_rows = BAND_MAX;
    j.bands = (oh + j.band_rows - 1) / j.band_rows;
    j.want_lcs = want_lcs;
    sums->l = sums->c = sums->s = sums->lcs = 0.0;
    j.sums = sums;

    if ((err = work_reserve(work, threads, w)) < 0)
        return err;
    j.wk = *work;
    memset(j.wk->done, 0, (size_t)j.wk->slots);
    pthread_mutex_init(&j.lock, NULL);
    pthread_cond_init(&j.slot_free, NULL);
    eq_pool_run(cpu->pool, j.bands, scale_band, &j);
    pthread_cond_destroy(&j.slot_free);
    pthread_mutex_destroy(&j.lock);
    return 0;
}

/* ------------------------------------------------------ to float, on rows */

typedef struct {
    EqSsimDsp dsp;
    EqPlane plane;
    int bitdepth;
    float *dst;
    int rows_per_job;
} ToFloatJob;

static void to_float_job(void *ctx, int job, int worker)
{
    ToFloatJob *j = ctx;
    (void)worker;
    int y0 = job * j->rows_per_job;
    int y1 = y0 + j->rows_per_job < j->plane.height ? y0 + j->rows_per_job : j->plane.height;
    for (int y = y0; y < y1; y++)
        j->dsp.to_float(&j->plane, y, j->bitdepth, j->dst + (size_t)y * j->plane.width);
}

void eq_cpu_luma_to_float(EqCpu *cpu, const EqFrame *f, float *dst)
{
    ToFloatJob j;
    eq_ssim_dsp_init(&j.dsp);
    eq_frame_plane(f, 0, &j.plane);
    j.bitdepth = f->bitdepth;
    j.dst = dst;
    j.rows_per_job = 64;
    eq_pool_run(cpu->pool, (j.plane.height + 63) / 64, to_float_job, &j);
}

/* ------------------------------------------------------------ float_ssim */

struct EqCpuSsimState {
    size_t cap;              /* floats per plane */
    float *ref, *dist;       /* full size */
    float *ref_s, *dist_s;   /* decimated */
    EqSsimWork *work;
};

void eq_cpu_ssim_free(EqCpu *cpu)
{
    struct EqCpuSsimState *st = cpu->ssim;
    if (!st)
        return;
    free(st->ref);
    free(st->dist);
    free(st->ref_s);
    free(st->dist_s);
    eq_ssim_work_free(&st->work);
    free(st);
    cpu->ssim = NULL;
}

typedef struct {
    EqSsimDsp dsp;
    const float *src[2];
    float *dst[2];
    int w, h, factor, sw, sh;
} BoxJob;

static void box_job(void *ctx, int job, int worker)
{
    BoxJob *j = ctx;
    (void)worker;
    int y0 = job * 16, y1 = y0 + 16 < j->sh ? y0 + 16 : j->sh;
    for (int i = 0; i < 2; i++)
        for (int y = y0; y < y1; y++)
            j->dsp.box_decimate(j->src[i], j->w, j->h, j->factor, y,
                                j->dst[i] + (size_t)y * j->sw);
}

int eq_cpu_ssim(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out)
{
    struct EqCpuSsimState *st = cpu->ssim;
    const int w = ref->width, h = ref->height;
    const int scale = eq_ssim_auto_scale(w, h);
    const int sw = scale > 1 ? eq_decimated_size(w, scale) : w;
    const int sh = scale > 1 ? eq_decimated_size(h, scale) : h;
    const size_t n = (size_t)w * (size_t)h;
    EqSsimSums sums;
    int err;

    if (sw < EQ_SSIM_WINDOW || sh < EQ_SSIM_WINDOW) {
        eq_log(&cpu->log, EQ_LOG_ERROR,
               "ssim: a %dx%d frame is too small for float_ssim, which needs at least "
               "%dx%d samples (its 11x11 window) after its automatic downscaling",
               w, h, EQ_SSIM_WINDOW, EQ_SSIM_WINDOW);
        return EQ_ERR_TOO_SMALL;
    }
    if (!st) {
        st = cpu->ssim = calloc(1, sizeof(*st));
        if (!st)
            goto oom;
    }
    if (st->cap < n) {
        free(st->ref);
        free(st->dist);
        free(st->ref_s);
        free(st->dist_s);
        st->ref_s = st->dist_s = NULL;
        st->ref = malloc(n * sizeof(float));
        st->dist = malloc(n * sizeof(float));
        st->cap = st->ref && st->dist ? n : 0;
        if (!st->cap)
            goto oom;
    }
    if (scale > 1 && !st->ref_s) {
        /* decimated planes are at most (w/2+1) x (h/2+1) */
        size_t m = ((size_t)w / 2 + 1) * ((size_t)h / 2 + 1);
        st->ref_s = malloc(m * sizeof(float));
        st->dist_s = malloc(m * sizeof(float));
        if (!st->ref_s || !st->dist_s) {
            free(st->ref_s);
            free(st->dist_s);
            st->ref_s = st->dist_s = NULL;
            goto oom;
        }
    }

    eq_cpu_luma_to_float(cpu, ref, st->ref);
    eq_cpu_luma_to_float(cpu, dist, st->dist);
    const float *r = st->ref, *d = st->dist;
    if (scale > 1) {
        BoxJob bj;
        eq_ssim_dsp_init(&bj.dsp);
        bj.src[0] = st->ref;
        bj.src[1] = st->dist;
        bj.dst[0] = st->ref_s;
        bj.dst[1] = st->dist_s;
        bj.w = w;
        bj.h = h;
        bj.factor = scale;
        bj.sw = sw;
        bj.sh = sh;
        eq_pool_run(cpu->pool, (sh + 15) / 16, box_job, &bj);
        r = st->ref_s;
        d = st->dist_s;
    }
    if ((err = eq_cpu_ssim_scale(cpu, &st->work, r, d, sw, sh, 1, &sums)) < 0)
        goto oom;
    eq_ssim_finish(&sums, (int64_t)(sw - 10) * (sh - 10), out);
    return 0;

oom:
    eq_log(&cpu->log, EQ_LOG_ERROR, "ssim: out of memory for a %dx%d frame", w, h);
    return EQ_ERR_NO_MEMORY;
}
