/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal: the stages of float_ssim and float_ms_ssim, as a table of C
 * reference functions (dav1d style). Each stage works on rows, so a kernel
 * harness can run one stage on a whole plane and compare its output with the
 * C function's bit for bit, and the CPU driver can run rows on threads.
 *
 * Stage order for one scale (libvmaf 3.2.0 iqa/ssim_tools.c _iqa_ssim):
 *   products      ref^2, dist^2, ref*dist                     (float)
 *   blur_h        11-tap Gaussian along a row, valid part     (w-10 wide)
 *   blur_v        11-tap Gaussian down 11 rows                (w-10 wide)
 *   moments       var_ref, var_dist, cov from the blurred maps (float)
 *   window_terms  l, c (double), s (float), l*c*s (double) per window
 *   frame_sums    sequential double sums in raster order      (the definition
 *                                                              a GPU reproduces)
 * Before that: to_float (picture_copy), and for float_ssim the box
 * decimation by its automatic scale, for float_ms_ssim the 9x9 low-pass
 * decimation by 2 between scales. After: eq_ssim_finish / eq_ms_ssim_finish
 * (lib/finish.h), shared with the CUDA backend.
 *
 * All planes are tight: stride == width, in floats.
 */
#ifndef EQ_CPU_SSIM_H
#define EQ_CPU_SSIM_H

#include <stddef.h>

#include "finish.h"
#include "frame.h"

/* x86-64 builds also carry AVX2 and AVX-512 builds of the stages
 * (lib/meson.build builds them for gcc and clang on x86_64). */
#if defined(__x86_64__) && defined(__GNUC__)
#define EQ_HAVE_X86_ISA 1
#endif

typedef struct EqSsimDsp {
    /* Row y of a plane as floats (eq_ssim_sample); dst holds p->width. */
    void (*to_float)(const EqPlane *p, int y, int bitdepth, float *dst);
    /* Output row y of float_ssim's box decimation by `factor` of a w x h
     * plane; dst holds eq_decimated_size(w, factor). */
    void (*box_decimate)(const float *src, int w, int h, int factor, int y, float *dst);
    /* Output row y of MS-SSIM's 9x9 low-pass decimation by 2 of a w x h
     * plane; dst holds eq_decimated_size(w, 2). */
    void (*lpf_decimate)(const float *src, int w, int h, int y, float *dst);
    /* rr = ref*ref, dd = dist*dist, rd = ref*dist over n samples. */
    void (*products)(const float *ref, const float *dist, int n, float *rr, float *dd,
                     float *rd);
    /* One row, w samples in, w - 10 out. */
    void (*blur_h)(const float *src, int w, float *dst);
    /* rows[k] (k = 0..10) are 11 consecutive rows of the h-blurred plane,
     * each n wide; writes one output row of n. */
    void (*blur_v)(const float *const rows[EQ_SSIM_WINDOW], int n, float *dst);
    /* In place: ref_sq -> var_ref, dist_sq -> var_dist, cross -> cov. */
    void (*moments)(const float *mu1, const float *mu2, float *ref_sq, float *dist_sq,
                    float *cross, int n);
    /* Per window: l, c, s and (if lcs != NULL) l*c*s. */
    void (*window_terms)(const float *mu1, const float *mu2, const float *var1,
                         const float *var2, const float *cov, int n, double *l, double *c,
                         float *s, double *lcs);
    /* Adds n windows' terms, in order, to sums (lcs may be NULL: sums->lcs
     * is then left alone). Called row after row in raster order, this is
     * the frame's sequential sum. */
    void (*frame_sums)(const double *l, const double *c, const float *s, const double *lcs,
                       int n, EqSsimSums *sums);
} EqSsimDsp;

/*
 * The stage functions, by instruction set: _c is the reference; on x86-64 the
 * same source is also built with -mavx2 (_avx2) and -mavx512f (_avx512), and
 * each must give the C reference's bits (tests/lib/test_cpu_metrics.c).
 */
#define EQ_SSIM_DECLARE_STAGES(isa)                                                        \
    void eq_ssim_dsp_init_##isa(EqSsimDsp *dsp);                                           \
    void eq_ssim_to_float_##isa(const EqPlane *p, int y, int bitdepth, float *dst);        \
    void eq_ssim_box_decimate_##isa(const float *src, int w, int h, int factor, int y,     \
                                    float *dst);                                           \
    void eq_ms_ssim_lpf_decimate_##isa(const float *src, int w, int h, int y, float *dst); \
    void eq_ssim_products_##isa(const float *ref, const float *dist, int n, float *rr,     \
                                float *dd, float *rd);                                     \
    void eq_ssim_blur_h_##isa(const float *src, int w, float *dst);                        \
    void eq_ssim_blur_v_##isa(const float *const rows[EQ_SSIM_WINDOW], int n, float *dst); \
    void eq_ssim_moments_##isa(const float *mu1, const float *mu2, float *ref_sq,          \
                               float *dist_sq, float *cross, int n);                       \
    void eq_ssim_window_terms_##isa(const float *mu1, const float *mu2, const float *var1, \
                                    const float *var2, const float *cov, int n, double *l, \
                                    double *c, float *s, double *lcs);                     \
    void eq_ssim_frame_sums_##isa(const double *l, const double *c, const float *s,        \
                                  const double *lcs, int n, EqSsimSums *sums);

EQ_SSIM_DECLARE_STAGES(c)
#if defined(EQ_HAVE_X86_ISA)
EQ_SSIM_DECLARE_STAGES(avx2)
EQ_SSIM_DECLARE_STAGES(avx512)
#endif

/* The fastest variant this CPU runs. */
void eq_ssim_dsp_init(EqSsimDsp *dsp);
/* A named variant ("c", "avx2", "avx512"): 0, or -1 when it is not built
 * or this CPU cannot run it. */
int eq_ssim_dsp_init_isa(EqSsimDsp *dsp, const char *isa);

struct EqCpu;
typedef struct EqSsimWork EqSsimWork;

/*
 * SSIM of one scale: ref and dist are tight w x h float planes (w, h >=
 * EQ_SSIM_WINDOW); fills sums over the (w-10) x (h-10) windows (sums->lcs
 * only when want_lcs). Uses the CPU's pool and a workspace kept in *work
 * (grown as needed; free with eq_ssim_work_free). 0 or EQ_ERR_NO_MEMORY.
 */
int eq_cpu_ssim_scale(struct EqCpu *cpu, EqSsimWork **work, const float *ref,
                      const float *dist, int w, int h, int want_lcs, EqSsimSums *sums);
void eq_ssim_work_free(EqSsimWork **work);

/* Converts component 0 of a frame to a tight float plane, on the pool. */
void eq_cpu_luma_to_float(struct EqCpu *cpu, const EqFrame *f, float *dst);

#endif /* EQ_CPU_SSIM_H */
