/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The stage functions of float_ssim / float_ms_ssim (see lib/cpu/ssim.h).
 *
 * This file is compiled once as the C reference (names ending in _c) and,
 * on x86-64, again with -mavx2 and with -mavx512f (names ending in _avx2,
 * _avx512): the same source, so the same operations in the same order on
 * every sample; only the width of the vector registers the compiler may use
 * changes. There is no FMA in any build (-ffp-contract=off, and no -mfma),
 * so every lane rounds exactly as the scalar code does. tests/lib/
 * test_cpu_metrics.c compares every variant with _c bit for bit.
 *
 * Every formula is in lib/exact/ssim_terms.h. The loops here only arrange
 * the work: each output of a filter adds its taps one after the other in
 * the table's order, starting from 0.0, as in libvmaf's per-sample loops
 * (iqa/convolve.c, iqa/decimate.c); the taps are unrolled so that the
 * compiler vectorises across outputs (one output per lane).
 */
#include <stdint.h>
#include <string.h>

#include "cpu/ssim.h"
#include "exact/ssim_terms.h"

#ifndef EQ_ISA
#define EQ_ISA c
#endif
#define EQ_CAT2(a, b) a##_##b
#define EQ_CAT(a, b) EQ_CAT2(a, b)
#define FN(name) EQ_CAT(name, EQ_ISA)

/* Full unrolling of a filter's taps, so that the loop over outputs is the
 * one a compiler vectorises (each lane one output, its taps in order). */
#define EQ_PRAGMA(x) _Pragma(#x)
#if defined(__clang__)
#define EQ_UNROLL(n) EQ_PRAGMA(unroll n)
#elif defined(__GNUC__)
#define EQ_UNROLL(n) EQ_PRAGMA(GCC unroll n)
#else
#define EQ_UNROLL(n)
#endif

void FN(eq_ssim_to_float)(const EqPlane *p, int y, int bitdepth, float *dst)
{
    const uint8_t *row = p->data + (ptrdiff_t)y * p->stride;
    const int w = p->width;

    if (p->bytes == 1 && p->step == 1) {
        for (int x = 0; x < w; x++)
            dst[x] = eq_ssim_sample(row[x], bitdepth);
    } else if (p->bytes == 2 && p->step == 2) {
        const int shift = p->shift;
        for (int x = 0; x < w; x++) {
            unsigned v = (unsigned)(uint16_t)(row[2 * x] | (row[2 * x + 1] << 8)) >> shift;
            dst[x] = eq_ssim_sample(v, bitdepth);
        }
    } else {
        for (int x = 0; x < w; x++)
            dst[x] = eq_ssim_sample(eq_plane_sample(p, x, y), bitdepth);
    }
}

/*
 * _iqa_decimate(img, w, h, factor, box) -> _iqa_filter_pixel at (x*factor,
 * y*factor): taps v = -f/2 .. f/2 - (f even), u likewise, rows outer,
 * mirrored at the edges; kscale 1.0f. Runs on full-size planes once per
 * frame and is cheap: kept per sample.
 */
void FN(eq_ssim_box_decimate)(const float *src, int w, int h, int factor, int y, float *dst)
{
    const int sw = eq_decimated_size(w, factor);
    const int c = factor / 2, even = !(factor & 1);
    const float tap = eq_ssim_box_tap(factor);

    for (int x = 0; x < sw; x++) {
        double acc = 0.0;
        for (int v = -c; v <= c - even; v++) {
            const float *row = src + (ptrdiff_t)eq_reflect(y * factor + v, h) * w;
            for (int u = -c; u <= c - even; u++)
                acc = eq_tap(acc, row[eq_reflect(x * factor + u, w)], tap);
        }
        dst[x] = (float)acc;
    }
}

/*
 * One output row of MS-SSIM's decimation: _iqa_decimate(img, w, h, 2, lpf)
 * -> _iqa_filter_pixel at (2x, 2y) with the 9x9 table, v outer, u inner,
 * mirrored at the edges. Each of the 9 source rows is mirrored into a padded
 * row and split into even and odd columns, so that tap (v, t) of output x
 * (source column 2x + t - 4) is element x + t/2 of one unit-stride array.
 */
enum { LPF_R = EQ_MS_SSIM_LPF_LEN / 2, LPF_CHUNK = 256 };

void FN(eq_ms_ssim_lpf_decimate)(const float *src, int w, int h, int y, float *restrict dst)
{
    static const float lpf[EQ_MS_SSIM_LPF_LEN * EQ_MS_SSIM_LPF_LEN] = EQ_MS_SSIM_LPF_TAPS;
    enum { PAD = LPF_CHUNK + LPF_R + 1 };
    const int sw = eq_decimated_size(w, 2);
    float ev[EQ_MS_SSIM_LPF_LEN][PAD], od[EQ_MS_SSIM_LPF_LEN][PAD];
    const float *rows[EQ_MS_SSIM_LPF_LEN];

    for (int v = 0; v < EQ_MS_SSIM_LPF_LEN; v++)
        rows[v] = src + (ptrdiff_t)eq_reflect(2 * y + v - LPF_R, h) * w;

    for (int x0 = 0; x0 < sw; x0 += LPF_CHUNK) {
        const int n = sw - x0 < LPF_CHUNK ? sw - x0 : LPF_CHUNK;
        /* ev[v][i] is source column base + 2i, od[v][i] column base + 2i + 1;
         * columns inside the row for i in [i_lo, i_hi), mirrored outside. */
        const int base = 2 * x0 - LPF_R, m = n + LPF_R;
        int i_lo = base >= 0 ? 0 : (1 - base) / 2;
        int i_hi = (w - base) / 2;
        if (i_lo > m)
            i_lo = m;
        if (i_hi > m)
            i_hi = m;
        if (i_hi < i_lo)
            i_hi = i_lo;
        for (int v = 0; v < EQ_MS_SSIM_LPF_LEN; v++) {
            const float *row = rows[v];
            for (int i = 0; i < i_lo; i++) {
                ev[v][i] = row[eq_reflect(base + 2 * i, w)];
                od[v][i] = row[eq_reflect(base + 2 * i + 1, w)];
            }
            const float *in = row + base;
            for (int i = i_lo; i < i_hi; i++) {
                ev[v][i] = in[2 * i];
                od[v][i] = in[2 * i + 1];
            }
            for (int i = i_hi; i < m; i++) {
                ev[v][i] = row[eq_reflect(base + 2 * i, w)];
                od[v][i] = row[eq_reflect(base + 2 * i + 1, w)];
            }
        }
        for (int x = 0; x < n; x++) {
            double acc = 0.0;
            EQ_UNROLL(9)
            for (int v = 0; v < EQ_MS_SSIM_LPF_LEN; v++) {
                EQ_UNROLL(9)
                for (int t = 0; t < EQ_MS_SSIM_LPF_LEN; t++) {
                    const float *in = (t & 1) ? od[v] : ev[v];
                    acc = eq_tap(acc, in[x + (t >> 1)], lpf[v * EQ_MS_SSIM_LPF_LEN + t]);
                }
            }
            dst[x0 + x] = (float)acc;
        }
    }
}

void FN(eq_ssim_products)(const float *ref, const float *dist, int n, float *rr, float *dd,
                          float *rd)
{
    for (int i = 0; i < n; i++) {
        rr[i] = eq_ssim_square(ref[i]);
        dd[i] = eq_ssim_square(dist[i]);
        rd[i] = eq_ssim_cross(ref[i], dist[i]);
    }
}

/* iqa/convolve.c, horizontal pass: output x takes src[x .. x+10] with taps
 * 0..10; (float)(sum * 1.0f). */
void FN(eq_ssim_blur_h)(const float *restrict src, int w, float *restrict dst)
{
    static const float g[EQ_SSIM_GAUSS_LEN] = EQ_SSIM_GAUSS_TAPS;
    const int n = w - (EQ_SSIM_GAUSS_LEN - 1);

    for (int x = 0; x < n; x++) {
        double acc = 0.0;
        EQ_UNROLL(11)
        for (int k = 0; k < EQ_SSIM_GAUSS_LEN; k++)
            acc = eq_tap(acc, src[x + k], g[k]);
        dst[x] = (float)acc;
    }
}

/* iqa/convolve.c, vertical pass over the horizontally blurred rows. */
void FN(eq_ssim_blur_v)(const float *const rows[EQ_SSIM_WINDOW], int n, float *restrict dst)
{
    static const float g[EQ_SSIM_GAUSS_LEN] = EQ_SSIM_GAUSS_TAPS;
    const float *r[EQ_SSIM_WINDOW];

    for (int k = 0; k < EQ_SSIM_WINDOW; k++)
        r[k] = rows[k];
    for (int x = 0; x < n; x++) {
        double acc = 0.0;
        EQ_UNROLL(11)
        for (int k = 0; k < EQ_SSIM_GAUSS_LEN; k++)
            acc = eq_tap(acc, r[k][x], g[k]);
        dst[x] = (float)acc;
    }
}

void FN(eq_ssim_moments)(const float *mu1, const float *mu2, float *ref_sq, float *dist_sq,
                         float *cross, int n)
{
    for (int i = 0; i < n; i++) {
        ref_sq[i] = eq_ssim_variance(ref_sq[i], mu1[i]);
        dist_sq[i] = eq_ssim_variance(dist_sq[i], mu2[i]);
        cross[i] = eq_ssim_covariance(cross[i], mu1[i], mu2[i]);
    }
}

void FN(eq_ssim_window_terms)(const float *mu1, const float *mu2, const float *var1,
                              const float *var2, const float *cov, int n, double *l,
                              double *c, float *s, double *lcs)
{
    for (int i = 0; i < n; i++)
        eq_ssim_window(mu1[i], mu2[i], var1[i], var2[i], cov[i], &l[i], &c[i], &s[i]);
    if (lcs)
        for (int i = 0; i < n; i++)
            lcs[i] = eq_ssim_lcs(l[i], c[i], s[i]);
}

/*
 * THE frame sum (ssim_tools.c _iqa_ssim): one double per quantity, starting
 * at 0.0, each window's term added in raster order, s widened from float.
 * This loop is the definition a GPU backend must reproduce bit for bit. It
 * is the same in every build: a chain of dependent adds cannot be
 * vectorised without reordering, and the compiler may not reorder it.
 */
void FN(eq_ssim_frame_sums)(const double *l, const double *c, const float *s,
                            const double *lcs, int n, EqSsimSums *sums)
{
    double sl = sums->l, sc = sums->c, ss = sums->s;
    for (int i = 0; i < n; i++) {
        sl += l[i];
        sc += c[i];
        ss += (double)s[i];
    }
    sums->l = sl;
    sums->c = sc;
    sums->s = ss;
    if (lcs) {
        double sm = sums->lcs;
        for (int i = 0; i < n; i++)
            sm += lcs[i];
        sums->lcs = sm;
    }
}

void FN(eq_ssim_dsp_init)(EqSsimDsp *dsp)
{
    dsp->to_float = FN(eq_ssim_to_float);
    dsp->box_decimate = FN(eq_ssim_box_decimate);
    dsp->lpf_decimate = FN(eq_ms_ssim_lpf_decimate);
    dsp->products = FN(eq_ssim_products);
    dsp->blur_h = FN(eq_ssim_blur_h);
    dsp->blur_v = FN(eq_ssim_blur_v);
    dsp->moments = FN(eq_ssim_moments);
    dsp->window_terms = FN(eq_ssim_window_terms);
    dsp->frame_sums = FN(eq_ssim_frame_sums);
}
