/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * exactquality-ordsum-bench: the host pipeline of the exact ordered sum
 * (lib/exact/ordsum_host.c) against the plain loop on synthetic streams of
 * one 3840x2160 frame's terms, and what the walk did (chunks and segments
 * that went term by term). Numbers for docs/ordered-sum.md and
 * docs/performance.md; every run also checks the bits.
 *
 *   exactquality-ordsum-bench [REPEATS]
 *
 * Times are CPU times (best of REPEATS), loop and pipeline side by side.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exact/ordsum_host.h"

static uint64_t state = 0x0b5e55ed5eedULL;

static uint64_t rnd(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rnd01(void)
{
    return (double)(rnd() >> 11) * 0x1p-53;
}

/* CPU time of this process: on a machine shared with other builds it moves
 * far less with the load than wall time does. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { S_SSIM, S_SSIM_SIGNED, S_SSIMU2, S_SSIMU2_S5, S_SSE, S_CENTERED, S_COUNT };

static const char *const names[S_COUNT] = {
    "ssim-like, values in [0.9, 1]",   "ms-ssim l*c*s-like, 10% negative",
    "ssimulacra2 d = 1 - q, 30% zero", "ssimulacra2 d at scale 5 (8100 terms)",
    "psnr squared errors (integers)",  "centred terms (mean 0, sum hovers)",
};

static size_t make(int kind, double *x, size_t n)
{
    size_t i;
    if (kind == S_SSIMU2_S5)
        n = 8100;
    for (i = 0; i < n; i++) {
        uint64_t r = rnd();
        switch (kind) {
        case S_SSIM:
            x[i] = 0.9 + 0.1 * rnd01();
            break;
        case S_SSIM_SIGNED:
            x[i] = (r % 10) == 0 ? -0.3 * rnd01() : 0.6 + 0.4 * rnd01();
            break;
        case S_SSIMU2:
        case S_SSIMU2_S5: {
            /* d = 1 - q for q in [1/2, 1]: a multiple of 2^-53 */
            double q = 1.0 - (double)((r >> 19) % ((uint64_t)1 << 45)) * 0x1p-53;
            x[i] = (r % 10) < 3 ? 0.0 : 1.0 - q;
            break;
        }
        case S_SSE: {
            int d = (int)(r % 41) - 20;
            x[i] = (double)(d * d);
            break;
        }
        default:
            x[i] = rnd01() - 0.5;
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    size_t nmax = 3840 * 2160;
    int repeats = argc > 1 ? atoi(argv[1]) : 3, kind, li, rep;
    double *x = malloc(nmax * sizeof *x);
    static const EqOrdLayout layouts[] = {
        {4, 256, 64, 16}, {4, 256, 64, 0}, {4, 256, 1, 16}, {4, 256, 1024, 16}};
    EqOrdPlanSpec tree = {EQ_ORD_PLAN_TREE, 0, 0};
    int bad = 0;

    if (!x || repeats < 1) {
        fprintf(stderr, "usage: exactquality-ordsum-bench [REPEATS >= 1]\n");
        return 2;
    }
    printf("%-38s %-20s %8s %9s %6s %6s %14s %9s %6s %s\n", "stream", "layout", "loop ms",
           "engine ms", "ratio", "chunks", "failed chunks", "segments", "checks", "plain adds");
    for (kind = 0; kind < S_COUNT; kind++) {
        size_t n = make(kind, x, nmax);
        for (li = 0; li < (int)(sizeof layouts / sizeof layouts[0]); li++) {
            double tl = 1e30, te = 1e30, loop = 0.0, got = 0.0;
            EqOrdStats st;
            char lname[48];
            for (rep = 0; rep < repeats; rep++) {
                double t0 = now(), t1, t2;
                loop = eq_ordsum_loop(x, n, 1, 0.0);
                t1 = now();
                if (eq_ordsum_host(x, n, 1, 0.0, &layouts[li], &tree, &got, &st) < 0) {
                    fprintf(stderr, "out of memory\n");
                    return 2;
                }
                t2 = now();
                if (t1 - t0 < tl)
                    tl = t1 - t0;
                if (t2 - t1 < te)
                    te = t2 - t1;
            }
            if (eq_bits(loop) != eq_bits(got)) {
                printf("BITS DIFFER: %a %a\n", loop, got);
                bad = 1;
            }
            snprintf(lname, sizeof lname, "%dx%d seg%d piece%d", layouts[li].terms_per_lane,
                     layouts[li].lanes_per_chunk, layouts[li].chunks_per_segment,
                     layouts[li].lanes_per_piece);
            printf("%-38s %-20s %8.2f %9.2f %6.1f %6zu %5zu (%5.2f%%) %4zu/%-4zu %6zu %zu "
                   "(%.3f%%)\n",
                   names[kind], lname, tl * 1e3, te * 1e3, te / tl, st.chunks,
                   st.chunks_term_by_term,
                   100.0 * (double)st.chunks_term_by_term / (double)st.chunks,
                   st.segments_applied, st.segments, st.checks, st.terms_term_by_term,
                   100.0 * (double)st.terms_term_by_term / (double)n);
        }
    }
    free(x);
    return bad;
}
