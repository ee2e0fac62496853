/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIMULACRA 2.1: every per-pixel formula, shared by the C reference
 * (lib/cpu/ssimulacra2.c) and the CUDA kernels. One text, compiled by the
 * host compiler with -ffp-contract=off and by nvcc with --fmad=false.
 *
 * The definition follows libjxl tools/ssimulacra2.cc at commit
 * aea3a06e281fdee13e04815bfbf4f4132e7f59ea, restated with fixed types and a
 * fixed order of operations (see docs/ssimulacra2.md):
 *
 *   linear RGB (double)  -> 2x2 box downsampling per scale, in linear RGB
 *                        -> XYB (opsin absorbance, bias, cube root,
 *                           MakePositiveXYB) in double, stored as float
 *   per channel: mu1 = G*x1, mu2 = G*x2, s11 = G*(x1*x1), s22 = G*(x2*x2),
 *                s12 = G*(x1*x2), G the Gaussian (sigma 1.5) of libjxl's
 *                recursive filter, evaluated as its 9-tap kernel, rows then
 *                columns, in float (see below)
 *   per pixel:   d  = max(1 - SSIM'(mu, s), 0)          (libjxl SSIMMap)
 *                d1 = (1 + |x2 - mu2|) / (1 + |x1 - mu1|) - 1  (EdgeDiffMap)
 *                in double
 *   per scale and channel, six sequential raster-order double sums:
 *                d, d^4, max(d1,0), max(d1,0)^4, max(-d1,0), max(-d1,0)^4
 *
 * Constants that libjxl writes as float literals (opsin matrix, bias,
 * MakePositiveXYB offsets, kC2) are used at their float values, converted
 * exactly to double: these numbers are the definition libjxl computes with.
 */
#ifndef EQ_EXACT_SSIMULACRA2_H
#define EQ_EXACT_SSIMULACRA2_H

#include "exact/hd.h"
#include "exact/pmath.h"

/* ------------------------------------------------------------ geometry */

#define EQ_S2_MIN_SIZE 8   /* libjxl rejects smaller images */
#define EQ_S2_MAX_SCALES 6 /* kNumScales */
#define EQ_S2_SUMS_PER_CHANNEL 6

/* Index of a sum in EqScores.ssimulacra2_sums: [scale][channel][k]. */
enum {
    EQ_S2_SUM_D = 0,         /* sum of d (1 - SSIM') */
    EQ_S2_SUM_D4 = 1,        /* sum of d^4 */
    EQ_S2_SUM_ARTIFACT = 2,  /* sum of max(d1, 0) (ringing, blockiness) */
    EQ_S2_SUM_ARTIFACT4 = 3, /* sum of max(d1, 0)^4 */
    EQ_S2_SUM_DETAIL = 4,    /* sum of max(-d1, 0) (blur, detail loss) */
    EQ_S2_SUM_DETAIL4 = 5,   /* sum of max(-d1, 0)^4 */
};

EQ_HD static inline int eq_s2_sum_index(int scale, int channel, int k)
{
    return (scale * 3 + channel) * EQ_S2_SUMS_PER_CHANNEL + k;
}

/* ------------------------------------------------------------ downsample */

/*
 * One output of libjxl's Downsample(in, 2, 2): the four samples at
 * (2x, 2y), (2x+1, 2y), (2x, 2y+1), (2x+1, 2y+1), coordinates clamped to the
 * image (the last column/row repeats for odd sizes), summed in that order
 * and multiplied by 1/4.
 */
EQ_HD static inline double eq_s2_box4(double a00, double a10, double a01, double a11)
{
    double s = a00 + a10;
    s = s + a01;
    s = s + a11;
    return s * 0.25;
}

/* ------------------------------------------------------------------ XYB */

/* libjxl lib/jxl/cms/opsin_params.h kOpsinAbsorbanceMatrix (float values;
 * kM01 = 1.0f - kM02 - kM00 evaluated in float, likewise kM11, kM22). */
#define EQ_S2_M00 0x1.3333340000000p-2  /* 0.30f */
#define EQ_S2_M01 0x1.3e76c80000000p-1  /* 1 - 0.078f - 0.30f */
#define EQ_S2_M02 0x1.3f7cee0000000p-4  /* 0.078f */
#define EQ_S2_M10 0x1.d70a3e0000000p-3  /* 0.23f */
#define EQ_S2_M11 0x1.624dd20000000p-1  /* 1 - 0.078f - 0.23f */
#define EQ_S2_M12 0x1.3f7cee0000000p-4  /* 0.078f */
#define EQ_S2_M20 0x1.f287980000000p-3  /* 0.24342268924547819f */
#define EQ_S2_M21 0x1.a35d1e0000000p-3  /* 0.20476744424496821f */
#define EQ_S2_M22 0x1.1a86d20000000p-1  /* 1 - M20 - M21 */
/* kOpsinAbsorbanceBias0..2 = 0.0037930732552754493f */
#define EQ_S2_BIAS 0x1.f12a6c0000000p-9
/* eq_pm_cbrt(EQ_S2_BIAS), precomputed (test_ssimulacra2_exact checks it). */
#define EQ_S2_CBRT_BIAS 0x1.3f64eaa603002p-3
/* MakePositiveXYB (tools/ssimulacra2.cc): 0.55f, 14.f, 0.42f, 0.01f */
#define EQ_S2_POS_B 0x1.19999a0000000p-1
#define EQ_S2_POS_XMUL 14.0
#define EQ_S2_POS_X 0x1.ae147a0000000p-2
#define EQ_S2_POS_Y 0x1.47ae140000000p-7

/*
 * Linear RGB (nominally [0, 1]) to libjxl's XYB, then MakePositiveXYB.
 *   m_k = M_k0 r + M_k1 g + M_k2 b + bias, added as M_k0 r + (M_k1 g + (M_k2 b
 *         + bias)) (libjxl's MulAdd nesting, here without fusing);
 *         clamped at 0 (ZeroIfNegative);
 *   c_k = cbrt(m_k) - cbrt(bias);
 *   X = 0.5 (c_0 - c_1), Y = 0.5 (c_0 + c_1), B = c_2;
 *   B' = (B - Y) + 0.55, X' = 14 X + 0.42, Y' = Y + 0.01.
 * cbrt is eq_pm_cbrt; its domain [2^-24, 8] holds m_k for r, g, b in [0, 1].
 * The three results are doubles; the XYB planes store them rounded to float
 * (eq_s2_xyb_f), libjxl's plane type.
 */
EQ_HD static inline void eq_s2_xyb(double r, double g, double b, double *ox, double *oy,
                                   double *ob)
{
    double m0 = EQ_S2_M02 * b + EQ_S2_BIAS;
    m0 = EQ_S2_M01 * g + m0;
    m0 = EQ_S2_M00 * r + m0;
    double m1 = EQ_S2_M12 * b + EQ_S2_BIAS;
    m1 = EQ_S2_M11 * g + m1;
    m1 = EQ_S2_M10 * r + m1;
    double m2 = EQ_S2_M22 * b + EQ_S2_BIAS;
    m2 = EQ_S2_M21 * g + m2;
    m2 = EQ_S2_M20 * r + m2;
    m0 = m0 < 0.0 ? 0.0 : m0;
    m1 = m1 < 0.0 ? 0.0 : m1;
    m2 = m2 < 0.0 ? 0.0 : m2;

    const double cb = EQ_S2_CBRT_BIAS;
    double c0 = eq_pm_cbrt(m0) - cb;
    double c1 = eq_pm_cbrt(m1) - cb;
    double c2 = eq_pm_cbrt(m2) - cb;
    double x = 0.5 * (c0 - c1);
    double y = 0.5 * (c0 + c1);
    *ob = (c2 - y) + EQ_S2_POS_B;
    *ox = x * EQ_S2_POS_XMUL + EQ_S2_POS_X;
    *oy = y + EQ_S2_POS_Y;
}

/* eq_s2_xyb, each result rounded to float: what an XYB plane holds. */
EQ_HD static inline void eq_s2_xyb_f(double r, double g, double b, float *ox, float *oy,
                                     float *ob)
{
    double x, y, bb;
    eq_s2_xyb(r, g, b, &x, &y, &bb);
    *ox = (float)x;
    *oy = (float)y;
    *ob = (float)bb;
}

/* ----------------------------------------------------------------- blur */

/*
 * The blur is the Gaussian (sigma 1.5) that libjxl's recursive filter
 * (tools/gauss_blur.cc, CreateRecursiveGaussian(1.5)) is built to compute:
 * Charalampidis' truncated-cosine kernel of radius 5,
 *     h(t) = sum_k beta_k cos(omega_k t), k = 1, 3, 5, |t| <= 4 (h(+-5) = 0),
 * nine taps. libjxl runs it as three second-order recursions in float; we
 * evaluate the kernel itself: rows first, then columns, zero outside the
 * image (libjxl's padding), in float with the taps rounded to float, each
 * output in one order, the farthest taps first, no FMA:
 *     acc = g4 (p4 + q4); acc = acc + g3 (p3 + q3); acc = acc + g2 (p2 + q2);
 *     acc = acc + g1 (p1 + q1); out = acc + g0 c
 * (p_t, q_t the inputs t before and after, c the input itself). Why not the
 * recursion (docs/ssimulacra2.md, "Conditioning"): its poles lie on the unit
 * circle, so its float rounding is never damped; the score carries 0.016 to
 * 0.088 of that error, and a last-bit change of its inputs moves a photo's
 * score by up to 0.05. The kernel in float lands within 0.002 of the exact
 * filter's score (the float64 check) on every fixture pair, whatever the
 * types around it; and every output depends on its 9 x 9 neighbours alone,
 * which a GPU blurs in tiles (docs/cuda.md).
 */
#define EQ_S2_BLUR_R 4 /* taps t = -4 .. 4 */
/* EQ_S2_H0..H4 (below) rounded to float; they sum to 1 exactly. */
#define EQ_S2_G0 0x1.0ef8d6p-2f /* 0.264621109 */
#define EQ_S2_G1 0x1.b413e8p-3f /* 0.212928593 */
#define EQ_S2_G2 0x1.bfd672p-4f /* 0.109335370 */
#define EQ_S2_G3 0x1.2700c8p-5f /* 0.036011115 */
#define EQ_S2_G4 0x1.347d70p-7f /* 0.009414367 */

/* The nine-tap sum with taps g0..g4, in the one order both the float
 * kernel (eq_s2_fir9) and the float64 check's (eq_s2_blur9) use: the
 * symmetric pairs from the outermost in, then the centre. The arithmetic
 * is the operands' type (no FMA: the build forbids contraction). */
#define EQ_S2_FIR9_SUM(g0, g1, g2, g3, g4, p4, p3, p2, p1, c, q1, q2, q3, q4)              \
    ((((g4 * (p4 + q4) + g3 * (p3 + q3)) + g2 * (p2 + q2)) + g1 * (p1 + q1)) + g0 * c)

EQ_HD static inline float eq_s2_fir9(float p4, float p3, float p2, float p1, float c, float q1,
                                     float q2, float q3, float q4)
{
    return EQ_S2_FIR9_SUM(EQ_S2_G0, EQ_S2_G1, EQ_S2_G2, EQ_S2_G3, EQ_S2_G4, p4, p3, p2, p1, c,
                          q1, q2, q3, q4);
}

/* The output at v[4] of nine consecutive inputs v[0..8]. */
EQ_HD static inline float eq_s2_fir9_at(const float *v, int step)
{
    return eq_s2_fir9(v[0], v[step], v[2 * step], v[3 * step], v[4 * step], v[5 * step],
                      v[6 * step], v[7 * step], v[8 * step]);
}

/*
 * The five blurred maps of a channel (libjxl's mu1, mu2, sigma11, sigma22,
 * sigma12) and the input each blur reads at one pixel, from the channel's
 * XYB values x1 (reference) and x2 (distorted): the value itself, or the
 * product in float (the double product of two floats, exact, rounded to
 * float: the same bits). eq_s2_blur_input(EQ_S2_MAP_S12, a, b) is the
 * product of any two planes (the C stage's generic blur uses it for a * a
 * as well).
 */
enum {
    EQ_S2_MAP_MU1 = 0, /* x1 */
    EQ_S2_MAP_MU2 = 1, /* x2 */
    EQ_S2_MAP_S11 = 2, /* x1 x1 */
    EQ_S2_MAP_S22 = 3, /* x2 x2 */
    EQ_S2_MAP_S12 = 4, /* x1 x2 */
    EQ_S2_MAPS = 5
};

EQ_HD static inline float eq_s2_blur_input(int map, float x1, float x2)
{
    switch (map) {
    case EQ_S2_MAP_MU1:
        return x1;
    case EQ_S2_MAP_MU2:
        return x2;
    case EQ_S2_MAP_S11:
        return x1 * x1;
    case EQ_S2_MAP_S22:
        return x2 * x2;
    default:
        return x1 * x2;
    }
}

/*
 * The kernel's taps h(0..4) from libjxl's formulas in 60-digit arithmetic,
 * rounded to double: the float64 check's (tools/bench_ssimulacra2.c --f64,
 * not the scorer), and rounded to float above, the definition's.
 */
#define EQ_S2_H0 0x1.0ef8d5c79cdb1p-2 /* 0.264621105488198663950... */
#define EQ_S2_H1 0x1.b413e7d88b734p-3 /* 0.212928592010422362416... */
#define EQ_S2_H2 0x1.bfd672a600a90p-4 /* 0.109335372777460418772... */
#define EQ_S2_H3 0x1.2700c7f8017b8p-5 /* 0.036011114658364318129... */
#define EQ_S2_H4 0x1.347d70ed6fe4dp-7 /* 0.009414367809653568709... */

EQ_HD static inline double eq_s2_blur9(double p4, double p3, double p2, double p1, double c,
                                       double q1, double q2, double q3, double q4)
{
    return EQ_S2_FIR9_SUM(EQ_S2_H0, EQ_S2_H1, EQ_S2_H2, EQ_S2_H3, EQ_S2_H4, p4, p3, p2, p1, c,
                          q1, q2, q3, q4);
}

/* ---------------------------------------------------------------- terms */

/* kC2 = 0.0009f (tools/ssimulacra2.cc) */
#define EQ_S2_C2 0x1.d7dbf40000000p-11

/*
 * libjxl SSIMMap, one pixel, in double:
 *   num_m   = 1 - (mu1 - mu2)^2
 *   num_s   = 2 (s12 - mu1 mu2) + C2
 *   denom_s = (s11 - mu1^2) + (s22 - mu2^2) + C2
 *   d       = max(1 - num_m num_s / denom_s, 0)
 * For x1 == x2 everywhere, num_s and denom_s are the same double (a + a ==
 * 2 a), so d == 0 exactly.
 */
EQ_HD static inline double eq_s2_ssim_d(double mu1, double mu2, double s11, double s22,
                                        double s12)
{
    double mu11 = mu1 * mu1;
    double mu22 = mu2 * mu2;
    double mu12 = mu1 * mu2;
    double dm = mu1 - mu2;
    double num_m = 1.0 - dm * dm;
    double num_s = 2.0 * (s12 - mu12) + EQ_S2_C2;
    double denom_s = (s11 - mu11) + (s22 - mu22);
    denom_s = denom_s + EQ_S2_C2;
    double d = 1.0 - (num_m * num_s) / denom_s;
    return d > 0.0 ? d : 0.0;
}

/*
 * libjxl EdgeDiffMap, one pixel, in double:
 *   d1 = (1 + |x2 - mu2|) / (1 + |x1 - mu1|) - 1
 * d1 > 0: the distorted image has an edge where the original is smooth
 * (artifact); d1 < 0: the original has an edge the distorted lost (detail).
 */
EQ_HD static inline double eq_s2_edge_d1(double x1, double mu1, double x2, double mu2)
{
    double e1 = x1 - mu1;
    double e2 = x2 - mu2;
    e1 = e1 < 0.0 ? -e1 : e1;
    e2 = e2 < 0.0 ? -e2 : e2;
    return (1.0 + e2) / (1.0 + e1) - 1.0;
}

/* libjxl quartic(): x *= x; x *= x. */
EQ_HD static inline double eq_s2_quartic(double x)
{
    double x2 = x * x;
    return x2 * x2;
}

EQ_HD static inline double eq_s2_artifact(double d1)
{
    return d1 > 0.0 ? d1 : 0.0;
}

EQ_HD static inline double eq_s2_detail(double d1)
{
    double n = -d1;
    return n > 0.0 ? n : 0.0;
}

/*
 * The term a sum adds for a value x of a plane, by kind: the six sums of a
 * channel, in EQ_S2_SUM_* order, add the kinds in this order, of d for the
 * first two and of d1 for the others (the GPU engine forms them on the fly
 * from the two planes, lib/cuda/ordsum.cu). An even kind is a base term (x
 * itself, eq_s2_artifact, eq_s2_detail), the odd kind after it that term's
 * eq_s2_quartic: for an even k, eq_s2_term(k + 1, x) is
 * eq_s2_quartic(eq_s2_term(k, x)), the same operations, so a quartic's
 * terms can be formed from its base's (eq_s2_term_quartic). Other kinds
 * add x.
 */
enum {
    EQ_S2_TERM_X = EQ_S2_SUM_D,                 /* x */
    EQ_S2_TERM_QUARTIC = EQ_S2_SUM_D4,          /* eq_s2_quartic(x) */
    EQ_S2_TERM_ARTIFACT = EQ_S2_SUM_ARTIFACT,   /* eq_s2_artifact(x) */
    EQ_S2_TERM_ARTIFACT4 = EQ_S2_SUM_ARTIFACT4, /* eq_s2_quartic(eq_s2_artifact(x)) */
    EQ_S2_TERM_DETAIL = EQ_S2_SUM_DETAIL,       /* eq_s2_detail(x) */
    EQ_S2_TERM_DETAIL4 = EQ_S2_SUM_DETAIL4,     /* eq_s2_quartic(eq_s2_detail(x)) */
    EQ_S2_TERMS = EQ_S2_SUMS_PER_CHANNEL
};

/* Sum k of a channel (EQ_S2_SUM_*) adds eq_s2_term(k, v) (the kinds are
 * numbered as the sums) of v = d1 where this is 1, of v = d where 0. */
EQ_HD static inline int eq_s2_sum_of_d1(int k)
{
    return k >= EQ_S2_SUM_ARTIFACT;
}

EQ_HD static inline double eq_s2_term(int kind, double x)
{
    double t;
    if (kind < 0 || kind >= EQ_S2_TERMS)
        return x;
    switch (kind & ~1) {
    case EQ_S2_TERM_ARTIFACT:
        t = eq_s2_artifact(x);
        break;
    case EQ_S2_TERM_DETAIL:
        t = eq_s2_detail(x);
        break;
    default:
        t = x;
        break;
    }
    return (kind & 1) ? eq_s2_quartic(t) : t;
}

/* The kind whose term is eq_s2_quartic of kind k's term, or -1. */
EQ_HD static inline int eq_s2_term_quartic(int kind)
{
    return kind >= 0 && kind < EQ_S2_TERMS && !(kind & 1) ? kind + 1 : -1;
}

/* ----------------------------------------------------------- YUV to RGB */

/*
 * Y'CbCr (integer samples, any bit depth 8..16) to non-linear R'G'B' in
 * [0, 1] (clamped), by matrix and range:
 *   limited: y = (Y - 16 k) / (219 k), c = (C - 128 k) / (224 k), k = 2^(bd-8)
 *   full:    y = Y / (2^bd - 1),       c = (C - 2^(bd-1)) / (2^bd - 1)
 *   R = y + 2 (1 - Kr) cr
 *   G = (y - 2 Kb (1 - Kb) / Kg cb) - 2 Kr (1 - Kr) / Kg cr
 *   B = y + 2 (1 - Kb) cb
 * Kr, Kb: BT.601 0.299, 0.114; BT.709 0.2126, 0.0722; BT.2020 0.2627, 0.0593.
 * Chroma arrives already upsampled (see eq_s2_chroma_*), possibly fractional.
 */
typedef struct EqS2Yuv {
    double y_off, y_div; /* y = (Y - y_off) / y_div */
    double c_off, c_div; /* c = (C - c_off) / c_div */
    double cr_r, cb_g, cr_g, cb_b;
} EqS2Yuv;

/* matrix: 0 BT.601, 1 BT.709, 2 BT.2020 NC; full: 0 limited, 1 full. */
EQ_HD static inline EqS2Yuv eq_s2_yuv_setup(int matrix, int full, int bitdepth)
{
    EqS2Yuv p;
    double kr = matrix == 0 ? 0.299 : matrix == 2 ? 0.2627 : 0.2126;
    double kb = matrix == 0 ? 0.114 : matrix == 2 ? 0.0593 : 0.0722;
    double kg = (1.0 - kr) - kb;
    double k = (double)(1 << (bitdepth - 8));
    double maxv = (double)((1 << bitdepth) - 1);
    if (full) {
        p.y_off = 0.0;
        p.y_div = maxv;
        p.c_off = (double)(1 << (bitdepth - 1));
        p.c_div = maxv;
    } else {
        p.y_off = 16.0 * k;
        p.y_div = 219.0 * k;
        p.c_off = 128.0 * k;
        p.c_div = 224.0 * k;
    }
    p.cr_r = 2.0 * (1.0 - kr);
    p.cb_b = 2.0 * (1.0 - kb);
    p.cb_g = 2.0 * kb * (1.0 - kb) / kg;
    p.cr_g = 2.0 * kr * (1.0 - kr) / kg;
    return p;
}

EQ_HD static inline double eq_s2_clamp01(double v)
{
    v = v < 0.0 ? 0.0 : v;
    return v > 1.0 ? 1.0 : v;
}

/* The parts of eq_s2_yuv_to_linear, so that a table of any part holds its
 * bits: y and c from samples; R (or B) from y and the chroma product
 * cr_r cr (cb_b cb); G from y and the two products cb_g cb, cr_g cr. */
EQ_HD static inline double eq_s2_yuv_y(const EqS2Yuv *p, double Y)
{
    return (Y - p->y_off) / p->y_div;
}

EQ_HD static inline double eq_s2_yuv_c(const EqS2Yuv *p, double C)
{
    return (C - p->c_off) / p->c_div;
}

EQ_HD static inline double eq_s2_yuv_rb(double y, double kc)
{
    return eq_pm_srgb_to_linear(eq_s2_clamp01(y + kc));
}

EQ_HD static inline double eq_s2_yuv_g(double y, double kb, double kr)
{
    double gg = y - kb;
    gg = gg - kr;
    return eq_pm_srgb_to_linear(eq_s2_clamp01(gg));
}

/* Y, Cb, Cr in sample units (Cb, Cr may be fractional after upsampling) to
 * linear R, G, B through eq_pm_srgb_to_linear. */
EQ_HD static inline void eq_s2_yuv_to_linear(const EqS2Yuv *p, double Y, double Cb, double Cr,
                                             double *r, double *g, double *b)
{
    double y = eq_s2_yuv_y(p, Y);
    double cb = eq_s2_yuv_c(p, Cb);
    double cr = eq_s2_yuv_c(p, Cr);
    *r = eq_s2_yuv_rb(y, p->cr_r * cr);
    *g = eq_s2_yuv_g(y, p->cb_g * cb, p->cr_g * cr);
    *b = eq_s2_yuv_rb(y, p->cb_b * cb);
}

/* Grey: R = G = B = y. */
EQ_HD static inline double eq_s2_gray_to_linear(const EqS2Yuv *p, double Y)
{
    return eq_pm_srgb_to_linear(eq_s2_clamp01((Y - p->y_off) / p->y_div));
}

/*
 * Chroma upsampling to the luma grid, bilinear with the MPEG-2 / H.264
 * default siting (chroma_sample_loc_type 0): horizontally co-sited with the
 * even luma columns, vertically (4:2:0) half-way between two luma rows.
 * All weights are multiples of 1/8 of integer samples, so the result is
 * exact in double. Neighbours outside the chroma plane are clamped to the
 * edge.
 *
 * Horizontal, luma column x, chroma row values c[]:
 *   x even: c[x/2];  x odd: (c[x/2] + c[x/2 + 1]) / 2
 * Vertical, luma row y, chroma column values at rows j = y/2 and neighbours:
 *   y even: (3 c[j] + c[j - 1]) / 4;  y odd: (3 c[j] + c[j + 1]) / 4
 * The helpers take the samples as integers and return the exact value.
 */
EQ_HD static inline double eq_s2_chroma_h(unsigned c_here, unsigned c_next, int x_odd)
{
    return x_odd ? (double)(c_here + c_next) * 0.5 : (double)c_here;
}

/* 4:2:0: a, b the horizontal neighbours in chroma row j (b = a for even x),
 * c, d the same in the vertical neighbour row (j - 1 for even y, j + 1 for
 * odd y). Value = (3 (a + b) + (c + d)) / 8, exact. */
EQ_HD static inline double eq_s2_chroma_hv(unsigned a, unsigned b, unsigned c, unsigned d)
{
    return (double)(3u * (a + b) + (c + d)) * 0.125;
}

/* Where the upsampled chroma at luma (x, y) reads its samples: chroma
 * column cx and its right neighbour bx (bx = cx for even x or no horizontal
 * subsampling), chroma row cy and its vertical neighbour ny (ny = cy without
 * vertical subsampling); cw x ch is the chroma plane. Both backends fetch
 * the four samples (cx, cy), (bx, cy), (cx, ny), (bx, ny) and pass them to
 * eq_s2_chroma_value(). */
typedef struct EqS2ChromaTaps {
    int cx, bx, cy, ny;
    int ss_x, ss_y, x_odd;
} EqS2ChromaTaps;

EQ_HD static inline EqS2ChromaTaps eq_s2_chroma_taps(int x, int y, int ss_x, int ss_y, int cw,
                                                     int ch)
{
    EqS2ChromaTaps t;
    t.ss_x = ss_x;
    t.ss_y = ss_y;
    t.cx = x >> ss_x;
    t.x_odd = ss_x && (x & 1);
    t.bx = t.x_odd && t.cx + 1 < cw ? t.cx + 1 : t.cx;
    t.cy = y >> ss_y;
    if (!ss_y)
        t.ny = t.cy;
    else if (y & 1)
        t.ny = t.cy + 1 < ch ? t.cy + 1 : ch - 1;
    else
        t.ny = t.cy > 0 ? t.cy - 1 : 0;
    return t;
}

/* How many rows of a plane of `ch` rows (ch == height: the luma rows, or
 * chroma without vertical subsampling; else (height + 1) / 2) luma rows
 * 0 .. y - 1 read through eq_s2_chroma_taps(): the prefix of the plane that
 * a band of the frame's first y rows needs uploaded. The last of them, row
 * y - 1, reads the furthest down (no earlier row reads a chroma row past
 * its own), so its taps give it. */
EQ_HD static inline int eq_s2_chroma_rows_for(int ch, int height, int y)
{
    if (y <= 0)
        return 0;
    EqS2ChromaTaps t = eq_s2_chroma_taps(0, y - 1, 0, ch != height, 1, ch);
    return (t.cy > t.ny ? t.cy : t.ny) + 1;
}

/* The upsampled chroma from the four samples named by `t`. */
EQ_HD static inline double eq_s2_chroma_value(const EqS2ChromaTaps *t, unsigned a, unsigned b,
                                              unsigned c, unsigned d)
{
    if (!t->ss_x && !t->ss_y)
        return (double)a;
    if (!t->ss_y)
        return eq_s2_chroma_h(a, b, t->x_odd);
    return eq_s2_chroma_hv(a, b, c, d);
}

/* Eight times the upsampled chroma eq_s2_chroma_value() gives (every
 * value is a multiple of 1/8 of a sample), as an integer: a table indexed
 * by it holds a function of the value exactly. */
EQ_HD static inline unsigned eq_s2_chroma_index8(const EqS2ChromaTaps *t, unsigned a, unsigned b,
                                                 unsigned c, unsigned d)
{
    if (!t->ss_x && !t->ss_y)
        return 8u * a;
    if (!t->ss_y)
        return t->x_odd ? 4u * (a + b) : 8u * a;
    return 3u * (a + b) + (c + d);
}

/* Linear light of an integer RGB code of an sRGB-encoded picture with
 * maximum code maxv (255 or 65535): the CPU's lookup table holds these
 * values, the device computes them in place. */
EQ_HD static inline double eq_s2_srgb_code_to_linear(unsigned code, double maxv)
{
    return eq_pm_srgb_to_linear((double)code / maxv);
}

#endif /* EQ_EXACT_SSIMULACRA2_H */
