/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIMULACRA 2.1, the CPU reference. The definition (libjxl
 * tools/ssimulacra2.cc at aea3a06e281fdee13e04815bfbf4f4132e7f59ea, restated
 * in double with a fixed order; docs/ssimulacra2.md) is in the per-pixel
 * functions of lib/exact/ssimulacra2.h; this file holds the C stages, the
 * driver that runs them over the scales, and the host-only final score.
 *
 * Threads (EqCpu.threads) split the per-pixel stages by rows; every output
 * depends only on its inputs, so the bits do not depend on the split. The
 * sums run on one thread each, in raster order.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/ssimulacra2.h"

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
        lut[i] = eq_pm_srgb_to_linear((double)i / maxv);
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
    if (!src->ss_x && !src->ss_y)
        return (double)eq_plane_sample(p, x, y);
    int cx = x >> src->ss_x;
    int bx = (src->ss_x && (x & 1)) ? imin(cx + 1, p->width - 1) : cx;
    if (!src->ss_y) {
        return eq_s2_chroma_h(eq_plane_sample(p, cx, y), eq_plane_sample(p, bx, y),
                              src->ss_x && (x & 1));
    }
    int cy = y >> 1;
    int ny = (y & 1) ? imin(cy + 1, p->height - 1) : imax(cy - 1, 0);
    return eq_s2_chroma_hv(eq_plane_sample(p, cx, cy), eq_plane_sample(p, bx, cy),
                           eq_plane_sample(p, cx, ny), eq_plane_sample(p, bx, ny));
}

void eq_s2_to_linear_c(const EqS2Source *src, int y0, int y1, double *r, double *g, double *b)
{
    int w = src->plane[0].width;
    for (int y = y0; y < y1; y++) {
        double *ro = r + (size_t)y * w, *go = g + (size_t)y * w, *bo = b + (size_t)y * w;
        if (src->rgb) {
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

void eq_s2_downsample_c(const double *in, int w, int h, double *out, int y0, int y1)
{
    int ow = (w + 1) / 2;
    for (int oy = y0; oy < y1; oy++) {
        const double *ra = in + (size_t)(2 * oy) * w;
        const double *rb = in + (size_t)imin(2 * oy + 1, h - 1) * w;
        double *o = out + (size_t)oy * ow;
        for (int ox = 0; ox < ow; ox++) {
            int xa = 2 * ox, xb = imin(2 * ox + 1, w - 1);
            o[ox] = eq_s2_box4(ra[xa], ra[xb], rb[xa], rb[xb]);
        }
    }
}

void eq_s2_xyb_c(const double *r, const double *g, const double *b, double *x, double *y,
                 double *bo, size_t n)
{
    for (size_t i = 0; i < n; i++)
        eq_s2_xyb(r[i], g[i], b[i], &x[i], &y[i], &bo[i]);
}

void eq_s2_mul_c(const double *a, const double *b, double *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = a[i] * b[i];
}

void eq_s2_blur_h_c(const double *in, double *out, int w, int h, int y0, int y1)
{
    (void)h;
    const int N = EQ_S2_RG_RADIUS;
    for (int y = y0; y < y1; y++) {
        const double *s = in + (size_t)y * w;
        double *o = out + (size_t)y * w;
        float p1 = 0, p3 = 0, p5 = 0, pp1 = 0, pp3 = 0, pp5 = 0;
        for (int n = -N + 1; n < w; n++) {
            int l = n - N - 1, r = n + N - 1;
            float left = l >= 0 ? (float)s[l] : 0.0f;
            float right = r < w ? (float)s[r] : 0.0f;
            float v = eq_s2_rg_step(&p1, &p3, &p5, &pp1, &pp3, &pp5, left, right);
            if (n >= 0)
                o[n] = v;
        }
    }
}

#define S2_VCHUNK 64

void eq_s2_blur_v_c(const double *in, double *out, int w, int h, int x0, int x1)
{
    const int N = EQ_S2_RG_RADIUS;
    float p1[S2_VCHUNK], p3[S2_VCHUNK], p5[S2_VCHUNK];
    float pp1[S2_VCHUNK], pp3[S2_VCHUNK], pp5[S2_VCHUNK];

    /* Columns in chunks, each column its own recursion down the rows. */
    for (int xc = x0; xc < x1; xc += S2_VCHUNK) {
        int cw = imin(S2_VCHUNK, x1 - xc);
        for (int i = 0; i < cw; i++)
            p1[i] = p3[i] = p5[i] = pp1[i] = pp3[i] = pp5[i] = 0.0f;
        for (int n = -N + 1; n < h; n++) {
            int l = n - N - 1, r = n + N - 1;
            const double *rl = l >= 0 ? in + (size_t)l * w + xc : NULL;
            const double *rr = r < h ? in + (size_t)r * w + xc : NULL;
            double *o = n >= 0 ? out + (size_t)n * w + xc : NULL;
            for (int i = 0; i < cw; i++) {
                float left = rl ? (float)rl[i] : 0.0f;
                float right = rr ? (float)rr[i] : 0.0f;
                float v = eq_s2_rg_step(&p1[i], &p3[i], &p5[i], &pp1[i], &pp3[i], &pp5[i], left,
                                        right);
                if (o)
                    o[i] = v;
            }
        }
    }
}

/* Input at x of a row, 0 outside [0, w). */
static inline double at(const double *row, int x, int w)
{
    return x >= 0 && x < w ? row[x] : 0.0;
}

void eq_s2_blur_h_f64_c(const double *in, double *out, int w, int h, int y0, int y1)
{
    (void)h;
    for (int y = y0; y < y1; y++) {
        const double *s = in + (size_t)y * w;
        double *o = out + (size_t)y * w;
        for (int x = 0; x < w; x++)
            o[x] = eq_s2_blur9(at(s, x - 4, w), at(s, x - 3, w), at(s, x - 2, w),
                               at(s, x - 1, w), s[x], at(s, x + 1, w), at(s, x + 2, w),
                               at(s, x + 3, w), at(s, x + 4, w));
    }
}

void eq_s2_blur_v_f64_c(const double *in, double *out, int w, int h, int x0, int x1)
{
    for (int y = 0; y < h; y++) {
        double v[9];
        for (int x = x0; x < x1; x++) {
            for (int t = -4; t <= 4; t++)
                v[t + 4] = y + t >= 0 && y + t < h ? in[(size_t)(y + t) * w + x] : 0.0;
            out[(size_t)y * w + x] =
                eq_s2_blur9(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
        }
    }
}

void eq_s2_terms_c(const double *x1, const double *x2, const double *mu1, const double *mu2,
                   const double *s11, const double *s22, const double *s12, double *ssim_d,
                   double *edge_d1, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ssim_d[i] = eq_s2_ssim_d(mu1[i], mu2[i], s11[i], s22[i], s12[i]);
        edge_d1[i] = eq_s2_edge_d1(x1[i], mu1[i], x2[i], mu2[i]);
    }
}

void eq_s2_sums_c(const double *ssim_d, const double *edge_d1, size_t n, double out[6])
{
    /* Six sequential double sums in raster order; each accumulator adds its
     * own term of pixel i after that of pixel i - 1 (no reassociation). */
    double sum_d = 0.0, sum_d4 = 0.0;
    double sum_artifact = 0.0, sum_artifact4 = 0.0;
    double sum_detail = 0.0, sum_detail4 = 0.0;
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
    out[EQ_S2_SUM_D] = sum_d;
    out[EQ_S2_SUM_D4] = sum_d4;
    out[EQ_S2_SUM_ARTIFACT] = sum_artifact;
    out[EQ_S2_SUM_ARTIFACT4] = sum_artifact4;
    out[EQ_S2_SUM_DETAIL] = sum_detail;
    out[EQ_S2_SUM_DETAIL4] = sum_detail4;
}

void eq_s2_dsp_init_c(EqS2Dsp *dsp)
{
    dsp->to_linear = eq_s2_to_linear_c;
    dsp->downsample = eq_s2_downsample_c;
    dsp->xyb = eq_s2_xyb_c;
    dsp->mul = eq_s2_mul_c;
    dsp->blur_h = eq_s2_blur_h_c;
    dsp->blur_v = eq_s2_blur_v_c;
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

/* ----------------------------------------------------------------- threads */

typedef void (*RowFn)(void *ctx, int y0, int y1);

typedef struct RowJob {
    RowFn fn;
    void *ctx;
    int y0, y1;
} RowJob;

static void *row_job_main(void *arg)
{
    RowJob *j = arg;
    j->fn(j->ctx, j->y0, j->y1);
    return NULL;
}

#define S2_MAX_THREADS 64

/* Runs fn over rows [0, h) split into up to `threads` bands. The split does
 * not change any output: each row is computed by the same code. */
static void run_rows(int threads, int h, RowFn fn, void *ctx)
{
    pthread_t tid[S2_MAX_THREADS];
    RowJob job[S2_MAX_THREADS];
    int started[S2_MAX_THREADS];

    if (threads > S2_MAX_THREADS)
        threads = S2_MAX_THREADS;
    if (threads > h / 16)
        threads = h / 16;
    if (threads <= 1) {
        fn(ctx, 0, h);
        return;
    }
    for (int t = 0; t < threads; t++) {
        job[t].fn = fn;
        job[t].ctx = ctx;
        job[t].y0 = (int)((int64_t)h * t / threads);
        job[t].y1 = (int)((int64_t)h * (t + 1) / threads);
    }
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&tid[t], NULL, row_job_main, &job[t]) == 0;
    fn(ctx, job[0].y0, job[0].y1);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            fn(ctx, job[t].y0, job[t].y1); /* no thread: do it here */
    }
}

/* ------------------------------------------------------------------ driver */

typedef struct S2Ctx {
    const EqS2Dsp *dsp;
    int w, h;
    const EqS2Source *src[2];
    double *lin[2][3];  /* linear RGB of the current scale */
    double *next[2][3]; /* linear RGB of the next scale */
    double *xyb[2][3];
    double *prod, *tmp, *s11, *s22, *s12, *mu1, *mu2;
    int c; /* channel of the per-channel stages */
} S2Ctx;

static void rows_to_linear(void *p, int y0, int y1)
{
    S2Ctx *k = p;
    for (int i = 0; i < 2; i++)
        k->dsp->to_linear(k->src[i], y0, y1, k->lin[i][0], k->lin[i][1], k->lin[i][2]);
}

static void rows_downsample(void *p, int y0, int y1)
{
    S2Ctx *k = p;
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 3; c++)
            k->dsp->downsample(k->lin[i][c], k->w, k->h, k->next[i][c], y0, y1);
}

static void rows_xyb(void *p, int y0, int y1)
{
    S2Ctx *k = p;
    size_t o = (size_t)y0 * k->w, n = (size_t)(y1 - y0) * k->w;
    for (int i = 0; i < 2; i++)
        k->dsp->xyb(k->lin[i][0] + o, k->lin[i][1] + o, k->lin[i][2] + o, k->xyb[i][0] + o,
                    k->xyb[i][1] + o, k->xyb[i][2] + o, n);
}

/* The five blurred planes of channel c: one band of rows of the horizontal
 * pass for each, into `tmp`-like planes. To keep the bands independent, the
 * horizontal pass writes five planes (prod holds products per band). */
typedef struct BlurJob {
    S2Ctx *k;
    const double *a, *b; /* blur of a * b, or of a when b is NULL */
    double *out;
} BlurJob;

static void rows_blur_h(void *p, int y0, int y1)
{
    BlurJob *j = p;
    S2Ctx *k = j->k;
    size_t o = (size_t)y0 * k->w, n = (size_t)(y1 - y0) * k->w;
    const double *in = j->a;
    if (j->b) {
        k->dsp->mul(j->a + o, j->b + o, k->prod + o, n);
        in = k->prod;
    }
    k->dsp->blur_h(in, k->tmp, k->w, k->h, y0, y1);
}

static void cols_blur_v(void *p, int x0, int x1)
{
    BlurJob *j = p;
    j->k->dsp->blur_v(j->k->tmp, j->out, j->k->w, j->k->h, x0, x1);
}

static void rows_terms(void *p, int y0, int y1)
{
    S2Ctx *k = p;
    size_t o = (size_t)y0 * k->w, n = (size_t)(y1 - y0) * k->w;
    int c = k->c;
    /* ssim_d into prod, edge_d1 into tmp (both free by now). */
    k->dsp->terms(k->xyb[0][c] + o, k->xyb[1][c] + o, k->mu1 + o, k->mu2 + o, k->s11 + o,
                  k->s22 + o, k->s12 + o, k->prod + o, k->tmp + o, n);
}

static void blur(S2Ctx *k, int threads, const double *a, const double *b, double *out)
{
    BlurJob j = { k, a, b, out };
    run_rows(threads, k->h, rows_blur_h, &j);
    run_rows(threads, k->w, cols_blur_v, &j);
}

int eq_s2_run(const EqS2Dsp *dsp, int threads, const EqLog *log, const EqS2Source *ref,
              const EqS2Source *dist, EqScores *out)
{
    int widths[EQ_S2_MAX_SCALES], heights[EQ_S2_MAX_SCALES];
    S2Ctx k;
    double *mem = NULL;
    int scales;

    int W = ref->plane[0].width, H = ref->plane[0].height;
    scales = eq_s2_scale_count(W, H, widths, heights);
    if (scales == 0) {
        eq_log(log, EQ_LOG_ERROR,
               "ssimulacra2: the frame is %dx%d, and SSIMULACRA2 needs at least %dx%d pixels",
               W, H, EQ_S2_MIN_SIZE, EQ_S2_MIN_SIZE);
        return EQ_ERR_TOO_SMALL;
    }

    /* Planes: 6 linear + 6 next (a quarter) + 6 XYB + 7 work, w x h each. */
    size_t n0 = (size_t)W * H;
    size_t nq = (size_t)((W + 1) / 2) * ((H + 1) / 2);
    size_t bytes = sizeof(double) * (19 * n0 + 6 * nq);
    mem = malloc(bytes);
    if (!mem) {
        eq_log(log, EQ_LOG_ERROR, "ssimulacra2: out of memory for a %dx%d frame (%zu MB of planes)",
               W, H, bytes >> 20);
        return EQ_ERR_NO_MEMORY;
    }
    memset(&k, 0, sizeof(k));
    k.dsp = dsp;
    k.src[0] = ref;
    k.src[1] = dist;
    double *p = mem;
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 3; c++) {
            k.lin[i][c] = p, p += n0;
            k.xyb[i][c] = p, p += n0;
            k.next[i][c] = p, p += nq;
        }
    k.prod = p, p += n0;
    k.tmp = p, p += n0;
    k.s11 = p, p += n0;
    k.s22 = p, p += n0;
    k.s12 = p, p += n0;
    k.mu1 = p, p += n0;
    k.mu2 = p, p += n0;

    k.w = W;
    k.h = H;
    run_rows(threads, H, rows_to_linear, &k);

    double sums[EQ_SSIMULACRA2_SUMS];
    memset(sums, 0, sizeof(sums));
    for (int s = 0; s < scales; s++) {
        if (s > 0) {
            int nw = widths[s], nh = heights[s];
            run_rows(threads, nh, rows_downsample, &k);
            for (int i = 0; i < 2; i++)
                for (int c = 0; c < 3; c++) {
                    double *t = k.lin[i][c];
                    k.lin[i][c] = k.next[i][c];
                    k.next[i][c] = t;
                }
            k.w = nw;
            k.h = nh;
        }
        run_rows(threads, k.h, rows_xyb, &k);
        for (int c = 0; c < 3; c++) {
            blur(&k, threads, k.xyb[0][c], k.xyb[0][c], k.s11);
            blur(&k, threads, k.xyb[1][c], k.xyb[1][c], k.s22);
            blur(&k, threads, k.xyb[0][c], k.xyb[1][c], k.s12);
            blur(&k, threads, k.xyb[0][c], NULL, k.mu1);
            blur(&k, threads, k.xyb[1][c], NULL, k.mu2);
            k.c = c;
            run_rows(threads, k.h, rows_terms, &k);
            dsp->sums(k.prod, k.tmp, (size_t)k.w * k.h, &sums[eq_s2_sum_index(s, c, 0)]);
        }
    }

    out->ssimulacra2 = eq_s2_score_from_sums(sums, scales, widths, heights);
    out->ssimulacra2_scales = scales;
    memcpy(out->ssimulacra2_sums, sums, sizeof(sums));
    free(mem);
    return 0;
}

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
    eq_s2_dsp_init_c(&dsp);
    return eq_s2_run(&dsp, cpu->threads, &cpu->log, &src[0], &src[1], out);
}
