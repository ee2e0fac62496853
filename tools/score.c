/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * exactquality-score: scores a distorted video against its reference, frame
 * by frame, with libexactquality; prints CSV (or JSON lines), one row per
 * frame, and a pooled summary on stderr. See docs/cli.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exactquality.h"
#include "formats.h"
#include "input.h"

#define PROG "exactquality-score"

/* Exit statuses (docs/cli.md, "Exit status"). */
enum {
    EXIT_OK = 0,
    EXIT_SCORE = 1, /* a metric failed on some frame, or REF and DIST differ in length */
    EXIT_USAGE = 2, /* bad command line */
    EXIT_INPUT = 3, /* an input cannot be read, is malformed, cut short, or does not match */
    EXIT_SETUP = 4, /* the scorer cannot be opened, out of memory, output not written */
};

typedef struct Options {
    unsigned metrics;
    int metrics_given;
    EqBackend backend;
    int threads;
    EqMatrix matrix;
    EqRange range;
    long max_frames; /* -1: all */
    int json;
    int quiet;
    int verbose;
    const char *output;
    int width, height;
    const PixFormatName *format;
    const char *ref, *dist;
} Options;

/* ------------------------------------------------------------------ logging */

/* The library's messages go to stderr, each distinct one once: a metric that
 * fails on every frame says so once, and the end summary counts the frames. */
#define MAX_SEEN 64

typedef struct LogState {
    int verbose;
    int quiet_open;  /* opening with --backend auto: a missing CUDA device is
                        expected, its messages are shown only with --verbose */
    char *seen[MAX_SEEN];
    int nseen;
} LogState;

static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    LogState *st = user;
    if ((level > EQ_LOG_WARNING || st->quiet_open) && !st->verbose)
        return;
    for (int i = 0; i < st->nseen; i++)
        if (strcmp(st->seen[i], msg) == 0)
            return;
    if (st->nseen < MAX_SEEN) {
        char *copy = strdup(msg);
        if (copy)
            st->seen[st->nseen++] = copy;
    }
    fprintf(stderr, PROG ": %s\n", msg);
}

static void log_free(LogState *st)
{
    for (int i = 0; i < st->nseen; i++)
        free(st->seen[i]);
    st->nseen = 0;
}

static void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void errorf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---------------------------------------------------------------- options */

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: " PROG " [OPTIONS] REF DIST\n"
            "Scores DIST against REF frame by frame: PSNR, SSIM, MS-SSIM (libvmaf's\n"
            "definitions, same bits) and SSIMULACRA2. REF and DIST are YUV4MPEG2 (.y4m)\n"
            "files, or raw frames with --width, --height and --format; '-' reads one of\n"
            "them from standard input.\n"
            "\n"
            "Options:\n"
            "  -m, --metrics LIST   comma-separated: psnr, ssim, ms_ssim, ssimulacra2, all\n"
            "                       (default: every metric this build has)\n"
            "  -b, --backend NAME   cpu, cuda or auto (default auto: CUDA when a device\n"
            "                       opens, else the CPU; both give the same bits)\n"
            "  -t, --threads N      CPU worker threads (default 0: one per core)\n"
            "      --matrix NAME    bt601, bt709 or bt2020: YUV->RGB for ssimulacra2\n"
            "                       (default bt709)\n"
            "      --range NAME     limited or full (default: the y4m XCOLORRANGE tag,\n"
            "                       else limited for YUV, full for RGB)\n"
            "      --width N        raw input width\n"
            "      --height N       raw input height\n"
            "      --format NAME    raw input format (GStreamer name, list below)\n"
            "  -n, --frames N       score at most N frames\n"
            "  -j, --json           JSON lines instead of CSV\n"
            "  -o, --output FILE    write the rows to FILE instead of standard output\n"
            "  -q, --quiet          no pooled summary on stderr\n"
            "  -v, --verbose        also print the library's informational messages\n"
            "  -h, --help           this text\n"
            "      --version        version and build\n"
            "\n"
            "YUV4MPEG2 colour spaces: C420jpeg C420mpeg2 C420paldv C420 C422 C444 Cmono,\n"
            "  C420p10 C420p12 C420p16 C422p10 C422p12 C422p16 C444p10 C444p12 C444p16\n"
            "  Cmono10 Cmono12 Cmono16 (progressive only)\n"
            "Raw formats (tightly packed rows, as ffmpeg -f rawvideo writes them):\n");
    for (int i = 0; i < pix_format_count(); i++) {
        const PixFormatName *f = pix_format_at(i);
        fprintf(out, "  %-10s %s\n", f->name, f->description);
    }
    fprintf(out, "\n"
                 "Exit status: 0 success; 1 a metric failed on a frame or the inputs differ\n"
                 "in length; 2 usage error; 3 input error; 4 scorer or output error.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs(PROG ": ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry '" PROG " --help' for more information.\n", stderr);
    return EXIT_USAGE;
}

/* A whole decimal number in [min, max]. */
static int parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_metrics(const char *list, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned bits;
    } names[] = {
        { "psnr", EQ_METRIC_PSNR },
        { "ssim", EQ_METRIC_SSIM },
        { "float_ssim", EQ_METRIC_SSIM },
        { "ms_ssim", EQ_METRIC_MS_SSIM },
        { "float_ms_ssim", EQ_METRIC_MS_SSIM },
        { "ssimulacra2", EQ_METRIC_SSIMULACRA2 },
        { "all", EQ_METRIC_ALL },
    };
    unsigned bits = 0;
    const char *p = list;

    for (;;) {
        size_t len = strcspn(p, ",");
        size_t i;
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strlen(names[i].name) == len && strncmp(names[i].name, p, len) == 0)
                break;
        if (i == sizeof(names) / sizeof(names[0])) {
            char name[64];
            snprintf(name, sizeof(name), "%.*s", (int)(len < 40 ? len : 40), p);
            return usage_error("unknown metric '%s' (choose from psnr, ssim, ms_ssim, "
                               "ssimulacra2, all)",
                               name);
        }
        bits |= names[i].bits;
        if (!p[len])
            break;
        p += len + 1;
    }
    unsigned missing = bits & ~eq_metrics_available();
    if (bits == EQ_METRIC_ALL)
        bits = eq_metrics_available();
    else if (missing) {
        for (unsigned m = 1; m <= EQ_METRIC_ALL; m <<= 1)
            if (missing & m)
                return usage_error("metric %s is not built into this library",
                                   eq_metric_name(m));
    }
    *out = bits;
    return 0;
}

enum { OPT_MATRIX = 256, OPT_RANGE, OPT_WIDTH, OPT_HEIGHT, OPT_FORMAT, OPT_VERSION };

static int parse_options(int argc, char **argv, Options *o, int *done)
{
    static const struct option longopts[] = {
        { "metrics", required_argument, NULL, 'm' },
        { "backend", required_argument, NULL, 'b' },
        { "threads", required_argument, NULL, 't' },
        { "matrix", required_argument, NULL, OPT_MATRIX },
        { "range", required_argument, NULL, OPT_RANGE },
        { "width", required_argument, NULL, OPT_WIDTH },
        { "height", required_argument, NULL, OPT_HEIGHT },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "frames", required_argument, NULL, 'n' },
        { "json", no_argument, NULL, 'j' },
        { "output", required_argument, NULL, 'o' },
        { "quiet", no_argument, NULL, 'q' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, OPT_VERSION },
        { NULL, 0, NULL, 0 },
    };
    long v;
    int c, ret;

    *done = 0;
    memset(o, 0, sizeof(*o));
    o->metrics = eq_metrics_available();
    o->backend = EQ_BACKEND_AUTO;
    o->max_frames = -1;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:b:t:n:jo:qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if ((ret = parse_metrics(optarg, &o->metrics)) != 0)
                return ret;
            o->metrics_given = 1;
            break;
        case 'b':
            if (strcmp(optarg, "cpu") == 0)
                o->backend = EQ_BACKEND_CPU;
            else if (strcmp(optarg, "cuda") == 0)
                o->backend = EQ_BACKEND_CUDA;
            else if (strcmp(optarg, "auto") == 0)
                o->backend = EQ_BACKEND_AUTO;
            else
                return usage_error("unknown backend '%s' (choose cpu, cuda or auto)", optarg);
            break;
        case 't':
            if (parse_long(optarg, 0, 1024, &v) < 0)
                return usage_error("--threads needs a number from 0 to 1024, not '%s'",
                                   optarg);
            o->threads = (int)v;
            break;
        case OPT_MATRIX:
            if (strcmp(optarg, "bt601") == 0)
                o->matrix = EQ_MATRIX_BT601;
            else if (strcmp(optarg, "bt709") == 0)
                o->matrix = EQ_MATRIX_BT709;
            else if (strcmp(optarg, "bt2020") == 0)
                o->matrix = EQ_MATRIX_BT2020NC;
            else
                return usage_error("unknown matrix '%s' (choose bt601, bt709 or bt2020)",
                                   optarg);
            break;
        case OPT_RANGE:
            if (strcmp(optarg, "limited") == 0)
                o->range = EQ_RANGE_LIMITED;
            else if (strcmp(optarg, "full") == 0)
                o->range = EQ_RANGE_FULL;
            else
                return usage_error("unknown range '%s' (choose limited or full)", optarg);
            break;
        case OPT_WIDTH:
            if (parse_long(optarg, 1, EQ_MAX_DIMENSION, &v) < 0)
                return usage_error("--width needs a number from 1 to 16384, not '%s'",
                                   optarg);
            o->width = (int)v;
            break;
        case OPT_HEIGHT:
            if (parse_long(optarg, 1, EQ_MAX_DIMENSION, &v) < 0)
                return usage_error("--height needs a number from 1 to 16384, not '%s'",
                                   optarg);
            o->height = (int)v;
            break;
        case OPT_FORMAT:
            o->format = pix_format_find(optarg);
            if (!o->format) {
                char list[512] = "";
                for (int i = 0; i < pix_format_count(); i++) {
                    strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
                    strncat(list, pix_format_at(i)->name, sizeof(list) - strlen(list) - 1);
                }
                fprintf(stderr,
                        PROG ": unknown raw format '%s' (GStreamer names: %s)\n"
                             "Try '" PROG " --help' for more information.\n",
                        optarg, list);
                return EXIT_USAGE;
            }
            break;
        case 'n':
            if (parse_long(optarg, 1, 2147483647L, &v) < 0)
                return usage_error("--frames needs a positive number, not '%s'", optarg);
            o->max_frames = v;
            break;
        case 'j':
            o->json = 1;
            break;
        case 'o':
            o->output = optarg;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'v':
            o->verbose = 1;
            break;
        case 'h':
            usage(stdout);
            *done = 1;
            return EXIT_OK;
        case OPT_VERSION: {
            printf(PROG " %d.%d.%d\nCUDA backend: %s\nmetrics:", EQ_VERSION_MAJOR,
                   EQ_VERSION_MINOR, EQ_VERSION_MICRO, eq_cuda_built() ? "built" : "not built");
            for (unsigned m = 1; m <= EQ_METRIC_ALL; m <<= 1)
                if (eq_metrics_available() & m)
                    printf(" %s", eq_metric_name(m));
            printf("\n");
            *done = 1;
            return EXIT_OK;
        }
        case ':':
            return usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return usage_error("%s", argc - optind < 2 ? "give two inputs: REF DIST"
                                                   : "too many arguments: give REF DIST");
    o->ref = argv[optind];
    o->dist = argv[optind + 1];
    if (strcmp(o->ref, "-") == 0 && strcmp(o->dist, "-") == 0)
        return usage_error("%s", "only one of REF and DIST can be standard input ('-')");
    int nraw = (o->width > 0) + (o->height > 0) + (o->format != NULL);
    if (nraw != 0 && nraw != 3)
        return usage_error("%s", "raw input needs all of --width, --height and --format");
    return 0;
}

/* ------------------------------------------------------------------ output */

static void print_double(FILE *out, double v, int json)
{
    if (isnan(v) || (json && isinf(v)))
        fputs(json ? "null" : "nan", out);
    else
        fprintf(out, "%.17g", v);
}

static void print_header(FILE *out, const int *cols, int ncols)
{
    fputs("frame", out);
    for (int c = 0; c < ncols; c++)
        fprintf(out, ",%s", eq_value_info(cols[c])->name);
    fputc('\n', out);
}

static void print_row(FILE *out, long frame, const EqScores *s, const int *cols, int ncols,
                      int json)
{
    if (json)
        fprintf(out, "{\"frame\":%ld", frame);
    else
        fprintf(out, "%ld", frame);
    for (int c = 0; c < ncols; c++) {
        if (json)
            fprintf(out, ",\"%s\":", eq_value_info(cols[c])->name);
        else
            fputc(',', out);
        print_double(out, eq_value_get(s, cols[c]), json);
    }
    fputs(json ? "}\n" : "\n", out);
}

/* Pooled as libvmaf pools (EqScorePool, exactquality.h); an empty pool's
 * statistics are NaN, printed "nan". */
static void print_summary(const EqScorePool *pools, const int *cols, int ncols, long frames,
                          EqBackend backend)
{
    fprintf(stderr, PROG ": %ld frame%s scored, %s backend; pooled:\n", frames,
            frames == 1 ? "" : "s", eq_backend_name(backend));
    fprintf(stderr, "%-24s %6s %24s %24s %24s %24s\n", "value", "frames", "mean",
            "harmonic_mean", "min", "max");
    for (int c = 0; c < ncols; c++) {
        const EqScorePool *p = &pools[c];
        fprintf(stderr, "%-24s %6" PRIu64 " %24.17g %24.17g %24.17g %24.17g\n",
                eq_value_info(cols[c])->name, eq_score_pool_count(p), eq_score_pool_mean(p),
                eq_score_pool_harmonic_mean(p), eq_score_pool_min(p), eq_score_pool_max(p));
    }
}

/* ------------------------------------------------------------------- main */

static const char *display_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard input" : path;
}

static int open_input(VideoInput **in, const char *path, const Options *o)
{
    RawParams raw = { o->width, o->height, o->format };
    char err[1024];
    int ret = input_open(in, path, o->format ? &raw : NULL, err, sizeof(err));
    if (ret < 0) {
        errorf("%s: %s", display_name(path), err);
        return ret == EQ_ERR_NO_MEMORY ? EXIT_SETUP : EXIT_INPUT;
    }
    return 0;
}

static int check_pair(VideoInput *ref, VideoInput *dist, const Options *o)
{
    const PixFormat *a = input_format(ref), *b = input_format(dist);
    if (input_width(ref) != input_width(dist) || input_height(ref) != input_height(dist) ||
        a->layout != b->layout || a->bitdepth != b->bitdepth) {
        errorf("REF and DIST differ in size or format: %s is %dx%d (%s), %s is %dx%d (%s)",
               display_name(o->ref), input_width(ref), input_height(ref),
               input_format_name(ref), display_name(o->dist), input_width(dist),
               input_height(dist), input_format_name(dist));
        return EXIT_INPUT;
    }
    if (o->format && input_is_y4m(ref) && input_is_y4m(dist))
        errorf("warning: --width, --height and --format are ignored: both inputs are "
               "YUV4MPEG2");
    if (!o->range && input_range(ref) != input_range(dist) &&
        (o->metrics & EQ_METRIC_SSIMULACRA2))
        errorf("warning: REF and DIST declare different colour ranges; ssimulacra2 uses "
               "REF's (give --range to choose)");
    return 0;
}

int main(int argc, char **argv)
{
    Options o;
    LogState logst = { 0 };
    VideoInput *ref = NULL, *dist = NULL;
    EqScorer *scorer = NULL;
    unsigned char *buf_ref = NULL, *buf_dist = NULL;
    FILE *out = stdout;
    int cols[64], ncols = 0, done;
    EqScorePool pools[64];
    long frames = 0, failed[EQ_METRIC_COUNT] = { 0 };
    int first_err[EQ_METRIC_COUNT] = { 0 };
    int rc;

    rc = parse_options(argc, argv, &o, &done);
    if (rc != 0 || done)
        return rc;
    logst.verbose = o.verbose;

    if ((rc = open_input(&ref, o.ref, &o)) != 0)
        goto end;
    if ((rc = open_input(&dist, o.dist, &o)) != 0)
        goto end;
    if ((rc = check_pair(ref, dist, &o)) != 0)
        goto end;

    /* RGB is scored by ssimulacra2 alone: by default, ask for no other. */
    EqLayout layout = input_format(ref)->layout;
    int rgb = layout == EQ_LAYOUT_RGB || layout == EQ_LAYOUT_RGBX ||
              layout == EQ_LAYOUT_BGRX || layout == EQ_LAYOUT_RGBA;
    if (rgb && !o.metrics_given)
        o.metrics &= EQ_METRIC_SSIMULACRA2;
    if (!o.metrics) {
        errorf("RGB input is scored by ssimulacra2 only, and this build has no ssimulacra2");
        rc = EXIT_INPUT;
        goto end;
    }
    for (int i = 0; i < eq_value_count() && ncols < 64; i++) {
        if (eq_value_info(i)->metric & o.metrics) {
            eq_score_pool_init(&pools[ncols]);
            cols[ncols++] = i;
        }
    }

    EqSettings s;
    eq_settings_init(&s);
    s.metrics = o.metrics;
    s.backend = o.backend;
    s.threads = o.threads;
    s.matrix = o.matrix;
    s.range = o.range;
    s.log = log_cb;
    s.log_user = &logst;
    logst.quiet_open = o.backend == EQ_BACKEND_AUTO;
    int err = eq_scorer_open(&scorer, &s);
    logst.quiet_open = 0;
    if (err < 0) {
        errorf("cannot start the %s backend: %s", eq_backend_name(o.backend),
               eq_strerror(err));
        rc = EXIT_SETUP;
        goto end;
    }

    buf_ref = malloc(input_frame_size(ref));
    buf_dist = malloc(input_frame_size(dist));
    if (!buf_ref || !buf_dist) {
        errorf("out of memory: two frames of %zu bytes", input_frame_size(ref));
        rc = EXIT_SETUP;
        goto end;
    }

    if (o.output) {
        out = fopen(o.output, "w");
        if (!out) {
            errorf("%s: cannot write: %s", o.output, strerror(errno));
            out = stdout;
            rc = EXIT_SETUP;
            goto end;
        }
    }
    if (!o.json)
        print_header(out, cols, ncols);

    for (;;) {
        char msg[1024];
        if (o.max_frames >= 0 && frames >= o.max_frames)
            break;
        int r1 = input_read_frame(ref, buf_ref, msg, sizeof(msg));
        if (r1 < 0) {
            errorf("%s: %s", display_name(o.ref), msg);
            rc = EXIT_INPUT;
            goto end;
        }
        int r2 = input_read_frame(dist, buf_dist, msg, sizeof(msg));
        if (r2 < 0) {
            errorf("%s: %s", display_name(o.dist), msg);
            rc = EXIT_INPUT;
            goto end;
        }
        if (r1 == 0 || r2 == 0) {
            if (r1 != r2) {
                errorf("REF and DIST differ in length: %s ended after %ld frame%s and %s "
                       "has more; scored the first %ld",
                       display_name(r1 == 0 ? o.ref : o.dist), frames, frames == 1 ? "" : "s",
                       display_name(r1 == 0 ? o.dist : o.ref), frames);
                rc = EXIT_SCORE;
            }
            break;
        }

        EqFrame fr, fd;
        const PixFormat *pf = input_format(ref);
        if (pix_frame_wrap(pf, input_width(ref), input_height(ref), buf_ref, &fr) < 0 ||
            pix_frame_wrap(input_format(dist), input_width(dist), input_height(dist),
                           buf_dist, &fd) < 0) {
            errorf("internal error: cannot describe frame %ld", frames);
            rc = EXIT_SETUP;
            goto end;
        }
        fr.range = input_range(ref);
        fd.range = input_range(dist);

        EqScores sc;
        err = eq_scorer_score(scorer, &fr, &fd, &sc);
        if (err == EQ_ERR_MISMATCH || err == EQ_ERR_INVALID_ARGUMENT ||
            err == EQ_ERR_TOO_LARGE || err == EQ_ERR_NO_MEMORY) {
            /* Whole-call failures; the library has said why. */
            errorf("frame %ld: %s", frames, eq_strerror(err));
            rc = err == EQ_ERR_NO_MEMORY ? EXIT_SETUP : EXIT_INPUT;
            goto end;
        }
        for (int m = 0; m < EQ_METRIC_COUNT; m++) {
            if (!(o.metrics & (1u << m)) || sc.status[m] >= 0)
                continue;
            if (failed[m]++ == 0)
                first_err[m] = sc.status[m];
        }
        print_row(out, frames, &sc, cols, ncols, o.json);
        for (int c = 0; c < ncols; c++)
            eq_score_pool_add(&pools[c], eq_value_get(&sc, cols[c]));
        frames++;
    }

    if (frames == 0) {
        if (rc == 0)
            errorf("no frames to score: %s has none", display_name(o.ref));
        rc = EXIT_INPUT;
        goto end;
    }
    for (int m = 0; m < EQ_METRIC_COUNT; m++) {
        if (!failed[m])
            continue;
        errorf("%s: not scored on %ld of %ld frame%s (%s)", eq_metric_name(1u << m), failed[m],
               frames, frames == 1 ? "" : "s", eq_strerror(first_err[m]));
        if (rc == 0)
            rc = EXIT_SCORE;
    }
    if (!o.quiet && frames > 0)
        print_summary(pools, cols, ncols, frames, eq_scorer_backend(scorer));

end:
    if (out != stdout) {
        if (fclose(out) != 0) {
            errorf("%s: write error: %s", o.output, strerror(errno));
            rc = EXIT_SETUP;
        }
    } else if (fflush(stdout) != 0 || ferror(stdout)) {
        errorf("standard output: write error: %s", strerror(errno));
        rc = EXIT_SETUP;
    }
    free(buf_ref);
    free(buf_dist);
    eq_scorer_close(&scorer);
    input_close(&ref);
    input_close(&dist);
    log_free(&logst);
    return rc;
}
