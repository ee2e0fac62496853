/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * float_ms_ssim on the device. The reference is lib/cpu/ms_ssim.c (libvmaf
 * 3.2.0 ms_ssim.c compute_ms_ssim): scale 0 is the luma as floats, scale
 * k+1 is scale k decimated by 2 with the 9x9 low-pass (eq_decimated_size,
 * mirrored edges, the 81 taps of EQ_MS_SSIM_LPF_TAPS in table order from
 * 0.0 as eq_ms_ssim_lpf_decimate_c adds them), and each scale's window
 * terms come from the SSIM stages of ssim.cu. The 15 sums (l, c, s of 5
 * scales, each in raster order) go through the ordered-sum engine in one
 * launch; the means, their float rounding and Wang's product are the CPU's
 * host finish (eq_ms_ssim_finish, lib/finish.c).
 */
#include "cuda/ssim.cuh"
extern "C" {
#include "finish.h"
}

static __constant__ float c_lpf[EQ_MS_SSIM_LPF_LEN * EQ_MS_SSIM_LPF_LEN] = EQ_MS_SSIM_LPF_TAPS;

/* The 9x9 low-pass decimation by 2: a block of LPF_TX x LPF_TY outputs
 * stages its (2 LPF_TY + 7) x (2 LPF_TX + 7) inputs in shared memory (the
 * mirrored coordinates eq_reflect gives, read once, coalesced), then each
 * thread adds its output's 81 taps in table order from 0.0 as
 * eq_ms_ssim_lpf_decimate_c does; z picks the plane. Inputs no output of
 * the block needs are clamped into the plane (never used). */
#define LPF_TX 32
#define LPF_TY 8
#define LPF_IW (2 * LPF_TX + EQ_MS_SSIM_LPF_LEN - 2)
#define LPF_IH (2 * LPF_TY + EQ_MS_SSIM_LPF_LEN - 2)

__global__ void __launch_bounds__(LPF_TX * LPF_TY)
ms_ssim_lpf_kernel(const float *s0, const float *s1, int w, int h, int sw, int sh, float *d0,
                   float *d1)
{
    __shared__ float tile[LPF_IH][LPF_IW + 1];
    const int R = EQ_MS_SSIM_LPF_LEN / 2;
    const int tid = threadIdx.y * LPF_TX + threadIdx.x;
    const int ox0 = blockIdx.x * LPF_TX, oy0 = blockIdx.y * LPF_TY;
    const float *src = blockIdx.z ? s1 : s0;
    float *dst = blockIdx.z ? d1 : d0;

    for (int i = tid; i < LPF_IH * LPF_IW; i += LPF_TX * LPF_TY) {
        const int r = i / LPF_IW, c = i - r * LPF_IW;
        int y = eq_reflect(2 * oy0 - R + r, h), x = eq_reflect(2 * ox0 - R + c, w);
        y = min(max(y, 0), h - 1);
        x = min(max(x, 0), w - 1);
        tile[r][c] = src[(size_t)y * w + x];
    }
    __syncthreads();
    const int x = ox0 + threadIdx.x, y = oy0 + threadIdx.y;
    if (x >= sw || y >= sh)
        return;
    double acc = 0.0;
    for (int v = 0; v < EQ_MS_SSIM_LPF_LEN; v++) {
        const float *row = &tile[2 * threadIdx.y + v][2 * threadIdx.x];
#pragma unroll
        for (int t = 0; t < EQ_MS_SSIM_LPF_LEN; t++)
            acc = eq_tap(acc, row[t], c_lpf[v * EQ_MS_SSIM_LPF_LEN + t]);
    }
    dst[(size_t)y * sw + x] = (float)acc;
}

int eqc_ms_ssim_lpf(EqCuda *cuda, const float *s0, const float *s1, int w, int h, float *d0,
                    float *d1, cudaStream_t stream)
{
    int err = 0;
    const int sw = eq_decimated_size(w, 2), sh = eq_decimated_size(h, 2);
    dim3 grid(eqc_blocks((size_t)sw, LPF_TX), eqc_blocks((size_t)sh, LPF_TY), 2);
    ms_ssim_lpf_kernel<<<grid, dim3(LPF_TX, LPF_TY), 0, stream>>>(s0, s1, w, h, sw, sh, d0, d1);
    EQC_CHECK_LAUNCH(cuda, "ms_ssim_lpf_kernel");
    return 0;
fail:
    return err;
}

/* Sizes of the 5 scales: the CPU's own function (lib/finish.c). */
static int ms_ssim_geometry(EqCuda *cuda, const EqFrame *f, int sw[EQ_MS_SSIM_SCALES],
                            int sh[EQ_MS_SSIM_SCALES])
{
    return eq_ms_ssim_scales(&cuda->log, f->width, f->height, sw, sh);
}

int eqc_ms_ssim_launch(EqCuda *cuda, const EqcFrame *ref, const EqcFrame *dist,
                       cudaStream_t stream)
{
    int sw[EQ_MS_SSIM_SCALES], sh[EQ_MS_SSIM_SCALES], err;
    size_t planes = 0, windows = 0;

    if ((err = ms_ssim_geometry(cuda, ref->desc, sw, sh)) < 0)
        return err;
    for (int k = 0; k < EQ_MS_SSIM_SCALES; k++) {
        planes += (size_t)sw[k] * sh[k];
        windows += (size_t)(sw[k] - 10) * (sh[k] - 10);
    }
    const size_t bytes = 3 * windows * sizeof(double) + 2 * planes * sizeof(float);
    if ((err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_MS_SSIM], bytes)) < 0)
        return err;
    double *terms = (double *)cuda->scratch[EQC_SCRATCH_MS_SSIM].ptr;
    float *pr[EQ_MS_SSIM_SCALES], *pd[EQ_MS_SSIM_SCALES];
    float *f = (float *)(terms + 3 * windows);
    for (int k = 0; k < EQ_MS_SSIM_SCALES; k++) {
        pr[k] = f;
        pd[k] = f + (size_t)sw[k] * sh[k];
        f = pd[k] + (size_t)sw[k] * sh[k];
    }

    if ((err = eqc_ssim_to_float(cuda, &ref->comp[0], &dist->comp[0], ref->desc->bitdepth,
                                 pr[0], pd[0], stream)) < 0)
        return err;
    for (int k = 1; k < EQ_MS_SSIM_SCALES; k++)
        if ((err = eqc_ms_ssim_lpf(cuda, pr[k - 1], pd[k - 1], sw[k - 1], sh[k - 1], pr[k],
                                   pd[k], stream)) < 0)
            return err;

    EqcSumDesc desc[3 * EQ_MS_SSIM_SCALES];
    double *t = terms;
    for (int k = 0; k < EQ_MS_SSIM_SCALES; k++) {
        const size_t nw = (size_t)(sw[k] - 10) * (sh[k] - 10);
        if ((err = eqc_ssim_terms(cuda, pr[k], pd[k], sw[k], sh[k], t, t + nw, t + 2 * nw,
                                  NULL, stream)) < 0)
            return err;
        for (int i = 0; i < 3; i++)
            desc[3 * k + i] = (EqcSumDesc){ t + i * nw, (long long)nw, 1,
                                            EQC_RES_MS_SSIM + 3 * k + i, EQC_TERM_X };
        t += 3 * nw;
    }
    return eqc_sums_launch(cuda, desc, 3 * EQ_MS_SSIM_SCALES, cuda->dres->sums, stream);
}

int eqc_ms_ssim_finish(EqCuda *cuda, const EqFrame *ref, const EqcResults *res,
                       EqScores *out)
{
    int sw[EQ_MS_SSIM_SCALES], sh[EQ_MS_SSIM_SCALES], err;
    EqSsimSums sums[EQ_MS_SSIM_SCALES];
    int64_t n_windows[EQ_MS_SSIM_SCALES];

    if ((err = ms_ssim_geometry(cuda, ref, sw, sh)) < 0)
        return err;
    for (int k = 0; k < EQ_MS_SSIM_SCALES; k++) {
        sums[k].l = res->sums[EQC_RES_MS_SSIM + 3 * k + 0];
        sums[k].c = res->sums[EQC_RES_MS_SSIM + 3 * k + 1];
        sums[k].s = res->sums[EQC_RES_MS_SSIM + 3 * k + 2];
        sums[k].lcs = 0.0;
        n_windows[k] = (int64_t)(sw[k] - 10) * (sh[k] - 10);
    }
    eq_ms_ssim_finish(sums, n_windows, out);
    return 0;
}
