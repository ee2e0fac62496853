/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A double's bits and back, and exact powers of two from them, for host
 * and device (lib/exact/ordsum.h, lib/exact/pmath.h).
 */
#ifndef EQ_EXACT_BITS_H
#define EQ_EXACT_BITS_H

#include <stdint.h>
#include <string.h>

#include "exact/hd.h"

EQ_HD static inline uint64_t eq_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

EQ_HD static inline double eq_from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* The biased exponent field of the double whose bits are b (0: zero or
 * subnormal, 0x7ff: infinity or NaN, else the binade + 1023); for a
 * caller that holds the bits already. */
EQ_HD static inline int eq_exp_field_bits(uint64_t b)
{
    return (int)((b >> 52) & 0x7ff);
}

/* x's biased exponent field (eq_exp_field_bits). */
EQ_HD static inline int eq_exp_field(double x)
{
    return eq_exp_field_bits(eq_bits(x));
}

/* 2^k for -1022 <= k <= 1023, from its bits. */
EQ_HD static inline double eq_pow2(int k)
{
    return eq_from_bits((uint64_t)(1023 + k) << 52);
}

#endif /* EQ_EXACT_BITS_H */
