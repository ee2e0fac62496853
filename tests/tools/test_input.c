/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Video inputs read from files written here: YUV4MPEG2 frames come back
 * byte for byte, raw frames too (including the bytes read to tell raw from
 * YUV4MPEG2), and damaged files end in an error sentence, not a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eqtest.h"
#include "input.h"
#include "y4m.h"

static char dir[] = "/tmp/eq-test-input-XXXXXX";
static char err[1024];

static const char *path_of(const char *name)
{
    static char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return path;
}

static void write_file(const char *name, const void *data, size_t len)
{
    FILE *f = fopen(path_of(name), "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        fprintf(stderr, "cannot write %s\n", path_of(name));
        exit(99);
    }
    fclose(f);
}

/* A YUV4MPEG2 file: header, then n frames of `size` bytes with `frame_params`. */
static size_t make_y4m(uint8_t *out, const char *header, const char *frame_params, int n,
                       const uint8_t *payload, size_t size)
{
    size_t len = 0;
    len += (size_t)sprintf((char *)out, "%s\n", header);
    for (int i = 0; i < n; i++) {
        len += (size_t)sprintf((char *)out + len, "FRAME%s\n", frame_params);
        memcpy(out + len, payload + (size_t)i * size, size);
        len += size;
    }
    return len;
}

static uint8_t payload[4 * 3000], file[4 * 3100], frame[3000];

static void test_y4m_frames(void)
{
    /* 5x3 C420p10: Y 15 words, Cb and Cr 3x2 words each: 54 bytes. */
    const size_t size = 54;
    for (size_t i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)(i * 7 + 3);
    /* Payload bytes "FRAME\n" inside the data must not confuse the reader. */
    memcpy(payload + 10, "FRAME\nYUV4MPEG2 ", 16);
    size_t len = make_y4m(file, "YUV4MPEG2 W5 H3 F25:1 Ip C420p10 XCOLORRANGE=FULL", " Ixyz",
                          3, payload, size);
    write_file("a.y4m", file, len);

    VideoInput *in = NULL;
    CHECK(input_open(&in, path_of("a.y4m"), NULL, err, sizeof(err)) == 0);
    if (!in)
        return;
    CHECK(input_is_y4m(in));
    CHECK(input_width(in) == 5 && input_height(in) == 3);
    CHECK(input_format(in)->layout == EQ_LAYOUT_YUV420P && input_format(in)->bitdepth == 10);
    CHECK(input_range(in) == EQ_RANGE_FULL);
    CHECK(input_frame_size(in) == size);
    CHECK(strcmp(input_format_name(in), "C420p10: 4:2:0 10-bit") == 0);
    for (int i = 0; i < 3; i++) {
        CHECK(input_read_frame(in, frame, err, sizeof(err)) == 1);
        CHECK(memcmp(frame, payload + i * size, size) == 0);
    }
    CHECK(input_read_frame(in, frame, err, sizeof(err)) == 0);
    CHECK(input_read_frame(in, frame, err, sizeof(err)) == 0); /* stays at the end */
    input_close(&in);
    CHECK(in == NULL);
    input_close(&in);

    /* Every cut of the file: a clean end only at frame boundaries. */
    for (size_t cut = 0; cut < len; cut++) {
        write_file("cut.y4m", file, cut);
        int r = input_open(&in, path_of("cut.y4m"), NULL, err, sizeof(err));
        if (r < 0) {
            CHECK(in == NULL && err[0] != 0);
            continue;
        }
        int frames = 0;
        while ((r = input_read_frame(in, frame, err, sizeof(err))) == 1)
            frames++;
        size_t header = strlen("YUV4MPEG2 W5 H3 F25:1 Ip C420p10 XCOLORRANGE=FULL\n");
        size_t per = strlen("FRAME Ixyz\n") + size;
        int clean = cut >= header && (cut - header) % per == 0;
        CHECK(clean ? r == 0 : r < 0);
        CHECK(frames == (int)((cut - header) / per));
        if (!clean)
            CHECK(strstr(err, "truncated") != NULL);
        input_close(&in);
    }
}

static void test_y4m_damage(void)
{
    VideoInput *in = NULL;
    size_t len;

    /* A frame header that is not FRAME (e.g. the header's size is wrong). */
    memset(payload, 0x55, 200);
    len = make_y4m(file, "YUV4MPEG2 W4 H2 Cmono", "", 2, payload, 8);
    file[strlen("YUV4MPEG2 W4 H2 Cmono\n") + 6 + 8] = 'G'; /* 2nd "FRAME" -> "GRAME" */
    write_file("bad.y4m", file, len);
    CHECK(input_open(&in, path_of("bad.y4m"), NULL, err, sizeof(err)) == 0);
    CHECK(input_read_frame(in, frame, err, sizeof(err)) == 1);
    CHECK(input_read_frame(in, frame, err, sizeof(err)) < 0);
    CHECK(strstr(err, "frame 1") && strstr(err, "\"GRAME\""));
    input_close(&in);

    /* A frame header without an end of line, and one that never ends. */
    len = (size_t)sprintf((char *)file, "YUV4MPEG2 W4 H2 Cmono\nFRAME Ixx");
    write_file("nofeed.y4m", file, len);
    CHECK(input_open(&in, path_of("nofeed.y4m"), NULL, err, sizeof(err)) == 0);
    CHECK(input_read_frame(in, frame, err, sizeof(err)) < 0);
    CHECK(strstr(err, "truncated") != NULL);
    input_close(&in);

    len = (size_t)sprintf((char *)file, "YUV4MPEG2 W4 H2 Cmono\nFRAME ");
    memset(file + len, 'x', 5000);
    write_file("longframe.y4m", file, len + 5000);
    CHECK(input_open(&in, path_of("longframe.y4m"), NULL, err, sizeof(err)) == 0);
    CHECK(input_read_frame(in, frame, err, sizeof(err)) < 0);
    CHECK(strstr(err, "longer than") != NULL);
    input_close(&in);

    /* Stream headers: too long, no end of line, interlaced, empty file. */
    memcpy(file, "YUV4MPEG2 W4 H2 X", 17);
    memset(file + 17, 'y', 6000);
    file[6017] = '\n';
    write_file("longhdr.y4m", file, 6018);
    CHECK(input_open(&in, path_of("longhdr.y4m"), NULL, err, sizeof(err)) < 0);
    CHECK(in == NULL && strstr(err, "longer than 4095 bytes"));

    write_file("nohdrfeed.y4m", "YUV4MPEG2 W4 H2", 15);
    CHECK(input_open(&in, path_of("nohdrfeed.y4m"), NULL, err, sizeof(err)) < 0);
    CHECK(strstr(err, "cut short") != NULL);

    write_file("short.y4m", "YUV4", 4);
    CHECK(input_open(&in, path_of("short.y4m"), NULL, err, sizeof(err)) < 0);
    CHECK(strstr(err, "not a YUV4MPEG2 file") != NULL);

    write_file("tff.y4m", "YUV4MPEG2 W4 H2 It\nFRAME\n", 25);
    CHECK(input_open(&in, path_of("tff.y4m"), NULL, err, sizeof(err)) == EQ_ERR_UNSUPPORTED);
    CHECK(strstr(err, "interlaced") != NULL);

    write_file("empty.y4m", "", 0);
    CHECK(input_open(&in, path_of("empty.y4m"), NULL, err, sizeof(err)) < 0);
    CHECK(strstr(err, "empty") != NULL);

    CHECK(input_open(&in, path_of("does-not-exist.y4m"), NULL, err, sizeof(err)) < 0);
    CHECK(strstr(err, "cannot open") != NULL);

    /* A header only: a valid stream of no frames. */
    write_file("none.y4m", "YUV4MPEG2 W4 H2\n", 16);
    CHECK(input_open(&in, path_of("none.y4m"), NULL, err, sizeof(err)) == 0);
    CHECK(input_read_frame(in, frame, err, sizeof(err)) == 0);
    input_close(&in);
}

static void test_raw(void)
{
    RawParams raw = { 7, 5, pix_format_find("NV12") };
    VideoInput *in = NULL;
    const size_t size = 35 + 2 * 4 * 3; /* 59 */

    for (size_t i = 0; i < 3 * size; i++)
        payload[i] = (uint8_t)(i * 13 + 1);
    write_file("a.nv12", payload, 3 * size);

    /* Without the raw options a raw file is refused with advice. */
    CHECK(input_open(&in, path_of("a.nv12"), NULL, err, sizeof(err)) < 0);
    CHECK(strstr(err, "--width, --height and --format") != NULL);

    CHECK(input_open(&in, path_of("a.nv12"), &raw, err, sizeof(err)) == 0);
    if (!in)
        return;
    CHECK(!input_is_y4m(in));
    CHECK(input_frame_size(in) == size);
    CHECK(input_range(in) == EQ_RANGE_UNSPECIFIED);
    CHECK(strcmp(input_format_name(in), "NV12: NV12 4:2:0 8-bit") == 0);
    for (int i = 0; i < 3; i++) {
        CHECK(input_read_frame(in, frame, err, sizeof(err)) == 1);
        /* the first 9 bytes were read to look for "YUV4MPEG2" */
        CHECK(memcmp(frame, payload + i * size, size) == 0);
    }
    CHECK(input_read_frame(in, frame, err, sizeof(err)) == 0);
    input_close(&in);

    /* A file that is not a whole number of frames is refused at once. */
    write_file("cut.nv12", payload, 2 * size + 1);
    CHECK(input_open(&in, path_of("cut.nv12"), &raw, err, sizeof(err)) < 0);
    CHECK(strstr(err, "not a whole number of 7x5 NV12 frames (59 bytes each)") != NULL);

    /* A raw stream (not a regular file) cut short: reported when read. */
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "head -c %zu %s", 2 * size + 5, path_of("a.nv12"));
    FILE *pipe = popen(cmd, "r");
    CHECK(pipe != NULL);
    if (pipe) {
        int saved = dup(0);
        CHECK(dup2(fileno(pipe), 0) == 0);
        clearerr(stdin);
        CHECK(input_open(&in, "-", &raw, err, sizeof(err)) == 0);
        CHECK(input_read_frame(in, frame, err, sizeof(err)) == 1);
        CHECK(memcmp(frame, payload, size) == 0);
        CHECK(input_read_frame(in, frame, err, sizeof(err)) == 1);
        CHECK(memcmp(frame, payload + size, size) == 0);
        CHECK(input_read_frame(in, frame, err, sizeof(err)) < 0);
        CHECK(strstr(err, "truncated: frame 2 has 5 of its 59 bytes") != NULL);
        input_close(&in);
        pclose(pipe);
        dup2(saved, 0);
        close(saved);
    }

    /* A raw file shorter than the magic is still one (short) frame. */
    write_file("tiny.gray", "abc", 3);
    RawParams tiny = { 3, 1, pix_format_find("GRAY8") };
    CHECK(input_open(&in, path_of("tiny.gray"), &tiny, err, sizeof(err)) == 0);
    CHECK(input_read_frame(in, frame, err, sizeof(err)) == 1);
    CHECK(memcmp(frame, "abc", 3) == 0);
    CHECK(input_read_frame(in, frame, err, sizeof(err)) == 0);
    input_close(&in);

    /* A YUV4MPEG2 file is read as one even when raw options are given. */
    write_file("y.y4m", "YUV4MPEG2 W2 H1 Cmono\nFRAME\nab", 30);
    CHECK(input_open(&in, path_of("y.y4m"), &raw, err, sizeof(err)) == 0);
    CHECK(input_is_y4m(in) && input_width(in) == 2);
    CHECK(input_read_frame(in, frame, err, sizeof(err)) == 1);
    CHECK(memcmp(frame, "ab", 2) == 0);
    input_close(&in);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 99;
    }
    test_y4m_frames();
    test_y4m_damage();
    test_raw();
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return eqtest_done();
}
