/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pixel formats of the score tool: GStreamer names -> EqFrame layouts, and
 * the geometry of tightly packed frames.
 *
 * Layouts follow GStreamer's video-format.h descriptions (1.22): planar
 * formats store Y, then U (Cb), then V (Cr) planes (YV12: Y, V, U); NV12 and
 * the P01x formats store Y then one interleaved U,V plane; the _LE formats
 * store 16-bit little-endian words, low-bit aligned except P010/P012/P016,
 * whose values sit in the high bits. Chroma planes of odd-sized frames round
 * up ((w + 1) / 2), as GStreamer and ffmpeg do.
 */
#include <stdio.h>
#include <string.h>

#include "formats.h"

#define YUV(name, layout, depth, desc) { name, { layout, depth, 0, 0 }, desc }

static const PixFormatName formats[] = {
    YUV("I420", EQ_LAYOUT_YUV420P, 8, "planar 4:2:0, 8-bit (ffmpeg yuv420p)"),
    { "YV12", { EQ_LAYOUT_YUV420P, 8, 0, 1 }, "planar 4:2:0, 8-bit, V plane before U" },
    YUV("Y42B", EQ_LAYOUT_YUV422P, 8, "planar 4:2:2, 8-bit (yuv422p)"),
    YUV("Y444", EQ_LAYOUT_YUV444P, 8, "planar 4:4:4, 8-bit (yuv444p)"),
    YUV("I420_10LE", EQ_LAYOUT_YUV420P, 10, "planar 4:2:0, 10-bit LE words (yuv420p10le)"),
    YUV("I420_12LE", EQ_LAYOUT_YUV420P, 12, "planar 4:2:0, 12-bit LE words (yuv420p12le)"),
    YUV("I422_10LE", EQ_LAYOUT_YUV422P, 10, "planar 4:2:2, 10-bit LE words (yuv422p10le)"),
    YUV("I422_12LE", EQ_LAYOUT_YUV422P, 12, "planar 4:2:2, 12-bit LE words (yuv422p12le)"),
    YUV("Y444_10LE", EQ_LAYOUT_YUV444P, 10, "planar 4:4:4, 10-bit LE words (yuv444p10le)"),
    YUV("Y444_12LE", EQ_LAYOUT_YUV444P, 12, "planar 4:4:4, 12-bit LE words (yuv444p12le)"),
    YUV("Y444_16LE", EQ_LAYOUT_YUV444P, 16, "planar 4:4:4, 16-bit LE words (yuv444p16le)"),
    YUV("NV12", EQ_LAYOUT_NV12, 8, "Y plane + interleaved UV plane, 4:2:0, 8-bit (nv12)"),
    { "P010_10LE", { EQ_LAYOUT_NV12, 10, 1, 0 },
      "NV12 layout, 10-bit values in the high bits of LE words (p010le)" },
    { "P012_LE", { EQ_LAYOUT_NV12, 12, 1, 0 },
      "NV12 layout, 12-bit values in the high bits of LE words (p012le)" },
    { "P016_LE", { EQ_LAYOUT_NV12, 16, 1, 0 }, "NV12 layout, 16-bit LE words (p016le)" },
    YUV("GRAY8", EQ_LAYOUT_GRAY, 8, "luma only, 8-bit (gray)"),
    YUV("GRAY16_LE", EQ_LAYOUT_GRAY, 16, "luma only, 16-bit LE words (gray16le)"),
    YUV("RGB", EQ_LAYOUT_RGB, 8, "packed R,G,B, 8-bit (rgb24); ssimulacra2 only"),
    YUV("RGBx", EQ_LAYOUT_RGBX, 8, "packed R,G,B,x, 8-bit (rgb0); ssimulacra2 only"),
    YUV("BGRx", EQ_LAYOUT_BGRX, 8, "packed B,G,R,x, 8-bit (bgr0); ssimulacra2 only"),
    YUV("RGBA", EQ_LAYOUT_RGBA, 8, "packed R,G,B,A, alpha ignored (rgba); ssimulacra2 only"),
    /* B,G,R,A has BGRx's byte positions; the 4th byte is ignored either way. */
    YUV("BGRA", EQ_LAYOUT_BGRX, 8, "packed B,G,R,A, alpha ignored (bgra); ssimulacra2 only"),
};

int pix_format_count(void)
{
    return (int)(sizeof(formats) / sizeof(formats[0]));
}

const PixFormatName *pix_format_at(int index)
{
    if (index < 0 || index >= pix_format_count())
        return NULL;
    return &formats[index];
}

const PixFormatName *pix_format_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < pix_format_count(); i++)
        if (strcmp(formats[i].name, name) == 0)
            return &formats[i];
    return NULL;
}

int pix_format_sample_bytes(const PixFormat *f)
{
    return f->bitdepth > 8 ? 2 : 1;
}

static int is_rgb(EqLayout l)
{
    return l == EQ_LAYOUT_RGB || l == EQ_LAYOUT_RGBX || l == EQ_LAYOUT_BGRX ||
           l == EQ_LAYOUT_RGBA;
}

/* Checks a size and a format before any product is formed. */
static int check(const PixFormat *f, int width, int height)
{
    if (!f || (unsigned)f->layout >= EQ_LAYOUT_COUNT)
        return EQ_ERR_INVALID_ARGUMENT;
    if (f->bitdepth != 8 && f->bitdepth != 10 && f->bitdepth != 12 && f->bitdepth != 16)
        return EQ_ERR_UNSUPPORTED;
    if (is_rgb(f->layout) && f->bitdepth != 8 &&
        !(f->layout == EQ_LAYOUT_RGB && f->bitdepth == 16))
        return EQ_ERR_UNSUPPORTED;
    if (f->swap_uv && f->layout != EQ_LAYOUT_YUV420P && f->layout != EQ_LAYOUT_YUV422P &&
        f->layout != EQ_LAYOUT_YUV444P)
        return EQ_ERR_INVALID_ARGUMENT;
    if (width <= 0 || height <= 0)
        return EQ_ERR_INVALID_ARGUMENT;
    if (width > EQ_MAX_DIMENSION || height > EQ_MAX_DIMENSION ||
        (long long)width * height > (long long)EQ_MAX_AREA)
        return EQ_ERR_TOO_LARGE;
    return 0;
}

/* Chroma plane size of a planar / semi-planar layout. */
static void chroma_size(const PixFormat *f, int width, int height, int *cw, int *ch)
{
    int ss_x = f->layout == EQ_LAYOUT_YUV420P || f->layout == EQ_LAYOUT_YUV422P ||
               f->layout == EQ_LAYOUT_NV12;
    int ss_y = f->layout == EQ_LAYOUT_YUV420P || f->layout == EQ_LAYOUT_NV12;
    *cw = (width + ss_x) >> ss_x;
    *ch = (height + ss_y) >> ss_y;
}

int pix_frame_size(const PixFormat *f, int width, int height, size_t *size)
{
    int err = check(f, width, height);
    if (err < 0)
        return err;
    /* width * height <= 2^26 and at most 8 bytes a pixel: no overflow. */
    size_t b = (size_t)pix_format_sample_bytes(f);
    size_t luma = (size_t)width * (size_t)height * b;
    int cw, ch;

    switch (f->layout) {
    case EQ_LAYOUT_GRAY:
        *size = luma;
        return 0;
    case EQ_LAYOUT_YUV420P:
    case EQ_LAYOUT_YUV422P:
    case EQ_LAYOUT_YUV444P:
    case EQ_LAYOUT_NV12:
        chroma_size(f, width, height, &cw, &ch);
        *size = luma + 2 * (size_t)cw * (size_t)ch * b;
        return 0;
    case EQ_LAYOUT_RGB:
        *size = 3 * luma;
        return 0;
    default: /* RGBX, BGRX, RGBA */
        *size = 4 * luma;
        return 0;
    }
}

int pix_frame_wrap(const PixFormat *f, int width, int height, const void *buf, EqFrame *out)
{
    size_t size;
    int err = pix_frame_size(f, width, height, &size);
    if (err < 0)
        return err;
    if (!buf || !out)
        return EQ_ERR_INVALID_ARGUMENT;

    const unsigned char *p = buf;
    ptrdiff_t b = pix_format_sample_bytes(f);
    int cw, ch;

    memset(out, 0, sizeof(*out));
    out->layout = f->layout;
    out->width = width;
    out->height = height;
    out->bitdepth = f->bitdepth;
    out->msb_aligned = f->bitdepth > 8 ? f->msb_aligned : 0;
    out->matrix = EQ_MATRIX_UNSPECIFIED;
    out->range = EQ_RANGE_UNSPECIFIED;

    switch (f->layout) {
    case EQ_LAYOUT_GRAY:
        out->data[0] = p;
        out->stride[0] = width * b;
        break;
    case EQ_LAYOUT_YUV420P:
    case EQ_LAYOUT_YUV422P:
    case EQ_LAYOUT_YUV444P: {
        chroma_size(f, width, height, &cw, &ch);
        const unsigned char *u = p + (size_t)width * height * b;
        const unsigned char *v = u + (size_t)cw * ch * b;
        out->data[0] = p;
        out->data[1] = f->swap_uv ? v : u;
        out->data[2] = f->swap_uv ? u : v;
        out->stride[0] = width * b;
        out->stride[1] = out->stride[2] = cw * b;
        break;
    }
    case EQ_LAYOUT_NV12:
        chroma_size(f, width, height, &cw, &ch);
        out->data[0] = p;
        out->data[1] = p + (size_t)width * height * b;
        out->stride[0] = width * b;
        out->stride[1] = 2 * cw * b;
        break;
    case EQ_LAYOUT_RGB:
        out->data[0] = p;
        out->stride[0] = 3 * width * b;
        break;
    default:
        out->data[0] = p;
        out->stride[0] = 4 * (ptrdiff_t)width;
        break;
    }
    return eq_frame_validate(out, NULL, NULL);
}

void pix_format_describe(const PixFormat *f, char *buf, size_t len)
{
    static const char *const names[EQ_LAYOUT_COUNT] = {
        "gray", "4:2:0", "4:2:2", "4:4:4", "NV12 4:2:0", "RGB", "RGBx", "BGRx", "RGBA",
    };
    const char *n = (unsigned)f->layout < EQ_LAYOUT_COUNT ? names[f->layout] : "invalid";
    snprintf(buf, len, "%s %d-bit", n, f->bitdepth);
}
