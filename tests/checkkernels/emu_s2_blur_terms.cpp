/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * s2_blur_terms_kernel (lib/cuda/s2_blur_terms.cuh) run on the host against
 * the C stages of lib/cpu/ssimulacra2.h: the kernel's own text, compiled by
 * the host compiler with shims for what CUDA provides. Each block runs on
 * 256 host threads; __syncthreads is a barrier among them, and __shared__
 * arrays are function statics, shared by the block's threads (one block at
 * a time). d and d1 of seeded frames must equal the C stages' bits.
 *
 * This is no substitute for the GPU harness (tests/checkkernels, which runs
 * the kernel on the device): it checks the kernel's indexing (tiles,
 * margins, frame edges, the rows and columns each thread takes) where CI
 * has no GPU, with the arithmetic of the shared header.
 */
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

extern "C" {
#include "cpu/ssimulacra2.h"
}

namespace {
struct Dim3 {
    unsigned x, y, z;
};
thread_local Dim3 threadIdx;
Dim3 blockIdx;
std::barrier<> *block_barrier;
void __syncthreads()
{
    block_barrier->arrive_and_wait();
}
} // namespace

#define __global__
#define __launch_bounds__(n)
#define __shared__ static
/* in a namespace: a CUDA build's library holds nvcc's host stub of the
 * same name (exact/ssimulacra2.h, included above, is not read again) */
namespace emu {
#include "cuda/s2_blur_terms.cuh"
}
using emu::s2_blur_terms_kernel;

static int passed, failed;

static void check_size(int w, int h, uint32_t seed)
{
    const size_t n = (size_t)w * h;
    std::vector<float> xyb(6 * n);
    uint32_t s = seed;
    for (float &v : xyb) {
        s = s * 1664525u + 1013904223u;
        v = (float)((s >> 8) % 100000) / 99999.0f * 0.9f + 0.05f;
    }
    std::vector<double> d(3 * n), d1(3 * n);
    memset(d.data(), 0xff, 3 * n * sizeof(double)); /* NaN where nothing is stored */
    memset(d1.data(), 0xff, 3 * n * sizeof(double));
    const unsigned bx = (unsigned)((w + S2_FT - 1) / S2_FT);
    const unsigned by = (unsigned)((h + S2_FT - 1) / S2_FT);
    for (unsigned c = 0; c < 3; c++)
        for (unsigned y = 0; y < by; y++)
            for (unsigned x = 0; x < bx; x++) {
                blockIdx = { x, y, c };
                std::barrier<> bar(S2_FTHREADS);
                block_barrier = &bar;
                std::vector<std::thread> threads;
                for (unsigned t = 0; t < S2_FTHREADS; t++)
                    threads.emplace_back([&, t] {
                        threadIdx = { t, 0, 0 };
                        s2_blur_terms_kernel(xyb.data(), w, h, d.data(), d1.data());
                    });
                for (std::thread &t : threads)
                    t.join();
            }
    std::vector<float> tmp(n), mu[5];
    for (std::vector<float> &m : mu)
        m.resize(n);
    std::vector<double> cd(n), cd1(n);
    for (int c = 0; c < 3; c++) {
        const float *x1 = xyb.data() + c * n, *x2 = xyb.data() + (3 + c) * n;
        const float *a[5] = { x1, x2, x1, x2, x1 };
        const float *b[5] = { nullptr, nullptr, x1, x2, x2 };
        for (int m = 0; m < 5; m++) {
            eq_s2_blur_h_c(a[m], b[m], tmp.data(), w, h, 0, h, nullptr);
            eq_s2_blur_v_c(tmp.data(), mu[m].data(), w, h, 0, w);
        }
        eq_s2_terms_c(x1, x2, mu[0].data(), mu[1].data(), mu[2].data(), mu[3].data(),
                      mu[4].data(), cd.data(), cd1.data(), n);
        const bool same = memcmp(cd.data(), d.data() + c * n, n * sizeof(double)) == 0 &&
                          memcmp(cd1.data(), d1.data() + c * n, n * sizeof(double)) == 0;
        if (same) {
            passed++;
        } else {
            failed++;
            printf("FAIL %dx%d channel %d: d or d1 differs from the C stages\n", w, h, c);
        }
    }
}

int main()
{
    static const int sizes[][2] = { { 8, 8 },   { 17, 9 },  { 31, 33 }, { 32, 32 },
                                    { 33, 31 }, { 64, 48 }, { 100, 70 }, { 177, 97 } };
    uint32_t seed = 1;
    for (const auto &sz : sizes)
        check_size(sz[0], sz[1], seed++);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
