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

#include <stdint.h>

#include "exact/bits.h"
#include "exact/hd.h"

/*
 * cbrt(t) for t in [1/8, 1], et its exponent (t in [2^et, 2^(et+1)); an
 * et below -2 takes the first octave's seed, one above -2 the last's). A
 * seed r ~ t^(-1/3) (a quadratic per octave,
 * Chebyshev fits, relative error under 0.21%) is refined by three Newton
 * steps for f(r) = r^-3 - t, which need no division: r <- r + r * (1 -
 * t r^3) / 3. Then cbrt(t) = t * r^2.
 */
EQ_HD static inline double eq_pm_cbrt_octave(double t, int et)
{
    double c2 = et < -2 ? 11.681429613085724 : et < -1 ? 2.3178892070380943 : 0.4599274706997508;
    double c1 =
        et < -2 ? -7.629472899316338 : et < -1 ? -3.027758326584406 : -1.2015666881813902;
    double c0 = et < -2 ? 2.767011838259366 : et < -1 ? 2.1961787514306894 : 1.7431082301656418;
    double r = c0 + t * (c1 + t * c2);
    const double third = 1.0 / 3.0;
    for (int i = 0; i < 3; i++) {
        double r3 = r * r * r;
        double e = 1.0 - t * r3;
        r = r + r * (e * third);
    }
    return t * (r * r);
}

/*
 * Cube root of x for x in [2^-24, 8] (0 for x <= 0). Relative error below
 * 6e-16 (under three ulp) on that domain.
 *
 * Range reduction by an exact power of 8 maps x to t = x 8^q in [1/8, 1],
 * with cbrt(x) = 2^-q cbrt(t) (eq_pm_cbrt_octave); q is clamped to -1 .. 7
 * (so t stays below 1/8 for x < 2^-24 and above 1 for x > 8). q comes from
 * x's exponent field: for x = m 2^E (1 <= m < 2), the least q with E + 3q
 * >= -3, i.e. floor((-E - 1) / 3). It is the scaling of the chain of tests
 * it replaces (x below 2^-12, 2^-6, 1/8: times 2^12, 2^6, 8; then above 1:
 * times 1/8) but at x = 1, which the chain keeps as t = 1 and this takes
 * to 1/8; both give 1.0. tests/lib/test_ssimulacra2_exact.c compares the
 * two bit for bit at every exponent. Integer steps instead of twelve
 * double ones on the GPU.
 */
EQ_HD static inline double eq_pm_cbrt(double x)
{
    const int be = eq_exp_field(x); /* E + 1023 (x > 0) */
    int q = (2048 - be) / 3 - 342;        /* floor((-E - 1) / 3), 2048 - be >= 1 */
    q = q > 7 ? 7 : q;
    q = q < -1 ? -1 : q;
    const double t = x * eq_pow2(3 * q), s = eq_pow2(-q);
    /* t's exponent (x > 0 normal; a subnormal x has be 0 and q 7, so it
     * stays far below the octaves, as t does) */
    const int et = be - 1023 + 3 * q;
    const double c = eq_pm_cbrt_octave(t, et);
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
