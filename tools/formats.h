/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pixel formats of the score tool: how a tightly packed frame in a file
 * (raw video or a YUV4MPEG2 frame payload) maps to an EqFrame, and the table
 * of GStreamer format names accepted by --format.
 */
#ifndef EQ_TOOLS_FORMATS_H
#define EQ_TOOLS_FORMATS_H

#include <stddef.h>

#include "exactquality.h"

/* The layout of one frame's bytes in a file. */
typedef struct PixFormat {
    EqLayout layout;
    int bitdepth;    /* 8, 10, 12 or 16 */
    int msb_aligned; /* P010-style: the value sits in the high bits of each word */
    int swap_uv;     /* planar 4:2:0 with V before U (YV12) */
} PixFormat;

/* A GStreamer format name and what it means here. */
typedef struct PixFormatName {
    const char *name;        /* GStreamer's name, e.g. "I420_10LE" */
    PixFormat format;
    const char *description; /* one line for --help and docs/cli.md */
} PixFormatName;

/* The table of raw formats, in a fixed order; NULL past the end. */
const PixFormatName *pix_format_at(int index);
int pix_format_count(void);
/* Looks a GStreamer name up (exact, case-sensitive as GStreamer spells it). */
const PixFormatName *pix_format_find(const char *name);

/* Bytes of one sample (1 or 2) and, for packed RGB, bytes of one pixel. */
int pix_format_sample_bytes(const PixFormat *f);

/*
 * Bytes of one tightly packed frame (no row padding: rows as ffmpeg's
 * rawvideo muxer and YUV4MPEG2 store them). Fails with EQ_ERR_TOO_LARGE
 * beyond EQ_MAX_DIMENSION / EQ_MAX_AREA, EQ_ERR_INVALID_ARGUMENT for an empty
 * size and EQ_ERR_UNSUPPORTED for a combination the library does not take.
 */
int pix_frame_size(const PixFormat *f, int width, int height, size_t *size);

/*
 * Describes the tightly packed frame at `buf` (pix_frame_size bytes) as an
 * EqFrame; colour fields are left unspecified. Same errors as pix_frame_size.
 */
int pix_frame_wrap(const PixFormat *f, int width, int height, const void *buf,
                   EqFrame *out);

/* A short human name such as "4:2:0 10-bit" for error messages. */
void pix_format_describe(const PixFormat *f, char *buf, size_t len);

#endif /* EQ_TOOLS_FORMATS_H */
