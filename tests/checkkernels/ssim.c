/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIM and MS-SSIM stages against the C reference stages of lib/cpu/ssim.h:
 * to_float, the box and low-pass decimations, the window terms of a scale
 * (the C products, blur_h, blur_v, moments and window_terms composed) and
 * the frame sums (eq_ssim_frame_sums_c against the ordered-sum engine on
 * the same terms). Every output element is compared bit for bit; every
 * device stage runs twice.
 */
#include <stdlib.h>

#include "../common/framegen.h"
#include "ck.h"
#include "cpu/ssim.h"
#include "exact/ssim_terms.h"

/* C reference of one scale's window terms, composed from the stages. */
static void terms_c(const float *ref, const float *dist, int w, int h, double *l, double *c,
                    float *s, double *lcs)
{
    const int ow = w - 10, oh = h - 10;
    float *hb[5], *prod = malloc(sizeof(float) * 3 * (size_t)w);
    float *v[5];
    for (int m = 0; m < 5; m++) {
        hb[m] = malloc(sizeof(float) * (size_t)ow * (size_t)h);
        v[m] = malloc(sizeof(float) * (size_t)ow);
    }
    for (int y = 0; y < h; y++) {
        const float *r = ref + (size_t)y * w, *d = dist + (size_t)y * w;
        eq_ssim_products_c(r, d, w, prod, prod + w, prod + 2 * w);
        const float *in[5] = {r, d, prod, prod + w, prod + 2 * w};
        for (int m = 0; m < 5; m++)
            eq_ssim_blur_h_c(in[m], w, hb[m] + (size_t)y * ow);
    }
    for (int y = 0; y < oh; y++) {
        for (int m = 0; m < 5; m++) {
            const float *rows[EQ_SSIM_WINDOW];
            for (int k = 0; k < EQ_SSIM_WINDOW; k++)
                rows[k] = hb[m] + (size_t)(y + k) * ow;
            eq_ssim_blur_v_c(rows, ow, v[m]);
        }
        eq_ssim_moments_c(v[0], v[1], v[2], v[3], v[4], ow);
        size_t o = (size_t)y * ow;
        eq_ssim_window_terms_c(v[0], v[1], v[2], v[3], v[4], ow, l + o, c + o, s + o, lcs + o);
    }
    for (int m = 0; m < 5; m++) {
        free(hb[m]);
        free(v[m]);
    }
    free(prod);
}

/* What both checks start from: a w x h frame of `fmt` with `pad` extra
 * bytes per row and its distortion (tight rows), their component 0 in
 * floats by the C stage (fr, fd) and two buffers of w x h floats for the
 * device's (gr, gd). */
typedef struct SsimPair {
    FgFrame r, d;
    float *fr, *fd, *gr, *gd;
} SsimPair;

static void pair_free(SsimPair *p)
{
    free(p->fr);
    free(p->fd);
    free(p->gr);
    free(p->gd);
    fg_free(&p->r);
    fg_free(&p->d);
}

static int pair_make(CkContext *ck, const FgFormat *fmt, int w, int h, int pad, uint64_t *rng,
                     SsimPair *p)
{
    const size_t n = (size_t)w * h;
    memset(p, 0, sizeof(*p));
    if (fg_alloc(&p->r, fmt, w, h, pad) < 0 || fg_alloc(&p->d, fmt, w, h, 0) < 0) {
        ck_error(ck, "allocation", EQ_ERR_NO_MEMORY);
        pair_free(p);
        return -1;
    }
    fg_fill(&p->r, fg_splitmix(rng), 1);
    fg_distort(&p->d, &p->r, fg_splitmix(rng), 1u << (fmt->bitdepth - 3));
    p->fr = malloc(n * 4);
    p->fd = malloc(n * 4);
    p->gr = malloc(n * 4);
    p->gd = malloc(n * 4);
    if (!p->fr || !p->fd || !p->gr || !p->gd) {
        ck_error(ck, "allocation", EQ_ERR_NO_MEMORY);
        pair_free(p);
        return -1;
    }
    EqPlane pr, pd;
    eq_frame_plane(&p->r.f, 0, &pr);
    eq_frame_plane(&p->d.f, 0, &pd);
    for (int y = 0; y < h; y++) {
        eq_ssim_to_float_c(&pr, y, fmt->bitdepth, p->fr + (size_t)y * w);
        eq_ssim_to_float_c(&pd, y, fmt->bitdepth, p->fd + (size_t)y * w);
    }
    return 0;
}

static void check_size(CkContext *ck, const FgFormat *fmt, int w, int h, uint64_t *rng)
{
    SsimPair pair;
    char what[128];
    if (pair_make(ck, fmt, w, h, 5, rng, &pair) < 0)
        return;
    const size_t n = (size_t)w * h;
    const float *fr = pair.fr, *fd = pair.fd;
    float *gr = pair.gr, *gd = pair.gd;

    /* to_float */
    for (int run = 0; run < 2; run++) {
        int err = eq_cuda_stage_ssim_to_float(ck->cuda, &pair.r.f, &pair.d.f, 0, gr, gd);
        if (err < 0) {
            ck_error(ck, "to_float", err);
            continue;
        }
        snprintf(what, sizeof(what), "to_float %s %dx%d", fmt->name, w, h);
        ck_same(ck, what, gr, fr, n * 4);
        ck_same(ck, what, gd, fd, n * 4);
    }

    /* box decimation by a few factors, and float_ssim's own */
    int factors[3] = {2, 3, eq_ssim_auto_scale(w, h)};
    for (int i = 0; i < 3; i++) {
        int f = factors[i];
        if (f < 2 || (i == 2 && (f == 2 || f == 3)))
            continue;
        int sw = eq_decimated_size(w, f), sh = eq_decimated_size(h, f);
        float *want = malloc((size_t)sw * sh * 4), *got = malloc((size_t)sw * sh * 4);
        for (int y = 0; y < sh; y++)
            eq_ssim_box_decimate_c(fr, w, h, f, y, want + (size_t)y * sw);
        for (int run = 0; run < 2; run++) {
            int err = eq_cuda_stage_ssim_box(ck->cuda, fr, w, h, f, got);
            if (err < 0) {
                ck_error(ck, "box", err);
                continue;
            }
            snprintf(what, sizeof(what), "box /%d %s %dx%d", f, fmt->name, w, h);
            ck_same(ck, what, got, want, (size_t)sw * sh * 4);
        }
        free(want);
        free(got);
    }

    /* MS-SSIM low-pass decimation */
    {
        int sw = eq_decimated_size(w, 2), sh = eq_decimated_size(h, 2);
        float *want = malloc((size_t)sw * sh * 4), *got = malloc((size_t)sw * sh * 4);
        for (int y = 0; y < sh; y++)
            eq_ms_ssim_lpf_decimate_c(fd, w, h, y, want + (size_t)y * sw);
        for (int run = 0; run < 2; run++) {
            int err = eq_cuda_stage_ms_ssim_lpf(ck->cuda, fd, w, h, got);
            if (err < 0) {
                ck_error(ck, "lpf", err);
                continue;
            }
            snprintf(what, sizeof(what), "lpf %s %dx%d", fmt->name, w, h);
            ck_same(ck, what, got, want, (size_t)sw * sh * 4);
        }
        free(want);
        free(got);
    }

    /* window terms and the frame sums */
    if (w >= 11 && h >= 11) {
        const size_t nw = (size_t)(w - 10) * (h - 10);
        double *l = malloc(nw * 8), *c = malloc(nw * 8), *lcs = malloc(nw * 8);
        float *s = malloc(nw * 4);
        double *gl = malloc(nw * 8), *gc = malloc(nw * 8), *gs = malloc(nw * 8),
               *glcs = malloc(nw * 8), *sw = malloc(nw * 8);
        terms_c(fr, fd, w, h, l, c, s, lcs);
        for (size_t i = 0; i < nw; i++)
            sw[i] = (double)s[i];
        for (int run = 0; run < 2; run++) {
            int err = eq_cuda_stage_ssim_terms(ck->cuda, fr, fd, w, h, gl, gc, gs, glcs);
            if (err < 0) {
                ck_error(ck, "terms", err);
                continue;
            }
            snprintf(what, sizeof(what), "window terms %s %dx%d: l", fmt->name, w, h);
            ck_same(ck, what, gl, l, nw * 8);
            snprintf(what, sizeof(what), "window terms %s %dx%d: c", fmt->name, w, h);
            ck_same(ck, what, gc, c, nw * 8);
            snprintf(what, sizeof(what), "window terms %s %dx%d: s", fmt->name, w, h);
            ck_same(ck, what, gs, sw, nw * 8);
            snprintf(what, sizeof(what), "window terms %s %dx%d: lcs", fmt->name, w, h);
            ck_same(ck, what, glcs, lcs, nw * 8);
        }
        EqSsimSums want = {0, 0, 0, 0};
        eq_ssim_frame_sums_c(l, c, s, lcs, (int)nw, &want);
        EqCudaSumCase cases[4] = {
            {l, nw, 1, 0}, {c, nw, 1, 0}, {sw, nw, 1, 0}, {lcs, nw, 1, 0}};
        double got[4];
        for (int run = 0; run < 2; run++) {
            int err = eq_cuda_stage_ordsum(ck->cuda, cases, 4, 0, got, NULL);
            if (err < 0) {
                ck_error(ck, "frame sums", err);
                continue;
            }
            snprintf(what, sizeof(what), "frame sums %s %dx%d", fmt->name, w, h);
            double wv[4] = {want.l, want.c, want.s, want.lcs};
            ck_same(ck, what, got, wv, sizeof(wv));
        }
        free(l);
        free(c);
        free(s);
        free(lcs);
        free(gl);
        free(gc);
        free(gs);
        free(glcs);
        free(sw);
    }
    pair_free(&pair);
}

/*
 * The stages that read samples against the C stages: to_float, and
 * float_ssim's box decimation straight from the samples against
 * eq_ssim_to_float_c then eq_ssim_box_decimate_c, at several factors
 * (float_ssim's own included), with component 0 where the upload puts it
 * (rows on 256 bytes) and moved so that rows start at odd and 2- or
 * 4-aligned addresses (the kernels' unaligned paths).
 */
static void check_front(CkContext *ck, const FgFormat *fmt, int w, int h, uint64_t *rng)
{
    static const int misaligns[] = {0, 1, 4, 6};
    SsimPair pair;
    char what[160];
    if (pair_make(ck, fmt, w, h, 3, rng, &pair) < 0)
        return;
    const size_t n = (size_t)w * h;
    const float *fr = pair.fr, *fd = pair.fd;
    float *gr = pair.gr, *gd = pair.gd;
    for (size_t a = 0; a < sizeof(misaligns) / sizeof(misaligns[0]); a++) {
        for (int run = 0; run < 2; run++) {
            int err = eq_cuda_stage_ssim_to_float(ck->cuda, &pair.r.f, &pair.d.f, misaligns[a],
                                                  gr, gd);
            if (err < 0) {
                ck_error(ck, "to_float", err);
                continue;
            }
            snprintf(what, sizeof(what), "to_float %s %dx%d misalign %d", fmt->name, w, h,
                     misaligns[a]);
            ck_same(ck, what, gr, fr, n * 4);
            ck_same(ck, what, gd, fd, n * 4);
        }
    }

    /* 2 .. 8: the warp's first column (32 * f * k - f / 2) at each offset
     * in a 4-byte word; and float_ssim's own where it is another */
    int factors[6] = {2, 3, 4, 6, 8, eq_ssim_auto_scale(w, h)};
    for (int i = 0; i < 6; i++) {
        int f = factors[i], seen = 0;
        for (int j = 0; j < i; j++)
            seen |= factors[j] == f;
        if (f < 2 || seen)
            continue;
        int sw = eq_decimated_size(w, f), sh = eq_decimated_size(h, f);
        const size_t m = (size_t)sw * sh;
        float *want = malloc(m * 8), *got = malloc(m * 8);
        for (int y = 0; y < sh; y++) {
            eq_ssim_box_decimate_c(fr, w, h, f, y, want + (size_t)y * sw);
            eq_ssim_box_decimate_c(fd, w, h, f, y, want + m + (size_t)y * sw);
        }
        for (size_t a = 0; a < sizeof(misaligns) / sizeof(misaligns[0]); a++) {
            for (int run = 0; run < 2; run++) {
                memset(got, 0, m * 8);
                int err = eq_cuda_stage_ssim_box_samples(ck->cuda, &pair.r.f, &pair.d.f, f,
                                                         misaligns[a], got, got + m);
                if (err < 0) {
                    ck_error(ck, "box_samples", err);
                    continue;
                }
                snprintf(what, sizeof(what), "box_samples /%d %s %dx%d misalign %d: ref", f,
                         fmt->name, w, h, misaligns[a]);
                ck_same(ck, what, got, want, m * 4);
                snprintf(what, sizeof(what), "box_samples /%d %s %dx%d misalign %d: dist", f,
                         fmt->name, w, h, misaligns[a]);
                ck_same(ck, what, got + m, want + m, m * 4);
            }
        }
        free(want);
        free(got);
    }
    pair_free(&pair);
}

/* Stage "ssim_front": check_front on every layout whose component 0 the
 * kernels read differently (planar, semi-planar, MSB-aligned, packed RGB
 * with a sample step of 3, 4 or 6 bytes) and on sizes whose rows end in a
 * short group (odd widths, widths not a multiple of 8 or of a warp's
 * span). */
void ck_ssim_front(CkContext *ck)
{
    static const FgFormat formats[] = {
        {"gray8", EQ_LAYOUT_GRAY, 8, 0},         {"yuv420p10", EQ_LAYOUT_YUV420P, 10, 0},
        {"yuv444p12", EQ_LAYOUT_YUV444P, 12, 0}, {"yuv422p16", EQ_LAYOUT_YUV422P, 16, 0},
        {"nv12", EQ_LAYOUT_NV12, 8, 0},          {"p010", EQ_LAYOUT_NV12, 10, 1},
        {"p016", EQ_LAYOUT_NV12, 16, 1},         {"rgb", EQ_LAYOUT_RGB, 8, 0},
        {"rgbx", EQ_LAYOUT_RGBX, 8, 0},          {"rgb48", EQ_LAYOUT_RGB, 16, 0},
    };
    /* --quick's four include rows of several warps at every factor */
    static const int sizes[][2] = {{11, 11}, {45, 37},   {576, 96},    {301, 44},
                                   {12, 30}, {577, 323}, {1921, 1081}, {3840, 2160}};
    int nsizes = ck->full ? 8 : ck->quick ? 4 : 7;
    uint64_t rng = ck->seed ^ 0x46524f4eull;
    for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
        for (int i = 0; i < nsizes; i++) {
            if (i >= 6 && f > 1)
                continue; /* the big sizes for two formats */
            check_front(ck, &formats[f], sizes[i][0], sizes[i][1], &rng);
        }
}

void ck_ssim(CkContext *ck)
{
    static const FgFormat formats[] = {
        {"gray8", EQ_LAYOUT_GRAY, 8, 0},
        {"yuv420p10", EQ_LAYOUT_YUV420P, 10, 0},
        {"yuv444p12", EQ_LAYOUT_YUV444P, 12, 0},
        {"p016", EQ_LAYOUT_NV12, 16, 1},
    };
    static const int sizes[][2] = {{11, 11},   {12, 30},     {45, 37},    {176, 176},
                                   {577, 323}, {1921, 1081}, {3840, 2160}};
    int nsizes = ck->full ? 7 : ck->quick ? 3 : 5;
    uint64_t rng = ck->seed ^ 0x5353494dull;
    for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
        for (int i = 0; i < nsizes; i++) {
            if (i >= 5 && f > 0)
                continue; /* the big sizes once */
            check_size(ck, &formats[f], sizes[i][0], sizes[i][1], &rng);
        }
}
