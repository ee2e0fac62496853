/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * CPU references of psnr, float_ssim and float_ms_ssim without data files:
 * size limits through the public API, stage functions against the per-sample
 * loops of libvmaf 3.2.0 (iqa/convolve.c, iqa/decimate.c) on seeded random
 * planes, thread-count invariance and known values.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/psnr.h"
#include "cpu/ssim.h"
#include "exact/ssim_terms.h"
#include "exactquality.h"
#include "eqtest.h" /* after exactquality.h: its scorer and frame helpers */
#include "finish.h"

static char last_msg[1024];
static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level == EQ_LOG_ERROR)
        snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next_u32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static EqScorer *open_cpu(unsigned metrics, int threads)
{
    return eqtest_open_cpu(metrics, threads, log_cb, EQ_MATRIX_UNSPECIFIED,
                           EQ_RANGE_UNSPECIFIED);
}

/* Smooth random content with noise, so that SSIM is neither 0 nor 1. */
static void fill(uint8_t *buf, int w, int h, int noise)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int v = 128 + (int)(60.0 * sin(x * 0.05 + y * 0.031)) + (int)(next_u32() % (unsigned)(2 * noise + 1)) - noise;
            buf[(size_t)y * w + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
}

static const unsigned THREE = EQ_METRIC_PSNR | EQ_METRIC_SSIM | EQ_METRIC_MS_SSIM;

static void test_sizes(void)
{
    EqScorer *sc = open_cpu(THREE, 2);
    uint8_t *a = malloc(400 * 400), *b = malloc(400 * 400);
    EqScores r;
    CHECK(sc != NULL);
    fill(a, 400, 400, 0);
    fill(b, 400, 400, 10);

    /* Below MS-SSIM's 176: an error naming the metric and the minimum; psnr
     * and ssim still scored. */
    EqFrame fa = eqtest_gray8(175, 300, a), fb = eqtest_gray8(175, 300, b);
    last_msg[0] = 0;
    CHECK(eq_scorer_score(sc, &fa, &fb, &r) == EQ_ERR_TOO_SMALL);
    CHECK(strstr(last_msg, "ms_ssim") && strstr(last_msg, "176x176"));
    CHECK(r.status[eq_metric_index(EQ_METRIC_MS_SSIM)] == EQ_ERR_TOO_SMALL);
    CHECK(r.status[eq_metric_index(EQ_METRIC_PSNR)] == 0);
    CHECK(r.status[eq_metric_index(EQ_METRIC_SSIM)] == 0);
    CHECK(r.scored == (EQ_METRIC_PSNR | EQ_METRIC_SSIM));
    CHECK(isfinite(r.psnr_y) && isfinite(r.ssim) && isnan(r.ms_ssim));
    fa = eqtest_gray8(300, 175, a);
    fb = eqtest_gray8(300, 175, b);
    CHECK(eq_scorer_score(sc, &fa, &fb, &r) == EQ_ERR_TOO_SMALL);
    fa = eqtest_gray8(176, 176, a);
    fb = eqtest_gray8(176, 176, b);
    CHECK(eq_scorer_score(sc, &fa, &fb, &r) == 0);
    CHECK(r.scored == THREE && isfinite(r.ms_ssim));

    /* Below SSIM's 11x11 window. */
    fa = eqtest_gray8(10, 40, a);
    fb = eqtest_gray8(10, 40, b);
    last_msg[0] = 0;
    CHECK(eq_scorer_score(sc, &fa, &fb, &r) == EQ_ERR_TOO_SMALL);
    CHECK(r.status[eq_metric_index(EQ_METRIC_SSIM)] == EQ_ERR_TOO_SMALL);
    CHECK(r.status[eq_metric_index(EQ_METRIC_PSNR)] == 0);
    CHECK(r.scored == EQ_METRIC_PSNR && isfinite(r.psnr_y));
    EqSettings s;
    eq_settings_init(&s);
    EqScorer *only_ssim = open_cpu(EQ_METRIC_SSIM, 1);
    last_msg[0] = 0;
    CHECK(eq_scorer_score(only_ssim, &fa, &fb, &r) == EQ_ERR_TOO_SMALL);
    CHECK(strstr(last_msg, "ssim") && strstr(last_msg, "11x11"));
    fa = eqtest_gray8(11, 11, a);
    fb = eqtest_gray8(11, 11, b);
    CHECK(eq_scorer_score(only_ssim, &fa, &fb, &r) == 0);
    CHECK(isfinite(r.ssim));
    eq_scorer_close(&only_ssim);

    /* Identical frames: the ceiling psnr 6 * 8 + 12, SSIM and MS-SSIM 1. */
    fa = eqtest_gray8(400, 400, a);
    CHECK(eq_scorer_score(sc, &fa, &fa, &r) == 0);
    CHECK(r.psnr_y == 60.0);
    CHECK(r.ssim == 1.0 && r.ssim_l == 1.0 && r.ssim_c == 1.0 && r.ssim_s == 1.0);
    CHECK(r.ms_ssim == 1.0);

    eq_scorer_close(&sc);
    free(a);
    free(b);
}

/* Different thread counts, odd sizes: the same bits. */
static void test_threads(void)
{
    const int w = 401, h = 299;
    uint8_t *a = malloc((size_t)w * h), *b = malloc((size_t)w * h);
    EqScores r[3];
    int threads[3] = { 1, 2, 5 };
    fill(a, w, h, 3);
    fill(b, w, h, 25);
    EqFrame fa = eqtest_gray8(w, h, a), fb = eqtest_gray8(w, h, b);
    for (int i = 0; i < 3; i++) {
        EqScorer *sc = open_cpu(THREE, threads[i]);
        CHECK(eq_scorer_score(sc, &fa, &fb, &r[i]) == 0);
        eq_scorer_close(&sc);
    }
    for (int i = 1; i < 3; i++)
        for (int k = 0; k < eq_value_count(); k++)
            if (eq_value_info(k)->metric & THREE)
                CHECK_BITS(eq_value_get(&r[i], k), eq_value_get(&r[0], k));
    printf("ssim %.6f ms_ssim %.6f psnr %.3f\n", r[0].ssim, r[0].ms_ssim, r[0].psnr_y);
    CHECK(r[0].ssim > 0.1 && r[0].ssim < 0.99);
    free(a);
    free(b);
}

static void random_plane(float *p, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (float)(next_u32() % 65536u) / 256.0f;
}

/* Planes of wide dynamic range: samples near 2^7 mixed with samples near
 * 2^-35, so that the double partial sums of a filter round (on sample-like
 * planes of 8 to 10 bits every filter sum is exact in double). The float
 * rounding of the output hides the order of the taps all the same except on
 * constructed inputs (docs/cpu-reference.md, "Mutations"). */
static void wide_plane(float *p, int n)
{
    for (int i = 0; i < n; i++) {
        int e = (next_u32() & 1) ? 7 : -33 - (int)(next_u32() % 4u);
        p[i] = ldexpf((float)(0x800000u | (next_u32() & 0x7fffffu)), e - 23);
    }
}

/* iqa/convolve.c _iqa_convolve (IQA_CONVOLVE_1D), per output sample. */
static void naive_blur(const float *img, int w, int h, float *out)
{
    static const float g[EQ_SSIM_GAUSS_LEN] = EQ_SSIM_GAUSS_TAPS;
    const int ow = w - 10, oh = h - 10;
    float *cache = calloc((size_t)w * h, sizeof(float));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < ow; x++) {
            double sum = 0.0;
            for (int u = 0; u < 11; u++)
                sum = eq_tap(sum, img[y * w + x + u], g[u]);
            cache[y * w + x + 5] = (float)sum;
        }
    for (int x = 0; x < ow; x++)
        for (int y = 0; y < oh; y++) {
            double sum = 0.0;
            for (int v = 0; v < 11; v++)
                sum = eq_tap(sum, cache[(y + v) * w + x + 5], g[v]);
            out[y * ow + x] = (float)sum;
        }
    free(cache);
}

/* iqa/decimate.c + _iqa_filter_pixel, per output sample, 2-D kernel k of
 * size kw, factor f. */
static float naive_filter_pixel(const float *img, int w, int h, int x, int y, const float *k,
                                int kw)
{
    int c = kw / 2, even = !(kw & 1), ko = 0;
    double sum = 0.0;
    for (int v = -c; v <= c - even; v++)
        for (int u = -c; u <= c - even; u++, ko++)
            sum = eq_tap(sum, img[eq_reflect(y + v, h) * w + eq_reflect(x + u, w)], k[ko]);
    return (float)sum;
}

static void test_stages(void)
{
    static const float lpf[81] = EQ_MS_SSIM_LPF_TAPS;
    const int sizes[][2] = { { 37, 23 }, { 64, 48 }, { 301, 17 }, { 530, 41 } };
    EqSsimDsp dsp;
    eq_ssim_dsp_init_c(&dsp);

    for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
        const int w = sizes[t][0], h = sizes[t][1];
        float *img = malloc(sizeof(float) * w * h), *want = malloc(sizeof(float) * w * h),
              *got = malloc(sizeof(float) * w * h), *hb = malloc(sizeof(float) * w * h);
        wide_plane(img, w * h);

        /* blur: h pass on every row, v pass on 11 rows */
        naive_blur(img, w, h, want);
        for (int y = 0; y < h; y++)
            dsp.blur_h(img + y * w, w, hb + y * (w - 10));
        int bad = 0;
        for (int y = 0; y < h - 10; y++) {
            const float *rows[EQ_SSIM_WINDOW];
            for (int k = 0; k < EQ_SSIM_WINDOW; k++)
                rows[k] = hb + (y + k) * (w - 10);
            dsp.blur_v(rows, w - 10, got + y * (w - 10));
        }
        bad += memcmp(want, got, sizeof(float) * (w - 10) * (h - 10)) != 0;
        CHECK(bad == 0);

        /* each pass alone on wide-range input, against the per-sample loop */
        {
            static const float g[EQ_SSIM_GAUSS_LEN] = EQ_SSIM_GAUSS_TAPS;
            const float *rows[EQ_SSIM_WINDOW];
            for (int k = 0; k < EQ_SSIM_WINDOW; k++)
                rows[k] = img + (k % h) * w;
            dsp.blur_v(rows, w, got);
            dsp.blur_h(img, w, hb);
            bad = 0;
            for (int x = 0; x < w; x++) {
                double sv = 0.0, sh = 0.0;
                for (int k = 0; k < EQ_SSIM_GAUSS_LEN; k++) {
                    sv = eq_tap(sv, rows[k][x], g[k]);
                    if (x < w - 10)
                        sh = eq_tap(sh, img[x + k], g[k]);
                }
                float fv = (float)sv, fh = (float)sh;
                bad += memcmp(&fv, &got[x], sizeof(float)) != 0;
                if (x < w - 10)
                    bad += memcmp(&fh, &hb[x], sizeof(float)) != 0;
            }
            CHECK(bad == 0);
        }

        /* 9x9 low-pass decimation by 2 */
        const int sw = eq_decimated_size(w, 2), sh = eq_decimated_size(h, 2);
        bad = 0;
        for (int y = 0; y < sh; y++) {
            dsp.lpf_decimate(img, w, h, y, got);
            for (int x = 0; x < sw; x++) {
                float n = naive_filter_pixel(img, w, h, 2 * x, 2 * y, lpf, 9);
                bad += memcmp(&n, &got[x], sizeof(float)) != 0;
            }
        }
        CHECK(bad == 0);

        /* box decimation, factors 2..5 */
        for (int f = 2; f <= 5; f++) {
            float box[25];
            for (int i = 0; i < f * f; i++)
                box[i] = 1.0f / (f * f);
            const int bw = eq_decimated_size(w, f), bh = eq_decimated_size(h, f);
            bad = 0;
            for (int y = 0; y < bh; y++) {
                dsp.box_decimate(img, w, h, f, y, got);
                for (int x = 0; x < bw; x++) {
                    float n = naive_filter_pixel(img, w, h, f * x, f * y, box, f);
                    bad += memcmp(&n, &got[x], sizeof(float)) != 0;
                }
            }
            CHECK(bad == 0);
        }
        free(img);
        free(want);
        free(got);
        free(hb);
    }

    /* automatic scale: max(1, round(min(w, h) / 256)) */
    CHECK(eq_ssim_auto_scale(576, 324) == 1);
    CHECK(eq_ssim_auto_scale(1920, 1080) == 4);
    CHECK(eq_ssim_auto_scale(383, 1000) == 1);
    CHECK(eq_ssim_auto_scale(384, 1000) == 2);
    CHECK(eq_ssim_auto_scale(3840, 2160) == 8);
    CHECK(eq_decimated_size(1921, 4) == 481);
    CHECK(eq_decimated_size(1080, 4) == 270);

    /* picture_copy: 10-bit /4, 12-bit /16, 16-bit /256; MSB-aligned words
     * through the plane view. */
    uint16_t words[4] = { 0x0000, 0x03ff << 6, 0x0201 << 6 | 0x3f, 0x0003 << 6 };
    EqPlane p = { (const uint8_t *)words, 8, 2, 4, 1, 2, 6 };
    float out[4];
    dsp.to_float(&p, 0, 10, out);
    CHECK(out[0] == 0.0f && out[1] == 1023.0f / 4.0f && out[2] == 513.0f / 4.0f &&
          out[3] == 0.75f);

    /* PSNR's host mapping: the ceiling and an exact SSE. */
    CHECK(eq_psnr_from_sse(0, 100, 8) == 60.0);
    CHECK(eq_psnr_from_sse(0, 100, 10) == 72.0);
    CHECK(eq_psnr_from_sse(100, 100, 8) == 10. * log10(65025.0));
}

/*
 * One scale through the CPU driver (bands, threads, ring buffers, ordered
 * sum) against the plain definition: whole-plane blurs, per-window terms,
 * and one sequential loop per sum. The doubles must be equal, before any
 * rounding to float: this catches a single reordered add.
 */
static void test_scale_sums(int w, int h)
{
    const int ow = w - 10, oh = h - 10;
    const size_t n = (size_t)w * h, m = (size_t)ow * oh;
    float *ref = malloc(n * sizeof(float)), *dist = malloc(n * sizeof(float));
    float *sq[3], *blur[5];
    for (int i = 0; i < 3; i++)
        sq[i] = malloc(n * sizeof(float));
    for (int i = 0; i < 5; i++)
        blur[i] = malloc(m * sizeof(float));
    random_plane(ref, (int)n);
    for (size_t i = 0; i < n; i++) /* dist: ref plus noise of varying size */
        dist[i] = ref[i] * 0.75f + (float)(next_u32() % 4096u) / 64.0f;

    EqSsimDsp dsp;
    eq_ssim_dsp_init_c(&dsp);
    dsp.products(ref, dist, (int)n, sq[0], sq[1], sq[2]);
    naive_blur(ref, w, h, blur[0]);
    naive_blur(dist, w, h, blur[1]);
    for (int i = 0; i < 3; i++)
        naive_blur(sq[i], w, h, blur[2 + i]);
    EqSsimSums want = { 0.0, 0.0, 0.0, 0.0 };
    for (size_t i = 0; i < m; i++) {
        double l, c, lcs;
        float s;
        float v1 = eq_ssim_variance(blur[2][i], blur[0][i]);
        float v2 = eq_ssim_variance(blur[3][i], blur[1][i]);
        float cv = eq_ssim_covariance(blur[4][i], blur[0][i], blur[1][i]);
        eq_ssim_window(blur[0][i], blur[1][i], v1, v2, cv, &l, &c, &s);
        lcs = eq_ssim_lcs(l, c, s);
        want.l += l;
        want.c += c;
        want.s += (double)s;
        want.lcs += lcs;
    }

    for (int threads = 1; threads <= 3; threads++) {
        EqSettings st;
        EqLog log = { log_cb, NULL };
        EqCpu *cpu = NULL;
        EqSsimWork *work = NULL;
        EqSsimSums got;
        eq_settings_init(&st);
        st.threads = threads;
        CHECK(eq_cpu_open(&cpu, &st, &log) == 0);
        CHECK(eq_cpu_ssim_scale(cpu, &work, ref, dist, w, h, 1, &got) == 0);
        CHECK_BITS(got.l, want.l);
        CHECK_BITS(got.c, want.c);
        CHECK_BITS(got.s, want.s);
        CHECK_BITS(got.lcs, want.lcs);
        /* again on the same workspace, without l*c*s */
        CHECK(eq_cpu_ssim_scale(cpu, &work, ref, dist, w, h, 0, &got) == 0);
        CHECK_BITS(got.l, want.l);
        CHECK_BITS(got.s, want.s);
        eq_ssim_work_free(&work);
        eq_cpu_close(&cpu);
    }
    /* the finish: means rounded to float */
    EqScores sc;
    eq_ssim_finish(&want, (int64_t)m, &sc);
    CHECK_BITS(sc.ssim, (double)(float)(want.lcs / (double)m));
    CHECK_BITS(sc.ssim_s, (double)(float)(want.s / (double)m));

    free(ref);
    free(dist);
    for (int i = 0; i < 3; i++)
        free(sq[i]);
    for (int i = 0; i < 5; i++)
        free(blur[i]);
}

/*
 * frame_sums against the plain loop on terms chosen so that the order of
 * every add shows: after 1.0, terms alternate u/2 and u (u = 2^-52, one ulp
 * of the running sum): u/2 is a tie that rounds to even, so swapping any two
 * neighbours changes the sum. Summed in one call and in row-sized calls.
 */
static void test_frame_sums_order(void)
{
    enum { N = 4001 };
    static double l[N], c[N], lcs[N];
    static float s[N];
    const double u = ldexp(1.0, -52);
    EqSsimDsp dsp;
    eq_ssim_dsp_init_c(&dsp);
    for (int i = 0; i < N; i++) {
        double v = i == 0 ? 1.0 : (i & 1) ? u / 2 : u;
        l[i] = c[i] = lcs[i] = v;
        s[i] = (float)v;
    }
    double want = 0.0;
    for (int i = 0; i < N; i++)
        want += l[i];
    CHECK(want > 1.0 + 2000 * u); /* the ties went up half the time */

    EqSsimSums one = { 0.0, 0.0, 0.0, 0.0 }, rows = { 0.0, 0.0, 0.0, 0.0 };
    dsp.frame_sums(l, c, s, lcs, N, &one);
    for (int i = 0; i < N; i += 37)
        dsp.frame_sums(l + i, c + i, s + i, lcs + i, N - i < 37 ? N - i : 37, &rows);
    CHECK_BITS(one.l, want);
    CHECK_BITS(one.c, want);
    CHECK_BITS(one.s, want);
    CHECK_BITS(one.lcs, want);
    CHECK_BITS(rows.l, want);
    CHECK_BITS(rows.c, want);
    CHECK_BITS(rows.s, want);
    CHECK_BITS(rows.lcs, want);
}

/* checkasm style: every stage of every built instruction-set variant
 * against the C reference, bit for bit, on seeded random planes of sizes
 * that leave partial blocks. */
static void test_isas(void)
{
    static const char *const isas[] = { "avx2", "avx512" };
    EqSsimDsp ref_dsp;
    eq_ssim_dsp_init_c(&ref_dsp);

    for (size_t k = 0; k < sizeof(isas) / sizeof(isas[0]); k++) {
        EqSsimDsp d;
        if (eq_ssim_dsp_init_isa(&d, isas[k]) < 0) {
            printf("stages %s: not built or not supported by this CPU\n", isas[k]);
            continue;
        }
        int compared = 0, bad = 0;
        const int sizes[][2] = { { 11, 11 }, { 47, 29 }, { 300, 40 }, { 613, 23 } };
        for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
            const int w = sizes[t][0], h = sizes[t][1], n = w * h;
            float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
            float *o1 = malloc(sizeof(float) * n * 3), *o2 = malloc(sizeof(float) * n * 3);
            double *d1 = malloc(sizeof(double) * n * 3), *d2 = malloc(sizeof(double) * n * 3);
            wide_plane(a, n);
            for (int i = 0; i < n; i++)
                b[i] = a[i] * 0.5f + (float)(next_u32() % 2048u) / 16.0f;
#define SAME(p, q, bytes) (bad += memcmp((p), (q), (bytes)) != 0, compared++)
            for (int y = 0; y < h; y++) {
                ref_dsp.blur_h(a + y * w, w, o1);
                d.blur_h(a + y * w, w, o2);
                SAME(o1, o2, sizeof(float) * (w - 10));
            }
            if (h >= 11) {
                const float *rows[EQ_SSIM_WINDOW];
                for (int i = 0; i < EQ_SSIM_WINDOW; i++)
                    rows[i] = a + (i * 3 % h) * w;
                ref_dsp.blur_v(rows, w, o1);
                d.blur_v(rows, w, o2);
                SAME(o1, o2, sizeof(float) * w);
            }
            for (int y = 0; y < eq_decimated_size(h, 2); y++) {
                ref_dsp.lpf_decimate(a, w, h, y, o1);
                d.lpf_decimate(a, w, h, y, o2);
                SAME(o1, o2, sizeof(float) * eq_decimated_size(w, 2));
            }
            for (int y = 0; y < eq_decimated_size(h, 3); y++) {
                ref_dsp.box_decimate(a, w, h, 3, y, o1);
                d.box_decimate(a, w, h, 3, y, o2);
                SAME(o1, o2, sizeof(float) * eq_decimated_size(w, 3));
            }
            ref_dsp.products(a, b, n, o1, o1 + n, o1 + 2 * n);
            d.products(a, b, n, o2, o2 + n, o2 + 2 * n);
            SAME(o1, o2, sizeof(float) * 3 * n);
            /* moments on blurred-like inputs: mu = a, b; squares from o1 */
            float *m1 = malloc(sizeof(float) * n * 3), *m2 = malloc(sizeof(float) * n * 3);
            memcpy(m1, o1, sizeof(float) * 3 * n);
            memcpy(m2, o1, sizeof(float) * 3 * n);
            for (int i = 0; i < n; i++) /* some negative variances, flat windows */
                if (i % 7 == 0)
                    m1[i] = m2[i] = a[i] * a[i] * 0.999f;
            ref_dsp.moments(a, b, m1, m1 + n, m1 + 2 * n, n);
            d.moments(a, b, m2, m2 + n, m2 + 2 * n, n);
            SAME(m1, m2, sizeof(float) * 3 * n);
            float *s1 = malloc(sizeof(float) * n), *s2 = malloc(sizeof(float) * n);
            ref_dsp.window_terms(a, b, m1, m1 + n, m1 + 2 * n, n, d1, d1 + n, s1, d1 + 2 * n);
            d.window_terms(a, b, m1, m1 + n, m1 + 2 * n, n, d2, d2 + n, s2, d2 + 2 * n);
            SAME(d1, d2, sizeof(double) * 3 * n);
            SAME(s1, s2, sizeof(float) * n);
            EqSsimSums x = { 0.5, 0.25, 0.125, 1.0 }, z = x;
            ref_dsp.frame_sums(d1, d1 + n, s1, d1 + 2 * n, n, &x);
            d.frame_sums(d1, d1 + n, s1, d1 + 2 * n, n, &z);
            SAME(&x, &z, sizeof(x));
            EqPlane p = { (const uint8_t *)a, (ptrdiff_t)w * 4, 2, w * 2, h, 2, 3 };
            ref_dsp.to_float(&p, h - 1, 12, o1);
            d.to_float(&p, h - 1, 12, o2);
            SAME(o1, o2, sizeof(float) * p.width);
#undef SAME
            free(a), free(b), free(o1), free(o2), free(d1), free(d2);
            free(m1), free(m2), free(s1), free(s2);
        }
        printf("stages %s: %d outputs compared with the C reference, %d differ\n", isas[k],
               compared, bad);
        CHECK(bad == 0);
    }
}

int main(void)
{
    test_sizes();
    test_threads();
    test_stages();
    test_frame_sums_order();
    test_isas();
    test_scale_sums(333, 211);
    test_scale_sums(250, 190);
    test_scale_sums(1000, 45);
    test_scale_sums(61, 300);
    test_scale_sums(176, 176);
    return eqtest_done();
}
