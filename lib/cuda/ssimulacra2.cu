/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIMULACRA 2.1 on the device. The reference is the stage table of
 * lib/cpu/ssimulacra2.h (libjxl tools/ssimulacra2.cc at
 * aea3a06e281fdee13e04815bfbf4f4132e7f59ea, restated with fixed types); every
 * per-pixel formula comes from lib/exact/ssimulacra2.h and lib/exact/pmath.h,
 * so each stage gives the C stage's bits:
 *
 *   xyb_down    one thread per two pixels (one column, two rows) of one
 *               frame of a scale, a warp on 32 neighbouring columns: their
 *               linear RGB (scale 0: from the frame, eq_s2_yuv_to_linear
 *               (8-bit: its parts from tables, see S2_LUT_K),
 *               eq_s2_gray_to_linear, or the sRGB curve for RGB; chroma
 *               upsampled with eq_s2_chroma_h / eq_s2_chroma_hv, neighbours
 *               chosen as eq_s2_to_linear_c chooses them; scale s > 0: the
 *               linear planes this kernel stored at scale s - 1), their XYB
 *               (eq_s2_xyb_f: float planes) and the next scale's pixel
 *               (eq_s2_box4, edges repeated). Scale 0's linear RGB never
 *               reaches memory.
 *   blur_terms  one block per 32 x 32 pixels of one channel: x1 and x2
 *               with a margin of EQ_S2_BLUR_R into shared memory (0
 *               outside the frame, the blur's padding), the five maps'
 *               row blurs (eq_s2_blur_input, eq_s2_fir9) of the tile's rows
 *               and the margin's, then their column blurs and the terms
 *               (eq_s2_ssim_d, eq_s2_edge_d1, floats widened to double):
 *               the blurred maps never reach global memory.
 *   sums        the ordered-sum engine in two launches: scale 0's 18 sums
 *               after its terms on the third stream (EQ_CUDA_S0SUMS_ENV),
 *               the other scales' on the second stream after theirs (while
 *               scale 0 blurs); four of each channel's
 *               six are functions of the stored d1 (and one of
 *               d) formed on the fly (EQC_TERM_*), as eq_s2_sums_c forms them.
 * The score is the CPU's host function eq_s2_score_from_sums.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "cuda/common.cuh"
#include "cuda/s2_blur_terms.cuh"
#include "exact/pmath.h"
#include "exact/ssimulacra2.h"
extern "C" {
#include "cpu/ssimulacra2.h"
}

struct S2Src {
    EqcPlane p[3];
    EqS2Yuv yuv;
    int rgb, gray, ss_x, ss_y;
    double maxv;       /* RGB: 2^bitdepth - 1 (the sRGB table's divisor) */
    const double *lut; /* 8-bit Y'CbCr: the tables below, else NULL */
};

/*
 * 8-bit Y'CbCr: the parts of eq_s2_yuv_to_linear as tables, each entry
 * computed by the same function of the same input, so a lookup gives the
 * computed bits. Chroma after upsampling is k / 8 of a sample, k = 0 ..
 * 2040 (eq_s2_chroma_index8). y (256 entries), cb_g cb and cr_g cr (2041
 * each), then R and B, which depend on y and one chroma only: 256 x 2041
 * each (eq_s2_yuv_rb). G (three inputs) is formed from its three tables by
 * eq_s2_yuv_g. 8.4 MB per colour setting, built once per setting.
 */
#define S2_LUT_K (8 * 255 + 1)
#define S2_LUT_GB 256
#define S2_LUT_GR (S2_LUT_GB + S2_LUT_K)
#define S2_LUT_R (S2_LUT_GR + S2_LUT_K)
#define S2_LUT_B (S2_LUT_R + 256 * S2_LUT_K)
#define S2_LUT_SIZE (S2_LUT_B + 256 * S2_LUT_K)

__global__ void __launch_bounds__(256) s2_lut_kernel(EqS2Yuv p, double *lut)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= S2_LUT_SIZE)
        return;
    if (i < S2_LUT_GB) {
        lut[i] = eq_s2_yuv_y(&p, (double)i);
    } else if (i < S2_LUT_GR) {
        lut[i] = p.cb_g * eq_s2_yuv_c(&p, (double)(i - S2_LUT_GB) * 0.125);
    } else if (i < S2_LUT_R) {
        lut[i] = p.cr_g * eq_s2_yuv_c(&p, (double)(i - S2_LUT_GR) * 0.125);
    } else {
        const int b = i >= S2_LUT_B, j = i - (b ? S2_LUT_B : S2_LUT_R);
        const double y = eq_s2_yuv_y(&p, (double)(j / S2_LUT_K));
        const double c = eq_s2_yuv_c(&p, (double)(j % S2_LUT_K) * 0.125);
        lut[i] = eq_s2_yuv_rb(y, b ? p.cb_b * c : p.cr_r * c);
    }
}

/* 8-bit Y'CbCr: the linear RGB of luma Y and chroma indices kb, kr
 * (eq_s2_chroma_index8) from the tables above. */
static __device__ __forceinline__ void s2_lut_rgb(const S2Src &s, unsigned Y, unsigned kb,
                                                  unsigned kr, double *r, double *g, double *b)
{
    *r = __ldg(&s.lut[S2_LUT_R + Y * S2_LUT_K + kr]);
    *g = eq_s2_yuv_g(__ldg(&s.lut[Y]), __ldg(&s.lut[S2_LUT_GB + kb]),
                     __ldg(&s.lut[S2_LUT_GR + kr]));
    *b = __ldg(&s.lut[S2_LUT_B + Y * S2_LUT_K + kb]);
}

/* 8 x the upsampled chroma of plane p at luma (x, y) (eq_s2_chroma_index8). */
static __device__ __forceinline__ unsigned chroma_index8(const S2Src &s, const EqcPlane &p, int x,
                                                         int y)
{
    EqS2ChromaTaps t = eq_s2_chroma_taps(x, y, s.ss_x, s.ss_y, p.width, p.height);
    return eq_s2_chroma_index8(&t, eqc_sample(p, t.cx, t.cy), eqc_sample(p, t.bx, t.cy),
                               eqc_sample(p, t.cx, t.ny), eqc_sample(p, t.bx, t.ny));
}

/* eq_s2_to_linear_c's chroma_at: the upsampled chroma at luma (x, y). */
static __device__ __forceinline__ double chroma_at(const S2Src &s, const EqcPlane &p, int x,
                                                   int y)
{
    EqS2ChromaTaps t = eq_s2_chroma_taps(x, y, s.ss_x, s.ss_y, p.width, p.height);
    return eq_s2_chroma_value(&t, eqc_sample(p, t.cx, t.cy), eqc_sample(p, t.bx, t.cy),
                              eqc_sample(p, t.cx, t.ny), eqc_sample(p, t.bx, t.ny));
}

/* The linear RGB of pixel (x, y) of a source frame (the C stage's
 * eq_s2_to_linear_c for one pixel). */
static __device__ __forceinline__ void s2_pixel_linear(const S2Src &s, int x, int y, double *r,
                                                       double *g, double *b)
{
    if (s.rgb) {
        /* eq_s2_srgb_lut's entry for each code, computed in place */
        *r = eq_s2_srgb_code_to_linear(eqc_sample(s.p[0], x, y), s.maxv);
        *g = eq_s2_srgb_code_to_linear(eqc_sample(s.p[1], x, y), s.maxv);
        *b = eq_s2_srgb_code_to_linear(eqc_sample(s.p[2], x, y), s.maxv);
    } else if (s.lut) {
        const unsigned Y = eqc_sample(s.p[0], x, y);
        const unsigned kb = chroma_index8(s, s.p[1], x, y), kr = chroma_index8(s, s.p[2], x, y);
        s2_lut_rgb(s, Y, kb, kr, r, g, b);
    } else if (s.gray) {
        *r = *g = *b = eq_s2_gray_to_linear(&s.yuv, (double)eqc_sample(s.p[0], x, y));
    } else {
        double Y = (double)eqc_sample(s.p[0], x, y);
        double cb = chroma_at(s, s.p[1], x, y);
        double cr = chroma_at(s, s.p[2], x, y);
        eq_s2_yuv_to_linear(&s.yuv, Y, cb, cr, r, g, b);
    }
}

/* s2_pixel_linear's 8-bit Y'CbCr path (s.lut set, every plane of one
 * byte a sample) with the chroma subsampling known at compile time: the
 * same taps (eq_s2_chroma_taps), samples, indices and table entries, read
 * without the generic sample's width and shift tests. */
static __device__ __forceinline__ unsigned s2_byte(const EqcPlane &p, int x, int y)
{
    return __ldg(p.data + (ptrdiff_t)y * p.stride + (ptrdiff_t)x * p.step);
}

template <int SSX, int SSY>
static __device__ __forceinline__ unsigned s2_index8(const EqcPlane &p, int x, int y)
{
    EqS2ChromaTaps t = eq_s2_chroma_taps(x, y, SSX, SSY, p.width, p.height);
    return eq_s2_chroma_index8(&t, s2_byte(p, t.cx, t.cy), s2_byte(p, t.bx, t.cy),
                               s2_byte(p, t.cx, t.ny), s2_byte(p, t.bx, t.ny));
}

template <int SSX, int SSY>
static __device__ __forceinline__ void s2_pixel_linear_lut8(const S2Src &s, int x, int y,
                                                            double *r, double *g, double *b)
{
    const unsigned Y = s2_byte(s.p[0], x, y);
    const unsigned kb = s2_index8<SSX, SSY>(s.p[1], x, y), kr = s2_index8<SSX, SSY>(s.p[2], x, y);
    s2_lut_rgb(s, Y, kb, kr, r, g, b);
}

/* One scale's linear RGB to its XYB and to the next scale's linear RGB, in
 * one pass: thread (x, oy) of frame blockIdx.z owns the pixels (x, 2oy) and
 * (x, 2oy+1) of the w x h scale, so a warp's loads and stores cover 32
 * neighbouring columns. It reads their linear RGB (SRC: from the source
 * frame, scale 0; else from `lin`, 3 planes per frame), writes their XYB
 * (eq_s2_xyb; `xyb` 3 planes per frame) and, with `next`, the even lane of
 * each pair of lanes writes output (x / 2, oy) of eq_s2_downsample_c:
 * eq_s2_box4 of the pixels (xa, ya), (xb, ya), (xa, yb), (xb, yb), xb =
 * min(x+1, w-1), yb = min(2oy+1, h-1), the odd lane's two pixels taken by a
 * shuffle. Coordinates past the edge read the edge pixel (a column or row
 * repeated for odd sizes), which is stored once, by its owner. `lin_out`
 * (stage test only) receives the linear RGB. The linear planes of scale 0
 * never reach memory. */
#define S2_XYB_THREADS 128

/* SSX, SSY >= 0 (SRC only): the frames take s2_pixel_linear_lut8<SSX, SSY> */
template <bool SRC, int SSX = -1, int SSY = -1>
__global__ void __launch_bounds__(S2_XYB_THREADS)
s2_xyb_down_kernel(S2Src s0, S2Src s1, const double *lin, int w, int h, double *lin_out,
                   float *xyb, double *next, int f0, int oy0)
{
    const int ow = (w + 1) / 2;
    const int xj = blockIdx.x * blockDim.x + threadIdx.x, oy = oy0 + blockIdx.y;
    const int f = blockIdx.z + f0;
    /* no early return: every lane takes part in the shuffle (lanes past
     * the edge read the edge pixel and write nothing) */
    const S2Src &s = f ? s1 : s0;
    const size_t n = (size_t)w * h, fo = (size_t)f * 3 * n;
    const int x = min(xj, w - 1);
    double v[2][3];
#pragma unroll
    for (int j = 0; j < 2; j++) {
        const int yj = 2 * oy + j, y = min(yj, h - 1);
        const size_t i = (size_t)y * w + x;
        if (SRC && SSX >= 0) {
            s2_pixel_linear_lut8<SSX, SSY>(s, x, y, &v[j][0], &v[j][1], &v[j][2]);
        } else if (SRC) {
            s2_pixel_linear(s, x, y, &v[j][0], &v[j][1], &v[j][2]);
        } else {
            v[j][0] = lin[fo + i];
            v[j][1] = lin[fo + n + i];
            v[j][2] = lin[fo + 2 * n + i];
        }
        if (xj < w && yj < h) {
            if (lin_out) {
                lin_out[fo + i] = v[j][0];
                lin_out[fo + n + i] = v[j][1];
                lin_out[fo + 2 * n + i] = v[j][2];
            }
            eq_s2_xyb_f(v[j][0], v[j][1], v[j][2], &xyb[fo + i], &xyb[fo + n + i],
                        &xyb[fo + 2 * n + i]);
        }
    }
    if (next) {
        double r[2][3];
#pragma unroll
        for (int j = 0; j < 2; j++)
#pragma unroll
            for (int c = 0; c < 3; c++)
                r[j][c] = __shfl_down_sync(0xffffffffu, v[j][c], 1);
        const int ox = xj >> 1;
        if (!(xj & 1) && ox < ow) {
            const size_t on = (size_t)ow * ((h + 1) / 2), oi = (size_t)oy * ow + ox;
            double *o = next + (size_t)f * 3 * on;
#pragma unroll
            for (int c = 0; c < 3; c++)
                o[c * on + oi] = eq_s2_box4(v[0][c], r[0][c], v[1][c], r[1][c]);
        }
    }
}

/* Launches s2_xyb_down_kernel over `frames` frames of a w x h scale,
 * from frame f0 (0: both or the reference, 1: the distorted frame), on
 * rows y0 .. y1 - 1 (y0 even; y1 = 0: to the last row). */
static int s2_xyb_down(EqCuda *cuda, const S2Src &s0, const S2Src &s1, const double *lin, int w,
                       int h, int frames, double *lin_out, float *xyb, double *next,
                       cudaStream_t stream, int f0 = 0, int y0 = 0, int y1 = 0)
{
    int err = 0;
    static_assert(S2_XYB_THREADS % 32 == 0, "pairs of lanes within a warp");
    if (y1 == 0)
        y1 = h;
    dim3 g(eqc_blocks((size_t)2 * ((w + 1) / 2), S2_XYB_THREADS), (unsigned)(y1 - y0 + 1) / 2,
           (unsigned)frames);
    /* 8-bit Y'CbCr frames (their tables, one byte a sample) of one
     * subsampling: the kernel with that subsampling built in */
    bool lut8 = !lin && s0.lut && s1.lut && s0.ss_x == s1.ss_x && s0.ss_y == s1.ss_y;
    for (int c = 0; c < 3 && lut8; c++)
        lut8 = s0.p[c].bytes == 1 && s1.p[c].bytes == 1;
    const int ss = lut8 ? s0.ss_x * 2 + s0.ss_y : -1;
    if (lin)
        s2_xyb_down_kernel<false><<<g, S2_XYB_THREADS, 0, stream>>>(s0, s1, lin, w, h, lin_out,
                                                                    xyb, next, f0, y0 / 2);
    else if (ss == 3)
        s2_xyb_down_kernel<true, 1, 1><<<g, S2_XYB_THREADS, 0, stream>>>(
            s0, s1, lin, w, h, lin_out, xyb, next, f0, y0 / 2);
    else if (ss == 2)
        s2_xyb_down_kernel<true, 1, 0><<<g, S2_XYB_THREADS, 0, stream>>>(
            s0, s1, lin, w, h, lin_out, xyb, next, f0, y0 / 2);
    else if (ss == 0)
        s2_xyb_down_kernel<true, 0, 0><<<g, S2_XYB_THREADS, 0, stream>>>(
            s0, s1, lin, w, h, lin_out, xyb, next, f0, y0 / 2);
    else
        s2_xyb_down_kernel<true><<<g, S2_XYB_THREADS, 0, stream>>>(s0, s1, lin, w, h, lin_out,
                                                                   xyb, next, f0, y0 / 2);
    EQC_CHECK_LAUNCH(cuda, "s2_xyb_down_kernel");
    return 0;
fail:
    return err;
}

/* The blurs with the terms, for `nch` channels of one scale. */
static int s2_blur_terms(EqCuda *cuda, const float *xyb, int w, int h, int nch, double *d,
                         double *d1, cudaStream_t stream)
{
    int err = 0;
    s2_blur_terms_kernel<<<dim3(eqc_blocks((size_t)w, S2_FT), eqc_blocks((size_t)h, S2_FT), nch),
                           S2_FTHREADS, 0, stream>>>(xyb, w, h, d, d1);
    EQC_CHECK_LAUNCH(cuda, "s2_blur_terms_kernel");
    return 0;
fail:
    return err;
}

/* The source description of frame `slot` (0 ref, 1 dist); for 8-bit
 * Y'CbCr its tables, built on `stream` when the colour setting changed. */
static int s2_source(EqCuda *cuda, const EqcFrame *f, S2Src *s, int slot, cudaStream_t stream)
{
    EqS2Source host;
    int err = eq_s2_source_init(&host, &cuda->settings, f->desc, NULL);
    if (err < 0)
        return err;
    s->lut = NULL;
    if (!host.rgb && !host.gray && f->desc->bitdepth == 8) {
        static_assert(sizeof(cuda->s2lut_key[0]) == sizeof(EqS2Yuv), "key size");
        EqcBuf *buf = &cuda->scratch[EQC_SCRATCH_S2LUT0 + slot];
        if ((err = eqc_buf_reserve(cuda, buf, sizeof(double) * S2_LUT_SIZE)) < 0)
            return err;
        if (!cuda->s2lut_valid[slot] ||
            memcmp(cuda->s2lut_key[slot], &host.yuv, sizeof(EqS2Yuv)) != 0) {
            s2_lut_kernel<<<eqc_blocks(S2_LUT_SIZE, 256), 256, 0, stream>>>(host.yuv,
                                                                           (double *)buf->ptr);
            EQC_CHECK_LAUNCH(cuda, "s2_lut_kernel");
            /* complete before any stream may read it (a caller's streams
             * can change from frame to frame); once per setting */
            EQC_CHECK(cuda, EQC_SITE_OTHER, cudaStreamSynchronize(stream));
            memcpy(cuda->s2lut_key[slot], &host.yuv, sizeof(EqS2Yuv));
            cuda->s2lut_valid[slot] = 1;
        }
        s->lut = (const double *)buf->ptr;
    }
    for (int c = 0; c < f->ncomp; c++)
        s->p[c] = f->comp[c];
    for (int c = f->ncomp; c < 3; c++)
        s->p[c] = f->comp[0];
    s->yuv = host.yuv;
    s->rgb = host.rgb;
    s->gray = host.gray;
    s->ss_x = host.ss_x;
    s->ss_y = host.ss_y;
    s->maxv = (double)((1 << f->desc->bitdepth) - 1);
    return 0;
fail:
    cuda->s2lut_valid[slot] = 0;
    return err;
}

int eqc_ssimulacra2_launch(EqCuda *cuda, const EqcFrame *ref, const EqcFrame *dist,
                           cudaStream_t stream)
{
    int widths[EQ_S2_MAX_SCALES], heights[EQ_S2_MAX_SCALES], err = 0;
    const int W = ref->desc->width, H = ref->desc->height;
    const int scales = eq_s2_scale_count(W, H, widths, heights);
    S2Src s0, s1;

    if (scales == 0) {
        eq_log(&cuda->log, EQ_LOG_ERROR,
               "ssimulacra2: the frame is %dx%d, and SSIMULACRA2 needs at least %dx%d pixels",
               W, H, EQ_S2_MIN_SIZE, EQ_S2_MIN_SIZE);
        return EQ_ERR_TOO_SMALL;
    }
    if ((err = s2_source(cuda, ref, &s0, 0, stream)) < 0 ||
        (err = s2_source(cuda, dist, &s1, 1, stream)) < 0) {
        eq_log(&cuda->log, EQ_LOG_ERROR, "ssimulacra2: cannot read the frame's planes");
        return err;
    }

    /* the linear RGB of scales 1.. (two buffers of 6 quarter planes, used
     * in turn), d and d1 of every scale and channel (kept for the sums),
     * then xyb (6 float planes) of every scale, each scale its own. Scale
     * 0's linear RGB is never stored.
     *
     * Scales 1.. need only the linear RGB that scale 0's xyb_down leaves:
     * so they run on the second stream (cuda->aux) beside scale 0's blurs,
     * and the sums wait for both. Each scale's blurs need only its own XYB,
     * so scales 2.. (their xyb_down chain, then their blurs) run on a third
     * stream (cuda->aux2) beside scale 1's blurs. The same kernels on the
     * same inputs: the same bits. */
    const size_t nq = (size_t)((W + 1) / 2) * ((H + 1) / 2);
    size_t nterms = 0, off[EQ_S2_MAX_SCALES];
    for (int s = 0; s < scales; s++) {
        off[s] = nterms;
        nterms += (size_t)widths[s] * heights[s];
    }
    const size_t bytes = sizeof(double) * (12 * nq + 6 * nterms) + sizeof(float) * 6 * nterms;
    if ((err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_S2], bytes)) < 0)
        return err;
    double *lin[2] = { (double *)cuda->scratch[EQC_SCRATCH_S2].ptr, NULL };
    lin[1] = lin[0] + 6 * nq;
    double *terms = lin[1] + 6 * nq;
    float *xyb_all = (float *)(terms + 6 * nterms);
    const int par = scales > 2; /* scales 2.. on aux2 */

    {
        /* scale 0's sums (desc[0], on `stream`) and those of scales 1..
         * (desc[1], on cuda->aux after their terms, beside scale 0's blurs) */
        EqcSumDesc desc[2][EQ_SSIMULACRA2_SUMS];
        int nd[2] = { 0, 0 };
        double *t = terms;
        for (int s = 0; s < scales; s++) {
            const int w = widths[s], h = heights[s];
            const size_t n = (size_t)w * h;
            const int b = s > 0;
            cudaStream_t st = s == 0 ? stream : s == 1 || !par ? cuda->aux : cuda->aux2;
            float *xyb_s = xyb_all + 6 * off[s];
            /* scale s's XYB, and scale s+1's linear RGB from the same
             * pixels: scale 0 from the frames, scale s > 0 from lin[(s-1)%2]
             * into lin[s%2] (frame 0's 3 planes, then frame 1's) */
            const double *cur = s > 0 ? lin[(s - 1) & 1] : NULL;
            double *nxt = s + 1 < scales ? lin[s & 1] : NULL;
            if (s == 0 && cuda->bands > 0 && stream == cuda->stream) {
                /* host frames: scale 0 on the second stream, band by band
                 * as each band's rows are up (band_ev), while the later
                 * bands are still being copied; the same kernel on the
                 * same pixels, one frame and band per launch (even row
                 * boundaries: each pair of rows in one launch) */
                for (int f = 0; f < 2; f++)
                    for (int k = 0; k < cuda->bands; k++) {
                        EQC_CHECK(cuda, EQC_SITE_OTHER,
                                  cudaStreamWaitEvent(cuda->aux, cuda->band_ev[f][k], 0));
                        if ((err = s2_xyb_down(cuda, s0, s1, cur, w, h, 1, NULL, xyb_s, nxt,
                                               cuda->aux, f, cuda->band_y[k],
                                               cuda->band_y[k + 1])) < 0)
                            goto fail;
                    }
                EQC_CHECK(cuda, EQC_SITE_OTHER, cudaEventRecord(cuda->xyb_done_ev, cuda->aux));
                EQC_CHECK(cuda, EQC_SITE_OTHER, cudaStreamWaitEvent(st, cuda->xyb_done_ev, 0));
            } else if ((err = s2_xyb_down(cuda, s0, s1, cur, w, h, 2, NULL, xyb_s, nxt, st)) <
                       0) {
                goto fail;
            }
            if (s == 1 && par) {
                /* fork: scales 2.. on the third stream after scale 1's
                 * xyb_down (their chain reads only the linear RGB it left);
                 * scale 1's blurs here beside them */
                EQC_CHECK(cuda, EQC_SITE_OTHER, cudaEventRecord(cuda->fork2_ev, cuda->aux));
                EQC_CHECK(cuda, EQC_SITE_OTHER,
                          cudaStreamWaitEvent(cuda->aux2, cuda->fork2_ev, 0));
            }
            if (s == 0 && scales > 1) {
                /* fork: scales 1.. after scale 0's xyb_down */
                EQC_CHECK(cuda, EQC_SITE_OTHER, cudaEventRecord(cuda->fork_ev, stream));
                EQC_CHECK(cuda, EQC_SITE_OTHER, cudaStreamWaitEvent(cuda->aux, cuda->fork_ev, 0));
            }
            double *d = t, *d1 = t + 3 * n;
            if ((err = s2_blur_terms(cuda, xyb_s, w, h, 3, d, d1, st)) < 0)
                goto fail;
            for (int c = 0; c < 3; c++)
                for (int k = 0; k < EQ_S2_SUMS_PER_CHANNEL; k++) {
                    /* sum k adds term kind k (EQC_TERM_* are EQ_S2_TERM_*) */
                    const double *x = (eq_s2_sum_of_d1(k) ? d1 : d) + (size_t)c * n;
                    desc[b][nd[b]++] =
                        (EqcSumDesc){ x, (long long)n, 1,
                                      EQC_RES_SSIMULACRA2 + eq_s2_sum_index(s, c, k), k };
                }
            t += 6 * n;
        }
        if (par) {
            EQC_CHECK(cuda, EQC_SITE_OTHER, cudaEventRecord(cuda->join2_ev, cuda->aux2));
            EQC_CHECK(cuda, EQC_SITE_OTHER, cudaStreamWaitEvent(cuda->aux, cuda->join2_ev, 0));
        }
        if (scales > 1) {
            /* the sums of scales 1.. on the second stream, in their own
             * buffers; join: the frame's results wait for them */
            if ((err = eqc_sums_launch_in(cuda, desc[1], nd[1], cuda->dres->sums, cuda->aux,
                                          EQC_SCRATCH_SUM_AUX)) < 0)
                goto fail;
            EQC_CHECK(cuda, EQC_SITE_OTHER, cudaEventRecord(cuda->join_ev, cuda->aux));
        }
        if (cuda->s0_sums_aux2) {
            /* scale 0's sums on the third stream (the greatest priority,
             * as the other scales' sums beside them), after its column
             * blur; the frame's results wait for them */
            EQC_CHECK(cuda, EQC_SITE_OTHER, cudaEventRecord(cuda->fork2_ev, stream));
            EQC_CHECK(cuda, EQC_SITE_OTHER, cudaStreamWaitEvent(cuda->aux2, cuda->fork2_ev, 0));
            if ((err = eqc_sums_launch(cuda, desc[0], nd[0], cuda->dres->sums, cuda->aux2)) < 0)
                goto fail;
            EQC_CHECK(cuda, EQC_SITE_OTHER, cudaEventRecord(cuda->join2_ev, cuda->aux2));
            EQC_CHECK(cuda, EQC_SITE_OTHER, cudaStreamWaitEvent(stream, cuda->join2_ev, 0));
        } else if ((err = eqc_sums_launch(cuda, desc[0], nd[0], cuda->dres->sums, stream)) <
                   0) {
            goto fail;
        }
        if (scales > 1)
            EQC_CHECK(cuda, EQC_SITE_OTHER, cudaStreamWaitEvent(stream, cuda->join_ev, 0));
        return 0;
    }
fail:
    /* nothing queued on the other streams may outlive this frame */
    (void)cudaStreamSynchronize(cuda->aux);
    (void)cudaStreamSynchronize(cuda->aux2);
    return err;
}

int eqc_ssimulacra2_finish(EqCuda *cuda, const EqFrame *ref, const EqcResults *res,
                           EqScores *out)
{
    int widths[EQ_S2_MAX_SCALES], heights[EQ_S2_MAX_SCALES];
    (void)cuda;
    const int scales = eq_s2_scale_count(ref->width, ref->height, widths, heights);
    if (scales == 0)
        return EQ_ERR_TOO_SMALL;
    out->ssimulacra2 = eq_s2_score_from_sums(res->sums + EQC_RES_SSIMULACRA2, scales, widths,
                                             heights);
    out->ssimulacra2_scales = scales;
    memcpy(out->ssimulacra2_sums, res->sums + EQC_RES_SSIMULACRA2,
           sizeof(out->ssimulacra2_sums));
    return 0;
}

/* ------------------------------------------------------------ stages */

static int stage_sync(EqCuda *cuda, int err)
{
    cudaError_t e = cudaStreamSynchronize(cuda->stream);
    if (err < 0) {
        (void)cudaGetLastError();
        return err;
    }
    return e == cudaSuccess ? 0 : eqc_fail(cuda, e, "cudaStreamSynchronize", __FILE__, __LINE__);
}

#define STAGE_COPY(dst, src, bytes, dir)                                                   \
    EQC_CHECK(cuda, EQC_SITE_COPY, cudaMemcpyAsync(dst, src, bytes, dir, cuda->stream))

/* The stages run the pipeline's kernels: to_linear, downsample and xyb are
 * s2_xyb_down_kernel (from the frames with the linear RGB also stored; from
 * linear planes with and without the next scale), blur_terms is
 * s2_blur_terms. */
extern "C" int eq_cuda_stage_s2_to_linear(EqCuda *cuda, const EqFrame *ref,
                                          const EqFrame *dist, double *lin)
{
    EqcFrame a, b;
    S2Src s0, s1;
    const int w = ref->width, h = ref->height;
    const size_t n = (size_t)w * h, m = (size_t)((w + 1) / 2) * ((h + 1) / 2);
    int err = eqc_upload_pair(cuda, ref, dist, &a, &b, 1);
    if (err < 0 || (err = s2_source(cuda, &a, &s0, 0, cuda->stream)) < 0 ||
        (err = s2_source(cuda, &b, &s1, 1, cuda->stream)) < 0)
        return stage_sync(cuda, err);
    if ((err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_STAGE],
                               (6 * n + 6 * m) * 8 + 6 * n * sizeof(float))) < 0)
        return stage_sync(cuda, err);
    {
        /* linear RGB, then the next scale and XYB (not compared here) */
        double *d = (double *)cuda->scratch[EQC_SCRATCH_STAGE].ptr;
        if ((err = s2_xyb_down(cuda, s0, s1, NULL, w, h, 2, d, (float *)(d + 6 * n + 6 * m),
                               d + 6 * n, cuda->stream)) < 0)
            goto fail;
        STAGE_COPY(lin, d, 6 * n * 8, cudaMemcpyDeviceToHost);
    }
    return stage_sync(cuda, 0);
fail:
    return stage_sync(cuda, err);
}

extern "C" int eq_cuda_stage_s2_downsample(EqCuda *cuda, const double *in, int w, int h,
                                           double *out)
{
    S2Src none;
    const size_t n = (size_t)w * h, m = (size_t)((w + 1) / 2) * ((h + 1) / 2);
    int err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_STAGE], (6 * n + 3 * m) * 8);
    if (err < 0)
        return err;
    memset(&none, 0, sizeof(none));
    {
        /* `in` as the red plane of one frame (green and blue 0); the
         * frame's XYB goes to scratch, its red next-scale plane back */
        double *d = (double *)cuda->scratch[EQC_SCRATCH_STAGE].ptr;
        STAGE_COPY(d, in, n * 8, cudaMemcpyHostToDevice);
        EQC_CHECK(cuda, EQC_SITE_OTHER, cudaMemsetAsync(d + n, 0, 2 * n * 8, cuda->stream));
        if ((err = s2_xyb_down(cuda, none, none, d, w, h, 1, NULL, (float *)(d + 3 * n),
                               d + 6 * n, cuda->stream)) < 0)
            goto fail;
        STAGE_COPY(out, d + 6 * n, m * 8, cudaMemcpyDeviceToHost);
    }
    return stage_sync(cuda, 0);
fail:
    return stage_sync(cuda, err);
}

extern "C" int eq_cuda_stage_s2_xyb(EqCuda *cuda, const double *lin, size_t n, float *xyb)
{
    S2Src none;
    if (n >= (size_t)INT_MAX)
        return EQ_ERR_TOO_LARGE;
    int err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_STAGE], 6 * n * 8);
    if (err < 0)
        return err;
    memset(&none, 0, sizeof(none));
    {
        /* the n pixels as one row, no next scale */
        double *d = (double *)cuda->scratch[EQC_SCRATCH_STAGE].ptr;
        float *o = (float *)(d + 3 * n);
        STAGE_COPY(d, lin, 3 * n * 8, cudaMemcpyHostToDevice);
        if ((err = s2_xyb_down(cuda, none, none, d, (int)n, 1, 1, NULL, o, NULL,
                               cuda->stream)) < 0)
            goto fail;
        STAGE_COPY(xyb, o, 3 * n * sizeof(float), cudaMemcpyDeviceToHost);
    }
    return stage_sync(cuda, 0);
fail:
    return stage_sync(cuda, err);
}

extern "C" int eq_cuda_stage_s2_blur_terms(EqCuda *cuda, const float *x1, const float *x2,
                                           int w, int h, double *d, double *d1)
{
    const size_t n = (size_t)w * h;
    /* d and d1, then the xyb layout of one channel: x1 in plane 0, x2 in
     * plane 3 */
    int err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_STAGE],
                              2 * n * 8 + 6 * n * sizeof(float));
    if (err < 0)
        return err;
    {
        double *od = (double *)cuda->scratch[EQC_SCRATCH_STAGE].ptr, *od1 = od + n;
        float *xyb = (float *)(od1 + n);
        STAGE_COPY(xyb, x1, n * sizeof(float), cudaMemcpyHostToDevice);
        STAGE_COPY(xyb + 3 * n, x2, n * sizeof(float), cudaMemcpyHostToDevice);
        /* outputs poisoned: a pixel the kernel did not store reads NaN, not
         * the same stage's value from the run before */
        EQC_CHECK(cuda, EQC_SITE_OTHER, cudaMemsetAsync(od, 0xff, 2 * n * 8, cuda->stream));
        if ((err = s2_blur_terms(cuda, xyb, w, h, 1, od, od1, cuda->stream)) < 0)
            goto fail;
        STAGE_COPY(d, od, n * 8, cudaMemcpyDeviceToHost);
        STAGE_COPY(d1, od1, n * 8, cudaMemcpyDeviceToHost);
    }
    return stage_sync(cuda, 0);
fail:
    return stage_sync(cuda, err);
}
