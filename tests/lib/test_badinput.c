/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Bad input through the public API: each case gets a clear error (a logged
 * sentence naming the problem) or documented behaviour, never a crash, and
 * never a silently different score.
 *
 *   - NULL arguments and NULL planes;
 *   - zero-size, negative and oversize frames (EQ_MAX_DIMENSION, EQ_MAX_AREA);
 *   - 1x1 frames and sizes just below each metric's minimum: that metric
 *     fails with EQ_ERR_TOO_SMALL and a message naming it and its minimum,
 *     the others are still scored; at the minimum it is scored;
 *   - strides with padding and unaligned plane pointers: the same bits as
 *     tight, aligned copies, for every layout and bit depth;
 *   - negative, short and zero strides;
 *   - bit depths that disagree with the layout; msb_aligned on 8-bit
 *     (ignored) and on deep samples (same bits as LSB-aligned);
 *   - out-of-range colour enums in a frame or in the settings;
 *   - samples above the bit depth's range (scored as given: deterministic,
 *     no crash);
 *   - a scorer with many threads gives the bits of one thread;
 *   - an 8192x8192 pair (EQ_MAX_AREA) is scored (PSNR here; the memory of
 *     all four metrics at that size is measured by tools/soak_lib).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exactquality.h"
#include "eqtest.h" /* after exactquality.h: its scorer and frame helpers */

/* ------------------------------------------------------------------ log */

static char last_err[1024];
static int n_err;

static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level != EQ_LOG_ERROR)
        return;
    n_err++;
    snprintf(last_err, sizeof(last_err), "%s", msg);
}

/* All error messages since the last reset, joined (per-metric errors of one
 * call come as several messages). */
static char all_err[8192];
static void log_all_cb(void *user, EqLogLevel level, const char *msg)
{
    log_cb(user, level, msg);
    if (level == EQ_LOG_ERROR && strlen(all_err) + strlen(msg) + 2 < sizeof(all_err)) {
        strcat(all_err, msg);
        strcat(all_err, "\n");
    }
}

static void log_reset(void)
{
    last_err[0] = 0;
    all_err[0] = 0;
    n_err = 0;
}

/* --------------------------------------------------------------- frames */

static uint32_t rng_state = 12345;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

typedef struct Pic {
    EqFrame f;
    uint8_t *base[3];
} Pic;

static int layout_planes(EqLayout l)
{
    if (l == EQ_LAYOUT_GRAY || l >= EQ_LAYOUT_RGB)
        return 1;
    return l == EQ_LAYOUT_NV12 ? 2 : 3;
}

static void plane_geometry(const EqFrame *f, int i, size_t *row, int *rows)
{
    size_t bytes = f->bitdepth > 8 ? 2 : 1;
    size_t cw = (size_t)(f->width + 1) / 2;
    *row = (size_t)f->width * bytes;
    *rows = f->height;
    if (i > 0 && f->layout == EQ_LAYOUT_YUV420P)
        *row = cw * bytes, *rows = (f->height + 1) / 2;
    if (i > 0 && f->layout == EQ_LAYOUT_YUV422P)
        *row = cw * bytes;
    if (i > 0 && f->layout == EQ_LAYOUT_NV12)
        *row = 2 * cw * bytes, *rows = (f->height + 1) / 2;
    if (f->layout == EQ_LAYOUT_RGB)
        *row = (size_t)f->width * 3 * bytes;
    if (f->layout > EQ_LAYOUT_RGB)
        *row = (size_t)f->width * 4 * bytes;
}

/* A picture with `pad` bytes after each row and planes starting `offset`
 * bytes after a malloc'd address; samples random within the bit depth
 * (left-shifted when msb_aligned, with random low bits). */
static void pic_alloc(Pic *p, EqLayout layout, int w, int h, int depth, int msb, int pad,
                      int offset)
{
    memset(p, 0, sizeof(*p));
    p->f.layout = layout;
    p->f.width = w;
    p->f.height = h;
    p->f.bitdepth = depth;
    p->f.msb_aligned = msb;
    for (int i = 0; i < layout_planes(layout); i++) {
        size_t row;
        int rows;
        plane_geometry(&p->f, i, &row, &rows);
        size_t stride = row + (size_t)pad;
        p->base[i] = malloc((size_t)offset + stride * (size_t)rows);
        if (!p->base[i])
            abort();
        uint8_t *d = p->base[i] + offset;
        memset(p->base[i], 0x5a, (size_t)offset + stride * (size_t)rows);
        for (int y = 0; y < rows; y++) {
            uint8_t *r = d + (size_t)y * stride;
            if (depth == 8) {
                for (size_t x = 0; x < row; x++)
                    r[x] = (uint8_t)rng();
            } else {
                for (size_t x = 0; x < row; x += 2) {
                    unsigned v = rng() & ((1u << depth) - 1);
                    if (msb)
                        v = (v << (16 - depth)) | (rng() & ((1u << (16 - depth)) - 1));
                    r[x] = (uint8_t)v;
                    r[x + 1] = (uint8_t)(v >> 8);
                }
            }
        }
        p->f.data[i] = d;
        p->f.stride[i] = (ptrdiff_t)stride;
    }
}

/* Copy of `src` with other padding/offset (and optionally MSB alignment). */
static void pic_copy(Pic *dst, const Pic *src, int pad, int offset, int msb)
{
    memset(dst, 0, sizeof(*dst));
    dst->f = src->f;
    dst->f.msb_aligned = msb;
    int shift_in = src->f.msb_aligned && src->f.bitdepth > 8 ? 16 - src->f.bitdepth : 0;
    int shift_out = msb && src->f.bitdepth > 8 ? 16 - src->f.bitdepth : 0;
    for (int i = 0; i < layout_planes(src->f.layout); i++) {
        size_t row;
        int rows;
        plane_geometry(&src->f, i, &row, &rows);
        size_t stride = row + (size_t)pad;
        dst->base[i] = malloc((size_t)offset + stride * (size_t)rows);
        if (!dst->base[i])
            abort();
        memset(dst->base[i], 0xa5, (size_t)offset + stride * (size_t)rows);
        uint8_t *d = dst->base[i] + offset;
        const uint8_t *s = src->f.data[i];
        for (int y = 0; y < rows; y++) {
            const uint8_t *sr = s + (ptrdiff_t)y * src->f.stride[i];
            uint8_t *dr = d + (size_t)y * stride;
            if (src->f.bitdepth == 8) {
                memcpy(dr, sr, row);
                continue;
            }
            for (size_t x = 0; x < row; x += 2) {
                unsigned v = (unsigned)(sr[x] | sr[x + 1] << 8) >> shift_in;
                v <<= shift_out;
                dr[x] = (uint8_t)v;
                dr[x + 1] = (uint8_t)(v >> 8);
            }
        }
        dst->f.data[i] = d;
        dst->f.stride[i] = (ptrdiff_t)stride;
    }
}

static void pic_free(Pic *p)
{
    for (int i = 0; i < 3; i++)
        free(p->base[i]);
    memset(p, 0, sizeof(*p));
}

static EqScorer *open_scorer(unsigned metrics, int threads)
{
    EqScorer *sc = eqtest_open_cpu(metrics, threads, log_all_cb, EQ_MATRIX_UNSPECIFIED,
                                   EQ_RANGE_UNSPECIFIED);
    if (!sc)
        abort();
    return sc;
}

static int same_scores(const EqScores *a, const EqScores *b)
{
    int same = a->scored == b->scored;
    for (int i = 0; i < EQ_METRIC_COUNT; i++)
        same &= a->status[i] == b->status[i];
    for (int i = 0; i < eq_value_count(); i++) {
        double x = eq_value_get(a, i), y = eq_value_get(b, i);
        if (memcmp(&x, &y, sizeof(x)) != 0) {
            fprintf(stderr, "  %s: %a != %a\n", eq_value_info(i)->name, x, y);
            same = 0;
        }
    }
    if (a->scored & EQ_METRIC_SSIMULACRA2)
        same &= memcmp(a->ssimulacra2_sums, b->ssimulacra2_sums,
                       sizeof(a->ssimulacra2_sums)) == 0;
    return same;
}

/* ---------------------------------------------------------------- cases */

static void test_null(void)
{
    EqScorer *sc = open_scorer(EQ_METRIC_ALL, 1);
    Pic a;
    EqScores r;
    EqSettings s;

    pic_alloc(&a, EQ_LAYOUT_YUV420P, 32, 32, 8, 0, 0, 0);
    CHECK(eq_scorer_score(NULL, &a.f, &a.f, &r) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(eq_scorer_score(sc, NULL, &a.f, &r) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(eq_scorer_score(sc, &a.f, NULL, &r) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(eq_scorer_score(sc, &a.f, &a.f, NULL) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(eq_scorer_score_device(NULL, &a.f, &a.f, NULL, &r) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(eq_scorer_open(NULL, NULL) == EQ_ERR_INVALID_ARGUMENT);
    eq_settings_init(&s);
    CHECK(eq_scorer_open(NULL, &s) == EQ_ERR_INVALID_ARGUMENT);
    EqScorer *none = (EqScorer *)&s;
    CHECK(eq_scorer_open(&none, NULL) == EQ_ERR_INVALID_ARGUMENT);
    eq_scorer_close(NULL);
    CHECK(eq_value_present(NULL, 0) == 0);
    CHECK(isnan(eq_value_get(NULL, 0)));
    CHECK(eq_value_info(-1) == NULL);
    CHECK(eq_metric_name(3) == NULL);
    CHECK(eq_metric_index(0) == -1);
    CHECK(eq_strerror(12345) != NULL);

    /* NULL planes, each one in turn, for the layouts that use them. */
    log_reset();
    CHECK(eq_frame_validate(NULL, log_cb, NULL) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(n_err == 1 && strstr(last_err, "NULL") != NULL);
    for (int i = 0; i < 3; i++) {
        EqFrame f = a.f;
        f.data[i] = NULL;
        log_reset();
        CHECK(eq_scorer_score(sc, &a.f, &f, &r) == EQ_ERR_INVALID_ARGUMENT);
        CHECK(r.scored == 0);
        CHECK(strstr(last_err, "no data") != NULL);
        for (int m = 0; m < EQ_METRIC_COUNT; m++)
            CHECK(r.status[m] == EQ_ERR_INVALID_ARGUMENT);
    }
    Pic nv;
    pic_alloc(&nv, EQ_LAYOUT_NV12, 32, 32, 8, 0, 0, 0);
    EqFrame f = nv.f;
    f.data[1] = NULL;
    CHECK(eq_scorer_score(sc, &nv.f, &f, &r) == EQ_ERR_INVALID_ARGUMENT);
    /* Unused planes may be NULL or anything: GRAY reads data[0] only. */
    Pic g;
    pic_alloc(&g, EQ_LAYOUT_GRAY, 32, 32, 8, 0, 0, 0);
    f = g.f;
    f.data[1] = NULL;
    f.data[2] = (const void *)(uintptr_t)1;
    f.stride[1] = -7;
    CHECK(eq_frame_validate(&f, log_cb, NULL) == 0);
    pic_free(&g);
    pic_free(&nv);
    pic_free(&a);
    eq_scorer_close(&sc);
}

static void test_sizes(void)
{
    EqScorer *sc = open_scorer(EQ_METRIC_ALL, 1);
    static const uint8_t buf[64];
    EqScores r;
    EqFrame f;

    /* Empty or negative sizes: the whole call fails, with a sentence. */
    static const int sizes[][2] = { { 0, 0 }, { 0, 16 }, { 16, 0 }, { -1, 16 }, { 16, -5 } };
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        memset(&f, 0, sizeof(f));
        f.layout = EQ_LAYOUT_GRAY;
        f.width = sizes[k][0];
        f.height = sizes[k][1];
        f.bitdepth = 8;
        f.data[0] = buf;
        f.stride[0] = 64;
        log_reset();
        CHECK(eq_scorer_score(sc, &f, &f, &r) == EQ_ERR_INVALID_ARGUMENT);
        CHECK(r.scored == 0);
        CHECK(strstr(last_err, "empty") != NULL);
    }

    /* Too large: a side over EQ_MAX_DIMENSION, or the area over EQ_MAX_AREA
     * (the int product would overflow for 16384x16384 + 1). */
    static const int big[][2] = {
        { EQ_MAX_DIMENSION + 1, 1 }, { 1, EQ_MAX_DIMENSION + 1 }, { 8193, 8192 },
        { EQ_MAX_DIMENSION, EQ_MAX_DIMENSION }, { 0x7fffffff, 0x7fffffff },
    };
    for (size_t k = 0; k < sizeof(big) / sizeof(big[0]); k++) {
        memset(&f, 0, sizeof(f));
        f.layout = EQ_LAYOUT_YUV420P;
        f.width = big[k][0];
        f.height = big[k][1];
        f.bitdepth = 8;
        f.data[0] = f.data[1] = f.data[2] = buf;
        f.stride[0] = f.stride[1] = f.stride[2] = 0x7fffffff;
        log_reset();
        CHECK(eq_scorer_score(sc, &f, &f, &r) == EQ_ERR_TOO_LARGE);
        CHECK(strstr(last_err, "larger") != NULL);
    }
    /* The largest accepted shapes are accepted. */
    memset(&f, 0, sizeof(f));
    f.layout = EQ_LAYOUT_GRAY;
    f.bitdepth = 8;
    f.data[0] = buf;
    f.stride[0] = EQ_MAX_DIMENSION;
    f.width = EQ_MAX_DIMENSION;
    f.height = EQ_MAX_AREA / EQ_MAX_DIMENSION;
    CHECK(eq_frame_validate(&f, log_cb, NULL) == 0);
    f.width = 8192;
    f.height = 8192;
    f.stride[0] = 8192;
    CHECK(eq_frame_validate(&f, log_cb, NULL) == 0);
    eq_scorer_close(&sc);
}

/* Metric minima: libvmaf float_ssim's 11x11 window (scale 1 below 384 px),
 * float_ms_ssim's 5 scales of it (11 << 4 = 176), libjxl ssimulacra2's
 * 8x8 (tools/ssimulacra2.cc refuses smaller images). PSNR has none. */
static const struct {
    unsigned metric;
    int min;
    const char *min_text;
} minima[] = {
    { EQ_METRIC_SSIM, 11, "11" },
    { EQ_METRIC_MS_SSIM, 176, "176" },
    { EQ_METRIC_SSIMULACRA2, 8, "8" },
};

static int min_of(unsigned metric)
{
    for (size_t k = 0; k < sizeof(minima) / sizeof(minima[0]); k++)
        if (minima[k].metric == metric)
            return minima[k].min;
    return 1;
}

/* Scores a w x h YUV420P pair with all metrics and checks that exactly the
 * metrics whose minimum exceeds the size fail, each with its message. */
static void check_minima(EqScorer *sc, int w, int h)
{
    Pic a, b;
    EqScores r;
    pic_alloc(&a, EQ_LAYOUT_YUV420P, w, h, 8, 0, 0, 0);
    pic_alloc(&b, EQ_LAYOUT_YUV420P, w, h, 8, 0, 0, 0);
    log_reset();
    int ret = eq_scorer_score(sc, &a.f, &b.f, &r);
    int want_fail = 0;
    for (int i = 0; i < EQ_METRIC_COUNT; i++) {
        unsigned m = 1u << i;
        int small = w < min_of(m) || h < min_of(m);
        if (small) {
            if (r.status[i] != EQ_ERR_TOO_SMALL)
                fprintf(stderr, "  %dx%d %s: status %d\n", w, h, eq_metric_name(m),
                        r.status[i]);
            CHECK(r.status[i] == EQ_ERR_TOO_SMALL);
            CHECK(!(r.scored & m));
            CHECK(strstr(all_err, eq_metric_name(m)) != NULL);
            for (size_t k = 0; k < sizeof(minima) / sizeof(minima[0]); k++)
                if (minima[k].metric == m)
                    CHECK(strstr(all_err, minima[k].min_text) != NULL);
            want_fail = 1;
        } else {
            if (r.status[i] != 0)
                fprintf(stderr, "  %dx%d %s: status %d\n", w, h, eq_metric_name(m),
                        r.status[i]);
            CHECK(r.status[i] == 0);
            CHECK(r.scored & m);
        }
    }
    CHECK(want_fail ? ret == EQ_ERR_TOO_SMALL : ret == 0);
    if (r.scored & EQ_METRIC_PSNR)
        CHECK(isfinite(r.psnr_y) && isfinite(r.psnr_cb) && isfinite(r.psnr_cr));
    if (want_fail)
        CHECK(n_err > 0);
    pic_free(&a);
    pic_free(&b);
}

static void test_minima(void)
{
    EqScorer *sc = open_scorer(EQ_METRIC_ALL, 1);
    check_minima(sc, 1, 1);
    check_minima(sc, 2, 1);
    check_minima(sc, 1, 3);
    for (size_t k = 0; k < sizeof(minima) / sizeof(minima[0]); k++) {
        int m = minima[k].min;
        check_minima(sc, m - 1, m);
        check_minima(sc, m, m - 1);
        check_minima(sc, m, m);
        check_minima(sc, m + 1, m);
    }
    /* 1x1 identical: PSNR at its cap (libvmaf psnr_max 6 * bpc + 12). */
    Pic a;
    EqScores r;
    EqScorer *psnr = open_scorer(EQ_METRIC_PSNR, 1);
    pic_alloc(&a, EQ_LAYOUT_YUV444P, 1, 1, 8, 0, 0, 0);
    CHECK(eq_scorer_score(psnr, &a.f, &a.f, &r) == 0);
    CHECK(r.psnr_y == 60.0 && r.psnr_cb == 60.0 && r.psnr_cr == 60.0);
    pic_free(&a);
    eq_scorer_close(&psnr);
    eq_scorer_close(&sc);
}

/* Every layout and bit depth: padded strides and unaligned pointers score
 * the same bits as tight, aligned copies; MSB-aligned copies of deep
 * samples the same bits as LSB-aligned ones; 16 threads the bits of one. */
static void test_strides(void)
{
    EqScorer *sc1 = open_scorer(EQ_METRIC_ALL, 1);
    EqScorer *sc16 = open_scorer(EQ_METRIC_ALL, 16);
    static const int depths[] = { 8, 10, 12, 16 };
    for (int l = 0; l < EQ_LAYOUT_COUNT; l++) {
        for (size_t d = 0; d < 4; d++) {
            int depth = depths[d];
            if (l >= EQ_LAYOUT_RGB && depth != 8 && !(l == EQ_LAYOUT_RGB && depth == 16))
                continue;
            Pic a, b, ta, tb;
            EqScores r_tight, r_pad, r_thr;
            /* Odd sizes, at MS-SSIM's minimum in one direction. */
            pic_alloc(&ta, (EqLayout)l, 181, 176, depth, 0, 0, 0);
            pic_alloc(&tb, (EqLayout)l, 181, 176, depth, 0, 0, 0);
            CHECK(eq_scorer_score(sc1, &ta.f, &tb.f, &r_tight) ==
                  (l >= EQ_LAYOUT_RGB ? EQ_ERR_UNSUPPORTED : 0));
            int want = l >= EQ_LAYOUT_RGB ? EQ_METRIC_SSIMULACRA2 : (int)EQ_METRIC_ALL;
            CHECK(r_tight.scored == (unsigned)want);

            for (int variant = 0; variant < 3; variant++) {
                int pad = variant == 0 ? 1 : variant == 1 ? 64 : 13;
                int off = variant == 0 ? 1 : variant == 1 ? 3 : 0;
                int msb = variant == 2 && depth > 8 && l < EQ_LAYOUT_RGB;
                pic_copy(&a, &ta, pad, off, msb);
                pic_copy(&b, &tb, pad + 2, off + 4, msb);
                CHECK(eq_scorer_score(sc1, &a.f, &b.f, &r_pad) ==
                      (l >= EQ_LAYOUT_RGB ? EQ_ERR_UNSUPPORTED : 0));
                if (!same_scores(&r_tight, &r_pad)) {
                    fprintf(stderr, "  layout %d depth %d variant %d differs\n", l, depth,
                            variant);
                    CHECK(0);
                } else {
                    CHECK(1);
                }
                pic_free(&a);
                pic_free(&b);
            }
            /* ref MSB-aligned, dist LSB-aligned: the same values. */
            if (depth > 8 && l < EQ_LAYOUT_RGB) {
                pic_copy(&a, &ta, 0, 0, 1);
                CHECK(eq_scorer_score(sc1, &a.f, &tb.f, &r_pad) == 0);
                CHECK(same_scores(&r_tight, &r_pad));
                pic_free(&a);
            }
            /* 8-bit: msb_aligned is documented as meaningless, so ignored. */
            if (depth == 8) {
                EqFrame fa = ta.f, fb = tb.f;
                fa.msb_aligned = fb.msb_aligned = 1;
                CHECK(eq_scorer_score(sc1, &fa, &fb, &r_pad) ==
                      (l >= EQ_LAYOUT_RGB ? EQ_ERR_UNSUPPORTED : 0));
                CHECK(same_scores(&r_tight, &r_pad));
            }
            CHECK(eq_scorer_score(sc16, &ta.f, &tb.f, &r_thr) ==
                  (l >= EQ_LAYOUT_RGB ? EQ_ERR_UNSUPPORTED : 0));
            CHECK(same_scores(&r_tight, &r_thr));
            pic_free(&ta);
            pic_free(&tb);
        }
    }
    eq_scorer_close(&sc1);
    eq_scorer_close(&sc16);
}

static void test_bad_strides(void)
{
    EqScorer *sc = open_scorer(EQ_METRIC_ALL, 1);
    Pic a;
    EqScores r;
    pic_alloc(&a, EQ_LAYOUT_YUV420P, 64, 48, 10, 0, 0, 0);
    for (int plane = 0; plane < 3; plane++) {
        /* Rows: 128 bytes of luma, 64 of each chroma plane. */
        ptrdiff_t row = plane ? 64 : 128;
        const ptrdiff_t bad[] = { -row, -1, 0, 1, row - 1 };
        for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
            EqFrame f = a.f;
            f.stride[plane] = bad[k];
            log_reset();
            CHECK(eq_scorer_score(sc, &a.f, &f, &r) == EQ_ERR_INVALID_ARGUMENT);
            CHECK(strstr(last_err, "stride") != NULL);
        }
    }
    /* One-row planes: any non-negative stride (it is never used). */
    Pic row;
    pic_alloc(&row, EQ_LAYOUT_GRAY, 64, 1, 8, 0, 0, 0);
    EqFrame f = row.f;
    f.stride[0] = 0;
    CHECK(eq_frame_validate(&f, log_cb, NULL) == 0);
    f.stride[0] = -64;
    CHECK(eq_frame_validate(&f, log_cb, NULL) == EQ_ERR_INVALID_ARGUMENT);
    pic_free(&row);
    pic_free(&a);
    eq_scorer_close(&sc);
}

static void test_depth_and_colour(void)
{
    EqScorer *sc = open_scorer(EQ_METRIC_ALL, 1);
    Pic a, b;
    EqScores r, r0;

    /* Bit depths the library does not know, or that a layout cannot hold. */
    pic_alloc(&a, EQ_LAYOUT_YUV420P, 32, 32, 16, 0, 0, 0);
    static const int bad_depth[] = { 0, 1, 7, 9, 11, 14, 15, 17, 32, -8 };
    for (size_t k = 0; k < sizeof(bad_depth) / sizeof(bad_depth[0]); k++) {
        EqFrame f = a.f;
        f.bitdepth = bad_depth[k];
        log_reset();
        CHECK(eq_frame_validate(&f, log_cb, NULL) == EQ_ERR_UNSUPPORTED);
        CHECK(strstr(last_err, "bit depth") != NULL);
        CHECK(eq_scorer_score(sc, &f, &f, &r) == EQ_ERR_UNSUPPORTED);
    }
    pic_free(&a);
    for (int l = EQ_LAYOUT_RGBX; l < EQ_LAYOUT_COUNT; l++) {
        pic_alloc(&a, (EqLayout)l, 32, 32, 16, 0, 0, 0);
        static const int deep[] = { 10, 12, 16 };
        for (size_t k = 0; k < 3; k++) {
            EqFrame f = a.f;
            f.bitdepth = deep[k];
            log_reset();
            CHECK(eq_scorer_score(sc, &f, &f, &r) == EQ_ERR_UNSUPPORTED);
            CHECK(strstr(last_err, "8-bit") != NULL);
        }
        pic_free(&a);
    }
    pic_alloc(&a, EQ_LAYOUT_YUV420P, 32, 32, 10, 0, 0, 0);
    EqFrame f = a.f;
    f.msb_aligned = 2;
    CHECK(eq_frame_validate(&f, log_cb, NULL) == EQ_ERR_INVALID_ARGUMENT);
    f.msb_aligned = -1;
    CHECK(eq_frame_validate(&f, log_cb, NULL) == EQ_ERR_INVALID_ARGUMENT);
    f = a.f;
    f.layout = (EqLayout)EQ_LAYOUT_COUNT;
    CHECK(eq_frame_validate(&f, log_cb, NULL) == EQ_ERR_INVALID_ARGUMENT);
    f.layout = (EqLayout)-1;
    CHECK(eq_frame_validate(&f, log_cb, NULL) == EQ_ERR_INVALID_ARGUMENT);
    pic_free(&a);

    /* Samples above the bit depth (garbage in the high bits of 10-bit
     * words): scored as given, deterministic, no crash. */
    pic_alloc(&a, EQ_LAYOUT_YUV444P, 48, 40, 16, 0, 0, 0);
    pic_alloc(&b, EQ_LAYOUT_YUV444P, 48, 40, 16, 0, 0, 0);
    a.f.bitdepth = b.f.bitdepth = 10;
    int ret0 = eq_scorer_score(sc, &a.f, &b.f, &r0);
    int ret1 = eq_scorer_score(sc, &a.f, &b.f, &r);
    CHECK(ret0 == ret1);
    CHECK(same_scores(&r0, &r));
    CHECK(r.status[eq_metric_index(EQ_METRIC_PSNR)] == 0);
    pic_free(&a);
    pic_free(&b);

    /* Colour enums out of range, in the frame or in the settings. */
    pic_alloc(&a, EQ_LAYOUT_YUV420P, 32, 32, 8, 0, 0, 0);
    f = a.f;
    f.matrix = (EqMatrix)17;
    log_reset();
    CHECK(eq_frame_validate(&f, log_cb, NULL) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_err, "matrix") != NULL);
    f = a.f;
    f.range = (EqRange)-3;
    log_reset();
    CHECK(eq_frame_validate(&f, log_cb, NULL) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(strstr(last_err, "range") != NULL);
    pic_free(&a);
    eq_scorer_close(&sc);

    EqSettings s;
    EqScorer *bad = NULL;
    eq_settings_init(&s);
    s.log = log_cb;
    s.matrix = (EqMatrix)9;
    CHECK(eq_scorer_open(&bad, &s) == EQ_ERR_INVALID_ARGUMENT && bad == NULL);
    eq_settings_init(&s);
    s.range = (EqRange)3;
    CHECK(eq_scorer_open(&bad, &s) == EQ_ERR_INVALID_ARGUMENT && bad == NULL);
    eq_settings_init(&s);
    s.backend = (EqBackend)7;
    CHECK(eq_scorer_open(&bad, &s) == EQ_ERR_INVALID_ARGUMENT && bad == NULL);
    eq_settings_init(&s);
    s.threads = -4; /* as 0: one per core */
    s.backend = EQ_BACKEND_CPU;
    CHECK(eq_scorer_open(&bad, &s) == 0);
    eq_scorer_close(&bad);
}

/* EQ_MAX_AREA: an 8192x8192 pair is scored (PSNR: the cheapest metric, to
 * keep the test fast; tools/soak_lib --size 8192x8192 measures all four).
 * Skipped under valgrind, where it would take minutes. */
static void test_max_area(void)
{
    if (getenv("EQ_UNDER_VALGRIND"))
        return;
    EqScorer *sc = open_scorer(EQ_METRIC_PSNR, 0);
    EqFrame a, b;
    size_t n = (size_t)8192 * 8192;
    uint8_t *pa = malloc(n), *pb = malloc(n);
    if (!pa || !pb) {
        CHECK(!"cannot allocate two 8192x8192 pictures");
        free(pa);
        free(pb);
        eq_scorer_close(&sc);
        return;
    }
    memset(pa, 100, n);
    memset(pb, 100, n);
    pb[n - 1] = 101; /* SSE 1 */
    memset(&a, 0, sizeof(a));
    a.layout = EQ_LAYOUT_GRAY;
    a.width = a.height = 8192;
    a.bitdepth = 8;
    a.data[0] = pa;
    a.stride[0] = 8192;
    b = a;
    b.data[0] = pb;
    EqScores r;
    CHECK(eq_scorer_score(sc, &a, &b, &r) == 0);
    /* libvmaf psnr: 10 log10(peak^2 / (sse / n)), capped at 60 for 8 bit;
     * 255^2 * 2^26 / 1 is far above the cap. */
    CHECK(r.psnr_y == 60.0);
    free(pa);
    free(pb);
    eq_scorer_close(&sc);
}

int main(void)
{
    test_null();
    test_sizes();
    test_minima();
    test_strides();
    test_bad_strides();
    test_depth_and_colour();
    test_max_area();
    return eqtest_done();
}
