/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The raw-format table of the score tool: names, frame sizes, and a sample
 * round trip for every format at odd and even sizes — samples packed here by
 * an independent writer following GStreamer's format descriptions, then read
 * back through the EqFrame the table describes (the library's own plane
 * views, lib/frame.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eqtest.h"
#include "formats.h"
#include "frame.h"

/* GStreamer's descriptions (video-format.h, 1.22), restated as a writer's
 * recipe: kind, chroma subsampling, bits, value position, U/V order. */
enum Kind { PLANAR, SEMI, GRAY, PACKED };
static const struct {
    const char *name;
    enum Kind kind;
    int ss_x, ss_y, depth, msb, vu;
    int pixel_bytes;  /* PACKED: bytes a pixel */
    int pos[3];       /* PACKED: byte of R, G, B in a pixel */
} oracle[] = {
    { "I420", PLANAR, 1, 1, 8, 0, 0, 0, { 0 } },
    { "YV12", PLANAR, 1, 1, 8, 0, 1, 0, { 0 } },
    { "Y42B", PLANAR, 1, 0, 8, 0, 0, 0, { 0 } },
    { "Y444", PLANAR, 0, 0, 8, 0, 0, 0, { 0 } },
    { "I420_10LE", PLANAR, 1, 1, 10, 0, 0, 0, { 0 } },
    { "I420_12LE", PLANAR, 1, 1, 12, 0, 0, 0, { 0 } },
    { "I422_10LE", PLANAR, 1, 0, 10, 0, 0, 0, { 0 } },
    { "I422_12LE", PLANAR, 1, 0, 12, 0, 0, 0, { 0 } },
    { "Y444_10LE", PLANAR, 0, 0, 10, 0, 0, 0, { 0 } },
    { "Y444_12LE", PLANAR, 0, 0, 12, 0, 0, 0, { 0 } },
    { "Y444_16LE", PLANAR, 0, 0, 16, 0, 0, 0, { 0 } },
    { "NV12", SEMI, 1, 1, 8, 0, 0, 0, { 0 } },
    { "P010_10LE", SEMI, 1, 1, 10, 1, 0, 0, { 0 } },
    { "P012_LE", SEMI, 1, 1, 12, 1, 0, 0, { 0 } },
    { "P016_LE", SEMI, 1, 1, 16, 1, 0, 0, { 0 } },
    { "GRAY8", GRAY, 0, 0, 8, 0, 0, 0, { 0 } },
    { "GRAY16_LE", GRAY, 0, 0, 16, 0, 0, 0, { 0 } },
    { "RGB", PACKED, 0, 0, 8, 0, 0, 3, { 0, 1, 2 } },
    { "RGBx", PACKED, 0, 0, 8, 0, 0, 4, { 0, 1, 2 } },
    { "BGRx", PACKED, 0, 0, 8, 0, 0, 4, { 2, 1, 0 } },
    { "RGBA", PACKED, 0, 0, 8, 0, 0, 4, { 0, 1, 2 } },
    { "BGRA", PACKED, 0, 0, 8, 0, 0, 4, { 2, 1, 0 } },
};
#define N_ORACLE (int)(sizeof(oracle) / sizeof(oracle[0]))

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 2685821657736338717ull) >> 32);
}

/* Writes one sample of `depth` bits at p (8-bit byte or LE word). */
static void put(uint8_t *p, int depth, int msb, unsigned v)
{
    if (depth == 8) {
        p[0] = (uint8_t)v;
        return;
    }
    unsigned w = msb ? v << (16 - depth) : v;
    if (msb)
        w |= rnd() & ((1u << (16 - depth)) - 1); /* low bits are ignored: fill them */
    p[0] = (uint8_t)w;
    p[1] = (uint8_t)(w >> 8);
}

static void test_round_trip(int k, int w, int h)
{
    const PixFormatName *pf = pix_format_find(oracle[k].name);
    CHECK(pf != NULL);
    if (!pf)
        return;
    int b = oracle[k].depth > 8 ? 2 : 1;
    int cw = (w + oracle[k].ss_x) >> oracle[k].ss_x;
    int ch = (h + oracle[k].ss_y) >> oracle[k].ss_y;
    int ncomp = oracle[k].kind == GRAY ? 1 : 3;
    size_t expect_size;
    switch (oracle[k].kind) {
    case PACKED:
        expect_size = (size_t)w * h * oracle[k].pixel_bytes;
        break;
    case GRAY:
        expect_size = (size_t)w * h * b;
        break;
    default:
        expect_size = (size_t)w * h * b + 2 * (size_t)cw * ch * b;
        break;
    }
    size_t size = 0;
    CHECK(pix_frame_size(&pf->format, w, h, &size) == 0);
    CHECK(size == expect_size);
    if (size != expect_size) {
        fprintf(stderr, "  %s %dx%d: %zu bytes, expected %zu\n", pf->name, w, h, size,
                expect_size);
        return;
    }

    /* Random values per component, then packed by the recipe. */
    unsigned maxv = (1u << oracle[k].depth) - 1;
    unsigned *val[3] = { NULL, NULL, NULL };
    uint8_t *buf = malloc(size);
    int vw[3] = { w, cw, cw }, vh[3] = { h, ch, ch };
    if (oracle[k].kind == PACKED)
        vw[1] = vw[2] = w, vh[1] = vh[2] = h;
    for (int c = 0; c < ncomp; c++) {
        val[c] = malloc(sizeof(unsigned) * (size_t)vw[c] * vh[c]);
        for (int i = 0; i < vw[c] * vh[c]; i++)
            val[c][i] = rnd() & maxv;
    }
    for (size_t i = 0; i < size; i++)
        buf[i] = (uint8_t)rnd(); /* x / A bytes hold noise */

    int depth = oracle[k].depth, msb = oracle[k].msb;
    switch (oracle[k].kind) {
    case GRAY:
    case PLANAR:
    case SEMI: {
        for (int i = 0; i < w * h; i++)
            put(buf + (size_t)i * b, depth, msb, val[0][i]);
        if (oracle[k].kind == GRAY)
            break;
        uint8_t *plane1 = buf + (size_t)w * h * b;
        for (int i = 0; i < cw * ch; i++) {
            if (oracle[k].kind == SEMI) {
                put(plane1 + (size_t)i * 2 * b, depth, msb, val[1][i]);
                put(plane1 + (size_t)i * 2 * b + b, depth, msb, val[2][i]);
            } else {
                uint8_t *plane2 = plane1 + (size_t)cw * ch * b;
                int first = oracle[k].vu ? 2 : 1;
                put(plane1 + (size_t)i * b, depth, msb, val[first][i]);
                put(plane2 + (size_t)i * b, depth, msb, val[3 - first][i]);
            }
        }
        break;
    }
    case PACKED:
        for (int i = 0; i < w * h; i++)
            for (int c = 0; c < 3; c++)
                buf[(size_t)i * oracle[k].pixel_bytes + oracle[k].pos[c]] =
                    (uint8_t)val[c][i];
        break;
    }

    EqFrame f;
    CHECK(pix_frame_wrap(&pf->format, w, h, buf, &f) == 0);
    CHECK(eq_frame_validate(&f, NULL, NULL) == 0);
    CHECK(f.width == w && f.height == h && f.bitdepth == depth);
    long mismatches = 0;
    for (int c = 0; c < ncomp; c++) {
        EqPlane p;
        CHECK(eq_frame_plane(&f, c, &p) == 0);
        CHECK(p.width == vw[c] && p.height == vh[c]);
        for (int y = 0; y < vh[c]; y++)
            for (int x = 0; x < vw[c]; x++)
                if (eq_plane_sample(&p, x, y) != val[c][y * vw[c] + x])
                    mismatches++;
    }
    CHECK(mismatches == 0);
    if (mismatches)
        fprintf(stderr, "  %s %dx%d: %ld samples differ\n", pf->name, w, h, mismatches);
    for (int c = 0; c < ncomp; c++)
        free(val[c]);
    free(buf);
}

static void test_table(void)
{
    CHECK(pix_format_count() == N_ORACLE);
    for (int i = 0; i < pix_format_count(); i++) {
        const PixFormatName *f = pix_format_at(i);
        CHECK(f != NULL && f->name && f->description && f->description[0]);
        CHECK(pix_format_find(f->name) == f); /* names are unique */
        int in_oracle = 0;
        for (int k = 0; k < N_ORACLE; k++)
            in_oracle += strcmp(oracle[k].name, f->name) == 0;
        CHECK(in_oracle == 1);
    }
    CHECK(pix_format_at(-1) == NULL);
    CHECK(pix_format_at(pix_format_count()) == NULL);
    CHECK(pix_format_find("i420") == NULL); /* GStreamer's spelling only */
    CHECK(pix_format_find("yuv420p") == NULL);
    CHECK(pix_format_find("") == NULL);
    CHECK(pix_format_find(NULL) == NULL);
}

static void test_limits(void)
{
    const PixFormat *i420 = &pix_format_find("I420")->format;
    const PixFormat *y444_16 = &pix_format_find("Y444_16LE")->format;
    size_t size;
    uint8_t byte = 0;
    EqFrame f;

    CHECK(pix_frame_size(i420, 0, 8, &size) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(pix_frame_size(i420, 8, -1, &size) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(pix_frame_size(i420, 16385, 8, &size) == EQ_ERR_TOO_LARGE);
    CHECK(pix_frame_size(i420, 8193, 8192, &size) == EQ_ERR_TOO_LARGE);
    CHECK(pix_frame_size(y444_16, 8192, 8192, &size) == 0);
    CHECK(size == (size_t)8192 * 8192 * 6);
    CHECK(pix_frame_size(y444_16, 16384, 4096, &size) == 0);
    CHECK(pix_frame_wrap(i420, 8, 8, NULL, &f) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(pix_frame_wrap(i420, 0, 8, &byte, &f) == EQ_ERR_INVALID_ARGUMENT);

    PixFormat bad = { EQ_LAYOUT_YUV420P, 9, 0, 0 };
    CHECK(pix_frame_size(&bad, 8, 8, &size) == EQ_ERR_UNSUPPORTED);
    bad = (PixFormat){ EQ_LAYOUT_RGBX, 16, 0, 0 };
    CHECK(pix_frame_size(&bad, 8, 8, &size) == EQ_ERR_UNSUPPORTED);
    bad = (PixFormat){ EQ_LAYOUT_COUNT, 8, 0, 0 };
    CHECK(pix_frame_size(&bad, 8, 8, &size) == EQ_ERR_INVALID_ARGUMENT);
    bad = (PixFormat){ EQ_LAYOUT_NV12, 8, 0, 1 };
    CHECK(pix_frame_size(&bad, 8, 8, &size) == EQ_ERR_INVALID_ARGUMENT);

    char d[32];
    pix_format_describe(&pix_format_find("P010_10LE")->format, d, sizeof(d));
    CHECK(strcmp(d, "NV12 4:2:0 10-bit") == 0);
}

int main(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 7, 5 }, { 33, 17 }, { 64, 48 }, { 2, 9 } };
    test_table();
    test_limits();
    for (int k = 0; k < N_ORACLE; k++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            test_round_trip(k, sizes[s][0], sizes[s][1]);
    return eqtest_done();
}
