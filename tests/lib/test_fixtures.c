/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Scores decoded fixture frames with the CPU reference and compares every
 * value of libvmaf 3.2.0's CSVs bit for bit.
 *
 *   test_fixtures REF.yuv DIST.yuv W H 420|422|444|400 BITDEPTH CSV...
 *
 * Raw files are planar, chroma ((W + ss) >> ss) wide, 16-bit samples
 * little-endian. Each CSV has a header naming libvmaf's features (lines
 * starting with '#' are comments); every named column known to
 * eq_value_info() is checked with CHECK_BITS, and a CSV must name at least
 * one. On the first and last frames the same pair is also scored with padded
 * unaligned strides, one thread, NV12 / P010 repacking (4:2:0) and as GRAY;
 * each must give the same bits.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eqtest.h"
#include "exactquality.h"

#define MAX_COLS 64
#define MAX_ROWS 512

typedef struct {
    const char *path;
    int ncols;
    int value_index[MAX_COLS]; /* -1: not ours (frame number, unknown) */
    char names[MAX_COLS][64];
    int nrows;
    double rows[MAX_ROWS][MAX_COLS];
} Csv;

static int find_value(const char *name)
{
    for (int i = 0; i < eq_value_count(); i++)
        if (!strcmp(eq_value_info(i)->name, name))
            return i;
    return -1;
}

static int read_csv(Csv *c, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    int have_header = 0;

    memset(c, 0, sizeof(*c));
    c->path = path;
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    while (fgets(line, sizeof(line), f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = 0;
        int col = 0;
        char *save = NULL;
        for (char *tok = strtok_r(line, ",", &save); tok && col < MAX_COLS;
             tok = strtok_r(NULL, ",", &save), col++) {
            if (!have_header) {
                snprintf(c->names[col], sizeof(c->names[col]), "%s", tok);
                c->value_index[col] = find_value(tok);
            } else if (c->nrows < MAX_ROWS) {
                c->rows[c->nrows][col] = strtod(tok, NULL);
            }
        }
        if (!have_header) {
            c->ncols = col;
            have_header = 1;
        } else {
            c->nrows++;
        }
    }
    fclose(f);
    return 0;
}

typedef struct {
    int w, h, sub, bd, bytes;
    int pw[3], ph[3];
    size_t plane_size[3], frame_size;
} Geometry;

static EqLayout layout_of(int sub)
{
    return sub == 420 ? EQ_LAYOUT_YUV420P
           : sub == 422 ? EQ_LAYOUT_YUV422P
           : sub == 444 ? EQ_LAYOUT_YUV444P
                        : EQ_LAYOUT_GRAY;
}

static EqFrame tight_frame(const Geometry *g, const uint8_t *buf)
{
    EqFrame f;
    memset(&f, 0, sizeof(f));
    f.layout = layout_of(g->sub);
    f.width = g->w;
    f.height = g->h;
    f.bitdepth = g->bd;
    const uint8_t *p = buf;
    for (int i = 0; i < (g->sub == 400 ? 1 : 3); i++) {
        f.data[i] = p;
        f.stride[i] = (ptrdiff_t)g->pw[i] * g->bytes;
        p += g->plane_size[i];
    }
    return f;
}

/* The same frame with each row padded by `pad` bytes and planes at odd
 * addresses (strides are not multiples of anything). */
static EqFrame padded_frame(const Geometry *g, const uint8_t *buf, uint8_t *store, int pad)
{
    EqFrame f = tight_frame(g, buf);
    uint8_t *q = store + 1;
    for (int i = 0; i < (g->sub == 400 ? 1 : 3); i++) {
        size_t row = (size_t)g->pw[i] * g->bytes;
        const uint8_t *src = f.data[i];
        for (int y = 0; y < g->ph[i]; y++) {
            memcpy(q + y * (row + pad), src + y * row, row);
            memset(q + y * (row + pad) + row, 0xA5, (size_t)pad);
        }
        f.data[i] = q;
        f.stride[i] = (ptrdiff_t)(row + pad);
        q += (row + pad) * g->ph[i] + 3;
    }
    return f;
}

/* 4:2:0 -> NV12 (8 bit) or P010/P012/P016-style MSB-aligned words. */
static EqFrame nv12_frame(const Geometry *g, const uint8_t *buf, uint8_t *store)
{
    EqFrame f = tight_frame(g, buf);
    const int shift = g->bytes == 2 ? 16 - g->bd : 0;
    uint8_t *y = store, *uv = store + g->plane_size[0] + 64;
    for (size_t i = 0; i < (size_t)g->pw[0] * g->ph[0]; i++) {
        if (g->bytes == 1) {
            y[i] = buf[i];
        } else {
            unsigned v = (buf[2 * i] | (buf[2 * i + 1] << 8)) << shift;
            v |= 0x5 & ((1u << shift) - 1); /* junk in the ignored low bits */
            y[2 * i] = (uint8_t)v;
            y[2 * i + 1] = (uint8_t)(v >> 8);
        }
    }
    const uint8_t *cb = (const uint8_t *)f.data[1], *cr = (const uint8_t *)f.data[2];
    size_t nc = (size_t)g->pw[1] * g->ph[1];
    for (size_t i = 0; i < nc; i++) {
        for (int c = 0; c < 2; c++) {
            const uint8_t *s = c ? cr : cb;
            if (g->bytes == 1) {
                uv[2 * i + c] = s[i];
            } else {
                unsigned v = (s[2 * i] | (s[2 * i + 1] << 8)) << shift;
                uv[4 * i + 2 * c] = (uint8_t)v;
                uv[4 * i + 2 * c + 1] = (uint8_t)(v >> 8);
            }
        }
    }
    f.layout = EQ_LAYOUT_NV12;
    f.msb_aligned = g->bytes == 2;
    f.data[0] = y;
    f.stride[0] = (ptrdiff_t)g->pw[0] * g->bytes;
    f.data[1] = uv;
    f.stride[1] = (ptrdiff_t)g->pw[1] * 2 * g->bytes;
    f.data[2] = NULL;
    f.stride[2] = 0;
    return f;
}

static void check_same(const EqScores *a, const EqScores *b, unsigned metrics, const char *what)
{
    int bad = 0;
    for (int i = 0; i < eq_value_count(); i++) {
        if (!(eq_value_info(i)->metric & metrics))
            continue;
        double x = eq_value_get(a, i), y = eq_value_get(b, i);
        if (memcmp(&x, &y, sizeof(x)) != 0) {
            fprintf(stderr, "%s: %s %.17g != %.17g\n", what, eq_value_info(i)->name, x, y);
            bad++;
        }
    }
    CHECK(bad == 0);
}

static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level <= EQ_LOG_WARNING)
        fprintf(stderr, "log: %s\n", msg);
}

static EqScorer *open_scorer(int threads)
{
    EqSettings s;
    EqScorer *sc = NULL;
    eq_settings_init(&s);
    s.metrics = EQ_METRIC_PSNR | EQ_METRIC_SSIM | EQ_METRIC_MS_SSIM;
    s.backend = EQ_BACKEND_CPU;
    s.threads = threads;
    s.log = log_cb;
    if (eq_scorer_open(&sc, &s) < 0)
        return NULL;
    return sc;
}

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: test_fixtures REF DIST W H 420|422|444|400 BITDEPTH CSV...\n");
        return 2;
    }
    Geometry g;
    memset(&g, 0, sizeof(g));
    g.w = atoi(argv[3]);
    g.h = atoi(argv[4]);
    g.sub = atoi(argv[5]);
    g.bd = atoi(argv[6]);
    g.bytes = g.bd > 8 ? 2 : 1;
    const int ssx = g.sub == 420 || g.sub == 422, ssy = g.sub == 420;
    for (int i = 0; i < 3; i++) {
        g.pw[i] = i ? (g.w + ssx) >> ssx : g.w;
        g.ph[i] = i ? (g.h + ssy) >> ssy : g.h;
        g.plane_size[i] = i && g.sub == 400 ? 0 : (size_t)g.pw[i] * g.ph[i] * g.bytes;
        g.frame_size += g.plane_size[i];
    }

    int ncsv = argc - 7;
    Csv *csv = calloc((size_t)ncsv, sizeof(Csv));
    for (int i = 0; i < ncsv; i++) {
        CHECK(read_csv(&csv[i], argv[7 + i]) == 0);
        int known = 0;
        for (int c = 0; c < csv[i].ncols; c++)
            known += csv[i].value_index[c] >= 0;
        CHECK(known > 0);
        CHECK(csv[i].nrows > 0);
    }

    FILE *fr = fopen(argv[1], "rb"), *fd = fopen(argv[2], "rb");
    CHECK(fr && fd);
    if (!fr || !fd)
        return eqtest_done();
    uint8_t *rb = malloc(g.frame_size), *db = malloc(g.frame_size);
    size_t store_size = g.frame_size + 3 * (size_t)g.h * 64 + 256;
    uint8_t *rs = malloc(store_size), *ds = malloc(store_size);
    EqScorer *sc = open_scorer(0), *sc1 = open_scorer(1);
    CHECK(sc && sc1);
    const unsigned all = EQ_METRIC_PSNR | EQ_METRIC_SSIM | EQ_METRIC_MS_SSIM;

    int frames = 0, checked = 0;
    int nrows = csv[0].nrows;
    while (fread(rb, 1, g.frame_size, fr) == g.frame_size &&
           fread(db, 1, g.frame_size, fd) == g.frame_size) {
        EqFrame ref = tight_frame(&g, rb), dist = tight_frame(&g, db);
        EqScores r;
        CHECK(eq_scorer_score(sc, &ref, &dist, &r) == 0);
        CHECK(r.scored == all);
        if (g.sub == 400) {
            CHECK(isnan(r.psnr_cb) && isnan(r.psnr_cr));
        }

        for (int i = 0; i < ncsv; i++) {
            Csv *c = &csv[i];
            if (frames >= c->nrows) {
                CHECK(!"more decoded frames than CSV rows");
                continue;
            }
            CHECK(c->rows[frames][0] == frames);
            for (int col = 0; col < c->ncols; col++) {
                int vi = c->value_index[col];
                if (vi < 0)
                    continue;
                double want = c->rows[frames][col], got = eq_value_get(&r, vi);
                if (memcmp(&want, &got, sizeof(double)) != 0)
                    fprintf(stderr, "%s frame %d %s:\n", c->path, frames, c->names[col]);
                CHECK_BITS(got, want);
                checked++;
            }
        }

        if (frames == 0 || frames == nrows - 1) {
            EqScores v;
            EqFrame pr = padded_frame(&g, rb, rs, 37), pd = padded_frame(&g, db, ds, 13);
            CHECK(eq_scorer_score(sc, &pr, &pd, &v) == 0);
            check_same(&r, &v, all, "padded strides");

            CHECK(eq_scorer_score(sc1, &ref, &dist, &v) == 0);
            check_same(&r, &v, all, "one thread");

            if (g.sub == 420) {
                EqFrame nr = nv12_frame(&g, rb, rs), nd = nv12_frame(&g, db, ds);
                CHECK(eq_scorer_score(sc, &nr, &nd, &v) == 0);
                check_same(&r, &v, all, g.bytes == 2 ? "P010-style MSB-aligned" : "NV12");
            }

            EqFrame gr = ref, gd = dist;
            gr.layout = gd.layout = EQ_LAYOUT_GRAY;
            CHECK(eq_scorer_score(sc, &gr, &gd, &v) == 0);
            CHECK(isnan(v.psnr_cb) && isnan(v.psnr_cr));
            CHECK_BITS(v.psnr_y, r.psnr_y);
            check_same(&r, &v, EQ_METRIC_SSIM | EQ_METRIC_MS_SSIM, "GRAY");
        }
        frames++;
    }
    CHECK(frames == nrows);
    printf("%d frames, %d values compared with libvmaf\n", frames, checked);

    eq_scorer_close(&sc);
    eq_scorer_close(&sc1);
    fclose(fr);
    fclose(fd);
    free(rb);
    free(db);
    free(rs);
    free(ds);
    free(csv);
    return eqtest_done();
}
