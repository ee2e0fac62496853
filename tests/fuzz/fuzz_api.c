/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libFuzzer harness for the public library API.
 *
 * The first HEADER bytes of an input choose a frame description (layout,
 * bit depth, MSB alignment, size, per-plane stride padding and pointer
 * misalignment, colour), a metric set and how the samples are filled; the
 * rest of the input is the sample bytes. Sizes are bounded so that one
 * input scores in milliseconds: up to 64x64, or with a header bit up to
 * MAX_AREA pixels (MS-SSIM needs 176x176).
 *
 * Beyond "no crash, no sanitizer report", each input checks:
 *   - an error return comes with at least one error message in the log;
 *   - return 0 means every requested metric was scored, and a metric is
 *     scored exactly when its status is 0;
 *   - the same pictures copied to tight, aligned buffers (MSB-aligned
 *     samples rewritten LSB-aligned) and scored by a scorer with a
 *     different thread count give the same return code, the same scored
 *     set and the same bits for every value.
 * A broken invariant aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exactquality.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER 16
#define MAX_SIDE 512
#define MAX_AREA (192 * 192)

static int n_errors;
static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level == EQ_LOG_ERROR) {
        if (!msg || !msg[0] || strlen(msg) >= 1024)
            abort();
        n_errors++;
    }
}

#define REQUIRE(cond)                                                          \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "fuzz_api: invariant broken: %s (line %d)\n", #cond, __LINE__); \
            abort();                                                           \
        }                                                                      \
    } while (0)

/* Scorers are cached per (metric set, thread count): opening one per input
 * would measure eq_scorer_open, not scoring. */
static EqScorer *scorers[16][2];

static EqScorer *get_scorer(unsigned metrics, int threads)
{
    EqScorer **sc = &scorers[metrics & 15][threads - 1];
    if (!*sc) {
        EqSettings s;
        eq_settings_init(&s);
        s.metrics = metrics;
        s.backend = EQ_BACKEND_CPU;
        s.threads = threads;
        s.log = log_cb;
        REQUIRE(eq_scorer_open(sc, &s) == 0);
    }
    return *sc;
}

static int layout_planes(EqLayout l)
{
    if (l == EQ_LAYOUT_GRAY || l >= EQ_LAYOUT_RGB)
        return 1;
    return l == EQ_LAYOUT_NV12 ? 2 : 3;
}

/* Bytes in one row of plane i and its number of rows. */
static void plane_geometry(const EqFrame *f, int i, int64_t *row, int *rows)
{
    int bytes = f->bitdepth > 8 ? 2 : 1;
    int cw = (f->width + 1) / 2, ch = (f->height + 1) / 2;
    *row = (int64_t)f->width * bytes;
    *rows = f->height;
    switch (f->layout) {
    case EQ_LAYOUT_YUV420P:
        if (i > 0)
            *row = (int64_t)cw * bytes, *rows = ch;
        break;
    case EQ_LAYOUT_YUV422P:
        if (i > 0)
            *row = (int64_t)cw * bytes;
        break;
    case EQ_LAYOUT_NV12:
        if (i > 0)
            *row = (int64_t)cw * 2 * bytes, *rows = ch;
        break;
    case EQ_LAYOUT_RGB:
        *row = (int64_t)f->width * 3 * bytes;
        break;
    case EQ_LAYOUT_RGBX:
    case EQ_LAYOUT_BGRX:
    case EQ_LAYOUT_RGBA:
        *row = (int64_t)f->width * 4 * bytes;
        break;
    default:
        break;
    }
}

/* Byte source: the input's sample bytes, cycled, or a xorshift stream. */
typedef struct Src {
    const uint8_t *p;
    size_t n, pos;
    uint32_t state;
    int mode;
} Src;

static uint8_t src_next(Src *s)
{
    switch (s->mode) {
    case 0:
        if (s->n)
            return s->p[s->pos++ % s->n];
        return 0;
    case 1:
        s->state ^= s->state << 13;
        s->state ^= s->state >> 17;
        s->state ^= s->state << 5;
        return (uint8_t)(s->state >> 24);
    case 2:
        return 0xff;
    default:
        return s->n ? s->p[0] : 0x80;
    }
}

typedef struct Planes {
    uint8_t *base[3];
} Planes;

static void planes_free(Planes *p)
{
    for (int i = 0; i < 3; i++) {
        free(p->base[i]);
        p->base[i] = NULL;
    }
}

/*
 * Allocates each plane with exactly the bytes a reader may touch, after
 * `offset[i]` bytes of misalignment, so that a read past the last sample of
 * the last row is an AddressSanitizer report. pad[i] < 0 asks for a stride
 * shorter than a row (or negative), which the library must refuse.
 */
static int planes_make(EqFrame *f, Planes *pl, const int pad[3], const int offset[3],
                       Src *src, const uint8_t *copy_from[3], const ptrdiff_t *copy_stride,
                       int shift)
{
    memset(pl, 0, sizeof(*pl));
    for (int i = 0; i < layout_planes(f->layout); i++) {
        int64_t row;
        int rows;
        plane_geometry(f, i, &row, &rows);
        ptrdiff_t stride = (ptrdiff_t)row + (pad[i] > 0 ? pad[i] : 0);
        if (pad[i] < 0)
            stride = pad[i] == -64 ? -(ptrdiff_t)row : (ptrdiff_t)row + pad[i];
        ptrdiff_t span = stride > 0 ? stride : 0;
        size_t bytes = (size_t)offset[i] + (size_t)(rows - 1) * (size_t)span + (size_t)row;
        pl->base[i] = malloc(bytes);
        if (!pl->base[i])
            return -1;
        uint8_t *p = pl->base[i] + offset[i];
        for (size_t k = 0; k < (size_t)offset[i]; k++)
            pl->base[i][k] = 0xa5;
        for (int y = 0; y < rows; y++) {
            uint8_t *r = p + (size_t)y * (size_t)span;
            size_t end = y == rows - 1 ? (size_t)row : (size_t)span;
            for (size_t x = 0; x < end; x++) {
                if (copy_from && x < (size_t)row)
                    r[x] = copy_from[i][y * copy_stride[i] + (ptrdiff_t)x];
                else
                    r[x] = src_next(src);
            }
            /* 16-bit words moved down by `shift`: an MSB-aligned picture
             * rewritten LSB-aligned, holding the values the library must
             * read from it. */
            for (size_t x = 0; shift && x + 1 < (size_t)row; x += 2) {
                unsigned v = (unsigned)(r[x] | r[x + 1] << 8) >> shift;
                r[x] = (uint8_t)v;
                r[x + 1] = (uint8_t)(v >> 8);
            }
        }
        f->data[i] = p;
        f->stride[i] = stride;
    }
    return 0;
}

static void check_result(int ret, const EqScores *r, unsigned metrics, int errors_before)
{
    if (ret < 0) {
        REQUIRE(n_errors > errors_before);
        REQUIRE(strcmp(eq_strerror(ret), "unknown error") != 0);
    } else {
        REQUIRE(ret == 0);
        REQUIRE(r->scored == metrics);
    }
    REQUIRE(r->requested == metrics);
    REQUIRE((r->scored & ~metrics) == 0);
    for (int i = 0; i < EQ_METRIC_COUNT; i++) {
        unsigned m = 1u << i;
        if (!(metrics & m))
            REQUIRE(r->status[i] == 0);
        else
            REQUIRE((r->status[i] == 0) == !!(r->scored & m));
    }
    for (int i = 0; i < eq_value_count(); i++) {
        const EqValueInfo *info = eq_value_info(i);
        if (eq_value_present(r, i))
            REQUIRE(r->scored & info->metric);
    }
}

static void same_bits(const EqScores *a, const EqScores *b)
{
    REQUIRE(a->scored == b->scored);
    for (int i = 0; i < EQ_METRIC_COUNT; i++)
        REQUIRE(a->status[i] == b->status[i]);
    for (int i = 0; i < eq_value_count(); i++) {
        double x = eq_value_get(a, i), y = eq_value_get(b, i);
        if (memcmp(&x, &y, sizeof(x)) != 0) {
            fprintf(stderr, "fuzz_api: %s differs: %a vs %a\n", eq_value_info(i)->name, x, y);
            abort();
        }
    }
    if (a->scored & EQ_METRIC_SSIMULACRA2) {
        REQUIRE(a->ssimulacra2_scales == b->ssimulacra2_scales);
        REQUIRE(memcmp(a->ssimulacra2_sums, b->ssimulacra2_sums,
                       sizeof(a->ssimulacra2_sums)) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int depths[16] = { 8, 10, 12, 16, 8, 10, 12, 16, 8, 10, 12, 16, 8, 9, 0, 14 };
    uint8_t h[HEADER] = { 0 };
    memcpy(h, data, size < HEADER ? size : HEADER);

    EqFrame ref;
    memset(&ref, 0, sizeof(ref));
    ref.layout = (EqLayout)(h[0] % (EQ_LAYOUT_COUNT + 1));
    ref.bitdepth = depths[h[1] & 15];
    ref.msb_aligned = (h[2] & 3) == 3 ? 2 : h[2] & 1;
    /* Colour: values 4..7 and 3 are out of the enums' ranges. */
    ref.matrix = (EqMatrix)(h[15] & 7);
    ref.range = (EqRange)((h[15] >> 3) & 3);
    ref.width = 1 + h[3] + ((h[4] & 1) << 8);
    ref.height = 1 + h[5] + ((h[4] & 2) << 7);
    if (!(h[4] & 8)) {
        /* Small (the common case, fast under sanitizers): up to 64x64. */
        ref.width = 1 + (ref.width - 1) % 64;
        ref.height = 1 + (ref.height - 1) % 64;
    }
    if (h[4] & 4)
        ref.width = 0; /* empty frame */
    if (ref.width > MAX_SIDE)
        ref.width = MAX_SIDE;
    if ((int64_t)ref.width * ref.height > MAX_AREA)
        ref.height = MAX_AREA / (ref.width > 0 ? ref.width : 1);
    unsigned metrics = h[6] & 0x1f;
    int threads = 1 + (h[13] & 1);

    int pad[3], offset[3];
    for (int i = 0; i < 3; i++) {
        pad[i] = h[7 + i] & 63;
        if ((h[7 + i] & 0xc0) == 0xc0)
            pad[i] = -1 - (h[7 + i] & 63); /* short or negative stride */
        offset[i] = h[10 + i] & 15;
    }

    Src src = { data + (size < HEADER ? size : HEADER), size < HEADER ? 0 : size - HEADER,
                0, 0x9e3779b9u ^ (uint32_t)size, h[14] & 3 };

    /* A metric set the library must refuse. */
    if (metrics == 0 || metrics > EQ_METRIC_ALL) {
        EqSettings s;
        EqScorer *sc = NULL;
        eq_settings_init(&s);
        s.metrics = metrics;
        s.log = log_cb;
        int before = n_errors;
        REQUIRE(eq_scorer_open(&sc, &s) == EQ_ERR_INVALID_ARGUMENT);
        REQUIRE(sc == NULL && n_errors > before);
        return 0;
    }
    if (ref.width <= 0 || (unsigned)ref.layout >= EQ_LAYOUT_COUNT || ref.bitdepth == 0) {
        /* Describe, never allocate: the library must refuse before reading. */
        static const uint8_t dummy[16];
        for (int i = 0; i < 3; i++) {
            ref.data[i] = dummy;
            ref.stride[i] = 16;
        }
        int before = n_errors;
        REQUIRE(eq_frame_validate(&ref, log_cb, NULL) < 0);
        REQUIRE(n_errors > before);
        EqScores r;
        REQUIRE(eq_scorer_score(get_scorer(metrics, threads), &ref, &ref, &r) < 0);
        return 0;
    }

    EqFrame dist = ref;
    if (h[2] & 8) { /* a mismatch the library must refuse */
        if (h[13] & 2)
            dist.width = ref.width + 1;
        else
            dist.bitdepth = ref.bitdepth == 8 ? 10 : 8;
    }
    Planes pr, pd, tr, td;
    memset(&pd, 0, sizeof(pd));
    memset(&tr, 0, sizeof(tr));
    memset(&td, 0, sizeof(td));
    if (planes_make(&ref, &pr, pad, offset, &src, NULL, NULL, 0) < 0)
        goto out;
    int identical = (h[14] & 12) == 4 && !(h[2] & 8);
    for (int i = 0; i < 3; i++)
        identical &= pad[i] >= 0;
    if (identical) {
        /* dist: the same samples (identical pictures), other padding. */
        int pad2[3] = { 7, 3, 1 }, off2[3] = { 1, 2, 3 };
        const uint8_t *from[3] = { ref.data[0], ref.data[1], ref.data[2] };
        if (planes_make(&dist, &pd, pad2, off2, &src, from, ref.stride, 0) < 0)
            goto out;
    } else if (planes_make(&dist, &pd, pad, offset, &src, NULL, NULL, 0) < 0) {
        goto out;
    }

    EqScores r1, r2;
    int before = n_errors;
    int valid = eq_frame_validate(&ref, log_cb, NULL) == 0 &&
                eq_frame_validate(&dist, log_cb, NULL) == 0;
    int ret = eq_scorer_score(get_scorer(metrics, threads), &ref, &dist, &r1);
    check_result(ret, &r1, metrics, before);
    if (!valid) {
        REQUIRE(ret < 0 && r1.scored == 0);
        goto out;
    }
    if (h[2] & 8) {
        REQUIRE(ret == EQ_ERR_MISMATCH && r1.scored == 0);
        goto out;
    }

    /* The same pictures, tight and aligned, LSB-aligned, other thread
     * count. */
    {
        EqFrame tref = ref, tdist = dist;
        int zero[3] = { 0, 0, 0 };
        int shift = ref.msb_aligned && ref.bitdepth > 8 ? 16 - ref.bitdepth : 0;
        const uint8_t *fr[3] = { ref.data[0], ref.data[1], ref.data[2] };
        const uint8_t *fd[3] = { dist.data[0], dist.data[1], dist.data[2] };
        tref.msb_aligned = tdist.msb_aligned = 0;
        if (planes_make(&tref, &tr, zero, zero, &src, fr, ref.stride, shift) < 0 ||
            planes_make(&tdist, &td, zero, zero, &src, fd, dist.stride, shift) < 0)
            goto out;
        before = n_errors;
        int ret2 = eq_scorer_score(get_scorer(metrics, 3 - threads), &tref, &tdist, &r2);
        check_result(ret2, &r2, metrics, before);
        REQUIRE(ret2 == ret);
        same_bits(&r1, &r2);
    }

out:
    planes_free(&pr);
    planes_free(&pd);
    planes_free(&tr);
    planes_free(&td);
    return 0;
}
