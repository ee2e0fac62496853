/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * YUV4MPEG2 header parsing: every colour-space tag ffmpeg writes, the
 * parameters around them, and malformed headers (which must end in an error
 * code and a sentence, never a crash or an out-of-range size).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eqtest.h"
#include "y4m.h"

static char err[1024];

static int parse(const char *line, Y4mHeader *h)
{
    return y4m_parse_header(line, strlen(line), h, err, sizeof(err));
}

/* Parses `line` and expects `code` with `needle` in the message. */
#define CHECK_FAILS(line, code, needle)                                        \
    do {                                                                       \
        Y4mHeader h_;                                                          \
        int r_ = parse(line, &h_);                                             \
        CHECK(r_ == (code));                                                   \
        CHECK(strstr(err, needle) != NULL);                                    \
        if (r_ != (code) || !strstr(err, needle))                              \
            fprintf(stderr, "  header \"%s\": %d \"%s\"\n", line, r_, err);    \
    } while (0)

static void test_tags(void)
{
    static const struct {
        const char *tag;
        EqLayout layout;
        int depth;
    } tags[] = {
        { "C420jpeg", EQ_LAYOUT_YUV420P, 8 },  { "C420mpeg2", EQ_LAYOUT_YUV420P, 8 },
        { "C420paldv", EQ_LAYOUT_YUV420P, 8 }, { "C420", EQ_LAYOUT_YUV420P, 8 },
        { "C422", EQ_LAYOUT_YUV422P, 8 },      { "C444", EQ_LAYOUT_YUV444P, 8 },
        { "Cmono", EQ_LAYOUT_GRAY, 8 },        { "C420p10", EQ_LAYOUT_YUV420P, 10 },
        { "C420p12", EQ_LAYOUT_YUV420P, 12 },  { "C420p16", EQ_LAYOUT_YUV420P, 16 },
        { "C422p10", EQ_LAYOUT_YUV422P, 10 },  { "C422p12", EQ_LAYOUT_YUV422P, 12 },
        { "C422p16", EQ_LAYOUT_YUV422P, 16 },  { "C444p10", EQ_LAYOUT_YUV444P, 10 },
        { "C444p12", EQ_LAYOUT_YUV444P, 12 },  { "C444p16", EQ_LAYOUT_YUV444P, 16 },
        { "Cmono10", EQ_LAYOUT_GRAY, 10 },     { "Cmono12", EQ_LAYOUT_GRAY, 12 },
        { "Cmono16", EQ_LAYOUT_GRAY, 16 },
    };
    for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
        char line[256];
        Y4mHeader h;
        /* As ffmpeg 5.1 writes them. */
        snprintf(line, sizeof(line),
                 "YUV4MPEG2 W33 H17 F25:1 Ip A1:1 %s XYSCSS=420JPEG XCOLORRANGE=LIMITED",
                 tags[i].tag);
        CHECK(parse(line, &h) == 0);
        CHECK(h.width == 33 && h.height == 17);
        CHECK(h.format.layout == tags[i].layout);
        CHECK(h.format.bitdepth == tags[i].depth);
        CHECK(h.format.msb_aligned == 0 && h.format.swap_uv == 0);
        CHECK(strcmp(h.chroma, tags[i].tag + 1) == 0);
        CHECK(h.fps_num == 25 && h.fps_den == 1);
        CHECK(h.interlace == 'p');
        CHECK(h.range == EQ_RANGE_LIMITED);
        CHECK(strstr(y4m_supported_tags(), tags[i].tag) != NULL);
    }
    /* Tags ffmpeg writes that the library cannot score. */
    CHECK_FAILS("YUV4MPEG2 W8 H8 C411", EQ_ERR_UNSUPPORTED, "'C411'");
    CHECK_FAILS("YUV4MPEG2 W8 H8 C420p9", EQ_ERR_UNSUPPORTED, "'C420p9'");
    CHECK_FAILS("YUV4MPEG2 W8 H8 C444p14", EQ_ERR_UNSUPPORTED, "unsupported");
    CHECK_FAILS("YUV4MPEG2 W8 H8 C444alpha", EQ_ERR_UNSUPPORTED, "'C444alpha'");
    CHECK_FAILS("YUV4MPEG2 W8 H8 Cmono9", EQ_ERR_UNSUPPORTED, "Cmono9");
    CHECK_FAILS("YUV4MPEG2 W8 H8 C", EQ_ERR_UNSUPPORTED, "'C'");
    CHECK_FAILS("YUV4MPEG2 W8 H8 C420jpegX", EQ_ERR_UNSUPPORTED, "C420jpegX");
    CHECK_FAILS("YUV4MPEG2 W8 H8 C420JPEG", EQ_ERR_UNSUPPORTED, "C420JPEG");
    /* A long tag is shown shortened, and bytes that are not printable as '?'. */
    CHECK_FAILS("YUV4MPEG2 W8 H8 C\x01\x7f" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                EQ_ERR_UNSUPPORTED, "'C??aaaa");
    CHECK(strstr(err, "...'") != NULL);
}

static void test_params(void)
{
    Y4mHeader h;

    /* Defaults: no C means 4:2:0 8-bit, no I means unknown (progressive). */
    CHECK(parse("YUV4MPEG2 W64 H48", &h) == 0);
    CHECK(h.format.layout == EQ_LAYOUT_YUV420P && h.format.bitdepth == 8);
    CHECK(h.interlace == '?');
    CHECK(h.range == EQ_RANGE_UNSPECIFIED);
    CHECK(h.fps_num == 0 && h.fps_den == 0);

    /* Order, repeated and extra spaces, a trailing space, unknown parameters. */
    CHECK(parse("YUV4MPEG2  C444p12   H2  W3 Zfoo A0:0 Q  ", &h) == 0);
    CHECK(h.width == 3 && h.height == 2 && h.format.bitdepth == 12);
    CHECK(parse("YUV4MPEG2 W3 H2 W5", &h) == 0); /* the last one wins */
    CHECK(h.width == 5);

    CHECK(parse("YUV4MPEG2 W3 H2 I?", &h) == 0 && h.interlace == '?');
    CHECK(parse("YUV4MPEG2 W3 H2 Ip", &h) == 0 && h.interlace == 'p');
    CHECK_FAILS("YUV4MPEG2 W3 H2 It", EQ_ERR_UNSUPPORTED, "interlaced YUV4MPEG2 (It)");
    CHECK_FAILS("YUV4MPEG2 W3 H2 Ib", EQ_ERR_UNSUPPORTED, "interlaced YUV4MPEG2 (Ib)");
    CHECK_FAILS("YUV4MPEG2 W3 H2 Im", EQ_ERR_UNSUPPORTED, "interlaced");
    CHECK_FAILS("YUV4MPEG2 W3 H2 Ix", EQ_ERR_INVALID_ARGUMENT, "'Ix'");
    CHECK_FAILS("YUV4MPEG2 W3 H2 I", EQ_ERR_INVALID_ARGUMENT, "interlace");
    CHECK_FAILS("YUV4MPEG2 W3 H2 Ipp", EQ_ERR_INVALID_ARGUMENT, "'Ipp'");

    CHECK(parse("YUV4MPEG2 W3 H2 XCOLORRANGE=FULL", &h) == 0 && h.range == EQ_RANGE_FULL);
    CHECK(parse("YUV4MPEG2 W3 H2 XCOLORRANGE=LIMITED", &h) == 0 &&
          h.range == EQ_RANGE_LIMITED);
    CHECK(parse("YUV4MPEG2 W3 H2 XCOLORRANGE=FULLX", &h) == 0 &&
          h.range == EQ_RANGE_UNSPECIFIED);
    CHECK(parse("YUV4MPEG2 W3 H2 XCOLORRANGE=", &h) == 0 && h.range == EQ_RANGE_UNSPECIFIED);
    CHECK(parse("YUV4MPEG2 W3 H2 X", &h) == 0);

    CHECK(parse("YUV4MPEG2 W3 H2 F30000:1001", &h) == 0);
    CHECK(h.fps_num == 30000 && h.fps_den == 1001);
    /* An unreadable rate is ignored (it is not used for scoring). */
    const char *bad_rates[] = { "F", "F:", "F25", "F25:", "F:1", "F0:1", "F1:0", "F-1:1",
                                "F99999999999:1", "F1:1:1", "Fa:b" };
    for (size_t i = 0; i < sizeof(bad_rates) / sizeof(bad_rates[0]); i++) {
        char line[64];
        snprintf(line, sizeof(line), "YUV4MPEG2 W3 H2 %s", bad_rates[i]);
        CHECK(parse(line, &h) == 0);
        CHECK(h.fps_num == 0 && h.fps_den == 0);
    }
}

static void test_sizes(void)
{
    Y4mHeader h;

    CHECK(parse("YUV4MPEG2 W1 H1", &h) == 0 && h.width == 1 && h.height == 1);
    CHECK(parse("YUV4MPEG2 W16384 H4096", &h) == 0);
    CHECK(parse("YUV4MPEG2 W8192 H8192", &h) == 0);
    CHECK(parse("YUV4MPEG2 W0000064 H048", &h) == 0 && h.width == 64 && h.height == 48);
    CHECK_FAILS("YUV4MPEG2 H48", EQ_ERR_INVALID_ARGUMENT, "no width");
    CHECK_FAILS("YUV4MPEG2 W64", EQ_ERR_INVALID_ARGUMENT, "no height");
    CHECK_FAILS("YUV4MPEG2", EQ_ERR_INVALID_ARGUMENT, "no width");
    CHECK_FAILS("YUV4MPEG2 ", EQ_ERR_INVALID_ARGUMENT, "no width");
    CHECK_FAILS("YUV4MPEG2 W0 H48", EQ_ERR_INVALID_ARGUMENT, "zero");
    CHECK_FAILS("YUV4MPEG2 W64 H0", EQ_ERR_INVALID_ARGUMENT, "zero");
    CHECK_FAILS("YUV4MPEG2 W H48", EQ_ERR_INVALID_ARGUMENT, "invalid width");
    CHECK_FAILS("YUV4MPEG2 W-64 H48", EQ_ERR_INVALID_ARGUMENT, "'-64'");
    CHECK_FAILS("YUV4MPEG2 W+64 H48", EQ_ERR_INVALID_ARGUMENT, "'+64'");
    CHECK_FAILS("YUV4MPEG2 W64x H48", EQ_ERR_INVALID_ARGUMENT, "'64x'");
    CHECK_FAILS("YUV4MPEG2 W6.4 H48", EQ_ERR_INVALID_ARGUMENT, "invalid width");
    CHECK_FAILS("YUV4MPEG2 W0x40 H48", EQ_ERR_INVALID_ARGUMENT, "invalid width");
    CHECK_FAILS("YUV4MPEG2 W64 H48h", EQ_ERR_INVALID_ARGUMENT, "invalid height");
    CHECK_FAILS("YUV4MPEG2 W16385 H8", EQ_ERR_TOO_LARGE, "16385");
    CHECK_FAILS("YUV4MPEG2 W8 H16385", EQ_ERR_TOO_LARGE, "at most 16384");
    CHECK_FAILS("YUV4MPEG2 W999999999 H8", EQ_ERR_TOO_LARGE, "larger");
    /* Past int and long: no overflow, a clear error. */
    CHECK_FAILS("YUV4MPEG2 W4294967360 H8", EQ_ERR_INVALID_ARGUMENT, "invalid width");
    CHECK_FAILS("YUV4MPEG2 W99999999999999999999999 H8", EQ_ERR_INVALID_ARGUMENT,
                "invalid width");
    CHECK_FAILS("YUV4MPEG2 W16384 H16384", EQ_ERR_TOO_LARGE, "16384x16384");
    CHECK_FAILS("YUV4MPEG2 W8193 H8192", EQ_ERR_TOO_LARGE, "pixels");
}

static void test_magic(void)
{
    Y4mHeader h;
    CHECK_FAILS("YUV4MPEG W8 H8", EQ_ERR_INVALID_ARGUMENT, "not a YUV4MPEG2 file");
    CHECK_FAILS("YUV4MPEG2X W8 H8", EQ_ERR_INVALID_ARGUMENT, "not a YUV4MPEG2 file");
    CHECK_FAILS("YUV4MPEG3 W8 H8", EQ_ERR_INVALID_ARGUMENT, "not a YUV4MPEG2 file");
    CHECK_FAILS("", EQ_ERR_INVALID_ARGUMENT, "not a YUV4MPEG2 file");
    CHECK_FAILS("yuv4mpeg2 W8 H8", EQ_ERR_INVALID_ARGUMENT, "not a YUV4MPEG2 file");

    /* A NUL inside the line is refused (len, not the terminator, bounds it). */
    static const char nul[] = "YUV4MPEG2 W8 H8\0 C444";
    CHECK(y4m_parse_header(nul, sizeof(nul) - 1, &h, err, sizeof(err)) ==
          EQ_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err, "NUL") != NULL);

    /* The length bounds the parse: a prefix of a valid line parses as itself. */
    static const char line[] = "YUV4MPEG2 W64 H48 C444 XJUNK";
    CHECK(y4m_parse_header(line, 17, &h, err, sizeof(err)) == 0);
    CHECK(h.width == 64 && h.height == 48 && h.format.layout == EQ_LAYOUT_YUV420P);
    CHECK(y4m_parse_header(line, 16, &h, err, sizeof(err)) == 0 && h.height == 4);

    /* A small error buffer is never overrun, and NULL is accepted. */
    char small[8];
    memset(small, 'x', sizeof(small));
    CHECK(y4m_parse_header("YUV4MPEG2 W0 H0", 15, &h, small, 4) < 0);
    CHECK(small[3] == 0 && small[4] == 'x');
    CHECK(y4m_parse_header("YUV4MPEG2 W0 H0", 15, &h, NULL, 0) < 0);
}

static void test_frame_header(void)
{
    CHECK(y4m_parse_frame_header("FRAME", 5, err, sizeof(err)) == 0);
    CHECK(y4m_parse_frame_header("FRAME Ixyz", 10, err, sizeof(err)) == 0);
    CHECK(y4m_parse_frame_header("FRAME ", 6, err, sizeof(err)) == 0);
    CHECK(y4m_parse_frame_header("FRAMES", 6, err, sizeof(err)) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(y4m_parse_frame_header("FRAM", 4, err, sizeof(err)) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err, "\"FRAM\"") != NULL);
    CHECK(y4m_parse_frame_header("", 0, err, sizeof(err)) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(y4m_parse_frame_header("\x80\x01garbage-that-is-long-enough-to-be-cut", 40, err,
                                 sizeof(err)) == EQ_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err, "\"??garbage-that-i...\"") != NULL);
}

/* xorshift64*: reproducible pseudo-random bytes. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 2685821657736338717ull) >> 32);
}

/* Mutated headers: every outcome is 0 with a sane size, or an error code
 * with a message. Run under ASan/valgrind to see reads stay in bounds. */
static void test_mutations(void)
{
    static const char *seeds[] = {
        "YUV4MPEG2 W33 H17 F25:1 Ip A1:1 C420p10 XYSCSS=420P10 XCOLORRANGE=LIMITED",
        "YUV4MPEG2 W16384 H4096 Cmono16",
        "YUV4MPEG2 W1 H1 C444 It",
    };
    static const char alphabet[] = "WHCIFAX0123456789: pbt?m-+420jpegmonoalpha\n\t\x01\xff";
    long ok = 0, bad = 0, invariant_failures = 0;

    for (int iter = 0; iter < 200000; iter++) {
        char buf[128];
        const char *seed = seeds[rnd() % 3];
        size_t len = strlen(seed);
        memcpy(buf, seed, len);
        int edits = 1 + rnd() % 4;
        for (int e = 0; e < edits; e++) {
            size_t pos = rnd() % (len + 1);
            switch (rnd() % 4) {
            case 0: /* replace */
                if (pos < len)
                    buf[pos] = alphabet[rnd() % (sizeof(alphabet) - 1)];
                break;
            case 1: /* insert */
                if (len < sizeof(buf) - 1) {
                    memmove(buf + pos + 1, buf + pos, len - pos);
                    buf[pos] = alphabet[rnd() % (sizeof(alphabet) - 1)];
                    len++;
                }
                break;
            case 2: /* delete */
                if (pos < len) {
                    memmove(buf + pos, buf + pos + 1, len - pos - 1);
                    len--;
                }
                break;
            default: /* truncate */
                len = pos;
                break;
            }
        }
        /* Parse from a heap copy of exactly len bytes so reads past it are
         * caught by ASan / valgrind. */
        char *heap = malloc(len ? len : 1);
        if (!heap)
            continue;
        memcpy(heap, buf, len);
        Y4mHeader h;
        err[0] = 'x';
        int r = y4m_parse_header(heap, len, &h, err, sizeof(err));
        free(heap);
        if (r == 0) {
            ok++;
            if (h.width < 1 || h.height < 1 || h.width > EQ_MAX_DIMENSION ||
                h.height > EQ_MAX_DIMENSION ||
                (long long)h.width * h.height > (long long)EQ_MAX_AREA ||
                (h.format.bitdepth != 8 && h.format.bitdepth != 10 &&
                 h.format.bitdepth != 12 && h.format.bitdepth != 16) ||
                (unsigned)h.format.layout >= EQ_LAYOUT_COUNT ||
                (h.interlace != 'p' && h.interlace != '?'))
                invariant_failures++;
        } else {
            bad++;
            if ((r != EQ_ERR_INVALID_ARGUMENT && r != EQ_ERR_UNSUPPORTED &&
                 r != EQ_ERR_TOO_LARGE) ||
                err[0] == 0 || err[0] == 'x')
                invariant_failures++;
        }
    }
    CHECK(invariant_failures == 0);
    CHECK(ok > 1000 && bad > 1000); /* both outcomes were exercised */
}

int main(void)
{
    test_tags();
    test_params();
    test_sizes();
    test_magic();
    test_frame_header();
    test_mutations();
    return eqtest_done();
}
