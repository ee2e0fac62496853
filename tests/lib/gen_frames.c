/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Makes the extra test inputs from decoded fixtures, deterministically (no
 * scaler, no dither: integer formulas only), so that the expected libvmaf
 * scores stored in tests/data stay valid on every machine.
 *
 *   gen_frames odd    W H SEED in.yuv out.yuv   yuv420p 8-bit W x H ->
 *                                               (W+1) x (H+1): each plane
 *                                               gains a column and a row
 *   gen_frames p12    W H SEED in.yuv out.yuv   yuv420p10le -> yuv422p12le
 *   gen_frames p16    W H SEED in.yuv out.yuv   yuv444p 8-bit -> yuv444p16le
 *   gen_frames min    W H SEED in.yuv out.yuv   yuv420p 8-bit -> 176 x 177
 *                                               crop at (100, 50): float_ms_ssim's
 *                                               smallest size, 1x2 windows at scale 4
 *
 * New low bits and the new column/row are a hash of (plane, x, y, frame,
 * SEED). Files are read and written frame by frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t hash(uint32_t p, uint32_t x, uint32_t y, uint32_t f, uint32_t seed)
{
    uint32_t h = x * 0x9E3779B1u ^ y * 0x85EBCA77u ^ f * 0xC2B2AE3Du ^ (p + 1) * 0x165667B1u ^
                 seed * 0x27D4EB2Fu;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return h;
}

static void put16(uint8_t *d, unsigned v)
{
    d[0] = (uint8_t)(v & 0xff);
    d[1] = (uint8_t)(v >> 8);
}

static unsigned get16(const uint8_t *s)
{
    return (unsigned)s[0] | ((unsigned)s[1] << 8);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: gen_frames odd|p12|p16 W H SEED in.yuv out.yuv\n");
        return 2;
    }
    const char *mode = argv[1];
    const int w = atoi(argv[2]), h = atoi(argv[3]);
    const uint32_t seed = (uint32_t)strtoul(argv[4], NULL, 10);
    FILE *in = fopen(argv[5], "rb"), *out = fopen(argv[6], "wb");
    int odd = !strcmp(mode, "odd"), p12 = !strcmp(mode, "p12"), p16 = !strcmp(mode, "p16");
    int crop = !strcmp(mode, "min");
    enum { CROP_W = 176, CROP_H = 177, CROP_X = 100, CROP_Y = 50 };
    if (!in || !out || (!odd && !p12 && !p16 && !crop) || w <= 0 || h <= 0 ||
        (crop && (w < CROP_X + CROP_W || h < CROP_Y + CROP_H))) {
        fprintf(stderr, "gen_frames: bad arguments or files\n");
        return 2;
    }

    /* input plane sizes (samples) and bytes per sample */
    int iw[3], ih[3], ib = p12 ? 2 : 1;
    for (int p = 0; p < 3; p++) {
        iw[p] = p && !p16 ? (w + 1) / 2 : w;
        ih[p] = p && !p16 ? (h + 1) / 2 : h;
    }
    size_t in_size = 0, out_size = 0;
    int ow[3], oh[3], ob = odd || crop ? 1 : 2;
    for (int p = 0; p < 3; p++) {
        if (crop) {
            ow[p] = p ? (CROP_W + 1) / 2 : CROP_W;
            oh[p] = p ? (CROP_H + 1) / 2 : CROP_H;
        } else if (odd) {
            ow[p] = p ? (w + 2) / 2 : w + 1;
            oh[p] = p ? (h + 2) / 2 : h + 1;
        } else if (p12) {
            ow[p] = p ? (w + 1) / 2 : w;  /* 4:2:2 */
            oh[p] = h;
        } else {
            ow[p] = w;
            oh[p] = h;
        }
        in_size += (size_t)iw[p] * ih[p] * ib;
        out_size += (size_t)ow[p] * oh[p] * ob;
    }
    uint8_t *ibuf = malloc(in_size), *obuf = malloc(out_size);
    if (!ibuf || !obuf)
        return 1;

    for (uint32_t f = 0; fread(ibuf, 1, in_size, in) == in_size; f++) {
        const uint8_t *ip = ibuf;
        uint8_t *op = obuf;
        for (int p = 0; p < 3; p++) {
            for (int y = 0; y < oh[p]; y++) {
                for (int x = 0; x < ow[p]; x++) {
                    uint32_t r = hash((uint32_t)p, (uint32_t)x, (uint32_t)y, f, seed);
                    if (crop) {
                        int sx = x + (p ? CROP_X / 2 : CROP_X), sy = y + (p ? CROP_Y / 2 : CROP_Y);
                        op[(size_t)y * ow[p] + x] = ip[(size_t)sy * iw[p] + sx];
                    } else if (odd) {
                        int sx = x < iw[p] ? x : iw[p] - 1, sy = y < ih[p] ? y : ih[p] - 1;
                        unsigned v = ip[(size_t)sy * iw[p] + sx];
                        if (x >= iw[p] || y >= ih[p])
                            v = (v + (r & 31) + 240) & 255; /* a new, noisy edge */
                        op[(size_t)y * ow[p] + x] = (uint8_t)v;
                    } else if (p12) {
                        int sy = p ? y / 2 : y; /* 4:2:0 chroma row shared by 2 rows */
                        unsigned v = get16(ip + 2 * ((size_t)sy * iw[p] + x));
                        put16(op + 2 * ((size_t)y * ow[p] + x), (v << 2) | (r & 3));
                    } else {
                        unsigned v = ip[(size_t)y * iw[p] + x];
                        put16(op + 2 * ((size_t)y * ow[p] + x), (v << 8) | (r & 255));
                    }
                }
            }
            ip += (size_t)iw[p] * ih[p] * ib;
            op += (size_t)ow[p] * oh[p] * ob;
        }
        if (fwrite(obuf, 1, out_size, out) != out_size)
            return 1;
    }
    free(ibuf);
    free(obuf);
    fclose(in);
    return fclose(out) ? 1 : 0;
}
