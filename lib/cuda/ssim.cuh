/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal: the SSIM stages on the device (lib/cuda/ssim.cu), shared by
 * float_ssim and float_ms_ssim. Planes are tight float arrays (stride ==
 * width), as in lib/cpu/ssim.h. Each function enqueues on `stream`.
 */
#ifndef EQ_CUDA_SSIM_CUH
#define EQ_CUDA_SSIM_CUH

#include "cuda/common.cuh"
#include "exact/ssim_terms.h"

/* Component planes r and d -> tight floats (eq_ssim_sample). */
int eqc_ssim_to_float(EqCuda *cuda, const EqcPlane *r, const EqcPlane *d, int bitdepth,
                      float *dr, float *dd, cudaStream_t stream);
/* float_ssim's box decimation of two w x h planes by `factor`. */
int eqc_ssim_box(EqCuda *cuda, const float *s0, const float *s1, int w, int h, int factor,
                 float *d0, float *d1, cudaStream_t stream);
/* float_ssim's box decimation by `factor` (2 .. EQC_SSIM_BOX_MAX_FACTOR)
 * straight from component planes r and d: the floats of eqc_ssim_to_float
 * then eqc_ssim_box, without the full-size float planes. Its shared memory
 * grows with the factor (4 * 33 * factor floats a block); larger factors
 * take the two stages. */
#define EQC_SSIM_BOX_MAX_FACTOR 64
int eqc_ssim_box_samples(EqCuda *cuda, const EqcPlane *r, const EqcPlane *d, int bitdepth,
                         int factor, float *d0, float *d1, cudaStream_t stream);
/* MS-SSIM's 9x9 low-pass decimation by 2 of two w x h planes. */
int eqc_ms_ssim_lpf(EqCuda *cuda, const float *s0, const float *s1, int w, int h, float *d0,
                    float *d1, cudaStream_t stream);
/* Window terms of one scale: (w-10) x (h-10) windows; lcs may be NULL. */
int eqc_ssim_terms(EqCuda *cuda, const float *ref, const float *dist, int w, int h,
                   double *l, double *c, double *s, double *lcs, cudaStream_t stream);

#endif /* EQ_CUDA_SSIM_CUH */
