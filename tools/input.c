/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Video inputs of the score tool: YUV4MPEG2 or raw frames, file or stdin.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input.h"
#include "y4m.h"

#define MAGIC "YUV4MPEG2"
#define MAGIC_LEN 9

struct VideoInput {
    FILE *fp;
    int close_fp;
    int is_y4m;
    int width;
    int height;
    PixFormat format;
    EqRange range;
    size_t frame_size;
    long frames;                  /* frames read so far */
    unsigned char prefix[MAGIC_LEN]; /* bytes read to tell y4m from raw */
    size_t prefix_len;
    size_t prefix_pos;
    char line[Y4M_MAX_LINE];
    char format_name[64]; /* "C420p10: 4:2:0 10-bit" */
    char short_name[32];  /* "C420p10" or "I420_10LE" */
};

int input_is_y4m(const VideoInput *in)
{
    return in->is_y4m;
}

int input_width(const VideoInput *in)
{
    return in->width;
}

int input_height(const VideoInput *in)
{
    return in->height;
}

const PixFormat *input_format(const VideoInput *in)
{
    return &in->format;
}

EqRange input_range(const VideoInput *in)
{
    return in->range;
}

size_t input_frame_size(const VideoInput *in)
{
    return in->frame_size;
}

const char *input_format_name(const VideoInput *in)
{
    return in->format_name;
}

/* Reads up to n bytes, the stashed prefix first; returns the count. */
static size_t read_bytes(VideoInput *in, unsigned char *dst, size_t n)
{
    size_t got = 0;
    while (got < n && in->prefix_pos < in->prefix_len)
        dst[got++] = in->prefix[in->prefix_pos++];
    if (got < n)
        got += fread(dst + got, 1, n - got, in->fp);
    return got;
}

static int read_error(VideoInput *in, char *err, size_t errlen)
{
    snprintf(err, errlen, "read error: %s", ferror(in->fp) ? strerror(errno) : "unknown");
    return EQ_ERR_INVALID_ARGUMENT;
}

/*
 * Reads a line into in->line up to '\n' (not stored), at most
 * Y4M_MAX_LINE - 1 bytes; `start` bytes are already there.
 * Returns its length, -1 at end of file before '\n', -2 when too long.
 */
static long read_line(VideoInput *in, size_t start)
{
    size_t n = start;
    for (;;) {
        int c = getc(in->fp);
        if (c == EOF)
            return -1;
        if (c == '\n')
            return (long)n;
        if (n >= sizeof(in->line) - 1)
            return -2;
        in->line[n++] = (char)c;
    }
}

static int open_y4m(VideoInput *in, char *err, size_t errlen)
{
    Y4mHeader h;
    int ret;

    memcpy(in->line, in->prefix, MAGIC_LEN);
    in->prefix_pos = in->prefix_len; /* consumed */
    long len = read_line(in, MAGIC_LEN);
    if (len == -1) {
        if (ferror(in->fp))
            return read_error(in, err, errlen);
        snprintf(err, errlen, "the YUV4MPEG2 header is cut short (no end of line)");
        return EQ_ERR_INVALID_ARGUMENT;
    }
    if (len == -2) {
        snprintf(err, errlen, "the YUV4MPEG2 header is longer than %d bytes",
                 Y4M_MAX_LINE - 1);
        return EQ_ERR_INVALID_ARGUMENT;
    }
    if ((ret = y4m_parse_header(in->line, (size_t)len, &h, err, errlen)) < 0)
        return ret;
    in->is_y4m = 1;
    in->width = h.width;
    in->height = h.height;
    in->format = h.format;
    in->range = h.range;
    char desc[32];
    pix_format_describe(&in->format, desc, sizeof(desc));
    snprintf(in->format_name, sizeof(in->format_name), "C%s: %s", h.chroma, desc);
    snprintf(in->short_name, sizeof(in->short_name), "C%s", h.chroma);
    return 0;
}

static int open_raw(VideoInput *in, const RawParams *raw, char *err, size_t errlen)
{
    in->is_y4m = 0;
    in->width = raw->width;
    in->height = raw->height;
    in->format = raw->format->format;
    in->range = EQ_RANGE_UNSPECIFIED;
    in->prefix_pos = 0; /* the prefix is the start of frame 0 */
    char desc[32];
    pix_format_describe(&in->format, desc, sizeof(desc));
    snprintf(in->format_name, sizeof(in->format_name), "%s: %s", raw->format->name, desc);
    snprintf(in->short_name, sizeof(in->short_name), "%s", raw->format->name);
    (void)err;
    (void)errlen;
    return 0;
}

int input_open(VideoInput **out, const char *path, const RawParams *raw, char *err,
               size_t errlen)
{
    FILE *fp;

    *out = NULL;
    if (strcmp(path, "-") == 0)
        return input_open_stream(out, stdin, 0, raw, err, errlen);
    fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return EQ_ERR_INVALID_ARGUMENT;
    }
    return input_open_stream(out, fp, 1, raw, err, errlen);
}

int input_open_stream(VideoInput **out, FILE *fp, int close_fp, const RawParams *raw,
                      char *err, size_t errlen)
{
    VideoInput *in;
    int ret;

    *out = NULL;
    err[0] = 0;
    in = calloc(1, sizeof(*in));
    if (!in) {
        snprintf(err, errlen, "out of memory");
        if (close_fp)
            fclose(fp);
        return EQ_ERR_NO_MEMORY;
    }
    in->fp = fp;
    in->close_fp = close_fp;

    in->prefix_len = fread(in->prefix, 1, MAGIC_LEN, in->fp);
    if (in->prefix_len == 0) {
        if (ferror(in->fp))
            ret = read_error(in, err, errlen);
        else {
            snprintf(err, errlen, "the input is empty");
            ret = EQ_ERR_INVALID_ARGUMENT;
        }
        goto fail;
    }
    if (in->prefix_len == MAGIC_LEN && memcmp(in->prefix, MAGIC, MAGIC_LEN) == 0) {
        ret = open_y4m(in, err, errlen);
    } else if (raw) {
        ret = open_raw(in, raw, err, errlen);
    } else {
        snprintf(err, errlen,
                 "not a YUV4MPEG2 file (it does not start with \"YUV4MPEG2 \"); for raw "
                 "video give --width, --height and --format");
        ret = EQ_ERR_INVALID_ARGUMENT;
    }
    if (ret < 0)
        goto fail;

    ret = pix_frame_size(&in->format, in->width, in->height, &in->frame_size);
    if (ret < 0) {
        snprintf(err, errlen, "frame size %dx%d (%s): %s", in->width, in->height,
                 in->format_name, eq_strerror(ret));
        goto fail;
    }

    /* A raw file that is not a whole number of frames is caught before any
     * scoring: the size or format given is most likely wrong. */
    struct stat st;
    if (!in->is_y4m && fstat(fileno(in->fp), &st) == 0 && S_ISREG(st.st_mode) &&
        (unsigned long long)st.st_size % in->frame_size != 0) {
        snprintf(err, errlen,
                 "the file is %lld bytes, not a whole number of %dx%d %s frames (%zu "
                 "bytes each): check --width, --height and --format",
                 (long long)st.st_size, in->width, in->height, in->short_name,
                 in->frame_size);
        ret = EQ_ERR_INVALID_ARGUMENT;
        goto fail;
    }
    *out = in;
    return 0;

fail:
    if (in->close_fp)
        fclose(in->fp);
    free(in);
    return ret;
}

void input_close(VideoInput **in)
{
    if (!in || !*in)
        return;
    if ((*in)->close_fp)
        fclose((*in)->fp);
    free(*in);
    *in = NULL;
}

int input_read_frame(VideoInput *in, unsigned char *buf, char *err, size_t errlen)
{
    err[0] = 0;
    if (in->is_y4m) {
        int c = getc(in->fp);
        if (c == EOF)
            return ferror(in->fp) ? read_error(in, err, errlen) : 0;
        in->line[0] = (char)c;
        long len = c == '\n' ? 0 : read_line(in, 1);
        if (len == -1) {
            if (ferror(in->fp))
                return read_error(in, err, errlen);
            snprintf(err, errlen, "truncated: the header of frame %ld is cut short",
                     in->frames);
            return EQ_ERR_INVALID_ARGUMENT;
        }
        if (len == -2) {
            snprintf(err, errlen, "frame %ld: the frame header is longer than %d bytes",
                     in->frames, Y4M_MAX_LINE - 1);
            return EQ_ERR_INVALID_ARGUMENT;
        }
        char msg[256];
        if (y4m_parse_frame_header(in->line, (size_t)len, msg, sizeof(msg)) < 0) {
            /* ffmpeg 5.1's yuv4mpegpipe muxer writes chroma rows of
             * odd-width 10/12/16-bit 4:2:x video one byte short (ffmpeg
             * cannot read those files back either). */
            int ffmpeg_odd = in->format.bitdepth > 8 && (in->width & 1) &&
                             (in->format.layout == EQ_LAYOUT_YUV420P ||
                              in->format.layout == EQ_LAYOUT_YUV422P);
            snprintf(err, errlen, "frame %ld: %s%s", in->frames, msg,
                     ffmpeg_odd ? "; note: some ffmpeg versions write odd-width high "
                                  "bit depth YUV4MPEG2 with short chroma rows: use raw "
                                  "video (-f rawvideo) for such sizes"
                                : "");
            return EQ_ERR_INVALID_ARGUMENT;
        }
    }

    size_t got = read_bytes(in, buf, in->frame_size);
    if (got == 0 && !in->is_y4m && !ferror(in->fp))
        return 0;
    if (got < in->frame_size) {
        if (ferror(in->fp))
            return read_error(in, err, errlen);
        if (in->is_y4m)
            snprintf(err, errlen,
                     "truncated: frame %ld has %zu of its %zu bytes (%dx%d, %s)", in->frames,
                     got, in->frame_size, in->width, in->height, in->format_name);
        else
            snprintf(err, errlen,
                     "truncated: frame %ld has %zu of its %zu bytes (%dx%d, %s): check "
                     "--width, --height and --format",
                     in->frames, got, in->frame_size, in->width, in->height,
                     in->format_name);
        return EQ_ERR_INVALID_ARGUMENT;
    }
    in->frames++;
    return 1;
}
