/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The public API's contracts: settings, validation, errors, value table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exactquality.h"
#include "eqtest.h" /* after exactquality.h: its scorer and frame helpers */

static char last_msg[1024];
static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level == EQ_LOG_ERROR)
        snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

int main(void)
{
    EqSettings s;
    EqScorer *sc = NULL;
    uint8_t buf[64 * 64] = { 0 };

    eq_settings_init(&s);
    CHECK(s.metrics == EQ_METRIC_ALL);
    CHECK(s.backend == EQ_BACKEND_AUTO);
    s.log = log_cb;

    /* A CPU scorer always opens. */
    s.backend = EQ_BACKEND_CPU;
    CHECK(eq_scorer_open(&sc, &s) == 0);
    CHECK(eq_scorer_backend(sc) == EQ_BACKEND_CPU);

    /* Size mismatch fails the whole call with a message. */
    EqFrame a = eqtest_gray8(64, 64, buf), b = eqtest_gray8(32, 64, buf);
    EqScores r;
    last_msg[0] = 0;
    CHECK(eq_scorer_score(sc, &a, &b, &r) == EQ_ERR_MISMATCH);
    CHECK(strstr(last_msg, "differ") != NULL);
    CHECK(r.scored == 0);

    /* Empty and oversize frames. */
    b = eqtest_gray8(0, 64, buf);
    CHECK(eq_frame_validate(&b, NULL, NULL) == EQ_ERR_INVALID_ARGUMENT);
    b = eqtest_gray8(8193, 8193, buf);
    CHECK(eq_frame_validate(&b, NULL, NULL) == EQ_ERR_TOO_LARGE);
    b = eqtest_gray8(64, 64, buf);
    b.bitdepth = 9;
    CHECK(eq_frame_validate(&b, NULL, NULL) == EQ_ERR_UNSUPPORTED);
    b = eqtest_gray8(64, 64, buf);
    b.stride[0] = 63;
    CHECK(eq_frame_validate(&b, NULL, NULL) == EQ_ERR_INVALID_ARGUMENT);
    b.data[0] = NULL;
    b.stride[0] = 64;
    CHECK(eq_frame_validate(&b, NULL, NULL) == EQ_ERR_INVALID_ARGUMENT);

    /* Device entry point on a CPU scorer: a clear error, no crash. */
    CHECK(eq_scorer_score_device(sc, &a, &a, NULL, &r) == EQ_ERR_NO_DEVICE);
    eq_scorer_close(&sc);
    CHECK(sc == NULL);
    eq_scorer_close(&sc); /* idempotent */

    /* Bad settings. */
    s.metrics = 0;
    CHECK(eq_scorer_open(&sc, &s) == EQ_ERR_INVALID_ARGUMENT);
    s.metrics = 0x100;
    CHECK(eq_scorer_open(&sc, &s) == EQ_ERR_INVALID_ARGUMENT);
    s.metrics = EQ_METRIC_ALL;

    /* Without CUDA in the build or without a device, cuda fails and auto
     * falls back to the CPU. */
    if (!eq_cuda_built()) {
        s.backend = EQ_BACKEND_CUDA;
        CHECK(eq_scorer_open(&sc, &s) == EQ_ERR_NOT_BUILT);
        CHECK(sc == NULL);
    }
    s.backend = EQ_BACKEND_AUTO;
    CHECK(eq_scorer_open(&sc, &s) == 0);
    eq_scorer_close(&sc);

    /* The value table: unique names, libvmaf's first columns. */
    CHECK(eq_value_count() == 24); /* 3 psnr + 4 ssim + 16 ms-ssim + ssimulacra2 */
    CHECK(strcmp(eq_value_info(0)->name, "psnr_y") == 0);
    CHECK(strcmp(eq_value_info(3)->name, "float_ssim") == 0);
    CHECK(strcmp(eq_value_info(4)->name, "float_ms_ssim") == 0);
    for (int i = 0; i < eq_value_count(); i++)
        for (int j = i + 1; j < eq_value_count(); j++) {
            CHECK(strcmp(eq_value_info(i)->name, eq_value_info(j)->name) != 0);
            CHECK(strcmp(eq_value_info(i)->nick, eq_value_info(j)->nick) != 0);
        }
    CHECK(eq_value_info(eq_value_count()) == NULL);
    CHECK(eq_strerror(EQ_ERR_TOO_SMALL) != NULL);

    return eqtest_done();
}
