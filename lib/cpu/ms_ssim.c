/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * float_ms_ssim, the CPU reference (libvmaf 3.2.0 feature "float_ms_ssim":
 * libvmaf/src/feature/float_ms_ssim.c -> ms_ssim.c compute_ms_ssim, Wang's
 * MS-SSIM with 5 scales). Scale 0 is the luma as floats (picture_copy);
 * scale k+1 is scale k decimated by 2 with the 9x9 low-pass
 * (eq_ms_ssim_lpf_decimate_c), sizes w -> w/2 + (w&1). Each scale runs the
 * default _iqa_ssim (the stages of lib/cpu/ssim.c) for its l, c, s sums; the
 * host finish (eq_ms_ssim_finish) forms the means and the product.
 */
#include <stdlib.h>

#include "cpu/cpu.h"
#include "cpu/ssim.h"
#include "exact/ssim_terms.h"

struct EqCpuMsSsimState {
    int w, h;
    float *ref[EQ_MS_SSIM_SCALES], *dist[EQ_MS_SSIM_SCALES];
    EqSsimWork *work;
};

static void state_planes_free(struct EqCpuMsSsimState *st)
{
    for (int k = 0; k < EQ_MS_SSIM_SCALES; k++) {
        free(st->ref[k]);
        free(st->dist[k]);
        st->ref[k] = st->dist[k] = NULL;
    }
    st->w = st->h = 0;
}

void eq_cpu_ms_ssim_free(EqCpu *cpu)
{
    struct EqCpuMsSsimState *st = cpu->ms_ssim;
    if (!st)
        return;
    state_planes_free(st);
    eq_ssim_work_free(&st->work);
    free(st);
    cpu->ms_ssim = NULL;
}

typedef struct {
    EqSsimDsp dsp;
    const float *src[2];
    float *dst[2];
    int w, h, sw, sh;
} DecimateJob;

enum { DECIMATE_ROWS = 16 };

static void decimate_job(void *ctx, int job, int worker)
{
    DecimateJob *j = ctx;
    (void)worker;
    int y0 = job * DECIMATE_ROWS;
    int y1 = y0 + DECIMATE_ROWS < j->sh ? y0 + DECIMATE_ROWS : j->sh;
    for (int i = 0; i < 2; i++)
        for (int y = y0; y < y1; y++)
            j->dsp.lpf_decimate(j->src[i], j->w, j->h, y, j->dst[i] + (size_t)y * j->sw);
}

int eq_cpu_ms_ssim(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out)
{
    struct EqCpuMsSsimState *st = cpu->ms_ssim;
    const int w = ref->width, h = ref->height;
    int sw[EQ_MS_SSIM_SCALES], sh[EQ_MS_SSIM_SCALES];
    EqSsimSums sums[EQ_MS_SSIM_SCALES];
    int64_t n_windows[EQ_MS_SSIM_SCALES];
    int err;

    if ((err = eq_ms_ssim_scales(&cpu->log, w, h, sw, sh)) < 0)
        return err;

    if (!st) {
        st = cpu->ms_ssim = calloc(1, sizeof(*st));
        if (!st)
            goto oom;
    }
    if (st->w != w || st->h != h) {
        state_planes_free(st);
        for (int k = 0; k < EQ_MS_SSIM_SCALES; k++) {
            size_t n = (size_t)sw[k] * (size_t)sh[k];
            st->ref[k] = malloc(n * sizeof(float));
            st->dist[k] = malloc(n * sizeof(float));
            if (!st->ref[k] || !st->dist[k]) {
                state_planes_free(st);
                goto oom;
            }
        }
        st->w = w;
        st->h = h;
    }

    eq_cpu_luma_to_float(cpu, ref, st->ref[0]);
    eq_cpu_luma_to_float(cpu, dist, st->dist[0]);
    for (int k = 1; k < EQ_MS_SSIM_SCALES; k++) {
        DecimateJob j;
        eq_ssim_dsp_init(&j.dsp);
        j.src[0] = st->ref[k - 1];
        j.src[1] = st->dist[k - 1];
        j.dst[0] = st->ref[k];
        j.dst[1] = st->dist[k];
        j.w = sw[k - 1];
        j.h = sh[k - 1];
        j.sw = sw[k];
        j.sh = sh[k];
        eq_pool_run(cpu->pool, (sh[k] + DECIMATE_ROWS - 1) / DECIMATE_ROWS, decimate_job, &j);
    }
    for (int k = 0; k < EQ_MS_SSIM_SCALES; k++) {
        err = eq_cpu_ssim_scale(cpu, &st->work, st->ref[k], st->dist[k], sw[k], sh[k], 0,
                                &sums[k]);
        if (err < 0)
            goto oom;
        n_windows[k] = (int64_t)(sw[k] - (EQ_SSIM_WINDOW - 1)) * (sh[k] - (EQ_SSIM_WINDOW - 1));
    }
    eq_ms_ssim_finish(sums, n_windows, out);
    return 0;

oom:
    eq_log(&cpu->log, EQ_LOG_ERROR, "ms_ssim: out of memory for a %dx%d frame", w, h);
    return EQ_ERR_NO_MEMORY;
}
