/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frame sums -> published scores, shared by the CPU and CUDA backends.
 * Definitions: libvmaf 3.2.0 libvmaf/src/feature/integer_psnr.c,
 * iqa/ssim_tools.c (_iqa_ssim's means), ssim.c (compute_ssim),
 * ms_ssim.c (compute_ms_ssim, Wang's product).
 */
#include <math.h>

#include "exact/ssim_terms.h"
#include "finish.h"

double eq_psnr_from_sse(uint64_t sse, uint64_t n_samples, int bitdepth)
{
    /* peak^2 is an integer (uint32_t in libvmaf, 65535^2 fits) converted to
     * double; psnr_max = 6 * bpc + 12 (unsigned) as a double. */
    uint32_t peak = (1u << bitdepth) - 1u;
    uint32_t peak_sq = peak * peak;
    double psnr_max = (double)(6u * (unsigned)bitdepth + 12u);
    double mse = (double)sse / (double)n_samples;
    double floor_mse = mse > 1e-16 ? mse : 1e-16;
    double psnr = 10. * log10((double)peak_sq / floor_mse);
    return psnr < psnr_max ? psnr : psnr_max;
}

/* (float)(sum / (double)(w*h)) in _iqa_ssim, published as a double. */
static double mean_f(double sum, int64_t n)
{
    return (double)(float)(sum / (double)n);
}

void eq_ssim_finish(const EqSsimSums *sums, int64_t n_windows, EqScores *out)
{
    out->ssim = mean_f(sums->lcs, n_windows);
    out->ssim_l = mean_f(sums->l, n_windows);
    out->ssim_c = mean_f(sums->c, n_windows);
    out->ssim_s = mean_f(sums->s, n_windows);
}

void eq_ms_ssim_finish(const EqSsimSums sums[EQ_MS_SSIM_SCALES],
                       const int64_t n_windows[EQ_MS_SSIM_SCALES], EqScores *out)
{
    static const float alphas[EQ_MS_SSIM_SCALES] = EQ_MS_SSIM_ALPHAS;
    static const float betas[EQ_MS_SSIM_SCALES] = EQ_MS_SSIM_BETAS;
    static const float gammas[EQ_MS_SSIM_SCALES] = EQ_MS_SSIM_GAMMAS;
    double msssim = 1.0;

    for (int k = 0; k < EQ_MS_SSIM_SCALES; k++) {
        float l = (float)(sums[k].l / (double)n_windows[k]);
        float c = (float)(sums[k].c / (double)n_windows[k]);
        float s = (float)(sums[k].s / (double)n_windows[k]);
        /* msssim *= pow(l, a) * pow(c, b) * pow(s, g): the three powers
         * multiplied left to right, then into the running product. */
        double pl = pow((double)l, (double)alphas[k]);
        double pc = pow((double)c, (double)betas[k]);
        double ps = pow((double)s, (double)gammas[k]);
        double t = pl * pc;
        t = t * ps;
        msssim = msssim * t;
        out->ms_ssim_l[k] = (double)l;
        out->ms_ssim_c[k] = (double)c;
        out->ms_ssim_s[k] = (double)s;
    }
    out->ms_ssim = msssim;
}

int eq_ms_ssim_scales(const EqLog *log, int w, int h, int sw[EQ_MS_SSIM_SCALES],
                      int sh[EQ_MS_SSIM_SCALES])
{
    for (int k = 0, cw = w, ch = h; k < EQ_MS_SSIM_SCALES; k++, cw /= 2, ch /= 2) {
        if (cw < EQ_SSIM_WINDOW || ch < EQ_SSIM_WINDOW) {
            eq_log(log, EQ_LOG_ERROR,
                   "ms_ssim: a %dx%d frame is too small for float_ms_ssim, which needs "
                   "at least %dx%d samples (an 11x11 window at each of its %d scales)",
                   w, h, EQ_MS_SSIM_MIN_SIZE, EQ_MS_SSIM_MIN_SIZE, EQ_MS_SSIM_SCALES);
            return EQ_ERR_TOO_SMALL;
        }
    }
    sw[0] = w;
    sh[0] = h;
    for (int k = 1; k < EQ_MS_SSIM_SCALES; k++) {
        sw[k] = eq_decimated_size(sw[k - 1], 2);
        sh[k] = eq_decimated_size(sh[k - 1], 2);
    }
    return 0;
}
