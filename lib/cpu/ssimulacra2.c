/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIMULACRA 2.1, the CPU reference. The definition (libjxl
 * tools/ssimulacra2.cc at aea3a06e281fdee13e04815bfbf4f4132e7f59ea, restated
 * with fixed types and order; docs/ssimulacra2.md) is in the per-pixel
 * functions of lib/exact/ssimulacra2.h; this file holds the C stages, the
 * driver that streams bands of rows through the scales, and the host-only
 * final score.
 *
 * Speed without changing a bit: threads (EqCpu.pool) split the per-pixel
 * stages by rows or columns, and every output depends only on its inputs;
 * the compiler vectorizes loops whose lanes are independent pixels (blocks
 * of S2_LANES, a count -O2 vectorizes), and on x86-64 an AVX-512 or AVX2
 * copy of each stage is chosen at run time (no FMA: -ffp-contract=off, and
 * no fma target). Each of the 108
 * sums runs on one thread, in raster order. Building with -DEQ_S2_SCALAR and
 * -fno-tree-vectorize gives the scalar path, -DEQ_S2_FORCE_AVX2 the AVX2
 * copy alone; the known-answer test runs all of them.
 */
/* Value-safe (exception flags only): lets GCC turn the selects of the exact
 * header into vector blends. No contraction and no reassociation either way;
 * the scalar build (EQ_S2_SCALAR) must give the same bits, and tests say so. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/ssimulacra2.h"

#if defined(EQ_S2_FORCE_AVX2) /* tests: the AVX2 copy on any AVX2 machine */
#define S2_CLONES __attribute__((target("avx2")))
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(EQ_S2_SCALAR)
#define S2_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define S2_CLONES
#endif

/* ----------------------------------------------------------------- weights */

/*
 * libjxl tools/ssimulacra2.cc, Msssim::Score, constexpr double weight[108],
 * at commit aea3a06e281fdee13e04815bfbf4f4132e7f59ea. With 6 scales the index
 * is ((channel * 6 + scale) * 2 + norm) * 3 + map, map = ssim, artifact,
 * detail (fewer scales: see eq_s2_score_from_sums).
 */
const double eq_s2_weights[108] = {
    0.0, /*   0: X scale 0 ssim 1-norm */
    0.0007376606707406586, /*   1: X scale 0 artifact 1-norm */
    0.0, /*   2: X scale 0 detail 1-norm */
    0.0, /*   3: X scale 0 ssim 4-norm */
    0.0007793481682867309, /*   4: X scale 0 artifact 4-norm */
    0.0, /*   5: X scale 0 detail 4-norm */
    0.0, /*   6: X scale 1 ssim 1-norm */
    0.0004371155730107379, /*   7: X scale 1 artifact 1-norm */
    0.0, /*   8: X scale 1 detail 1-norm */
    1.1041726426657346, /*   9: X scale 1 ssim 4-norm */
    0.00066284834129271, /*  10: X scale 1 artifact 4-norm */
    0.00015231632783718752, /*  11: X scale 1 detail 4-norm */
    0.0, /*  12: X scale 2 ssim 1-norm */
    0.0016406437456599754, /*  13: X scale 2 artifact 1-norm */
    0.0, /*  14: X scale 2 detail 1-norm */
    1.8422455520539298, /*  15: X scale 2 ssim 4-norm */
    11.441172603757666, /*  16: X scale 2 artifact 4-norm */
    0.0, /*  17: X scale 2 detail 4-norm */
    0.0007989109436015163, /*  18: X scale 3 ssim 1-norm */
    0.000176816438078653, /*  19: X scale 3 artifact 1-norm */
    0.0, /*  20: X scale 3 detail 1-norm */
    1.8787594979546387, /*  21: X scale 3 ssim 4-norm */
    10.94906990605142, /*  22: X scale 3 artifact 4-norm */
    0.0, /*  23: X scale 3 detail 4-norm */
    0.0007289346991508072, /*  24: X scale 4 ssim 1-norm */
    0.9677937080626833, /*  25: X scale 4 artifact 1-norm */
    0.0, /*  26: X scale 4 detail 1-norm */
    0.00014003424285435884, /*  27: X scale 4 ssim 4-norm */
    0.9981766977854967, /*  28: X scale 4 artifact 4-norm */
    0.00031949755934435053, /*  29: X scale 4 detail 4-norm */
    0.0004550992113792063, /*  30: X scale 5 ssim 1-norm */
    0.0, /*  31: X scale 5 artifact 1-norm */
    0.0, /*  32: X scale 5 detail 1-norm */
    0.0013648766163243398, /*  33: X scale 5 ssim 4-norm */
    0.0, /*  34: X scale 5 artifact 4-norm */
    0.0, /*  35: X scale 5 detail 4-norm */
    0.0, /*  36: Y scale 0 ssim 1-norm */
    0.0, /*  37: Y scale 0 artifact 1-norm */
    0.0, /*  38: Y scale 0 detail 1-norm */
    7.466890328078848, /*  39: Y scale 0 ssim 4-norm */
    0.0, /*  40: Y scale 0 artifact 4-norm */
    17.445833984131262, /*  41: Y scale 0 detail 4-norm */
    0.0006235601634041466, /*  42: Y scale 1 ssim 1-norm */
    0.0, /*  43: Y scale 1 artifact 1-norm */
    0.0, /*  44: Y scale 1 detail 1-norm */
    6.683678146179332, /*  45: Y scale 1 ssim 4-norm */
    0.00037724407979611296, /*  46: Y scale 1 artifact 4-norm */
    1.027889937768264, /*  47: Y scale 1 detail 4-norm */
    225.20515300849274, /*  48: Y scale 2 ssim 1-norm */
    0.0, /*  49: Y scale 2 artifact 1-norm */
    0.0, /*  50: Y scale 2 detail 1-norm */
    19.213238186143016, /*  51: Y scale 2 ssim 4-norm */
    0.0011401524586618361, /*  52: Y scale 2 artifact 4-norm */
    0.001237755635509985, /*  53: Y scale 2 detail 4-norm */
    176.39317598450694, /*  54: Y scale 3 ssim 1-norm */
    0.0, /*  55: Y scale 3 artifact 1-norm */
    0.0, /*  56: Y scale 3 detail 1-norm */
    24.43300999870476, /*  57: Y scale 3 ssim 4-norm */
    0.28520802612117757, /*  58: Y scale 3 artifact 4-norm */
    0.0004485436923833408, /*  59: Y scale 3 detail 4-norm */
    0.0, /*  60: Y scale 4 ssim 1-norm */
    0.0, /*  61: Y scale 4 artifact 1-norm */
    0.0, /*  62: Y scale 4 detail 1-norm */
    34.77906344483772, /*  63: Y scale 4 ssim 4-norm */
    44.835625328877896, /*  64: Y scale 4 artifact 4-norm */
    0.0, /*  65: Y scale 4 detail 4-norm */
    0.0, /*  66: Y scale 5 ssim 1-norm */
    0.0, /*  67: Y scale 5 artifact 1-norm */
    0.0, /*  68: Y scale 5 detail 1-norm */
    0.0, /*  69: Y scale 5 ssim 4-norm */
    0.0, /*  70: Y scale 5 artifact 4-norm */
    0.0, /*  71: Y scale 5 detail 4-norm */
    0.0, /*  72: B scale 0 ssim 1-norm */
    0.0008680556573291698, /*  73: B scale 0 artifact 1-norm */
    0.0, /*  74: B scale 0 detail 1-norm */
    0.0, /*  75: B scale 0 ssim 4-norm */
    0.0, /*  76: B scale 0 artifact 4-norm */
    0.0, /*  77: B scale 0 detail 4-norm */
    0.0, /*  78: B scale 1 ssim 1-norm */
    0.0005313191874358747, /*  79: B scale 1 artifact 1-norm */
    0.0, /*  80: B scale 1 detail 1-norm */
    0.00016533814161379112, /*  81: B scale 1 ssim 4-norm */
    0.0, /*  82: B scale 1 artifact 4-norm */
    0.0, /*  83: B scale 1 detail 4-norm */
    0.0, /*  84: B scale 2 ssim 1-norm */
    0.0, /*  85: B scale 2 artifact 1-norm */
    0.0, /*  86: B scale 2 detail 1-norm */
    0.0004179171803251336, /*  87: B scale 2 ssim 4-norm */
    0.0017290828234722833, /*  88: B scale 2 artifact 4-norm */
    0.0, /*  89: B scale 2 detail 4-norm */
    0.0020827005846636437, /*  90: B scale 3 ssim 1-norm */
    0.0, /*  91: B scale 3 artifact 1-norm */
    0.0, /*  92: B scale 3 detail 1-norm */
    8.826982764996862, /*  93: B scale 3 ssim 4-norm */
    23.19243343998926, /*  94: B scale 3 artifact 4-norm */
    0.0, /*  95: B scale 3 detail 4-norm */
    95.1080498811086, /*  96: B scale 4 ssim 1-norm */
    0.9863978034400682, /*  97: B scale 4 artifact 1-norm */
    0.9834382792465353, /*  98: B scale 4 detail 1-norm */
    0.0012286405048278493, /*  99: B scale 4 ssim 4-norm */
    171.2667255897307, /* 100: B scale 4 artifact 4-norm */
    0.9807858872435379, /* 101: B scale 4 detail 4-norm */
    0.0, /* 102: B scale 5 ssim 1-norm */
    0.0, /* 103: B scale 5 artifact 1-norm */
    0.0, /* 104: B scale 5 detail 1-norm */
    0.0005130064588990679, /* 105: B scale 5 ssim 4-norm */
    0.0, /* 106: B scale 5 artifact 4-norm */
    0.00010854057858411537, /* 107: B scale 5 detail 4-norm */
};

/* ------------------------------------------------------------ final score */

int eq_s2_scale_count(int w, int h, int widths[EQ_S2_MAX_SCALES],
                      int heights[EQ_S2_MAX_SCALES])
{
    int n = 0;
    if (w < EQ_S2_MIN_SIZE || h < EQ_S2_MIN_SIZE)
        return 0;
    for (int s = 0; s < EQ_S2_MAX_SCALES; s++) {
        /* libjxl checks the previous scale's size before downsampling. */
        if (s > 0) {
            if (w < EQ_S2_MIN_SIZE || h < EQ_S2_MIN_SIZE)
                break;
            w = (w + 1) / 2;
            h = (h + 1) / 2;
        }
        widths[s] = w;
        heights[s] = h;
        n++;
    }
    return n;
}

double eq_s2_score_from_sums(const double sums[EQ_SSIMULACRA2_SUMS], int scales,
                             const int widths[EQ_S2_MAX_SCALES],
                             const int heights[EQ_S2_MAX_SCALES])
{
    double ssim = 0.0;
    int i = 0;

    /* libjxl's order: channel, scale, norm (1, 4), map (ssim, artifact,
     * detail). As in libjxl, the weight index advances over the scored
     * scales only: with fewer than 6 scales, channel Y starts at weight
     * 6 * scales, not at 36 (Msssim::Score loops over scales.size()). */
    for (int c = 0; c < 3; c++) {
        for (int s = 0; s < scales; s++) {
            double one_per_pixels = 1.0 / (double)((size_t)heights[s] * (size_t)widths[s]);
            for (int n = 0; n < 2; n++) {
                for (int map = 0; map < 3; map++) {
                    double sum = sums[eq_s2_sum_index(s, c, 2 * map + n)];
                    double v = n == 0 ? one_per_pixels * sum : sqrt(sqrt(one_per_pixels * sum));
                    ssim += eq_s2_weights[i++] * fabs(v);
                }
            }
        }
    }
    ssim = ssim * 0.9562382616834844;
    ssim = 2.326765642916932 * ssim - 0.020884521182843837 * ssim * ssim +
           6.248496625763138e-05 * ssim * ssim * ssim;
    if (ssim > 0)
        return 100.0 - 10.0 * pow(ssim, 0.6276336467831387);
    return 100.0;
}

/* --------------------------------------------------------------- C stages */

void eq_s2_srgb_lut(double *lut, int bitdepth)
{
    int n = 1 << bitdepth;
    double maxv = (double)(n - 1);
    for (int i = 0; i < n; i++)
        lut[i] = eq_s2_srgb_code_to_linear((unsigned)i, maxv);
}

static inline int imin(int a, int b)
{
    return a < b ? a : b;
}

static inline int imax(int a, int b)
{
    return a > b ? a : b;
}

/* Chroma sample at luma position (x, y), upsampled as eq_s2_chroma_* says. */
static inline double chroma_at(const EqS2Source *src, const EqPlane *p, int x, int y)
{
    EqS2ChromaTaps t = eq_s2_chroma_taps(x, y, src->ss_x, src->ss_y, p->width, p->height);
    return eq_s2_chroma_value(&t, eq_plane_sample(p, t.cx, t.cy), eq_plane_sample(p, t.bx, t.cy),
                              eq_plane_sample(p, t.cx, t.ny), eq_plane_sample(p, t.bx, t.ny));
}

void eq_s2_to_linear_c(const EqS2Source *src, int y0, int y1, double *r, double *g, double *b)
{
    int w = src->plane[0].width;
    for (int y = y0; y < y1; y++) {
        size_t o = (size_t)(y - y0) * w;
        double *ro = r + o, *go = g + o, *bo = b + o;
        if (src->rgb && src->plane[0].bytes == 1) {
            const uint8_t *pr = src->plane[0].data + (ptrdiff_t)y * src->plane[0].stride;
            const uint8_t *pg = src->plane[1].data + (ptrdiff_t)y * src->plane[1].stride;
            const uint8_t *pb = src->plane[2].data + (ptrdiff_t)y * src->plane[2].stride;
            ptrdiff_t step = src->plane[0].step;
            for (int x = 0; x < w; x++) {
                ro[x] = src->srgb_lut[pr[x * step]];
                go[x] = src->srgb_lut[pg[x * step]];
                bo[x] = src->srgb_lut[pb[x * step]];
            }
        } else if (src->rgb) {
            for (int x = 0; x < w; x++) {
                ro[x] = src->srgb_lut[eq_plane_sample(&src->plane[0], x, y)];
                go[x] = src->srgb_lut[eq_plane_sample(&src->plane[1], x, y)];
                bo[x] = src->srgb_lut[eq_plane_sample(&src->plane[2], x, y)];
            }
        } else if (src->gray) {
            for (int x = 0; x < w; x++) {
                double v =
                    eq_s2_gray_to_linear(&src->yuv, (double)eq_plane_sample(&src->plane[0], x, y));
                ro[x] = go[x] = bo[x] = v;
            }
        } else {
            for (int x = 0; x < w; x++) {
                double Y = (double)eq_plane_sample(&src->plane[0], x, y);
                double cb = chroma_at(src, &src->plane[1], x, y);
                double cr = chroma_at(src, &src->plane[2], x, y);
                eq_s2_yuv_to_linear(&src->yuv, Y, cb, cr, &ro[x], &go[x], &bo[x]);
            }
        }
    }
}

S2_CLONES
void eq_s2_downsample_c(const double *restrict in, int w, int h, double *restrict out, int y0,
                        int y1)
{
    int ow = (w + 1) / 2;
    for (int oy = y0; oy < y1; oy++) {
        const double *ra = in + (size_t)(2 * oy) * w;
        const double *rb = in + (size_t)imin(2 * oy + 1, h - 1) * w;
        double *o = out + (size_t)oy * ow;
        for (int ox = 0; ox < w / 2; ox++)
            o[ox] = eq_s2_box4(ra[2 * ox], ra[2 * ox + 1], rb[2 * ox], rb[2 * ox + 1]);
        if (w & 1) /* the last column repeats */
            o[ow - 1] = eq_s2_box4(ra[w - 1], ra[w - 1], rb[w - 1], rb[w - 1]);
    }
}

S2_CLONES
void eq_s2_xyb_c(const double *restrict r, const double *restrict g, const double *restrict b,
                 float *restrict x, float *restrict y, float *restrict bo, size_t n)
{
    for (size_t i = 0; i < n; i++)
        eq_s2_xyb_f(r[i], g[i], b[i], &x[i], &y[i], &bo[i]);
}

/* Floats of a padded row: the row's w inputs with R zeros on either side. */
static size_t pad_len(int w)
{
    return (size_t)w + 2 * EQ_S2_BLUR_R;
}

size_t eq_s2_blur_scratch_floats(int w)
{
    return (size_t)EQ_S2_MAPS * pad_len(w);
}

/* Lanes a vector loop runs at once: loops over independent pixels run in
 * blocks of S2_LANES (a constant count, which -O2's vectorizer takes), then
 * the rest one by one; the same operations per pixel either way. */
#define S2_LANES 16

/* Outputs [x0, x1) of one row from its padded inputs (pad[x + R] = input x,
 * zero outside [0, w)). */
static inline __attribute__((always_inline)) void fir_row(const float *restrict pad,
                                                          float *restrict o, int x0, int x1)
{
    int x = x0;
    for (; x + S2_LANES <= x1; x += S2_LANES)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
        for (int j = 0; j < S2_LANES; j++)
            o[x + j] = eq_s2_fir9_at(pad + x + j, 1);
    for (; x < x1; x++)
        o[x] = eq_s2_fir9_at(pad + x, 1);
}

/* Output x of one row read directly (zero outside [0, w)): the bits of
 * fir_row, input by input. */
static inline float fir_row_at(const float *a, const float *b, int map, int x, int w)
{
    float v[2 * EQ_S2_BLUR_R + 1];
    for (int t = -EQ_S2_BLUR_R; t <= EQ_S2_BLUR_R; t++) {
        int i = x + t;
        v[t + EQ_S2_BLUR_R] = i >= 0 && i < w ? eq_s2_blur_input(map, a[i], b ? b[i] : 0.0f) : 0.0f;
    }
    return eq_s2_fir9_at(v, 1);
}

S2_CLONES
void eq_s2_blur_h_c(const float *restrict a, const float *restrict b, float *restrict out, int w,
                    int h, int y0, int y1, float *scratch)
{
    (void)h;
    const int R = EQ_S2_BLUR_R;
    const int map = b ? EQ_S2_MAP_S12 : EQ_S2_MAP_MU1;
    for (int y = y0; y < y1; y++) {
        const float *ra = a + (size_t)y * w, *rb = b ? b + (size_t)y * w : NULL;
        float *o = out + (size_t)y * w;
        if (!scratch) {
            for (int x = 0; x < w; x++)
                o[x] = fir_row_at(ra, rb, map, x, w);
            continue;
        }
        memset(scratch, 0, sizeof(float) * R);
        memset(scratch + R + w, 0, sizeof(float) * R);
        float *in = scratch + R;
        if (rb)
            for (int x = 0; x < w; x++)
                in[x] = eq_s2_blur_input(EQ_S2_MAP_S12, ra[x], rb[x]);
        else
            for (int x = 0; x < w; x++)
                in[x] = ra[x];
        fir_row(scratch, o, 0, w);
    }
}

S2_CLONES
void eq_s2_blur_h5_c(const float *restrict x1, const float *restrict x2, float *const out[5],
                     int w, int h, int y0, int y1, float *scratch)
{
    static const int maps[5] = { EQ_S2_MAP_S11, EQ_S2_MAP_S22, EQ_S2_MAP_S12, EQ_S2_MAP_MU1,
                                 EQ_S2_MAP_MU2 };
    const int R = EQ_S2_BLUR_R;
    if (!scratch) {
        /* Five separate passes, input by input (the same bits). */
        eq_s2_blur_h_c(x1, x1, out[0], w, h, y0, y1, NULL);
        eq_s2_blur_h_c(x2, x2, out[1], w, h, y0, y1, NULL);
        eq_s2_blur_h_c(x1, x2, out[2], w, h, y0, y1, NULL);
        eq_s2_blur_h_c(x1, NULL, out[3], w, h, y0, y1, NULL);
        eq_s2_blur_h_c(x2, NULL, out[4], w, h, y0, y1, NULL);
        return;
    }
    const size_t L = pad_len(w);
    for (int q = 0; q < 5; q++) {
        memset(scratch + q * L, 0, sizeof(float) * R);
        memset(scratch + q * L + R + w, 0, sizeof(float) * R);
    }
    for (int y = y0; y < y1; y++) {
        const float *a = x1 + (size_t)y * w, *b = x2 + (size_t)y * w;
        float *in[5];
        for (int q = 0; q < 5; q++)
            in[q] = scratch + q * L + R;
        int x = 0;
        for (; x + S2_LANES <= w; x += S2_LANES)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
            for (int j = 0; j < S2_LANES; j++) {
                const float u = a[x + j], v = b[x + j];
                in[0][x + j] = eq_s2_blur_input(EQ_S2_MAP_S11, u, v);
                in[1][x + j] = eq_s2_blur_input(EQ_S2_MAP_S22, u, v);
                in[2][x + j] = eq_s2_blur_input(EQ_S2_MAP_S12, u, v);
                in[3][x + j] = eq_s2_blur_input(EQ_S2_MAP_MU1, u, v);
                in[4][x + j] = eq_s2_blur_input(EQ_S2_MAP_MU2, u, v);
            }
        for (; x < w; x++)
            for (int q = 0; q < 5; q++)
                in[q][x] = eq_s2_blur_input(maps[q], a[x], b[x]);
        for (int q = 0; q < 5; q++)
            fir_row(scratch + q * L, out[q] + (size_t)y * w, 0, w);
    }
}

/* Columns advanced together by one pass of the column blur (a vector
 * loop's length; the columns are independent lanes). */
#define S2_VCOLS 256

S2_CLONES
void eq_s2_blur_v_rows_c(const float *restrict in, int ring, int w, int h, int n0, int n1,
                         int x0, int x1, float *restrict out, size_t out_stride)
{
    const int R = EQ_S2_BLUR_R;
    static const float zero[S2_VCOLS]; /* rows outside the image */
    for (int xc = x0; xc < x1; xc += S2_VCOLS) {
        const int c = imin(S2_VCOLS, x1 - xc);
        for (int n = n0; n < n1; n++) {
            const float *r[2 * EQ_S2_BLUR_R + 1];
            for (int t = -R; t <= R; t++) {
                int y = n + t;
                r[t + R] = y >= 0 && y < h ? in + (size_t)(y % ring) * w + xc : zero;
            }
            float *o = out + (size_t)(n - n0) * out_stride + (xc - x0);
            const float *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3], *r4 = r[4];
            const float *r5 = r[5], *r6 = r[6], *r7 = r[7], *r8 = r[8];
            int i = 0;
            for (; i + S2_LANES <= c; i += S2_LANES)
                for (int j = 0; j < S2_LANES; j++)
                    o[i + j] = eq_s2_fir9(r0[i + j], r1[i + j], r2[i + j], r3[i + j], r4[i + j],
                                          r5[i + j], r6[i + j], r7[i + j], r8[i + j]);
            for (; i < c; i++)
                o[i] = eq_s2_fir9(r0[i], r1[i], r2[i], r3[i], r4[i], r5[i], r6[i], r7[i], r8[i]);
        }
    }
}

void eq_s2_blur_v_c(const float *in, float *out, int w, int h, int x0, int x1)
{
    if (x1 > x0)
        eq_s2_blur_v_rows_c(in, h, w, h, 0, h, x0, x1, out + x0, (size_t)w);
}

S2_CLONES
void eq_s2_terms_c(const float *restrict x1, const float *restrict x2,
                   const float *restrict mu1, const float *restrict mu2,
                   const float *restrict s11, const float *restrict s22,
                   const float *restrict s12, double *restrict ssim_d,
                   double *restrict edge_d1, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ssim_d[i] = eq_s2_ssim_d(mu1[i], mu2[i], s11[i], s22[i], s12[i]);
        edge_d1[i] = eq_s2_edge_d1(x1[i], mu1[i], x2[i], mu2[i]);
    }
}

void eq_s2_sums_c(const double *ssim_d, const double *edge_d1, size_t n, double acc[6])
{
    /* Six sequential double sums in raster order; each accumulator adds its
     * own term of pixel i after that of pixel i - 1 (no reassociation). The
     * sums continue from acc[] (0 for a plane's first pixel), so a plane
     * summed row by row gives the same bits as in one call. */
    double sum_d = acc[EQ_S2_SUM_D], sum_d4 = acc[EQ_S2_SUM_D4];
    double sum_artifact = acc[EQ_S2_SUM_ARTIFACT], sum_artifact4 = acc[EQ_S2_SUM_ARTIFACT4];
    double sum_detail = acc[EQ_S2_SUM_DETAIL], sum_detail4 = acc[EQ_S2_SUM_DETAIL4];
    for (size_t i = 0; i < n; i++) {
        double d = ssim_d[i];
        double a = eq_s2_artifact(edge_d1[i]);
        double l = eq_s2_detail(edge_d1[i]);
        sum_d += d;
        sum_d4 += eq_s2_quartic(d);
        sum_artifact += a;
        sum_artifact4 += eq_s2_quartic(a);
        sum_detail += l;
        sum_detail4 += eq_s2_quartic(l);
    }
    acc[EQ_S2_SUM_D] = sum_d;
    acc[EQ_S2_SUM_D4] = sum_d4;
    acc[EQ_S2_SUM_ARTIFACT] = sum_artifact;
    acc[EQ_S2_SUM_ARTIFACT4] = sum_artifact4;
    acc[EQ_S2_SUM_DETAIL] = sum_detail;
    acc[EQ_S2_SUM_DETAIL4] = sum_detail4;
}

void eq_s2_dsp_init_c(EqS2Dsp *dsp)
{
    dsp->to_linear = eq_s2_to_linear_c;
    dsp->downsample = eq_s2_downsample_c;
    dsp->xyb = eq_s2_xyb_c;
    dsp->blur_h = eq_s2_blur_h_c;
    dsp->blur_h5 = eq_s2_blur_h5_c;
    dsp->blur_v_rows = eq_s2_blur_v_rows_c;
    dsp->terms = eq_s2_terms_c;
    dsp->sums = eq_s2_sums_c;
}

/* ------------------------------------------------------------------ source */

int eq_s2_source_init(EqS2Source *src, const EqSettings *settings, const EqFrame *f,
                      const double *lut)
{
    EqMatrix matrix;
    EqRange range;
    int err;

    memset(src, 0, sizeof(*src));
    src->rgb = eq_frame_is_rgb(f);
    src->gray = f->layout == EQ_LAYOUT_GRAY;
    eq_layout_subsampling(f->layout, &src->ss_x, &src->ss_y);
    for (int c = 0; c < eq_frame_components(f); c++)
        if ((err = eq_frame_plane(f, c, &src->plane[c])) < 0)
            return err;
    eq_resolve_colour(settings, f, &matrix, &range);
    src->yuv = eq_s2_yuv_setup(matrix == EQ_MATRIX_BT601 ? 0 : matrix == EQ_MATRIX_BT2020NC ? 2 : 1,
                               range == EQ_RANGE_FULL, f->bitdepth);
    src->srgb_lut = lut;
    return 0;
}

/* Transfer tables for 8- and 16-bit RGB, built once per process. */
static double *srgb_lut8, *srgb_lut16;
static pthread_once_t srgb_once = PTHREAD_ONCE_INIT;

static void srgb_tables_build(void)
{
    srgb_lut8 = malloc(sizeof(double) << 8);
    srgb_lut16 = malloc(sizeof(double) << 16);
    if (srgb_lut8)
        eq_s2_srgb_lut(srgb_lut8, 8);
    if (srgb_lut16)
        eq_s2_srgb_lut(srgb_lut16, 16);
}

/* ------------------------------------------------------------------ driver */

/*
 * The driver streams rows: no plane of a whole scale is ever held. Each scale
 * is a stage of a pipeline that receives its linear RGB one band of B rows
 * at a time (scale 0 from the frames, scale s > 0 from the downsampling of
 * scale s - 1's bands, two bands of s - 1 making one of s) and keeps only
 * what its next band needs:
 *
 *   lin      the band's linear RGB, 6 x B rows (double)
 *   xyb      XYB in a ring of 2B rows (float): the row blurs read the band,
 *            the terms read rows up to R behind it
 *   hb       the five row-blurred inputs of each channel, rings of 2B rows
 *            (float): the column blur of row n reads rows n - R .. n + R
 *   term     ssim_d and edge_d1 of the band's output rows (double)
 *
 * A band: to linear (scale 0), downsampling into the next scale's band,
 * XYB, row blurs (threads split rows, 8 per job); the column blur of the
 * rows whose last input row is in, then the terms of those rows (threads
 * split columns); then the six sums of each channel over those rows (the
 * three channels at once: different sums). Every value is computed by the
 * same per-pixel code as a whole-plane pass, and each of the 108 sums adds
 * its terms in raster order, band after band.
 */

/* Rows of a band for a pool of `threads`: a multiple of 8 (row stages take
 * 8 rows per job) and at least 16 (the rings hold 2B rows; a band's column
 * blur reads from 2R rows above the band to its last row, B + 2R rows), 16
 * rows per thread (two jobs each) up to 8 threads, then 128. */
static int s2_band_rows(int threads)
{
    int b = 16 * (threads < 2 ? 2 : threads);
    return b > 128 ? 128 : b;
}

typedef struct S2Scale {
    int w, h;
    int band_start;     /* first row of the band being received */
    int rows_in;        /* rows of linear RGB received so far */
    int step;           /* next row of the column blur */
    double *lin[2][3];  /* rows band_start .. rows_in - 1 */
    float *xyb[2][3];   /* row y at (y % 2B) */
    float *hb[3][5];    /* s11, s22, s12, mu1, mu2 inputs; row y at (y % 2B) */
    double *term[3][2]; /* ssim_d, edge_d1 of the band's output rows */
    double *acc[3];     /* the channel's six sums */
} S2Scale;

typedef struct S2Run {
    const EqS2Dsp *dsp;
    EqPool *pool;
    int threads, band, scales;
    const EqS2Source *src[2];
    float **scratch; /* row blur scratch per worker, or NULL */
    float *vout;     /* per worker: 5 planes of (B + R) rows of S2_VCOLS */
    S2Scale sc[EQ_S2_MAX_SCALES];
    /* the band being processed */
    int s, b0, rows, n0, n1, jobs;
} S2Run;

static size_t s2_vout_floats(int band)
{
    return (size_t)5 * (size_t)(band + EQ_S2_BLUR_R) * S2_VCOLS;
}

static size_t s2_scale_doubles(int w, int band)
{
    /* lin 6 B doubles, term 6 (B + R) doubles; xyb 6 x 2B and hb 15 x 2B
     * floats (42 B floats: 21 B doubles) */
    return (size_t)w * ((size_t)6 * band + (size_t)6 * (band + EQ_S2_BLUR_R) +
                        (size_t)21 * band);
}

size_t eq_s2_run_doubles(int w, int h, int threads)
{
    int widths[EQ_S2_MAX_SCALES], heights[EQ_S2_MAX_SCALES];
    int band = s2_band_rows(threads);
    int scales = eq_s2_scale_count(w, h, widths, heights);
    size_t n = (s2_vout_floats(band) * (size_t)(threads < 1 ? 1 : threads) + 1) / 2;
    for (int s = 0; s < scales; s++)
        n += s2_scale_doubles(widths[s], band);
    return n;
}

/* Rows [8 (U j / J), 8 (U (j + 1) / J)) of the band, U = ceil(rows / 8)
 * (even: the downsampling takes row pairs). */
static void s2_rows_job(void *p, int job, int worker)
{
    S2Run *r = p;
    const EqS2Dsp *dsp = r->dsp;
    S2Scale *k = &r->sc[r->s];
    const int w = k->w, units = (r->rows + 7) / 8;
    const int y0 = 8 * (int)((int64_t)units * job / r->jobs);
    const int y1 = imin(r->rows, 8 * (int)((int64_t)units * (job + 1) / r->jobs));
    if (y1 <= y0)
        return;
    const size_t o = (size_t)y0 * w, n = (size_t)(y1 - y0) * w;
    const size_t slot = (size_t)(r->b0 % (2 * r->band)) * w; /* the band is contiguous */
    if (r->s == 0)
        for (int i = 0; i < 2; i++)
            dsp->to_linear(r->src[i], r->b0 + y0, r->b0 + y1, k->lin[i][0] + o, k->lin[i][1] + o,
                           k->lin[i][2] + o);
    if (r->s + 1 < r->scales) {
        S2Scale *nx = &r->sc[r->s + 1];
        size_t no = (size_t)(r->b0 / 2 - nx->band_start) * nx->w;
        for (int i = 0; i < 2; i++)
            for (int c = 0; c < 3; c++)
                dsp->downsample(k->lin[i][c], w, r->rows, nx->lin[i][c] + no, y0 / 2,
                                (y1 + 1) / 2);
    }
    for (int i = 0; i < 2; i++)
        dsp->xyb(k->lin[i][0] + o, k->lin[i][1] + o, k->lin[i][2] + o, k->xyb[i][0] + slot + o,
                 k->xyb[i][1] + slot + o, k->xyb[i][2] + slot + o, n);
    float *scratch = r->scratch ? r->scratch[worker] : NULL;
    for (int c = 0; c < 3; c++) {
        const float *x1 = k->xyb[0][c] + slot, *x2 = k->xyb[1][c] + slot;
        float *const outs[5] = { k->hb[c][0] + slot, k->hb[c][1] + slot, k->hb[c][2] + slot,
                                 k->hb[c][3] + slot, k->hb[c][4] + slot };
        if (dsp->blur_h5) {
            dsp->blur_h5(x1, x2, outs, w, r->rows, y0, y1, scratch);
        } else {
            dsp->blur_h(x1, x1, outs[0], w, r->rows, y0, y1, scratch);
            dsp->blur_h(x2, x2, outs[1], w, r->rows, y0, y1, scratch);
            dsp->blur_h(x1, x2, outs[2], w, r->rows, y0, y1, scratch);
            dsp->blur_h(x1, NULL, outs[3], w, r->rows, y0, y1, scratch);
            dsp->blur_h(x2, NULL, outs[4], w, r->rows, y0, y1, scratch);
        }
    }
}

/* Columns [16 (C j / J), 16 (C (j + 1) / J)), C = ceil(w / 16): rows
 * n0 .. n1 - 1 of the fifteen planes' column blurs, then the terms of those
 * rows on those columns. */
static void s2_cols_job(void *p, int job, int worker)
{
    S2Run *r = p;
    const EqS2Dsp *dsp = r->dsp;
    S2Scale *k = &r->sc[r->s];
    const int w = k->w, ring = 2 * r->band, blocks = (w + 15) / 16;
    const int x0 = 16 * (int)((int64_t)blocks * job / r->jobs);
    const int x1 = imin(w, 16 * (int)((int64_t)blocks * (job + 1) / r->jobs));
    const int o0 = r->n0;
    const size_t plane = (size_t)(r->band + EQ_S2_BLUR_R) * S2_VCOLS;
    float *v = r->vout + (size_t)worker * s2_vout_floats(r->band);
    for (int xc = x0; xc < x1; xc += S2_VCOLS) {
        int cc = imin(S2_VCOLS, x1 - xc);
        for (int c = 0; c < 3; c++) {
            for (int q = 0; q < 5; q++)
                dsp->blur_v_rows(k->hb[c][q], ring, w, k->h, r->n0, r->n1, xc, xc + cc,
                                 v + q * plane, S2_VCOLS);
            for (int n = o0; n < r->n1; n++) {
                size_t xo = (size_t)(n % ring) * w + xc, vo = (size_t)(n - o0) * S2_VCOLS;
                size_t to = (size_t)(n - o0) * w + xc;
                dsp->terms(k->xyb[0][c] + xo, k->xyb[1][c] + xo, v + 3 * plane + vo,
                           v + 4 * plane + vo, v + vo, v + plane + vo, v + 2 * plane + vo,
                           k->term[c][0] + to, k->term[c][1] + to, (size_t)cc);
            }
        }
    }
}

/* The six sums of channel `job` over the band's output rows, in raster order. */
static void s2_sums_job(void *p, int job, int worker)
{
    (void)worker;
    S2Run *r = p;
    S2Scale *k = &r->sc[r->s];
    r->dsp->sums(k->term[job][0], k->term[job][1], (size_t)(r->n1 - r->n0) * k->w, k->acc[job]);
}

/* Jobs for `units` independent units of `pixels` work in all: one below
 * 8192 pixels (about half a millisecond of work, where a pool hand-off
 * starts to cost a noticeable share), else up to two per thread. */
static int s2_jobs(const S2Run *r, int units, size_t pixels)
{
    int j = r->threads > 1 && pixels >= 8192 ? 2 * r->threads : 1;
    return j < units ? j : units > 0 ? units : 1;
}

/* Scale s has received a full band of B rows, or its last rows. */
static void s2_band(S2Run *r, int s)
{
    S2Scale *k = &r->sc[s];
    const int last = k->rows_in == k->h;
    r->s = s;
    r->b0 = k->band_start;
    r->rows = k->rows_in - k->band_start;
    r->jobs = s2_jobs(r, (r->rows + 7) / 8, (size_t)r->rows * k->w);
    eq_pool_run(r->pool, r->jobs, s2_rows_job, r);
    if (s + 1 < r->scales)
        r->sc[s + 1].rows_in = (k->rows_in + 1) / 2;
    /* Rows of the column blur whose last input row n + R is in (all at the
     * end). */
    r->n0 = k->step;
    r->n1 = last ? k->h : k->rows_in - EQ_S2_BLUR_R;
    if (r->n1 > r->n0) {
        size_t outs = (size_t)(r->n1 - r->n0) * k->w;
        r->jobs = s2_jobs(r, (k->w + 15) / 16, outs);
        eq_pool_run(r->pool, r->jobs, s2_cols_job, r);
        if (s2_jobs(r, 3, outs) > 1)
            eq_pool_run(r->pool, 3, s2_sums_job, r);
        else
            for (int c = 0; c < 3; c++)
                s2_sums_job(r, c, 0);
        k->step = r->n1;
    }
    k->band_start = k->rows_in;
    if (s + 1 < r->scales) {
        S2Scale *nx = &r->sc[s + 1];
        if (nx->rows_in - nx->band_start == r->band || nx->rows_in == nx->h)
            s2_band(r, s + 1);
    }
}

size_t eq_s2_work_bytes(int w, int h, int threads)
{
    int t = threads < 1 ? 1 : threads;
    return sizeof(double) * eq_s2_run_doubles(w, h, t) +
           (size_t)t * sizeof(float) * eq_s2_blur_scratch_floats(w);
}

int eq_s2_run(const EqS2Dsp *dsp, EqPool *pool, double *mem, float **scratch, const EqLog *log,
              const EqS2Source *ref, const EqS2Source *dist, EqScores *out)
{
    int widths[EQ_S2_MAX_SCALES], heights[EQ_S2_MAX_SCALES];
    S2Run r;

    int W = ref->plane[0].width, H = ref->plane[0].height;
    int scales = eq_s2_scale_count(W, H, widths, heights);
    if (scales == 0) {
        eq_log(log, EQ_LOG_ERROR,
               "ssimulacra2: the frame is %dx%d, and SSIMULACRA2 needs at least %dx%d pixels",
               W, H, EQ_S2_MIN_SIZE, EQ_S2_MIN_SIZE);
        return EQ_ERR_TOO_SMALL;
    }

    double sums[EQ_SSIMULACRA2_SUMS];
    memset(sums, 0, sizeof(sums));
    memset(&r, 0, sizeof(r));
    r.dsp = dsp;
    r.pool = pool;
    r.threads = pool ? eq_pool_threads(pool) : 1;
    r.band = s2_band_rows(r.threads);
    r.scales = scales;
    r.src[0] = ref;
    r.src[1] = dist;
    r.scratch = scratch;

    /* mem: eq_s2_run_doubles(W, H, threads), carved as that function counts. */
    const size_t B = (size_t)r.band, T = (size_t)(r.band + EQ_S2_BLUR_R);
    double *p = mem;
    r.vout = (float *)p;
    p += (s2_vout_floats(r.band) * (size_t)r.threads + 1) / 2;
    for (int s = 0; s < scales; s++) {
        S2Scale *k = &r.sc[s];
        const size_t w = (size_t)widths[s];
        k->w = widths[s];
        k->h = heights[s];
        k->step = 0;
        for (int i = 0; i < 2; i++)
            for (int c = 0; c < 3; c++)
                k->lin[i][c] = p, p += B * w;
        for (int c = 0; c < 3; c++) {
            k->term[c][0] = p, p += T * w;
            k->term[c][1] = p, p += T * w;
            k->acc[c] = &sums[eq_s2_sum_index(s, c, 0)];
        }
        float *f = (float *)p;
        for (int i = 0; i < 2; i++)
            for (int c = 0; c < 3; c++)
                k->xyb[i][c] = f, f += 2 * B * w;
        for (int c = 0; c < 3; c++)
            for (int q = 0; q < 5; q++)
                k->hb[c][q] = f, f += 2 * B * w;
        p += 21 * B * w;
    }

    for (int b0 = 0; b0 < H; b0 += r.band) {
        r.sc[0].rows_in = imin(H, b0 + r.band);
        s2_band(&r, 0);
    }

    out->ssimulacra2 = eq_s2_score_from_sums(sums, scales, widths, heights);
    out->ssimulacra2_scales = scales;
    memcpy(out->ssimulacra2_sums, sums, sizeof(sums));
    return 0;
}

/* Work buffers kept between frames (eq_s2_run_doubles). */
struct EqCpuS2State {
    size_t cap;       /* doubles */
    double *mem;
    int workers;
    float **scratch;  /* one blur scratch per pool worker, for width `sw` */
    int sw;
};

int eq_cpu_ssimulacra2(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out)
{
    EqS2Source src[2];
    EqS2Dsp dsp;
    const double *lut = NULL;
    int err;

    if (ref->width < EQ_S2_MIN_SIZE || ref->height < EQ_S2_MIN_SIZE) {
        eq_log(&cpu->log, EQ_LOG_ERROR,
               "ssimulacra2: the frame is %dx%d, and SSIMULACRA2 needs at least %dx%d pixels",
               ref->width, ref->height, EQ_S2_MIN_SIZE, EQ_S2_MIN_SIZE);
        return EQ_ERR_TOO_SMALL;
    }
    if (eq_frame_is_rgb(ref)) {
        pthread_once(&srgb_once, srgb_tables_build);
        lut = ref->bitdepth == 8 ? srgb_lut8 : srgb_lut16;
        if (!lut) {
            eq_log(&cpu->log, EQ_LOG_ERROR, "ssimulacra2: out of memory for the sRGB table");
            return EQ_ERR_NO_MEMORY;
        }
    }
    if ((err = eq_s2_source_init(&src[0], &cpu->settings, ref, lut)) < 0 ||
        (err = eq_s2_source_init(&src[1], &cpu->settings, dist, lut)) < 0) {
        eq_log(&cpu->log, EQ_LOG_ERROR, "ssimulacra2: cannot read the frame's planes");
        return err;
    }
    int workers = eq_pool_threads(cpu->pool);
    size_t doubles = eq_s2_run_doubles(ref->width, ref->height, workers);
    struct EqCpuS2State *st = cpu->ssimulacra2;
    if (!st || st->cap < doubles || st->sw < ref->width) {
        eq_cpu_ssimulacra2_free(cpu);
        st = calloc(1, sizeof(*st));
        int ok = st != NULL;
        if (ok) {
            cpu->ssimulacra2 = st;
            st->mem = malloc(sizeof(double) * doubles);
            st->scratch = calloc((size_t)workers, sizeof(float *));
            ok = st->mem && st->scratch;
            st->workers = workers;
            for (int i = 0; ok && i < workers; i++)
                ok = (st->scratch[i] =
                          malloc(sizeof(float) * eq_s2_blur_scratch_floats(ref->width))) != NULL;
        }
        size_t bytes = eq_s2_work_bytes(ref->width, ref->height, workers);
        if (!ok) {
            eq_cpu_ssimulacra2_free(cpu);
            eq_log(&cpu->log, EQ_LOG_ERROR,
                   "ssimulacra2: out of memory for a %dx%d frame (%zu MB of work buffers)",
                   ref->width, ref->height, bytes >> 20);
            return EQ_ERR_NO_MEMORY;
        }
        st->cap = doubles;
        st->sw = ref->width;
        eq_log(&cpu->log, EQ_LOG_DEBUG,
               "ssimulacra2: %zu bytes (%.1f MB) of work buffers for %dx%d on %d threads, "
               "kept until the scorer closes or a wider frame comes",
               bytes, (double)bytes / 1048576.0, ref->width, ref->height, workers);
    }
    eq_s2_dsp_init_c(&dsp);
    return eq_s2_run(&dsp, cpu->pool, st->mem, st->scratch, &cpu->log, &src[0], &src[1], out);
}

void eq_cpu_ssimulacra2_free(EqCpu *cpu)
{
    struct EqCpuS2State *st = cpu->ssimulacra2;
    if (!st)
        return;
    for (int i = 0; st->scratch && i < st->workers; i++)
        free(st->scratch[i]);
    free(st->scratch);
    free(st->mem);
    free(st);
    cpu->ssimulacra2 = NULL;
}
