/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIMULACRA 2.1 as a table of stages (dav1d style): each stage has a C
 * reference `_c`; a backend (threads here, CUDA kernels elsewhere) must give
 * the same bits stage by stage. The per-pixel formulas live in
 * lib/exact/ssimulacra2.h; this header fixes the planes, the loops and the
 * order of the 108 sums.
 *
 * Planes are w x h, row stride w (no padding): linear RGB and the per-pixel
 * terms double, XYB and the blurs float. Row ranges [y0, y1) (columns
 * [x0, x1) for the vertical blur) let a caller split a stage across
 * threads; any split gives the same bits because every output depends only
 * on its own inputs (a blurred value on its 9 neighbours in the line). The
 * sums are the exception: each one is a sequential double sum in raster
 * order.
 */
#ifndef EQ_CPU_SSIMULACRA2_H
#define EQ_CPU_SSIMULACRA2_H

#include <stddef.h>

#include "internal.h"
#include "cpu/pool.h"
#include "exact/ssimulacra2.h"

/* How a frame's samples become linear RGB: layout, geometry, lookup tables. */
typedef struct EqS2Source {
    EqPlane plane[3];       /* R, G, B or Y, Cb, Cr (GRAY: plane[0] only) */
    int rgb;                /* 1: packed RGB, sRGB transfer */
    int gray;               /* 1: one plane */
    int ss_x, ss_y;         /* chroma subsampling shifts */
    EqS2Yuv yuv;            /* matrix and range for YUV */
    const double *srgb_lut; /* RGB: linear value of each code, 2^bitdepth entries */
} EqS2Source;

typedef struct EqS2Dsp {
    /* Frame rows [y0, y1) to linear R, G, B rows: frame row y goes to row
     * y - y0 of r, g, b (w doubles each). */
    void (*to_linear)(const EqS2Source *src, int y0, int y1, double *r, double *g,
                      double *b);
    /* Output rows [y0, y1) of the 2x2 box downsampling of a w x h plane into
     * a ((w+1)/2) x ((h+1)/2) plane (eq_s2_box4, edge samples repeated). */
    void (*downsample)(const double *in, int w, int h, double *out, int y0, int y1);
    /* n pixels of linear R, G, B to X', Y', B' (eq_s2_xyb_f: computed in
     * double, stored as float). */
    void (*xyb)(const double *r, const double *g, const double *b, float *x, float *y,
                float *bo, size_t n);
    /* Rows [y0, y1): the blur along each row (eq_s2_fir9, zero outside
     * [0, w)) of a[i], or of a[i] * b[i] (eq_s2_blur_input) when b is not
     * NULL. `scratch`: eq_s2_blur_scratch_floats(w) floats, or NULL (then
     * each output reads its nine inputs directly; the same bits). */
    void (*blur_h)(const float *a, const float *b, float *out, int w, int h, int y0, int y1,
                   float *scratch);
    /* Optional (may be NULL): the five row blurs of one channel at once,
     * out[] = s11, s22, s12, mu1, mu2 inputs, i.e. blur_h of (x1, x1),
     * (x2, x2), (x1, x2), (x1, NULL), (x2, NULL) with the same bits. */
    void (*blur_h5)(const float *x1, const float *x2, float *const out[5], int w, int h,
                    int y0, int y1, float *scratch);
    /* Columns [x0, x1), rows n0 .. n1 - 1 (0 <= n0 <= n1 <= h) of the blur
     * down each column (eq_s2_fir9, zero outside rows [0, h)). Input row y
     * is at in + (y % ring) * w (ring >= h: a whole plane; the rows
     * n0 - R .. n1 - 1 + R that lie in [0, h) must be there); output row n
     * at out + (n - n0) * out_stride + (x - x0). */
    void (*blur_v_rows)(const float *in, int ring, int w, int h, int n0, int n1, int x0,
                        int x1, float *out, size_t out_stride);
    /* n pixels: ssim_d[i] = eq_s2_ssim_d, edge_d1[i] = eq_s2_edge_d1 (XYB and
     * the blurred values widened to double). */
    void (*terms)(const float *x1, const float *x2, const float *mu1, const float *mu2,
                  const float *s11, const float *s22, const float *s12, double *ssim_d,
                  double *edge_d1, size_t n);
    /* The six sums of one channel of one scale, each a sequential double sum
     * over i = 0..n-1 (raster order), continuing from acc[EQ_S2_SUM_*] (0.0
     * at a plane's start): a plane summed in row order, one call per row or
     * band of rows, gives the same bits as one call. eq_s2_run calls it once
     * per band of rows and channel, channels interleaved (and scales: the
     * scales are streamed together), and on a pool the three channels of a
     * band at the same time (different acc). */
    void (*sums)(const double *ssim_d, const double *edge_d1, size_t n, double acc[6]);
} EqS2Dsp;

/* The C reference stages. */
void eq_s2_dsp_init_c(EqS2Dsp *dsp);

void eq_s2_to_linear_c(const EqS2Source *src, int y0, int y1, double *r, double *g, double *b);
void eq_s2_downsample_c(const double *in, int w, int h, double *out, int y0, int y1);
void eq_s2_xyb_c(const double *r, const double *g, const double *b, float *x, float *y,
                 float *bo, size_t n);
void eq_s2_blur_h_c(const float *a, const float *b, float *out, int w, int h, int y0, int y1,
                    float *scratch);
void eq_s2_blur_h5_c(const float *x1, const float *x2, float *const out[5], int w, int h,
                     int y0, int y1, float *scratch);
void eq_s2_blur_v_rows_c(const float *in, int ring, int w, int h, int n0, int n1, int x0,
                         int x1, float *out, size_t out_stride);
/* Columns [x0, x1) of a whole w x h plane: eq_s2_blur_v_rows_c over all
 * rows. */
void eq_s2_blur_v_c(const float *in, float *out, int w, int h, int x0, int x1);
/* Floats of the row blurs' scratch for rows of w (five padded rows). */
size_t eq_s2_blur_scratch_floats(int w);
void eq_s2_terms_c(const float *x1, const float *x2, const float *mu1, const float *mu2,
                   const float *s11, const float *s22, const float *s12, double *ssim_d,
                   double *edge_d1, size_t n);
void eq_s2_sums_c(const double *ssim_d, const double *edge_d1, size_t n, double acc[6]);

/*
 * Fills `src` for one frame: planes, colour (eq_resolve_colour), and for RGB
 * the transfer table `lut` (2^bitdepth doubles, filled by eq_s2_srgb_lut).
 */
int eq_s2_source_init(EqS2Source *src, const EqSettings *settings, const EqFrame *f,
                      const double *lut);
/* lut[i] = eq_pm_srgb_to_linear(i / (2^bitdepth - 1)), 2^bitdepth entries. */
void eq_s2_srgb_lut(double *lut, int bitdepth);

/*
 * Number of scales libjxl scores for a w x h image (>= 8x8): scale s > 0 is
 * scored when scale s - 1 is at least 8x8. Fills the sizes of each scale.
 */
int eq_s2_scale_count(int w, int h, int widths[EQ_S2_MAX_SCALES],
                      int heights[EQ_S2_MAX_SCALES]);

/*
 * The final score from the raw sums (host only; both backends end here):
 * per-scale means (sum / (w h)) and 4-norms ((sum4 / (w h))^(1/4)), the 108
 * weights, the polynomial and 100 - 10 S^0.6276... (libjxl Msssim::Score).
 */
double eq_s2_score_from_sums(const double sums[EQ_SSIMULACRA2_SUMS], int scales,
                             const int widths[EQ_S2_MAX_SCALES],
                             const int heights[EQ_S2_MAX_SCALES]);

/*
 * Scores one pair with the stages of `dsp`, split over `pool` (NULL: on the
 * calling thread only), in `mem` (eq_s2_run_doubles(w, h, threads) doubles,
 * threads = eq_pool_threads(pool), 1 without a pool), with `scratch` (NULL,
 * or one eq_s2_blur_scratch_floats(w) buffer per pool worker) for the row
 * blur: fills out->ssimulacra2, ssimulacra2_scales and ssimulacra2_sums.
 * The frames are at least 8x8 (else EQ_ERR_TOO_SMALL, logged).
 *
 * Rows stream through all scales in bands of B = 16 max(threads, 2) rows
 * (at most 128), so no plane of a whole scale is held and mem does not grow
 * with h: about (264 B + 192) bytes per column per scale, i.e. about
 * 2 w (264 B + 192) bytes for all scales, plus 5 (B + 4) kB per thread;
 * 142 MB for w = 8192 on 2 threads (docs/ssimulacra2.md, "Memory").
 */
size_t eq_s2_run_doubles(int w, int h, int threads);
/* What the CPU backend's scorer holds for SSIMULACRA2 at w x h on `threads`:
 * mem and one row-blur scratch per thread, in bytes. Logged (EQ_LOG_DEBUG)
 * when the scorer allocates it. */
size_t eq_s2_work_bytes(int w, int h, int threads);
int eq_s2_run(const EqS2Dsp *dsp, EqPool *pool, double *mem, float **scratch,
              const EqLog *log, const EqS2Source *ref, const EqS2Source *dist, EqScores *out);

/* The 108 weights in libjxl's order (channel, scale, norm, map). */
extern const double eq_s2_weights[108];

#endif /* EQ_CPU_SSIMULACRA2_H */
