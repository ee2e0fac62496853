/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frame descriptions: validation and per-component views.
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

void eq_layout_subsampling(EqLayout layout, int *ss_x, int *ss_y)
{
    *ss_x = layout == EQ_LAYOUT_YUV420P || layout == EQ_LAYOUT_YUV422P ||
            layout == EQ_LAYOUT_NV12;
    *ss_y = layout == EQ_LAYOUT_YUV420P || layout == EQ_LAYOUT_NV12;
}

int eq_frame_components(const EqFrame *f)
{
    return f->layout == EQ_LAYOUT_GRAY ? 1 : 3;
}

int eq_frame_is_rgb(const EqFrame *f)
{
    return f->layout == EQ_LAYOUT_RGB || f->layout == EQ_LAYOUT_RGBX ||
           f->layout == EQ_LAYOUT_BGRX || f->layout == EQ_LAYOUT_RGBA;
}

static const char *layout_name(EqLayout l)
{
    static const char *const names[EQ_LAYOUT_COUNT] = {
        "GRAY", "YUV420P", "YUV422P", "YUV444P", "NV12", "RGB", "RGBX", "BGRX", "RGBA",
    };
    return (unsigned)l < EQ_LAYOUT_COUNT ? names[l] : "invalid";
}

static void logf_cb(EqLogCallback cb, void *user, const char *fmt, ...) EQ_PRINTF(3, 4);
static void logf_cb(EqLogCallback cb, void *user, const char *fmt, ...)
{
    EqLog log = { cb, user };
    char buf[512];
    va_list ap;
    if (!cb)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    eq_log(&log, EQ_LOG_ERROR, "%s", buf);
}

int eq_frame_validate(const EqFrame *f, EqLogCallback cb, void *user)
{
    if (!f) {
        logf_cb(cb, user, "frame: NULL frame description");
        return EQ_ERR_INVALID_ARGUMENT;
    }
    if ((unsigned)f->layout >= EQ_LAYOUT_COUNT) {
        logf_cb(cb, user, "frame: unknown layout %d", (int)f->layout);
        return EQ_ERR_INVALID_ARGUMENT;
    }
    if (f->width <= 0 || f->height <= 0) {
        logf_cb(cb, user, "frame: size %dx%d is empty", f->width, f->height);
        return EQ_ERR_INVALID_ARGUMENT;
    }
    if (f->width > EQ_MAX_DIMENSION || f->height > EQ_MAX_DIMENSION ||
        (int64_t)f->width * f->height > (int64_t)EQ_MAX_AREA) {
        logf_cb(cb, user,
                "frame: size %dx%d is larger than the library accepts "
                "(at most %d on a side and %d pixels)",
                f->width, f->height, EQ_MAX_DIMENSION, EQ_MAX_AREA);
        return EQ_ERR_TOO_LARGE;
    }
    if (f->bitdepth != 8 && f->bitdepth != 10 && f->bitdepth != 12 && f->bitdepth != 16) {
        logf_cb(cb, user, "frame: bit depth %d is not supported (8, 10, 12 or 16)",
                f->bitdepth);
        return EQ_ERR_UNSUPPORTED;
    }
    if (eq_frame_is_rgb(f) && f->bitdepth != 8 &&
        !(f->layout == EQ_LAYOUT_RGB && f->bitdepth == 16)) {
        logf_cb(cb, user, "frame: %s supports 8-bit samples only (16 for RGB)",
                layout_name(f->layout));
        return EQ_ERR_UNSUPPORTED;
    }
    if (f->msb_aligned != 0 && f->msb_aligned != 1) {
        logf_cb(cb, user, "frame: msb_aligned must be 0 or 1");
        return EQ_ERR_INVALID_ARGUMENT;
    }
    /* Colour enums reach SSIMULACRA2's conversion tables: refuse values
     * outside them here, once, instead of indexing with them. */
    if ((unsigned)f->matrix > EQ_MATRIX_BT2020NC) {
        logf_cb(cb, user, "frame: unknown colour matrix %d", (int)f->matrix);
        return EQ_ERR_INVALID_ARGUMENT;
    }
    if ((unsigned)f->range > EQ_RANGE_FULL) {
        logf_cb(cb, user, "frame: unknown colour range %d", (int)f->range);
        return EQ_ERR_INVALID_ARGUMENT;
    }
    int nplanes = f->layout == EQ_LAYOUT_GRAY || eq_frame_is_rgb(f) ? 1
                  : f->layout == EQ_LAYOUT_NV12                    ? 2
                                                                   : 3;
    for (int i = 0; i < nplanes; i++) {
        EqPlane p;
        if (!f->data[i]) {
            logf_cb(cb, user, "frame: plane %d of a %s frame has no data", i,
                    layout_name(f->layout));
            return EQ_ERR_INVALID_ARGUMENT;
        }
        eq_frame_plane(f, i == 1 && f->layout == EQ_LAYOUT_NV12 ? 1 : i, &p);
        int64_t row = (int64_t)(p.width - 1) * p.step + p.bytes;
        if (f->layout == EQ_LAYOUT_NV12 && i == 1)
            row += p.bytes; /* Cr follows Cb */
        if (eq_frame_is_rgb(f))
            row = (int64_t)p.width * p.step;
        if (f->stride[i] < row && !(p.height == 1 && f->stride[i] >= 0)) {
            logf_cb(cb, user,
                    "frame: stride %td of plane %d is shorter than a row (%lld bytes)",
                    f->stride[i], i, (long long)row);
            return EQ_ERR_INVALID_ARGUMENT;
        }
    }
    return 0;
}

int eq_frame_plane(const EqFrame *f, int comp, EqPlane *out)
{
    int ss_x, ss_y;
    int bytes = f->bitdepth > 8 ? 2 : 1;

    if (comp < 0 || comp >= eq_frame_components(f))
        return EQ_ERR_INVALID_ARGUMENT;
    eq_layout_subsampling(f->layout, &ss_x, &ss_y);

    out->bytes = bytes;
    out->shift = bytes == 2 && f->msb_aligned ? 16 - f->bitdepth : 0;
    out->width = f->width;
    out->height = f->height;

    switch (f->layout) {
    case EQ_LAYOUT_GRAY:
    case EQ_LAYOUT_YUV420P:
    case EQ_LAYOUT_YUV422P:
    case EQ_LAYOUT_YUV444P:
        if (comp > 0) {
            out->width = (f->width + ss_x) >> ss_x;
            out->height = (f->height + ss_y) >> ss_y;
        }
        out->data = f->data[comp];
        out->stride = f->stride[comp];
        out->step = bytes;
        return 0;
    case EQ_LAYOUT_NV12:
        if (comp == 0) {
            out->data = f->data[0];
            out->stride = f->stride[0];
            out->step = bytes;
        } else {
            out->width = (f->width + 1) >> 1;
            out->height = (f->height + 1) >> 1;
            out->data = (const uint8_t *)f->data[1] + (comp - 1) * bytes;
            out->stride = f->stride[1];
            out->step = 2 * bytes;
        }
        return 0;
    case EQ_LAYOUT_RGB:
    case EQ_LAYOUT_RGBX:
    case EQ_LAYOUT_BGRX:
    case EQ_LAYOUT_RGBA: {
        int n = f->layout == EQ_LAYOUT_RGB ? 3 : 4;
        int pos = f->layout == EQ_LAYOUT_BGRX ? 2 - comp : comp;
        out->data = (const uint8_t *)f->data[0] + pos * bytes;
        out->stride = f->stride[0];
        out->step = n * bytes;
        return 0;
    }
    default:
        return EQ_ERR_INVALID_ARGUMENT;
    }
}

int eq_frames_match(const EqFrame *a, const EqFrame *b)
{
    return a->layout == b->layout && a->width == b->width && a->height == b->height &&
                   a->bitdepth == b->bitdepth
               ? 0
               : EQ_ERR_MISMATCH;
}
