/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * float_ssim on the device, and the SSIM stages float_ms_ssim shares
 * (lib/cuda/ssim.cuh). The reference is the stage table of lib/cpu/ssim.h
 * (libvmaf 3.2.0 iqa/ssim_tools.c _iqa_ssim); every formula, tap table and
 * size rule comes from lib/exact/ssim_terms.h, so each stage produces the
 * C stage's floats and doubles bit for bit:
 *
 *   to_float     8 consecutive samples of a row per thread (eq_ssim_sample);
 *                vector loads and stores where aligned
 *   box          one thread per output: factor^2 taps, rows outer, mirrored
 *                (eq_ssim_box_decimate_c's order), from to_float's planes
 *   box_samples  float_ssim's box at scale > 1 straight from the samples:
 *                each tap's sample converted in the loop, the same floats
 *                in the same order as to_float then box (one warp per 32
 *                outputs of a row); float_ssim never forms the full-size
 *                float planes. MS-SSIM needs them and keeps to_float.
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

/*
 * to_float: each thread converts TF_VEC consecutive samples of a row. Where
 * the row is contiguous (step == bytes) and the thread's samples start on 4
 * bytes, they arrive in one 8- or 16-byte load (two or four 4-byte loads
 * when only 4-aligned); otherwise, and for the short last group of a row,
 * one eqc_sample per sample. The floats leave in two 16-byte stores where
 * the destination is 16-aligned (every row when dst is and the width is a
 * multiple of 4), else one by one. Each value is eq_ssim_sample of the sample
 * eqc_sample reads: the same float on every path.
 *
 * Both readers of the frame (this one and ssim_box_samples_kernel) read
 * each sample once, and their wide loads say so (__ldcs: evict first), so
 * that the frame's lines are the first to leave the L2 cache: SSIM at 4K
 * got 6-7 % faster in both sum modes on an H200 (docs/performance.md,
 * session 49). The hint changes no value. to_float's 4-byte loads (rows
 * aligned to 4 bytes only) do not carry it yet.
 */
#define TF_VEC 8
#define TF_LANES 32
#define TF_ROWS 4

/* Sample j of the TF_VEC that wd[] holds as loaded (little-endian): byte j,
 * or 16-bit word j shifted right as eqc_sample shifts it. */
static __device__ __forceinline__ unsigned tf_unpack(const unsigned wd[4], int bytes, int shift,
                                                     int j)
{
    if (bytes == 1)
        return (wd[j >> 2] >> (8 * (j & 3))) & 0xffu;
    return ((wd[j >> 1] >> (16 * (j & 1))) & 0xffffu) >> shift;
}

__global__ void __launch_bounds__(TF_LANES * TF_ROWS)
ssim_to_float_kernel(EqcPlane r, EqcPlane d, int bitdepth, float *dr, float *dd)
{
    const int x = (blockIdx.x * TF_LANES + threadIdx.x) * TF_VEC;
    const int y = blockIdx.y * TF_ROWS + threadIdx.y;
    const EqcPlane p = blockIdx.z ? d : r;
    if (x >= p.width || y >= p.height)
        return;
    float *dst = (blockIdx.z ? dd : dr) + (size_t)y * p.width + x;
    const uint8_t *src = p.data + (ptrdiff_t)y * p.stride + (ptrdiff_t)x * p.step;
    const int n = min(TF_VEC, p.width - x);
    const uintptr_t a = (uintptr_t)src;
    float v[TF_VEC];

    if (n == TF_VEC && p.step == p.bytes && a % 4 == 0) {
        /* TF_VEC * bytes contiguous bytes of this row, all inside it */
        unsigned wd[4] = { 0, 0, 0, 0 };
        const unsigned *s32 = (const unsigned *)src;
        if (p.bytes == 1 && a % 8 == 0) {
            const uint2 q = __ldcs((const uint2 *)src); /* read once: evict first */
            wd[0] = q.x;
            wd[1] = q.y;
        } else if (p.bytes == 1) {
            wd[0] = s32[0];
            wd[1] = s32[1];
        } else if (a % 16 == 0) {
            const uint4 q = __ldcs((const uint4 *)src);
            wd[0] = q.x;
            wd[1] = q.y;
            wd[2] = q.z;
            wd[3] = q.w;
        } else {
            for (int k = 0; k < 4; k++)
                wd[k] = s32[k];
        }
#pragma unroll
        for (int j = 0; j < TF_VEC; j++)
            v[j] = eq_ssim_sample(tf_unpack(wd, p.bytes, p.shift, j), bitdepth);
    } else {
#pragma unroll
        for (int j = 0; j < TF_VEC; j++)
            v[j] = j < n ? eq_ssim_sample(eqc_sample(p, x + j, y), bitdepth) : 0.0f;
    }

    if (n == TF_VEC && (uintptr_t)dst % 16 == 0) {
        ((float4 *)dst)[0] = make_float4(v[0], v[1], v[2], v[3]);
        ((float4 *)dst)[1] = make_float4(v[4], v[5], v[6], v[7]);
    } else {
#pragma unroll
        for (int j = 0; j < TF_VEC; j++)
            if (j < n)
                dst[j] = v[j];
    }
}

int eqc_ssim_to_float(EqCuda *cuda, const EqcPlane *r, const EqcPlane *d, int bitdepth,
                      float *dr, float *dd, cudaStream_t stream)
{
    int err = 0;
    const size_t groups = ((size_t)r->width + TF_VEC - 1) / TF_VEC;
    dim3 grid(eqc_blocks(groups, TF_LANES), eqc_blocks((size_t)r->height, TF_ROWS), 2);
    ssim_to_float_kernel<<<grid, dim3(TF_LANES, TF_ROWS), 0, stream>>>(*r, *d, bitdepth, dr,
                                                                       dd);
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

/*
 * float_ssim's box decimation straight from the samples (scale > 1): the
 * floats of ssim_box_kernel without the full-size float planes. Output x of
 * a row reads input columns x * f - c .. x * f - c + f - 1 (c = f / 2, the
 * taps u = -c .. c - even), so the 32 outputs of a warp read 32 * f
 * consecutive columns of each of their f rows, and neighbouring outputs
 * never share a column. One warp per 32 outputs of a row: for each input
 * row in tap order the warp converts the row's 32 * f samples into its own
 * stretch of shared memory (coalesced: the aligned 4-byte words that hold
 * the stretch where they lie inside a contiguous row, else one mirrored
 * eqc_sample per column), then each lane adds its output's f taps
 * of that row. Every tap is eq_tap(acc, eq_ssim_sample(sample), tap) in
 * eq_ssim_box_decimate_c's order (rows outer, columns inner, mirrored), from
 * the float that eq_ssim_to_float_c makes of the same sample: the same bits
 * as to_float followed by ssim_box_kernel. Only warp barriers: each warp
 * owns its stretch.
 */
#define BOX_WARPS 4

/* Index in a warp's stretch: one float of padding after every 32, so that
 * the word-wise writes (stride 4 or 2 floats a lane) and the reads of the
 * taps (stride f floats a lane; conflict-free for f = 2, 4, 8) spread over
 * the banks. */
static __device__ __forceinline__ int box_pad(int i)
{
    return i + (i >> 5);
}

__global__ void __launch_bounds__(32 * BOX_WARPS)
ssim_box_samples_kernel(EqcPlane r, EqcPlane d, int bitdepth, int factor, int sw, int sh,
                        float *d0, float *d1)
{
    extern __shared__ float box_stretch[];
    const int lane = threadIdx.x;
    const int y = blockIdx.y * BOX_WARPS + threadIdx.y;
    if (y >= sh)
        return; /* the whole warp */
    const EqcPlane p = blockIdx.z ? d : r;
    float *dst = blockIdx.z ? d1 : d0;
    const int w = p.width, h = p.height, f = factor, c = factor / 2;
    const int span = 32 * f;
    float *buf = box_stretch + threadIdx.y * box_pad(span);
    const int x0 = blockIdx.x * 32;
    const int first = x0 * f - c;      /* the warp's first input column */
    const int nout = min(32, sw - x0); /* outputs of this warp */
    const int ncols = nout * f;        /* the columns they read */
    const float tap = eq_ssim_box_tap(f);
    const int bytes = p.bytes;
    double acc = 0.0;

    for (int v = 0; v < f; v++) {
        const int yr = eq_reflect(y * f - c + v, h);
        const uint8_t *row = p.data + (ptrdiff_t)yr * p.stride;
        /* The 4-byte words that hold the warp's span * bytes bytes of the
         * row, from the aligned word at or before the first: taken where
         * the row is contiguous, every word lies inside the row (no column
         * mirrored) and no 16-bit sample straddles two words. */
        const uintptr_t s = (uintptr_t)row + (uintptr_t)((ptrdiff_t)first * bytes);
        const int o = (int)(s & 3);
        const int nw = (o + span * bytes + 3) >> 2;
        const bool words = p.step == bytes && (bytes == 1 || !(o & 1)) && first * bytes >= o &&
                           first * bytes - o + 4 * nw <= w * bytes;
        if (words) {
            const unsigned *s32 = (const unsigned *)(s - (uintptr_t)o);
            for (int k = lane; k < nw; k += 32) {
                const unsigned wd = __ldcs(s32 + k); /* read once: evict first */
                if (bytes == 1) {
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        const int q = 4 * k + j - o; /* column first + q */
                        if (q >= 0 && q < span)
                            buf[box_pad(q)] = eq_ssim_sample((wd >> (8 * j)) & 0xffu, bitdepth);
                    }
                } else {
#pragma unroll
                    for (int j = 0; j < 2; j++) {
                        const int q = 4 * k + 2 * j - o; /* bytes of column first + q / 2 */
                        if (q >= 0 && q < 2 * span)
                            buf[box_pad(q >> 1)] = eq_ssim_sample(
                                ((wd >> (16 * j)) & 0xffffu) >> p.shift, bitdepth);
                    }
                }
            }
        } else {
            for (int i = lane; i < ncols; i += 32)
                buf[box_pad(i)] =
                    eq_ssim_sample(eqc_sample(p, eq_reflect(first + i, w), yr), bitdepth);
        }
        __syncwarp();
        if (lane < nout)
            for (int u = 0; u < f; u++)
                acc = eq_tap(acc, buf[box_pad(lane * f + u)], tap);
        __syncwarp(); /* all read before the next row overwrites */
    }
    if (lane < nout)
        dst[(size_t)y * sw + x0 + lane] = (float)acc;
}

int eqc_ssim_box_samples(EqCuda *cuda, const EqcPlane *r, const EqcPlane *d, int bitdepth,
                         int factor, float *d0, float *d1, cudaStream_t stream)
{
    int err = 0;
    if (factor < 2 || factor > EQC_SSIM_BOX_MAX_FACTOR)
        return EQ_ERR_INVALID_ARGUMENT;
    const int sw = eq_decimated_size(r->width, factor);
    const int sh = eq_decimated_size(r->height, factor);
    const size_t smem = (size_t)BOX_WARPS * (32 * factor + factor) * sizeof(float);
    dim3 grid(eqc_blocks((size_t)sw, 32), eqc_blocks((size_t)sh, BOX_WARPS), 2);
    ssim_box_samples_kernel<<<grid, dim3(32, BOX_WARPS), smem, stream>>>(
        *r, *d, bitdepth, factor, sw, sh, d0, d1);
    EQC_CHECK_LAUNCH(cuda, "ssim_box_samples_kernel");
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
    /* At scale > 1 the box reads the samples (full-size floats only past
     * EQC_SSIM_BOX_MAX_FACTOR); at scale 1 the terms read to_float's planes. */
    const int fused = scale > 1 && scale <= EQC_SSIM_BOX_MAX_FACTOR;
    const size_t n = fused ? 0 : (size_t)w * h, ns = (size_t)sw * sh;
    const size_t nwin = (size_t)(sw - 10) * (sh - 10);
    const size_t bytes = 2 * n * sizeof(float) + (scale > 1 ? 2 * ns * sizeof(float) : 0) +
                         4 * nwin * sizeof(double);
    if ((err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_SSIM], bytes)) < 0)
        return err;
    double *terms = (double *)cuda->scratch[EQC_SCRATCH_SSIM].ptr;
    float *fr = (float *)(terms + 4 * nwin), *fd = fr + n;
    float *sr = fr, *sd = fd;
    const EqcPlane *pr = &ref->comp[0], *pd = &dist->comp[0];
    const int bitdepth = ref->desc->bitdepth;

    if (fused) {
        sr = fr; /* n == 0: no full-size planes */
        sd = sr + ns;
        if ((err = eqc_ssim_box_samples(cuda, pr, pd, bitdepth, scale, sr, sd, stream)) < 0)
            return err;
    } else {
        if ((err = eqc_ssim_to_float(cuda, pr, pd, bitdepth, fr, fd, stream)) < 0)
            return err;
        if (scale > 1) {
            sr = fd + n;
            sd = sr + ns;
            if ((err = eqc_ssim_box(cuda, fr, fd, w, h, scale, sr, sd, stream)) < 0)
                return err;
        }
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
