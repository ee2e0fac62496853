/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The kernel harness (in the spirit of dav1d's tests/checkasm): every CUDA
 * stage against its C reference on seeded random input, outputs compared
 * bit for bit (partial sums too), every stage run twice to catch races.
 * Without a GPU it exits 77 (meson's "skipped"); it ends with
 * "N passed, N failed"; `--seed N` reproduces a run.
 */
#ifndef EQ_CK_H
#define EQ_CK_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda/cuda.h"

typedef struct CkContext {
    EqCuda *cuda;
    uint64_t seed;
    int full;  /* 1: larger sizes and more repetitions */
    int quick; /* 1: small sizes only (for compute-sanitizer) */
    int passed;
    int failed;
    const char *stage;
} CkContext;

/* Records one comparison of `n` bytes; prints the first differing element
 * (as 64-bit words) with the stage, case and seed on failure. */
static inline int ck_same(CkContext *ck, const char *what, const void *a, const void *b,
                          size_t n)
{
    if (!memcmp(a, b, n)) {
        ck->passed++;
        return 1;
    }
    ck->failed++;
    size_t i = 0;
    while (i < n && ((const uint8_t *)a)[i] == ((const uint8_t *)b)[i])
        i++;
    size_t w = i / 8;
    uint64_t va = 0, vb = 0;
    if ((w + 1) * 8 <= n) {
        memcpy(&va, (const uint8_t *)a + w * 8, 8);
        memcpy(&vb, (const uint8_t *)b + w * 8, 8);
    }
    double da, db;
    memcpy(&da, &va, 8);
    memcpy(&db, &vb, 8);
    fprintf(stderr,
            "FAIL %s: %s: first difference at byte %zu (word %zu: 0x%016llx %a vs "
            "0x%016llx %a); reproduce with --seed %llu\n",
            ck->stage, what, i, w, (unsigned long long)va, da, (unsigned long long)vb, db,
            (unsigned long long)ck->seed);
    return 0;
}

static inline void ck_error(CkContext *ck, const char *what, int err)
{
    ck->failed++;
    fprintf(stderr, "FAIL %s: %s returned %d (%s); reproduce with --seed %llu\n", ck->stage,
            what, err, eq_strerror(err), (unsigned long long)ck->seed);
}

void ck_psnr(CkContext *ck);
void ck_ordsum(CkContext *ck);
void ck_ssim(CkContext *ck);
void ck_ssim_front(CkContext *ck);
void ck_ssimulacra2(CkContext *ck);

#endif /* EQ_CK_H */
