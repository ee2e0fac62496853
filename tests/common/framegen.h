/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Seeded test frames for the CUDA tests: any layout, bit depth and size,
 * with padded strides and, for MSB-aligned input, random low bits that the
 * library must ignore. One 64-bit seed reproduces a frame exactly.
 */
#ifndef EQ_TEST_FRAMEGEN_H
#define EQ_TEST_FRAMEGEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exactquality.h"

static inline uint64_t fg_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A frame plus the memory it owns. */
typedef struct FgFrame {
    EqFrame f;
    uint8_t *mem[3];
} FgFrame;

typedef struct FgFormat {
    const char *name;
    EqLayout layout;
    int bitdepth;
    int msb_aligned;
} FgFormat;

static inline void fg_free(FgFrame *fr)
{
    for (int i = 0; i < 3; i++) {
        free(fr->mem[i]);
        fr->mem[i] = NULL;
    }
}

/* Samples per row and rows of data[i], and samples interleaved per pixel. */
static inline void fg_buffer_geometry(const EqFrame *f, int i, int *spp, int *w, int *h)
{
    int ssx = f->layout == EQ_LAYOUT_YUV420P || f->layout == EQ_LAYOUT_YUV422P ||
              f->layout == EQ_LAYOUT_NV12;
    int ssy = f->layout == EQ_LAYOUT_YUV420P || f->layout == EQ_LAYOUT_NV12;
    *spp = 1;
    *w = f->width;
    *h = f->height;
    switch (f->layout) {
    case EQ_LAYOUT_RGB:
        *spp = 3;
        break;
    case EQ_LAYOUT_RGBX:
    case EQ_LAYOUT_BGRX:
    case EQ_LAYOUT_RGBA:
        *spp = 4;
        break;
    case EQ_LAYOUT_NV12:
        if (i == 1) {
            *spp = 2;
            *w = (f->width + 1) >> 1;
            *h = (f->height + 1) >> 1;
        }
        break;
    default:
        if (i > 0) {
            *w = (f->width + ssx) >> ssx;
            *h = (f->height + ssy) >> ssy;
        }
        break;
    }
}

static inline int fg_buffers(const EqFrame *f)
{
    if (f->layout == EQ_LAYOUT_GRAY || f->layout >= EQ_LAYOUT_RGB)
        return 1;
    return f->layout == EQ_LAYOUT_NV12 ? 2 : 3;
}

/*
 * Allocates a frame of the format and size; `pad` extra bytes per row.
 * Sample values are filled by fg_fill_*.
 */
static inline int fg_alloc(FgFrame *fr, const FgFormat *fmt, int w, int h, int pad)
{
    memset(fr, 0, sizeof(*fr));
    fr->f.layout = fmt->layout;
    fr->f.width = w;
    fr->f.height = h;
    fr->f.bitdepth = fmt->bitdepth;
    fr->f.msb_aligned = fmt->msb_aligned;
    int bytes = fmt->bitdepth > 8 ? 2 : 1;
    for (int i = 0; i < fg_buffers(&fr->f); i++) {
        int spp, bw, bh;
        fg_buffer_geometry(&fr->f, i, &spp, &bw, &bh);
        ptrdiff_t stride = (ptrdiff_t)bw * spp * bytes + pad;
        fr->mem[i] = (uint8_t *)malloc((size_t)stride * (size_t)bh + 16);
        if (!fr->mem[i]) {
            fg_free(fr);
            return -1;
        }
        memset(fr->mem[i], 0xa5, (size_t)stride * (size_t)bh + 16);
        fr->f.data[i] = fr->mem[i];
        fr->f.stride[i] = stride;
    }
    return 0;
}

static inline void fg_put(EqFrame *f, int i, int x, int y, int k, unsigned v, uint64_t *rng)
{
    int spp, bw, bh;
    fg_buffer_geometry(f, i, &spp, &bw, &bh);
    uint8_t *p = (uint8_t *)f->data[i] + (ptrdiff_t)y * f->stride[i];
    if (f->bitdepth == 8) {
        p[x * spp + k] = (uint8_t)v;
    } else {
        unsigned word = v;
        if (f->msb_aligned) {
            word = v << (16 - f->bitdepth);
            word |= (unsigned)(fg_splitmix(rng) & ((1u << (16 - f->bitdepth)) - 1));
        }
        p[(x * spp + k) * 2] = (uint8_t)word;
        p[(x * spp + k) * 2 + 1] = (uint8_t)(word >> 8);
    }
}

static inline unsigned fg_get(const EqFrame *f, int i, int x, int y, int k)
{
    int spp, bw, bh;
    fg_buffer_geometry(f, i, &spp, &bw, &bh);
    const uint8_t *p = (const uint8_t *)f->data[i] + (ptrdiff_t)y * f->stride[i];
    if (f->bitdepth == 8)
        return p[x * spp + k];
    unsigned word = p[(x * spp + k) * 2] | (p[(x * spp + k) * 2 + 1] << 8);
    return f->msb_aligned ? word >> (16 - f->bitdepth) : word;
}

/*
 * kind 0: uniform noise; kind 1: smooth gradient plus noise (content-like);
 * kind 2: a flat frame (constant value).
 */
static inline void fg_fill(FgFrame *fr, uint64_t seed, int kind)
{
    EqFrame *f = &fr->f;
    uint64_t rng = seed;
    unsigned maxv = (1u << f->bitdepth) - 1;
    unsigned flat = (unsigned)(fg_splitmix(&rng) % (maxv + 1));
    for (int i = 0; i < fg_buffers(f); i++) {
        int spp, bw, bh;
        fg_buffer_geometry(f, i, &spp, &bw, &bh);
        for (int y = 0; y < bh; y++)
            for (int x = 0; x < bw; x++)
                for (int k = 0; k < spp; k++) {
                    unsigned v;
                    if (kind == 0) {
                        v = (unsigned)(fg_splitmix(&rng) % (maxv + 1));
                    } else if (kind == 1) {
                        long g = (long)((uint64_t)(x * 7 + y * 3 + k * 50) * maxv /
                                        (bw * 7 + bh * 3 + 150));
                        long n = (long)(fg_splitmix(&rng) % 33) - 16;
                        g += n * (long)(maxv / 255 + 1);
                        v = g < 0 ? 0 : g > (long)maxv ? maxv : (unsigned)g;
                    } else {
                        v = flat;
                    }
                    fg_put(f, i, x, y, k, v, &rng);
                }
    }
}

/* dist = ref with a seeded perturbation of amplitude `amp` (0: identical). */
static inline void fg_distort(FgFrame *dist, const FgFrame *ref, uint64_t seed, unsigned amp)
{
    const EqFrame *r = &ref->f;
    EqFrame *d = &dist->f;
    uint64_t rng = seed;
    long maxv = (1l << r->bitdepth) - 1;
    for (int i = 0; i < fg_buffers(r); i++) {
        int spp, bw, bh;
        fg_buffer_geometry(r, i, &spp, &bw, &bh);
        for (int y = 0; y < bh; y++)
            for (int x = 0; x < bw; x++)
                for (int k = 0; k < spp; k++) {
                    long v = (long)fg_get(r, i, x, y, k);
                    if (amp)
                        v += (long)(fg_splitmix(&rng) % (2 * amp + 1)) - (long)amp;
                    v = v < 0 ? 0 : v > maxv ? maxv : v;
                    fg_put(d, i, x, y, k, (unsigned)v, &rng);
                }
    }
}

#endif /* EQ_TEST_FRAMEGEN_H */
