/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * YUV4MPEG2 header parsing. No I/O here: the parsers take one line (without
 * its '\n') and never read past `len`, so they can be fed arbitrary bytes.
 *
 * A stream is "YUV4MPEG2" followed by space-separated parameters and '\n';
 * each frame is "FRAME" (optionally followed by parameters) and '\n', then
 * the frame's planes, tightly packed (Y, Cb, Cr; 16-bit little-endian words
 * above 8 bits).
 */
#ifndef EQ_TOOLS_Y4M_H
#define EQ_TOOLS_Y4M_H

#include <stddef.h>

#include "formats.h"

/* Longest stream or frame header line accepted, '\n' included. */
#define Y4M_MAX_LINE 4096

typedef struct Y4mHeader {
    int width;
    int height;
    PixFormat format;
    char chroma[24];  /* the C parameter as written ("420jpeg"), for messages */
    int fps_num;      /* 0/0 when absent or unreadable */
    int fps_den;
    char interlace;   /* 'p' or '?' (others are refused) */
    EqRange range;    /* from ffmpeg's XCOLORRANGE=; UNSPECIFIED when absent */
} Y4mHeader;

/*
 * Parses a stream header line. Returns 0, or a negative EQ_ERR_* code with
 * a sentence in err: EQ_ERR_INVALID_ARGUMENT for a malformed header,
 * EQ_ERR_UNSUPPORTED for a valid header this tool cannot score (interlaced,
 * 4:1:1, 9/14-bit, alpha), EQ_ERR_TOO_LARGE beyond the library's limits.
 */
int y4m_parse_header(const char *line, size_t len, Y4mHeader *out, char *err, size_t errlen);

/* Checks a frame header line ("FRAME" and optional parameters): 0 or
 * EQ_ERR_INVALID_ARGUMENT with a sentence in err. */
int y4m_parse_frame_header(const char *line, size_t len, char *err, size_t errlen);

/* The C tags this reader accepts, space-separated, for messages and --help. */
const char *y4m_supported_tags(void);

#endif /* EQ_TOOLS_Y4M_H */
