/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The public scorer: settings, backend choice, validation, the value table.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void eq_log(const EqLog *log, EqLogLevel level, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    if (!log || !log->cb)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    log->cb(log->user, level, buf);
}

double eq_nan(void)
{
    return NAN;
}

const char *eq_strerror(int err)
{
    switch (err) {
    case EQ_OK: return "success";
    case EQ_ERR_INVALID_ARGUMENT: return "invalid argument";
    case EQ_ERR_UNSUPPORTED: return "unsupported format";
    case EQ_ERR_MISMATCH: return "reference and distorted frames differ in size or format";
    case EQ_ERR_TOO_SMALL: return "frame smaller than the metric's minimum";
    case EQ_ERR_NO_MEMORY: return "out of memory";
    case EQ_ERR_NO_DEVICE: return "no usable CUDA device";
    case EQ_ERR_DEVICE: return "CUDA error";
    case EQ_ERR_NOT_BUILT: return "not built into this library";
    case EQ_ERR_TOO_LARGE: return "frame larger than the library accepts";
    case EQ_ERR_INTERNAL: return "internal error";
    default: return "unknown error";
    }
}

int eq_metric_index(unsigned metric)
{
    switch (metric) {
    case EQ_METRIC_PSNR: return 0;
    case EQ_METRIC_SSIM: return 1;
    case EQ_METRIC_MS_SSIM: return 2;
    case EQ_METRIC_SSIMULACRA2: return 3;
    default: return -1;
    }
}

const char *eq_metric_name(unsigned metric)
{
    switch (metric) {
    case EQ_METRIC_PSNR: return "psnr";
    case EQ_METRIC_SSIM: return "ssim";
    case EQ_METRIC_MS_SSIM: return "ms_ssim";
    case EQ_METRIC_SSIMULACRA2: return "ssimulacra2";
    default: return NULL;
    }
}

unsigned eq_metrics_available(void)
{
    return EQ_METRIC_ALL;
}

const char *eq_backend_name(EqBackend backend)
{
    switch (backend) {
    case EQ_BACKEND_AUTO: return "auto";
    case EQ_BACKEND_CPU: return "cpu";
    case EQ_BACKEND_CUDA: return "cuda";
    default: return "invalid";
    }
}

int eq_cuda_built(void)
{
    return eq_cuda_is_built();
}

int eq_cuda_device_present(void)
{
    return eq_cuda_device_available(NULL, 0);
}

/* ------------------------------------------------------------ value table */

#define V(name, nick, metric, member) { { name, nick, metric }, offsetof(EqScores, member) }
#define MS(k) \
    V("float_ms_ssim_l_scale" #k, "ms-ssim-l-scale" #k, EQ_METRIC_MS_SSIM, ms_ssim_l[k]), \
    V("float_ms_ssim_c_scale" #k, "ms-ssim-c-scale" #k, EQ_METRIC_MS_SSIM, ms_ssim_c[k]), \
    V("float_ms_ssim_s_scale" #k, "ms-ssim-s-scale" #k, EQ_METRIC_MS_SSIM, ms_ssim_s[k])

static const struct {
    EqValueInfo info;
    size_t offset;
} values[] = {
    V("psnr_y", "psnr-y", EQ_METRIC_PSNR, psnr_y),
    V("psnr_cb", "psnr-cb", EQ_METRIC_PSNR, psnr_cb),
    V("psnr_cr", "psnr-cr", EQ_METRIC_PSNR, psnr_cr),
    V("float_ssim", "ssim", EQ_METRIC_SSIM, ssim),
    V("float_ms_ssim", "ms-ssim", EQ_METRIC_MS_SSIM, ms_ssim),
    V("ssimulacra2", "ssimulacra2", EQ_METRIC_SSIMULACRA2, ssimulacra2),
    V("float_ssim_l", "ssim-l", EQ_METRIC_SSIM, ssim_l),
    V("float_ssim_c", "ssim-c", EQ_METRIC_SSIM, ssim_c),
    V("float_ssim_s", "ssim-s", EQ_METRIC_SSIM, ssim_s),
    MS(0), MS(1), MS(2), MS(3), MS(4),
};

int eq_value_count(void)
{
    return (int)(sizeof(values) / sizeof(values[0]));
}

const EqValueInfo *eq_value_info(int index)
{
    if (index < 0 || index >= eq_value_count())
        return NULL;
    return &values[index].info;
}

int eq_value_present(const EqScores *s, int index)
{
    if (!s || index < 0 || index >= eq_value_count())
        return 0;
    if (!(s->scored & values[index].info.metric))
        return 0;
    return !isnan(*(const double *)((const char *)s + values[index].offset));
}

double eq_value_get(const EqScores *s, int index)
{
    if (!eq_value_present(s, index))
        return NAN;
    return *(const double *)((const char *)s + values[index].offset);
}

/* ----------------------------------------------------------------- scorer */

void eq_settings_init(EqSettings *s)
{
    memset(s, 0, sizeof(*s));
    s->metrics = EQ_METRIC_ALL;
    s->backend = EQ_BACKEND_AUTO;
}

void eq_resolve_colour(const EqSettings *s, const EqFrame *f, EqMatrix *matrix,
                       EqRange *range)
{
    *matrix = s->matrix != EQ_MATRIX_UNSPECIFIED ? s->matrix : f->matrix;
    if (*matrix == EQ_MATRIX_UNSPECIFIED)
        *matrix = EQ_MATRIX_BT709;
    *range = s->range != EQ_RANGE_UNSPECIFIED ? s->range : f->range;
    if (*range == EQ_RANGE_UNSPECIFIED)
        *range = eq_frame_is_rgb(f) ? EQ_RANGE_FULL : EQ_RANGE_LIMITED;
}

int eq_scorer_open(EqScorer **out, const EqSettings *settings)
{
    EqScorer *sc;
    int err;

    if (!out || !settings)
        return EQ_ERR_INVALID_ARGUMENT;
    *out = NULL;
    EqLog log = { settings->log, settings->log_user };
    if (settings->metrics == 0 || (settings->metrics & ~EQ_METRIC_ALL)) {
        eq_log(&log, EQ_LOG_ERROR, "no metric or an unknown metric requested (0x%x)",
               settings->metrics);
        return EQ_ERR_INVALID_ARGUMENT;
    }
    if ((unsigned)settings->backend > EQ_BACKEND_CUDA) {
        eq_log(&log, EQ_LOG_ERROR, "unknown backend %d", (int)settings->backend);
        return EQ_ERR_INVALID_ARGUMENT;
    }
    if ((unsigned)settings->matrix > EQ_MATRIX_BT2020NC ||
        (unsigned)settings->range > EQ_RANGE_FULL) {
        eq_log(&log, EQ_LOG_ERROR, "unknown colour matrix or range");
        return EQ_ERR_INVALID_ARGUMENT;
    }

    sc = calloc(1, sizeof(*sc));
    if (!sc)
        return EQ_ERR_NO_MEMORY;
    sc->settings = *settings;
    sc->log = log;

    err = eq_cpu_open(&sc->cpu, settings, &log);
    if (err < 0)
        goto fail;

    sc->backend = EQ_BACKEND_CPU;
    if (settings->backend != EQ_BACKEND_CPU) {
        err = eq_cuda_open(&sc->cuda, settings, &log);
        if (err == 0) {
            sc->backend = EQ_BACKEND_CUDA;
        } else if (settings->backend == EQ_BACKEND_CUDA) {
            goto fail;
        } else if (eq_cuda_device_available(NULL, 0)) {
            /* a device is there, and it could not be used: say so louder */
            eq_log(&log, EQ_LOG_WARNING,
                   "a CUDA device is present but could not be used (%s): "
                   "using the CPU backend",
                   eq_strerror(err));
        } else {
            eq_log(&log, EQ_LOG_INFO, "no CUDA device (%s): using the CPU backend",
                   eq_strerror(err));
        }
    }
    eq_log(&log, EQ_LOG_INFO, "exactquality: %s backend", eq_backend_name(sc->backend));
    *out = sc;
    return 0;

fail:
    eq_cpu_close(&sc->cpu);
    free(sc);
    return err;
}

void eq_scorer_close(EqScorer **scorer)
{
    if (!scorer || !*scorer)
        return;
    eq_cuda_close(&(*scorer)->cuda);
    eq_cpu_close(&(*scorer)->cpu);
    free(*scorer);
    *scorer = NULL;
}

EqBackend eq_scorer_backend(const EqScorer *scorer)
{
    return scorer ? scorer->backend : EQ_BACKEND_CPU;
}

static void scores_reset(EqScores *out, unsigned metrics)
{
    memset(out, 0, sizeof(*out));
    out->requested = metrics;
    double nan = NAN;
    out->psnr_y = out->psnr_cb = out->psnr_cr = nan;
    out->ssim = out->ssim_l = out->ssim_c = out->ssim_s = nan;
    out->ms_ssim = nan;
    for (int k = 0; k < EQ_MS_SSIM_SCALES; k++)
        out->ms_ssim_l[k] = out->ms_ssim_c[k] = out->ms_ssim_s[k] = nan;
    out->ssimulacra2 = nan;
}

static int check_pair(EqScorer *sc, const EqFrame *ref, const EqFrame *dist)
{
    int err;

    if ((err = eq_frame_validate(ref, sc->log.cb, sc->log.user)) < 0)
        return err;
    if ((err = eq_frame_validate(dist, sc->log.cb, sc->log.user)) < 0)
        return err;
    if (eq_frames_match(ref, dist) < 0) {
        eq_log(&sc->log, EQ_LOG_ERROR,
               "reference and distorted frames differ: ref %dx%d layout %d %d-bit, "
               "dist %dx%d layout %d %d-bit",
               ref->width, ref->height, (int)ref->layout, ref->bitdepth, dist->width,
               dist->height, (int)dist->layout, dist->bitdepth);
        return EQ_ERR_MISMATCH;
    }
    return 0;
}

/* RGB input is for SSIMULACRA2 only: other metrics fail with a clear error. */
static unsigned refuse_rgb(EqScorer *sc, const EqFrame *ref, unsigned metrics,
                           EqScores *out, int *first_err)
{
    if (!eq_frame_is_rgb(ref))
        return metrics;
    for (unsigned m = 1; m <= EQ_METRIC_SSIM << 1; m <<= 1) {
        if (!(metrics & m) || m == EQ_METRIC_SSIMULACRA2)
            continue;
        eq_log(&sc->log, EQ_LOG_ERROR,
               "%s: RGB input is scored by ssimulacra2 only; convert to YUV for %s",
               eq_metric_name(m), eq_metric_name(m));
        out->status[eq_metric_index(m)] = EQ_ERR_UNSUPPORTED;
        if (!*first_err)
            *first_err = EQ_ERR_UNSUPPORTED;
        metrics &= ~m;
    }
    return metrics;
}

/* 1 when a metric scored on the device failed for a reason of the device
 * (CUDA error, device memory), not of the input. */
static int device_failure(const EqScores *out, unsigned on_gpu)
{
    for (int i = 0; i < EQ_METRIC_COUNT; i++) {
        if (!(on_gpu & (1u << i)))
            continue;
        if (out->status[i] == EQ_ERR_DEVICE || out->status[i] == EQ_ERR_NO_DEVICE ||
            out->status[i] == EQ_ERR_NO_MEMORY)
            return 1;
    }
    return 0;
}

static int score_common(EqScorer *sc, const EqFrame *ref, const EqFrame *dist,
                        void *stream, int on_device, EqScores *out)
{
    int err, first_err = 0;
    unsigned metrics, on_gpu = 0;

    if (!sc || !ref || !dist || !out)
        return EQ_ERR_INVALID_ARGUMENT;
    metrics = sc->settings.metrics;
    scores_reset(out, metrics);
    if ((err = check_pair(sc, ref, dist)) < 0) {
        for (int i = 0; i < EQ_METRIC_COUNT; i++)
            if (metrics & (1u << i))
                out->status[i] = err;
        return err;
    }
    metrics = refuse_rgb(sc, ref, metrics, out, &first_err);

    if (on_device) {
        if (!sc->cuda) {
            eq_log(&sc->log, EQ_LOG_ERROR,
                   "device frames need the CUDA backend, and this scorer uses the CPU");
            return EQ_ERR_NO_DEVICE;
        }
        err = eq_cuda_score_device(sc->cuda, ref, dist, stream, metrics, out);
        return first_err ? first_err : err;
    }

    if (sc->cuda) {
        on_gpu = metrics & eq_cuda_metrics(sc->cuda);
        if (on_gpu) {
            err = eq_cuda_score(sc->cuda, ref, dist, on_gpu, out);
            if (err < 0 && device_failure(out, on_gpu) &&
                sc->settings.backend == EQ_BACKEND_AUTO) {
                /* backend=auto: the device failed (not the input), so this
                 * pair and every later one are scored on the CPU. */
                eq_log(&sc->log, EQ_LOG_WARNING,
                       "the CUDA backend failed (%s): falling back to the CPU "
                       "backend for this and every later frame",
                       eq_strerror(err));
                eq_cuda_close(&sc->cuda);
                sc->backend = EQ_BACKEND_CPU;
                for (int i = 0; i < EQ_METRIC_COUNT; i++)
                    if (on_gpu & (1u << i))
                        out->status[i] = 0;
                out->scored &= ~on_gpu;
                on_gpu = 0;
            } else if (err < 0 && !first_err) {
                first_err = err;
            }
        }
    }
    if (metrics & ~on_gpu) {
        err = eq_cpu_score(sc->cpu, ref, dist, metrics & ~on_gpu, out);
        if (err < 0 && !first_err)
            first_err = err;
    }
    return first_err;
}

int eq_scorer_score(EqScorer *sc, const EqFrame *ref, const EqFrame *dist, EqScores *out)
{
    return score_common(sc, ref, dist, NULL, 0, out);
}

int eq_scorer_score_device(EqScorer *sc, const EqFrame *ref, const EqFrame *dist,
                           void *stream, EqScores *out)
{
    return score_common(sc, ref, dist, stream, 1, out);
}
