/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Benchmark of the CPU references of psnr, float_ssim and float_ms_ssim:
 * milliseconds per frame for each metric alone, through the public API.
 *
 *   bench_cpu [--threads N] [--frames N] [--repeat R] [--print]
 *             [REF.yuv DIST.yuv W H [420|422|444|400 [BITDEPTH]]]
 *
 * Without files it scores synthetic 1920x1080 8-bit 4:2:0 frames (a seeded
 * pattern plus noise). --print writes every frame's values (%.17g) to stdout
 * so a run can be compared with libvmaf's numbers of the same frames.
 * Timing: the median over --repeat runs of each frame's scoring, averaged
 * over frames: wall clock (CLOCK_MONOTONIC) and CPU time of the process
 * (CLOCK_PROCESS_CPUTIME_ID, all threads). On a loaded machine the CPU time
 * of a one-thread run is the steadier number.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exactquality.h"

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void synth(uint8_t *buf, size_t n, uint32_t seed, int w)
{
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        int x = (int)(i % (size_t)w), y = (int)(i / (size_t)w);
        buf[i] = (uint8_t)(((x * 3 + y * 5) / 7 + (x ^ y) / 5 + (int)(s % 23u)) & 255);
    }
}

static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level <= EQ_LOG_WARNING)
        fprintf(stderr, "bench_cpu: %s\n", msg);
}

int main(int argc, char **argv)
{
    int threads = 1, frames = 3, repeat = 5, print = 0;
    const char *paths[2] = { NULL, NULL };
    int w = 1920, h = 1080, sub = 420, bd = 8, npos = 0;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--print"))
            print = 1;
        else if (npos < 2)
            paths[npos++] = argv[i];
        else if (npos == 2)
            w = atoi(argv[i]), npos++;
        else if (npos == 3)
            h = atoi(argv[i]), npos++;
        else if (npos == 4)
            sub = atoi(argv[i]), npos++;
        else if (npos == 5)
            bd = atoi(argv[i]), npos++;
        else {
            fprintf(stderr, "usage: bench_cpu [--threads N] [--frames N] [--repeat R] [--print] "
                            "[REF DIST W H [SUB [BITDEPTH]]]\n");
            return 2;
        }
    }
    if (repeat < 1 || frames < 1 || w < 1 || h < 1 || (npos != 0 && npos < 4)) {
        fprintf(stderr, "bench_cpu: bad arguments\n");
        return 2;
    }

    const int bytes = bd > 8 ? 2 : 1;
    const int ssx = sub == 420 || sub == 422, ssy = sub == 420;
    size_t plane[3];
    for (int i = 0; i < 3; i++)
        plane[i] = i == 0 ? (size_t)w * h * bytes
                   : sub == 400 ? 0
                                : (size_t)((w + ssx) >> ssx) * ((h + ssy) >> ssy) * bytes;
    const size_t fsize = plane[0] + plane[1] + plane[2];
    uint8_t *rb = malloc(fsize * (size_t)frames), *db = malloc(fsize * (size_t)frames);
    if (!rb || !db)
        return 1;
    if (paths[0]) {
        FILE *fr = fopen(paths[0], "rb"), *fd = fopen(paths[1], "rb");
        if (!fr || !fd) {
            fprintf(stderr, "bench_cpu: cannot open the input files\n");
            return 1;
        }
        int n = 0;
        while (n < frames && fread(rb + fsize * n, 1, fsize, fr) == fsize &&
               fread(db + fsize * n, 1, fsize, fd) == fsize)
            n++;
        fclose(fr);
        fclose(fd);
        if (n == 0) {
            fprintf(stderr, "bench_cpu: no complete frame in the inputs\n");
            return 1;
        }
        frames = n;
    } else {
        for (int f = 0; f < frames; f++) {
            synth(rb + fsize * f, fsize, 1 + 2 * (uint32_t)f, w);
            synth(db + fsize * f, fsize, 2 + 2 * (uint32_t)f, w);
        }
    }

    static const struct {
        unsigned metric;
        const char *name;
    } metrics[] = {
        { EQ_METRIC_PSNR, "psnr" },
        { EQ_METRIC_SSIM, "float_ssim" },
        { EQ_METRIC_MS_SSIM, "float_ms_ssim" },
    };
    double *times = malloc(sizeof(double) * (size_t)repeat);
    double *cpu_times = malloc(sizeof(double) * (size_t)repeat);
    EqScores *scores = calloc((size_t)frames * 3, sizeof(EqScores));

    printf("# bench_cpu %dx%d %d %d-bit, %d frame(s), %d thread(s), median of %d\n", w, h, sub,
           bd, frames, threads, repeat);
    for (size_t m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++) {
        EqSettings s;
        EqScorer *sc;
        eq_settings_init(&s);
        s.metrics = metrics[m].metric;
        s.backend = EQ_BACKEND_CPU;
        s.threads = threads;
        s.log = log_cb;
        if (eq_scorer_open(&sc, &s) < 0)
            return 1;
        double total = 0.0, cpu_total = 0.0;
        for (int f = 0; f < frames; f++) {
            EqFrame ref, dist;
            memset(&ref, 0, sizeof(ref));
            ref.layout = sub == 420   ? EQ_LAYOUT_YUV420P
                         : sub == 422 ? EQ_LAYOUT_YUV422P
                         : sub == 444 ? EQ_LAYOUT_YUV444P
                                      : EQ_LAYOUT_GRAY;
            ref.width = w;
            ref.height = h;
            ref.bitdepth = bd;
            dist = ref;
            size_t off = 0;
            for (int p = 0; p < (sub == 400 ? 1 : 3); p++) {
                ref.data[p] = rb + fsize * f + off;
                dist.data[p] = db + fsize * f + off;
                ref.stride[p] = dist.stride[p] =
                    (ptrdiff_t)(p ? (w + ssx) >> ssx : w) * bytes;
                off += plane[p];
            }
            for (int r = 0; r < repeat; r++) {
                double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
                int err = eq_scorer_score(sc, &ref, &dist, &scores[f * 3 + m]);
                times[r] = clock_ms(CLOCK_MONOTONIC) - t0;
                cpu_times[r] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
                if (err < 0)
                    return 1;
            }
            qsort(times, (size_t)repeat, sizeof(double), cmp_double);
            qsort(cpu_times, (size_t)repeat, sizeof(double), cmp_double);
            total += times[repeat / 2];
            cpu_total += cpu_times[repeat / 2];
        }
        printf("%-14s %9.2f ms/frame wall %9.2f ms/frame cpu\n", metrics[m].name,
               total / frames, cpu_total / frames);
        eq_scorer_close(&sc);
    }
    if (print) {
        printf("frame");
        for (int i = 0; i < eq_value_count(); i++)
            if (eq_value_info(i)->metric != EQ_METRIC_SSIMULACRA2)
                printf(",%s", eq_value_info(i)->name);
        printf("\n");
        for (int f = 0; f < frames; f++) {
            printf("%d", f);
            for (int i = 0; i < eq_value_count(); i++) {
                const EqValueInfo *vi = eq_value_info(i);
                if (vi->metric == EQ_METRIC_SSIMULACRA2)
                    continue;
                int m = vi->metric == EQ_METRIC_PSNR ? 0 : vi->metric == EQ_METRIC_SSIM ? 1 : 2;
                printf(",%.17g", eq_value_get(&scores[f * 3 + m], i));
            }
            printf("\n");
        }
    }
    free(times);
    free(cpu_times);
    free(scores);
    free(rb);
    free(db);
    return 0;
}
