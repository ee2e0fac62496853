/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * PSNR's final mapping, shared by both backends: each backend forms the
 * component's sum of squared differences as an exact integer (the CPU in a
 * loop, the device in any order: integer adds are associative), and this
 * one host function turns it into decibels. Host only (libm's log10): the
 * same code finishes both backends, so their results are the same bits.
 *
 * Definition: libvmaf 3.2.0 libvmaf/src/feature/integer_psnr.c, psnr() and
 * psnr_hbd() with the default options (no min_sse, no reduced_hbd_peak):
 *     mse  = (double)sse / (w * h)
 *     psnr = MIN(10 * log10(peak * peak / MAX(mse, 1e-16)), psnr_max)
 * with psnr_max = 6 * bpc + 12. libvmaf's 8-bit path uses peak = 255 as a
 * uint8_t; the high-bit-depth path peak = (1 << bpc) - 1 as a uint32_t, so
 * peak * peak is an unsigned integer product converted to double.
 */
#ifndef EQ_EXACT_PSNR_H
#define EQ_EXACT_PSNR_H

#include <math.h>
#include <stdint.h>

#include "exact/hd.h"

/* One sample's term: the squared difference, exact in 32 bits for every
 * bit depth up to 16 (65535^2 < 2^32). */
EQ_HD static inline uint32_t eq_psnr_term(unsigned a, unsigned b)
{
    uint32_t e = a > b ? a - b : b - a;
    return e * e;
}

static inline double eq_psnr_from_sse(uint64_t sse, int width, int height, int bitdepth)
{
    const uint32_t peak = bitdepth == 8 ? 255u : (1u << bitdepth) - 1u;
    const double psnr_max = (double)(6 * bitdepth + 12);
    /* libvmaf divides by w[p] * h[p], a product of unsigned ints. */
    const double mse = (double)sse / (double)((unsigned)width * (unsigned)height);
    const double m = mse > 1e-16 ? mse : 1e-16;
    const double ratio = (double)(peak * peak) / m;
    const double db = 10. * log10(ratio);
    return db < psnr_max ? db : psnr_max;
}

#endif /* EQ_EXACT_PSNR_H */
