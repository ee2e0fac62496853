/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * YUV4MPEG2 header parsing (format as written by ffmpeg's yuv4mpegpipe muxer
 * and mjpegtools). Every read is bounded by `len`; every number is checked
 * before it is used, so malformed headers end in an error sentence.
 */
#include <stdio.h>
#include <string.h>

#include "y4m.h"

#define MAGIC "YUV4MPEG2"
#define MAGIC_LEN 9

static const struct {
    const char *tag;
    EqLayout layout;
    int bitdepth;
} chroma_tags[] = {
    /* The three 4:2:0 sitings differ in where chroma sits, not in storage;
     * the metrics score the stored samples, so they are one format here. */
    { "420jpeg", EQ_LAYOUT_YUV420P, 8 },
    { "420mpeg2", EQ_LAYOUT_YUV420P, 8 },
    { "420paldv", EQ_LAYOUT_YUV420P, 8 },
    { "420", EQ_LAYOUT_YUV420P, 8 },
    { "422", EQ_LAYOUT_YUV422P, 8 },
    { "444", EQ_LAYOUT_YUV444P, 8 },
    { "mono", EQ_LAYOUT_GRAY, 8 },
    { "420p10", EQ_LAYOUT_YUV420P, 10 },
    { "420p12", EQ_LAYOUT_YUV420P, 12 },
    { "420p16", EQ_LAYOUT_YUV420P, 16 },
    { "422p10", EQ_LAYOUT_YUV422P, 10 },
    { "422p12", EQ_LAYOUT_YUV422P, 12 },
    { "422p16", EQ_LAYOUT_YUV422P, 16 },
    { "444p10", EQ_LAYOUT_YUV444P, 10 },
    { "444p12", EQ_LAYOUT_YUV444P, 12 },
    { "444p16", EQ_LAYOUT_YUV444P, 16 },
    { "mono10", EQ_LAYOUT_GRAY, 10 },
    { "mono12", EQ_LAYOUT_GRAY, 12 },
    { "mono16", EQ_LAYOUT_GRAY, 16 },
};

const char *y4m_supported_tags(void)
{
    return "C420jpeg C420mpeg2 C420paldv C420 C422 C444 Cmono "
           "C420p10 C420p12 C420p16 C422p10 C422p12 C422p16 "
           "C444p10 C444p12 C444p16 Cmono10 Cmono12 Cmono16";
}

static int fail(char *err, size_t errlen, int code, const char *fmt, const char *arg)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, arg);
    return code;
}

/* Copies a parameter for a message: bounded, non-printable bytes as '?'. */
static void printable(char *dst, size_t dstlen, const char *src, size_t len)
{
    size_t n = len < dstlen - 1 ? len : dstlen - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    dst[n] = 0;
    if (len > n && n >= 3)
        memcpy(dst + n - 3, "...", 3);
}

/* A decimal number of 1..max, digits only; -1 when malformed or above max. */
static long parse_uint(const char *s, size_t len, long max)
{
    long v = 0;
    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
        if (v > max)
            return -1;
    }
    return v;
}

static int eq_token(const char *s, size_t len, const char *lit)
{
    return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

static int parse_dimension(const char *v, size_t vlen, int *out, const char *what, char *err,
                           size_t errlen)
{
    char shown[32];
    /* Numbers up to 10^9 read as "too large" rather than "invalid". */
    long n = parse_uint(v, vlen, 999999999L);
    printable(shown, sizeof(shown), v, vlen);
    if (n < 0) {
        char msg[96];
        snprintf(msg, sizeof(msg), "invalid %s '%%s' in the YUV4MPEG2 header", what);
        return fail(err, errlen, EQ_ERR_INVALID_ARGUMENT, msg, shown);
    }
    if (n == 0) {
        char msg[96];
        snprintf(msg, sizeof(msg), "%s '%%s' in the YUV4MPEG2 header is zero", what);
        return fail(err, errlen, EQ_ERR_INVALID_ARGUMENT, msg, shown);
    }
    if (n > EQ_MAX_DIMENSION) {
        char msg[128];
        snprintf(msg, sizeof(msg), "%s %%s is larger than the library accepts (at most %d)",
                 what, EQ_MAX_DIMENSION);
        return fail(err, errlen, EQ_ERR_TOO_LARGE, msg, shown);
    }
    *out = (int)n;
    return 0;
}

static int parse_chroma(const char *v, size_t vlen, Y4mHeader *out, char *err, size_t errlen)
{
    printable(out->chroma, sizeof(out->chroma), v, vlen);
    for (size_t i = 0; i < sizeof(chroma_tags) / sizeof(chroma_tags[0]); i++) {
        if (eq_token(v, vlen, chroma_tags[i].tag)) {
            out->format.layout = chroma_tags[i].layout;
            out->format.bitdepth = chroma_tags[i].bitdepth;
            return 0;
        }
    }
    char msg[512];
    snprintf(msg, sizeof(msg),
             "unsupported YUV4MPEG2 colour space 'C%%s' (supported: %s); convert it, "
             "e.g. ffmpeg -i IN -pix_fmt yuv420p -f yuv4mpegpipe OUT.y4m",
             y4m_supported_tags());
    return fail(err, errlen, EQ_ERR_UNSUPPORTED, msg, out->chroma);
}

static int parse_interlace(const char *v, size_t vlen, Y4mHeader *out, char *err,
                           size_t errlen)
{
    char shown[32];
    printable(shown, sizeof(shown), v, vlen);
    if (vlen != 1)
        return fail(err, errlen, EQ_ERR_INVALID_ARGUMENT,
                    "invalid interlace parameter 'I%s' in the YUV4MPEG2 header", shown);
    switch (v[0]) {
    case 'p':
    case '?': /* unknown: taken as progressive, as libvmaf's y4m reader does */
        out->interlace = v[0];
        return 0;
    case 't':
    case 'b':
    case 'm':
        return fail(err, errlen, EQ_ERR_UNSUPPORTED,
                    "interlaced YUV4MPEG2 (I%s) is not supported: the metrics score "
                    "progressive frames; deinterlace first, e.g. ffmpeg -i IN -vf bwdif=mode=0 "
                    "-f yuv4mpegpipe OUT.y4m",
                    shown);
    default:
        return fail(err, errlen, EQ_ERR_INVALID_ARGUMENT,
                    "invalid interlace parameter 'I%s' in the YUV4MPEG2 header", shown);
    }
}

/* "num:den", both 1..2^31-1; left at 0/0 when malformed (the rate is unused). */
static void parse_rate(const char *v, size_t vlen, Y4mHeader *out)
{
    const char *colon = memchr(v, ':', vlen);
    if (!colon)
        return;
    long n = parse_uint(v, (size_t)(colon - v), 2147483647L);
    long d = parse_uint(colon + 1, vlen - (size_t)(colon - v) - 1, 2147483647L);
    if (n > 0 && d > 0) {
        out->fps_num = (int)n;
        out->fps_den = (int)d;
    }
}

static void parse_comment(const char *v, size_t vlen, Y4mHeader *out)
{
    static const char key[] = "COLORRANGE=";
    size_t klen = sizeof(key) - 1;
    if (vlen < klen || memcmp(v, key, klen) != 0)
        return;
    if (eq_token(v + klen, vlen - klen, "FULL"))
        out->range = EQ_RANGE_FULL;
    else if (eq_token(v + klen, vlen - klen, "LIMITED"))
        out->range = EQ_RANGE_LIMITED;
}

int y4m_parse_header(const char *line, size_t len, Y4mHeader *out, char *err, size_t errlen)
{
    int have_w = 0, have_h = 0, ret;

    if (err && errlen)
        err[0] = 0;
    memset(out, 0, sizeof(*out));
    /* The spec's default colour space. */
    out->format.layout = EQ_LAYOUT_YUV420P;
    out->format.bitdepth = 8;
    snprintf(out->chroma, sizeof(out->chroma), "420jpeg");
    out->interlace = '?';
    out->range = EQ_RANGE_UNSPECIFIED;

    if (len < MAGIC_LEN || memcmp(line, MAGIC, MAGIC_LEN) != 0 ||
        (len > MAGIC_LEN && line[MAGIC_LEN] != ' '))
        return fail(err, errlen, EQ_ERR_INVALID_ARGUMENT, "%s",
                    "not a YUV4MPEG2 file (it does not start with \"YUV4MPEG2 \")");
    if (memchr(line, 0, len))
        return fail(err, errlen, EQ_ERR_INVALID_ARGUMENT, "%s",
                    "the YUV4MPEG2 header contains a NUL byte");

    size_t pos = MAGIC_LEN;
    while (pos < len) {
        if (line[pos] == ' ') {
            pos++;
            continue;
        }
        size_t end = pos;
        while (end < len && line[end] != ' ')
            end++;
        const char *v = line + pos + 1;
        size_t vlen = end - pos - 1;
        switch (line[pos]) {
        case 'W':
            if ((ret = parse_dimension(v, vlen, &out->width, "width W", err, errlen)) < 0)
                return ret;
            have_w = 1;
            break;
        case 'H':
            if ((ret = parse_dimension(v, vlen, &out->height, "height H", err, errlen)) < 0)
                return ret;
            have_h = 1;
            break;
        case 'C':
            if ((ret = parse_chroma(v, vlen, out, err, errlen)) < 0)
                return ret;
            break;
        case 'I':
            if ((ret = parse_interlace(v, vlen, out, err, errlen)) < 0)
                return ret;
            break;
        case 'F':
            parse_rate(v, vlen, out);
            break;
        case 'X':
            parse_comment(v, vlen, out);
            break;
        default: /* A (aspect) and unknown parameters are ignored */
            break;
        }
        pos = end;
    }

    if (!have_w || !have_h)
        return fail(err, errlen, EQ_ERR_INVALID_ARGUMENT, "%s",
                    !have_w ? "the YUV4MPEG2 header has no width (W parameter)"
                            : "the YUV4MPEG2 header has no height (H parameter)");
    if ((long long)out->width * out->height > (long long)EQ_MAX_AREA) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "frame size %dx%d is larger than the library accepts (at most %d pixels)",
                 out->width, out->height, EQ_MAX_AREA);
        return fail(err, errlen, EQ_ERR_TOO_LARGE, "%s", msg);
    }
    return 0;
}

int y4m_parse_frame_header(const char *line, size_t len, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (len < 5 || memcmp(line, "FRAME", 5) != 0 || (len > 5 && line[5] != ' ')) {
        char shown[20];
        printable(shown, sizeof(shown), line, len);
        return fail(err, errlen, EQ_ERR_INVALID_ARGUMENT,
                    "expected a YUV4MPEG2 frame header \"FRAME\", found \"%s\" (is the "
                    "header's size or colour space wrong?)",
                    shown);
    }
    return 0;
}
