/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIMULACRA2 CPU reference on the committed PNG pairs: within 0.001 of the
 * float64 check (the exact filter, every plane in double) and beside the
 * band of libjxl's own two code paths; exact 100 for identical images,
 * thread-count independence, known answers, errors and extreme inputs.
 *
 * Usage: test_ssimulacra2 DATA_DIR (tests/data/ssimulacra2)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exactquality.h"
#include "eqtest.h" /* after exactquality.h: its scorer and frame helpers */
#include "pngio.h"

static char last_msg[1024];

static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level == EQ_LOG_ERROR)
        snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

static EqScorer *open_scorer(int threads)
{
    return eqtest_open_cpu(EQ_METRIC_SSIMULACRA2, threads, log_cb, EQ_MATRIX_UNSPECIFIED,
                           EQ_RANGE_UNSPECIFIED);
}

static int score_pair(EqScorer *sc, const EqFrame *a, const EqFrame *b, EqScores *r)
{
    memset(r, 0, sizeof(*r));
    return eq_scorer_score(sc, a, b, r);
}

/* ---------------------------------------------------------------- band */

/* float64.csv: the float64 check of each pair (bench_ssimulacra2 --f64). */
static int float64_of(const char *dir, const char *ref, const char *dst, double *v)
{
    char path[4096], line[1024];
    snprintf(path, sizeof(path), "%s/float64.csv", dir);
    FILE *f = fopen(path, "r");
    int found = 0;
    while (f && !found && fgets(line, sizeof(line), f)) {
        char r[256], d[256];
        found = sscanf(line, "%255[^,],%255[^,],%lf", r, d, v) == 3 && !strcmp(r, ref) &&
                !strcmp(d, dst);
    }
    if (f)
        fclose(f);
    return found;
}

/*
 * Photo pairs: within 0.001 of the float64 check, and beside libjxl's band:
 * not below it (by more than 0.005) and above it by at most 0.05, 0.03 on
 * average. libjxl's float recursion loses 0.016 to 0.088 of the exact
 * filter's score, always downward, and its AVX2 and SSE4 paths lie up to
 * 0.096 apart; our kernel sits within 0.0004 of the exact value, so up to
 * 0.040 above the band on these pairs (docs/ssimulacra2.md).
 */
static void test_band(const char *dir, EqScorer *sc1, EqScorer *sc2)
{
    char path[4096], line[1024];
    snprintf(path, sizeof(path), "%s/scores.csv", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    double dist_sum = 0.0;
    int photos = 0;
    printf("%-26s %-26s %20s %20s %20s %20s %8s\n", "ref", "dist", "ours", "float64",
           "score(avx2)", "score_sse4", "distance");
    CHECK(fgets(line, sizeof(line), f) != NULL); /* header */
    while (fgets(line, sizeof(line), f)) {
        char ref[256], dst[256];
        int w, h;
        double s_avx2, s_sse4;
        if (sscanf(line, "%255[^,],%255[^,],%d,%d,%lf,%lf", ref, dst, &w, &h, &s_avx2,
                   &s_sse4) != 6)
            continue;
        EqFrame a, b;
        snprintf(path, sizeof(path), "%s/%s", dir, ref);
        int ea = eq_png_read(path, &a);
        snprintf(path, sizeof(path), "%s/%s", dir, dst);
        int eb = eq_png_read(path, &b);
        CHECK(ea == 0 && eb == 0);
        if (ea || eb)
            continue;
        EqScores r1, r2;
        CHECK(score_pair(sc1, &a, &b, &r1) == 0);
        CHECK(score_pair(sc2, &a, &b, &r2) == 0);
        /* Threads split rows and columns, never a sum: the same bits. */
        CHECK_BITS(r1.ssimulacra2, r2.ssimulacra2);
        CHECK(memcmp(r1.ssimulacra2_sums, r2.ssimulacra2_sums, sizeof(r1.ssimulacra2_sums)) == 0);
        CHECK(a.width == w && a.height == h);

        double lo = fmin(s_avx2, s_sse4), hi = fmax(s_avx2, s_sse4);
        double ours = r1.ssimulacra2, f64 = NAN;
        CHECK(float64_of(dir, ref, dst, &f64));
        double dist = ours < lo ? lo - ours : ours > hi ? ours - hi : 0.0;
        printf("%-26s %-26s %20.14f %20.14f %20.14f %20.14f %8.5f\n", ref, dst, ours, f64,
               s_avx2, s_sse4, dist);
        if (strcmp(ref, dst) == 0) {
            CHECK_BITS(ours, 100.0); /* identical images: exactly 100 */
        } else if (strncmp(ref, "syn_", 4) != 0) {
            CHECK(fabs(ours - f64) <= 0.001);
            CHECK(ours >= lo - 0.005 && ours <= hi + 0.05);
            dist_sum += dist;
            photos++;
        }
        free((void *)a.data[0]);
        free((void *)b.data[0]);
    }
    fclose(f);
    CHECK(photos >= 8);
    double mean = photos ? dist_sum / photos : 1.0;
    printf("photo pairs: %d, mean distance from libjxl's band %.5f\n", photos, mean);
    CHECK(mean <= 0.03);
}

/* ------------------------------------------------------------- errors */

static void test_too_small(EqScorer *sc)
{
    uint8_t buf[16 * 16 * 3];
    memset(buf, 100, sizeof(buf));
    int sizes[][2] = { { 7, 8 }, { 8, 7 }, { 1, 1 }, { 7, 10 } };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        EqFrame f;
        memset(&f, 0, sizeof(f));
        f.layout = EQ_LAYOUT_RGB;
        f.width = sizes[i][0];
        f.height = sizes[i][1];
        f.bitdepth = 8;
        f.data[0] = buf;
        f.stride[0] = 16 * 3;
        EqScores r;
        last_msg[0] = 0;
        CHECK(score_pair(sc, &f, &f, &r) == EQ_ERR_TOO_SMALL);
        CHECK(strstr(last_msg, "at least 8x8") != NULL);
        CHECK(!(r.scored & EQ_METRIC_SSIMULACRA2));
        CHECK(r.status[eq_metric_index(EQ_METRIC_SSIMULACRA2)] == EQ_ERR_TOO_SMALL);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
        return 2;
    }
    EqScorer *sc1 = open_scorer(1), *sc2 = open_scorer(3);
    CHECK(sc1 && sc2);
    if (!sc1 || !sc2)
        return eqtest_done();
    test_band(argv[1], sc1, sc2);
    test_too_small(sc1);
    eq_scorer_close(&sc1);
    eq_scorer_close(&sc2);
    return eqtest_done();
}
