/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * exactquality-ordsum: throw your own worst cases at the exact ordered sum.
 *
 *   exactquality-ordsum [options] [FILE]
 *
 * Reads raw little-endian doubles from FILE (or stdin when FILE is absent
 * or "-") and prints two lines: the plain loop's sum and the engine's sum
 * (the host pipeline in the device layout), each as %a. Exit status 0 when
 * the two have the same bits, 1 when they differ, 2 on a usage or I/O error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact/ordsum_host.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: exactquality-ordsum [options] [FILE]\n"
               "Reads raw little-endian doubles from FILE (stdin when absent or \"-\"),\n"
               "prints the plain loop's sum and the exact engine's sum as %%a; exits 0\n"
               "when they are the same bits, 1 when they differ, 2 on errors.\n"
               "  --plan correct|high|zero|none|fixed=E|random=SEED\n"
               "                     the binade plan (advice; default correct)\n"
               "  --chunk N          terms per chunk (default 1024: 4 per lane x 256 lanes;\n"
               "                     N not a multiple of 4 uses 1 term per lane)\n"
               "  --segment K        chunks per segment (default 64; 1 disables segments)\n"
               "  --piece L          lanes per fallback piece of a failed chunk (default 16;\n"
               "                     0: a failed chunk adds all its terms one by one)\n"
               "  --stats            print what the walk did on stderr\n"
               "  -h, --help         this text\n");
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 0);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_plan(const char *s, EqOrdPlanSpec *spec)
{
    long v;
    memset(spec, 0, sizeof *spec);
    if (!strcmp(s, "correct") || !strcmp(s, "tree")) {
        spec->kind = EQ_ORD_PLAN_TREE;
    } else if (!strcmp(s, "high")) {
        spec->kind = EQ_ORD_PLAN_HIGH;
    } else if (!strcmp(s, "zero")) {
        spec->kind = EQ_ORD_PLAN_ZERO;
    } else if (!strcmp(s, "none")) {
        spec->kind = EQ_ORD_PLAN_NONE;
    } else if (!strncmp(s, "fixed=", 6)) {
        if (parse_long(s + 6, EQ_ORD_EMIN, EQ_ORD_EMAX, &v) < 0)
            return -1;
        spec->kind = EQ_ORD_PLAN_FIXED;
        spec->fixed = (int)v;
    } else if (!strncmp(s, "random=", 7)) {
        char *end;
        errno = 0;
        spec->seed = strtoull(s + 7, &end, 0);
        if (errno || end == s + 7 || *end)
            return -1;
        spec->kind = EQ_ORD_PLAN_RANDOM;
    } else {
        return -1;
    }
    return 0;
}

/* All of f as doubles, assembled from little-endian bytes. */
static int read_doubles(FILE *f, double **out, size_t *count)
{
    size_t cap = 1 << 16, n = 0, got;
    unsigned char buf[8 * 4096];
    double *x = malloc(cap * sizeof *x);
    size_t carry = 0;

    if (!x)
        return -1;
    while ((got = fread(buf + carry, 1, sizeof buf - carry, f)) > 0) {
        size_t avail = carry + got, i;
        for (i = 0; i + 8 <= avail; i += 8) {
            uint64_t b = 0;
            int k;
            if (n == cap) {
                double *nx;
                if (cap > SIZE_MAX / 2 / sizeof *x)
                    goto fail;
                nx = realloc(x, 2 * cap * sizeof *x);
                if (!nx)
                    goto fail;
                x = nx;
                cap *= 2;
            }
            for (k = 7; k >= 0; k--)
                b = (b << 8) | buf[i + (size_t)k];
            x[n++] = eq_from_bits(b);
        }
        carry = avail - i;
        memmove(buf, buf + i, carry);
    }
    if (ferror(f) || carry) {
        if (carry)
            fprintf(stderr,
                    "exactquality-ordsum: input length is not a multiple of 8 bytes "
                    "(%zu bytes left over)\n",
                    carry);
        goto fail;
    }
    *out = x;
    *count = n;
    return 0;
fail:
    free(x);
    return -1;
}

int main(int argc, char **argv)
{
    EqOrdPlanSpec spec = {EQ_ORD_PLAN_TREE, 0, 0};
    EqOrdLayout layout = eq_ordsum_default_layout;
    EqOrdStats st;
    const char *path = NULL;
    int stats = 0, i, err;
    double *x = NULL, loop, engine;
    size_t n = 0;
    FILE *f;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        long v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--plan") || !strncmp(a, "--plan=", 7)) {
            const char *val = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || parse_plan(val, &spec) < 0) {
                fprintf(stderr, "exactquality-ordsum: --plan takes correct, high, zero, none, "
                                "fixed=E (E in -1022..1023) or random=SEED\n");
                return 2;
            }
        } else if (!strcmp(a, "--chunk") || !strncmp(a, "--chunk=", 8)) {
            const char *val = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || parse_long(val, 1, 1L << 20, &v) < 0) {
                fprintf(stderr, "exactquality-ordsum: --chunk takes a number of terms "
                                "from 1 to 1048576\n");
                return 2;
            }
            layout.terms_per_lane = v % 4 == 0 ? 4 : 1;
            layout.lanes_per_chunk = (int)(v / layout.terms_per_lane);
        } else if (!strcmp(a, "--segment") || !strncmp(a, "--segment=", 10)) {
            const char *val = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || parse_long(val, 1, 1L << 20, &v) < 0) {
                fprintf(stderr, "exactquality-ordsum: --segment takes a number of chunks "
                                "from 1 to 1048576\n");
                return 2;
            }
            layout.chunks_per_segment = (int)v;
        } else if (!strcmp(a, "--piece") || !strncmp(a, "--piece=", 8)) {
            const char *val = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val || parse_long(val, 0, 1L << 20, &v) < 0) {
                fprintf(stderr, "exactquality-ordsum: --piece takes a number of lanes "
                                "from 0 to 1048576\n");
                return 2;
            }
            layout.lanes_per_piece = (int)v;
        } else if (!strcmp(a, "--stats")) {
            stats = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "exactquality-ordsum: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (path) {
            fprintf(stderr, "exactquality-ordsum: give one input file (or none for stdin)\n");
            return 2;
        } else {
            path = a;
        }
    }

    if (!path || !strcmp(path, "-")) {
        f = stdin;
    } else {
        f = fopen(path, "rb");
        if (!f) {
            fprintf(stderr, "exactquality-ordsum: cannot open '%s': %s\n", path,
                    strerror(errno));
            return 2;
        }
    }
    err = read_doubles(f, &x, &n);
    if (f != stdin)
        fclose(f);
    if (err < 0) {
        fprintf(stderr, "exactquality-ordsum: could not read the input as doubles\n");
        return 2;
    }

    loop = eq_ordsum_loop(x, n, 1, 0.0);
    err = eq_ordsum_host(x, n, 1, 0.0, &layout, &spec, &engine, &st);
    free(x);
    if (err < 0) {
        fprintf(stderr, "exactquality-ordsum: the engine failed (error %d)\n", err);
        return 2;
    }
    printf("%a\n%a\n", loop, engine);
    if (stats)
        fprintf(stderr,
                "terms %zu, chunks %zu (%zu applied, %zu failed), segments %zu (%zu applied), "
                "run checks %zu, terms added one by one %zu\n",
                st.terms, st.chunks, st.chunks_applied, st.chunks_term_by_term, st.segments,
                st.segments_applied, st.checks, st.terms_term_by_term);
    return eq_bits(loop) == eq_bits(engine) ? 0 : 1;
}
