/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * exactquality-ordsum's output and exit status: 0 when the loop and the
 * engine agree (file and stdin, every plan), 2 on usage and input errors,
 * and 1 from the same tool built with mutation 1 (ties always up) on a
 * stream of ties, so the "differ" path is real.
 *
 * usage: test_ordsum_tool TOOL MUTATED_TOOL
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eqtest.h"

static char dir[256];

static void path_of(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

/* Runs "TOOL ARGS > out"; returns the exit status, -1 if it did not exit. */
static int run(const char *tool, const char *args, char *out, size_t out_size)
{
    char cmd[2048], outpath[300];
    int st;
    FILE *f;
    size_t got = 0;
    path_of(outpath, sizeof outpath, "out.txt");
    snprintf(cmd, sizeof cmd, "'%s' %s > '%s' 2>/dev/null", tool, args, outpath);
    st = system(cmd);
    if (out) {
        out[0] = 0;
        f = fopen(outpath, "r");
        if (f) {
            got = fread(out, 1, out_size - 1, f);
            out[got] = 0;
            fclose(f);
        }
    }
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

static int write_le(const char *name, const double *x, size_t n, size_t extra_bytes)
{
    char p[300];
    FILE *f;
    size_t i;
    path_of(p, sizeof p, name);
    f = fopen(p, "wb");
    if (!f)
        return -1;
    for (i = 0; i < n; i++) {
        uint64_t b;
        unsigned char le[8];
        int k;
        memcpy(&b, &x[i], 8);
        for (k = 0; k < 8; k++)
            le[k] = (unsigned char)(b >> (8 * k));
        fwrite(le, 1, 8, f);
    }
    for (i = 0; i < extra_bytes; i++)
        fputc(0, f);
    return fclose(f);
}

int main(int argc, char **argv)
{
    const char *tool, *mutated;
    char out[4096], args[1024], ties[300], odd[300], empty[300];
    double *x;
    size_t i, n = 20000;
    uint64_t st = 12345;
    static const char *const plans[] = {
        "",
        "--plan correct",
        "--plan high",
        "--plan zero",
        "--plan none",
        "--plan fixed=0",
        "--plan random=7",
        "--chunk 100",
        "--chunk 4096 --segment 1",
        "--plan=high --chunk=13",
        "--piece 0",
        "--piece=1 --chunk 64",
    };

    if (argc != 3) {
        fprintf(stderr, "usage: %s TOOL MUTATED_TOOL\n", argv[0]);
        return 2;
    }
    tool = argv[1];
    mutated = argv[2];
    snprintf(dir, sizeof dir, "%s/eq-ordsum-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    x = malloc(n * sizeof *x);
    if (!x)
        return 2;
    /* ssimulacra2-like: multiples of 2^-53, every odd one a tie in [1, 2) */
    for (i = 0; i < n; i++) {
        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        x[i] = (double)(st >> 23) * 0x1p-53;
    }
    CHECK(write_le("ties.f64", x, n, 0) == 0);
    CHECK(write_le("odd.f64", x, 3, 5) == 0);
    CHECK(write_le("empty.f64", x, 0, 0) == 0);
    path_of(ties, sizeof ties, "ties.f64");
    path_of(odd, sizeof odd, "odd.f64");
    path_of(empty, sizeof empty, "empty.f64");

    for (i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        char *nl;
        snprintf(args, sizeof args, "%s '%s'", plans[i], ties);
        CHECK(run(tool, args, out, sizeof out) == 0);
        /* two lines, the same text */
        nl = strchr(out, '\n');
        CHECK(nl && strncmp(out, nl + 1, (size_t)(nl - out)) == 0 && strchr(out, 'p'));
    }
    snprintf(args, sizeof args, "--plan high < '%s'", ties);
    CHECK(run(tool, args, NULL, 0) == 0);
    snprintf(args, sizeof args, "- < '%s'", ties);
    CHECK(run(tool, args, NULL, 0) == 0);
    snprintf(args, sizeof args, "'%s'", empty);
    CHECK(run(tool, args, out, sizeof out) == 0);
    CHECK(strcmp(out, "0x0p+0\n0x0p+0\n") == 0);

    /* usage and input errors */
    CHECK(run(tool, "--bogus", NULL, 0) == 2);
    snprintf(args, sizeof args, "--plan sideways '%s'", ties);
    CHECK(run(tool, args, NULL, 0) == 2);
    snprintf(args, sizeof args, "--plan fixed=5000 '%s'", ties);
    CHECK(run(tool, args, NULL, 0) == 2);
    snprintf(args, sizeof args, "--chunk 0 '%s'", ties);
    CHECK(run(tool, args, NULL, 0) == 2);
    snprintf(args, sizeof args, "--piece -1 '%s'", ties);
    CHECK(run(tool, args, NULL, 0) == 2);
    snprintf(args, sizeof args, "'%s' '%s'", ties, ties);
    CHECK(run(tool, args, NULL, 0) == 2);
    snprintf(args, sizeof args, "'%s/does-not-exist.f64'", dir);
    CHECK(run(tool, args, NULL, 0) == 2);
    snprintf(args, sizeof args, "'%s'", odd);
    CHECK(run(tool, args, NULL, 0) == 2);
    CHECK(run(tool, "--help", NULL, 0) == 0);

    /* the engine with ties always rounded up differs: exit 1 */
    snprintf(args, sizeof args, "'%s'", ties);
    CHECK(run(mutated, args, out, sizeof out) == 1);

    remove(ties);
    remove(odd);
    remove(empty);
    path_of(args, sizeof args, "out.txt");
    remove(args);
    rmdir(dir);
    free(x);
    return eqtest_done();
}
