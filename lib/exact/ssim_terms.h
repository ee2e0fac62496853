/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIM and MS-SSIM: every per-sample and per-window formula and every filter
 * tap sequence, shared text for the C reference (lib/cpu/ssim.c,
 * lib/cpu/ms_ssim.c) and the CUDA kernels. Compiled with -ffp-contract=off
 * on the host and --fmad=false on the device; each product that feeds an add
 * is its own statement so that no compiler may fuse them.
 *
 * Definitions: libvmaf 3.2.0
 *   libvmaf/src/feature/picture_copy.c        sample -> float
 *   libvmaf/src/feature/ssim.c                SSIM scale, box low-pass
 *   libvmaf/src/feature/ms_ssim.c             MS-SSIM 9x9 low-pass, weights
 *   libvmaf/src/feature/iqa/convolve.c        separable 11-tap blur, 2-D
 *                                             filter_pixel, KBND_SYMMETRIC
 *   libvmaf/src/feature/iqa/decimate.c        decimation geometry
 *   libvmaf/src/feature/iqa/ssim_tools.c/.h   window terms, Gaussian taps
 * Our code is a restatement of those definitions (see docs/cpu-reference.md),
 * not a copy.
 *
 * Types matter: a filter tap is a float product (sample * tap) widened to
 * double and added to a double that starts at 0.0, in tap order; the result is
 * rounded to float. Window terms mix float and double exactly as libvmaf's
 * C expressions do (float operands, double constants 2.0).
 */
#ifndef EQ_EXACT_SSIM_TERMS_H
#define EQ_EXACT_SSIM_TERMS_H

#include <math.h>

#include "exact/hd.h"

/* ------------------------------------------------------------------ taps */

/* 11-tap Gaussian (sigma 1.5), the 1-D factors libvmaf's IQA_CONVOLVE_1D path
 * uses for both passes (ssim_tools.h g_gaussian_window_h/_v). Use as an array
 * initializer: `static const float taps[EQ_SSIM_GAUSS_LEN] = EQ_SSIM_GAUSS_TAPS;`
 * (or in __constant__ memory on the device). */
#define EQ_SSIM_GAUSS_LEN 11
#define EQ_SSIM_GAUSS_TAPS                                                      \
    {                                                                           \
        0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f,       \
        0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f                   \
    }

/* The 9x9 low-pass (9/7 biorthogonal wavelet) MS-SSIM decimates with: the
 * 2-D table, row-major (ms_ssim.c g_lpf; _iqa_decimate -> _iqa_filter_pixel
 * walks k->kernel, not the 1-D factors). */
#define EQ_MS_SSIM_LPF_LEN 9
#define EQ_MS_SSIM_LPF_TAPS                                                                   \
    {                                                                                         \
         0.000714f, -0.000450f, -0.002090f,  0.007132f,  0.016114f,  0.007132f, -0.002090f, -0.000450f,  0.000714f, \
        -0.000450f,  0.000283f,  0.001316f, -0.004490f, -0.010146f, -0.004490f,  0.001316f,  0.000283f, -0.000450f, \
        -0.002090f,  0.001316f,  0.006115f, -0.020867f, -0.047149f, -0.020867f,  0.006115f,  0.001316f, -0.002090f, \
         0.007132f, -0.004490f, -0.020867f,  0.071207f,  0.160885f,  0.071207f, -0.020867f, -0.004490f,  0.007132f, \
         0.016114f, -0.010146f, -0.047149f,  0.160885f,  0.363505f,  0.160885f, -0.047149f, -0.010146f,  0.016114f, \
         0.007132f, -0.004490f, -0.020867f,  0.071207f,  0.160885f,  0.071207f, -0.020867f, -0.004490f,  0.007132f, \
        -0.002090f,  0.001316f,  0.006115f, -0.020867f, -0.047149f, -0.020867f,  0.006115f,  0.001316f, -0.002090f, \
        -0.000450f,  0.000283f,  0.001316f, -0.004490f, -0.010146f, -0.004490f,  0.001316f,  0.000283f, -0.000450f, \
         0.000714f, -0.000450f, -0.002090f,  0.007132f,  0.016114f,  0.007132f, -0.002090f, -0.000450f,  0.000714f  \
    }

/* MS-SSIM exponents per scale (ms_ssim.c g_alphas, g_betas, g_gammas); used
 * by the host finish only. */
#define EQ_MS_SSIM_ALPHAS { 0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f }
#define EQ_MS_SSIM_BETAS  { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f }
#define EQ_MS_SSIM_GAMMAS { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f }

/* ------------------------------------------------------- geometry helpers */

/* KBND_SYMMETRIC: mirror with the edge sample repeated (-1 -> 0, n -> n-1). */
EQ_HD static inline int eq_reflect(int x, int n)
{
    if (x < 0)
        return -1 - x;
    if (x >= n)
        return 2 * n - 1 - x;
    return x;
}

/* _iqa_decimate's output size: w / factor + (w & 1) (sic: the odd bit, not a
 * ceiling, also for factors other than 2). */
EQ_HD static inline int eq_decimated_size(int n, int factor)
{
    return n / factor + (n & 1);
}

/* float_ssim's automatic scale: max(1, _round(min(w, h) / 256.0f)), with
 * iqa/math_utils.c _round (ties away from zero, tested as a double). */
EQ_HD static inline int eq_ssim_auto_scale(int w, int h)
{
    float a = (float)(w < h ? w : h) / 256.0f;
    int t = (int)a;
    int r = (double)(a - (float)t) >= 0.5 ? t + (a > 0.0f ? 1 : -1) : t;
    return r > 1 ? r : 1;
}

/* ----------------------------------------------------------- sample terms */

/* picture_copy.c: 8-bit samples become (float)v; deeper ones (float)v divided
 * by 4, 16 or 256 (so every depth lands on the 8-bit scale). Exact. */
EQ_HD static inline float eq_ssim_sample(unsigned v, int bitdepth)
{
    float f = (float)v;
    if (bitdepth == 10)
        return f / 4.0f;
    if (bitdepth == 12)
        return f / 16.0f;
    if (bitdepth == 16)
        return f / 256.0f;
    return f;
}

/* One filter tap: acc + (double)(sample * tap), the product rounded to float
 * first. Every filter here (11-tap blur, box low-pass, 9x9 low-pass) is a
 * chain of these from acc = 0.0 in the tap order of its table, and its
 * output is (float)acc. */
EQ_HD static inline double eq_tap(double acc, float sample, float tap)
{
    float p = sample * tap;
    return acc + (double)p;
}

/* The box low-pass float_ssim decimates with: factor^2 taps, each
 * 1.0f / (factor * factor) (ssim.c low_pass.kernel). */
EQ_HD static inline float eq_ssim_box_tap(int factor)
{
    return 1.0f / (float)(factor * factor);
}

/* ----------------------------------------------------------- window terms */

/* Stabilising constants, float as in _iqa_ssim: K1 = 0.01f, K2 = 0.03f,
 * L = 255 (int), C1 = (K1*L)^2, C2 = (K2*L)^2, C3 = C2 / 2.0f. */
EQ_HD static inline float eq_ssim_c1(void)
{
    float kl = 0.01f * 255;
    return kl * kl;
}

EQ_HD static inline float eq_ssim_c2(void)
{
    float kl = 0.03f * 255;
    return kl * kl;
}

EQ_HD static inline float eq_ssim_c3(void)
{
    return eq_ssim_c2() / 2.0f;
}

/* Products blurred into the second moments (float). */
EQ_HD static inline float eq_ssim_square(float a)
{
    return a * a;
}

EQ_HD static inline float eq_ssim_cross(float a, float b)
{
    return a * b;
}

/* Variance from the blurred square: blur(x^2) - mu^2 in float, clamped at 0
 * through a double compare (MAX(0.0, v) in ssim_tools.c). */
EQ_HD static inline float eq_ssim_variance(float blurred_sq, float mu)
{
    float m = mu * mu;
    float v = blurred_sq - m;
    return (float)(0.0 > (double)v ? 0.0 : (double)v);
}

/* Covariance from the blurred cross product: blur(x*y) - mu_x*mu_y. */
EQ_HD static inline float eq_ssim_covariance(float blurred_xy, float mu1, float mu2)
{
    float m = mu1 * mu2;
    return blurred_xy - m;
}

/*
 * The three terms of one window (ssim_tools.c _iqa_ssim, default arguments):
 *   sd = (float)sqrt((double)(var1 * var2))
 *   l  = (2.0 * mu1 * mu2 + C1) / (float)(mu1*mu1 + mu2*mu2 + C1)   double
 *   c  = (2.0 * sd + C2) / (float)(var1 + var2 + C2)                double
 *   s  = (cov' + C3) / (sd + C3)                                     float
 * with cov' = 0 when cov < 0 and sd <= 0 (libvmaf's flat-window fix).
 * sqrt is correctly rounded on both glibc and CUDA.
 */
EQ_HD static inline void eq_ssim_window(float mu1, float mu2, float var1, float var2,
                                        float cov, double *l, double *c, float *s)
{
    const float c1 = eq_ssim_c1(), c2 = eq_ssim_c2(), c3 = eq_ssim_c3();

    float vv = var1 * var2;
    float sd = (float)sqrt((double)vv);

    double ln = 2.0 * (double)mu1;
    ln = ln * (double)mu2;
    ln = ln + (double)c1;
    float m11 = mu1 * mu1;
    float m22 = mu2 * mu2;
    float ld = m11 + m22;
    ld = ld + c1;
    *l = ln / (double)ld;

    double cn = 2.0 * (double)sd;
    cn = cn + (double)c2;
    float cd = var1 + var2;
    cd = cd + c2;
    *c = cn / (double)cd;

    float cv = (cov < 0.0f && sd <= 0.0f) ? 0.0f : cov;
    float sn = cv + c3;
    float sdd = sd + c3;
    *s = sn / sdd;
}

/* The SSIM map value of a window: l * c * s in double, left to right. */
EQ_HD static inline double eq_ssim_lcs(double l, double c, float s)
{
    double lc = l * c;
    return lc * (double)s;
}

#endif /* EQ_EXACT_SSIM_TERMS_H */
