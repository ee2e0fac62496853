/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Parity through the public API: backend=cuda against backend=cpu, every
 * member of EqScores compared bit for bit (status, scored, every value, the
 * per-scale means and SSIMULACRA2's 108 sums), on seeded noise and
 * content-like frames at 8/10/12/16 bits in 4:2:0, 4:2:2, 4:4:4, NV12, P010
 * and P016, at 176x176, 577x323, 1921x1081, 3840x2160 and the smallest
 * sizes, through host frames and (every few frames) device frames and
 * host frames in page-locked memory (which the backend copies directly,
 * without staging, in bands of rows so that SSIMULACRA2 converts each band
 * while the next is copied; three bands here at every size); last, three
 * sizes and formats in turn, a frame each, on the same scorer.
 *
 *   test_cuda_parity [--full] [--seed N] [--frames-scale K]
 *   test_cuda_parity --raw REF.yuv DIST.yuv W H SUB BITDEPTH [...]
 *
 * --raw scores decoded fixture pairs (planar yuv, SUB 420/422/444, 16-bit
 * little-endian samples above 8 bits; tests/lib/run_fixture.sh makes them)
 * every frame on both backends; several pairs may follow one another.
 *
 * The default is a small run for CI-sized machines; --full runs more than
 * 2000 frame pairs. Without a GPU it exits 77 (skipped).
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/framegen.h"
#include "cuda/cuda.h"

static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level <= EQ_LOG_ERROR && getenv("EQ_PARITY_VERBOSE"))
        fprintf(stderr, "exactquality: %s\n", msg);
}

static long n_frames, n_values, n_mismatch, n_device_frames, n_pinned_frames;
static unsigned metrics_on_device;

static int same_double(double a, double b)
{
    return !memcmp(&a, &b, sizeof(double));
}

static void report(const char *what, const char *member, double c, double g)
{
    if (n_mismatch < 20)
        fprintf(stderr, "MISMATCH %s: %s cpu=%a (%.17g) cuda=%a (%.17g)\n", what, member, c, c,
                g, g);
    n_mismatch++;
}

/* Every member of EqScores. */
static void compare(const char *what, const EqScores *c, const EqScores *g, int device_only)
{
    char name[64];
#define CMP_INT(m)                                                                             \
    do {                                                                                       \
        n_values++;                                                                            \
        if (c->m != g->m)                                                                      \
            report(what, #m, c->m, g->m);                                                      \
    } while (0)
#define CMP_D(m, label)                                                                        \
    do {                                                                                       \
        n_values++;                                                                            \
        if (!same_double(c->m, g->m))                                                          \
            report(what, label, c->m, g->m);                                                   \
    } while (0)
    if (!device_only) {
        CMP_INT(requested);
        CMP_INT(scored);
    }
    for (int i = 0; i < EQ_METRIC_COUNT; i++) {
        snprintf(name, sizeof(name), "status[%d]", i);
        n_values++;
        if (c->status[i] != g->status[i])
            report(what, name, c->status[i], g->status[i]);
    }
    CMP_D(psnr_y, "psnr_y");
    CMP_D(psnr_cb, "psnr_cb");
    CMP_D(psnr_cr, "psnr_cr");
    CMP_D(ssim, "ssim");
    CMP_D(ssim_l, "ssim_l");
    CMP_D(ssim_c, "ssim_c");
    CMP_D(ssim_s, "ssim_s");
    CMP_D(ms_ssim, "ms_ssim");
    for (int k = 0; k < EQ_MS_SSIM_SCALES; k++) {
        snprintf(name, sizeof(name), "ms_ssim_l[%d]", k);
        CMP_D(ms_ssim_l[k], name);
        snprintf(name, sizeof(name), "ms_ssim_c[%d]", k);
        CMP_D(ms_ssim_c[k], name);
        snprintf(name, sizeof(name), "ms_ssim_s[%d]", k);
        CMP_D(ms_ssim_s[k], name);
    }
    CMP_D(ssimulacra2, "ssimulacra2");
    CMP_INT(ssimulacra2_scales);
    for (int k = 0; k < EQ_SSIMULACRA2_SUMS; k++) {
        snprintf(name, sizeof(name), "ssimulacra2_sums[%d]", k);
        CMP_D(ssimulacra2_sums[k], name);
    }
#undef CMP_INT
#undef CMP_D
}

/* Scores a copy of the pair in memory of another kind, each plane at a
 * pitch different from the host frame's (and between the two frames):
 * device memory (cudaMalloc, scored as device frames on a stream of the
 * test's own) or page-locked host memory (cudaHostAlloc, scored as host
 * frames: the upload's direct-copy path). */
enum { COPY_DEVICE, COPY_PINNED };

static int score_copy(EqScorer *sc, const FgFrame *r, const FgFrame *d, int where,
                      EqScores *out)
{
    EqFrame cf[2];
    void *mem[2][3] = {{NULL}};
    const FgFrame *src[2] = {r, d};
    int err = 0;
    cudaStream_t stream = NULL;

    if (where == COPY_DEVICE && cudaStreamCreate(&stream) != cudaSuccess)
        return EQ_ERR_DEVICE;
    for (int f = 0; f < 2; f++) {
        cf[f] = src[f]->f;
        for (int i = 0; i < fg_buffers(&cf[f]); i++) {
            int spp, bw, bh;
            fg_buffer_geometry(&cf[f], i, &spp, &bw, &bh);
            size_t row = (size_t)bw * spp * (cf[f].bitdepth > 8 ? 2 : 1);
            size_t pitch = where == COPY_DEVICE ? row + 64 + (size_t)f * 2
                                                : row + 32 + (size_t)f * 6;
            cudaError_t e = where == COPY_DEVICE
                                ? cudaMalloc(&mem[f][i], pitch * bh)
                                : cudaHostAlloc(&mem[f][i], pitch * bh, cudaHostAllocDefault);
            if (e == cudaSuccess)
                e = cudaMemcpy2D(mem[f][i], pitch, src[f]->f.data[i], src[f]->f.stride[i], row,
                                 bh, where == COPY_DEVICE ? cudaMemcpyHostToDevice
                                                          : cudaMemcpyHostToHost);
            if (e != cudaSuccess) {
                err = EQ_ERR_DEVICE;
                goto done;
            }
            cf[f].data[i] = mem[f][i];
            cf[f].stride[i] = (ptrdiff_t)pitch;
        }
    }
    err = where == COPY_DEVICE ? eq_scorer_score_device(sc, &cf[0], &cf[1], stream, out)
                               : eq_scorer_score(sc, &cf[0], &cf[1], out);
done:
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < 3; i++) {
            if (!mem[f][i])
                continue;
            if (where == COPY_DEVICE)
                cudaFree(mem[f][i]);
            else
                cudaFreeHost(mem[f][i]);
        }
    if (stream)
        cudaStreamDestroy(stream);
    return err;
}

static const FgFormat formats[] = {
    {"yuv420p", EQ_LAYOUT_YUV420P, 8, 0},    {"yuv422p", EQ_LAYOUT_YUV422P, 8, 0},
    {"yuv444p", EQ_LAYOUT_YUV444P, 8, 0},    {"yuv420p10", EQ_LAYOUT_YUV420P, 10, 0},
    {"yuv422p10", EQ_LAYOUT_YUV422P, 10, 0}, {"yuv444p10", EQ_LAYOUT_YUV444P, 10, 0},
    {"yuv420p12", EQ_LAYOUT_YUV420P, 12, 0}, {"yuv422p12", EQ_LAYOUT_YUV422P, 12, 0},
    {"yuv444p12", EQ_LAYOUT_YUV444P, 12, 0}, {"yuv420p16", EQ_LAYOUT_YUV420P, 16, 0},
    {"yuv422p16", EQ_LAYOUT_YUV422P, 16, 0}, {"yuv444p16", EQ_LAYOUT_YUV444P, 16, 0},
    {"nv12", EQ_LAYOUT_NV12, 8, 0},          {"p010", EQ_LAYOUT_NV12, 10, 1},
    {"p016", EQ_LAYOUT_NV12, 16, 1},         {"gray", EQ_LAYOUT_GRAY, 8, 0},
};
#define N_FORMATS (int)(sizeof(formats) / sizeof(formats[0]))

typedef struct Plan {
    int w, h;
    int frames_full; /* per format in --full */
    int frames_ci;   /* per format by default */
} Plan;

/* The smallest sizes: below, at and above each metric's minimum (the CPU
 * decides; the device must give the same status). */
static const Plan plans[] = {
    {1, 1, 1, 1},       {7, 7, 1, 0},      {8, 8, 1, 1},       {11, 11, 1, 1},
    {12, 13, 1, 0},     {16, 16, 1, 1},    {31, 17, 1, 0},     {32, 32, 1, 1},
    {176, 176, 100, 2}, {577, 323, 24, 1}, {1921, 1081, 3, 1}, {3840, 2160, 1, 0},
};

/* A pair of frames of one seed: 0, two unrelated noise frames; 1-3,
 * content plus a small or large distortion; 4, identical frames. */
static void fill_pair(FgFrame *r, FgFrame *d, const FgFormat *fmt, uint64_t frame_seed)
{
    const int kind = (int)(frame_seed % 5);
    uint64_t r2 = frame_seed;
    fg_fill(r, fg_splitmix(&r2), kind == 0 ? 0 : 1);
    if (kind == 0)
        fg_fill(d, fg_splitmix(&r2), 0);
    else
        fg_distort(d, r, fg_splitmix(&r2),
                   kind == 4 ? 0 : (1u << (fmt->bitdepth - 8)) * (kind == 1 ? 2 : 40));
}

/* The pair on both backends (their scores in *c and *g), every member
 * compared; the CPU's return value. */
static int score_both(EqScorer *cpu, EqScorer *gpu, const FgFrame *r, const FgFrame *d,
                      const char *what, EqScores *c, EqScores *g)
{
    const int ec = eq_scorer_score(cpu, &r->f, &d->f, c);
    const int eg = eq_scorer_score(gpu, &r->f, &d->f, g);
    n_values++;
    if (ec != eg)
        report(what, "return value", ec, eg);
    compare(what, c, g, 0);
    n_frames++;
    return ec;
}

/* Scores every frame of a raw planar pair on both backends. */
static int raw_pair(EqScorer *cpu, EqScorer *gpu, const char *rp, const char *dp, int w, int h,
                    int sub, int bd)
{
    FgFormat fmt = {"raw",
                    sub == 444   ? EQ_LAYOUT_YUV444P
                    : sub == 422 ? EQ_LAYOUT_YUV422P
                                 : EQ_LAYOUT_YUV420P,
                    bd, 0};
    FILE *fr = fopen(rp, "rb"), *fd = fopen(dp, "rb");
    FgFrame r, d;
    int frames = 0;
    if (!fr || !fd || fg_alloc(&r, &fmt, w, h, 0) < 0 || fg_alloc(&d, &fmt, w, h, 0) < 0) {
        printf("cannot read %s / %s\n", rp, dp);
        return -1;
    }
    long mism_before = n_mismatch;
    for (;;) {
        int ok = 1;
        for (int i = 0; i < 3 && ok; i++) {
            int spp, bw, bh;
            fg_buffer_geometry(&r.f, i, &spp, &bw, &bh);
            size_t n = (size_t)r.f.stride[i] * bh;
            ok = fread(r.mem[i], 1, n, fr) == n && fread(d.mem[i], 1, n, fd) == n;
        }
        if (!ok)
            break;
        EqScores c, g;
        char what[160];
        snprintf(what, sizeof(what), "%s frame %d", rp, frames);
        score_both(cpu, gpu, &r, &d, what, &c, &g);
        if (frames == 0)
            printf("    %s frame 0: psnr_y %.17g ssim %.17g ms_ssim %.17g ssimulacra2 %.17g\n",
                   rp, g.psnr_y, g.ssim, g.ms_ssim, g.ssimulacra2);
        frames++;
    }
    printf("  fixture %s: %d frames %dx%d %d-bit %d, %ld mismatches\n", rp, frames, w, h, bd,
           sub, n_mismatch - mism_before);
    fclose(fr);
    fclose(fd);
    fg_free(&r);
    fg_free(&d);
    return frames;
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    int full = 0, raw_first = 0;
    double scale = 1.0;
    char why[256];

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--full"))
            full = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--frames-scale") && i + 1 < argc)
            scale = atof(argv[++i]);
        else if (!strcmp(argv[i], "--raw")) {
            raw_first = i + 1;
            break;
        } else {
            fprintf(stderr, "usage: %s [--full] [--seed N] [--frames-scale K]\n", argv[0]);
            return 2;
        }
    }
    if (!eq_cuda_device_available(why, sizeof(why))) {
        printf("no CUDA device (%s): skipped\n", why);
        return 77;
    }

    EqSettings s;
    EqScorer *cpu = NULL, *gpu = NULL;
    eq_settings_init(&s);
    s.log = log_cb;
    s.backend = EQ_BACKEND_CPU;
    if (eq_scorer_open(&cpu, &s) < 0)
        return 1;
    s.backend = EQ_BACKEND_CUDA;
    /* page-locked frames scored with SSIMULACRA2 go up in bands; three at
     * every size (the default has one below 1024 rows), unless the caller
     * set a count */
    setenv(EQ_CUDA_BANDS_ENV, "3", 0);
    if (eq_scorer_open(&gpu, &s) < 0) {
        printf("CUDA scorer failed to open\n");
        return 1;
    }
    metrics_on_device = eq_cuda_metrics(gpu->cuda);
    printf("parity: seed %llu, %s, device metrics 0x%x\n", (unsigned long long)seed,
           full ? "full" : "ci", metrics_on_device);

    if (raw_first) {
        for (int i = raw_first; i + 5 < argc; i += 6)
            if (raw_pair(cpu, gpu, argv[i], argv[i + 1], atoi(argv[i + 2]), atoi(argv[i + 3]),
                         atoi(argv[i + 4]), atoi(argv[i + 5])) <= 0)
                n_mismatch++;
        eq_scorer_close(&gpu);
        eq_scorer_close(&cpu);
        printf("parity: %ld fixture frames, %ld values compared, %ld mismatches\n", n_frames,
               n_values, n_mismatch);
        printf("%ld passed, %ld failed\n", n_values - n_mismatch, n_mismatch);
        return n_mismatch ? 1 : 0;
    }

    uint64_t rng = seed;
    for (size_t p = 0; p < sizeof(plans) / sizeof(plans[0]); p++) {
        int count = full ? plans[p].frames_full : plans[p].frames_ci;
        count = (int)(count * scale + 0.5);
        if (count <= 0)
            continue;
        long mism_before = n_mismatch, frames_before = n_frames;
        for (int fi = 0; fi < N_FORMATS; fi++) {
            const FgFormat *fmt = &formats[fi];
            FgFrame r, d;
            int pad = (int)(fg_splitmix(&rng) % 4) * 5;
            if (fg_alloc(&r, fmt, plans[p].w, plans[p].h, pad) < 0 ||
                fg_alloc(&d, fmt, plans[p].w, plans[p].h, (pad + 8) % 13) < 0) {
                printf("out of memory\n");
                return 1;
            }
            for (int k = 0; k < count; k++) {
                fill_pair(&r, &d, fmt, fg_splitmix(&rng));
                EqScores c, g;
                char what[128];
                snprintf(what, sizeof(what), "%s %dx%d frame %d (seed %llu)", fmt->name,
                         plans[p].w, plans[p].h, k, (unsigned long long)seed);
                const int ec = score_both(cpu, gpu, &r, &d, what, &c, &g);
                if (k % 8 == 0) {
                    /* Device frames: metrics the device does not do fail
                     * with NOT_BUILT there; compare the others. Each pass
                     * of the same pair follows a scoring of the swapped
                     * pair, so that a buffer that a pass fails to write
                     * holds other values, not this pair's from the pass
                     * before. */
                    EqScores dv, junk;
                    score_copy(gpu, &d, &r, COPY_DEVICE, &junk);
                    score_copy(gpu, &r, &d, COPY_DEVICE, &dv);
                    char dwhat[160];
                    snprintf(dwhat, sizeof(dwhat), "%s [device frames]", what);
                    for (int i = 0; i < EQ_METRIC_COUNT; i++) {
                        if (!(metrics_on_device & (1u << i)))
                            continue;
                        n_values++;
                        if (c.status[i] != dv.status[i])
                            report(dwhat, eq_metric_name(1u << i), c.status[i], dv.status[i]);
                    }
                    for (int i = 0; i < eq_value_count(); i++) {
                        const EqValueInfo *vi = eq_value_info(i);
                        if (!(metrics_on_device & vi->metric))
                            continue;
                        n_values++;
                        if (!same_double(eq_value_get(&c, i), eq_value_get(&dv, i)))
                            report(dwhat, vi->name, eq_value_get(&c, i), eq_value_get(&dv, i));
                    }
                    if (metrics_on_device & EQ_METRIC_SSIMULACRA2)
                        for (int i = 0; i < EQ_SSIMULACRA2_SUMS; i++) {
                            n_values++;
                            if (!same_double(c.ssimulacra2_sums[i], dv.ssimulacra2_sums[i]))
                                report(dwhat, "ssimulacra2_sums", c.ssimulacra2_sums[i],
                                       dv.ssimulacra2_sums[i]);
                        }
                    n_device_frames++;
                    /* the same frames from page-locked memory */
                    EqScores pv;
                    char pwhat[160];
                    snprintf(pwhat, sizeof(pwhat), "%s [page-locked host frames]", what);
                    score_copy(gpu, &d, &r, COPY_DEVICE, &junk);
                    int ep = score_copy(gpu, &r, &d, COPY_PINNED, &pv);
                    n_values++;
                    if (ec != ep)
                        report(pwhat, "return value", ec, ep);
                    compare(pwhat, &c, &pv, 0);
                    n_pinned_frames++;
                }
            }
            fg_free(&r);
            fg_free(&d);
        }
        printf("  %5dx%-5d %5ld frames, %ld mismatches\n", plans[p].w, plans[p].h,
               n_frames - frames_before, n_mismatch - mism_before);
        fflush(stdout);
    }
    /* Sizes and formats in turn, a frame each, on the one scorer: each of
     * a frame's sum launches finds in its table slot the table of another
     * size, so that a kernel that read its table before the launch's put
     * of it had ended would read other sums' descriptions (within a run of
     * one size the slot holds the same table frame after frame). */
    static const struct {
        int w, h, fmt;
    } turns[] = {{176, 176, 0}, {577, 323, 5}, {320, 180, 13}};
    enum { N_TURNS = (int)(sizeof(turns) / sizeof(turns[0])) };
    FgFrame tr[N_TURNS], td[N_TURNS];
    for (int t = 0; t < N_TURNS; t++)
        if (fg_alloc(&tr[t], &formats[turns[t].fmt], turns[t].w, turns[t].h, 0) < 0 ||
            fg_alloc(&td[t], &formats[turns[t].fmt], turns[t].w, turns[t].h, 3) < 0) {
            printf("out of memory\n");
            return 1;
        }
    const int nturn = (int)((full ? 300 : 30) * scale + 0.5);
    const long mism_before = n_mismatch;
    for (int k = 0; k < nturn; k++) {
        const int t = k % N_TURNS;
        const FgFormat *fmt = &formats[turns[t].fmt];
        fill_pair(&tr[t], &td[t], fmt, fg_splitmix(&rng));
        EqScores c, g;
        char what[128];
        snprintf(what, sizeof(what), "%s %dx%d in turn, frame %d (seed %llu)", fmt->name,
                 turns[t].w, turns[t].h, k, (unsigned long long)seed);
        score_both(cpu, gpu, &tr[t], &td[t], what, &c, &g);
    }
    for (int t = 0; t < N_TURNS; t++) {
        fg_free(&tr[t]);
        fg_free(&td[t]);
    }
    printf("  in turn   %5d frames, %ld mismatches\n", nturn, n_mismatch - mism_before);
    eq_scorer_close(&gpu);
    eq_scorer_close(&cpu);
    printf("parity: %ld frames (%ld also as device frames and from page-locked memory), "
           "%ld values compared, %ld mismatches\n",
           n_frames, n_device_frames, n_values, n_mismatch);
    if (n_pinned_frames != n_device_frames)
        printf("internal: %ld page-locked frames\n", n_pinned_frames);
    printf("%ld passed, %ld failed\n", n_values - n_mismatch, n_mismatch);
    return n_mismatch ? 1 : 0;
}
