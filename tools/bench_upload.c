/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * bench_upload: what the CUDA backend's banded upload costs (docs/cuda.md,
 * "Bands"). A pair of 8-bit 4:2:0 frames in page-locked memory goes up to
 * device planes of 256-byte-aligned pitch, each plane in B bands of rows
 * (one cudaMemcpy2DAsync per plane and band, an event after each band, as
 * lib/cuda/backend.cu does). For each size and band count: the host time to
 * enqueue the copies and the GPU time from the first copy to the last
 * (CUDA events), best of 20.
 *
 *   bench_upload [--sizes 1920x1080,3840x2160]
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BANDS 16
#define REPS 20

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int bench_size(int w, int h, cudaStream_t s, cudaEvent_t *band_ev, cudaEvent_t t0,
                      cudaEvent_t t1)
{
    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    const int row[3] = { w, cw, cw }, rows[3] = { h, ch, ch };
    size_t pitch[3];
    unsigned char *host[2][3] = { { NULL } }, *dev[2][3] = { { NULL } };
    size_t pair_bytes = 0;
    int ok = 1;

    for (int i = 0; i < 3; i++) {
        pitch[i] = ((size_t)row[i] + 255) & ~(size_t)255;
        pair_bytes += 2 * (size_t)row[i] * rows[i];
    }
    for (int f = 0; f < 2 && ok; f++)
        for (int i = 0; i < 3 && ok; i++) {
            ok = cudaHostAlloc((void **)&host[f][i], (size_t)row[i] * rows[i], 0) ==
                     cudaSuccess &&
                 cudaMalloc((void **)&dev[f][i], pitch[i] * rows[i]) == cudaSuccess;
            if (ok)
                memset(host[f][i], 0x55 + f, (size_t)row[i] * rows[i]);
        }
    for (int bands = 1; bands <= MAX_BANDS && ok; bands *= 2) {
        double best_host = 1e30;
        float best_gpu = 1e30f;
        for (int rep = 0; rep < REPS && ok; rep++) {
            cudaStreamSynchronize(s);
            cudaEventRecord(t0, s);
            const double h0 = now_us();
            for (int f = 0; f < 2; f++)
                for (int b = 0; b < bands; b++) {
                    for (int i = 0; i < 3; i++) {
                        const int y0 = (int)((long long)rows[i] * b / bands);
                        const int y1 = (int)((long long)rows[i] * (b + 1) / bands);
                        if (y1 > y0 &&
                            cudaMemcpy2DAsync(dev[f][i] + (size_t)y0 * pitch[i], pitch[i],
                                              host[f][i] + (size_t)y0 * row[i], (size_t)row[i],
                                              (size_t)row[i], (size_t)(y1 - y0),
                                              cudaMemcpyHostToDevice, s) != cudaSuccess)
                            ok = 0;
                    }
                    cudaEventRecord(band_ev[f * MAX_BANDS + b], s);
                }
            const double h1 = now_us();
            cudaEventRecord(t1, s);
            float ms = 0;
            if (cudaEventSynchronize(t1) != cudaSuccess ||
                cudaEventElapsedTime(&ms, t0, t1) != cudaSuccess)
                ok = 0;
            if (h1 - h0 < best_host)
                best_host = h1 - h0;
            if (ms < best_gpu)
                best_gpu = ms;
        }
        if (ok)
            printf("%5dx%-5d %2d bands %3d copies: host enqueue %7.1f us, copy %7.1f us "
                   "(%.1f GB/s)\n",
                   w, h, bands, 6 * bands, best_host, best_gpu * 1e3,
                   pair_bytes / (best_gpu * 1e-3) / 1e9);
    }
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < 3; i++) {
            cudaFreeHost(host[f][i]);
            cudaFree(dev[f][i]);
        }
    if (!ok)
        fprintf(stderr, "bench_upload: %dx%d: %s\n", w, h, cudaGetErrorString(cudaGetLastError()));
    return ok;
}

int main(int argc, char **argv)
{
    const char *sizes = "1920x1080,3840x2160";
    cudaStream_t s;
    cudaEvent_t band_ev[2 * MAX_BANDS], t0, t1;
    int count = 0, ok = 1;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            sizes = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--sizes WxH,...]\n", argv[0]);
            return 2;
        }
    }
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("no CUDA device\n");
        return 77;
    }
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    for (int i = 0; i < 2 * MAX_BANDS; i++)
        cudaEventCreateWithFlags(&band_ev[i], cudaEventDisableTiming);
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    for (const char *p = sizes; *p && ok;) {
        int w = 0, h = 0;
        if (sscanf(p, "%dx%d", &w, &h) != 2 || w < 1 || h < 1) {
            fprintf(stderr, "bad size in %s\n", p);
            return 2;
        }
        ok = bench_size(w, h, s, band_ev, t0, t1);
        p = strchr(p, ',');
        if (!p)
            break;
        p++;
    }
    for (int i = 0; i < 2 * MAX_BANDS; i++)
        cudaEventDestroy(band_ev[i]);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    cudaStreamDestroy(s);
    return ok ? 0 : 1;
}
