/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * checkkernels [--seed N] [--full | --quick] [--only STAGE]
 *
 * --quick keeps to small sizes (for compute-sanitizer runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ck.h"

static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level <= EQ_LOG_WARNING)
        fprintf(stderr, "exactquality: %s\n", msg);
}

static const struct {
    const char *name;
    void (*fn)(CkContext *);
} stages[] = {
    {"ordsum", ck_ordsum},
    {"psnr", ck_psnr},
    {"ssim", ck_ssim},
    {"ssim_front", ck_ssim_front},
    {"ssimulacra2", ck_ssimulacra2},
};

int main(int argc, char **argv)
{
    CkContext ck;
    const char *only = NULL;
    char why[256];
    EqSettings s;
    EqLog log = {log_cb, NULL};

    /* a line at a time: compute-sanitizer runs may be cut off by a time
     * limit, and what was printed by then must reach the log */
    setvbuf(stdout, NULL, _IOLBF, 0);
    memset(&ck, 0, sizeof(ck));
    ck.seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            ck.seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--full"))
            ck.full = 1;
        else if (!strcmp(argv[i], "--quick"))
            ck.quick = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--seed N] [--full | --quick] [--only STAGE]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!eq_cuda_device_available(why, sizeof(why))) {
        printf("no CUDA device (%s): skipped\n", why);
        return 77;
    }
    eq_settings_init(&s);
    int err = eq_cuda_open(&ck.cuda, &s, &log);
    if (err < 0) {
        printf("CUDA backend failed to open: %s\n", eq_strerror(err));
        return 1;
    }
    printf("checkkernels: seed %llu%s\n", (unsigned long long)ck.seed,
           ck.full ? " (full)" : "");
    for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
        if (only && strcmp(only, stages[i].name))
            continue;
        int p = ck.passed, f = ck.failed;
        ck.stage = stages[i].name;
        stages[i].fn(&ck);
        printf("  %-24s %6d passed, %d failed\n", stages[i].name, ck.passed - p, ck.failed - f);
    }
    eq_cuda_close(&ck.cuda);
    printf("%d passed, %d failed\n", ck.passed, ck.failed);
    return ck.failed ? 1 : 0;
}
