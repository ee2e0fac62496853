/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIMULACRA2 stages against the C reference stages of
 * lib/cpu/ssimulacra2.h: to_linear (every layout family, both colour
 * ranges), the 2x2 downsampling, XYB, the five blurs with the per-pixel
 * terms, and the six sums of a channel (the engine forming d^4, artifact,
 * detail and their fourth powers on the fly) against eq_s2_sums_c.
 */
#include <stdlib.h>

#include "../common/framegen.h"
#include "ck.h"
#include "cpu/ssimulacra2.h"

static void check_frame(CkContext *ck, const FgFormat *fmt, int w, int h, EqRange range,
                        uint64_t *rng)
{
    FgFrame r, d;
    char what[160];
    if (fg_alloc(&r, fmt, w, h, 3) < 0 || fg_alloc(&d, fmt, w, h, 0) < 0) {
        ck_error(ck, "allocation", EQ_ERR_NO_MEMORY);
        return;
    }
    r.f.range = d.f.range = range;
    fg_fill(&r, fg_splitmix(rng), 1);
    fg_distort(&d, &r, fg_splitmix(rng), 1u << (fmt->bitdepth - 3));
    const size_t n = (size_t)w * h;
    double *lin = malloc(6 * n * 8), *glin = malloc(6 * n * 8);
    double *lut = NULL;
    EqSettings s;
    EqS2Source src[2];
    eq_settings_init(&s);
    if (fmt->layout >= EQ_LAYOUT_RGB) {
        lut = malloc(sizeof(double) << fmt->bitdepth);
        eq_s2_srgb_lut(lut, fmt->bitdepth);
    }
    eq_s2_source_init(&src[0], &s, &r.f, lut);
    eq_s2_source_init(&src[1], &s, &d.f, lut);
    eq_s2_to_linear_c(&src[0], 0, h, lin, lin + n, lin + 2 * n);
    eq_s2_to_linear_c(&src[1], 0, h, lin + 3 * n, lin + 4 * n, lin + 5 * n);
    for (int run = 0; run < 2; run++) {
        int err = eq_cuda_stage_s2_to_linear(ck->cuda, &r.f, &d.f, glin);
        if (err < 0) {
            ck_error(ck, "to_linear", err);
            continue;
        }
        snprintf(what, sizeof(what), "to_linear %s %dx%d range %d", fmt->name, w, h, range);
        ck_same(ck, what, glin, lin, 6 * n * 8);
    }

    /* downsample one plane */
    {
        int ow = (w + 1) / 2, oh = (h + 1) / 2;
        double *want = malloc((size_t)ow * oh * 8), *got = malloc((size_t)ow * oh * 8);
        eq_s2_downsample_c(lin + n, w, h, want, 0, oh);
        for (int run = 0; run < 2; run++) {
            int err = eq_cuda_stage_s2_downsample(ck->cuda, lin + n, w, h, got);
            if (err < 0) {
                ck_error(ck, "downsample", err);
                continue;
            }
            snprintf(what, sizeof(what), "downsample %s %dx%d", fmt->name, w, h);
            ck_same(ck, what, got, want, (size_t)ow * oh * 8);
        }
        free(want);
        free(got);
    }

    /* XYB of both frames (float planes) */
    float *xyb = malloc(6 * n * sizeof(float)), *gx = malloc(3 * n * sizeof(float));
    for (int f = 0; f < 2; f++) {
        const double *l = lin + 3 * n * f;
        float *o = xyb + 3 * n * f;
        eq_s2_xyb_c(l, l + n, l + 2 * n, o, o + n, o + 2 * n, n);
        for (int run = 0; run < 2; run++) {
            int err = eq_cuda_stage_s2_xyb(ck->cuda, l, n, gx);
            if (err < 0) {
                ck_error(ck, "xyb", err);
                continue;
            }
            snprintf(what, sizeof(what), "xyb %s %dx%d frame %d", fmt->name, w, h, f);
            ck_same(ck, what, gx, o, 3 * n * sizeof(float));
        }
    }

    /* blurs and terms of each channel, then its six sums */
    float *maps = malloc(6 * n * sizeof(float));
    float *tmp = maps, *mu1 = maps + n, *mu2 = maps + 2 * n, *s11 = maps + 3 * n,
          *s22 = maps + 4 * n, *s12 = maps + 5 * n;
    double *dd = malloc(2 * n * 8), *gd = malloc(2 * n * 8);
    for (int c = 0; c < 3; c++) {
        const float *x1 = xyb + (size_t)c * n, *x2 = xyb + (size_t)(3 + c) * n;
        const float *a[5] = {x1, x2, x1, x2, x1};
        const float *b[5] = {NULL, NULL, x1, x2, x2};
        float *o[5] = {mu1, mu2, s11, s22, s12};
        for (int m = 0; m < 5; m++) {
            eq_s2_blur_h_c(a[m], b[m], tmp, w, h, 0, h, NULL);
            eq_s2_blur_v_c(tmp, o[m], w, h, 0, w);
        }
        eq_s2_terms_c(x1, x2, mu1, mu2, s11, s22, s12, dd, dd + n, n);
        for (int run = 0; run < 2; run++) {
            int err = eq_cuda_stage_s2_blur_terms(ck->cuda, x1, x2, w, h, gd, gd + n);
            if (err < 0) {
                ck_error(ck, "blur_terms", err);
                continue;
            }
            snprintf(what, sizeof(what), "blur+terms %s %dx%d channel %d: d", fmt->name, w, h,
                     c);
            ck_same(ck, what, gd, dd, n * 8);
            snprintf(what, sizeof(what), "blur+terms %s %dx%d channel %d: d1", fmt->name, w, h,
                     c);
            ck_same(ck, what, gd + n, dd + n, n * 8);
        }
        double want[6] = {0, 0, 0, 0, 0, 0}, got[6]; /* eq_s2_sums_c continues from want */
        eq_s2_sums_c(dd, dd + n, n, want);
        EqCudaSumCase cases[6] = {
            {dd, n, 1, EQ_CUDA_TERM_X},
            {dd, n, 1, EQ_CUDA_TERM_QUARTIC},
            {dd + n, n, 1, EQ_CUDA_TERM_ARTIFACT},
            {dd + n, n, 1, EQ_CUDA_TERM_ARTIFACT4},
            {dd + n, n, 1, EQ_CUDA_TERM_DETAIL},
            {dd + n, n, 1, EQ_CUDA_TERM_DETAIL4},
        };
        for (int run = 0; run < 2; run++) {
            int err = eq_cuda_stage_ordsum(ck->cuda, cases, 6, 0, got, NULL);
            if (err < 0) {
                ck_error(ck, "sums", err);
                continue;
            }
            snprintf(what, sizeof(what), "six sums %s %dx%d channel %d", fmt->name, w, h, c);
            ck_same(ck, what, got, want, sizeof(want));
        }
    }
    free(maps);
    free(dd);
    free(gd);
    free(xyb);
    free(gx);
    free(lin);
    free(glin);
    free(lut);
    fg_free(&r);
    fg_free(&d);
}

void ck_ssimulacra2(CkContext *ck)
{
    static const FgFormat formats[] = {
        {"yuv420p", EQ_LAYOUT_YUV420P, 8, 0},    {"yuv422p10", EQ_LAYOUT_YUV422P, 10, 0},
        {"yuv444p12", EQ_LAYOUT_YUV444P, 12, 0}, {"nv12", EQ_LAYOUT_NV12, 8, 0},
        {"p010", EQ_LAYOUT_NV12, 10, 1},         {"gray", EQ_LAYOUT_GRAY, 8, 0},
        {"rgbx", EQ_LAYOUT_RGBX, 8, 0},          {"rgb48", EQ_LAYOUT_RGB, 16, 0},
        {"yuv420p16", EQ_LAYOUT_YUV420P, 16, 0}, {"yuv422p", EQ_LAYOUT_YUV422P, 8, 0},
        {"yuv444p", EQ_LAYOUT_YUV444P, 8, 0},
    };
    static const int sizes[][2] = {{8, 8},    {17, 9},    {64, 48},
                                   {177, 97}, {577, 323}, {1921, 1081}};
    int nsizes = ck->full ? 6 : ck->quick ? 3 : 5;
    uint64_t rng = ck->seed ^ 0x53325332ull;
    for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
        for (int i = 0; i < nsizes; i++) {
            if (i >= 4 && f > 0)
                continue; /* the big sizes once */
            check_frame(ck, &formats[f], sizes[i][0], sizes[i][1],
                        (f + (size_t)i) & 1 ? EQ_RANGE_FULL : EQ_RANGE_UNSPECIFIED, &rng);
        }
}
