/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIMULACRA 2.1 on the device. The reference is the stage table of
 * lib/cpu/ssimulacra2.h (libjxl tools/ssimulacra2.cc at
 * aea3a06e281fdee13e04815bfbf4f4132e7f59ea, restated in double); every
 * per-pixel formula comes from lib/exact/ssimulacra2.h and lib/exact/pmath.h,
 * so each stage gives the C stage's bits:
 *
 *   to_linear   one thread per pixel of both frames (eq_s2_yuv_to_linear,
 *               eq_s2_gray_to_linear, or the sRGB curve for RGB; chroma
 *               upsampled with eq_s2_chroma_h / eq_s2_chroma_hv, neighbours
 *               chosen as eq_s2_to_linear_c chooses them)
 *   downsample  one thread per output (eq_s2_box4, edges repeated)
 *   xyb         one thread per pixel of both frames (eq_s2_xyb)
 *   blur_h      one block per 32 rows of one channel, a warp per map (mu1,
 *               mu2, s11, s22, s12), a lane per row running eq_s2_rg_step;
 *               the block reads x1 and x2 once for the five maps, 32 columns
 *               ahead into registers (the loads of the next tile in flight
 *               while this tile's 32 steps run), and forms the maps' inputs
 *               (the products formed in double and rounded to float, as
 *               eq_s2_blur_h_c reads them) in shared memory. Outputs are
 *               floats (the C stage stores the same floats widened to
 *               double).
 *   blur_v      one thread per column, map and channel, down the column.
 *   terms       one thread per pixel: eq_s2_ssim_d and eq_s2_edge_d1 from
 *               the blurred values widened to double.
 *   sums        the ordered-sum engine, all 108 sums in one launch; four of
 *               each channel's six are functions of the stored d1 (and one of
 *               d) formed on the fly (EQC_TERM_*), as eq_s2_sums_c forms them.
 * The score is the CPU's host function eq_s2_score_from_sums.
 */
#include <string.h>

#include "cuda/common.cuh"
#include "exact/pmath.h"
#include "exact/ssimulacra2.h"
extern "C" {
#include "cpu/ssimulacra2.h"
}

struct S2Src {
    EqcPlane p[3];
    EqS2Yuv yuv;
    int rgb, gray, ss_x, ss_y;
    double maxv; /* RGB: 2^bitdepth - 1 (the sRGB table's divisor) */
};

/* eq_s2_to_linear_c's chroma_at: the upsampled chroma at luma (x, y). */
static __device__ __forceinline__ double chroma_at(const S2Src &s, const EqcPlane &p, int x,
                                                   int y)
{
    EqS2ChromaTaps t = eq_s2_chroma_taps(x, y, s.ss_x, s.ss_y, p.width, p.height);
    return eq_s2_chroma_value(&t, eqc_sample(p, t.cx, t.cy), eqc_sample(p, t.bx, t.cy),
                              eqc_sample(p, t.cx, t.ny), eqc_sample(p, t.bx, t.ny));
}

__global__ void s2_to_linear_kernel(S2Src s0, S2Src s1, int w, int h, double *lin0,
                                    double *lin1)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w)
        return;
    const S2Src &s = blockIdx.z ? s1 : s0;
    double *lin = blockIdx.z ? lin1 : lin0;
    const size_t n = (size_t)w * h, i = (size_t)y * w + x;
    double r, g, b;
    if (s.rgb) {
        /* eq_s2_srgb_lut's entry for each code, computed in place */
        r = eq_s2_srgb_code_to_linear(eqc_sample(s.p[0], x, y), s.maxv);
        g = eq_s2_srgb_code_to_linear(eqc_sample(s.p[1], x, y), s.maxv);
        b = eq_s2_srgb_code_to_linear(eqc_sample(s.p[2], x, y), s.maxv);
    } else if (s.gray) {
        r = g = b = eq_s2_gray_to_linear(&s.yuv, (double)eqc_sample(s.p[0], x, y));
    } else {
        double Y = (double)eqc_sample(s.p[0], x, y);
        double cb = chroma_at(s, s.p[1], x, y);
        double cr = chroma_at(s, s.p[2], x, y);
        eq_s2_yuv_to_linear(&s.yuv, Y, cb, cr, &r, &g, &b);
    }
    lin[i] = r;
    lin[n + i] = g;
    lin[2 * n + i] = b;
}

/* Six planes (2 frames x 3 channels) of w x h into (w+1)/2 x (h+1)/2. */
__global__ void s2_downsample_kernel(const double *in, int w, int h, double *out)
{
    const int ow = (w + 1) / 2, oh = (h + 1) / 2;
    const int ox = blockIdx.x * blockDim.x + threadIdx.x, oy = blockIdx.y;
    if (ox >= ow)
        return;
    const double *p = in + (size_t)blockIdx.z * w * h;
    const double *ra = p + (size_t)(2 * oy) * w;
    const double *rb = p + (size_t)min(2 * oy + 1, h - 1) * w;
    const int xa = 2 * ox, xb = min(2 * ox + 1, w - 1);
    out[(size_t)blockIdx.z * ow * oh + (size_t)oy * ow + ox] =
        eq_s2_box4(ra[xa], ra[xb], rb[xa], rb[xb]);
}

__global__ void s2_xyb_kernel(const double *lin, double *xyb, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double *l = lin + (size_t)blockIdx.y * 3 * n;
    double *o = xyb + (size_t)blockIdx.y * 3 * n;
    eq_s2_xyb(l[i], l[n + i], l[2 * n + i], &o[i], &o[n + i], &o[2 * n + i]);
}

/* The input of blur map m at one pixel: 0 mu1 <- x1, 1 mu2 <- x2,
 * 2 s11 <- x1 x1, 3 s22 <- x2 x2, 4 s12 <- x1 x2 (products in double, as
 * eq_s2_mul_c forms them), rounded to float as eq_s2_blur_h_c reads them. */
static __device__ __forceinline__ float blur_input(int m, double a, double b)
{
    switch (m) {
    case 0: return (float)a;
    case 1: return (float)b;
    case 2: return (float)(a * a);
    case 3: return (float)(b * b);
    default: return (float)(a * b);
    }
}

#define S2_TILE 32

/* Rows: one block per 32 rows of one channel, one warp per map (5 warps),
 * lane = row. Step k reads left = in[k - N - 1] and right = in[k + N - 1]
 * (0 outside the row). A tile of 32 steps (k0 .. k0+31) reads the inputs
 * of columns k0-N-1 .. k0+N+30 (42 columns; shared row of 43 floats per
 * map): the first 2N are the last 2N of the tile before (0 before the
 * row), the other 32 are new. The new columns are read ONCE for the five
 * maps: the block loads x1 and x2 of the next tile into registers (each
 * load a coalesced row piece) before this tile's recursions run, so their
 * latency hides behind the 32 steps, and forms the five maps' inputs from
 * them (blur_input). Each lane runs its row's recursion (eq_s2_rg_step)
 * and leaves output j in place of input j, which no later step of the tile
 * reads; the 32 outputs per row then leave with coalesced stores.
 * tmp: float plane (c * 5 + m). */
#define S2_MAPS 5
#define S2_FILL ((S2_TILE * S2_TILE + S2_MAPS * 32 - 1) / (S2_MAPS * 32))

__global__ void __launch_bounds__(32 * S2_MAPS, 2)
s2_blur_h_kernel(const double *xyb, int w, int h, float *tmp)
{
    enum { N = EQ_S2_RG_RADIUS, CARRY = 2 * EQ_S2_RG_RADIUS, PITCH = S2_TILE + 11 };
    __shared__ float in[S2_MAPS][S2_TILE][PITCH];
    const int tid = threadIdx.x, lane = tid & 31, m = tid >> 5;
    const int y0 = blockIdx.x * S2_TILE, c = blockIdx.y;
    const size_t n = (size_t)w * h;
    const double *x1 = xyb + (size_t)c * n, *x2 = xyb + (size_t)(3 + c) * n;
    float *o = tmp + (size_t)(c * 5 + m) * n;
    float p1 = 0.0f, p3 = 0.0f, p5 = 0.0f, pp1 = 0.0f, pp3 = 0.0f, pp5 = 0.0f;
    double av[S2_FILL], bv[S2_FILL];

    /* the new columns of tile k0: k0 + N - 1 + q (never negative), element
     * f = tid + 160 u of the 32 x 32 new inputs (row f / 32, q = f % 32);
     * 0 outside the frame (and blur_input of 0, 0 is 0 for every map) */
#define S2_BLUR_H_LOAD(k0)                                                                \
    do {                                                                                  \
        _Pragma("unroll") for (int u = 0; u < S2_FILL; u++)                               \
        {                                                                                 \
            const int f_ = tid + 32 * S2_MAPS * u, r_ = f_ >> 5;                          \
            const int col_ = (k0) + N - 1 + (f_ & 31);                                    \
            const int ok_ = f_ < S2_TILE * S2_TILE && y0 + r_ < h && col_ < w;            \
            const size_t i_ = ok_ ? (size_t)(y0 + r_) * w + col_ : 0;                     \
            av[u] = x1[i_];                                                               \
            bv[u] = x2[i_];                                                               \
            av[u] = ok_ ? av[u] : 0.0;                                                    \
            bv[u] = ok_ ? bv[u] : 0.0;                                                    \
        }                                                                                 \
    } while (0)

    for (int q = 0; q < CARRY; q++)
        in[m][lane][q] = 0.0f;
    S2_BLUR_H_LOAD(-N + 1);
    for (int k0 = -N + 1; k0 < w; k0 += S2_TILE) {
        if (k0 != -N + 1) {
            /* the last 2N columns of the tile before, row = lane */
            for (int q = 0; q < CARRY; q++)
                in[m][lane][q] = in[m][lane][S2_TILE + q];
        }
        __syncthreads(); /* every warp's stores of the tile before are done */
#pragma unroll
        for (int u = 0; u < S2_FILL; u++) {
            const int f = tid + 32 * S2_MAPS * u;
            if (f < S2_TILE * S2_TILE) {
                const int r = f >> 5, q = CARRY + (f & 31);
#pragma unroll
                for (int mm = 0; mm < S2_MAPS; mm++)
                    in[mm][r][q] = blur_input(mm, av[u], bv[u]);
            }
        }
        __syncthreads();
        if (k0 + S2_TILE < w)
            S2_BLUR_H_LOAD(k0 + S2_TILE);
        float *row = in[m][lane];
        {
            /* the row's 42 inputs into registers first (one shared-memory
             * latency per tile, not one per step), then the 32 steps */
            float v[S2_TILE + CARRY];
#pragma unroll
            for (int q = 0; q < S2_TILE + CARRY; q++)
                v[q] = row[q];
#pragma unroll
            for (int j = 0; j < S2_TILE; j++) {
                /* step k = k0 + j: left = in[k - N - 1] (q = j), right =
                 * in[k + N - 1] (q = j + 2N); output j replaces input j */
                row[j] = eq_s2_rg_step(&p1, &p3, &p5, &pp1, &pp3, &pp5, v[j], v[j + 2 * N]);
            }
        }
        __syncwarp();
        for (int r = 0; r < S2_TILE; r++) {
            const int y = y0 + r, k = k0 + lane;
            if (y < h && k >= 0 && k < w)
                o[(size_t)y * w + k] = in[m][r][lane];
        }
        __syncwarp();
    }
#undef S2_BLUR_H_LOAD
}

/* Columns: thread (x, m, c) runs map m of channel c down column x; loads
 * are coalesced across the threads of a row. */
__global__ void __launch_bounds__(64)
s2_blur_v_kernel(const float *tmp, int w, int h, float *blurred)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y, c = blockIdx.z;
    if (x >= w)
        return;
    const size_t n = (size_t)w * h;
    const float *in = tmp + (size_t)(c * 5 + m) * n + x;
    float *o = blurred + (size_t)(c * 5 + m) * n + x;
    float p1 = 0.0f, p3 = 0.0f, p5 = 0.0f, pp1 = 0.0f, pp3 = 0.0f, pp5 = 0.0f;
    /* Step k reads right = in[k + 4] and left = in[k - 6], the right of
     * step k - 10 (0 outside the column). With t = k + 4 running 0 .. h+3,
     * blocks of 10 steps: `prv` holds in[t-10 ..], `cur` in[t ..], and the
     * next two blocks are loaded ahead (each value read once, its load
     * issued 10 to 30 steps before it is used). */
    enum { B = 2 * EQ_S2_RG_RADIUS };
    float prv[B], cur[B], nx1[B], nx2[B];
#pragma unroll
    for (int u = 0; u < B; u++) {
        prv[u] = 0.0f;
        cur[u] = u < h ? in[(size_t)u * w] : 0.0f;
        nx1[u] = B + u < h ? in[(size_t)(B + u) * w] : 0.0f;
    }
    for (int t0 = 0; t0 < h + EQ_S2_RG_RADIUS - 1; t0 += B) {
#pragma unroll
        for (int u = 0; u < B; u++) {
            const int t = t0 + 2 * B + u;
            nx2[u] = t < h ? in[(size_t)t * w] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < B; u++) {
            const int k = t0 + u - (EQ_S2_RG_RADIUS - 1);
            if (k < h) {
                const float v = eq_s2_rg_step(&p1, &p3, &p5, &pp1, &pp3, &pp5, prv[u], cur[u]);
                if (k >= 0)
                    o[(size_t)k * w] = v;
            }
        }
#pragma unroll
        for (int u = 0; u < B; u++) {
            prv[u] = cur[u];
            cur[u] = nx1[u];
            nx1[u] = nx2[u];
        }
    }
}

/* Per pixel of channel c: the terms from the five blurred maps (floats,
 * widened to double as the C stage stores them). */
__global__ void s2_terms_kernel(const double *xyb, const float *blurred, size_t n, double *d,
                                double *d1)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y;
    if (i >= n)
        return;
    const float *b = blurred + (size_t)c * 5 * n;
    const double mu1 = b[i], mu2 = b[n + i];
    d[(size_t)c * n + i] = eq_s2_ssim_d(mu1, mu2, (double)b[2 * n + i], (double)b[3 * n + i],
                                        (double)b[4 * n + i]);
    d1[(size_t)c * n + i] = eq_s2_edge_d1(xyb[(size_t)c * n + i], mu1,
                                          xyb[(size_t)(3 + c) * n + i], mu2);
}

/* The three blur-and-terms kernels for `nch` channels of one scale. */
static int s2_blur_terms(EqCuda *cuda, const double *xyb, int w, int h, int nch, float *tmp,
                         float *blurred, double *d, double *d1, cudaStream_t stream)
{
    int err = 0;
    const size_t n = (size_t)w * h;
    s2_blur_h_kernel<<<dim3(eqc_blocks((size_t)h, S2_TILE), nch), 32 * S2_MAPS, 0, stream>>>(
        xyb, w, h, tmp);
    EQC_CHECK_LAUNCH(cuda, "s2_blur_h_kernel");
    s2_blur_v_kernel<<<dim3(eqc_blocks((size_t)w, 64), 5, nch), 64, 0, stream>>>(tmp, w, h,
                                                                               blurred);
    EQC_CHECK_LAUNCH(cuda, "s2_blur_v_kernel");
    s2_terms_kernel<<<dim3(eqc_blocks(n, 256), nch), 256, 0, stream>>>(xyb, blurred, n, d, d1);
    EQC_CHECK_LAUNCH(cuda, "s2_terms_kernel");
    return 0;
fail:
    return err;
}

static int s2_source(EqCuda *cuda, const EqcFrame *f, S2Src *s)
{
    EqS2Source host;
    int err = eq_s2_source_init(&host, &cuda->settings, f->desc, NULL);
    if (err < 0)
        return err;
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
    if ((err = s2_source(cuda, ref, &s0)) < 0 || (err = s2_source(cuda, dist, &s1)) < 0) {
        eq_log(&cuda->log, EQ_LOG_ERROR, "ssimulacra2: cannot read the frame's planes");
        return err;
    }

    /* lin (6 planes), next (6 quarter planes), xyb (6), tmp (15 floats),
     * then d and d1 of every scale and channel (kept for the sums). */
    const size_t n0 = (size_t)W * H, nq = (size_t)((W + 1) / 2) * ((H + 1) / 2);
    size_t nterms = 0;
    for (int s = 0; s < scales; s++)
        nterms += (size_t)widths[s] * heights[s];
    const size_t bytes = sizeof(double) * (12 * n0 + 6 * nq + 6 * nterms) +
                         sizeof(float) * 30 * n0;
    if ((err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_S2], bytes)) < 0)
        return err;
    double *lin = (double *)cuda->scratch[EQC_SCRATCH_S2].ptr;
    double *next = lin + 6 * n0;
    double *xyb = next + 6 * nq;
    double *terms = xyb + 6 * n0;
    float *tmp = (float *)(terms + 6 * nterms);

    dim3 g0(eqc_blocks((size_t)W, 128), (unsigned)H, 2);
    s2_to_linear_kernel<<<g0, 128, 0, stream>>>(s0, s1, W, H, lin, lin + 3 * n0);
    EQC_CHECK_LAUNCH(cuda, "s2_to_linear_kernel");

    {
        EqcSumDesc desc[EQ_SSIMULACRA2_SUMS];
        int nd = 0;
        double *cur = lin, *nxt = next;
        double *t = terms;
        for (int s = 0; s < scales; s++) {
            const int w = widths[s], h = heights[s];
            const size_t n = (size_t)w * h;
            if (s > 0) {
                const int pw = widths[s - 1], ph = heights[s - 1];
                dim3 gd(eqc_blocks((size_t)w, 128), (unsigned)h, 6);
                s2_downsample_kernel<<<gd, 128, 0, stream>>>(cur, pw, ph, nxt);
                EQC_CHECK_LAUNCH(cuda, "s2_downsample_kernel");
                double *sw = cur;
                cur = nxt;
                nxt = sw;
            }
            /* cur holds frame 0's 3 planes, then frame 1's, each n apart */
            dim3 gx(eqc_blocks(n, 256), 2);
            s2_xyb_kernel<<<gx, 256, 0, stream>>>(cur, xyb, n);
            EQC_CHECK_LAUNCH(cuda, "s2_xyb_kernel");
            double *d = t, *d1 = t + 3 * n;
            if ((err = s2_blur_terms(cuda, xyb, w, h, 3, tmp, tmp + 15 * n0, d, d1, stream)) < 0)
                return err;
            for (int c = 0; c < 3; c++) {
                static const int kinds[6] = { EQC_TERM_X,        EQC_TERM_QUARTIC,
                                              EQC_TERM_ARTIFACT, EQC_TERM_ARTIFACT4,
                                              EQC_TERM_DETAIL,   EQC_TERM_DETAIL4 };
                for (int k = 0; k < 6; k++) {
                    const double *x = (k < 2 ? d : d1) + (size_t)c * n;
                    desc[nd++] = (EqcSumDesc){ x, (long long)n, 1,
                                               EQC_RES_SSIMULACRA2 + eq_s2_sum_index(s, c, k),
                                               kinds[k] };
                }
            }
            t += 6 * n;
        }
        return eqc_sums_launch(cuda, desc, nd, cuda->dres->sums, stream);
    }
fail:
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

extern "C" int eq_cuda_stage_s2_to_linear(EqCuda *cuda, const EqFrame *ref,
                                          const EqFrame *dist, double *lin)
{
    EqcFrame a, b;
    S2Src s0, s1;
    const int w = ref->width, h = ref->height;
    const size_t n = (size_t)w * h;
    int err = eqc_upload_pair(cuda, ref, dist, &a, &b);
    if (err < 0 || (err = s2_source(cuda, &a, &s0)) < 0 || (err = s2_source(cuda, &b, &s1)) < 0)
        return stage_sync(cuda, err);
    if ((err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_STAGE], 6 * n * 8)) < 0)
        return stage_sync(cuda, err);
    {
        double *d = (double *)cuda->scratch[EQC_SCRATCH_STAGE].ptr;
        dim3 g(eqc_blocks((size_t)w, 128), (unsigned)h, 2);
        s2_to_linear_kernel<<<g, 128, 0, cuda->stream>>>(s0, s1, w, h, d, d + 3 * n);
        EQC_CHECK_LAUNCH(cuda, "s2_to_linear_kernel");
        STAGE_COPY(lin, d, 6 * n * 8, cudaMemcpyDeviceToHost);
    }
    return stage_sync(cuda, 0);
fail:
    return stage_sync(cuda, err);
}

extern "C" int eq_cuda_stage_s2_downsample(EqCuda *cuda, const double *in, int w, int h,
                                           double *out)
{
    const size_t n = (size_t)w * h, m = (size_t)((w + 1) / 2) * ((h + 1) / 2);
    int err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_STAGE], (n + m) * 8);
    if (err < 0)
        return err;
    {
        double *d = (double *)cuda->scratch[EQC_SCRATCH_STAGE].ptr;
        STAGE_COPY(d, in, n * 8, cudaMemcpyHostToDevice);
        dim3 g(eqc_blocks((size_t)(w + 1) / 2, 128), (unsigned)(h + 1) / 2, 1);
        s2_downsample_kernel<<<g, 128, 0, cuda->stream>>>(d, w, h, d + n);
        EQC_CHECK_LAUNCH(cuda, "s2_downsample_kernel");
        STAGE_COPY(out, d + n, m * 8, cudaMemcpyDeviceToHost);
    }
    return stage_sync(cuda, 0);
fail:
    return stage_sync(cuda, err);
}

extern "C" int eq_cuda_stage_s2_xyb(EqCuda *cuda, const double *lin, size_t n, double *xyb)
{
    int err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_STAGE], 6 * n * 8);
    if (err < 0)
        return err;
    {
        double *d = (double *)cuda->scratch[EQC_SCRATCH_STAGE].ptr;
        STAGE_COPY(d, lin, 3 * n * 8, cudaMemcpyHostToDevice);
        dim3 g(eqc_blocks(n, 256), 1);
        s2_xyb_kernel<<<g, 256, 0, cuda->stream>>>(d, d + 3 * n, n);
        EQC_CHECK_LAUNCH(cuda, "s2_xyb_kernel");
        STAGE_COPY(xyb, d + 3 * n, 3 * n * 8, cudaMemcpyDeviceToHost);
    }
    return stage_sync(cuda, 0);
fail:
    return stage_sync(cuda, err);
}

extern "C" int eq_cuda_stage_s2_blur_terms(EqCuda *cuda, const double *x1, const double *x2,
                                           int w, int h, double *d, double *d1)
{
    const size_t n = (size_t)w * h;
    /* xyb layout of one channel: x1 in plane 0, x2 in plane 3 */
    int err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_STAGE],
                              8 * n * 8 + 10 * n * sizeof(float));
    if (err < 0)
        return err;
    {
        double *xyb = (double *)cuda->scratch[EQC_SCRATCH_STAGE].ptr;
        double *od = xyb + 6 * n, *od1 = od + n;
        float *tmp = (float *)(od1 + n);
        STAGE_COPY(xyb, x1, n * 8, cudaMemcpyHostToDevice);
        STAGE_COPY(xyb + 3 * n, x2, n * 8, cudaMemcpyHostToDevice);
        EQC_CHECK(cuda, EQC_SITE_OTHER, cudaMemsetAsync(od, 0xff, 2 * n * 8, cuda->stream));
        if ((err = s2_blur_terms(cuda, xyb, w, h, 1, tmp, tmp + 5 * n, od, od1, cuda->stream)) < 0)
            goto fail;
        STAGE_COPY(d, od, n * 8, cudaMemcpyDeviceToHost);
        STAGE_COPY(d1, od1, n * 8, cudaMemcpyDeviceToHost);
    }
    return stage_sync(cuda, 0);
fail:
    return stage_sync(cuda, err);
}
