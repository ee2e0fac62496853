/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIMULACRA2 CPU reference, exactness: known answers stored as %a and
 * compared bit for bit (small committed PNGs and generated frames of every
 * layout), layouts that must agree bit for bit, extreme inputs, too-small
 * frames, the portable math, and the blur against the kernel it implements.
 *
 * Usage: test_ssimulacra2_exact DATA_DIR [--print]
 *   --print writes the current known answers in the table's format.
 *
 * The same source is built three times (tests/lib/meson.build): against the
 * library (run-time choice of AVX-512, AVX2 or generic stages), with a
 * scalar copy of lib/cpu/ssimulacra2.c (-DEQ_S2_SCALAR, no vectorization),
 * and with an AVX2-only copy (-DEQ_S2_FORCE_AVX2; skipped without AVX2):
 * all must give the stored bits.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/ssimulacra2.h"
#include "exact/pmath.h"
#include "exactquality.h"
#include "eqtest.h" /* after exactquality.h: its scorer and frame helpers */
#include "pngio.h"

static int print_mode;
static char last_msg[1024];

static char work_msg[1024]; /* the last "work buffers" debug line */

static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level == EQ_LOG_ERROR)
        snprintf(last_msg, sizeof(last_msg), "%s", msg);
    if (level == EQ_LOG_DEBUG && strstr(msg, "of work buffers"))
        snprintf(work_msg, sizeof(work_msg), "%s", msg);
}

static EqScorer *open_scorer(int threads, EqMatrix m, EqRange r)
{
    return eqtest_open_cpu(EQ_METRIC_SSIMULACRA2, threads, log_cb, m, r);
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

static uint32_t noise(uint32_t seed, int x, int y, int c)
{
    return lowbias32(seed * 0x9E3779B1u + ((uint32_t)y * 65536u + (uint32_t)x) * 4u + (uint32_t)c);
}

/* ------------------------------------------------------------ frames */

/* A frame that owns its buffers. */
typedef struct Img {
    EqFrame f;
    void *buf[3];
} Img;

static void img_free(Img *im)
{
    for (int i = 0; i < 3; i++)
        free(im->buf[i]);
    memset(im, 0, sizeof(*im));
}

/* Sample generator: kind 0 noise(seed), 1 constant `v`, 2 one-pixel
 * checkerboard (max where x + y odd, 0 elsewhere; `v` = 1 inverts), 3 noise
 * plus a small distortion of the seed-1 noise (the dist of a pair). */
typedef struct Gen {
    int kind;
    uint32_t seed;
    unsigned v;
} Gen;

static unsigned gen_sample(const Gen *g, int x, int y, int c, unsigned maxv)
{
    switch (g->kind) {
    case 0:
        return noise(g->seed, x, y, c) % (maxv + 1);
    case 1:
        return g->v;
    case 2:
        return (((x + y) & 1) ^ g->v) ? maxv : 0;
    default: {
        int v = (int)(noise(g->seed - 1, x, y, c) % (maxv + 1));
        int d = (int)(noise(g->seed, x, y, c) % 17) - 8;
        d *= (int)((maxv + 1) / 256 ? (maxv + 1) / 256 : 1);
        v += d;
        return (unsigned)(v < 0 ? 0 : v > (int)maxv ? (int)maxv : v);
    }
    }
}

static void put(uint8_t *p, int bytes, unsigned v)
{
    if (bytes == 1) {
        p[0] = (uint8_t)v;
    } else {
        p[0] = (uint8_t)(v & 0xff);
        p[1] = (uint8_t)(v >> 8);
    }
}

/* Any layout; stride padded by 3 bytes to catch stride bugs. msb: P010. */
static void img_make(Img *im, EqLayout layout, int w, int h, int bitdepth, int msb,
                     const Gen *g)
{
    memset(im, 0, sizeof(*im));
    EqFrame *f = &im->f;
    f->layout = layout;
    f->width = w;
    f->height = h;
    f->bitdepth = bitdepth;
    f->msb_aligned = msb;
    int bytes = bitdepth > 8 ? 2 : 1;
    unsigned maxv = (1u << bitdepth) - 1;
    int shift = msb ? 16 - bitdepth : 0;
    int ssx, ssy;
    eq_layout_subsampling(layout, &ssx, &ssy);
    int cw = (w + ssx) >> ssx, ch = (h + ssy) >> ssy;
    if (eq_frame_is_rgb(f)) {
        int n = layout == EQ_LAYOUT_RGB ? 3 : 4;
        ptrdiff_t stride = (ptrdiff_t)w * n * bytes + 3;
        uint8_t *b = calloc((size_t)stride * h, 1);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int c = 0; c < n; c++) {
                    int comp = layout == EQ_LAYOUT_BGRX && c < 3 ? 2 - c : c;
                    unsigned v = c < 3 ? gen_sample(g, x, y, comp, maxv) : 0x5a;
                    put(b + y * stride + ((ptrdiff_t)x * n + c) * bytes, bytes, v);
                }
        im->buf[0] = b;
        f->data[0] = b;
        f->stride[0] = stride;
        return;
    }
    int planes = layout == EQ_LAYOUT_GRAY ? 1 : layout == EQ_LAYOUT_NV12 ? 2 : 3;
    for (int p = 0; p < planes; p++) {
        int pw = p == 0 ? w : cw, ph = p == 0 ? h : ch;
        int per = layout == EQ_LAYOUT_NV12 && p == 1 ? 2 : 1;
        ptrdiff_t stride = (ptrdiff_t)pw * per * bytes + 3;
        uint8_t *b = calloc((size_t)stride * ph, 1);
        for (int y = 0; y < ph; y++)
            for (int x = 0; x < pw; x++)
                for (int k = 0; k < per; k++) {
                    int comp = per == 2 ? 1 + k : p;
                    unsigned v = gen_sample(g, x, y, comp, maxv) << shift;
                    put(b + y * stride + ((ptrdiff_t)x * per + k) * bytes, bytes, v);
                }
        im->buf[p] = b;
        f->data[p] = b;
        f->stride[p] = stride;
    }
}

/* ------------------------------------------------------ known answers */

typedef struct Kat {
    const char *name;
    double score;
    double sum_y_d;        /* sums[scale 0][Y][d] */
    double sum_x_artifact; /* sums[scale 0][X][artifact] */
    double sum_b_detail4;  /* sums[last scale][B][detail^4] */
    int scales;
} Kat;

/* Produced by this test's --print at the commit that added it (definition of
 * lib/exact/ssimulacra2.h, libjxl aea3a06e281fdee13e04815bfbf4f4132e7f59ea). */
static const Kat kats[] = {
#include "ssimulacra2_kat.inc"
};

static int kat_checked;

static void check_kat(const char *name, const EqScores *r)
{
    int last = r->ssimulacra2_scales - 1;
    double y_d = r->ssimulacra2_sums[eq_s2_sum_index(0, 1, EQ_S2_SUM_D)];
    double x_a = r->ssimulacra2_sums[eq_s2_sum_index(0, 0, EQ_S2_SUM_ARTIFACT)];
    double b_d4 = r->ssimulacra2_sums[eq_s2_sum_index(last, 2, EQ_S2_SUM_DETAIL4)];
    CHECK(isfinite(r->ssimulacra2));
    for (int i = 0; i < EQ_SSIMULACRA2_SUMS; i++)
        CHECK(isfinite(r->ssimulacra2_sums[i]) && r->ssimulacra2_sums[i] >= 0.0);
    if (print_mode) {
        printf("    { \"%s\", %a, %a, %a, %a, %d }, /* %.17g */\n", name, r->ssimulacra2, y_d, x_a,
               b_d4, r->ssimulacra2_scales, r->ssimulacra2);
        return;
    }
    for (size_t i = 0; i < sizeof(kats) / sizeof(kats[0]); i++) {
        if (strcmp(kats[i].name, name) != 0)
            continue;
        CHECK_BITS(r->ssimulacra2, kats[i].score);
        CHECK_BITS(y_d, kats[i].sum_y_d);
        CHECK_BITS(x_a, kats[i].sum_x_artifact);
        CHECK_BITS(b_d4, kats[i].sum_b_detail4);
        CHECK(r->ssimulacra2_scales == kats[i].scales);
        kat_checked++;
        return;
    }
    fprintf(stderr, "no known answer named %s\n", name);
    CHECK(0);
}

static int score_frames(EqScorer *sc, const EqFrame *a, const EqFrame *b, EqScores *r)
{
    memset(r, 0, sizeof(*r));
    int e = eq_scorer_score(sc, a, b, r);
    if (e)
        fprintf(stderr, "score failed: %d (%s)\n", e, last_msg);
    return e;
}

static void kat_png(EqScorer *sc, const char *dir, const char *name, const char *ref,
                    const char *dist)
{
    char pa[4096], pb[4096];
    EqFrame a, b;
    EqScores r;
    snprintf(pa, sizeof(pa), "%s/%s", dir, ref);
    snprintf(pb, sizeof(pb), "%s/%s", dir, dist);
    int ea = eq_png_read(pa, &a), eb = eq_png_read(pb, &b);
    CHECK(ea == 0 && eb == 0);
    if (ea || eb)
        return;
    CHECK(score_frames(sc, &a, &b, &r) == 0);
    check_kat(name, &r);
    free((void *)a.data[0]);
    free((void *)b.data[0]);
}

static void kat_gen(EqScorer *sc, const char *name, EqLayout layout, int w, int h, int bd, int msb,
                    Gen ga, Gen gb, EqScores *out)
{
    Img a, b;
    EqScores r;
    img_make(&a, layout, w, h, bd, msb, &ga);
    img_make(&b, layout, w, h, bd, msb, &gb);
    CHECK(score_frames(sc, &a.f, &b.f, &r) == 0);
    if (name)
        check_kat(name, &r);
    if (out)
        *out = r;
    img_free(&a);
    img_free(&b);
}

static void test_known_answers(const char *dir, EqScorer *sc)
{
    kat_png(sc, dir, "png_tiny_8x8", "syn_tiny_8x8_ref.png", "syn_tiny_8x8_dist.png");
    kat_png(sc, dir, "png_tiny_17x9", "syn_tiny_17x9_ref.png", "syn_tiny_17x9_dist.png");
    kat_png(sc, dir, "png_checker_64x64", "syn_checker_64x64.png", "syn_checker_64x64_inv.png");
    kat_png(sc, dir, "png_grey_64x64", "syn_grey128_64x64.png", "syn_grey129_64x64.png");
    kat_png(sc, dir, "png_wood16_576x324", "wood_f0_ref.rgb48.png", "wood_f0_crf35.rgb48.png");

    Gen n5 = { 0, 5, 0 }, d6 = { 3, 6, 0 }, ck = { 2, 0, 0 }, cki = { 2, 0, 1 };
    kat_gen(sc, "rgb_8x8", EQ_LAYOUT_RGB, 8, 8, 8, 0, n5, d6, NULL);
    kat_gen(sc, "rgb_17x9", EQ_LAYOUT_RGB, 17, 9, 8, 0, n5, d6, NULL);
    kat_gen(sc, "rgb_9x15", EQ_LAYOUT_RGB, 9, 15, 8, 0, n5, d6, NULL);
    kat_gen(sc, "rgb_33x17", EQ_LAYOUT_RGB, 33, 17, 8, 0, n5, d6, NULL);
    kat_gen(sc, "rgb_131x67", EQ_LAYOUT_RGB, 131, 67, 8, 0, n5, d6, NULL);
    kat_gen(sc, "rgb_checker_15x13", EQ_LAYOUT_RGB, 15, 13, 8, 0, ck, cki, NULL);
    kat_gen(sc, "rgb_checker_vs_noise_40x24", EQ_LAYOUT_RGB, 40, 24, 8, 0, ck, n5, NULL);
    kat_gen(sc, "rgb16_23x19", EQ_LAYOUT_RGB, 23, 19, 16, 0, n5, d6, NULL);
    kat_gen(sc, "gray8_21x11", EQ_LAYOUT_GRAY, 21, 11, 8, 0, n5, d6, NULL);
    kat_gen(sc, "yuv420p8_23x15", EQ_LAYOUT_YUV420P, 23, 15, 8, 0, n5, d6, NULL);
    kat_gen(sc, "yuv422p12_19x10", EQ_LAYOUT_YUV422P, 19, 10, 12, 0, n5, d6, NULL);
    kat_gen(sc, "yuv444p16_12x9", EQ_LAYOUT_YUV444P, 12, 9, 16, 0, n5, d6, NULL);
    kat_gen(sc, "p010_27x13", EQ_LAYOUT_NV12, 27, 13, 10, 1, n5, d6, NULL);
    kat_gen(sc, "yuv420p10_checker_16x16", EQ_LAYOUT_YUV420P, 16, 16, 10, 0, ck, cki, NULL);
}

/* All 108 raw sums, bit for bit, of frames tall and wide enough that every
 * scale is scored in several bands of rows with a short last band (the
 * driver streams rows; docs/ssimulacra2.md, "Memory"). Stored by --print
 * with the whole-plane driver that came before the streaming one. */
typedef struct KatSums {
    const char *name;
    EqLayout layout;
    int w, h, bitdepth;
    int scales;
    double sums[EQ_SSIMULACRA2_SUMS];
} KatSums;

static const KatSums kat_sums[] = {
#include "ssimulacra2_kat_sums.inc"
};

static int kat_sums_checked;

static void test_all_sums(EqScorer *sc)
{
    Gen n5 = { 0, 5, 0 }, d6 = { 3, 6, 0 };
    static const struct {
        const char *name;
        EqLayout layout;
        const char *layout_name;
        int w, h, bitdepth;
    } frames[] = {
        { "yuv420p8_203x389", EQ_LAYOUT_YUV420P, "EQ_LAYOUT_YUV420P", 203, 389, 8 },
        { "rgb8_77x289", EQ_LAYOUT_RGB, "EQ_LAYOUT_RGB", 77, 289, 8 },
        { "yuv444p10_530x41", EQ_LAYOUT_YUV444P, "EQ_LAYOUT_YUV444P", 530, 41, 10 },
    };
    for (size_t f = 0; f < sizeof(frames) / sizeof(frames[0]); f++) {
        EqScores r;
        kat_gen(sc, NULL, frames[f].layout, frames[f].w, frames[f].h, frames[f].bitdepth, 0, n5,
                d6, &r);
        if (print_mode) {
            printf("    { \"%s\", %s, %d, %d, %d, %d, {\n", frames[f].name, frames[f].layout_name,
                   frames[f].w, frames[f].h, frames[f].bitdepth, r.ssimulacra2_scales);
            for (int i = 0; i < EQ_SSIMULACRA2_SUMS; i++)
                printf("        %a,\n", r.ssimulacra2_sums[i]);
            printf("    } },\n");
            continue;
        }
        int found = 0;
        for (size_t k = 0; k < sizeof(kat_sums) / sizeof(kat_sums[0]); k++) {
            const KatSums *ks = &kat_sums[k];
            if (strcmp(ks->name, frames[f].name) != 0)
                continue;
            found = 1;
            CHECK(ks->layout == frames[f].layout && ks->w == frames[f].w &&
                  ks->h == frames[f].h && ks->bitdepth == frames[f].bitdepth);
            CHECK(r.ssimulacra2_scales == ks->scales);
            for (int i = 0; i < EQ_SSIMULACRA2_SUMS; i++)
                CHECK_BITS(r.ssimulacra2_sums[i], ks->sums[i]);
            kat_sums_checked++;
        }
        if (!found)
            fprintf(stderr, "no stored sums named %s\n", frames[f].name);
        CHECK(found);
    }
}

/* The scorer reports the SSIMULACRA2 buffers it allocates (debug log):
 * the bytes of eq_s2_work_bytes; a narrower frame reuses them. */
static void test_work_report(void)
{
    Gen n5 = { 0, 5, 0 }, d6 = { 3, 6, 0 };
    EqScorer *sc = open_scorer(2, EQ_MATRIX_UNSPECIFIED, EQ_RANGE_UNSPECIFIED);
    EqScores r;
    size_t bytes = 0;
    CHECK(sc != NULL);
    if (!sc)
        return;
    work_msg[0] = 0;
    kat_gen(sc, NULL, EQ_LAYOUT_YUV420P, 530, 41, 8, 0, n5, d6, &r);
    CHECK(sscanf(work_msg, "ssimulacra2: %zu bytes", &bytes) == 1);
    CHECK(strstr(work_msg, "for 530x41 on 2 threads") != NULL);
    CHECK(bytes == eq_s2_work_bytes(530, 41, 2) && bytes > 0);
    work_msg[0] = 0;
    kat_gen(sc, NULL, EQ_LAYOUT_YUV420P, 200, 41, 8, 0, n5, d6, &r);
    CHECK(work_msg[0] == 0);
    kat_gen(sc, NULL, EQ_LAYOUT_YUV420P, 531, 9, 8, 0, n5, d6, &r);
    CHECK(sscanf(work_msg, "ssimulacra2: %zu bytes", &bytes) == 1);
    CHECK(bytes == eq_s2_work_bytes(531, 9, 2));
    eq_scorer_close(&sc);
}

/* ------------------------------------------- layouts that must agree */

static int same_bits(const EqScores *a, const EqScores *b)
{
    return memcmp(&a->ssimulacra2, &b->ssimulacra2, sizeof(double)) == 0 &&
           memcmp(a->ssimulacra2_sums, b->ssimulacra2_sums, sizeof(a->ssimulacra2_sums)) == 0 &&
           a->ssimulacra2_scales == b->ssimulacra2_scales;
}

static void test_layouts(EqScorer *sc, EqScorer *sc_709, EqScorer *sc_601_full)
{
    Gen n5 = { 0, 5, 0 }, d6 = { 3, 6, 0 }, grey = { 1, 0, 128 };
    EqScores r1, r2;

    /* Packed RGB orders. */
    kat_gen(sc, NULL, EQ_LAYOUT_RGB, 19, 11, 8, 0, n5, d6, &r1);
    kat_gen(sc, NULL, EQ_LAYOUT_RGBX, 19, 11, 8, 0, n5, d6, &r2);
    CHECK(same_bits(&r1, &r2));
    kat_gen(sc, NULL, EQ_LAYOUT_BGRX, 19, 11, 8, 0, n5, d6, &r2);
    CHECK(same_bits(&r1, &r2));
    kat_gen(sc, NULL, EQ_LAYOUT_RGBA, 19, 11, 8, 0, n5, d6, &r2);
    CHECK(same_bits(&r1, &r2));

    /* NV12 = YUV420P, P010 (msb) = 10-bit lsb planar. */
    kat_gen(sc, NULL, EQ_LAYOUT_YUV420P, 21, 13, 8, 0, n5, d6, &r1);
    kat_gen(sc, NULL, EQ_LAYOUT_NV12, 21, 13, 8, 0, n5, d6, &r2);
    CHECK(same_bits(&r1, &r2));
    kat_gen(sc, NULL, EQ_LAYOUT_YUV420P, 21, 13, 10, 0, n5, d6, &r1);
    kat_gen(sc, NULL, EQ_LAYOUT_NV12, 21, 13, 10, 1, n5, d6, &r2);
    CHECK(same_bits(&r1, &r2));

    /* GRAY = YUV with neutral chroma (Cb = Cr = 128: zero colour exactly). */
    Img ga, gb, ya, yb;
    img_make(&ga, EQ_LAYOUT_GRAY, 17, 12, 8, 0, &n5);
    img_make(&gb, EQ_LAYOUT_GRAY, 17, 12, 8, 0, &d6);
    img_make(&ya, EQ_LAYOUT_YUV444P, 17, 12, 8, 0, &grey);
    img_make(&yb, EQ_LAYOUT_YUV444P, 17, 12, 8, 0, &grey);
    ya.f.data[0] = ga.f.data[0];
    ya.f.stride[0] = ga.f.stride[0];
    yb.f.data[0] = gb.f.data[0];
    yb.f.stride[0] = gb.f.stride[0];
    CHECK(score_frames(sc, &ga.f, &gb.f, &r1) == 0);
    CHECK(score_frames(sc, &ya.f, &yb.f, &r2) == 0);
    CHECK(same_bits(&r1, &r2));

    /* Unspecified colour = BT.709 limited; settings override the frame. */
    Img a, b;
    img_make(&a, EQ_LAYOUT_YUV444P, 20, 10, 8, 0, &n5);
    img_make(&b, EQ_LAYOUT_YUV444P, 20, 10, 8, 0, &d6);
    CHECK(score_frames(sc, &a.f, &b.f, &r1) == 0);
    CHECK(score_frames(sc_709, &a.f, &b.f, &r2) == 0);
    CHECK(same_bits(&r1, &r2));
    a.f.matrix = b.f.matrix = EQ_MATRIX_BT601;
    a.f.range = b.f.range = EQ_RANGE_FULL;
    CHECK(score_frames(sc, &a.f, &b.f, &r2) == 0);
    CHECK(!same_bits(&r1, &r2)); /* the frame's colour is used */
    EqScores r3;
    CHECK(score_frames(sc_709, &a.f, &b.f, &r3) == 0);
    CHECK(same_bits(&r1, &r3)); /* settings win over the frame */
    a.f.matrix = b.f.matrix = EQ_MATRIX_UNSPECIFIED;
    a.f.range = b.f.range = EQ_RANGE_UNSPECIFIED;
    CHECK(score_frames(sc_601_full, &a.f, &b.f, &r3) == 0);
    CHECK(same_bits(&r2, &r3));
    a.f.matrix = b.f.matrix = EQ_MATRIX_BT2020NC;
    CHECK(score_frames(sc, &a.f, &b.f, &r3) == 0);
    CHECK(!same_bits(&r1, &r3) && !same_bits(&r2, &r3));

    img_free(&a);
    img_free(&b);
    img_free(&ga);
    img_free(&gb);
    /* ya/yb borrowed ga/gb's Y through f.data only: buf[] is their own */
    img_free(&ya);
    img_free(&yb);
}

/* --------------------------------------------------- extreme inputs */

static void extreme(EqScorer *sc, EqLayout layout, int w, int h, int bd, int msb, Gen ga, Gen gb,
                    int identical)
{
    EqScores r;
    kat_gen(sc, NULL, layout, w, h, bd, msb, ga, gb, &r);
    CHECK(r.scored & EQ_METRIC_SSIMULACRA2);
    CHECK(isfinite(r.ssimulacra2));
    for (int i = 0; i < EQ_SSIMULACRA2_SUMS; i++)
        CHECK(isfinite(r.ssimulacra2_sums[i]) && r.ssimulacra2_sums[i] >= 0.0);
    if (identical)
        CHECK_BITS(r.ssimulacra2, 100.0);
}

static void test_extremes(EqScorer *sc)
{
    for (int bd = 8; bd <= 16; bd += bd == 8 ? 2 : bd == 12 ? 4 : 2) {
        unsigned maxv = (1u << bd) - 1;
        Gen zero = { 1, 0, 0 }, full = { 1, 0, maxv }, ck = { 2, 0, 0 }, cki = { 2, 0, 1 };
        EqLayout rgb = bd == 8 || bd == 16 ? EQ_LAYOUT_RGB : EQ_LAYOUT_YUV444P;
        extreme(sc, rgb, 16, 16, bd, 0, zero, full, 0);
        extreme(sc, rgb, 16, 16, bd, 0, full, zero, 0);
        extreme(sc, rgb, 16, 16, bd, 0, zero, zero, 1);
        extreme(sc, rgb, 16, 16, bd, 0, full, full, 1);
        extreme(sc, rgb, 16, 16, bd, 0, ck, cki, 0);
        extreme(sc, rgb, 16, 16, bd, 0, ck, ck, 1);
        /* YUV codes outside the limited range (Y = 0, C = 0 or max). */
        extreme(sc, EQ_LAYOUT_YUV420P, 17, 9, bd, 0, zero, full, 0);
        extreme(sc, EQ_LAYOUT_YUV420P, 17, 9, bd, 0, ck, cki, 0);
        extreme(sc, EQ_LAYOUT_GRAY, 8, 8, bd, 0, zero, full, 0);
    }
}

static void test_too_small(EqScorer *sc)
{
    Gen g = { 0, 1, 0 };
    int sizes[][2] = { { 7, 8 }, { 8, 7 }, { 1, 1 }, { 7, 7 } };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        Img a;
        EqScores r;
        img_make(&a, EQ_LAYOUT_YUV420P, sizes[i][0], sizes[i][1], 8, 0, &g);
        last_msg[0] = 0;
        CHECK(eq_scorer_score(sc, &a.f, &a.f, &r) == EQ_ERR_TOO_SMALL);
        CHECK(strstr(last_msg, "needs at least 8x8") != NULL);
        CHECK(!(r.scored & EQ_METRIC_SSIMULACRA2));
        img_free(&a);
    }
    int w[EQ_S2_MAX_SCALES], h[EQ_S2_MAX_SCALES];
    CHECK(eq_s2_scale_count(8, 8, w, h) == 2 && w[1] == 4 && h[1] == 4);
    CHECK(eq_s2_scale_count(17, 9, w, h) == 2 && w[1] == 9 && h[1] == 5);
    CHECK(eq_s2_scale_count(64, 48, w, h) == 4 && w[3] == 8 && h[3] == 6);
    CHECK(eq_s2_scale_count(1920, 1080, w, h) == 6 && w[5] == 60 && h[5] == 34);
    CHECK(eq_s2_scale_count(7, 100, w, h) == 0);
}

/* ------------------------------------------------ portable math, blur */

/* eq_pm_cbrt's range reduction as a chain of tests (its form before
 * session 19): exact scalings while t is below 2^-12, 2^-6 and 1/8, then
 * one while above 1, the seed's octave from t. eq_pm_cbrt takes the same
 * scaling from the exponent field; both end in eq_pm_cbrt_octave. */
static double cbrt_chain(double x)
{
    double t = x, s = 1.0;
    double k = t < 0x1p-12 ? 0x1p12 : 1.0;
    s = s * (t < 0x1p-12 ? 0x1p-4 : 1.0);
    t = t * k;
    k = t < 0x1p-6 ? 0x1p6 : 1.0;
    s = s * (t < 0x1p-6 ? 0x1p-2 : 1.0);
    t = t * k;
    k = t < 0.125 ? 8.0 : 1.0;
    s = s * (t < 0.125 ? 0.5 : 1.0);
    t = t * k;
    k = t > 1.0 ? 0.125 : 1.0;
    s = s * (t > 1.0 ? 2.0 : 1.0);
    t = t * k;
    const double c = eq_pm_cbrt_octave(t, t < 0.25 ? -3 : t < 0.5 ? -2 : -1);
    return x > 0.0 ? c * s : 0.0;
}

/* eq_pm_cbrt against the chain, bit for bit: every exponent field, both
 * signs, the mantissas at the edges and 64 random ones each (the reduction
 * depends on the exponent alone, and on the mantissa only at x = 1), and
 * the specials. */
static void test_cbrt_reduction(void)
{
    uint32_t seed = 0x5eed;
    long bad = 0, n = 0;
    for (uint64_t be = 0; be < 2048; be++)
        for (int sign = 0; sign < 2; sign++)
            for (int m = 0; m < 70; m++) {
                uint64_t mant;
                if (m < 6) {
                    static const uint64_t edge[6] = {0, 1, 2, (1ull << 51), (1ull << 52) - 2,
                                                     (1ull << 52) - 1};
                    mant = edge[m];
                } else {
                    seed = lowbias32(seed + (uint32_t)m);
                    uint32_t hi = lowbias32(seed ^ 0x9e3779b9u);
                    mant = (((uint64_t)(hi & 0xfffff) << 32) | seed);
                }
                const uint64_t u = (uint64_t)sign << 63 | be << 52 | mant;
                const double x = eq_from_bits(u), a = eq_pm_cbrt(x), b = cbrt_chain(x);
                bad += memcmp(&a, &b, sizeof a) != 0;
                n++;
            }
    const double sp[] = {0.0, -0.0, 1.0, 0.125, 8.0, 0x1p-24, 0x1p-21, 0x1p-12, 0x1p-6,
                         INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        const double a = eq_pm_cbrt(sp[i]), b = cbrt_chain(sp[i]);
        bad += memcmp(&a, &b, sizeof a) != 0;
        n++;
    }
    if (bad)
        fprintf(stderr, "eq_pm_cbrt: %ld of %ld values differ from the chain of tests\n", bad, n);
    CHECK(bad == 0 && n == 2048 * 2 * 70 + 12);
}

static void test_pmath(void)
{
    double worst = 0.0;
    for (int i = 0; i <= 200000; i++) {
        double x = ldexp(1.0, -24) * pow(2.0, 27.0 * i / 200000.0);
        long double ref = cbrtl((long double)x);
        double e = (double)fabsl((eq_pm_cbrt(x) - ref) / ref);
        worst = e > worst ? e : worst;
    }
    CHECK(worst < 6e-16);
    worst = 0.0;
    for (int i = 0; i <= 200000; i++) {
        double b = ldexp(1.0, -10) * pow(2.0, 10.0 * i / 200000.0);
        long double ref = powl((long double)b, 0.2L);
        double e = (double)fabsl((eq_pm_root5(b) - ref) / ref);
        worst = e > worst ? e : worst;
    }
    CHECK(worst < 1.2e-15);
    worst = 0.0;
    for (int i = 1; i <= 65535; i++) {
        long double v = (long double)i / 65535.0L;
        long double ref = v <= 0.04045L ? v / 12.92L : powl((v + 0.055L) / 1.055L, 2.4L);
        double e = (double)fabsl((eq_pm_srgb_to_linear((double)i / 65535.0) - ref) / ref);
        worst = e > worst ? e : worst;
    }
    CHECK(worst < 1.5e-15);
    CHECK_BITS(eq_pm_srgb_to_linear(0.0), 0.0);
    CHECK_BITS(eq_pm_srgb_to_linear(1.0), 1.0);
    CHECK_BITS(eq_pm_cbrt(0.0), 0.0);
    CHECK_BITS(eq_pm_cbrt(1.0), 1.0);
    CHECK_BITS(eq_pm_cbrt(0.125), 0.5);
    CHECK_BITS(eq_pm_cbrt(8.0), 2.0);
    /* Stored bits of the portable functions (they are the definition). */
    CHECK_BITS(eq_pm_cbrt(EQ_S2_BIAS), 0x1.3f64eaa603002p-3);
    CHECK_BITS(eq_pm_cbrt(EQ_S2_BIAS), EQ_S2_CBRT_BIAS);
    CHECK_BITS(eq_pm_srgb_to_linear(0.5), 0x1.b65b3392f5358p-3);
    CHECK_BITS(eq_pm_cbrt(0.3), 0x1.56bfea66ef78dp-1);
}

/* The sums' terms by kind (eq_s2_term, what the GPU engine forms from the
 * two planes): each kind's formula, a base kind's quartic kind, and the C
 * stage's six sums against loops over eq_s2_term, kinds in EQ_S2_SUM_*
 * order, of d for the first two and of d1 for the others. */
static void test_terms(void)
{
    static const double xs[] = {0.0,  -0.0, 0x1p-1074, -0x1p-1074, 0.25,     -0.25,    0.7,
                                -1.5, 3.0,  0x1p600,   -0x1p600,   INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
        const double x = xs[i];
        CHECK_BITS(eq_s2_term(EQ_S2_TERM_X, x), x);
        CHECK_BITS(eq_s2_term(EQ_S2_TERM_QUARTIC, x), eq_s2_quartic(x));
        CHECK_BITS(eq_s2_term(EQ_S2_TERM_ARTIFACT, x), eq_s2_artifact(x));
        CHECK_BITS(eq_s2_term(EQ_S2_TERM_ARTIFACT4, x), eq_s2_quartic(eq_s2_artifact(x)));
        CHECK_BITS(eq_s2_term(EQ_S2_TERM_DETAIL, x), eq_s2_detail(x));
        CHECK_BITS(eq_s2_term(EQ_S2_TERM_DETAIL4, x), eq_s2_quartic(eq_s2_detail(x)));
        CHECK_BITS(eq_s2_term(-1, x), x);
        CHECK_BITS(eq_s2_term(EQ_S2_TERMS, x), x);
        for (int k = 0; k < EQ_S2_TERMS; k += 2)
            CHECK_BITS(eq_s2_term(eq_s2_term_quartic(k), x), eq_s2_quartic(eq_s2_term(k, x)));
    }
    for (int k = -1; k <= EQ_S2_TERMS; k++)
        CHECK(eq_s2_term_quartic(k) == (k >= 0 && k < EQ_S2_TERMS && k % 2 == 0 ? k + 1 : -1));

    enum { N = 1000 };
    double *d = malloc(N * sizeof(double)), *d1 = malloc(N * sizeof(double));
    double acc[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    uint32_t seed = 12345u;
    CHECK(d && d1);
    if (!d || !d1) {
        free(d);
        free(d1);
        return;
    }
    for (int i = 0; i < N; i++) {
        seed = lowbias32(seed);
        d[i] = (double)(seed >> 8) * 0x1p-24;
        seed = lowbias32(seed);
        d1[i] = ((double)(seed >> 8) - 0x1p23) * 0x1p-22;
    }
    eq_s2_sums_c(d, d1, N, acc);
    for (int k = 0; k < 6; k++) {
        double want = 0.0;
        for (int i = 0; i < N; i++)
            want += eq_s2_term(k, eq_s2_sum_of_d1(k) ? d1[i] : d[i]);
        CHECK_BITS(acc[k], want);
    }
    free(d);
    free(d1);
}

/* eq_s2_chroma_rows_for() (the chroma rows the CUDA upload sends with a
 * band of luma rows) is exactly the rows eq_s2_chroma_taps() reads for the
 * luma rows before the band's end: no fewer (the band's conversion would
 * read rows not yet copied) and no more. */
static void test_chroma_rows(void)
{
    int bad = 0;
    for (int h = 1; h <= 300 && !bad; h++)
        for (int halved = 0; halved < 2; halved++) {
            const int ch = halved ? (h + 1) / 2 : h;
            int need = 0; /* rows read by luma rows 0 .. y - 1 */
            for (int y = 0; y <= h; y++) {
                if (y > 0) {
                    for (int x = 0; x < 2; x++) {
                        EqS2ChromaTaps t = eq_s2_chroma_taps(x, y - 1, 1, halved, 4, ch);
                        if (t.cy + 1 > need)
                            need = t.cy + 1;
                        if (t.ny + 1 > need)
                            need = t.ny + 1;
                    }
                }
                if (eq_s2_chroma_rows_for(ch, h, y) != need) {
                    fprintf(stderr, "chroma rows for %d of %d (%d chroma rows): %d, read %d\n", y,
                            h, ch, eq_s2_chroma_rows_for(ch, h, y), need);
                    bad = 1;
                    break;
                }
            }
        }
    CHECK(!bad);
}

/* The kernel's taps from libjxl's CreateRecursiveGaussian(1.5) formulas in
 * double (libm): h(t) = sum_k beta_k cos(omega_k t) matches EQ_S2_H0..H4
 * (60-digit values) to 1e-15, and the definition's float taps are those
 * rounded to float. */
static void test_blur_constants(void)
{
    const double sigma = 1.5, radius = 5.0, pi = 3.141592653589793238;
    double om[3] = { pi / 10.0, 3.0 * pi / 10.0, 5.0 * pi / 10.0 };
    double p[3] = { 1.0 / tan(0.5 * om[0]), -1.0 / tan(0.5 * om[1]), 1.0 / tan(0.5 * om[2]) };
    double r[3] = { p[0] * p[0] / sin(om[0]), -p[1] * p[1] / sin(om[1]),
                    p[2] * p[2] / sin(om[2]) };
    double rho[3];
    for (int i = 0; i < 3; i++)
        rho[i] = exp(-0.5 * sigma * sigma * om[i] * om[i]) / radius;
    double d13 = p[0] * r[1] - r[0] * p[1], d35 = p[1] * r[2] - r[1] * p[2];
    double d51 = p[2] * r[0] - r[2] * p[0];
    double z15 = d35 / d13, z35 = d51 / d13;
    double A[3][3] = { { p[0], p[1], p[2] }, { r[0], r[1], r[2] }, { z15, z35, 1.0 } };
    double g[3] = { 1.0, radius * radius - sigma * sigma, z15 * rho[0] + z35 * rho[1] + rho[2] };
    double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                 A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                 A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    double beta[3];
    for (int i = 0; i < 3; i++) {
        double M[3][3];
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++)
                M[a][c] = c == i ? g[a] : A[a][c];
        double di = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                    M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                    M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
        beta[i] = di / det;
    }
    const double H[5] = { EQ_S2_H0, EQ_S2_H1, EQ_S2_H2, EQ_S2_H3, EQ_S2_H4 };
    const float G[5] = { EQ_S2_G0, EQ_S2_G1, EQ_S2_G2, EQ_S2_G3, EQ_S2_G4 };
    double worst = 0.0, sum = 0.0;
    for (int t = 0; t <= EQ_S2_BLUR_R; t++) {
        double h = 0.0;
        for (int i = 0; i < 3; i++)
            h += beta[i] * cos(om[i] * t);
        worst = fabs(h - H[t]) > worst ? fabs(h - H[t]) : worst;
        CHECK(G[t] == (float)H[t]);
        sum += (t ? 2.0 : 1.0) * G[t];
    }
    /* h(5) = 0: the kernel has nine taps */
    double h5 = 0.0;
    for (int i = 0; i < 3; i++)
        h5 += beta[i] * cos(om[i] * 5.0);
    CHECK(worst < 1e-15 && fabs(h5) < 1e-15);
    CHECK(sum == 1.0);
}

/* The blur of an impulse is the kernel's float taps, bit for bit; the
 * row and column stages split into bands, the column blur streamed through
 * a ring as the driver runs it, the fused row stage, and the stages without
 * scratch all give the bits of one whole pass; and those are the header's
 * eq_s2_fir9 on each output's nine inputs. */
static void test_blur_stages(void)
{
    enum { W = 41, H = 37, R = EQ_S2_BLUR_R };
    static float in[W * H], tmp[W * H], out[W * H], out2[W * H], tmp2[W * H];
    static float scratch[EQ_S2_MAPS * (W + 2 * R)];
    CHECK(eq_s2_blur_scratch_floats(W) <= sizeof(scratch) / sizeof(scratch[0]));
    memset(in, 0, sizeof(in));
    in[18 * W + 20] = 1.0f;
    eq_s2_blur_h_c(in, NULL, tmp, W, H, 0, H, scratch);
    eq_s2_blur_v_c(tmp, out, W, H, 0, W);
    /* each pass's sum has one non-zero product: the row pass leaves g[dx],
     * the column pass the float product g[dy] g[dx], exactly */
    const float g[5] = { EQ_S2_G0, EQ_S2_G1, EQ_S2_G2, EQ_S2_G3, EQ_S2_G4 };
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int dx = abs(x - 20), dy = abs(y - 18);
            float want = dx <= 4 && dy <= 4 ? g[dy] * g[dx] : 0.0f;
            bad += memcmp(&out[y * W + x], &want, sizeof(float)) != 0;
        }
    CHECK(bad == 0);
    /* Bands: rows in three pieces, columns in three pieces, same bits; no
     * scratch, same bits. */
    for (int i = 0; i < W * H; i++)
        in[i] = (float)((double)(noise(9, i % W, i / W, 0) % 1000) / 999.0);
    eq_s2_blur_h_c(in, in, tmp, W, H, 0, H, scratch);
    eq_s2_blur_v_c(tmp, out, W, H, 0, W);
    eq_s2_blur_h_c(in, in, tmp2, W, H, 0, 5, scratch);
    eq_s2_blur_h_c(in, in, tmp2, W, H, 5, 30, NULL);
    eq_s2_blur_h_c(in, in, tmp2, W, H, 30, H, scratch);
    CHECK(memcmp(tmp, tmp2, sizeof(tmp)) == 0);
    eq_s2_blur_v_c(tmp2, out2, W, H, 0, 7);
    eq_s2_blur_v_c(tmp2, out2, W, H, 7, 40);
    eq_s2_blur_v_c(tmp2, out2, W, H, 40, W);
    CHECK(memcmp(out, out2, sizeof(out)) == 0);
    /* The column blur streamed as the driver runs it: rows arrive in a ring
     * of 24, the rows run in uneven pieces, the columns in two pieces. */
    {
        enum { RING = 24 };
        static float ring[RING * W], got[W * H];
        const int runs[5] = { 3, 7, 1, 9, 4 };
        int n = 0, have = 0, calls = 0;
        memset(got, 0xff, sizeof(got));
        while (n < H) {
            int run = runs[calls++ % 5];
            int n1 = n + run > H ? H : n + run;
            int need = n1 + R > H ? H : n1 + R;
            for (; have < need; have++)
                memcpy(ring + (have % RING) * W, tmp2 + have * W, sizeof(float) * W);
            eq_s2_blur_v_rows_c(ring, RING, W, H, n, n1, 0, 17, got + n * W, W);
            eq_s2_blur_v_rows_c(ring, RING, W, H, n, n1, 17, W, got + n * W + 17, W);
            n = n1;
        }
        CHECK(calls > 5 && memcmp(got, out, sizeof(out)) == 0);
    }
    /* The fused row stage = five row passes, bit for bit, any band split,
     * with or without scratch. */
    {
        static float in2[W * H];
        static float f5[5][W * H], f5n[5][W * H], g[W * H];
        float *outs[5] = { f5[0], f5[1], f5[2], f5[3], f5[4] };
        float *outsn[5] = { f5n[0], f5n[1], f5n[2], f5n[3], f5n[4] };
        for (int i = 0; i < W * H; i++)
            in2[i] = (float)((double)(noise(10, i % W, i / W, 1) % 1000) / 999.0);
        eq_s2_blur_h5_c(in, in2, outs, W, H, 0, 13, scratch);
        eq_s2_blur_h5_c(in, in2, outs, W, H, 13, H, scratch);
        eq_s2_blur_h5_c(in, in2, outsn, W, H, 0, H, NULL);
        const float *pa[5] = { in, in2, in, in, in2 };
        const float *pb[5] = { in, in2, in2, NULL, NULL };
        for (int q = 0; q < 5; q++) {
            eq_s2_blur_h_c(pa[q], pb[q], g, W, H, 0, H, scratch);
            CHECK(memcmp(g, f5[q], sizeof(g)) == 0);
            CHECK(memcmp(g, f5n[q], sizeof(g)) == 0);
        }
    }
    /* Output by output with the header's functions: the stages' bits. */
    int same = 1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float v[9], c[9];
            for (int t = -R; t <= R; t++) {
                int i = x + t, j = y + t;
                float a = i >= 0 && i < W ? in[y * W + i] : 0.0f;
                v[t + R] = eq_s2_blur_input(EQ_S2_MAP_S12, a, a);
                c[t + R] = j >= 0 && j < H ? tmp[j * W + x] : 0.0f;
            }
            float hv = eq_s2_fir9(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
            float vv = eq_s2_fir9(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]);
            if (memcmp(&hv, &tmp[y * W + x], sizeof(hv)) != 0 ||
                memcmp(&vv, &out[y * W + x], sizeof(vv)) != 0)
                same = 0;
        }
    CHECK(same);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DATA_DIR [--print]\n", argv[0]);
        return 2;
    }
    print_mode = argc > 2 && !strcmp(argv[2], "--print");
#if defined(EQ_S2_FORCE_AVX2)
    if (!__builtin_cpu_supports("avx2")) {
        printf("no AVX2 on this CPU: skipped\n");
        return 77;
    }
#endif
    EqScorer *sc = open_scorer(2, EQ_MATRIX_UNSPECIFIED, EQ_RANGE_UNSPECIFIED);
    EqScorer *sc1 = open_scorer(1, EQ_MATRIX_UNSPECIFIED, EQ_RANGE_UNSPECIFIED);
    EqScorer *sc_709 = open_scorer(2, EQ_MATRIX_BT709, EQ_RANGE_LIMITED);
    EqScorer *sc_601 = open_scorer(2, EQ_MATRIX_BT601, EQ_RANGE_FULL);
    CHECK(sc && sc1 && sc_709 && sc_601);
    if (!sc || !sc1 || !sc_709 || !sc_601)
        return eqtest_done();
    test_known_answers(argv[1], sc);
    test_all_sums(sc);
    if (print_mode)
        return 0;
    int n = kat_checked;
    test_known_answers(argv[1], sc1); /* one thread: the same bits */
    CHECK(kat_checked == 2 * n && n == (int)(sizeof(kats) / sizeof(kats[0])));
    EqScorer *sc3 = open_scorer(3, EQ_MATRIX_UNSPECIFIED, EQ_RANGE_UNSPECIFIED);
    CHECK(sc3 != NULL);
    test_all_sums(sc1);
    test_work_report();
    if (sc3)
        test_all_sums(sc3);
    eq_scorer_close(&sc3);
    CHECK(kat_sums_checked == 3 * (int)(sizeof(kat_sums) / sizeof(kat_sums[0])));
    test_layouts(sc, sc_709, sc_601);
    test_extremes(sc);
    test_too_small(sc);
    test_pmath();
    test_cbrt_reduction();
    test_terms();
    test_blur_constants();
    test_chroma_rows();
    test_blur_stages();
    eq_scorer_close(&sc);
    eq_scorer_close(&sc1);
    eq_scorer_close(&sc_709);
    eq_scorer_close(&sc_601);
    return eqtest_done();
}
