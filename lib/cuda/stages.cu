/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Single device stages on host input, for tests/checkkernels (lib/cuda/
 * cuda.h). Each copies its input up on the scorer's stream, runs one stage
 * and copies every output back.
 */
#include <string.h>

#include "cuda/ssim.cuh"

static int stage_begin(EqCuda *cuda, size_t bytes, uint8_t **base)
{
    int err = 0;
    *base = NULL;
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaSetDevice(cuda->device));
    if ((err = eqc_buf_reserve(cuda, &cuda->scratch[EQC_SCRATCH_STAGE], bytes)) < 0)
        return err;
    *base = (uint8_t *)cuda->scratch[EQC_SCRATCH_STAGE].ptr;
    return 0;
fail:
    return err;
}

static int up(EqCuda *cuda, void *dst, const void *src, size_t n)
{
    int err = 0;
    EQC_CHECK(cuda, EQC_SITE_COPY,
              cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, cuda->stream));
    return 0;
fail:
    return err;
}

static int down(EqCuda *cuda, void *dst, const void *src, size_t n)
{
    int err = 0;
    EQC_CHECK(cuda, EQC_SITE_COPY,
              cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, cuda->stream));
    return 0;
fail:
    return err;
}

static int finish(EqCuda *cuda, int err)
{
    cudaError_t e = cudaStreamSynchronize(cuda->stream);
    if (err < 0) {
        (void)cudaGetLastError();
        return err;
    }
    if (e != cudaSuccess)
        return eqc_fail(cuda, e, "cudaStreamSynchronize", __FILE__, __LINE__);
    return 0;
}

static size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

/*
 * Component 0 of both frames, uploaded, moved to `misalign` bytes past a
 * 256-byte boundary of the stage scratch at `at`, rows (row bytes +
 * misalign) apart, so that rows start on every alignment; misalign 0
 * leaves the views where the upload put them. `at` needs misalign_bytes().
 */
static size_t misalign_bytes(const EqcPlane *p, int misalign)
{
    const size_t row = (size_t)(p->width - 1) * (size_t)p->step + (size_t)p->bytes;
    return misalign ? 2 * align256((row + (size_t)misalign) * (size_t)p->height + 256) : 0;
}

static int misalign_views(EqCuda *cuda, EqcFrame *a, EqcFrame *b, int misalign, uint8_t *at)
{
    int err = 0;
    if (!misalign)
        return 0;
    if (misalign < 0 || misalign > 255)
        return EQ_ERR_INVALID_ARGUMENT;
    EqcPlane *pl[2] = { &a->comp[0], &b->comp[0] };
    const size_t row = (size_t)(pl[0]->width - 1) * (size_t)pl[0]->step + (size_t)pl[0]->bytes;
    const size_t pitch = row + (size_t)misalign;
    const size_t each = align256(pitch * (size_t)pl[0]->height + 256);
    for (int k = 0; k < 2; k++) {
        uint8_t *dst = at + k * each + misalign;
        EQC_CHECK(cuda, EQC_SITE_COPY,
                  cudaMemcpy2DAsync(dst, pitch, pl[k]->data, (size_t)pl[k]->stride, row,
                                    (size_t)pl[k]->height, cudaMemcpyDeviceToDevice,
                                    cuda->stream));
        pl[k]->data = dst;
        pl[k]->stride = (ptrdiff_t)pitch;
    }
    return 0;
fail:
    return err;
}

extern "C" int eq_cuda_stage_ssim_to_float(EqCuda *cuda, const EqFrame *ref,
                                           const EqFrame *dist, int misalign, float *dr,
                                           float *dd)
{
    EqcFrame a, b;
    uint8_t *base = NULL;
    const size_t n = (size_t)ref->width * ref->height;
    int err = eqc_upload_pair(cuda, ref, dist, &a, &b, 1);
    if (err < 0)
        return finish(cuda, err);
    const size_t out = align256(2 * n * sizeof(float));
    if ((err = stage_begin(cuda, out + misalign_bytes(&a.comp[0], misalign), &base)) < 0)
        return finish(cuda, err);
    float *o0 = (float *)base, *o1 = o0 + n;
    err = misalign_views(cuda, &a, &b, misalign, base + out);
    if (err >= 0)
        err = eqc_ssim_to_float(cuda, &a.comp[0], &b.comp[0], ref->bitdepth, o0, o1,
                                cuda->stream);
    if (err >= 0)
        err = down(cuda, dr, o0, n * sizeof(float));
    if (err >= 0)
        err = down(cuda, dd, o1, n * sizeof(float));
    return finish(cuda, err);
}

extern "C" int eq_cuda_stage_ssim_box_samples(EqCuda *cuda, const EqFrame *ref,
                                              const EqFrame *dist, int factor, int misalign,
                                              float *dr, float *dd)
{
    EqcFrame a, b;
    uint8_t *base = NULL;
    const size_t m =
        (size_t)eq_decimated_size(ref->width, factor) * eq_decimated_size(ref->height, factor);
    int err = eqc_upload_pair(cuda, ref, dist, &a, &b, 1);
    if (err < 0)
        return finish(cuda, err);
    const size_t out = align256(2 * m * sizeof(float));
    if ((err = stage_begin(cuda, out + misalign_bytes(&a.comp[0], misalign), &base)) < 0)
        return finish(cuda, err);
    float *o0 = (float *)base, *o1 = o0 + m;
    /* poison: every output must be written */
    EQC_CHECK(cuda, EQC_SITE_OTHER,
              cudaMemsetAsync(o0, 0xff, 2 * m * sizeof(float), cuda->stream));
    err = misalign_views(cuda, &a, &b, misalign, base + out);
    if (err >= 0)
        err = eqc_ssim_box_samples(cuda, &a.comp[0], &b.comp[0], ref->bitdepth, factor, o0, o1,
                                   cuda->stream);
    if (err >= 0)
        err = down(cuda, dr, o0, m * sizeof(float));
    if (err >= 0)
        err = down(cuda, dd, o1, m * sizeof(float));
    return finish(cuda, err);
fail:
    return finish(cuda, err);
}

extern "C" int eq_cuda_stage_ssim_box(EqCuda *cuda, const float *src, int w, int h, int factor,
                                      float *dst)
{
    uint8_t *base = NULL;
    const size_t n = (size_t)w * h;
    const size_t m = (size_t)eq_decimated_size(w, factor) * eq_decimated_size(h, factor);
    int err = stage_begin(cuda, align256(n * 4) + m * 4 * 2, &base);
    if (err < 0)
        return err;
    float *in = (float *)base, *out = (float *)(base + align256(n * 4));
    if ((err = up(cuda, in, src, n * 4)) >= 0)
        err = eqc_ssim_box(cuda, in, in, w, h, factor, out, out + m, cuda->stream);
    if (err >= 0)
        err = down(cuda, dst, out, m * 4);
    return finish(cuda, err);
}

extern "C" int eq_cuda_stage_ms_ssim_lpf(EqCuda *cuda, const float *src, int w, int h,
                                         float *dst)
{
    uint8_t *base = NULL;
    const size_t n = (size_t)w * h;
    const size_t m = (size_t)eq_decimated_size(w, 2) * eq_decimated_size(h, 2);
    int err = stage_begin(cuda, align256(n * 4) + m * 4 * 2, &base);
    if (err < 0)
        return err;
    float *in = (float *)base, *out = (float *)(base + align256(n * 4));
    if ((err = up(cuda, in, src, n * 4)) >= 0)
        err = eqc_ms_ssim_lpf(cuda, in, in, w, h, out, out + m, cuda->stream);
    if (err >= 0)
        err = down(cuda, dst, out, m * 4);
    return finish(cuda, err);
}

extern "C" int eq_cuda_stage_ssim_terms(EqCuda *cuda, const float *ref, const float *dist,
                                        int w, int h, double *l, double *c, double *s,
                                        double *lcs)
{
    uint8_t *base = NULL;
    const size_t n = (size_t)w * h;
    const size_t nw = (size_t)(w - 10) * (h - 10);
    int err = stage_begin(cuda, 2 * align256(n * 4) + 4 * nw * 8, &base);
    if (err < 0)
        return err;
    float *ir = (float *)base, *id = (float *)(base + align256(n * 4));
    double *t = (double *)(base + 2 * align256(n * 4));
    /* poison: every output must be written */
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaMemsetAsync(t, 0xff, 4 * nw * 8, cuda->stream));
    if ((err = up(cuda, ir, ref, n * 4)) >= 0 && (err = up(cuda, id, dist, n * 4)) >= 0)
        err = eqc_ssim_terms(cuda, ir, id, w, h, t, t + nw, t + 2 * nw, t + 3 * nw,
                             cuda->stream);
    if (err >= 0)
        err = down(cuda, l, t, nw * 8);
    if (err >= 0)
        err = down(cuda, c, t + nw, nw * 8);
    if (err >= 0)
        err = down(cuda, s, t + 2 * nw, nw * 8);
    if (err >= 0)
        err = down(cuda, lcs, t + 3 * nw, nw * 8);
    return finish(cuda, err);
fail:
    return finish(cuda, err);
}

extern "C" int eq_cuda_stage_ord_compose(EqCuda *cuda, const EqOrdPiece *steps, const int *n,
                                         int nchains, EqOrdPiece *out, int *nout)
{
    uint8_t *base = NULL;
    if (!steps || !n || !out || !nout || nchains <= 0 || nchains > 65535)
        return EQ_ERR_INVALID_ARGUMENT;
    for (int b = 0; b < nchains; b++)
        if (n[b] < 0 || n[b] > EQ_CUDA_COMPOSE_STEPS)
            return EQ_ERR_INVALID_ARGUMENT;
    const size_t ps = (size_t)nchains * EQ_CUDA_COMPOSE_STEPS * sizeof(EqOrdPiece);
    const size_t ns = (size_t)nchains * sizeof(int), is = align256(ns);
    int err = stage_begin(cuda, 2 * ps + 2 * is, &base);
    if (err < 0)
        return err;
    EqOrdPiece *din = (EqOrdPiece *)base, *dout = (EqOrdPiece *)(base + ps);
    int *dn = (int *)(base + 2 * ps), *dleft = (int *)(base + 2 * ps + is);
    /* poison: every step kept and every count must be written */
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaMemsetAsync(dout, 0xff, ps, cuda->stream));
    EQC_CHECK(cuda, EQC_SITE_OTHER, cudaMemsetAsync(dleft, 0xff, is, cuda->stream));
    if ((err = up(cuda, din, steps, ps)) >= 0 && (err = up(cuda, dn, n, ns)) >= 0)
        err = eqc_ord_compose(cuda, din, dn, nchains, dout, dleft, cuda->stream);
    if (err >= 0)
        err = down(cuda, out, dout, ps);
    if (err >= 0)
        err = down(cuda, nout, dleft, ns);
    return finish(cuda, err);
fail:
    return finish(cuda, err);
}
