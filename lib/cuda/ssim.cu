/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * float_ssim on the device, and the SSIM stages float_ms_ssim shares
 * (lib/cuda/ssim.cuh). The reference is the stage table of lib/cpu/ssim.h
 * (libvmaf 3.2.0 iqa/ssim_tools.c _iqa_ssim); every formula, tap table and
 * size rule comes from lib/exact/ssim_terms.h, so each stage produces the
 * C stage's floats and doubles bit for bit:
 *
 *   to_float     one thread per sample (eq_ssim_sample)
 *   box          one thread per output: factor^2 taps, rows outer, mirrored
 *                (eq_ssim_box_decimate_c's order)
 *   terms        one block per 32x32 tile of windows: the tile's 42x42
 *                inputs in shared memory; the five maps (ref, dist, ref^2,
 *                dist^2, ref*dist) blurred along rows (11 taps from 0.0,
 *                rounded to float, as eq_ssim_blur_h_c) into shared memory,
 *                then down columns (eq_ssim_blur_v_c), moments and the
 *                window terms (eq_ssim_window, eq_ssim_lcs). Each window's
 *                l, c, (double)s and l*c*s land at its raster index.
 *   sums         the ordered-sum engine: l, c, s, lcs each in raster order,
 *                the bits of eq_ssim_frame_sums_c's loop.
 * The means, their float rounding and the published values come from the
 * CPU's host finish (eq_ssim_finish, lib/finish.c).
 */
#include "cuda/ssim.cuh"
extern "C" {
#include "finish.h"
}

static __constant__ float c_gauss[EQ_SSIM_GAUSS_LEN] = EQ_SSIM_GAUSS_TAPS;

/* ---------------------------------------------------------------- stages */

__global__ void ssim_to_float_kernel(EqcPlane r, EqcPlane d, int bitdepth, float *dr,
                                     float *dd)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    const EqcPlane p = blockIdx.z ? d : r;
    float *dst = blockIdx.z ? dd : dr;
    if (x < p.width)
        dst[(size_t)y * p.width + x] = eq_ssim_sample(eqc_sample(p, x, y), bitdepth);
}

int eqc_ssim_to_float(EqCuda *cuda, const EqcPlane *r, const EqcPlane *d, int bitdepth,
                      float *dr, float *dd, cudaStream_t stream)
{
    int err = 0;
    dim3 grid(eqc_blocks((size_t)r->width, 256), (unsigned)r->height, 2);
    ssim_to_float_kernel<<<grid, 256, 0, stream>>>(*r, *d, bitdepth, dr, dd);
    EQC_CHECK_LAUNCH(cuda, "ssim_to_float_kernel");
    return 0;
fail:
    return err;
}

/* eq_ssim_box_decimate_c, one output per thread; blockIdx.z picks the plane. */
__global__ void ssim_box_kernel(const float *s0, const float *s1, int w, int h, int factor,
                                int sw, int sh, float *d0, float *d1)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y;
    if (x >= sw || y >= sh)
        return;
    const float *src = blockIdx.z ? s1 : s0;
    float *dst = blockIdx.z ? d1 : d0;
    const int c = factor / 2, even = !(factor & 1);
    const float tap = eq_ssim_box_tap(factor);
    double acc = 0.0;
    for (int v = -c; v <= c - even; v++) {
        const float *row = src + (ptrdiff_t)eq_reflect(y * factor + v, h) * w;
        for (int u = -c; u <= c - even; u++)
            acc = eq_tap(acc, row[eq_reflect(x * factor + u, w)], tap);
    }
    dst[(size_t)y * sw + x] = (float)acc;
}

int eqc_ssim_box(EqCuda *cuda, const float *s0, const float *s1, int w, int h, int factor,
                 float *d0, float *d1, cudaStream_t stream)
{
    int err = 0;
    const int sw = eq_decimated_size(w, factor), sh = eq_decimated_size(h, factor);
    dim3 grid(eqc_blocks((size_t)sw, 128), (unsigned)sh, 2);
    ssim_box_kernel<<<grid, 128, 0, stream>>>(s0, s1, w, h, factor, sw, sh, d0, d1);
    EQC_CHECK_LAUNCH(cuda, "ssim_box_kernel");
    return 0;
fail:
    return err;
}

#define TW 32                          /* tile of windows: TW x TH */
#define TH 32
#define TY 8                           /* threads: TW x TY, TH / TY rows each */
#define IW (TW + EQ_SSIM_WINDOW - 1)   /* inputs: IW x IH */
#define IH (TH + EQ_SSIM_WINDOW - 1)

/* The window terms of one 32x32 tile (see the file comment). */
__global__ void __launch_bounds__(TW * TY)
ssim_terms_kernel(const float *ref, const float *dist, int w, int h, double *tl, double *tc,
                  double *ts, double *tlcs)
{
    __shared__ float in_r[IH][IW + 1];
    __shared__ float in_d[IH][IW + 1];
    __shared__ float hb[5][IH][TW];
    const int ow = w - (EQ_SSIM_WINDOW - 1), oh = h - (EQ_SSIM_WINDOW - 1);
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
    const int tid = threadIdx.y * TW + threadIdx.x;

    for (int i = tid; i < IH * IW; i += TW * TY) {
        int r = i / IW, c = i % IW;
        int y = y0 + r, x = x0 + c;
        float a = 0.0f, b = 0.0f;
        if (y < h && x < w) {
            a = ref[(size_t)y * w + x];
            b = dist[(size_t)y * w + x];
        }
        in_r[r][c] = a;
        in_d[r][c] = b;
    }
    __syncthreads();

    /* rows: the five maps, 11 taps each from 0.0, rounded to float */
    for (int i = tid; i < IH * TW; i += TW * TY) {
        int r = i / TW, c = i % TW;
        double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, a4 = 0.0;
        for (int k = 0; k < EQ_SSIM_GAUSS_LEN; k++) {
            const float g = c_gauss[k];
            const float vr = in_r[r][c + k], vd = in_d[r][c + k];
            a0 = eq_tap(a0, vr, g);
            a1 = eq_tap(a1, vd, g);
            a2 = eq_tap(a2, eq_ssim_square(vr), g);
            a3 = eq_tap(a3, eq_ssim_square(vd), g);
            a4 = eq_tap(a4, eq_ssim_cross(vr, vd), g);
        }
        hb[0][r][c] = (float)a0;
        hb[1][r][c] = (float)a1;
        hb[2][r][c] = (float)a2;
        hb[3][r][c] = (float)a3;
        hb[4][r][c] = (float)a4;
    }
    __syncthreads();

    const int c = threadIdx.x, x = x0 + c;
    for (int rr = threadIdx.y; rr < TH; rr += TY) {
        const int y = y0 + rr;
        if (x >= ow || y >= oh)
            continue;
        float m[5];
        for (int j = 0; j < 5; j++) {
            double acc = 0.0;
            for (int k = 0; k < EQ_SSIM_GAUSS_LEN; k++)
                acc = eq_tap(acc, hb[j][rr + k][c], c_gauss[k]);
            m[j] = (float)acc;
        }
        const float var1 = eq_ssim_variance(m[2], m[0]);
        const float var2 = eq_ssim_variance(m[3], m[1]);
        const float cov = eq_ssim_covariance(m[4], m[0], m[1]);
        double l, cc;
        float s;
        eq_ssim_window(m[0], m[1], var1, var2, cov, &l, &cc, &s);
        const size_t o = (size_t)y * ow + x;
        tl[o] = l;
        tc[o] = cc;
        ts[o] = (double)s;
        if (tlcs)
            tlcs[o] = eq_ssim_lcs(l, cc, s);
    }
}

int eqc_ssim_terms(EqCuda *cuda, const float *ref, const float *dist, int w, int h,
                   double *l, double *c, double *s, double *lcs, cudaStream_t stream)
{
    int err = 0;
    const int ow = w - (EQ_SSIM_WINDOW - 1), oh = h - (EQ_SSIM_WINDOW - 1);
    dim3 grid(eqc_blocks((size_t)ow, TW), eqc_blocks((size_t)oh, TH));
    ssim_terms_kernel<<<grid, dim3(TW, TY), 0, stream>>>(ref, dist, w, h, l, c, s, lcs);
    EQC_CHECK_LAUNCH(cuda, "ssim_terms_kernel");
    return 0;
fail:
    return err;
}

/* ---------------------------------------------------------------- metric */

/* float_ssim's sizes; EQ_ERR_TOO_SMALL (logged) as on the CPU. */
static int ssim_geometry(EqCuda *cuda, const EqFrame *f, int *scale, int *sw, int *sh)
{
    const int w = f->width, h = f->height;
    *scale = eq_ssim_auto_scale(w, h);
    *sw = *scale > 1 ? eq_decimated_size(w, *scale) : w;
    *sh = *scale > 1 ? eq_decimated_size(h, *scale) : h;
    if (*sw < EQ_SSIM_WINDOW || *sh < EQ_SSIM_WINDOW) {
        eq_log(&cuda->log, EQ_LOG_ERROR,
               "ssim: a %dx%d frame is too small for float_ssim, which needs at least "
               "%dx%d samples (its 11x11 window) after its automatic downscaling",
               w, h, EQ_SSIM_WINDOW, EQ_SSIM_WINDOW);
        return EQ_ERR_TOO_SMALL;
    }
    return 0;
}

int eqc_ssim_launch(EqCuda *cuda, const EqcFrame *ref, const EqcFrame *dist,
                    cudaStream_t stream)
{
    int scale, sw, sh, err;
    const int w = ref->desc->width, h = ref->desc->height;

    if ((err = ssim_geometry(cuda, ref->desc, &scale, &sw, &sh)) < 0)
        return err;
    const size_t n = (size_t)w * h, ns = (size_t)sw * sh;
    const size_t nwin = (size_t)(sw - 10) * (sh - 10);
    const size_t bytes = 2 * n * sizeof(float) + (scale > 1 ? 2 * ns * sizeof(float) : 0) +
                         4 * nwin * sizeof(double);
    if ((err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_SSIM], bytes)) < 0)
        return err;
    double *terms = (double *)cuda->scratch[EQC_SCRATCH_SSIM].ptr;
    float *fr = (float *)(terms + 4 * nwin), *fd = fr + n;
    float *sr = fr, *sd = fd;

    if ((err = eqc_ssim_to_float(cuda, &ref->comp[0], &dist->comp[0], ref->desc->bitdepth, fr,
                                 fd, stream)) < 0)
        return err;
    if (scale > 1) {
        sr = fd + n;
        sd = sr + ns;
        if ((err = eqc_ssim_box(cuda, fr, fd, w, h, scale, sr, sd, stream)) < 0)
            return err;
    }
    if ((err = eqc_ssim_terms(cuda, sr, sd, sw, sh, terms, terms + nwin, terms + 2 * nwin,
                              terms + 3 * nwin, stream)) < 0)
        return err;
    EqcSumDesc desc[4];
    for (int i = 0; i < 4; i++)
        desc[i] = (EqcSumDesc){ terms + i * nwin, (long long)nwin, 1, EQC_RES_SSIM + i, EQC_TERM_X };
    return eqc_sums_launch(cuda, desc, 4, cuda->dres->sums, stream);
}

int eqc_ssim_finish(EqCuda *cuda, const EqFrame *ref, const EqcResults *res, EqScores *out)
{
    int scale, sw, sh, err;
    if ((err = ssim_geometry(cuda, ref, &scale, &sw, &sh)) < 0)
        return err;
    EqSsimSums sums;
    sums.l = res->sums[EQC_RES_SSIM + 0];
    sums.c = res->sums[EQC_RES_SSIM + 1];
    sums.s = res->sums[EQC_RES_SSIM + 2];
    sums.lcs = res->sums[EQC_RES_SSIM + 3];
    eq_ssim_finish(&sums, (int64_t)(sw - 10) * (sh - 10), out);
    return 0;
}
