/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * float_ssim, the CPU reference (libvmaf 3.2.0 feature "float_ssim":
 * libvmaf/src/feature/float_ssim.c -> ssim.c compute_ssim ->
 * iqa/ssim_tools.c _iqa_ssim with the 1-D separable convolution of
 * iqa/convolve.c). The stages shared with float_ms_ssim live here too.
 *
 * Every formula is in lib/exact/ssim_terms.h. The stage functions below only
 * arrange loops; where a loop runs "tap outer, sample inner" (so that a
 * compiler can vectorise it), each sample still receives its taps in the
 * table's order, starting from 0.0, exactly as libvmaf's per-sample loop.
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

struct EqSsimWork {
    int threads;
    size_t windows_cap;      /* capacity of the term planes, in windows */
    size_t row_cap;          /* capacity of one input row, in floats */
    double *l, *c, *lcs;     /* per-window terms of the frame */
    float *s;
    float **scratch;         /* per worker: rings and row buffers */
    unsigned char *done;     /* per band */
    int bands_cap;
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

static int work_reserve(EqSsimWork **work, int threads, int w, int h, int bands)
{
    EqSsimWork *wk = *work;
    size_t windows = (size_t)(w - 10) * (size_t)(h - 10);

    if (wk && wk->threads == threads && wk->windows_cap >= windows &&
        wk->row_cap >= (size_t)w && wk->bands_cap >= bands)
        return 0;
    if (wk) {
        /* keep the larger of old and new sizes */
        if (wk->windows_cap > windows)
            windows = wk->windows_cap;
        if (wk->row_cap > (size_t)w)
            w = (int)wk->row_cap;
        if (wk->bands_cap > bands)
            bands = wk->bands_cap;
        eq_ssim_work_free(work);
    }
    wk = calloc(1, sizeof(*wk));
    if (!wk)
        return EQ_ERR_NO_MEMORY;
    wk->threads = threads;
    wk->windows_cap = windows;
    wk->row_cap = (size_t)w;
    wk->bands_cap = bands;
    wk->l = malloc(windows * sizeof(double));
    wk->c = malloc(windows * sizeof(double));
    wk->lcs = malloc(windows * sizeof(double));
    wk->s = malloc(windows * sizeof(float));
    wk->scratch = calloc((size_t)threads, sizeof(float *));
    wk->done = malloc((size_t)bands);
    if (!wk->l || !wk->c || !wk->lcs || !wk->s || !wk->scratch || !wk->done)
        goto fail;
    for (int i = 0; i < threads; i++) {
        wk->scratch[i] = malloc(scratch_floats((size_t)w) * sizeof(float));
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
    /* the ordered sum: bands are added in order, by whichever worker
     * finds the next band done */
    pthread_mutex_t lock;
    int next_sum;
    int summing;
} ScaleJob;

/* Adds band b's windows to the frame sums, row by row in raster order. */
static void sum_band(ScaleJob *j, int b)
{
    const int y0 = b * j->band_rows;
    const int y1 = y0 + j->band_rows < j->oh ? y0 + j->band_rows : j->oh;
    const size_t off = (size_t)y0 * (size_t)j->ow;
    const int n = (y1 - y0) * j->ow;
    j->dsp->frame_sums(j->wk->l + off, j->wk->c + off, j->wk->s + off,
                       j->want_lcs ? j->wk->lcs + off : NULL, n, j->sums);
}

/* Band b: output rows [y0, y1). Rolls an 11-row ring of h-blurred rows of
 * the five maps down the band, writes the band's window terms, then joins
 * the ordered sum. */
static void scale_band(void *ctx, int b, int worker)
{
    ScaleJob *j = ctx;
    const EqSsimDsp *dsp = j->dsp;
    const int w = j->w, ow = j->ow;
    const int y0 = b * j->band_rows;
    const int y1 = y0 + j->band_rows < j->oh ? y0 + j->band_rows : j->oh;
    const size_t row = j->wk->row_cap;
    float *sc = j->wk->scratch[worker];
    float *ring = sc;                                   /* [map][11][row] */
    float *prod = ring + row * N_MAPS * EQ_SSIM_WINDOW; /* rr, dd, rd */
    float *vb = prod + 3 * row;                         /* [map][row] */

    for (int r = y0; r < y1 + EQ_SSIM_WINDOW - 1; r++) {
        const float *ir = j->ref + (size_t)r * w, *id = j->dist + (size_t)r * w;
        const int slot = r % EQ_SSIM_WINDOW;
        dsp->products(ir, id, w, prod, prod + row, prod + 2 * row);
        const float *in[N_MAPS] = { ir, id, prod, prod + row, prod + 2 * row };
        for (int m = 0; m < N_MAPS; m++)
            dsp->blur_h(in[m], w, ring + ((size_t)m * EQ_SSIM_WINDOW + slot) * row);
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
        const size_t off = (size_t)y * (size_t)ow;
        dsp->window_terms(mu1, mu2, v1, v2, cv, ow, j->wk->l + off, j->wk->c + off,
                          j->wk->s + off, j->want_lcs ? j->wk->lcs + off : NULL);
    }

    pthread_mutex_lock(&j->lock);
    j->wk->done[b] = 1;
    if (!j->summing) {
        j->summing = 1;
        while (j->next_sum < j->bands && j->wk->done[j->next_sum]) {
            int s = j->next_sum;
            pthread_mutex_unlock(&j->lock);
            sum_band(j, s);
            pthread_mutex_lock(&j->lock);
            j->next_sum++;
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
    /* Bands of at least 32 rows (each band re-blurs 10 rows), about four per
     * thread so that the ordered sum overlaps the work. */
    j.band_rows = (oh + 4 * threads - 1) / (4 * threads);
    if (j.band_rows < 32)
        j.band_rows = 32;
    j.bands = (oh + j.band_rows - 1) / j.band_rows;
    j.want_lcs = want_lcs;
    sums->l = sums->c = sums->s = sums->lcs = 0.0;
    j.sums = sums;

    if ((err = work_reserve(work, threads, w, h, j.bands)) < 0)
        return err;
    j.wk = *work;
    memset(j.wk->done, 0, (size_t)j.bands);
    pthread_mutex_init(&j.lock, NULL);
    eq_pool_run(cpu->pool, j.bands, scale_band, &j);
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
