/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The exact ordered sum: the bits of the sequential loop
 *
 *     double s = 0.0;
 *     for (i = 0; i < n; i++) s += x[i];
 *
 * formed from parts that can be computed in parallel. Shared by host C and
 * CUDA (every function is EQ_HD static inline); no floating-point operation
 * is used on the fast path, only integer arithmetic on the bits.
 *
 * The arithmetic (docs/ordered-sum.md has the proof sketch):
 *
 * - A normal double s with 2^e <= |s| < 2^(e+1) (its "binade" e) is
 *   sign * m * u with u = 2^(e-52) and the integer m in [2^52, 2^53).
 * - For s > 0 and any term x, if the exact value s + x lies in
 *   [2^e, 2^(e+1)], the rounded sum (nearest, ties to even) is (m + r) * u
 *   where r is x / u rounded to an integer so that m + r is the nearest
 *   integer to m + x/u, ties to the EVEN m + r. r depends on the parity of
 *   m only when x/u is exactly half-way, so a term is a pair of increments
 *   (r for an even m, r for an odd m): the one-term rule eq_ord_term().
 * - A run of terms is the pair of total increments, and per start parity the
 *   lowest and highest running prefix of the increments. Runs compose in
 *   order (eq_ord_compose: associative but for poison, not commutative):
 *   the second run's entry is picked by the parity the first run leaves.
 * - A run is applied to s in one step only when every intermediate integer
 *   m + prefix stays strictly inside (2^52, 2^53): then every intermediate
 *   exact sum lies in (2^e, 2^(e+1)) and every step rounded on the grid u,
 *   exactly as the loop's add did (eq_ord_apply).
 * - For s < 0, s + x = -(|s| + (-x)) and rounding to nearest-even is odd
 *   symmetric, so the run of the negated terms applies to |s|; and
 *   r(-x, parity) = -r(x, parity), so that run is the run itself with
 *   increments negated and lowest/highest prefix swapped and negated. One
 *   run serves both signs.
 * - Zero, subnormal, infinite and NaN sums, terms of magnitude >= 2^(e+1),
 *   infinite and NaN terms are never on the fast path: a run containing such
 *   a term is "poisoned" (its bounds fail every check) and the caller adds
 *   its terms one by one with s += x. Signed zeros are therefore produced
 *   only by the plain add.
 *
 * The plan (a binade per chunk) is advice: eq_ord_apply() checks it against
 * the exact running sum, so a wrong plan costs time, never bits.
 *
 * Layout (parametric, EqOrdLayout): a lane composes terms_per_lane
 * consecutive terms in order; a chunk is lanes_per_chunk lanes composed by
 * an ordered tree (lane i takes lane i + step); a segment is up to
 * chunks_per_segment consecutive chunks (aligned groups) with one planned
 * binade, composed by a segmented scan. The walk steps over segments,
 * falls back to a segment's chunks when a segment check fails, to a chunk's
 * pieces (lanes_per_piece lanes, runs under the exact sum's binade) when a
 * chunk check fails, and to a piece's terms when a piece check fails.
 *
 * Test-only mutations (EQ_ORDSUM_MUTATION, docs/ordered-sum.md): each must
 * make tests/lib/test_ordsum.c fail.
 *   1 tie always rounds up        2 binade check removed
 *   3 upper bound check removed   4 parity ignored in composition
 *   5 prefix minimum ignored (lower check on the end value only)
 *   6 eq_ord_term_fast and the scaled runs (eq_ord_round_scaled) do not
 *     recognise exact halves
 */
#ifndef EQ_EXACT_ORDSUM_H
#define EQ_EXACT_ORDSUM_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exact/bits.h"
#include "exact/hd.h"

#ifndef EQ_ORDSUM_MUTATION
#define EQ_ORDSUM_MUTATION 0
#endif

/* Plan value for "no binade": the chunk goes term by term. */
#define EQ_ORD_NONE (-32768)
/* Normal binades: 2^EQ_ORD_EMIN .. 2^(EQ_ORD_EMAX+1). */
#define EQ_ORD_EMIN (-1022)
#define EQ_ORD_EMAX 1023

#define EQ_ORD_M_LO ((int64_t)1 << 52)
#define EQ_ORD_M_HI ((int64_t)1 << 53)
/* A prefix beyond +-EQ_ORD_CAP can never pass a check (it would leave
 * (2^52, 2^53) from any start in [2^52, 2^53)); such a parity is poisoned. */
#define EQ_ORD_CAP ((int64_t)1 << 54)
/* Poisoned: lo = -POISON, hi = +POISON, d = 0 (fails every check).
 * Empty:    lo = +POISON, hi = -POISON, d = 0 (passes every check). */
#define EQ_ORD_POISON ((int64_t)1 << 60)

#define EQ_ORD_MANT_MASK ((((uint64_t)1) << 52) - 1)

/* A run of terms under one binade. Index p is the parity of the running
 * integer m where the run starts (0 even, 1 odd). d[p] is the total
 * increment, lo[p] / hi[p] the lowest / highest running prefix after each
 * of its terms (the start itself is not a prefix). All values assume a
 * positive running sum; eq_ord_apply() mirrors them for a negative one. */
typedef struct EqOrdRun {
    int64_t d[2];
    int64_t lo[2];
    int64_t hi[2];
} EqOrdRun;

/* The device layout; the host pipeline and the kernels share it. */
typedef struct EqOrdLayout {
    int terms_per_lane;     /* e.g. 4 */
    int lanes_per_chunk;    /* e.g. 256 */
    int chunks_per_segment; /* e.g. 64; 1 disables segments */
    int lanes_per_piece;    /* fallback pieces of a failed chunk, e.g. 16
                               lanes (64 terms); 0: plain adds for the chunk */
} EqOrdLayout;

/* The binade e of s (2^e <= |s| < 2^(e+1)) when s is normal and finite;
 * EQ_ORD_NONE for +-0, subnormals, infinities and NaN. */
EQ_HD static inline int eq_ord_binade(double s)
{
    int be = eq_exp_field(s);
    if (be == 0 || be == 0x7ff)
        return EQ_ORD_NONE;
    return be - 1023;
}

EQ_HD static inline EqOrdRun eq_ord_empty(void)
{
    EqOrdRun r;
    int p;
    for (p = 0; p < 2; p++) {
        r.d[p] = 0;
        r.lo[p] = EQ_ORD_POISON;
        r.hi[p] = -EQ_ORD_POISON;
    }
    return r;
}

EQ_HD static inline EqOrdRun eq_ord_poison(void)
{
    EqOrdRun r;
    int p;
    for (p = 0; p < 2; p++) {
        r.d[p] = 0;
        r.lo[p] = -EQ_ORD_POISON;
        r.hi[p] = EQ_ORD_POISON;
    }
    return r;
}

/* The one-term rule: the run of the single term x under binade e.
 *
 * x = M * 2^(bx - 1075) with the 53-bit integer M (the implicit bit added
 * for normal x; a subnormal has bx = 1 and no implicit bit) and
 * u = 2^(e - 52) = 2^(be - 1075) with be = e + 1023, so
 * |x| / u = M / 2^sh with sh = be - bx: the mantissa shifted right by the
 * exponent gap, rounded on the bits shifted out. On an exact half the
 * increment is the one that makes m + r even: q + (q & 1) for an even m,
 * q + ((q & 1) ^ 1) for an odd m. Negative x: r(x, p) = -r(|x|, p) (the
 * half-way candidates are mirrored, their parities are the same).
 * |x| >= 2^(e+1), infinities and NaN poison the run. */
/* The parts of the one-term rule (below): returns 0 when x poisons a run
 * under binade e (|x| >= 2^(e+1), an infinity or NaN, e out of range);
 * otherwise 1 with *q = |x| / u rounded to nearest with a half rounded
 * down, *tie = 1 on an exact half, *neg = 0 for x >= 0 (or +-0) and -1 for
 * a negative x. Branch-free after the poison test: the exponent gap sh is
 * clamped to [0, 63]; at sh = 0 nothing is shifted out (q = M), for
 * 54 <= sh <= 63 the half 2^(sh-1) exceeds every 53-bit M (q = 0, no tie),
 * which is also the value for every larger gap. */
EQ_HD static inline int eq_ord_term_parts(double x, int e, int64_t *q, int *tie, int64_t *neg)
{
    uint64_t b = eq_bits(x);
    int bx = eq_exp_field_bits(b);
    uint64_t mant = b & EQ_ORD_MANT_MASK, rem, half;
    int sh;

    if (bx == 0x7ff || e < EQ_ORD_EMIN || e > EQ_ORD_EMAX)
        return 0;
    if (bx == 0)
        bx = 1;
    else
        mant |= (uint64_t)1 << 52;
    sh = (e + 1023) - bx;
    if (sh < 0 && mant != 0)
        return 0; /* normal x with its exponent above e: |x| >= 2^(e+1) */
    sh = sh < 0 ? 0 : sh > 63 ? 63 : sh;
    /* branch-free rounding: the bits shifted out decide, data-dependent
     * branches here cost a misprediction (a divergence on the device) */
    rem = mant & ((((uint64_t)1) << sh) - 1);
    half = sh ? ((uint64_t)1) << (sh - 1) : 1;
    *q = (int64_t)(mant >> sh) + (int64_t)(rem > half);
    *tie = rem == half;
    *neg = -(int64_t)(b >> 63); /* 0 or -1: r(-x, p) = -r(x, p) */
    return 1;
}

/* The one-term rule: the run of the single term x under binade e.
 *
 * x = M * 2^(bx - 1075) with the 53-bit integer M (the implicit bit added
 * for normal x; a subnormal has bx = 1 and no implicit bit) and
 * u = 2^(e - 52) = 2^(be - 1075) with be = e + 1023, so
 * |x| / u = M / 2^sh with sh = be - bx: the mantissa shifted right by the
 * exponent gap, rounded on the bits shifted out (eq_ord_term_parts). On an
 * exact half the increment is the one that makes m + r even: q + (q & 1)
 * for an even m, q + ((q & 1) ^ 1) for an odd m. Negative x:
 * r(x, p) = -r(|x|, p) (the half-way candidates are mirrored, their
 * parities are the same). |x| >= 2^(e+1), infinities and NaN poison the
 * run. */
EQ_HD static inline EqOrdRun eq_ord_term(double x, int e)
{
    EqOrdRun r;
    int64_t q, r0, r1, neg;
    int tie;

    if (!eq_ord_term_parts(x, e, &q, &tie, &neg))
        return eq_ord_poison();
#if EQ_ORDSUM_MUTATION == 1
    /* mutation: a tie always rounds up */
    r0 = q + tie;
    r1 = q + tie;
#else
    r0 = q + (tie & (q & 1));
    r1 = q + (tie & ((q & 1) ^ 1));
#endif
    r0 = (r0 ^ neg) - neg;
    r1 = (r1 ^ neg) - neg;
    r.d[0] = r.lo[0] = r.hi[0] = r0;
    r.d[1] = r.lo[1] = r.hi[1] = r1;
    return r;
}

/* eq_ord_term_fast's answers. */
#define EQ_ORD_FAST_OK 0     /* *r is the increment for either parity */
#define EQ_ORD_FAST_POISON 1 /* x poisons a run under e */
#define EQ_ORD_FAST_SLOW 2   /* an exact half (or a subnormal x): eq_ord_term */

/* The one-term rule for a term that is not an exact half, in a few
 * floating-point operations (the device's chunk runs; eq_ord_term is the
 * definition and the host tests hold the two together). With |x| = M 2^..
 * and sh the exponent gap (as in eq_ord_term_parts), t = M / 2^sh is built
 * from x's bits exactly: x's 52 stored mantissa bits under the biased
 * exponent 1075 - sh (sh clamped to [1, 63]; from sh = 54 on, t < 1/2 and
 * the answer is 0 as for every larger gap). For 1 <= sh, t < 2^52, and
 * (t + 2^52) rounds t to the nearest integer, a half to the even one (the
 * add rounds on the grid 1 of [2^52, 2^53)); the integer is read from the
 * sum's bits, and the rounding was a half exactly when the rounded value
 * minus t is +-1/2 (both differences exact). sh = 0: q = M. A zero x gives
 * q = 0; a subnormal non-zero x answers "slow". The signed increment is
 * -q for a negative x (the same rule, mirrored). */
EQ_HD static inline int eq_ord_term_fast(double x, int e, int64_t *r)
{
    uint64_t b = eq_bits(x);
    int bx = eq_exp_field_bits(b);
    int sh = (e + 1023) - bx, shc;
    int64_t q;
    double t, tm, diff;

    if (bx == 0x7ff || e < EQ_ORD_EMIN || e > EQ_ORD_EMAX || (sh < 0 && bx != 0))
        return EQ_ORD_FAST_POISON;
    if (bx == 0) {
        if ((b << 1) != 0)
            return EQ_ORD_FAST_SLOW; /* subnormal */
        *r = 0;                      /* +-0 */
        return EQ_ORD_FAST_OK;
    }
    shc = sh < 1 ? 1 : sh > 63 ? 63 : sh;
    t = eq_from_bits((b & EQ_ORD_MANT_MASK) | ((uint64_t)(1075 - shc) << 52));
    tm = t + 0x1p52;
    diff = (tm - 0x1p52) - t;
    q = (int64_t)(eq_bits(tm) - eq_bits(0x1p52));
#if EQ_ORDSUM_MUTATION == 6
    /* mutation: exact halves not recognised */
    diff = 0.0;
#endif
    if (sh == 0)
        q = (int64_t)((b & EQ_ORD_MANT_MASK) | ((uint64_t)1 << 52));
    else if (diff == 0.5 || diff == -0.5)
        return EQ_ORD_FAST_SLOW;
    *r = (b >> 63) ? -q : q;
    return EQ_ORD_FAST_OK;
}

/*
 * The one-term rule in double arithmetic, for lanes of non-negative terms
 * (the device's chunk runs; eq_ord_run_scaled below). scale =
 * eq_ord_scale(e) = 2^(52 - e), a double for EQ_ORD_SCALED_EMIN <= e <=
 * EQ_ORD_EMAX. y = |x| * scale is |x| / u exactly whenever y >= 2^-1022 (a
 * product by a power of two); a smaller y (x subnormal or tiny against u)
 * has the rule's increment 0, and so does this one. For y < 2^52,
 * r = (y + 2^52) - 2^52 is y rounded to the nearest integer, a half to the
 * even one (the add rounds on the grid 1 of [2^52, 2^53)); r - y is exact,
 * and +-1/2 exactly on a half. Each term raises flags:
 *   EQ_ORD_SF_TIE  an exact half: the increment depends on the parity
 *   EQ_ORD_SF_BIG  y >= 2^47, an infinity or a NaN (x may poison the run)
 *   EQ_ORD_SF_NEG  x < 0: the increment is -r, and a lane's prefixes are not
 *                  monotonic
 */
#define EQ_ORD_SF_TIE 1
#define EQ_ORD_SF_BIG 2
#define EQ_ORD_SF_NEG 4
#define EQ_ORD_SCALED_EMIN (-971)

EQ_HD static inline double eq_ord_scale(int e)
{
    return eq_pow2(52 - e);
}

/* The pair form's rounding (eq_ord_run_scaled): y (below 2^52; a
 * negative y only in a run its NEG flag discards) to the nearest integer
 * r, a half to the even one, as r = (y + 2^52) - 2^52 (*t: the sum
 * y + 2^52, whose last bit is r's parity); *tie: y was an exact half
 * (r - y = +-1/2, exact). */
EQ_HD static inline double eq_ord_round_scaled(double y, double *t, unsigned *tie)
{
    *t = y + 0x1p52;
    double r = *t - 0x1p52;
    double diff = r - y;
#if EQ_ORDSUM_MUTATION == 6
    *tie = 0; /* mutation: exact halves not recognised */
    (void)diff;
#else
    *tie = fabs(diff) == 0.5; /* one test of |diff| (DSETP with |x| on the GPU) */
#endif
    return r;
}

/* On an exact half y = q + 1/2 (units) rounded to its even neighbour r,
 * the odd one: 2y - r (exact) */
EQ_HD static inline double eq_ord_half_alt(double y, double r)
{
    return (y + y) - r;
}

/*
 * The run of n (0 <= n <= 32) terms x[0..n-1] under binade e
 * (scale = eq_ord_scale(e)) by the arithmetic above, for both
 * parities at once: the device's chunk runs, whose lanes of non-negative
 * terms (SSIMULACRA2's six sums) this serves, ties included. Returns the OR
 * of the terms' flags; *out is the run when neither EQ_ORD_SF_BIG nor
 * EQ_ORD_SF_NEG is set (then the caller forms it with the int64 functions).
 *
 * Per start parity p a chain keeps its increment total d_p (an integer
 * <= 32 (2^47 + 1) < 2^53, exact in double) and the parity of the running
 * integer m_start + d_p. A term that is not an exact half adds r to both
 * chains. On an exact half y = q + 1/2, r = rint(y) is the even one of
 * q and q + 1 and alt = 2y - r (exact) the odd one: a chain whose running
 * integer is even takes r, an odd one takes alt, so that m + increment is
 * even (the rule's ties to even). r's parity is the last bit of y + 2^52
 * (= 2^52 + r). All increments are >= 0, so each chain's prefix rises:
 * lo[p] = its first increment, hi[p] = d_p, never poisoned.
 */
EQ_HD static inline int eq_ord_run_scaled(const double *x, int n, double scale, EqOrdRun *out)
{
    double d0 = 0.0, d1 = 0.0, f0 = 0.0, f1 = 0.0;
    unsigned par0 = 0, par1 = 1;
    int fl = 0, i;
    for (i = 0; i < n; i++) {
        double xi = x[i];
        double y = (xi < 0.0 ? -xi : xi) * scale, t;
        unsigned tie;
        double r = eq_ord_round_scaled(y, &t, &tie);
        double alt = eq_ord_half_alt(y, r);
        unsigned pr = (unsigned)eq_bits(t) & 1u;
        unsigned o0 = tie & par0, o1 = tie & par1;
        double r0 = o0 ? alt : r, r1 = o1 ? alt : r;
        par0 ^= pr ^ o0;
        par1 ^= pr ^ o1;
        d0 += r0;
        d1 += r1;
        f0 = i == 0 ? r0 : f0;
        f1 = i == 0 ? r1 : f1;
        fl |= tie ? EQ_ORD_SF_TIE : 0;
        fl |= !(y < 0x1p47) ? EQ_ORD_SF_BIG : 0;
        fl |= xi < 0.0 ? EQ_ORD_SF_NEG : 0;
    }
    if (n == 0 || (fl & (EQ_ORD_SF_BIG | EQ_ORD_SF_NEG))) {
        *out = eq_ord_empty(); /* n == 0; otherwise not the run (flags) */
    } else {
        out->d[0] = (int64_t)d0;
        out->d[1] = (int64_t)d1;
        out->lo[0] = (int64_t)f0;
        out->lo[1] = (int64_t)f1;
        out->hi[0] = out->d[0];
        out->hi[1] = out->d[1];
    }
    return fl;
}

/*
 * The one-term rule in the units of the terms, for the tie-free run below:
 * with c = 2^e (eq_pow2(e)) and 0 <= x < 2^e, x + c lies in [2^e, 2^(e+1)]
 * and is rounded on that binade's grid u = 2^(e-52), a half to the even
 * mantissa, so r = (x + c) - c (exact) is x rounded to a multiple of u:
 * rint(x / u) u, eq_ord_round_scaled's r times u, with the same parity of
 * r / u; r - x is exact (Sterbenz, or r = 0), and +-u/2 (half_u, which is
 * c 2^-53) exactly on a half. The same as scaling x by 2^(52 - e) first,
 * without the product. For x >= 2^e (y >= 2^52) r means nothing, and a
 * run's total then reaches 2^47 units (its BIG flag); for x < 0 nothing
 * but the NEG flag that the caller raises. */
EQ_HD static inline double eq_ord_round_unit(double x, double c, double half_u, unsigned *tie)
{
    double r = (x + c) - c;
#if EQ_ORDSUM_MUTATION == 6
    *tie = 0; /* mutation: exact halves not recognised */
    (void)half_u;
#else
    *tie = fabs(r - x) == half_u;
#endif
    return r;
}

/* eq_ord_round_unit's half a unit for c = 2^e: u / 2 = 2^(e-53) (exact,
 * subnormal for the lowest binades) */
EQ_HD static inline double eq_ord_half_unit(double c)
{
    return c * 0x1p-53;
}

/* The tie-free run's total in units from its four interleaved parts (in
 * the terms' units), added in pairs; scale = eq_ord_scale(e) */
EQ_HD static inline double eq_ord_scaled1_total(const double part[4], double scale)
{
    return ((part[0] + part[1]) + (part[2] + part[3])) * scale;
}

/* The tie-free run's BIG flag from its total (units): 2^47 or more, an
 * infinity or a NaN */
EQ_HD static inline bool eq_ord_scaled1_big(double total)
{
    return !(total < 0x1p47);
}

/* The tie-free run's flags from its total (units), its halves and its
 * negative terms */
EQ_HD static inline int eq_ord_scaled1_flags(double total, bool tie, bool neg)
{
    return (tie ? EQ_ORD_SF_TIE : 0) | (eq_ord_scaled1_big(total) ? EQ_ORD_SF_BIG : 0) |
           (neg ? EQ_ORD_SF_NEG : 0);
}

/* One term x of the tie-free run below, in units of the terms
 * (eq_ord_round_unit with c, half_u): returns its increment r, an exact
 * half noted in *tie. */
EQ_HD static inline double eq_ord_scaled1_term(double x, double c, double half_u, bool *tie)
{
    unsigned half;
    const double r = eq_ord_round_unit(x, c, half_u, &half);
    *tie = *tie | (half != 0);
    return r;
}

/*
 * The tie-free run of n (0 <= n <= 32) non-negative terms under binade e
 * (EQ_ORD_SCALED_EMIN <= e <= EQ_ORD_EMAX): eq_ord_run_scaled's parity-0
 * chain alone, with its flags raised more cheaply. *d is the increment total and *f the
 * first increment (0 when n == 0), so that (d, f, d) is the single run
 * (EqOrdRun1: lo = f, hi = d) whenever the result has no flag. Flags:
 *   EQ_ORD_SF_TIE  some term is an exact half (then form the pair run with
 *                  eq_ord_run_scaled)
 *   EQ_ORD_SF_BIG  the total is not below 2^47 (every lane with a term of
 *                  y >= 2^47, an infinity or a NaN, and possibly others)
 *   EQ_ORD_SF_NEG  some term is below 0
 * With no flag, (*d, *f) are eq_ord_run_scaled's d[0] and lo[0] and it
 * raises no flag either (tests/lib/test_ordsum.c); with a flag they mean
 * nothing. The device's chunk runs take this first: it needs neither the
 * parities nor the alternative increment of each term.
 *
 * The increments are added in four interleaved totals, then those in
 * pairs: a shorter chain of dependent adds than one running total, and
 * the same double wherever there is no flag. Every increment is then a
 * non-negative integer and the exact total is below 2^47, so every
 * partial total is an integer below 2^47, held exactly, in any grouping.
 * They are added in units of u (eq_ord_round_unit: a multiple of u each,
 * exact below 2^53 u, subnormal u included), then scaled to units once.
 * Where the exact total is 2^47 or more, every grouping's result is too
 * (rounding is monotone and keeps integers up to 2^53 exact), and an
 * infinity or a NaN reaches every grouping's result: BIG either way. The
 * flags are kept as truth values, so that a compiler can chain the
 * per-term tests (DSETP.OR on the GPU) instead of forming and OR-ing
 * integers.
 */
EQ_HD static inline int eq_ord_run_scaled1(const double *x, int n, int e, double *d, double *f)
{
    double part[4] = { 0.0, 0.0, 0.0, 0.0 }, first = 0.0;
    const double c = eq_pow2(e), half_u = eq_ord_half_unit(c), scale = eq_ord_scale(e);
    bool tie = false, neg = false;
    int i;
    for (i = 0; i < n; i++) {
        double xi = x[i];
        double r = eq_ord_scaled1_term(xi, c, half_u, &tie);
        neg = neg | (xi < 0.0);
        part[i & 3] += r;
        first = i == 0 ? r : first;
    }
    const double sum = eq_ord_scaled1_total(part, scale);
    *d = sum;
    *f = first * scale;
    return eq_ord_scaled1_flags(sum, tie, neg);
}

/* The OR of eq_ord_run_scaled1's flags over a chunk's n terms x[0..n-1]
 * in lanes of 32 consecutive terms under binade e, as the device's chunk
 * runs meet them first (lib/cuda/ordsum.cu: chunk_run, the twins); a
 * binade below EQ_ORD_SCALED_EMIN is EQ_ORD_SF_BIG. No NEG nor BIG: the
 * chunk's run takes the monotone form (with TIE, its halves added apart,
 * EqOrdHalves below). For the host's counts of those paths
 * (exactquality-ordsum-rates --lanes, the kernel harness). */
EQ_HD static inline int eq_ord_chunk_lane_flags(const double *x, size_t n, int e)
{
    int fl = 0;
    size_t l;
    if (e < EQ_ORD_SCALED_EMIN)
        return EQ_ORD_SF_BIG;
    for (l = 0; l < n; l += 32) {
        double d, f;
        fl |= eq_ord_run_scaled1(x + l, n - l < 32 ? (int)(n - l) : 32, e, &d, &f);
    }
    return fl;
}

/* In-order composition: a, then b. Associative, not commutative. The run
 * b starts at the parity a leaves: (p + a.d[p]) & 1. A parity whose prefix
 * range exceeds +-EQ_ORD_CAP is poisoned (it could never pass a check), so
 * no value ever overflows int64_t: |d| <= CAP, |lo|, |hi| <= POISON.
 * Associative in every run that can pass a check; poison itself depends on
 * the grouping (a part poisoned where the whole, grouped otherwise, is
 * not, its range past any binade either way), so a host model compared
 * with the device bit for bit groups as the device does (eq_ord_tree,
 * eq_ord_cross_record). */
EQ_HD static inline EqOrdRun eq_ord_compose(EqOrdRun a, EqOrdRun b)
{
    EqOrdRun r;
    int p;
    for (p = 0; p < 2; p++) {
        int64_t da = a.d[p];
#if EQ_ORDSUM_MUTATION == 4
        int q = p; /* mutation: parity ignored */
#else
        int q = (int)((p + da) & 1);
#endif
        /* b's entry for parity q by selects, not a run-time index (which
         * would put the run in local memory on a GPU); same values */
        int64_t lo = da + (q ? b.lo[1] : b.lo[0]);
        int64_t hi = da + (q ? b.hi[1] : b.hi[0]);
        lo = a.lo[p] < lo ? a.lo[p] : lo;
        hi = a.hi[p] > hi ? a.hi[p] : hi;
        if (lo < -EQ_ORD_CAP || hi > EQ_ORD_CAP) {
            r.d[p] = 0;
            r.lo[p] = -EQ_ORD_POISON;
            r.hi[p] = EQ_ORD_POISON;
        } else {
            r.d[p] = da + (q ? b.d[1] : b.d[0]);
            r.lo[p] = lo;
            r.hi[p] = hi;
        }
    }
    return r;
}

/* Appends the term x to the run *r in place: *r = compose(*r, term(x, e)),
 * the same values, in the form a lane's loop compiles best. */
EQ_HD static inline void eq_ord_push(EqOrdRun *r, double x, int e)
{
    EqOrdRun t = eq_ord_term(x, e);
    int p;
    for (p = 0; p < 2; p++) {
        int64_t da = r->d[p];
#if EQ_ORDSUM_MUTATION == 4
        int q = p; /* mutation: parity ignored */
#else
        int q = (int)((p + da) & 1);
#endif
        /* t's entry for parity q by selects (as in eq_ord_compose) */
        int64_t lo = da + (q ? t.lo[1] : t.lo[0]);
        int64_t hi = da + (q ? t.hi[1] : t.hi[0]);
        lo = r->lo[p] < lo ? r->lo[p] : lo;
        hi = r->hi[p] > hi ? r->hi[p] : hi;
        if (lo < -EQ_ORD_CAP || hi > EQ_ORD_CAP) {
            r->d[p] = 0;
            r->lo[p] = -EQ_ORD_POISON;
            r->hi[p] = EQ_ORD_POISON;
        } else {
            r->d[p] = da + (q ? t.d[1] : t.d[0]);
            r->lo[p] = lo;
            r->hi[p] = hi;
        }
    }
}

/*
 * Runs without ties. A term that is not an exact half has one increment for
 * both parities (r_even == r_odd == the signed q), and a run of such terms
 * has equal entries for both parities: compose(a, b) then picks b's entry
 * for either parity and gives the same value twice. EqOrdRun1 is that one
 * value; eq_ord_push1 and eq_ord_compose1 are eq_ord_push and
 * eq_ord_compose with both parities equal (same cap, same poison), and
 * eq_ord_run_from1 writes it back as the pair. A caller that finds a tie
 * among a run's terms (eq_ord_term_parts' *tie) must form the run with the
 * pair functions instead.
 */
typedef struct EqOrdRun1 {
    int64_t d;
    int64_t lo;
    int64_t hi;
} EqOrdRun1;

EQ_HD static inline EqOrdRun1 eq_ord_empty1(void)
{
    EqOrdRun1 r;
    r.d = 0;
    r.lo = EQ_ORD_POISON;
    r.hi = -EQ_ORD_POISON;
    return r;
}

/* Appends one tie-free term: its signed increment `inc`, or a poisoning
 * term (poison != 0, inc ignored). */
EQ_HD static inline void eq_ord_push1(EqOrdRun1 *r, int64_t inc, int poison)
{
    int64_t d = r->d + inc;
    int64_t lo = r->lo < d ? r->lo : d;
    int64_t hi = r->hi > d ? r->hi : d;
    if (poison || lo < -EQ_ORD_CAP || hi > EQ_ORD_CAP) {
        r->d = 0;
        r->lo = -EQ_ORD_POISON;
        r->hi = EQ_ORD_POISON;
    } else {
        r->d = d;
        r->lo = lo;
        r->hi = hi;
    }
}

EQ_HD static inline EqOrdRun1 eq_ord_compose1(EqOrdRun1 a, EqOrdRun1 b)
{
    EqOrdRun1 r;
    int64_t lo = a.d + b.lo, hi = a.d + b.hi;
    lo = a.lo < lo ? a.lo : lo;
    hi = a.hi > hi ? a.hi : hi;
    if (lo < -EQ_ORD_CAP || hi > EQ_ORD_CAP) {
        r.d = 0;
        r.lo = -EQ_ORD_POISON;
        r.hi = EQ_ORD_POISON;
    } else {
        r.d = a.d + b.d;
        r.lo = lo;
        r.hi = hi;
    }
    return r;
}

EQ_HD static inline EqOrdRun eq_ord_run_from1(EqOrdRun1 a)
{
    EqOrdRun r;
    int p;
    for (p = 0; p < 2; p++) {
        r.d[p] = a.d;
        r.lo[p] = a.lo;
        r.hi[p] = a.hi;
    }
    return r;
}

/*
 * The run of a chunk whose lanes (each up to 32 consecutive terms, lane 0
 * holding the chunk's first) all raised no flag in eq_ord_run_scaled1:
 * every increment is >= 0, so a lane's run is (d, f, d) and the lanes one
 * after another compose to (sum of their d, lane 0's f, that sum), which is
 * what eq_ord_compose1 over them gives. `total` is the sum of the lanes' d
 * (integers below 2^52 for 32 lanes: exact in any order of adds), `first`
 * lane 0's f. The device's chunk runs take it (lib/cuda/ordsum.cu).
 */
EQ_HD static inline EqOrdRun eq_ord_run_monotone(double total, double first)
{
    EqOrdRun1 a;
    a.d = (int64_t)total;
    a.lo = (int64_t)first;
    a.hi = a.d;
    return eq_ord_run_from1(a);
}

/*
 * The run of a part of terms that are each positive, no exact half and of
 * at most 2^52 units under the part's binade (eq_ord_rising_term's
 * EQ_ORD_RISING_OK): every term's run is (inc, inc, inc) for both
 * parities, so the part composes to (d, f, d), d the increments' total
 * (below 2^57 for 32 terms) and f its first term's. Every prefix lies in
 * [0, d], so where d <= EQ_ORD_CAP no composition of the terms, in any
 * grouping, is poisoned, and where d passes it the last composition is in
 * every grouping: the run is poisoned then. The device's split records
 * formed from crossing records' runs take it for the crossing lane's parts
 * (cross_split, lib/cuda/ordsum.cu); test_ordsum holds it to the terms'
 * runs composed in three groupings.
 */
EQ_HD static inline EqOrdRun eq_ord_rising_part(int64_t d, int64_t f)
{
    EqOrdRun1 a;
#if EQ_ORDSUM_MUTATION == 20
    if (d > 2 * EQ_ORD_CAP) /* mutation: the cap doubled */
#else
    if (d > EQ_ORD_CAP)
#endif
        return eq_ord_poison();
    a.d = d;
    a.lo = f;
    a.hi = d;
    return eq_ord_run_from1(a);
}

/*
 * Exact halves in a chunk of non-negative terms whose lanes raised no flag
 * in eq_ord_run_scaled1 but TIE (the device's chunk runs, lib/cuda/ordsum.cu).
 * Such a lane's total and first increment (d, f) still add every term's
 * even neighbour r; the rule takes r on a half where the running integer is
 * even and the odd neighbour alt = 2y - r = r +- 1 where it is odd, so the
 * integer is even after every half. The run of the chunk is then
 * eq_ord_run_monotone's of the lanes' totals plus what the halves that take
 * alt add (eq_ord_halves_apply). A lane's halves, for each parity p the
 * lane starts at: c[p], the sum of alt - r (+-1) over those halves; out[p],
 * the parity of the running integer after the lane (both parities agree
 * after a half); f1, alt - r of the lane's first term where it is a half
 * (which an odd start takes), else 0. Lanes compose in order
 * (eq_ord_halves_compose, associative: the device adds them as a tree); each
 * part is a small integer (at most one a term).
 */
typedef struct EqOrdHalves {
    int c[2], out[2], f1;
} EqOrdHalves;

/* No terms yet, for eq_ord_halves_push: nothing added, the parity kept
 * (f1 unset: not a unit of eq_ord_halves_compose, whose f1 is its first
 * lane's). */
EQ_HD static inline EqOrdHalves eq_ord_halves_empty(void)
{
    EqOrdHalves h;
    h.c[0] = h.c[1] = 0;
    h.out[0] = 0;
    h.out[1] = 1;
    h.f1 = 0;
    return h;
}

/* The parity of eq_ord_round_unit(x, c, ...) / u: the last bit of x + c,
 * which is 2^52 + r / u units of u (c's own mantissa being even). */
EQ_HD static inline unsigned eq_ord_unit_parity(double x, double c)
{
    return (unsigned)eq_bits(x + c) & 1u;
}

/* The next term x of h's lane: 0 <= x, below 2^47 units of binade e, with
 * c = eq_pow2(e) and half_u = eq_ord_half_unit(c); lead: x is the lane's
 * first term. A half's r is even; one at an odd integer takes alt (and
 * leaves the integer even), any other term adds r (of parity pr). */
EQ_HD static inline void eq_ord_halves_push(EqOrdHalves *h, double x, double c, double half_u,
                                            bool lead)
{
    unsigned half;
    const double r = eq_ord_round_unit(x, c, half_u, &half);
    const unsigned pr = eq_ord_unit_parity(x, c);
    const int step = x > r ? 1 : -1; /* alt - r, on a half */
    int p;
    for (p = 0; p < 2; p++) {
        const unsigned o = half & (unsigned)h->out[p];
        h->c[p] += o ? step : 0;
#if EQ_ORDSUM_MUTATION == 19
        h->out[p] ^= (int)pr; /* mutation: the integer left odd after a half */
#else
        h->out[p] ^= (int)(pr ^ o);
#endif
    }
    if (lead)
        h->f1 = half ? step : 0;
}

/* Lane a, then lane b (a holding the run's first term). */
EQ_HD static inline EqOrdHalves eq_ord_halves_compose(EqOrdHalves a, EqOrdHalves b)
{
    EqOrdHalves h;
    int p;
    for (p = 0; p < 2; p++) {
        /* b starts at parity a.out[p] (selected, not indexed: an index
         * would keep the device's halves in local memory) */
        const bool odd = a.out[p] != 0;
#if EQ_ORDSUM_MUTATION == 18
        h.c[p] = a.c[p] + b.c[p]; /* mutation: b's start parity taken as a's */
#else
        h.c[p] = a.c[p] + (odd ? b.c[1] : b.c[0]);
#endif
        h.out[p] = odd ? b.out[1] : b.out[0];
    }
    h.f1 = a.f1;
    return h;
}

/* The chunk's halves h added to *r, eq_ord_run_monotone's run of its lanes'
 * totals and first increment: for each start parity the total (the
 * highest prefix) moves by c[p]; the first increment (the lowest) by f1 for
 * an odd start. */
EQ_HD static inline void eq_ord_halves_apply(EqOrdRun *r, const EqOrdHalves *h)
{
    int p;
    for (p = 0; p < 2; p++) {
        r->d[p] += h->c[p];
        r->hi[p] = r->d[p];
    }
    r->lo[1] += h->f1;
}

/*
 * A rising stretch: terms under one binade whose increments are all >= 0
 * (each at most 2^52 units, so that no total below overflows), such as a
 * chunk's run piece on the device's fast split (lib/cuda/ordsum.cu). Its
 * prefixes rise, so its run for a start of parity p is (d, first, d): d
 * the total increment, first the first term's increment for parity p (the
 * lowest prefix), d again the highest; composing the terms one by one
 * (eq_ord_push) gives the same, poisoned where d passes EQ_ORD_CAP as
 * composition poisons. A term that is not an exact half adds the same for
 * both parities; those adds are the stretch's tie-free total. An exact
 * half's increment depends on the parity of the sum before it: the start's
 * parity p plus the tie-free increments before it in the stretch plus the
 * increments of the halves before it. So the stretch needs only integer
 * prefixes: the tie-free total, and its halves walked in term order from
 * acc = 0, each adding its increment for eq_ord_rising_parity; then
 * eq_ord_rising_entry with d = tie-free total + acc.
 */

/* A term of a rising stretch under binade e: EQ_ORD_RISING_OK, a positive
 * term that is not an exact half (*inc its increment, at most 2^52 units);
 * EQ_ORD_RISING_TIE, a positive normal term that is one, with increments
 * of at most 2^52 for both parities (eq_ord_term's); EQ_ORD_RISING_SLOW,
 * anything else (a negative term or a zero, a subnormal one, an infinity,
 * a NaN, a larger increment), which a rising stretch may not hold. */
#define EQ_ORD_RISING_OK 0
#define EQ_ORD_RISING_TIE 1
#define EQ_ORD_RISING_SLOW 2
EQ_HD static inline int eq_ord_rising_term(double x, int e, int64_t *inc)
{
    if (!(x > 0.0))
        return EQ_ORD_RISING_SLOW;
    const int a = eq_ord_term_fast(x, e, inc);
#if EQ_ORDSUM_MUTATION == 9
    if (a == EQ_ORD_FAST_OK) /* mutation: an increment of 2^52 units refused */
        return *inc < ((int64_t)1 << 52) ? EQ_ORD_RISING_OK : EQ_ORD_RISING_SLOW;
#else
    if (a == EQ_ORD_FAST_OK)
        return *inc <= ((int64_t)1 << 52) ? EQ_ORD_RISING_OK : EQ_ORD_RISING_SLOW;
#endif
    if (a == EQ_ORD_FAST_SLOW && eq_exp_field(x) != 0) {
        const EqOrdRun r = eq_ord_term(x, e);
        const int64_t big = (int64_t)1 << 52;
        return r.d[0] >= 0 && r.d[1] >= 0 && r.d[0] <= big && r.d[1] <= big
                   ? EQ_ORD_RISING_TIE
                   : EQ_ORD_RISING_SLOW;
    }
    return EQ_ORD_RISING_SLOW;
}

/* The parity (0 even, 1 odd) of the sum before an exact half of a rising
 * stretch started at parity p: `before` the stretch's tie-free increments
 * before the half, acc the increments of its earlier halves. The half then
 * adds its increment for that parity (eq_ord_term's d[0] or d[1]) to acc. */
EQ_HD static inline int eq_ord_rising_parity(int p, int64_t before, int64_t acc)
{
#if EQ_ORDSUM_MUTATION == 7
    (void)before;
    return (int)((p + acc) & 1); /* mutation: tie-free increments not counted */
#else
    return (int)((p + before + acc) & 1);
#endif
}

/* Sets the entries for a start of parity p of a rising stretch's run: d its
 * total increment from that start, first its first term's increment from
 * it. */
EQ_HD static inline void eq_ord_rising_entry(EqOrdRun *r, int p, int64_t d, int64_t first)
{
    if (d > EQ_ORD_CAP) {
        r->d[p] = 0;
        r->lo[p] = -EQ_ORD_POISON;
        r->hi[p] = EQ_ORD_POISON;
    } else {
        r->d[p] = d;
#if EQ_ORDSUM_MUTATION == 8
        (void)first;
        r->lo[p] = 0; /* mutation: the start counted as a prefix */
#else
        r->lo[p] = first;
#endif
        r->hi[p] = d;
    }
}

/* The entries of run r for a start of parity p (0 even, 1 odd), picked by
 * selects, as in eq_ord_compose. */
EQ_HD static inline void eq_ord_pick(const EqOrdRun *r, int p, int64_t *d, int64_t *lo, int64_t *hi)
{
    *d = p ? r->d[1] : r->d[0];
    *lo = p ? r->lo[1] : r->lo[0];
    *hi = p ? r->hi[1] : r->hi[0];
#if EQ_ORDSUM_MUTATION == 5
    *lo = (r->lo[p] > r->hi[p]) ? *lo : *d; /* the lower check (mirrored: upper) */
#endif
}

/* The check of an apply: be is the sum's biased exponent field (0 for a
 * zero or subnormal sum, 0x7ff or more for an infinity, a NaN or, where the
 * caller leaves the sign bit in, a negative sum), e the planned binade, m
 * the sum's integer in [2^52, 2^53), lo and hi the run's extremes for the
 * sum's parity. 1 when the run provably reproduces the loop. */
EQ_HD static inline int eq_ord_check(int be, int e, int64_t m, int64_t lo, int64_t hi)
{
    int ok = (be != 0) & (be < 0x7ff);
#if EQ_ORDSUM_MUTATION != 2
    ok &= be - 1023 == e;
#else
    (void)e;
#endif
    ok &= m + lo > EQ_ORD_M_LO;
#if EQ_ORDSUM_MUTATION != 3
    ok &= m + hi < EQ_ORD_M_HI;
#else
    (void)hi;
#endif
    return ok;
}

/* Applies run r, computed under the planned binade e, to the exact running
 * sum s: returns 1 when the run provably reproduces the loop (s is normal,
 * its binade is e, and every running integer after a term of the run lies
 * strictly inside (2^52, 2^53)), 0 otherwise (the caller then adds the
 * run's terms one by one). *next gets the new sum, which is meaningful only
 * when 1 is returned: it keeps the sign and exponent of s (m stays in
 * range), so it is built from bits without a floating-point operation. The
 * checks are formed without a branch, so that a caller can apply runs one
 * after another and look at the checks once (the device's split walk). */
EQ_HD static inline int eq_ord_apply_try(double s, const EqOrdRun *r, int e, double *next)
{
    const uint64_t b = eq_bits(s);
    const int neg = (int)(b >> 63);
    int64_t m = (int64_t)((b & EQ_ORD_MANT_MASK) | ((uint64_t)1 << 52));
    int64_t d0, lo0, hi0, d, lo, hi;
    int ok;

    eq_ord_pick(r, (int)(m & 1), &d0, &lo0, &hi0);
    /* s < 0: the run of the negated terms is the mirrored run */
    d = neg ? -d0 : d0;
    lo = neg ? -hi0 : lo0;
    hi = neg ? -lo0 : hi0;
    ok = eq_ord_check(eq_exp_field(s), e, m, lo, hi);
    m += d;
    *next = eq_from_bits((b & ~EQ_ORD_MANT_MASK) | ((uint64_t)m & EQ_ORD_MANT_MASK));
    return ok;
}

/* eq_ord_apply_try_pos's *next alone: for a caller that forms the sums of
 * several runs in turn first and their checks afterwards, each from the
 * sum before its run (the device's split walk, a lane a check). */
EQ_HD static inline double eq_ord_next_pos(double s, const EqOrdRun *r)
{
    const uint64_t b = eq_bits(s);
    int64_t d, lo, hi;

    eq_ord_pick(r, (int)(b & 1), &d, &lo, &hi);
    return eq_from_bits(b + (uint64_t)d);
}

/*
 * eq_ord_apply_try for callers that apply runs one after another and
 * whose running sum is mostly non-negative (the device's split walk): it
 * returns 1, with the same *next, exactly where eq_ord_apply_try does for
 * an s whose sign bit is clear, and 0 for every s whose sign bit is set
 * (the caller then takes eq_ord_apply_try). Fewer operations lie between
 * s and *next: no mirroring, and *next is s's bits plus d, which is
 * eq_ord_apply_try's sum where the check passes (m + d then lies inside
 * (2^52, 2^53): the add changes the mantissa field alone; it is
 * eq_ord_next_pos). The sign bit is left in the exponent field given to
 * the check, so a negative s fails it.
 */
EQ_HD static inline int eq_ord_apply_try_pos(double s, const EqOrdRun *r, int e, double *next)
{
    const uint64_t b = eq_bits(s);
    const int64_t m = (int64_t)((b & EQ_ORD_MANT_MASK) | ((uint64_t)1 << 52));
    int64_t d, lo, hi;

    eq_ord_pick(r, (int)(b & 1), &d, &lo, &hi);
    *next = eq_ord_next_pos(s, r);
    return eq_ord_check((int)(b >> 52), e, m, lo, hi);
}

/* eq_ord_apply_try, updating *s only when the check passes. */
EQ_HD static inline int eq_ord_apply(double *s, const EqOrdRun *r, int e)
{
    double next;
    if (!eq_ord_apply_try(*s, r, e, &next))
        return 0;
    *s = next;
    return 1;
}

/* The run of n consecutive terms x[0], x[stride], ... under binade e,
 * composed in order (a lane's work). */
EQ_HD static inline EqOrdRun eq_ord_run_terms(const double *x, int n, ptrdiff_t stride, int e)
{
    EqOrdRun r = eq_ord_empty();
    int i;
    for (i = 0; i < n; i++)
        eq_ord_push(&r, x[(ptrdiff_t)i * stride], e);
    return r;
}

/* The ordered tree over n runs, in place; the result is in runs[0]. Step
 * by step as the kernel does it across lanes: at step k, element i (a
 * multiple of 2k) takes element i + k. Equal to the sequential composition
 * wherever either can pass a check (eq_ord_compose: poison aside,
 * composition is associative). */
EQ_HD static inline void eq_ord_tree(EqOrdRun *runs, int n)
{
    int step, i;
    for (step = 1; step < n; step *= 2)
        for (i = 0; i + step < n; i += 2 * step)
            runs[i] = eq_ord_compose(runs[i], runs[i + step]);
}

/* The fallback of a chunk whose run was not applied: its n terms x[0],
 * x[stride], ... in pieces of `piece` terms. Each piece is applied as one
 * run under the binade the exact sum has where the piece starts, when the
 * checks pass; otherwise its terms are added with the plain add, in order.
 * piece < 1 or piece >= n: every term with the plain add. Returns the number
 * of terms added with the plain add.
 *
 * On the device the block stages the chunk's terms in shared memory,
 * computes the runs of all remaining pieces in parallel under the current
 * binade (lanes, then an ordered tree per piece) and recomputes them only
 * when a plain-added piece moved the sum to another binade: the same runs,
 * so the same bits. A sum crossing one binade inside a chunk then costs one
 * piece of plain adds instead of the whole chunk. */
EQ_HD static inline int eq_ord_walk_pieces(double *s, const double *x, int n, ptrdiff_t stride,
                                           int piece)
{
    int k, plain = 0;
    if (piece < 1 || piece >= n)
        piece = n;
    for (k = 0; k < n; k += piece) {
        const double *xp = x + (ptrdiff_t)k * stride;
        int len = n - k < piece ? n - k : piece, i;
        int e = eq_ord_binade(*s);
        double t;
        if (piece < n && e != EQ_ORD_NONE) {
            EqOrdRun r = eq_ord_run_terms(xp, len, stride, e);
            if (eq_ord_apply(s, &r, e))
                continue;
        }
        t = *s;
        for (i = 0; i < len; i++)
            t += xp[(ptrdiff_t)i * stride];
        *s = t;
        plain += len;
    }
    return plain;
}

/* One chunk on the walk: its run under the planned binade e when the
 * checks pass (returns 1), otherwise eq_ord_walk_pieces() (returns 0).
 * e == EQ_ORD_NONE goes straight to the pieces. *plain_terms receives the
 * number of terms added with the plain add. */
EQ_HD static inline int eq_ord_walk_chunk(double *s, const EqOrdRun *run, int e,
                                          const double *x, int n, ptrdiff_t stride, int piece,
                                          int *plain_terms)
{
    if (e != EQ_ORD_NONE && eq_ord_apply(s, run, e)) {
        *plain_terms = 0;
        return 1;
    }
    *plain_terms = eq_ord_walk_pieces(s, x, n, stride, piece);
    return 0;
}

/* The plan's rule: the binade of an approximate running sum (advice).
 * Zero, subnormal or non-finite approximations plan "term by term". */
EQ_HD static inline int eq_ord_plan_binade(double approx_prefix)
{
    return eq_ord_binade(approx_prefix);
}

/* The plan's one formula, for a stretch of terms (a chunk, one term) with
 * the approximate sums before and after it: the binade they share (which
 * is EQ_ORD_NONE when neither is normal), or `differ` when they differ.
 * Advice only. */
EQ_HD static inline int eq_ord_plan_span(double approx_before, double approx_after, int differ)
{
    int e = eq_ord_binade(approx_before);
    return e == eq_ord_binade(approx_after) ? e : differ;
}

/* The plan for one chunk from the approximate sums before and after it: the
 * binade they share, or "term by term" when they differ (the chunk will
 * most likely cross a binade, and planning it "none" keeps it out of the
 * segments around it, whose checks then pass). Advice only. */
EQ_HD static inline int eq_ord_plan_chunk(double approx_before, double approx_after)
{
    return eq_ord_plan_span(approx_before, approx_after, EQ_ORD_NONE);
}

/* A term planned alone (the device's planned pass and split records): its
 * add crosses a binade by the approximate sums, and it is added alone with
 * the plain double add. Outside the binades' range, as EQ_ORD_NONE is. */
#define EQ_ORD_CROSS (EQ_ORD_NONE + 1)

/* The plan for the term x after the approximate sum `approx_before`: the
 * binade the sums before and after its add share, EQ_ORD_NONE when neither
 * is normal, or EQ_ORD_CROSS when they differ. Advice only. */
EQ_HD static inline int eq_ord_plan_term(double approx_before, double x)
{
    return eq_ord_plan_span(approx_before, approx_before + x, EQ_ORD_CROSS);
}

/* A non-zero term's code in a split record (lib/cuda/ordsum.cu; the
 * records' model in tools/ordsum_rates.c): its plan (eq_ord_plan_term),
 * where a term without a binade (EQ_ORD_NONE) is a crossing one too: a
 * binade or EQ_ORD_CROSS. */
EQ_HD static inline int eq_ord_split_code(double approx_before, double x)
{
    const int e = eq_ord_plan_term(approx_before, x);
    return e == EQ_ORD_NONE ? EQ_ORD_CROSS : e;
}

/* The code before a split chunk's first non-zero term. */
#define EQ_ORD_SPLIT_NOCODE (-0x7fffffff - 1)

/* Whether a non-zero term of code `code` starts a piece of a split record,
 * the non-zero term before it having code `prev` (EQ_ORD_SPLIT_NOCODE for
 * the chunk's first): a crossing term always does (it is a piece alone),
 * any other where the code changes. A macro: as an inline function it
 * changed the fused kernel's code (session 23), which no device could
 * check then; the same expression either way. */
#define EQ_ORD_SPLIT_HEAD(code, prev) ((code) == EQ_ORD_CROSS || (code) != (prev))

/* A piece of a split record (lib/cuda/cuda.h, EqCudaSplit): the run of a
 * stretch of terms under binade e, or (e == EQ_ORD_CROSS) one crossing
 * term x, added with the plain add; start, the index of its first term in
 * the chunk. */
typedef struct EqOrdPiece {
    EqOrdRun run;
    double x;
    int e;
    int start;
} EqOrdPiece;

/* The walk of a split record by its definition: the pieces p[0 .. np-1]
 * applied in order to the exact sum *s, a crossing piece by the loop's own
 * add of its term, a run piece by the checked apply (eq_ord_apply), each
 * before the next. Returns -1 when every piece was added (*s the exact sum
 * after them), else the start of the first piece whose check failed (*s
 * the exact sum before it). Piece `poison` (tests, the device's
 * EQ_CUDA_STAGE_SUM_LIE; -1: none) is taken with eq_ord_poison()'s run,
 * which fails every check unless the piece is a crossing one. The device's
 * split_walk forms the same in its second pass, a piece a lane. */
EQ_HD static inline int eq_ord_walk_record(double *s, const EqOrdPiece *p, int np, int poison)
{
    int k;
    for (k = 0; k < np; k++) {
        const EqOrdRun run = k == poison ? eq_ord_poison() : p[k].run;
        if (p[k].e == EQ_ORD_CROSS)
            *s = *s + p[k].x; /* the loop's own add */
        else if (!eq_ord_apply(s, &run, p[k].e))
            return p[k].start;
    }
    return -1;
}

/* One step of a chain of sums (eq_ord_walk_short's first pass,
 * eq_ord_walk_chain): the sum after piece p, its run being `run`, from y:
 * a run piece's by eq_ord_apply_try_pos, *good its check; a crossing
 * piece's by the loop's own add of its term, *good 1. */
EQ_HD static inline double eq_ord_chain_step(double y, const EqOrdRun *run, const EqOrdPiece *p,
                                             int *good)
{
    const int cross = p->e == EQ_ORD_CROSS;
    double next;
    const int g = eq_ord_apply_try_pos(y, run, p->e, &next);
    *good = cross || g;
#if EQ_ORDSUM_MUTATION == 11
    return cross ? y : next; /* mutation: the crossing term left out */
#else
    return cross ? y + p->x : next;
#endif
}

/* The most pieces eq_ord_walk_short takes. */
#define EQ_ORD_SHORT_PIECES 4

/* Applies the pieces p[0 .. np-1] (np <= EQ_ORD_SHORT_PIECES) in order to
 * the exact sum *s, as the device's small walk does with a short split
 * record (SSIM's crossing chunks: a run, the crossing term, a run). First
 * the sums alone, piece after piece (a crossing piece's plain add; a run
 * piece's sum by eq_ord_apply_try_pos, its check formed beside the chain
 * of sums and looked at once at the end); when every check passed, the
 * last sum is the exact one. Otherwise the pieces again from *s by the
 * definition, eq_ord_walk_record (eq_ord_apply: a negative sum too).
 * Returns and `poison` as there. */
EQ_HD static inline int eq_ord_walk_short(double *s, const EqOrdPiece *p, int np, int poison)
{
    double y = *s;
    int ok = 1, k;
    for (k = 0; k < EQ_ORD_SHORT_PIECES; k++) {
        if (k < np) {
            const EqOrdRun run = k == poison ? eq_ord_poison() : p[k].run;
            int good;
            y = eq_ord_chain_step(y, &run, &p[k], &good);
#if EQ_ORDSUM_MUTATION == 10
            ok &= good || 1; /* mutation: the first pass's checks ignored */
#else
            ok &= good;
#endif
        }
    }
    if (ok) {
        *s = y;
        return -1;
    }
    return eq_ord_walk_record(s, p, np, poison);
}

/*
 * A walk as one chain (the device's small walk, EQ_CUDA_WALKCHAIN_ENV): the
 * steps p[0 .. n-1] applied in order to *s, as eq_ord_walk_short's first
 * pass applies a record's pieces: the sums alone, a run's by
 * eq_ord_apply_try_pos, a crossing term's by the loop's own add, each run's
 * check formed beside the chain of sums and all looked at once at the end.
 * The steps are a whole sum's segments and split records' pieces, in order,
 * without its zero chunks: every sum of the chain must be finite too (the
 * start included), so that a zero chunk between two steps leaves it as it
 * is (s + 0 == s for a finite s other than -0.0, which no sum of the walk
 * is). Returns 1 with *s the last sum when every check passed and every sum
 * was finite: the sum eq_ord_walk_record gives, every piece added (a
 * checked run's sum is exact by the one-term rule, a crossing term's is the
 * loop's own add). Otherwise returns 0, *s as it was: the caller walks by
 * the definition. For a start and sums whose sign bit is clear, 1 exactly
 * where every run passes eq_ord_apply and every sum is finite.
 */
/* Step p of eq_ord_walk_chain from the sum y: the sum after it
 * (eq_ord_chain_step), *ok cleared where its check fails or, for a
 * crossing term, where the sum after it is not finite. `last`: p is the
 * chain's last step. (The device's chain with crossing records takes its
 * other steps so, lib/cuda/ordsum.cu.) */
EQ_HD static inline double eq_ord_chain_next(double y, const EqOrdPiece *p, int last, int *ok)
{
    int good;
    y = eq_ord_chain_step(y, &p->run, p, &good);
#if EQ_ORDSUM_MUTATION == 12
    *ok &= good || last; /* mutation: the last step's check ignored */
#elif EQ_ORDSUM_MUTATION == 13
    (void)last;
    *ok &= good; /* mutation: a crossing sum's finiteness not checked */
#else
    (void)last;
    *ok &= good && (p->e != EQ_ORD_CROSS || eq_exp_field(y) != 0x7ff);
#endif
    return y;
}

EQ_HD static inline int eq_ord_walk_chain(double *s, const EqOrdPiece *p, int n)
{
    double y = *s;
    int ok = eq_exp_field(y) != 0x7ff, k;
    for (k = 0; k < n; k++)
        y = eq_ord_chain_next(y, &p[k], k == n - 1, &ok);
    if (ok)
        *s = y;
    return ok;
}

/* Whether a chain's step of binade e joins the stretch before it, whose
 * binade is e_prev: both are run steps of one binade (a crossing term's
 * EQ_ORD_CROSS, and any other code below EQ_ORD_EMIN, ends a stretch).
 * eq_ord_compose_chain's rule, and the device's large chain's
 * (lib/cuda/ordsum.cu, compose_steps). */
EQ_HD static inline int eq_ord_chain_joins(int e_prev, int e)
{
    return e == e_prev && e >= EQ_ORD_EMIN;
}

/*
 * A chain's steps p[0 .. n-1] with each stretch of consecutive run steps
 * under one binade (eq_ord_chain_joins) composed into one step, in place;
 * returns the steps left. A crossing step ends a stretch and stays as it
 * is. Composition is associative and a composed run's lowest and highest
 * prefixes are its runs' own one after another, so its check passes
 * exactly where each of theirs would, with the same sum; a sum inside a
 * stretch that passes lies in its binade, so it is finite.
 * eq_ord_walk_chain over the steps left therefore gives what it gives over
 * all n: the same result and sum. The model of a composition before the
 * device's large chain (docs/cuda.md, Open work, session 36: a segmented
 * block scan of the same compositions, associative, so the same runs),
 * held to the chain by test_ordsum.
 */
EQ_HD static inline int eq_ord_compose_chain(EqOrdPiece *p, int n)
{
    int out = 0, k;
    for (k = 0; k < n; k++) {
#if EQ_ORDSUM_MUTATION == 16
        /* mutation: run steps composed whatever their binades */
        const int join = out > 0 && p[k].e != EQ_ORD_CROSS && p[out - 1].e != EQ_ORD_CROSS;
#else
        const int join = out > 0 && eq_ord_chain_joins(p[out - 1].e, p[k].e);
#endif
        if (join)
            p[out - 1].run = eq_ord_compose(p[out - 1].run, p[k].run);
        else
            p[out++] = p[k];
    }
    return out;
}

/*
 * A chunk that crosses one binade, walked from lane runs under two binades
 * (docs/cuda.md, "Open work": a design for the device's split block, whose
 * record this is; not yet on the device). The chunk's terms x[0 .. n-1]
 * lie in `lanes` lanes of `per` terms (lane l: x[l per ..], n <= lanes
 * per); P[l] is the composition of lanes 0 .. l's runs under binade e0,
 * S[l] that of lanes l + 1 .. lanes-1 under e0 + 1 (S[lanes-1] empty).
 * From the exact sum *s: the most lanes k whose prefix P[k-1] passes the
 * checked apply, by a binary search (a longer prefix's check covers every
 * shorter one's prefixes, so the k that pass are those up to the first
 * that fails; none is k = 0), then lane k's terms by the loop's own adds
 * (the crossing is among them), then S[k] under e0 + 1, checked. Returns
 * -1 with *s the loop's sum over all n terms, or the index of the first
 * term not added, *s exact before it (S's check failed: a second crossing,
 * or none; the caller adds the rest).
 */
/* The lanes and terms a lane of the device's crossing records (EqCudaCross,
 * lib/cuda/cuda.h): a chunk's 1024 terms as 32 lanes of 32. */
#define EQ_ORD_CROSS_LANES 32

/* Where lane l of a crossing record's lanes of `per` of n terms starts
 * (lane l + 1's start is where it ends): l per, or n past the terms */
EQ_HD static inline int eq_ord_lane_at(int l, int per, int n)
{
    return l * per < n ? l * per : n;
}

/* The binade e0 from which a chunk's sums cross exactly one binade, by its
 * plan's approximate prefixes (`before`, the prefix before the chunk, and
 * cs, its approximate sum: before + cs after it): a positive normal
 * `before` in binade e0 and before + cs in e0 + 1; else EQ_ORD_NONE. Such
 * a chunk's record of lane runs under e0 and e0 + 1 (eq_ord_cross_record)
 * depends on nothing else, so that one formed from the frame before's e0
 * is this frame's wherever this gives the same e0. Advice only. */
EQ_HD static inline int eq_ord_cross_binade(double before, double cs)
{
    const int e0 = eq_ord_binade(before);
    if (!(before > 0.0) || e0 == EQ_ORD_NONE || e0 >= EQ_ORD_EMAX)
        return EQ_ORD_NONE;
    return eq_ord_binade(before + cs) == e0 + 1 ? e0 : EQ_ORD_NONE;
}

/* eq_ord_walk_cross's record for the terms x[0 .. n-1] in `lanes` lanes of
 * `per` terms: P[l], lanes 0 .. l's runs under e0 composed in order; S[l],
 * lanes l + 1 .. lanes-1's under e0 + 1 (S[lanes-1] the empty run). Each
 * lane's run its terms pushed one by one, the lanes' runs then composed in
 * the device's grouping (cross_form in lib/cuda/ordsum.cu; poison depends
 * on it, eq_ord_compose): an inclusive scan in steps o = 1, 2, 4, .. (at
 * step o, P[l] = P[l - o] then P[l] for l >= o; S[l] = S[l] then S[l + o]
 * for l + o < lanes), then S shifted by one lane, so that the harness
 * holds the device's records to it bit for bit. */
EQ_HD static inline void eq_ord_cross_record(const double *x, int n, int lanes, int per, int e0,
                                             EqOrdRun *P, EqOrdRun *S)
{
    int l, o;
    for (l = 0; l < lanes; l++) {
        const int a = eq_ord_lane_at(l, per, n), b = eq_ord_lane_at(l + 1, per, n);
        P[l] = eq_ord_run_terms(x + a, b - a, 1, e0);
        S[l] = eq_ord_run_terms(x + a, b - a, 1, e0 + 1);
    }
    for (o = 1; o < lanes; o *= 2) {
        /* in place: P from the last lane down reads P[l - o] of the step
         * before, S from lane 0 up reads S[l + o] of the step before */
        for (l = lanes - 1; l >= o; l--)
            P[l] = eq_ord_compose(P[l - o], P[l]);
        for (l = 0; l + o < lanes; l++)
            S[l] = eq_ord_compose(S[l], S[l + o]);
    }
    for (l = 0; l + 1 < lanes; l++)
        S[l] = S[l + 1];
    S[lanes - 1] = eq_ord_empty();
}

/* The end of a crossing chunk's walk (eq_ord_walk_cross, and the device's
 * cross_step, which finds lo its own way): from t, the exact sum after
 * lanes 0 .. lo - 1 of `per` terms, lane lo's terms of x[0 .. n-1] by the
 * loop's own adds (the crossing is among them), then the suffix *S (the
 * lanes after lo) under e0 + 1, checked. Returns the sum; *end is -1 when
 * all n terms were added, else the first term not added (S's check
 * failed), the sum being the one before it. S is read only where lane lo
 * ends before the last term. */
EQ_HD static inline double eq_ord_cross_tail(double t, const double *x, int n, int lo, int per,
                                            const EqOrdRun *S, int e0, int *end)
{
    const int a = lo * per;
    int i, stop;
    *end = -1;
    if (a >= n)
        return t;
    stop = a + per < n ? a + per : n;
    /* the loads of a lane's terms issued ahead of the adds that wait for
     * them (the device's crossing walk, every lane alike) */
    EQ_DEVICE_UNROLL(8)
#if EQ_ORDSUM_MUTATION == 15
    for (i = a; i < stop - 1; i++) /* mutation: the lane's last term left out */
#else
    for (i = a; i < stop; i++)
#endif
        t += x[i]; /* the loop's own add */
    if (stop < n && !eq_ord_apply(&t, S, e0 + 1))
        *end = stop;
    return t;
}

EQ_HD static inline int eq_ord_walk_cross(double *s, const EqOrdRun *P, const EqOrdRun *S, int e0,
                                          const double *x, int n, int lanes, int per)
{
    int lo = 0, hi = lanes + 1, end;
    double t;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        double u = *s;
#if EQ_ORDSUM_MUTATION == 14
        if (eq_ord_apply(&u, &P[mid - 1], e0) || mid == lo + 1) /* mutation: one lane too many */
#else
        if (eq_ord_apply(&u, &P[mid - 1], e0))
#endif
            lo = mid;
        else
            hi = mid;
    }
    t = *s;
    if (lo > 0)
        (void)eq_ord_apply(&t, &P[lo - 1], e0);
    *s = eq_ord_cross_tail(t, x, n, lo, per, lo < lanes ? &S[lo] : NULL, e0, &end);
    return end;
}

/* Whether neither parity of r is poisoned: its prefixes within
 * +-EQ_ORD_CAP (the empty run is) */
EQ_HD static inline int eq_ord_run_capped(const EqOrdRun *r)
{
    return r->lo[0] >= -EQ_ORD_CAP && r->hi[0] <= EQ_ORD_CAP && r->lo[1] >= -EQ_ORD_CAP &&
           r->hi[1] <= EQ_ORD_CAP;
}

/* Whether two runs are the same, field by field (the harnesses compare
 * the device's runs with the host's by it) */
EQ_HD static inline int eq_ord_same_run(const EqOrdRun *a, const EqOrdRun *b)
{
    int q;
    for (q = 0; q < 2; q++)
        if (a->d[q] != b->d[q] || a->lo[q] != b->lo[q] || a->hi[q] != b->hi[q])
            return 0;
    return 1;
}

/* Whether pieces p[0 .. np-1] are a well-formed split record of the
 * terms x[0], x[stride], .. x[(count-1) stride]: the pieces start at the
 * first non-zero term and at non-zero terms only, in order; a crossing
 * piece (EQ_ORD_CROSS) is its one term, x its value, the rest of its range
 * zero; a stretch's run is that of its non-zero terms pushed under its
 * binade (eq_ord_push, bit for bit). The device's harness holds its split
 * records to the same rules (tests/checkkernels/ordsum.c, split_ok),
 * whatever way they were formed. */
EQ_HD static inline int eq_ord_split_ok(const EqOrdPiece *p, int np, const double *x,
                                        ptrdiff_t stride, int count)
{
#define EQ_T_(k) x[(ptrdiff_t)(k)*stride]
    int k0 = 0, q, k;
    while (k0 < count && EQ_T_(k0) == 0.0)
        k0++;
    if (np == 0)
        return k0 == count;
    if (np < 0 || p[0].start != k0)
        return 0;
    for (q = 0; q < np; q++) {
        const int a = p[q].start, b = q + 1 < np ? p[q + 1].start : count;
        if (a >= b || b > count || EQ_T_(a) == 0.0)
            return 0;
        if (p[q].e == EQ_ORD_CROSS) {
            const double xa = EQ_T_(a);
            if (eq_bits(p[q].x) != eq_bits(xa))
                return 0;
            for (k = a + 1; k < b; k++)
                if (EQ_T_(k) != 0.0)
                    return 0;
        } else {
            EqOrdRun want = eq_ord_empty();
            for (k = a; k < b; k++)
                if (EQ_T_(k) != 0.0)
                    eq_ord_push(&want, EQ_T_(k), p[q].e);
            if (!eq_ord_same_run(&want, &p[q].run))
                return 0;
        }
    }
    return 1;
#undef EQ_T_
}

/* Whether every grouping of the run r's terms composes to r exactly:
 * for each parity its prefixes, with the empty one (0), span at most
 * EQ_ORD_CAP units, so that no part of it can be poisoned (a part's
 * prefixes are differences of the whole's); a poisoned r (or one with a
 * poisoned term) fails, the empty run passes. Where it passes, r is the
 * run of its terms pushed one by one, however a warp composed it. */
EQ_HD static inline int eq_ord_run_spread_ok(const EqOrdRun *r)
{
    int p;
    for (p = 0; p < 2; p++) {
        const int64_t lo = r->lo[p] < 0 ? r->lo[p] : 0, hi = r->hi[p] > 0 ? r->hi[p] : 0;
        if (hi - lo > EQ_ORD_CAP)
            return 0;
    }
    return 1;
}

/* An inclusive scan of v[0 .. n-1] in doubles as a warp's shuffles do it
 * (Hillis-Steele: at step o = 1, 2, 4, .., v[j] + v[j - o] for j >= o,
 * the element's own value first), in place */
EQ_HD static inline void eq_ord_warp_scan_sum(double *v, int n)
{
    int o, j;
    for (o = 1; o < n; o *= 2)
        for (j = n - 1; j >= o; j--)
            v[j] = v[j] + v[j - o];
}

/*
 * A crossing chunk's split record formed from its crossing record
 * (eq_ord_cross_record's P and S under e0, `lanes` lanes of `per` of n
 * terms, term i at x[(i / per) rs + i % per]: rs = per, the terms in order;
 * the device's staged rows, rs = RUNS_ROW) instead of from its terms'
 * codes: the record a split block of the fused kernel forms after its wait
 * from P and S formed before it (EQ_CUDA_CROSSREC_ENV "split": cross_split
 * in lib/cuda/ordsum.cu, a warp, held to this model bit for bit by the
 * harness). At most 32 lanes of at most 32 terms.
 *
 * The crossing term t, by approximate prefixes formed as a warp forms them
 * (eq_ord_warp_scan_sum): the lanes' totals tot[l] (each lane's terms added
 * in order from +0.0: the caller's) scanned; lane l is the first whose
 * approx + scan leaves binade e0; its terms scanned from the prefix before
 * it, base = approx + the scan before lane l; t is lane l's first non-zero
 * term whose base + scan is outside e0.
 *
 * The pieces: the non-zero terms before t under e0 (P[l - 1] where lanes
 * before l hold one, composed with lane l's before t), t alone
 * (EQ_ORD_CROSS), and the terms after t under e0 + 1 (lane l's after t,
 * composed with S[l]; or S[l] alone); a piece without a non-zero term is
 * left out. Lane l's two parts are the runs of its non-zero terms, which a
 * warp composes in its own grouping: each must pass eq_ord_run_spread_ok
 * (then it is the same in every grouping), and P[l - 1] and S[l], where
 * taken, must not be poisoned (then they are their terms' runs exactly);
 * so the pieces are those of the terms pushed one by one (eq_ord_split_ok).
 *
 * Returns the pieces' count (p[0 .. np-1]), or -1 where this form does not
 * fit and the chunk goes by its codes: `approx` not positive in e0; no
 * crossing by the approximate prefix; a zero that P or S would count as a
 * run's first prefix (a zero first term where lanes before l hold a
 * non-zero one, or lane l + 1's first term where S[l] alone starts the last
 * piece); a part too wide or poisoned. Advice only, as every record: where
 * t is not where the exact sum crosses, a piece's check fails in the walk.
 */
/* Term i of a chunk held as lanes of `per` terms, lane l's from x + l rs
 * (rs = per: the terms in order) */
EQ_HD static inline double eq_ord_lane_term(const double *x, int rs, int per, int i)
{
    return x[(i / per) * rs + i % per];
}

/* Lane l's terms (as eq_ord_lane_term holds n of them) added in order
 * from +0.0, as a warp's lane adds its row */
EQ_HD static inline double eq_ord_lane_total(const double *x, int rs, int per, int n, int l)
{
    const int a = eq_ord_lane_at(l, per, n), b = eq_ord_lane_at(l + 1, per, n);
    double t = 0.0;
    int i;
    for (i = a; i < b; i++)
        t += eq_ord_lane_term(x, rs, per, i);
    return t;
}

/* eq_ord_lane_total of each lane: tot[0 .. lanes-1] */
EQ_HD static inline void eq_ord_lane_totals(const double *x, int rs, int per, int n, int lanes,
                                            double *tot)
{
    int l;
    for (l = 0; l < lanes; l++)
        tot[l] = eq_ord_lane_total(x, rs, per, n, l);
}

/* Where eq_ord_split_from_cross_at found the crossing, and the parts of
 * the crossing lane l (its terms [l per, b)) around the crossing term t:
 * r1 and r3, the runs of its non-zero terms before t under e0 and after t
 * under e0 + 1, composed in any grouping; k0 and k1 the first of those
 * terms (-1: none); whether the lanes before l, and those after it, hold a
 * non-zero term. */
typedef struct EqOrdCrossParts {
    EqOrdRun r1, r3;
    int l, b, t, k0, k1, nz_before, nz_after;
} EqOrdCrossParts;

/* The pieces of eq_ord_split_from_cross_at from the crossing lane's parts
 * q (n terms as in eq_ord_lane_term), P and S under e0: the rules below
 * that function's comment, from the parts on. The host's model and the
 * device's warp (cross_split, lib/cuda/ordsum.cu) end with it. Returns the
 * pieces' count, or -1. */
EQ_HD static inline int eq_ord_split_pieces(const double *x, int rs, int per, int n,
                                            const EqOrdCrossParts *q, const EqOrdRun *P,
                                            const EqOrdRun *S, int e0, EqOrdPiece *p)
{
    EqOrdRun r1 = q->r1, r3 = q->r3;
    int k0 = q->k0, k1 = q->k1, np = 0;
    if (!eq_ord_run_spread_ok(&r1) || !eq_ord_run_spread_ok(&r3))
        return -1;
    if (q->nz_before) {
        /* lanes 0 .. l - 1 hold a non-zero term: taken whole, from P,
         * which starts at the chunk's first term */
        if (x[0] == 0.0 || !eq_ord_run_capped(&P[q->l - 1]))
            return -1;
        r1 = eq_ord_compose(P[q->l - 1], r1);
        k0 = 0;
    }
    if (k1 < 0 && q->nz_after) {
        /* lane l has no non-zero term after t: S[l] alone, lanes l + 1 ..,
         * which starts at lane l + 1's first term */
        if (eq_ord_lane_term(x, rs, per, q->b) == 0.0 || !eq_ord_run_capped(&S[q->l]))
            return -1;
        r3 = S[q->l];
        k1 = q->b;
    } else if (k1 >= 0 && q->b < n) {
        if (!eq_ord_run_capped(&S[q->l]))
            return -1;
        r3 = eq_ord_compose(r3, S[q->l]);
    }
    if (k0 >= 0) {
        p[np].run = r1;
        p[np].x = eq_ord_lane_term(x, rs, per, k0);
        p[np].e = e0;
        p[np].start = k0;
        np++;
    }
    p[np].run = eq_ord_empty();
    p[np].x = eq_ord_lane_term(x, rs, per, q->t);
    p[np].e = EQ_ORD_CROSS;
    p[np].start = q->t;
    np++;
    if (k1 >= 0) {
        p[np].run = r3;
        p[np].x = eq_ord_lane_term(x, rs, per, k1);
        p[np].e = e0 + 1;
        p[np].start = k1;
        np++;
    }
    return np;
}

EQ_HD static inline int eq_ord_split_from_cross_at(const double *x, int rs, int n, int lanes,
                                                   int per, const double *tot,
                                                   const EqOrdRun *P, const EqOrdRun *S, int e0,
                                                   double approx, EqOrdPiece *p)
{
#define EQ_X_(i) eq_ord_lane_term(x, rs, per, i)
    double inc[EQ_ORD_CROSS_LANES], c[EQ_ORD_CROSS_LANES], base;
    EqOrdCrossParts q;
    int l, a, i;
    if (!(approx > 0.0) || eq_ord_binade(approx) != e0 || lanes > EQ_ORD_CROSS_LANES ||
        per > EQ_ORD_CROSS_LANES)
        return -1;
    for (l = 0; l < lanes; l++)
        inc[l] = tot[l];
    eq_ord_warp_scan_sum(inc, lanes);
    for (l = 0; l < lanes; l++)
        if (eq_ord_binade(approx + inc[l]) != e0)
            break;
    if (l == lanes)
        return -1;
    a = eq_ord_lane_at(l, per, n);
    q.l = l;
    q.b = eq_ord_lane_at(l + 1, per, n);
    base = approx + (l ? inc[l - 1] : 0.0);
    for (i = 0; i < per; i++)
        c[i] = a + i < q.b ? EQ_X_(a + i) : 0.0;
    eq_ord_warp_scan_sum(c, per);
    q.t = -1;
    for (i = a; i < q.b && q.t < 0; i++)
        if (EQ_X_(i) != 0.0 && eq_ord_binade(base + c[i - a]) != e0)
            q.t = i;
    if (q.t < 0)
        return -1;
    q.nz_before = q.nz_after = 0;
    for (i = 0; i < a && !q.nz_before; i++)
        q.nz_before = EQ_X_(i) != 0.0;
    for (i = q.b; i < n && !q.nz_after; i++)
        q.nz_after = EQ_X_(i) != 0.0;
    q.r1 = q.r3 = eq_ord_empty();
    q.k0 = q.k1 = -1;
    for (i = a; i < q.b; i++) {
        if (EQ_X_(i) == 0.0 || i == q.t)
            continue;
        if (i < q.t) {
            q.k0 = q.k0 < 0 ? i : q.k0;
            eq_ord_push(&q.r1, EQ_X_(i), e0);
        } else {
            q.k1 = q.k1 < 0 ? i : q.k1;
            eq_ord_push(&q.r3, EQ_X_(i), e0 + 1);
        }
    }
    return eq_ord_split_pieces(x, rs, per, n, &q, P, S, e0, p);
#undef EQ_X_
}

/* eq_ord_split_from_cross_at with the terms in order (rs = per) and each
 * lane's total formed here, its terms added from +0.0 in order */
EQ_HD static inline int eq_ord_split_from_cross(const double *x, int n, int lanes, int per,
                                                const EqOrdRun *P, const EqOrdRun *S, int e0,
                                                double approx, EqOrdPiece *p)
{
    double tot[EQ_ORD_CROSS_LANES];
    if (lanes > EQ_ORD_CROSS_LANES)
        return -1;
    eq_ord_lane_totals(x, per, per, n, lanes, tot);
    return eq_ord_split_from_cross_at(x, per, n, lanes, per, tot, P, S, e0, approx, p);
}

/* The most pieces eq_ord_first_pieces forms (the device keeps them in
 * the fused kernel's shared memory) */
#define EQ_ORD_FIRST_PIECES 48

/*
 * A sum's first chunk in pieces, to be walked from +0.0 (the fused
 * kernel's first chunk, where one thread adds its 1024 terms one after
 * another). No device code forms them now: session 47's warp form
 * (first_rising, `git show 78a9152:docs/patches/s47first.diff`) was exact
 * and 12-15 us a frame slower on an H100 (docs/performance.md, session
 * 48), and was not kept; this model stays, held to the loop by
 * test_ordsum, for another form. n terms
 * as `lanes` lanes of `per` (eq_ord_lane_term's layout, rs between lanes).
 * The approximate prefix is a warp's: each lane's terms added in order
 * from +0.0, those totals scanned (eq_ord_warp_scan_sum), then each lane's
 * terms added in order from 0.0 + the scan before it. Each non-zero term
 * gets its code (eq_ord_split_code), and a piece starts where
 * EQ_ORD_SPLIT_HEAD says, as in a split record: a crossing term is a piece
 * alone (the loop's add; its run empty), any other piece holds rising
 * terms (eq_ord_rising_term OK under its binade) and its run is
 * eq_ord_rising_part of their increments' total and its first term's.
 * Returns the pieces' count (p[0 .. np-1]), or -1 where a term of a
 * stretch is not rising or there would be more than maxp pieces. Advice,
 * as every record: eq_ord_first_sum walks them from +0.0 with their
 * checks.
 */
EQ_HD static inline int eq_ord_first_pieces(const double *x, int rs, int n, int lanes, int per,
                                            int maxp, EqOrdPiece *p)
{
#define EQ_X_(i) eq_ord_lane_term(x, rs, per, i)
    double inc[EQ_ORD_CROSS_LANES];
    int64_t d = 0, f = 0;
    int l, i, np = 0, prev = EQ_ORD_SPLIT_NOCODE;
    if (lanes > EQ_ORD_CROSS_LANES)
        return -1;
    eq_ord_lane_totals(x, rs, per, n, lanes, inc);
    eq_ord_warp_scan_sum(inc, lanes);
    for (l = 0; l < lanes; l++) {
        const int a = eq_ord_lane_at(l, per, n), b = eq_ord_lane_at(l + 1, per, n);
        double cur = 0.0 + (l ? inc[l - 1] : 0.0);
        for (i = a; i < b; i++) {
            const double xi = EQ_X_(i);
            int64_t up = 0;
            int code;
            if (xi == 0.0)
                continue;
            code = eq_ord_split_code(cur, xi);
            cur += xi;
            if (code != EQ_ORD_CROSS && eq_ord_rising_term(xi, code, &up) != EQ_ORD_RISING_OK)
                return -1;
            if (EQ_ORD_SPLIT_HEAD(code, prev)) {
                if (np > 0 && p[np - 1].e != EQ_ORD_CROSS)
                    p[np - 1].run = eq_ord_rising_part(d, f);
                if (np == maxp)
                    return -1;
                p[np].run = eq_ord_empty();
                p[np].x = xi;
                p[np].e = code;
                p[np].start = i;
                np++;
                d = 0;
                f = up;
            }
#if EQ_ORDSUM_MUTATION == 21
            d += code != EQ_ORD_CROSS && i != p[np - 1].start ? up : 0; /* mutation: a head's
                                                                          increment left out */
#else
            d += code != EQ_ORD_CROSS ? up : 0;
#endif
            prev = code;
        }
    }
    if (np > 0 && p[np - 1].e != EQ_ORD_CROSS)
        p[np - 1].run = eq_ord_rising_part(d, f);
    return np;
#undef EQ_X_
}

/* The loop's sum of a sum's first chunk (as eq_ord_first_pieces takes it)
 * from +0.0: its pieces walked (eq_ord_walk_record), and from the first
 * piece whose check fails, or from the first term where there are no
 * pieces, the plain adds. *how: 1 the pieces walked whole, 2 a check
 * failed, 0 no pieces. The same bits as the loop whatever the pieces. */
EQ_HD static inline double eq_ord_first_sum(const double *x, int rs, int n, int lanes, int per,
                                            int maxp, int *how)
{
    EqOrdPiece p[EQ_ORD_FIRST_PIECES];
    double s = 0.0;
    int i, from = 0;
    const int np = eq_ord_first_pieces(
        x, rs, n, lanes, per, maxp < EQ_ORD_FIRST_PIECES ? maxp : EQ_ORD_FIRST_PIECES, p);
    *how = 0;
    if (np >= 0) {
        from = eq_ord_walk_record(&s, p, np, -1);
        *how = from < 0 ? 1 : 2;
        if (from < 0)
            return s;
    }
    for (i = from; i < n; i++)
        s += eq_ord_lane_term(x, rs, per, i);
    return s;
}

/* A segment starts at chunk c when c is the first chunk of an aligned group
 * of chunks_per_segment chunks, when its planned binade differs from the
 * previous chunk's, or when either is planned term by term. */
EQ_HD static inline int eq_ord_segment_head(const int *plan, int64_t c, int chunks_per_segment)
{
    if (chunks_per_segment <= 1 || c % chunks_per_segment == 0)
        return 1;
    if (plan[c] == EQ_ORD_NONE || plan[c - 1] != plan[c])
        return 1;
    return 0;
}

/* Segment runs by a segmented scan: a chunk's run with a flag that says it
 * starts a segment. The operator is associative; an inclusive scan leaves
 * at each chunk the composition from its segment's head to it, so a
 * segment's run sits at its last chunk. */
typedef struct EqOrdSegRun {
    EqOrdRun run;
    int head;
} EqOrdSegRun;

EQ_HD static inline EqOrdSegRun eq_ord_seg_combine(EqOrdSegRun a, EqOrdSegRun b)
{
    EqOrdSegRun r;
    r.head = a.head | b.head;
    r.run = b.head ? b.run : eq_ord_compose(a.run, b.run);
    return r;
}

/* Inclusive segmented scan over n elements, in place, step by step as a
 * block does it (Hillis-Steele: at step k element i takes i - k; here i
 * runs downwards so every read sees the previous step's value). */
EQ_HD static inline void eq_ord_seg_scan(EqOrdSegRun *v, int n)
{
    int step, i;
    for (step = 1; step < n; step *= 2)
        for (i = n - 1; i >= step; i--)
            v[i] = eq_ord_seg_combine(v[i - step], v[i]);
}

#endif /* EQ_EXACT_ORDSUM_H */
