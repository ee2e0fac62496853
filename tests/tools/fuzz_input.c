/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The score tool's reader on arbitrary bytes: a stream header, frame headers
 * and payloads, as YUV4MPEG2 or (for the first byte odd) as raw frames of a
 * format and size taken from the input's first bytes.
 *
 * Built with -DEQ_LIBFUZZER and clang -fsanitize=fuzzer,address it is a
 * libFuzzer target:
 *     clang -g -O1 -fsanitize=fuzzer,address,undefined -DEQ_LIBFUZZER \
 *         -Ilib -Itools tests/tools/fuzz_input.c tools/input.c tools/y4m.c \
 *         tools/formats.c lib/frame.c lib/scorer.c ... (or link the library)
 * Otherwise main() replays the files given as arguments, or, with none, runs
 * a fixed number of seeded mutations of valid streams (a meson test; run it
 * under ASan: meson setup -Db_sanitize=address,undefined).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "y4m.h"

/* Frames larger than this are not read (the reader's bounds on the header
 * are what is under test; a 384 MiB allocation per input is not). */
#define MAX_FUZZ_FRAME (4u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    RawParams raw, *rawp = NULL;

    /* Header parser alone, on exactly `size` bytes. */
    Y4mHeader h;
    (void)y4m_parse_header((const char *)data, size, &h, err, sizeof(err));
    (void)y4m_parse_frame_header((const char *)data, size, err, sizeof(err));

    /* The whole reader. An odd first byte selects raw input, its next two
     * bytes a format and a size. */
    if (size >= 3 && (data[0] & 1)) {
        raw.format = pix_format_at(data[1] % pix_format_count());
        raw.width = 1 + (data[2] & 15);
        raw.height = 1 + (data[2] >> 4);
        rawp = &raw;
    }
    if (size == 0)
        return 0;
    FILE *fp = fmemopen((void *)data, size, "rb");
    if (!fp)
        return 0;
    VideoInput *in = NULL;
    if (input_open_stream(&in, fp, 1, rawp, err, sizeof(err)) < 0) {
        if (!err[0])
            abort(); /* every failure says why */
        return 0;
    }
    size_t fsize = input_frame_size(in);
    if (fsize > 0 && fsize <= MAX_FUZZ_FRAME) {
        uint8_t *buf = malloc(fsize);
        int r;
        while (buf && (r = input_read_frame(in, buf, err, sizeof(err))) == 1) {
            EqFrame f;
            if (pix_frame_wrap(input_format(in), input_width(in), input_height(in), buf,
                               &f) < 0)
                abort(); /* an opened input always describes valid frames */
        }
        if (buf && r < 0 && !err[0])
            abort();
        free(buf);
    }
    input_close(&in);
    return 0;
}

#ifndef EQ_LIBFUZZER
static uint64_t rng = 0x853c49e6748fea9bull;
static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 2685821657736338717ull) >> 32);
}

static size_t seed_stream(uint8_t *buf, size_t cap, int which)
{
    static const char *headers[] = {
        "YUV4MPEG2 W5 H3 F25:1 Ip A1:1 C420p10 XYSCSS=420P10 XCOLORRANGE=LIMITED\n",
        "YUV4MPEG2 W4 H4 C444\n",
        "YUV4MPEG2 W7 H1 Cmono16 I?\n",
        "YUV4MPEG2 W2 H2\n",
    };
    static const size_t frame[] = { 54, 48, 14, 6 };
    size_t len = (size_t)snprintf((char *)buf, cap, "%s", headers[which]);
    for (int f = 0; f < 2; f++) {
        len += (size_t)snprintf((char *)buf + len, cap - len, "FRAME\n");
        for (size_t i = 0; i < frame[which] && len < cap; i++)
            buf[len++] = (uint8_t)rnd();
    }
    return len;
}

int main(int argc, char **argv)
{
    static uint8_t buf[4096];

    if (argc > 1) { /* replay */
        for (int i = 1; i < argc; i++) {
            FILE *f = fopen(argv[i], "rb");
            if (!f) {
                perror(argv[i]);
                return 1;
            }
            size_t n = fread(buf, 1, sizeof(buf), f);
            fclose(f);
            LLVMFuzzerTestOneInput(buf, n);
        }
        printf("%d inputs replayed\n", argc - 1);
        return 0;
    }

    long runs = 0;
    for (int iter = 0; iter < 30000; iter++) {
        size_t len = seed_stream(buf, sizeof(buf) - 64, (int)(rnd() % 4));
        int edits = 1 + (int)(rnd() % 6);
        for (int e = 0; e < edits; e++) {
            size_t pos = rnd() % (len + 1);
            switch (rnd() % 5) {
            case 0: /* a random byte */
                if (pos < len)
                    buf[pos] = (uint8_t)rnd();
                break;
            case 1: /* a byte from the y4m alphabet */
                if (pos < len)
                    buf[pos] = (uint8_t)"WHCIFX0123456789 :\npt?FRAME"[rnd() % 27];
                break;
            case 2: /* delete */
                if (pos < len) {
                    memmove(buf + pos, buf + pos + 1, len - pos - 1);
                    len--;
                }
                break;
            case 3: /* insert */
                if (len < sizeof(buf) - 1) {
                    memmove(buf + pos + 1, buf + pos, len - pos);
                    buf[pos] = (uint8_t)rnd();
                    len++;
                }
                break;
            default: /* truncate */
                len = pos;
                break;
            }
        }
        LLVMFuzzerTestOneInput(buf, len);
        runs++;
    }
    printf("%ld mutated inputs read without a fault\n", runs);
    return 0;
}
#endif
