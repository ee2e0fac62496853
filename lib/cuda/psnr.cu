/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * PSNR on the device: the sum of squared differences of each component as
 * a 64-bit integer. Integer adds are associative, so the device may add in
 * any order (per thread, per warp, per block, then one atomic add per
 * block) and still have the CPU's exact sum; no ordered-sum engine needed,
 * and the exact and tree modes are the same kernel. The term is the CPU's
 * (lib/exact/psnr_terms.h), and so is the host function that turns the SSE
 * into decibels (eq_psnr_from_sse, lib/finish.h). Plane sizes are the CPU's
 * (libvmaf's): a chroma plane is (w >> ss_x) x (h >> ss_y).
 *
 * Reference: libvmaf 3.2.0 libvmaf/src/feature/integer_psnr.c. Its 8-bit
 * loop keeps a uint32_t per row and its high-bit-depth loop a uint32_t per
 * sample; neither can wrap for frames the library accepts (a 16384-sample
 * row of 8-bit errors is at most 16384 * 255^2 < 2^32; one 16-bit error
 * squared is below 2^32), so both are the plain integer sum computed here.
 */
#include "cuda/common.cuh"
#include "exact/psnr_terms.h"
extern "C" {
#include "finish.h"
}

#define PSNR_THREADS 256

static __device__ __forceinline__ unsigned long long
warp_sum_u64(unsigned long long v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/* Sum of squared differences of samples [x0, x1) of one row, one sample
 * per thread (stride blockDim.x): any layout, any depth. */
static __device__ __forceinline__ unsigned long long
row_sse_scalar(const EqcPlane &r, const EqcPlane &d, const uint8_t *rr, const uint8_t *dr, int x0,
               int x1)
{
    unsigned long long acc = 0;
    for (int x = x0 + (int)threadIdx.x; x < x1; x += blockDim.x)
        acc += eq_psnr_term(eqc_sample_in_row(r, rr, x), eqc_sample_in_row(d, dr, x));
    return acc;
}

/* The same over n 16-byte words of a row of packed samples, aligned in both
 * frames: 16 samples a word at 8 bits (|a - b| per byte, squared and added
 * four at a time by a dot product: exact, every partial below 2^32), 8 at
 * deeper depths. */
static __device__ __forceinline__ unsigned long long
row_sse_vec(const uint4 *rv, const uint4 *dv, int n, int bytes, int rshift, int dshift)
{
    unsigned long long acc = 0;
    if (bytes == 1) {
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const uint4 a = rv[i], b = dv[i];
            unsigned e0 = __vabsdiffu4(a.x, b.x), e1 = __vabsdiffu4(a.y, b.y);
            unsigned e2 = __vabsdiffu4(a.z, b.z), e3 = __vabsdiffu4(a.w, b.w);
            unsigned s = __dp4a(e0, e0, 0u);
            s = __dp4a(e1, e1, s);
            s = __dp4a(e2, e2, s);
            s = __dp4a(e3, e3, s);
            acc += s;
        }
    } else {
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const uint4 a = rv[i], b = dv[i];
            const unsigned aw[4] = { a.x, a.y, a.z, a.w }, bw[4] = { b.x, b.y, b.z, b.w };
#pragma unroll
            for (int k = 0; k < 4; k++) {
                acc += eq_psnr_term((aw[k] & 0xffffu) >> rshift, (bw[k] & 0xffffu) >> dshift);
                acc += eq_psnr_term((aw[k] >> 16) >> rshift, (bw[k] >> 16) >> dshift);
            }
        }
    }
    return acc;
}

/* Block b of component blockIdx.y takes rows b, b + gridDim.x, ...; its
 * threads share each row. A row of packed samples whose two frames have the
 * same offset from a 16-byte boundary is read in 16-byte words between a
 * sample-wise head and tail; any other row sample by sample. The sum is an
 * integer: the split changes nothing. */
__global__ void __launch_bounds__(PSNR_THREADS)
psnr_sse_kernel(EqcPlane r0, EqcPlane d0, EqcPlane r1, EqcPlane d1, EqcPlane r2,
                EqcPlane d2, int ncomp, unsigned long long *sse)
{
    __shared__ unsigned long long warp_part[PSNR_THREADS / 32];
    const int c = blockIdx.y;
    if (c >= ncomp)
        return;
    const EqcPlane r = c == 0 ? r0 : c == 1 ? r1 : r2;
    const EqcPlane d = c == 0 ? d0 : c == 1 ? d1 : d2;
    const bool packed = r.step == r.bytes && d.step == d.bytes;
    unsigned long long acc = 0;

    for (int y = blockIdx.x; y < r.height; y += gridDim.x) {
        const uint8_t *rr = r.data + (ptrdiff_t)y * r.stride;
        const uint8_t *dr = d.data + (ptrdiff_t)y * d.stride;
        const unsigned mis = (unsigned)((uintptr_t)rr & 15);
        int head = r.width, n = 0;
        if (packed && mis == ((uintptr_t)dr & 15) && mis % r.bytes == 0) {
            head = (int)(((16 - mis) & 15) / r.bytes);
            if (head > r.width)
                head = r.width;
            n = (r.width - head) * r.bytes / 16;
        }
        const int tail = head + n * 16 / r.bytes;
        acc += row_sse_scalar(r, d, rr, dr, 0, head);
        if (n)
            acc += row_sse_vec((const uint4 *)(rr + head * r.bytes),
                               (const uint4 *)(dr + head * r.bytes), n, r.bytes, r.shift,
                               d.shift);
        acc += row_sse_scalar(r, d, rr, dr, tail, r.width);
    }
    acc = warp_sum_u64(acc);
    if ((threadIdx.x & 31) == 0)
        warp_part[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < PSNR_THREADS / 32 ? warp_part[threadIdx.x] : 0;
        acc = warp_sum_u64(acc);
        if (threadIdx.x == 0 && acc)
            atomicAdd(&sse[c], acc);
    }
}

int eqc_psnr_launch(EqCuda *cuda, const EqcFrame *ref, const EqcFrame *dist,
                    cudaStream_t stream)
{
    int err = 0, ss_x, ss_y;
    int rows = ref->comp[0].height;
    int blocks = cuda->sm_count * 8;
    if (blocks > rows)
        blocks = rows;
    dim3 grid((unsigned)blocks, (unsigned)ref->ncomp);
    EqcPlane r[3], d[3];
    int n = ref->ncomp;
    eq_layout_subsampling(ref->desc->layout, &ss_x, &ss_y);
    for (int c = 0; c < n; c++) {
        r[c] = ref->comp[c];
        d[c] = dist->comp[c];
        r[c].width = d[c].width = c ? ref->desc->width >> ss_x : ref->desc->width;
        r[c].height = d[c].height = c ? ref->desc->height >> ss_y : ref->desc->height;
    }
    /* Unused components repeat component 0; the kernel never reads them. */
    psnr_sse_kernel<<<grid, PSNR_THREADS, 0, stream>>>(
        r[0], d[0], r[n > 1 ? 1 : 0], d[n > 1 ? 1 : 0], r[n > 2 ? 2 : 0], d[n > 2 ? 2 : 0],
        n, cuda->dres->psnr_sse);
    EQC_CHECK_LAUNCH(cuda, "psnr_sse_kernel");
    return 0;
fail:
    return err;
}

int eqc_psnr_finish(EqCuda *cuda, const EqFrame *ref, const EqcResults *res, EqScores *out)
{
    (void)cuda;
    double *dst[3] = { &out->psnr_y, &out->psnr_cb, &out->psnr_cr };
    int ss_x, ss_y;
    eq_layout_subsampling(ref->layout, &ss_x, &ss_y);
    for (int c = 0; c < eq_frame_components(ref); c++) {
        const int w = c ? ref->width >> ss_x : ref->width;
        const int h = c ? ref->height >> ss_y : ref->height;
        *dst[c] = eq_psnr_from_sse(res->psnr_sse[c], (uint64_t)w * (uint64_t)h, ref->bitdepth);
    }
    return 0;
}
