/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A minimal test harness for the library tests: CHECK records a failure
 * with file and line and goes on; eqtest_done() prints "N passed, N failed"
 * and returns the exit status.
 */
#ifndef EQTEST_H
#define EQTEST_H

#include <stdio.h>
#include <string.h>

static int eqtest_passed, eqtest_failed;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (cond) {                                                            \
            eqtest_passed++;                                                   \
        } else {                                                               \
            eqtest_failed++;                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                      \
    } while (0)

/* Exact comparison of two doubles by bit pattern (NaN == NaN of same bits). */
#define CHECK_BITS(a, b)                                                       \
    do {                                                                       \
        double eqt_a = (a), eqt_b = (b);                                       \
        if (memcmp(&eqt_a, &eqt_b, sizeof(double)) == 0) {                     \
            eqtest_passed++;                                                   \
        } else {                                                               \
            eqtest_failed++;                                                   \
            fprintf(stderr, "%s:%d: %s = %a (%.17g) != %s = %a (%.17g)\n",     \
                    __FILE__, __LINE__, #a, eqt_a, eqt_a, #b, eqt_b, eqt_b);   \
        }                                                                      \
    } while (0)

#ifdef EXACTQUALITY_H
/* A CPU scorer of `metrics` with `threads` threads, `log` and the colour
 * setting (matrix, range); NULL when it does not open. */
static inline EqScorer *eqtest_open_cpu(unsigned metrics, int threads, EqLogCallback log,
                                        EqMatrix matrix, EqRange range)
{
    EqSettings s;
    EqScorer *sc = NULL;
    eq_settings_init(&s);
    s.metrics = metrics;
    s.backend = EQ_BACKEND_CPU;
    s.threads = threads;
    s.matrix = matrix;
    s.range = range;
    s.log = log;
    return eq_scorer_open(&sc, &s) == 0 ? sc : NULL;
}

/* An 8-bit gray frame of w x h over buf (stride w), for tests that
 * include exactquality.h first. */
static inline EqFrame eqtest_gray8(int w, int h, const uint8_t *buf)
{
    EqFrame f;
    memset(&f, 0, sizeof(f));
    f.layout = EQ_LAYOUT_GRAY;
    f.width = w;
    f.height = h;
    f.bitdepth = 8;
    f.data[0] = buf;
    f.stride[0] = w;
    return f;
}
#endif

static inline int eqtest_done(void)
{
    printf("%d passed, %d failed\n", eqtest_passed, eqtest_failed);
    return eqtest_failed ? 1 : 0;
}

#endif /* EQTEST_H */
