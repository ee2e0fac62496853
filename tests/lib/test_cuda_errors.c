/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CUDA backend's failures: no device or driver, out of memory, a failed
 * copy or launch. Each must give an error code and a message naming the
 * CUDA error and where it happened, never a crash or a score. Without a GPU
 * (CI) the no-device half runs; with one, failures are forced through the
 * test-only EXACTQUALITY_CUDA_FAULT hook (lib/cuda/cuda.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/framegen.h"
#include "cuda/cuda.h"
#include "eqtest.h"

/* Every error message since the last reset, one per line. */
static char last_msg[8192];
static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    size_t n = strlen(last_msg);
    if (level == EQ_LOG_ERROR && n + strlen(msg) + 2 < sizeof(last_msg))
        snprintf(last_msg + n, sizeof(last_msg) - n, "%s\n", msg);
}

static void settings(EqSettings *s, EqBackend b, unsigned metrics)
{
    eq_settings_init(s);
    s->backend = b;
    s->metrics = metrics;
    s->log = log_cb;
}

/* A forced fault at `site`: the call fails with `want`, the message names
 * `cuda_name`; device metrics are not scored, CPU metrics still are. */
static void check_fault(const char *site, int want, const char *cuda_name, const FgFrame *r,
                        const FgFrame *d, const EqScores *good)
{
    EqSettings s;
    EqScorer *sc = NULL;
    EqScores out;

    setenv(EQ_CUDA_FAULT_ENV, site, 1);
    settings(&s, EQ_BACKEND_CUDA, EQ_METRIC_ALL);
    last_msg[0] = 0;
    int err = eq_scorer_open(&sc, &s);
    if (want == EQ_ERR_NO_DEVICE && !strcmp(site, "init")) {
        CHECK(err == EQ_ERR_NO_DEVICE);
        CHECK(sc == NULL);
        CHECK(strstr(last_msg, cuda_name) != NULL);
        unsetenv(EQ_CUDA_FAULT_ENV);
        return;
    }
    CHECK(err == 0);
    if (err < 0) {
        unsetenv(EQ_CUDA_FAULT_ENV);
        return;
    }
    unsigned on_gpu = eq_cuda_metrics(sc->cuda);
    last_msg[0] = 0;
    err = eq_scorer_score(sc, &r->f, &d->f, &out);
    CHECK(err == want);
    CHECK(strstr(last_msg, cuda_name) != NULL);
    CHECK(strstr(last_msg, ".cu:") != NULL);
    for (int i = 0; i < EQ_METRIC_COUNT; i++) {
        unsigned m = 1u << i;
        if (on_gpu & m) {
            CHECK(out.status[i] == want);
            CHECK(!(out.scored & m));
        } else if (good->scored & m) {
            CHECK(out.scored & m);
        }
    }
    CHECK(isnan(eq_value_get(&out, 0))); /* psnr_y: never a stale or wrong score */
    eq_scorer_close(&sc);
    unsetenv(EQ_CUDA_FAULT_ENV);

    /* The next scorer, without the fault, works and matches the CPU. */
    settings(&s, EQ_BACKEND_CUDA, EQ_METRIC_ALL);
    CHECK(eq_scorer_open(&sc, &s) == 0);
    if (sc) {
        eq_scorer_score(sc, &r->f, &d->f, &out);
        CHECK(out.scored == good->scored);
        for (int i = 0; i < eq_value_count(); i++)
            CHECK_BITS(eq_value_get(&out, i), eq_value_get(good, i));
        eq_scorer_close(&sc);
    }
}

/* backend=auto: a device failure while scoring hands the scorer over to the
 * CPU; this pair and the next are scored, with the CPU's bits. */
static void check_fallback(const char *site, const FgFrame *r, const FgFrame *d,
                           const EqScores *good)
{
    EqSettings s;
    EqScorer *sc = NULL;
    EqScores out;

    setenv(EQ_CUDA_FAULT_ENV, site, 1);
    settings(&s, EQ_BACKEND_AUTO, EQ_METRIC_ALL);
    CHECK(eq_scorer_open(&sc, &s) == 0);
    unsetenv(EQ_CUDA_FAULT_ENV);
    if (!sc)
        return;
    CHECK(eq_scorer_backend(sc) == EQ_BACKEND_CUDA);
    /* the CPU's own answer for this pair (the test frames are below
     * MS-SSIM's minimum, so that metric fails on both backends alike) */
    int want = 0;
    for (int i = 0; i < EQ_METRIC_COUNT && !want; i++)
        want = good->status[i];
    for (int k = 0; k < 2; k++) {
        CHECK(eq_scorer_score(sc, &r->f, &d->f, &out) == want);
        CHECK(eq_scorer_backend(sc) == EQ_BACKEND_CPU);
        CHECK(out.scored == good->scored);
        for (int i = 0; i < eq_value_count(); i++)
            CHECK_BITS(eq_value_get(&out, i), eq_value_get(good, i));
    }
    eq_scorer_close(&sc);
}

int main(void)
{
    EqSettings s;
    EqScorer *sc = NULL;
    char why[256];
    static const FgFormat fmt = {"yuv420p", EQ_LAYOUT_YUV420P, 8, 0};
    FgFrame r, d;
    EqScores out;

    CHECK(eq_cuda_built() == 1);
    /* the small walk's forms by their variables' values (lib/cuda/cuda.h):
     * fed in two steps and as one chain unless "off", split records from
     * crossing records' runs unless "off" or "on" */
    CHECK(eq_cuda_fedwalk_form(NULL) == 2 && eq_cuda_fedwalk_form("two") == 2);
    CHECK(eq_cuda_fedwalk_form("end") == 1 && eq_cuda_fedwalk_form("off") == 0);
    CHECK(eq_cuda_walkchain_form(NULL) == 1 && eq_cuda_walkchain_form("on") == 1);
    CHECK(eq_cuda_walkchain_form("off") == 0);
    CHECK(eq_cuda_bigchain_form(NULL) == 1 && eq_cuda_bigchain_form("on") == 1);
    CHECK(eq_cuda_bigchain_form("off") == 0 && eq_cuda_bigchain_form("debug") == 2);
    CHECK(eq_cuda_crossrec_form(NULL) == 2 && eq_cuda_crossrec_form("on") == 1);
    CHECK(eq_cuda_crossrec_form("off") == 0 && eq_cuda_crossrec_form("split") == 2);
    CHECK(fg_alloc(&r, &fmt, 64, 48, 3) == 0);
    CHECK(fg_alloc(&d, &fmt, 64, 48, 0) == 0);
    fg_fill(&r, 1, 1);
    fg_distort(&d, &r, 2, 9);

    if (!eq_cuda_device_available(why, sizeof(why))) {
        /* No GPU or no driver: a clear error for CUDA, a fallback for AUTO. */
        settings(&s, EQ_BACKEND_CUDA, EQ_METRIC_PSNR);
        last_msg[0] = 0;
        CHECK(eq_scorer_open(&sc, &s) == EQ_ERR_NO_DEVICE);
        CHECK(sc == NULL);
        CHECK(strstr(last_msg, "no usable CUDA device") != NULL);
        CHECK(strstr(last_msg, "cudaError") != NULL);
        settings(&s, EQ_BACKEND_AUTO, EQ_METRIC_PSNR);
        CHECK(eq_scorer_open(&sc, &s) == 0);
        CHECK(eq_scorer_backend(sc) == EQ_BACKEND_CPU);
        last_msg[0] = 0;
        CHECK(eq_scorer_score_device(sc, &r.f, &d.f, NULL, &out) == EQ_ERR_NO_DEVICE);
        CHECK(strstr(last_msg, "CUDA backend") != NULL);
        eq_scorer_close(&sc);
        printf("no CUDA device (%s): fault injection not run\n", why);
    } else {
        EqScores good;
        settings(&s, EQ_BACKEND_CPU, EQ_METRIC_ALL);
        CHECK(eq_scorer_open(&sc, &s) == 0);
        eq_scorer_score(sc, &r.f, &d.f, &good);
        eq_scorer_close(&sc);
        check_fault("init", EQ_ERR_NO_DEVICE, "cudaError", &r, &d, &good);
        check_fault("alloc", EQ_ERR_NO_MEMORY, "cudaErrorMemoryAllocation", &r, &d, &good);
        check_fault("copy", EQ_ERR_DEVICE, "cudaErrorInvalidValue", &r, &d, &good);
        check_fault("launch", EQ_ERR_DEVICE, "cudaErrorLaunchFailure", &r, &d, &good);
        check_fallback("copy", &r, &d, &good);
        check_fallback("launch", &r, &d, &good);
    }
    fg_free(&r);
    fg_free(&d);
    return eqtest_done();
}
