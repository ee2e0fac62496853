/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * exactquality-soak-lib: a long run of eq_scorer_score on one scorer.
 *
 *   exactquality-soak-lib [--frames N] [--size WxH] [--depth 8|10|12|16]
 *                         [--metrics psnr,ssim,ms_ssim,ssimulacra2|all]
 *                         [--backend cpu|cuda|auto] [--threads N]
 *                         [--warmup N] [--max-growth-kb K]
 *
 * Scores N pairs of 4:2:0 pictures (two alternating contents, so every
 * frame's bits are compared with the first score of the same content),
 * samples resident memory from /proc/self/statm every 1% of the run, and,
 * in a CUDA build on the CUDA backend, device memory with cudaMemGetInfo.
 * After the warm-up it reports the growth of both; it fails (exit 1) when
 * resident memory grew by more than --max-growth-kb (default 1024), when
 * device memory grew at all, when a score differs from its first bits, or
 * when a call fails. The peak resident memory (VmHWM) is printed too, which
 * with --frames 1 --size 8192x8192 measures the largest accepted frame.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exactquality.h"

#ifdef EQ_SOAK_CUDA
/* From the CUDA runtime (cuda_runtime_api.h); declared here so that this
 * tool needs no CUDA header. cudaError_t is an enum: 0 is success. */
extern int cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
#endif

static long page_kb(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return (p > 0 ? p : 4096) / 1024;
}

/* Resident set in KiB, from /proc/self/statm (second field, pages). */
static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2)
        resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * page_kb();
}

/* Peak resident set (VmHWM) in KiB. */
static long hwm_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmHWM: %ld kB", &v) == 1)
            break;
    fclose(f);
    return v;
}

/* Device memory in use in KiB (total - free), or -1 without CUDA. */
static long device_used_kb(EqScorer *sc)
{
#ifdef EQ_SOAK_CUDA
    size_t free_b = 0, total_b = 0;
    if (eq_scorer_backend(sc) == EQ_BACKEND_CUDA && cudaMemGetInfo(&free_b, &total_b) == 0)
        return (long)((total_b - free_b) / 1024);
#else
    (void)sc;
#endif
    return -1;
}

static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level <= EQ_LOG_WARNING)
        fprintf(stderr, "exactquality: %s\n", msg);
}

typedef struct Pic {
    EqFrame f;
    uint8_t *buf;
} Pic;

/* A 4:2:0 picture: a moving gradient pattern, plus noise when `noise`. */
static int pic_make(Pic *p, int w, int h, int depth, int phase, int noise)
{
    int bytes = depth > 8 ? 2 : 1;
    size_t cw = (size_t)(w + 1) / 2, ch = (size_t)(h + 1) / 2;
    size_t ysize = (size_t)w * h * bytes, csize = cw * ch * bytes;
    uint32_t s = 0x12345u + (uint32_t)phase;
    unsigned maxv = (1u << depth) - 1;

    memset(p, 0, sizeof(*p));
    p->buf = malloc(ysize + 2 * csize);
    if (!p->buf)
        return -1;
    for (int c = 0; c < 3; c++) {
        int pw = c ? (int)cw : w, ph = c ? (int)ch : h;
        uint8_t *base = p->buf + (c ? ysize + (c - 1) * csize : 0);
        for (int y = 0; y < ph; y++)
            for (int x = 0; x < pw; x++) {
                unsigned v = (unsigned)((x * 3 + y * 2 + phase * 7 + c * 50) % 220 + 16);
                v <<= depth - 8;
                if (noise) {
                    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
                    v += (s >> 28) << (depth - 8);
                    v = v > maxv ? maxv : v;
                }
                size_t i = ((size_t)y * pw + x) * bytes;
                base[i] = (uint8_t)v;
                if (bytes == 2)
                    base[i + 1] = (uint8_t)(v >> 8);
            }
        p->f.data[c] = base;
        p->f.stride[c] = (ptrdiff_t)pw * bytes;
    }
    p->f.layout = EQ_LAYOUT_YUV420P;
    p->f.width = w;
    p->f.height = h;
    p->f.bitdepth = depth;
    return 0;
}

static unsigned parse_metrics(const char *s)
{
    if (!strcmp(s, "all"))
        return EQ_METRIC_ALL;
    unsigned m = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        unsigned bit = 0;
        for (unsigned b = 1; b <= EQ_METRIC_SSIMULACRA2; b <<= 1)
            if (!strcmp(t, eq_metric_name(b)))
                bit = b;
        if (!bit) {
            fprintf(stderr, "unknown metric '%s' (psnr, ssim, ms_ssim, ssimulacra2, all)\n", t);
            free(copy);
            return 0;
        }
        m |= bit;
    }
    free(copy);
    return m;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long frames = 1000, warmup = 100, max_growth_kb = 1024;
    int w = 576, h = 324, depth = 8;
    EqSettings s;

    eq_settings_init(&s);
    s.log = log_cb;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "%s needs a value (see the comment at the top of soak_lib.c)\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--frames"))
            frames = atol(v);
        else if (!strcmp(a, "--warmup"))
            warmup = atol(v);
        else if (!strcmp(a, "--max-growth-kb"))
            max_growth_kb = atol(v);
        else if (!strcmp(a, "--size") && sscanf(v, "%dx%d", &w, &h) == 2)
            ;
        else if (!strcmp(a, "--depth"))
            depth = atoi(v);
        else if (!strcmp(a, "--threads"))
            s.threads = atoi(v);
        else if (!strcmp(a, "--metrics") && (s.metrics = parse_metrics(v)) != 0)
            ;
        else if (!strcmp(a, "--backend") && !strcmp(v, "cpu"))
            s.backend = EQ_BACKEND_CPU;
        else if (!strcmp(a, "--backend") && !strcmp(v, "cuda"))
            s.backend = EQ_BACKEND_CUDA;
        else if (!strcmp(a, "--backend") && !strcmp(v, "auto"))
            s.backend = EQ_BACKEND_AUTO;
        else {
            fprintf(stderr, "bad option %s %s\n", a, v);
            return 2;
        }
    }
    if (frames < 1 || warmup < 0 || w < 1 || h < 1 ||
        (depth != 8 && depth != 10 && depth != 12 && depth != 16)) {
        fprintf(stderr, "bad --frames/--warmup/--size/--depth\n");
        return 2;
    }
    if (warmup >= frames)
        warmup = frames - 1;

    long rss_start = rss_kb();
    Pic ref[2], dist[2];
    for (int k = 0; k < 2; k++)
        if (pic_make(&ref[k], w, h, depth, k, 0) < 0 || pic_make(&dist[k], w, h, depth, k, 1) < 0) {
            fprintf(stderr, "cannot allocate %dx%d pictures\n", w, h);
            return 1;
        }
    long rss_pics = rss_kb();

    EqScorer *sc = NULL;
    int err = eq_scorer_open(&sc, &s);
    if (err < 0) {
        fprintf(stderr, "eq_scorer_open: %s\n", eq_strerror(err));
        return 1;
    }
    printf("soak: %ld frames %dx%d %d-bit 4:2:0, metrics 0x%x, %s backend, warm-up %ld\n",
           frames, w, h, depth, s.metrics, eq_backend_name(eq_scorer_backend(sc)), warmup);

    EqScores first[2], r;
    long failures = 0, mismatches = 0;
    long rss_warm = -1, rss_max = -1, rss_min = -1, dev_warm = -1, dev_max = -1;
    long every = frames / 100 > 0 ? frames / 100 : 1;
    double t0 = now_s(), t_warm = t0;
    for (long n = 0; n < frames; n++) {
        int k = (int)(n & 1);
        err = eq_scorer_score(sc, &ref[k].f, &dist[k].f, n < 2 ? &first[k] : &r);
        if (err < 0) {
            if (failures++ < 5)
                fprintf(stderr, "frame %ld: %s\n", n, eq_strerror(err));
        } else if (n >= 2) {
            int same = r.scored == first[k].scored;
            for (int i = 0; i < eq_value_count(); i++) {
                double x = eq_value_get(&r, i), y = eq_value_get(&first[k], i);
                same &= memcmp(&x, &y, sizeof(x)) == 0;
            }
            if (!same && mismatches++ < 5)
                fprintf(stderr, "frame %ld: scores differ from frame %d's bits\n", n, k);
        }
        if (n == warmup) {
            rss_warm = rss_min = rss_max = rss_kb();
            dev_warm = dev_max = device_used_kb(sc);
            t_warm = now_s();
        } else if (n > warmup && (n % every == 0 || n == frames - 1)) {
            long v = rss_kb(), d = device_used_kb(sc);
            rss_max = v > rss_max ? v : rss_max;
            rss_min = v < rss_min ? v : rss_min;
            dev_max = d > dev_max ? d : dev_max;
        }
    }
    double t1 = now_s();
    long rss_end = rss_kb(), dev_end = device_used_kb(sc);
    long growth = rss_end - rss_warm;
    long peak_growth = rss_max - rss_warm;

    printf("time: %.1f s, %.2f frames/s after warm-up\n", t1 - t0,
           frames - 1 - warmup > 0 ? (frames - 1 - warmup) / (t1 - t_warm) : 0.0);
    printf("rss: start %ld kB, with pictures %ld kB, after warm-up %ld kB, end %ld kB, "
           "min %ld max %ld kB\n",
           rss_start, rss_pics, rss_warm, rss_end, rss_min, rss_max);
    printf("rss growth after warm-up: %ld kB (end), %ld kB (max)\n", growth, peak_growth);
    printf("peak rss (VmHWM): %ld kB; above the pictures: %ld kB\n", hwm_kb(),
           hwm_kb() - rss_pics);
    if (dev_warm >= 0)
        printf("device memory used: after warm-up %ld kB, end %ld kB, max %ld kB\n",
               dev_warm, dev_end, dev_max);
    printf("failures: %ld, bit mismatches: %ld\n", failures, mismatches);

    eq_scorer_close(&sc);
    for (int k = 0; k < 2; k++) {
        free(ref[k].buf);
        free(dist[k].buf);
    }
    int bad = failures || mismatches || peak_growth > max_growth_kb ||
              (dev_warm >= 0 && dev_max > dev_warm);
    printf("soak: %s\n", bad ? "FAIL" : "OK");
    return bad ? 1 : 0;
}
