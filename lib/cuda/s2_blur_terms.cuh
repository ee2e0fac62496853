/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * SSIMULACRA2's blurs with the terms: the device kernel, in a header of its
 * own so that tests/checkkernels/emu_s2_blur_terms.cpp can run the same
 * text on the host (256 host threads a block, a barrier for
 * __syncthreads), where CI has no GPU. Included by lib/cuda/ssimulacra2.cu.
 */
#ifndef EQ_CUDA_S2_BLUR_TERMS_CUH
#define EQ_CUDA_S2_BLUR_TERMS_CUH

#include "exact/ssimulacra2.h"

/* The blurs and the terms: one block per S2_FT x S2_FT pixels of one
 * channel (blockIdx.z), 256 threads. The tile's x1 and x2 with a margin of
 * R = EQ_S2_BLUR_R on every side (S2_FH x S2_FH, 0 outside the frame: the
 * blur's zero padding) come into shared memory; a warp per row forms the
 * five maps' inputs (eq_s2_blur_input) of its row's 9 neighbours and their
 * row blurs (eq_s2_fir9) for the tile's columns, on every row of the tile
 * and of the margin above and below (rows outside the frame are 0 and
 * blur to +0, as the C stage's zero rows); then a lane per column and four
 * rows per warp blur the five maps down the column from the rows in shared
 * memory and form the pixels' terms (eq_s2_ssim_d, eq_s2_edge_d1, the
 * floats widened to double) into d and d1 (channel c's double planes).
 * Each output is the C stages' expression on the same inputs: the same
 * bits. Warps read and write rows of 32 consecutive floats (no bank
 * conflicts). */
#define S2_FT 32
#define S2_FH (S2_FT + 2 * EQ_S2_BLUR_R)
#define S2_FTHREADS 256
#define S2_FROWS (S2_FT * 32 / S2_FTHREADS) /* column pass: rows per thread */
#define S2_MAPS EQ_S2_MAPS

__global__ void __launch_bounds__(S2_FTHREADS)
s2_blur_terms_kernel(const float *xyb, int w, int h, double *d, double *d1)
{
    enum { R = EQ_S2_BLUR_R, WARPS = S2_FTHREADS / 32 };
    static_assert(S2_FROWS * WARPS == S2_FT && S2_FT == 32, "a warp a row of the tile");
    __shared__ float sx[2][S2_FH][S2_FH];
    __shared__ float sh[S2_MAPS][S2_FH][S2_FT];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int x0 = blockIdx.x * S2_FT, y0 = blockIdx.y * S2_FT, c = blockIdx.z;
    const size_t n = (size_t)w * h;
    const float *x1 = xyb + (size_t)c * n, *x2 = xyb + (size_t)(3 + c) * n;

    for (int i = tid; i < S2_FH * S2_FH; i += S2_FTHREADS) {
        const int r = i / S2_FH, q = i - r * S2_FH;
        const int y = y0 - R + r, x = x0 - R + q;
        const bool in = y >= 0 && y < h && x >= 0 && x < w;
        const size_t k = in ? (size_t)y * w + x : 0;
        const float a = x1[k], b = x2[k];
        sx[0][r][q] = in ? a : 0.0f;
        sx[1][r][q] = in ? b : 0.0f;
    }
    __syncthreads();

    /* row blurs: row r of the margin and tile (frame row y0 - R + r),
     * output column lane (frame column x0 + lane) */
    for (int r = warp; r < S2_FH; r += WARPS) {
        float a[2 * R + 1], b[2 * R + 1];
#pragma unroll
        for (int t = 0; t <= 2 * R; t++) {
            a[t] = sx[0][r][lane + t];
            b[t] = sx[1][r][lane + t];
        }
#pragma unroll
        for (int m = 0; m < S2_MAPS; m++) {
            float v[2 * R + 1];
#pragma unroll
            for (int t = 0; t <= 2 * R; t++)
                v[t] = eq_s2_blur_input(m, a[t], b[t]);
            sh[m][r][lane] = eq_s2_fir9_at(v, 1);
        }
    }
    __syncthreads();

    /* column blurs and terms: rows r0 .. r0 + S2_FROWS - 1 of the tile,
     * column lane */
    const int r0 = warp * S2_FROWS, x = x0 + lane;
    float mu[S2_MAPS][S2_FROWS];
#pragma unroll
    for (int m = 0; m < S2_MAPS; m++) {
        float v[S2_FROWS + 2 * R];
#pragma unroll
        for (int t = 0; t < S2_FROWS + 2 * R; t++)
            v[t] = sh[m][r0 + t][lane];
#pragma unroll
        for (int j = 0; j < S2_FROWS; j++)
            mu[m][j] = eq_s2_fir9_at(v + j, 1);
    }
#pragma unroll
    for (int j = 0; j < S2_FROWS; j++) {
        const int y = y0 + r0 + j;
        if (y < h && x < w) {
            const size_t k = (size_t)c * n + (size_t)y * w + x;
            const double m1 = mu[EQ_S2_MAP_MU1][j], m2 = mu[EQ_S2_MAP_MU2][j];
            d[k] = eq_s2_ssim_d(m1, m2, (double)mu[EQ_S2_MAP_S11][j],
                                (double)mu[EQ_S2_MAP_S22][j], (double)mu[EQ_S2_MAP_S12][j]);
            d1[k] = eq_s2_edge_d1((double)sx[0][r0 + j + R][lane + R], m1,
                                  (double)sx[1][r0 + j + R][lane + R], m2);
        }
    }
}

#endif /* EQ_CUDA_S2_BLUR_TERMS_CUH */
