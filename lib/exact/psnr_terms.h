/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * PSNR per-pixel term, shared by the C reference and the CUDA kernels.
 *
 * Definition: libvmaf 3.2.0 libvmaf/src/feature/integer_psnr.c (feature
 * "psnr"). Per plane, the sum of squared differences is an integer: at 8 bits
 * each row's squares go into a uint32_t and rows into a uint64_t; deeper
 * samples go straight into a uint64_t. Every square is an exact unsigned
 * integer (|d| <= 65535, d*d < 2^32) and no partial sum of a legal frame can
 * wrap (8-bit row: 16384 * 255^2 < 2^32), so the SSE is the same integer in
 * any order of addition: the GPU may reduce it as it likes.
 */
#ifndef EQ_EXACT_PSNR_TERMS_H
#define EQ_EXACT_PSNR_TERMS_H

#include <stdint.h>

#include "exact/hd.h"

/* Squared difference of two samples of the same plane (any bit depth):
 * ref - dist wraps modulo 2^32, and its square modulo 2^32 is exactly
 * (ref - dist)^2, which is below 2^32. */
EQ_HD static inline uint32_t eq_psnr_term(uint32_t ref, uint32_t dist)
{
    uint32_t e = ref - dist;
    return e * e;
}

/* The same for 8-bit samples, in libvmaf's form (an int16_t difference
 * squared as int), which compilers turn into 16-bit multiply-adds. */
EQ_HD static inline uint32_t eq_psnr_term8(uint8_t ref, uint8_t dist)
{
    int16_t e = (int16_t)(ref - dist);
    return (uint32_t)(e * e);
}

#endif /* EQ_EXACT_PSNR_TERMS_H */
