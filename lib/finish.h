/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal: the host-side mapping from frame sums to published scores, in one
 * place for both backends. The CPU reference and the CUDA backend produce the
 * same sums (an integer SSE; sequential double sums of window terms), and
 * these functions turn them into EqScores exactly as libvmaf 3.2.0 does:
 * division into means, rounding to float, log10, pow and the Wang product.
 * libm is allowed here: both backends finish on the same host code.
 */
#ifndef EQ_FINISH_H
#define EQ_FINISH_H

#include <stdint.h>

#include "exactquality.h"
#include "internal.h"

/* SSIM window size (11x11 Gaussian); a plane smaller than this on a side,
 * after float_ssim's decimation, cannot be scored. */
#define EQ_SSIM_WINDOW 11
/* float_ms_ssim needs EQ_SSIM_WINDOW on a side at every scale, with libvmaf's
 * halving by integer division: 11 * 2^4 = 176. */
#define EQ_MS_SSIM_MIN_SIZE (EQ_SSIM_WINDOW << (EQ_MS_SSIM_SCALES - 1))

/* Sequential double sums of one scale's window terms (see
 * eq_ssim_frame_sums_c): l, c, s and the SSIM map value l*c*s. */
typedef struct EqSsimSums {
    double l, c, s, lcs;
} EqSsimSums;

/*
 * PSNR of one plane from its integer SSE (libvmaf integer_psnr.c, defaults):
 * mse = sse / (w*h); min(10 log10(peak^2 / max(mse, 1e-16)), 6*bpc + 12),
 * peak = 2^bpc - 1. n_samples is the plane's w*h as libvmaf sizes it.
 */
double eq_psnr_from_sse(uint64_t sse, uint64_t n_samples, int bitdepth);

/* float_ssim and its l, c, s means from the sums over n_windows windows:
 * each mean is (float)(sum / (double)n_windows), published as a double. */
void eq_ssim_finish(const EqSsimSums *sums, int64_t n_windows, EqScores *out);

/* float_ms_ssim from the sums of its 5 scales (sums[k].lcs unused) and the
 * windows per scale: per-scale means rounded to float, then
 * prod_k l_k^alpha_k * c_k^beta_k * s_k^gamma_k in libvmaf's order. */
void eq_ms_ssim_finish(const EqSsimSums sums[EQ_MS_SSIM_SCALES],
                       const int64_t n_windows[EQ_MS_SSIM_SCALES], EqScores *out);

/* Sizes of float_ms_ssim's 5 scales into sw/sh. libvmaf ms_ssim.c checks
 * each scale with the size halved by integer division; when one cannot hold
 * the 11x11 window, logs a sentence naming the metric and its minimum and
 * returns EQ_ERR_TOO_SMALL. Both backends size their pyramids here. */
int eq_ms_ssim_scales(const EqLog *log, int w, int h, int sw[EQ_MS_SSIM_SCALES],
                      int sh[EQ_MS_SSIM_SCALES]);

#endif /* EQ_FINISH_H */
