/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libFuzzer harness for exactquality-score's YUV4MPEG2 reader
 * (tools/y4m.[ch], tools/input.[ch], tools/formats.[ch]).
 *
 * Each input is a whole .y4m stream. It is
 *   1. split at '\n' and every line fed to y4m_parse_header and
 *      y4m_parse_frame_header (pure parsers: bounded by len);
 *   2. written to an in-memory file (memfd) and read the way the CLI reads
 *      it: input_open, then input_read_frame until the end or an error.
 *      Every frame is wrapped as an EqFrame (pix_frame_wrap) and scored
 *      with PSNR against itself, which must give the cap 6 * bitdepth + 12
 *      for every plane (the reader hands the library the frame it read).
 * Every error must come with a sentence. Frames are read only while their
 * size stays under MAX_FRAME bytes (the header may describe up to
 * EQ_MAX_AREA pixels; opening such a stream is still exercised).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exactquality.h"
#include "formats.h"
#include "input.h"
#include "y4m.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FRAME (4u << 20)
#define MAX_FRAMES 8

#define REQUIRE(cond)                                                          \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "fuzz_y4m: invariant broken: %s (line %d)\n", #cond, __LINE__); \
            abort();                                                           \
        }                                                                      \
    } while (0)

static void parse_lines(const uint8_t *data, size_t size)
{
    size_t start = 0;
    char err[512];
    for (size_t i = 0; i <= size; i++) {
        if (i < size && data[i] != '\n')
            continue;
        size_t len = i - start;
        /* An exact-size copy: a parser reading past len is an ASan report. */
        char *line = malloc(len ? len : 1);
        REQUIRE(line != NULL);
        memcpy(line, data + start, len);
        Y4mHeader h;
        int ret = y4m_parse_header(line, len, &h, err, sizeof(err));
        REQUIRE(memchr(err, 0, sizeof(err)) != NULL);
        if (ret < 0) {
            REQUIRE(err[0] != 0);
        } else {
            REQUIRE(h.width >= 1 && h.width <= EQ_MAX_DIMENSION);
            REQUIRE(h.height >= 1 && h.height <= EQ_MAX_DIMENSION);
            REQUIRE((int64_t)h.width * h.height <= EQ_MAX_AREA);
            REQUIRE(memchr(h.chroma, 0, sizeof(h.chroma)) != NULL);
        }
        ret = y4m_parse_frame_header(line, len, err, sizeof(err));
        REQUIRE(ret == 0 || err[0] != 0);
        free(line);
        start = i + 1;
    }
}

static EqScorer *psnr_scorer(void)
{
    static EqScorer *sc;
    if (!sc) {
        EqSettings s;
        eq_settings_init(&s);
        s.metrics = EQ_METRIC_PSNR;
        s.backend = EQ_BACKEND_CPU;
        s.threads = 1;
        REQUIRE(eq_scorer_open(&sc, &s) == 0);
    }
    return sc;
}

static void read_stream(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz_y4m", 0);
    if (fd < 0)
        return;
    size_t off = 0;
    while (off < size) {
        ssize_t n = write(fd, data + off, size - off);
        if (n <= 0) {
            close(fd);
            return;
        }
        off += (size_t)n;
    }
    char path[64], err[512];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

    VideoInput *in = NULL;
    int ret = input_open(&in, path, NULL, err, sizeof(err));
    close(fd); /* input_open opened its own descriptor */
    if (ret < 0) {
        REQUIRE(in == NULL && err[0] != 0);
        return;
    }
    REQUIRE(input_is_y4m(in));
    const PixFormat *fmt = input_format(in);
    size_t fsize = input_frame_size(in);
    REQUIRE(fsize > 0);
    if (fsize <= MAX_FRAME) {
        unsigned char *buf = malloc(fsize);
        REQUIRE(buf != NULL);
        for (int k = 0; k < MAX_FRAMES; k++) {
            ret = input_read_frame(in, buf, err, sizeof(err));
            if (ret < 0)
                REQUIRE(err[0] != 0);
            if (ret <= 0)
                break;
            EqFrame f;
            REQUIRE(pix_frame_wrap(fmt, input_width(in), input_height(in), buf, &f) == 0);
            EqScores r;
            REQUIRE(eq_scorer_score(psnr_scorer(), &f, &f, &r) == 0);
            double cap = 6.0 * fmt->bitdepth + 12.0;
            REQUIRE(r.psnr_y == cap);
            if (fmt->layout != EQ_LAYOUT_GRAY)
                REQUIRE(r.psnr_cb == cap && r.psnr_cr == cap);
        }
        free(buf);
    }
    input_close(&in);
    REQUIRE(in == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse_lines(data, size);
    read_stream(data, size);
    return 0;
}
