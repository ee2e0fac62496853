/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One video input of the score tool: a YUV4MPEG2 stream or raw frames, from
 * a file or from standard input ("-"), read one frame at a time.
 */
#ifndef EQ_TOOLS_INPUT_H
#define EQ_TOOLS_INPUT_H

#include <stddef.h>
#include <stdio.h>

#include "formats.h"

typedef struct VideoInput VideoInput;

/* What --width, --height and --format say about raw inputs. */
typedef struct RawParams {
    int width;
    int height;
    const PixFormatName *format;
} RawParams;

/*
 * Opens `path` ("-" is standard input). A stream that starts with
 * "YUV4MPEG2" is read as YUV4MPEG2; anything else needs `raw` (NULL when the
 * raw options were not given). Returns 0 or a negative EQ_ERR_* code with a
 * sentence in err (the path is not part of it).
 */
int input_open(VideoInput **out, const char *path, const RawParams *raw, char *err,
               size_t errlen);
/* The same on an open stream; with close_fp it is closed by input_close (and
 * on failure). */
int input_open_stream(VideoInput **out, FILE *fp, int close_fp, const RawParams *raw,
                      char *err, size_t errlen);
void input_close(VideoInput **in);

/*
 * Reads the next frame into buf (input_frame_size bytes). Returns 1 for a
 * frame, 0 at a clean end of the stream, or a negative code with a sentence
 * in err (a frame cut short, a damaged frame header, a read error).
 */
int input_read_frame(VideoInput *in, unsigned char *buf, char *err, size_t errlen);

int input_is_y4m(const VideoInput *in);
int input_width(const VideoInput *in);
int input_height(const VideoInput *in);
const PixFormat *input_format(const VideoInput *in);
/* The range the stream declares (YUV4MPEG2 XCOLORRANGE), else UNSPECIFIED. */
EqRange input_range(const VideoInput *in);
size_t input_frame_size(const VideoInput *in);
/* "C420p10: 4:2:0 10-bit" or "I420_10LE: 4:2:0 10-bit", for messages. */
const char *input_format_name(const VideoInput *in);

#endif /* EQ_TOOLS_INPUT_H */
