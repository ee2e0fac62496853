/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Portable per-pixel math: functions whose glibc and CUDA versions differ
 * (cbrt, pow, the sRGB curve), rewritten from +, -, *, / only, so the host
 * compiler (-ffp-contract=off) and nvcc (--fmad=false) produce the same bits.
 *
 * Every function here is deterministic, not correctly rounded: a fixed
 * polynomial seed followed by a fixed number of multiply-only Newton steps.
 * The error bounds quoted are measured against glibc's long double cbrtl and
 * powl by tests/lib/test_pmath.c over the stated domain.
 *
 * Branches are written as conditional expressions so that the C compiler can
 * vectorize them and a CUDA thread evaluates exactly the same operations.
 */
#ifndef EQ_EXACT_PMATH_H
#define EQ_EXACT_PMATH_H

#include "exact/hd.h"

/*
 * Cube root of x for x in [2^-24, 8] (0 for x <= 0). Relative error below
 * 6e-16 (under three ulp) on that domain.
 *
 * Range reduction by exact powers of 8 maps x to t in [1/8, 1], with
 * cbrt(x) = s * cbrt(t). A seed r ~ t^(-1/3) (one quadratic per octave) is
 * refined by three Newton steps for f(r) = r^-3 - t, which need no
 * division: r <- r + r * (1 - t r^3) / 3. Then cbrt(t) = t * r^2.
 */
EQ_HD static inline double eq_pm_cbrt(double x)
{
    double t = x, s = 1.0;
    /* 8^4 = 2^12, 8^2 = 2^6, 8 = 2^3: each step is an exact scaling. The
     * multiplications always run (by 1.0 when the step does not apply), so
     * the compiler can vectorize without conditional floating-point code. */
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

    /* Seed: t^(-1/3) by a quadratic per octave of [1/8, 1] (Chebyshev fits,
     * relative error under 0.21%), so three Newton steps reach the bound. */
    double c2 = t < 0.25 ? 11.681429613085724 : t < 0.5 ? 2.3178892070380943 : 0.4599274706997508;
    double c1 =
        t < 0.25 ? -7.629472899316338 : t < 0.5 ? -3.027758326584406 : -1.2015666881813902;
    double c0 = t < 0.25 ? 2.767011838259366 : t < 0.5 ? 2.1961787514306894 : 1.7431082301656418;
    double r = c0 + t * (c1 + t * c2);
    const double third = 1.0 / 3.0;
    for (int i = 0; i < 3; i++) {
        double r3 = r * r * r;
        double e = 1.0 - t * r3;
        r = r + r * (e * third);
    }
    double c = t * (r * r);
    return x > 0.0 ? c * s : 0.0;
}

/*
 * b^(1/5) for b in [2^-10, 1], relative error below 1.2e-15. Used by the sRGB
 * curve. Reduction by 32 maps b to t in [1/32, 1]; seed q ~ t^(-1/5) (relative error
 * under 16%); six Newton steps q <- q + q * (1 - t q^5) / 5; then t^(1/5) = t * q^4.
 */
EQ_HD static inline double eq_pm_root5(double b)
{
    double s = b < 0.03125 ? 0.5 : 1.0;
    double t = b * (b < 0.03125 ? 32.0 : 1.0);
    double q = 1.7480146364923783 + t * (-1.6559813706262203 + t * 0.9309141737526497);
    const double fifth = 1.0 / 5.0;
    for (int i = 0; i < 6; i++) {
        double q2 = q * q;
        double q5 = q2 * q2 * q;
        double e = 1.0 - t * q5;
        q = q + q * (e * fifth);
    }
    double q2 = q * q;
    return t * (q2 * q2) * s;
}

/*
 * The sRGB electro-optical transfer function (IEC 61966-2-1) on an encoded
 * value v, clamped to [0, 1] first:
 *     v <= 0.04045: v / 12.92
 *     otherwise:    ((v + 0.055) / 1.055)^2.4
 * with a^2.4 = a^2 * (a^2)^(1/5), a in [0.052, 1], so a^2 in [0.0027, 1].
 * libjxl decodes with a rational approximation in float
 * (lib/jxl/cms/transfer_functions-inl.h, TF_SRGB::DisplayFromEncoded); this is
 * the exact curve, relative error below 1.5e-15.
 */
EQ_HD static inline double eq_pm_srgb_to_linear(double v)
{
    v = v < 0.0 ? 0.0 : v;
    v = v > 1.0 ? 1.0 : v;
#ifdef __CUDA_ARCH__
    /* a thread computes only the side it returns (the same operations;
     * the C compiler keeps both sides to vectorize) */
    if (v <= 0.04045)
        return v / 12.92;
#endif
    double a = (v + 0.055) / 1.055;
    double b = a * a;
    double hi = b * eq_pm_root5(b);
    double lo = v / 12.92;
    return v <= 0.04045 ? lo : hi;
}

#endif /* EQ_EXACT_PMATH_H */
