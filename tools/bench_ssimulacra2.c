/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * bench_ssimulacra2: speed of the SSIMULACRA2 CPU reference, and the float64
 * check of docs/ssimulacra2.md.
 *
 *   bench_ssimulacra2 [-t THREADS] [-n ITER] REF.png DIST.png
 *       decodes the pair once, scores it ITER times (default 5) and prints
 *       the score, the best and median wall time per frame pair, the CPU
 *       time per pair, and the time of the first decode + score. With -n 0 it
 *       only decodes and scores once and prints the score with %.8f, as
 *       libjxl's `ssimulacra2 REF DIST` does (time the process from outside).
 *   bench_ssimulacra2 -s [-t THREADS] [-n ITER] [WxH]
 *       the same on a synthetic pair (default 1920x1080).
 *   bench_ssimulacra2 --f64 REF.png DIST.png | --f64 -s WxH
 *       prints the score of our definition, of the float64 check (every
 *       plane in double, the blur evaluated exactly as its 9-tap kernel),
 *       and of the float64 pipeline with libjxl's recursion in double but
 *       its float-rounded coefficients.
 *   bench_ssimulacra2 --study REF.png DIST.png | --study -s WxH
 *       prints our score and the float64 check, then the score of variants
 *       of the definition (planes or formulas in float or in double, the
 *       blur as libjxl's recursion in float or the kernel in double), each
 *       with its distance from ours and from the float64 check
 *       (docs/ssimulacra2.md, "Conditioning"). The first variant is the
 *       definition itself, recomputed by the study's own pipeline; the tool
 *       fails if its bits differ from the library's. With -s WxH both
 *       score the synthetic pair of -s instead of two PNGs.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu/cpu.h"
#include "cpu/ssimulacra2.h"
#include "exactquality.h"
#include "pngio.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint32_t lowbias32(uint32_t s)
{
    s ^= s >> 16;
    s *= 0x7feb352du;
    s ^= s >> 15;
    s *= 0x846ca68bu;
    s ^= s >> 16;
    return s;
}

/* A smooth gradient with texture, and a noisy copy of it. */
static void synth(EqFrame *f, int w, int h, int distorted)
{
    uint8_t *buf = malloc((size_t)w * h * 3);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                int v = (x * 255 / w + y * 255 / h + c * 40) / 2 +
                        (int)(lowbias32((uint32_t)(y * 65536 + x) * 4 + c) & 15);
                if (distorted)
                    v += (int)(lowbias32((uint32_t)(y * 65536 + x) * 4 + c + 7777) % 9) - 4;
                buf[((size_t)y * w + x) * 3 + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    memset(f, 0, sizeof(*f));
    f->layout = EQ_LAYOUT_RGB;
    f->width = w;
    f->height = h;
    f->bitdepth = 8;
    f->data[0] = buf;
    f->stride[0] = (ptrdiff_t)w * 3;
}

/* ----------------------------------------- float64 check and the study */

/*
 * One pipeline of our stages' functions, with choices (flags) of where
 * values are float or double and how the blur is computed, single thread,
 * whole planes, plain loops; not the scorer:
 *   --f64    every plane in double and the blur evaluated exactly as the
 *            9-tap kernel the recursion implements (eq_s2_blur9): the
 *            reference value that tells how far a float computation
 *            (libjxl's, our kernel in float, or the float recursion we used
 *            until 2026-12-05) lies from the exact one; also the same in
 *            double with libjxl's recursion at its float coefficients
 *            (splits the float blur's error into coefficients and
 *            arithmetic);
 *   --study  the definition (no flag: it must give the library's bits),
 *            then variants of it, to weigh a change of definition
 *            (docs/ssimulacra2.md, "Conditioning").
 */
enum {
    ST_LIN = 1,      /* linear RGB planes rounded to float when stored */
    ST_XYBD = 2,     /* XYB kept in double (the definition stores it as float) */
    ST_XYBF = 4,     /* XYB computed in float (cube root: the double one, rounded) */
    ST_DSTORE = 8,   /* d and d1 computed in double, rounded to float when stored */
    ST_DMAPF = 16,   /* SSIM map in float: d = max(1.0 - (double)q, 0), q in float */
    ST_D1F = 32,     /* d1 in float arithmetic */
    ST_FIRD = 64,    /* the 9-tap kernel in double (eq_s2_blur9), rounded to float */
    ST_REC = 128,    /* libjxl's recursion in float (the definition before 2026-12-05) */
    ST_F64 = 256,    /* every plane double, the blur exact (eq_s2_blur9 in double) */
    ST_F64REC = 512, /* with ST_F64: the blur as libjxl's recursion in double */
};

/*
 * libjxl's recursive Gaussian (tools/gauss_blur.cc, CreateRecursiveGaussian
 * (1.5)), the blur of our definition before 2026-12-05: Charalampidis'
 * truncated-cosine filter as three second-order recursions (k = 1, 3, 5),
 * radius N = 5, with libjxl's float coefficients, zero padding:
 *     s = in[n - N - 1] + in[n + N - 1]; y_k[n] = n2_k s + (-(d1_k y_k[n-1]) - y_k[n-2])
 *     out[n] = y_1[n] + (y_3[n] + y_5[n]),  n = -N + 1 .. len - 1.
 * In float (ST_REC) each step is a = n2 s; b = d1 p; c = -b - pp; y = a + c.
 */
#define REC_N 5
static const float rec_n2[3] = { 0x1.c4fa84p-5f, -0x1.e1fd7ap-5f, 0x1.a8894ap-7f };
static const float rec_d1[3] = { -0x1.e6f0e2p+0f, -0x1.2cf23p+0f, -0x1.1a6264p-53f };

static int st_flags;

static double st_round(double v, int on)
{
    return on ? (double)(float)v : v;
}

static void st_xyb_float(double r, double g, double b, double *ox, double *oy, double *ob)
{
    float rf = (float)r, gf = (float)g, bf = (float)b;
    float m0 = (float)EQ_S2_M02 * bf + (float)EQ_S2_BIAS;
    m0 = (float)EQ_S2_M01 * gf + m0;
    m0 = (float)EQ_S2_M00 * rf + m0;
    float m1 = (float)EQ_S2_M12 * bf + (float)EQ_S2_BIAS;
    m1 = (float)EQ_S2_M11 * gf + m1;
    m1 = (float)EQ_S2_M10 * rf + m1;
    float m2 = (float)EQ_S2_M22 * bf + (float)EQ_S2_BIAS;
    m2 = (float)EQ_S2_M21 * gf + m2;
    m2 = (float)EQ_S2_M20 * rf + m2;
    m0 = m0 < 0.0f ? 0.0f : m0;
    m1 = m1 < 0.0f ? 0.0f : m1;
    m2 = m2 < 0.0f ? 0.0f : m2;
    float cb = (float)EQ_S2_CBRT_BIAS;
    float c0 = (float)eq_pm_cbrt(m0) - cb;
    float c1 = (float)eq_pm_cbrt(m1) - cb;
    float c2 = (float)eq_pm_cbrt(m2) - cb;
    float x = 0.5f * (c0 - c1);
    float y = 0.5f * (c0 + c1);
    *ob = (c2 - y) + (float)EQ_S2_POS_B;
    *ox = x * (float)EQ_S2_POS_XMUL + (float)EQ_S2_POS_X;
    *oy = y + (float)EQ_S2_POS_Y;
}

static double st_ssim_d_float(float mu1, float mu2, float s11, float s22, float s12)
{
    float mu11 = mu1 * mu1, mu22 = mu2 * mu2, mu12 = mu1 * mu2;
    float dm = mu1 - mu2;
    float num_m = 1.0f - dm * dm;
    float num_s = 2.0f * (s12 - mu12) + (float)EQ_S2_C2;
    float denom_s = (s11 - mu11) + (s22 - mu22);
    denom_s = denom_s + (float)EQ_S2_C2;
    double d = 1.0 - (double)((num_m * num_s) / denom_s);
    return d > 0.0 ? d : 0.0;
}

static double st_edge_d1_float(float x1, float mu1, float x2, float mu2)
{
    float e1 = x1 - mu1, e2 = x2 - mu2;
    e1 = e1 < 0.0f ? -e1 : e1;
    e2 = e2 < 0.0f ? -e2 : e2;
    return (double)((1.0f + e2) / (1.0f + e1) - 1.0f);
}

/* One line of the blur: n values at in[i * st], out[i * st] (double planes;
 * outside ST_F64 their values are floats). */
static void st_line(const double *in, double *out, int n, ptrdiff_t st)
{
    if (st_flags & (ST_REC | ST_F64REC)) {
        const int f = !(st_flags & ST_F64);
        double p[3] = { 0, 0, 0 }, pp[3] = { 0, 0, 0 };
        for (int i = -REC_N + 1; i < n; i++) {
            int l = i - REC_N - 1, r = i + REC_N - 1;
            double s = (l >= 0 ? in[l * st] : 0.0) + (r < n ? in[r * st] : 0.0);
            double y[3];
            for (int k = 0; k < 3; k++) {
                if (f) {
                    float a = rec_n2[k] * (float)s;
                    float b = rec_d1[k] * (float)p[k];
                    float c = -b - (float)pp[k];
                    y[k] = a + c;
                } else {
                    y[k] = (double)rec_n2[k] * s + (-((double)rec_d1[k] * p[k]) - pp[k]);
                }
                pp[k] = p[k];
                p[k] = y[k];
            }
            if (i >= 0)
                out[i * st] = f ? (float)y[0] + ((float)y[1] + (float)y[2]) : y[0] + (y[1] + y[2]);
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        double v[9];
        float vf[9];
        for (int t = -4; t <= 4; t++) {
            v[t + 4] = i + t >= 0 && i + t < n ? in[(i + t) * st] : 0.0;
            vf[t + 4] = (float)v[t + 4];
        }
        double o = eq_s2_blur9(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
        out[i * st] = st_flags & ST_F64    ? o
                      : st_flags & ST_FIRD ? (float)o
                                           : eq_s2_fir9_at(vf, 1);
    }
}

/* The blur of map `map` of the channel whose XYB is x1, x2 into out. */
static void st_blur(const double *x1, const double *x2, int map, double *tmp, double *in,
                    double *out, int w, int h)
{
    const int f64 = st_flags & ST_F64, xybd = st_flags & ST_XYBD;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        double a = x1[i], b = x2[i];
        double v = map == EQ_S2_MAP_MU1   ? a
                   : map == EQ_S2_MAP_MU2 ? b
                   : map == EQ_S2_MAP_S11 ? a * a
                   : map == EQ_S2_MAP_S22 ? b * b
                                          : a * b;
        in[i] = f64    ? v
                : xybd ? (float)v
                       : eq_s2_blur_input(map, (float)a, (float)b);
    }
    for (int y = 0; y < h; y++)
        st_line(in + (size_t)y * w, tmp + (size_t)y * w, w, 1);
    for (int x = 0; x < w; x++)
        st_line(tmp + x, out + x, h, w);
}

static double study_score(const EqS2Source *src0, const EqS2Source *src1, int fl)
{
    int W = src0->plane[0].width, H = src0->plane[0].height;
    int ws[EQ_S2_MAX_SCALES], hs[EQ_S2_MAX_SCALES];
    int scales = eq_s2_scale_count(W, H, ws, hs);
    size_t n0 = (size_t)W * H;
    double *lin[2][3], *nxt[2][3], *xyb[2][3], *pl[7], *dd = malloc(sizeof(double) * n0),
                                                       *d1 = malloc(sizeof(double) * n0);
    if (fl & ST_F64)
        fl |= ST_XYBD;
    st_flags = fl;
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 3; c++) {
            lin[i][c] = malloc(sizeof(double) * n0);
            nxt[i][c] = malloc(sizeof(double) * n0);
            xyb[i][c] = malloc(sizeof(double) * n0);
        }
    for (int i = 0; i < 7; i++)
        pl[i] = malloc(sizeof(double) * n0);
    eq_s2_to_linear_c(src0, 0, H, lin[0][0], lin[0][1], lin[0][2]);
    eq_s2_to_linear_c(src1, 0, H, lin[1][0], lin[1][1], lin[1][2]);
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 3; c++)
            for (size_t k = 0; k < n0; k++)
                lin[i][c][k] = st_round(lin[i][c][k], fl & ST_LIN);
    double sums[EQ_SSIMULACRA2_SUMS] = { 0 };
    int w = W, h = H;
    for (int s = 0; s < scales; s++) {
        if (s > 0) {
            for (int i = 0; i < 2; i++)
                for (int c = 0; c < 3; c++) {
                    eq_s2_downsample_c(lin[i][c], w, h, nxt[i][c], 0, hs[s]);
                    double *t = lin[i][c];
                    lin[i][c] = nxt[i][c];
                    nxt[i][c] = t;
                    for (size_t k = 0; k < (size_t)ws[s] * hs[s]; k++)
                        lin[i][c][k] = st_round(lin[i][c][k], fl & ST_LIN);
                }
            w = ws[s];
            h = hs[s];
        }
        size_t n = (size_t)w * h;
        for (int i = 0; i < 2; i++)
            for (size_t k = 0; k < n; k++) {
                double v[3];
                if (fl & ST_XYBF)
                    st_xyb_float(lin[i][0][k], lin[i][1][k], lin[i][2][k], &v[0], &v[1], &v[2]);
                else
                    eq_s2_xyb(lin[i][0][k], lin[i][1][k], lin[i][2][k], &v[0], &v[1], &v[2]);
                for (int c = 0; c < 3; c++)
                    xyb[i][c][k] = st_round(v[c], !(fl & ST_XYBD));
            }
        for (int c = 0; c < 3; c++) {
            double *x1 = xyb[0][c], *x2 = xyb[1][c];
            for (int m = 0; m < EQ_S2_MAPS; m++)
                st_blur(x1, x2, m, pl[5], pl[6], pl[m], w, h);
            for (size_t i = 0; i < n; i++) {
                double mu1 = pl[0][i], mu2 = pl[1][i];
                if (fl & ST_DMAPF)
                    dd[i] = st_ssim_d_float((float)mu1, (float)mu2, (float)pl[2][i],
                                            (float)pl[3][i], (float)pl[4][i]);
                else
                    dd[i] = eq_s2_ssim_d(mu1, mu2, pl[2][i], pl[3][i], pl[4][i]);
                if (fl & ST_D1F)
                    d1[i] = st_edge_d1_float((float)x1[i], (float)mu1, (float)x2[i], (float)mu2);
                else
                    d1[i] = eq_s2_edge_d1(x1[i], mu1, x2[i], mu2);
                dd[i] = st_round(dd[i], fl & ST_DSTORE);
                d1[i] = st_round(d1[i], fl & ST_DSTORE);
            }
            eq_s2_sums_c(dd, d1, n, &sums[eq_s2_sum_index(s, c, 0)]);
        }
    }
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 3; c++) {
            free(lin[i][c]);
            free(nxt[i][c]);
            free(xyb[i][c]);
        }
    for (int i = 0; i < 7; i++)
        free(pl[i]);
    free(dd);
    free(d1);
    return eq_s2_score_from_sums(sums, scales, ws, hs);
}

/* A PNG pair read, its sources set up, and the score of the library's C
 * stages on one thread: what --f64 and --study compare against. */
typedef struct Pair {
    EqFrame a, b;
    double *lut;
    EqS2Source sa, sb;
    double score;
} Pair;

static void pair_close(Pair *p)
{
    free(p->lut);
    free((void *)p->a.data[0]);
    free((void *)p->b.data[0]);
}

static int pair_open(Pair *p, const char *a_path, const char *b_path)
{
    memset(p, 0, sizeof(*p));
    int sw, sh;
    if (!strcmp(a_path, "-s")) { /* -s WxH: the synthetic pair */
        if (sscanf(b_path, "%dx%d", &sw, &sh) != 2 || sw < EQ_S2_MIN_SIZE ||
            sh < EQ_S2_MIN_SIZE || sw > 16384 || sh > 16384) {
            fprintf(stderr, "-s wants WxH, from %dx%d to 16384x16384\n", EQ_S2_MIN_SIZE,
                    EQ_S2_MIN_SIZE);
            return 1;
        }
        synth(&p->a, sw, sh, 0);
        synth(&p->b, sw, sh, 1);
    } else if (eq_png_read(a_path, &p->a) || eq_png_read(b_path, &p->b)) {
        fprintf(stderr, "cannot read %s or %s\n", a_path, b_path);
        pair_close(p);
        return 1;
    }
    EqSettings s;
    eq_settings_init(&s);
    p->lut = malloc(sizeof(double) << p->a.bitdepth);
    double *mem = malloc(sizeof(double) * eq_s2_run_doubles(p->a.width, p->a.height, 1));
    EqLog log = { 0 };
    EqS2Dsp dsp;
    EqScores r;
    int err = !p->lut || !mem;
    if (!err) {
        eq_s2_srgb_lut(p->lut, p->a.bitdepth);
        eq_s2_source_init(&p->sa, &s, &p->a, p->lut);
        eq_s2_source_init(&p->sb, &s, &p->b, p->lut);
        eq_s2_dsp_init_c(&dsp);
        err = eq_s2_run(&dsp, NULL, mem, NULL, &log, &p->sa, &p->sb, &r) < 0;
    }
    free(mem);
    if (err) {
        fprintf(stderr, "cannot score %s and %s\n", a_path, b_path);
        pair_close(p);
        return 1;
    }
    p->score = r.ssimulacra2;
    return 0;
}

static int f64_check(const char *a_path, const char *b_path)
{
    Pair p;
    if (pair_open(&p, a_path, b_path))
        return 1;
    double exact = study_score(&p.sa, &p.sb, ST_F64);
    double rec = study_score(&p.sa, &p.sb, ST_F64 | ST_F64REC);
    printf("ours %.17g f64 %.17g f64_recursion_float_coefficients %.17g\n", p.score, exact, rec);
    pair_close(&p);
    return 0;
}


static int study(const char *a_path, const char *b_path)
{
    static const struct {
        const char *name;
        int flags;
    } v[] = {
        { "definition", 0 },
        { "recursion_xyb_double(before_2026-12-05)", ST_REC | ST_XYBD },
        { "recursion", ST_REC },
        { "recursion_d_d1_stored_float", ST_REC | ST_XYBD | ST_DSTORE },
        { "recursion_ssim_map_float", ST_REC | ST_XYBD | ST_DMAPF },
        { "recursion_xyb_float_arith", ST_REC | ST_XYBF },
        { "recursion_libjxl_types", ST_REC | ST_LIN | ST_XYBF | ST_DMAPF | ST_DSTORE },
        { "kernel_double", ST_FIRD },
        { "xyb_double", ST_XYBD },
        { "kernel_double_xyb_double", ST_FIRD | ST_XYBD },
        { "d_d1_stored_float", ST_DSTORE },
        { "ssim_map_float", ST_DMAPF },
        { "d1_float", ST_D1F },
        { "xyb_float_arith", ST_XYBF },
        { "linear_stored_float", ST_LIN },
        { "libjxl_types", ST_LIN | ST_XYBF | ST_DMAPF | ST_DSTORE },
    };
    Pair p;
    if (pair_open(&p, a_path, b_path))
        return 1;
    double exact = study_score(&p.sa, &p.sb, ST_F64);
    printf("ours %.17g f64 %.17g\n", p.score, exact);
    int bad = 0;
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        double sc = study_score(&p.sa, &p.sb, v[i].flags);
        printf("%s %.17g (%+.3g from ours, %+.3g from f64)\n", v[i].name, sc, sc - p.score,
               sc - exact);
        if (i == 0 && memcmp(&sc, &p.score, sizeof(sc)) != 0)
            bad = 1;
    }
    if (bad)
        fprintf(stderr, "the study's pipeline does not give the definition's bits\n");
    pair_close(&p);
    return bad;
}

int main(int argc, char **argv)
{
    int threads = 0, iters = 5, synthetic = 0, w = 1920, h = 1080;
    const char *paths[2] = { NULL, NULL };
    int np = 0;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s"))
            synthetic = 1;
        else if (!strcmp(argv[i], "--f64") && i + 2 < argc)
            return f64_check(argv[i + 1], argv[i + 2]);
        else if (!strcmp(argv[i], "--study") && i + 2 < argc)
            return study(argv[i + 1], argv[i + 2]);
        else if (synthetic && sscanf(argv[i], "%dx%d", &w, &h) == 2)
            ;
        else if (np < 2)
            paths[np++] = argv[i];
    }
    if (!synthetic && np != 2) {
        fprintf(stderr,
                "usage: %s [-t THREADS] [-n ITER] REF.png DIST.png | -s [WxH] | "
                "--f64 REF.png DIST.png | --study REF.png DIST.png (-s WxH for the PNGs)\n",
                argv[0]);
        return 2;
    }
    if (iters < 0)
        iters = 0;

    EqSettings s;
    eq_settings_init(&s);
    s.metrics = EQ_METRIC_SSIMULACRA2;
    s.backend = EQ_BACKEND_CPU;
    s.threads = threads;
    EqScorer *sc;
    if (eq_scorer_open(&sc, &s) < 0)
        return 1;

    EqFrame a, b;
    EqScores r;
    double t_decode_score = 0.0;
    if (synthetic) {
        synth(&a, w, h, 0);
        synth(&b, w, h, 1);
    } else {
        double t0 = now();
        if (eq_png_read(paths[0], &a) || eq_png_read(paths[1], &b)) {
            fprintf(stderr, "cannot read %s or %s\n", paths[0], paths[1]);
            return 1;
        }
        if (eq_scorer_score(sc, &a, &b, &r) < 0)
            return 1;
        t_decode_score = now() - t0;
    }
    if (iters == 0) {
        /* What libjxl's `ssimulacra2 REF DIST` does: decode, score once. */
        printf("%.8f\n", r.ssimulacra2);
        free((void *)a.data[0]);
        free((void *)b.data[0]);
        eq_scorer_close(&sc);
        return 0;
    }
    double *t = malloc(sizeof(double) * iters);
    double score = 0;
    double c0 = cpu_now();
    for (int i = 0; i < iters; i++) {
        double t0 = now();
        if (eq_scorer_score(sc, &a, &b, &r) < 0) {
            fprintf(stderr, "scoring failed\n");
            return 1;
        }
        t[i] = now() - t0;
        if (i > 0 && memcmp(&score, &r.ssimulacra2, sizeof(score)) != 0) {
            fprintf(stderr, "score changed between runs\n");
            return 1;
        }
        score = r.ssimulacra2;
    }
    double cpu = (cpu_now() - c0) / iters;
    qsort(t, iters, sizeof(double), cmp_double);
    printf("%dx%d threads %d: ssimulacra2 %.17g, best %.1f ms, median %.1f ms per pair "
           "(cpu %.1f ms)",
           a.width, a.height, threads, score, 1e3 * t[0], 1e3 * t[iters / 2], 1e3 * cpu);
    if (!synthetic)
        printf(", first decode+score %.1f ms", 1e3 * t_decode_score);
    printf("\n");
    free(t);
    free((void *)a.data[0]);
    free((void *)b.data[0]);
    eq_scorer_close(&sc);
    return 0;
}
