/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The exact ordered sum (lib/exact/ordsum.h, lib/exact/ordsum_host.c)
 * against the plain loop, bit for bit:
 *
 * 1. the one-term rule against the floating-point add on random samples,
 *    ties and every exponent gap, both parities, both signs;
 * 2. composition: associative (tree == sequential == any split), and a
 *    composed run applied in one step equals the loop whenever it applies;
 *    the runs of tie-free, monotone and rising stretches from integer
 *    totals equal the composed runs;
 * 3. the whole pipeline in the device layout against the loop on many kinds
 *    of input times plans times layouts.
 *
 * Built a second time per mutation (-DEQ_ORDSUM_MUTATION=N, meson
 * should_fail): each mutation must make this program fail.
 *
 * Seeded; a failure prints the kind, plan and layout that reproduce it.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eqtest.h"
#include "exact/ordsum.h"
#include "exact/ordsum_host.h"

static uint64_t rng_state = 0x5eed0fde5c0ffeeULL;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* uniform in [0, 1) with 53 random bits */
static double rnd01(void)
{
    return (double)(rnd() >> 11) * 0x1p-53;
}

static double from_parts(int neg, int biased_exp, uint64_t mant52)
{
    return eq_from_bits(((uint64_t)neg << 63) | ((uint64_t)biased_exp << 52) |
                            (mant52 & EQ_ORD_MANT_MASK));
}

static int same_bits(double a, double b)
{
    return eq_bits(a) == eq_bits(b);
}

/* ------------------------------------------------------------------ */
/* 1. The one-term rule                                                 */

static long term_samples, term_applied, term_ties_applied, term_mismatch;
static long fast_ok, fast_slow, fast_poison, fast_mismatch;

/* eq_ord_term_fast against eq_ord_term: "ok" exactly when the rule gives
 * one increment for both parities (no exact half, x not subnormal), with
 * that increment; "poison" exactly when the rule poisons. */
static void fast_term(double x, int e)
{
    EqOrdRun r = eq_ord_term(x, e);
    int64_t inc = 12345;
    int a = eq_ord_term_fast(x, e, &inc);
    int poisoned = r.lo[0] == -EQ_ORD_POISON && r.hi[0] == EQ_ORD_POISON;
    int subnormal = eq_exp_field(x) == 0 && x != 0.0;
    int ok;

    if (poisoned)
        ok = a == EQ_ORD_FAST_POISON;
    else if (r.d[0] != r.d[1] || subnormal)
        ok = a == EQ_ORD_FAST_SLOW;
    else
        ok = a == EQ_ORD_FAST_OK && inc == r.d[0];
    fast_ok += a == EQ_ORD_FAST_OK;
    fast_slow += a == EQ_ORD_FAST_SLOW;
    fast_poison += a == EQ_ORD_FAST_POISON;
    if (!ok && fast_mismatch++ < 10)
        fprintf(stderr, "fast rule: x=%a e=%d: answer %d inc %lld, rule %lld/%lld%s\n", x, e,
                a, (long long)inc, (long long)r.d[0], (long long)r.d[1],
                poisoned ? " (poison)" : "");
}

static long scaled_clean, scaled_tie, scaled_big, scaled_mismatch, scaled1_clean;

/* eq_ord_run_scaled on the one term x against eq_ord_term: BIG whenever the
 * rule poisons, and only for a large term (y >= 2^47); NEG exactly for
 * x < 0; otherwise (neither) the run is the rule's pair, and TIE is raised
 * exactly when the parities differ. */
static void scaled_term(double x, int e)
{
    EqOrdRun t, r;
    int f, ok, poisoned;

    if (e < EQ_ORD_SCALED_EMIN || e > EQ_ORD_EMAX)
        return;
    t = eq_ord_term(x, e);
    f = eq_ord_run_scaled(&x, 1, eq_ord_scale(e), &r);
    poisoned = t.lo[0] == -EQ_ORD_POISON && t.hi[0] == EQ_ORD_POISON;
    if (((f & EQ_ORD_SF_NEG) != 0) != (x < 0.0))
        ok = 0;
    else if (poisoned)
        ok = (f & EQ_ORD_SF_BIG) != 0;
    else if (f & EQ_ORD_SF_BIG)
        ok = fabs(x) >= ldexp(1.0, e - 5); /* y = |x| 2^(52-e) >= 2^47 exactly */
    else if (f & EQ_ORD_SF_NEG)
        ok = 1; /* left to the int64 rule */
    else
        ok = ((f & EQ_ORD_SF_TIE) != 0) == (t.d[0] != t.d[1]) &&
             memcmp(&r, &t, sizeof r) == 0;
    {
        /* the single run: its flags as the pair's (BIG may also come from
         * a total >= 2^47, here one term of y >= 2^47 - 1/2) */
        double d1, f1;
        int g = eq_ord_run_scaled1(&x, 1, e, &d1, &f1);
        if ((f | g) & EQ_ORD_SF_NEG) {
            if ((f & EQ_ORD_SF_NEG) != (g & EQ_ORD_SF_NEG))
                ok = 0; /* NEG exactly for x < 0 in both */
        } else if (!(f & EQ_ORD_SF_BIG) && !(g & EQ_ORD_SF_BIG)) {
            if (g != (f & EQ_ORD_SF_TIE))
                ok = 0;
            else if (g == 0 && ((int64_t)d1 != r.d[0] || (int64_t)f1 != r.lo[0]))
                ok = 0;
        } else if ((f & EQ_ORD_SF_BIG) && !(g & EQ_ORD_SF_BIG)) {
            ok = 0; /* a large term must raise BIG (or NEG) there too */
        }
        scaled1_clean += g == 0;
    }
    scaled_clean += f == 0;
    scaled_tie += (f & EQ_ORD_SF_TIE) != 0;
    scaled_big += (f & EQ_ORD_SF_BIG) != 0;
    if (!ok && scaled_mismatch++ < 10)
        fprintf(stderr, "scaled rule: x=%a e=%d: flags %d run %lld/%lld, rule %lld/%lld%s\n", x,
                e, f, (long long)r.d[0], (long long)r.d[1], (long long)t.d[0],
                (long long)t.d[1], poisoned ? " (poison)" : "");
}

static void one_term(double s, double x)
{
    int e = eq_ord_binade(s);
    EqOrdRun r = eq_ord_term(x, e);
    double t = s, want = s + x;
    int applied = eq_ord_apply(&t, &r, e);
    uint64_t wb = eq_bits(want);

    fast_term(x, e);
    scaled_term(x, e);
    term_samples++;
    if (applied) {
        term_applied++;
        if (r.d[0] != r.d[1])
            term_ties_applied++;
        if (!same_bits(t, want)) {
            if (term_mismatch++ < 10)
                fprintf(stderr, "one-term: s=%a x=%a: loop %a, rule %a\n", s, x, want, t);
        }
    } else {
        /* Not applied: the loop's result must not lie strictly inside the
         * binade of s with the sign of s (then the rule had to apply). */
        int inside = eq_ord_binade(want) == e && (wb >> 63) == (eq_bits(s) >> 63) &&
                     (wb & EQ_ORD_MANT_MASK) != 0;
        if (inside && !isnan(x) && !isinf(x)) {
            if (term_mismatch++ < 10)
                fprintf(stderr, "one-term: s=%a x=%a: rule refused, loop %a inside\n", s, x,
                        want);
        }
    }
}

/* x with exponent gap g below the binade of s (sh = g), optionally on an
 * exact half of u, and the running integer of s of the given parity. */
static void term_rule_samples(long count)
{
    long k;
    for (k = 0; k < count; k++) {
        uint64_t r = rnd();
        int e, g, bs, bx, neg_s = (int)(r & 1), neg_x = (int)((r >> 1) & 1);
        int parity = (int)((r >> 2) & 1), tie = ((r >> 3) & 3) == 0;
        uint64_t ms, mx;
        double s, x;

        /* the binade of s: anywhere, or near the ends of the range */
        switch ((r >> 5) & 3) {
        case 0:
            e = EQ_ORD_EMIN + (int)((r >> 8) % 80);
            break;
        case 1:
            e = EQ_ORD_EMAX - (int)((r >> 8) % 8);
            break;
        default:
            e = -60 + (int)((r >> 8) % 120);
        }
        /* running integer: random, or near 2^52 or 2^53 */
        switch ((r >> 16) & 3) {
        case 0:
            ms = (rnd() >> 12) & 0xff;
            break;
        case 1:
            ms = EQ_ORD_MANT_MASK - ((rnd() >> 12) & 0xff);
            break;
        default:
            ms = rnd() >> 12;
        }
        ms = (ms & ~(uint64_t)1) | (uint64_t)parity;
        bs = e + 1023;
        s = from_parts(neg_s, bs, ms);

        /* the gap: every gap from -2 to 56, sometimes far beyond */
        if (((r >> 20) & 15) == 0)
            g = 57 + (int)((r >> 24) % 2100);
        else
            g = -2 + (int)((r >> 24) % 59);
        mx = rnd() >> 12;
        if (((r >> 40) & 63) == 0) {
            x = neg_x ? -0.0 : 0.0;
        } else {
            bx = bs - g;
            if (bx >= 0x7ff) {
                bx = 0x7fe;
            }
            if (bx < 1) {
                /* subnormal x */
                int sh = 1 - bx; /* extra shift below the smallest normal */
                mx = sh < 64 ? ((mx | ((uint64_t)1 << 52)) >> sh) : 0;
                if (mx == 0)
                    mx = 1;
                bx = 0;
            } else if (tie && g >= 1 && g <= 53) {
                /* bit g-1 of the 53-bit integer set, the bits below clear:
                 * |x| / u = q + 1/2 exactly */
                uint64_t M = (mx | ((uint64_t)1 << 52));
                M = (M >> g << g) | ((uint64_t)1 << (g - 1));
                if (g == 53)
                    M = (uint64_t)1 << 52;
                mx = M;
            }
            x = from_parts(neg_x, bx, mx);
        }
        one_term(s, x);
    }
}

static void term_rule_specials(void)
{
    static const double specials[] = {
        0.0,      -0.0,      INFINITY,  -INFINITY,  NAN,  DBL_MAX, -DBL_MAX,
        DBL_MIN,  -DBL_MIN,  0x1p-1074, -0x1p-1074, 1.0,  -1.0,    0x1p-53,
        -0x1p-53, 0x1.8p-53, 0x1p-52,   2.0,        -2.0,
    };
    static const double sums[] = {
        1.0,
        -1.0,
        0x1.fffffffffffffp0,
        -0x1.fffffffffffffp0,
        0x1.0000000000001p0,
        DBL_MIN,
        -DBL_MIN,
        DBL_MAX,
        -DBL_MAX,
        0x1.fffffffffffffp1023,
        1.5,
    };
    size_t i, j;
    for (i = 0; i < sizeof sums / sizeof sums[0]; i++)
        for (j = 0; j < sizeof specials / sizeof specials[0]; j++)
            one_term(sums[i], specials[j]);
    /* non-normal sums are never applied */
    {
        EqOrdRun r = eq_ord_term(1.0, 0);
        double z = 0.0, nz = -0.0, sub = 0x1p-1070, inf = INFINITY, nan = NAN;
        CHECK(!eq_ord_apply(&z, &r, 0));
        CHECK(!eq_ord_apply(&nz, &r, 0));
        CHECK(!eq_ord_apply(&sub, &r, EQ_ORD_EMIN));
        CHECK(!eq_ord_apply(&inf, &r, 1023));
        CHECK(!eq_ord_apply(&nan, &r, 1023));
    }
    /* infinite and NaN terms poison */
    {
        EqOrdRun a = eq_ord_term(INFINITY, 0), b = eq_ord_term(NAN, 0);
        double s = 1.5;
        CHECK(!eq_ord_apply(&s, &a, 0));
        CHECK(!eq_ord_apply(&s, &b, 0));
        CHECK_BITS(s, 1.5);
    }
}

/* The plan's rules (advice, but the device's split records and planned
 * pass are compared with the host by them): a chunk or a term keeps the
 * binade its approximate sums before and after share; a chunk whose sums
 * differ is planned "none", a term whose sums differ crosses. */
static void plan_rules(void)
{
    CHECK(EQ_ORD_CROSS != EQ_ORD_NONE);
    CHECK(EQ_ORD_CROSS < EQ_ORD_EMIN || EQ_ORD_CROSS > EQ_ORD_EMAX);
    CHECK(eq_ord_plan_chunk(1.0, 1.5) == 0);
    CHECK(eq_ord_plan_chunk(-1.0, -0x1.fp0) == 0);
    CHECK(eq_ord_plan_chunk(1.5, 2.0) == EQ_ORD_NONE);
    CHECK(eq_ord_plan_chunk(0.0, 0x1p-1070) == EQ_ORD_NONE);
    CHECK(eq_ord_plan_term(1.0, 0.5) == 0);
    CHECK(eq_ord_plan_term(-1.0, -0.5) == 0);
    CHECK(eq_ord_plan_term(0x1p-30, 0x1p-60) == -30);
    CHECK(eq_ord_plan_term(1.5, 0.5) == EQ_ORD_CROSS);
    CHECK(eq_ord_plan_term(1.0, -0.5) == EQ_ORD_CROSS);
    CHECK(eq_ord_plan_term(0.0, 1.0) == EQ_ORD_CROSS);
    CHECK(eq_ord_plan_term(1.0, NAN) == EQ_ORD_CROSS);
    /* neither sum normal: no binade, and no crossing either */
    CHECK(eq_ord_plan_term(0.0, 0.0) == EQ_ORD_NONE);
    CHECK(eq_ord_plan_term(0.0, 0x1p-1070) == EQ_ORD_NONE);
    CHECK(eq_ord_plan_term(INFINITY, 1.0) == EQ_ORD_NONE);
}

/* ------------------------------------------------------------------ */
/* 2. Composition                                                       */

static int run_eq(const EqOrdRun *a, const EqOrdRun *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* The tie-free forms: when eq_ord_term_fast answers for every term, the
 * run by eq_ord_push1 (and split, by eq_ord_compose1) is the pair run. */
static int tie_free_run(const double *x, int n, int cut, int e, const EqOrdRun *want)
{
    EqOrdRun1 all = eq_ord_empty1(), left = eq_ord_empty1(), right = eq_ord_empty1();
    EqOrdRun a, b;
    int i;
    for (i = 0; i < n; i++) {
        int64_t inc = 0;
        int ans = eq_ord_term_fast(x[i], e, &inc);
        if (ans == EQ_ORD_FAST_SLOW)
            return 0;
        eq_ord_push1(&all, inc, ans == EQ_ORD_FAST_POISON);
        eq_ord_push1(i < cut ? &left : &right, inc, ans == EQ_ORD_FAST_POISON);
    }
    a = eq_ord_run_from1(all);
    b = eq_ord_run_from1(eq_ord_compose1(left, right));
    CHECK(memcmp(&a, want, sizeof a) == 0);
    CHECK(memcmp(&b, want, sizeof b) == 0);
    return 1;
}

/* A lane of the device's non-negative path: when eq_ord_run_scaled raises
 * neither BIG nor NEG, its pair run is the rule's run, ties included; with
 * no flag at all, parity 0's triple is also eq_ord_push1's (the tie-free
 * single run). Returns 1 for a tie run, 2 for a tie-free one, 0 when the
 * lane does not qualify. */
static int scaled_run(const double *x, int n, int e, const EqOrdRun *want)
{
    EqOrdRun pr;
    int f;
    if (n > 32 || e < EQ_ORD_SCALED_EMIN)
        return 0;
    f = eq_ord_run_scaled(x, n, eq_ord_scale(e), &pr);
    /* the tie-free single run (eq_ord_run_scaled1): with no flag, parity
     * 0's total and first increment and no flag here either; a tie here is
     * one there; a clean run here below 2^47 is clean there */
    double d1, f1;
    int g = eq_ord_run_scaled1(x, n, e, &d1, &f1);
    if (g == 0)
        CHECK(f == 0 && (int64_t)d1 == pr.d[0] && (n == 0 || (int64_t)f1 == pr.lo[0]));
    if ((f & EQ_ORD_SF_TIE) && !(f & (EQ_ORD_SF_BIG | EQ_ORD_SF_NEG)))
        CHECK((g & (EQ_ORD_SF_TIE | EQ_ORD_SF_BIG)) != 0);
    if (f == 0 && pr.d[0] < ((int64_t)1 << 47))
        CHECK(g == 0);
    CHECK(((g & EQ_ORD_SF_NEG) != 0) == ((f & EQ_ORD_SF_NEG) != 0));
    scaled1_clean += g == 0;
    if (f & (EQ_ORD_SF_BIG | EQ_ORD_SF_NEG))
        return 0;
    CHECK(memcmp(&pr, want, sizeof pr) == 0);
    if (!(f & EQ_ORD_SF_TIE)) {
        CHECK(pr.d[0] == pr.d[1] && pr.lo[0] == pr.lo[1] && pr.hi[0] == pr.hi[1]);
        return 2;
    }
    return 1;
}

static void composition(long rounds)
{
    long k, applied = 0, refused = 0, tie_free = 0, scaled = 0, scaled_ties = 0;
    long pos_checked = 0, pos_ok = 0;
    for (k = 0; k < rounds; k++) {
        double x[40], s0, s, loop;
        EqOrdRun seq, tree[40], left, right, split;
        int n = 1 + (int)(rnd() % 40), i, cut = (int)(rnd() % (uint64_t)n), e;
        uint64_t kind = rnd() % 4;

        /* a running sum near 1 or near 2 (so bounds matter), signed */
        s0 = (rnd() & 1) ? 1.0 + (double)(rnd() % 64) * 0x1p-52
                         : 2.0 - (double)(rnd() % 64) * 0x1p-52;
        if (rnd() & 1)
            s0 = -s0;
        e = eq_ord_binade(s0);
        for (i = 0; i < n; i++) {
            double v = (double)(int64_t)(rnd() % 33) - 16.0; /* -16 .. 16 */
            switch (kind) {
            case 0:
                x[i] = v * 0x1p-53; /* ties around the grid */
                break;
            case 1:
                x[i] = v * 0x1p-54 + (double)(rnd() % 3) * 0x1p-60;
                break;
            case 2:
                x[i] = fabs(v) * 0x1p-53;
                break;
            default:
                x[i] = v * 0x1p-52 * rnd01();
            }
        }
        seq = eq_ord_run_terms(x, n, 1, e);
        for (i = 0; i < n; i++)
            tree[i] = eq_ord_term(x[i], e);
        eq_ord_tree(tree, n);
        left = eq_ord_run_terms(x, cut, 1, e);
        right = eq_ord_run_terms(x + cut, n - cut, 1, e);
        split = eq_ord_compose(left, right);
        CHECK(run_eq(&seq, &tree[0]));
        CHECK(run_eq(&seq, &split));
        tie_free += tie_free_run(x, n, cut, e, &seq);
        switch (scaled_run(x, n, e, &seq)) {
        case 1:
            scaled_ties++;
            break;
        case 2:
            scaled++;
            break;
        }

        loop = eq_ordsum_loop(x, (size_t)n, 1, s0);
        {
            /* eq_ord_apply_try_pos: eq_ord_apply_try's answer for s0 >= 0
             * (and under the binades next to s0's), 0 for s0 < 0;
             * eq_ord_next_pos its sum */
            for (int de = -1; de <= 1; de++) {
                double a = 0.0, b = 0.0;
                const int ta = eq_ord_apply_try(s0, &seq, e + de, &a);
                const int tb = eq_ord_apply_try_pos(s0, &seq, e + de, &b);
                CHECK(tb == (s0 < 0.0 ? 0 : ta));
                if (tb)
                    CHECK_BITS(b, a);
                /* eq_ord_next_pos: its new sum alone, whatever the check */
                CHECK_BITS(eq_ord_next_pos(s0, &seq), b);
                pos_checked++;
                pos_ok += tb;
            }
        }
        s = s0;
        if (eq_ord_apply(&s, &seq, e)) {
            applied++;
            CHECK_BITS(s, loop);
        } else {
            refused++;
        }
    }
    /* both outcomes must occur, or the test proves little */
    CHECK(applied > rounds / 10);
    CHECK(refused > rounds / 20);
    CHECK(tie_free > rounds / 10);
    CHECK(scaled > rounds / 100);
    CHECK(scaled_ties > rounds / 100);
    CHECK(pos_ok > rounds / 10);
    {
        /* a sum that no run applies to: zeros, subnormals, infinities, NaN */
        static const double odd[] = { 0.0, -0.0, 0x1p-1060, -0x1p-1060, INFINITY, -INFINITY, NAN };
        EqOrdRun r = eq_ord_empty();
        for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
            for (int e = -1075; e <= 1024; e += 1)
                if (e < -1070 || e > 1020 || e == 0) {
                    double a = 0.0, b = 0.0;
                    CHECK(eq_ord_apply_try(odd[i], &r, e, &a) == 0);
                    CHECK(eq_ord_apply_try_pos(odd[i], &r, e, &b) == 0);
                    pos_checked++;
                }
    }
    printf("composition: %ld rounds, %ld applied, %ld refused, %ld tie-free (single runs), "
           "%ld non-negative (scaled: %ld with ties); the non-negative apply: %ld checks, "
           "%ld applied\n",
           rounds, applied, refused, tie_free, scaled + scaled_ties, scaled_ties, pos_checked,
           pos_ok);
}

/*
 * eq_ord_run_monotone, the device's run of a chunk of non-negative
 * tie-free lanes (lib/cuda/ordsum.cu, chunk_run), from the lanes' totals
 * and lane 0's first increment by eq_ord_run_scaled1: checked against the
 * definition, the one-term rule composed over the chunk's terms in order.
 */
static void monotone_lanes(long rounds)
{
    long k, used = 0;
    for (k = 0; k < rounds; k++) {
        double x[32 * 32];
        int n = 1 + (int)(rnd() % (32 * 32)), e = (int)(rnd() % 81) - 40, i, l, flags = 0;
        double total = 0.0, first = 0.0;
        const double u = ldexp(1.0, e - 52);
        for (i = 0; i < n; i++) {
            /* 0, or |x| / u from below 1/2 up to about 2^36 (each draw its
             * own statement: the order of a call's arguments is unspecified) */
            if ((rnd() % 8) == 0) {
                x[i] = 0.0;
            } else {
                const double m = rnd01();
                x[i] = u * ldexp(m, (int)(rnd() % 38) - 1);
            }
        }
        for (l = 0; l * 32 < n; l++) {
            double d, f;
            int m = n - l * 32 < 32 ? n - l * 32 : 32;
            flags |= eq_ord_run_scaled1(x + l * 32, m, e, &d, &f);
            total += d; /* integers below 2^52: exact */
            if (l == 0)
                first = f;
        }
        if (flags)
            continue; /* a tie (rare here): the device composes pair runs */
        used++;
        {
            EqOrdRun want = eq_ord_run_terms(x, n, 1, e);
            EqOrdRun got = eq_ord_run_monotone(total, first);
            CHECK(memcmp(&want, &got, sizeof got) == 0);
        }
    }
    CHECK(used > rounds / 2);
    printf("monotone lanes: %ld chunks of tie-free non-negative lanes, %ld skipped for a tie\n",
           used, rounds - used);
}

/* eq_ord_halves_push / _compose / _apply (the device's chunk runs with
 * exact halves) against the rule's runs (eq_ord_run_terms) on chunks of
 * up to 32 lanes of up to 32 non-negative terms, many of them exact
 * halves: each lane's tie-free total and first increment by
 * eq_ord_run_scaled1, its halves pushed term by term, the lanes' halves
 * composed one after another and as a tree (the device's pairing); both
 * must give the rule's pair run. A single lane is also held to
 * eq_ord_run_scaled. */
static void halves_lanes(long rounds)
{
    long k, used = 0, with_half = 0, leads = 0;
    for (k = 0; k < rounds; k++) {
        double x[32 * 32], total = 0.0, first = 0.0;
        const int n = 1 + (int)(rnd() % (32 * 32)), e = (int)(rnd() % 81) - 40;
        const int per = 1 + (int)(rnd() % 32); /* terms a lane */
        const double u = ldexp(1.0, e - 52), c = eq_pow2(e), half_u = eq_ord_half_unit(c);
        EqOrdHalves lane[32 * 32], seq;
        int i, l, nl = 0, flags = 0, ties = 0;
        for (i = 0; i < n; i++) {
            const int what = (int)(rnd() % 8);
            if (what == 0) {
                x[i] = 0.0;
            } else if (what < 4) {
                /* an exact half of up to 2^20 units */
                const double q = (double)(rnd() % (1u << 20));
                x[i] = u * (q + 0.5);
            } else {
                const double m = rnd01();
                x[i] = u * ldexp(m, (int)(rnd() % 30) - 1);
            }
        }
        for (l = 0; l * per < n; l++, nl++) {
            const int m = n - l * per < per ? n - l * per : per;
            double d, f;
            const int fl = eq_ord_run_scaled1(x + l * per, m, e, &d, &f);
            flags |= fl & (EQ_ORD_SF_BIG | EQ_ORD_SF_NEG);
            ties |= fl & EQ_ORD_SF_TIE;
            total += d; /* integers below 2^52: exact */
            if (l == 0)
                first = f;
            lane[l] = eq_ord_halves_empty();
            for (i = 0; i < m; i++)
                eq_ord_halves_push(&lane[l], x[l * per + i], c, half_u, i == 0);
            if (l == 0 && !(fl & (EQ_ORD_SF_BIG | EQ_ORD_SF_NEG))) {
                EqOrdRun pr, one = eq_ord_run_monotone(d, f);
                (void)eq_ord_run_scaled(x, m, eq_ord_scale(e), &pr);
                eq_ord_halves_apply(&one, &lane[0]);
                CHECK(memcmp(&one, &pr, sizeof pr) == 0);
            }
            seq = l == 0 ? lane[0] : eq_ord_halves_compose(seq, lane[l]);
        }
        if (flags)
            continue;
        used++;
        with_half += ties != 0;
        leads += lane[0].f1 != 0;
        {
            EqOrdRun want = eq_ord_run_terms(x, n, 1, e);
            EqOrdRun got = eq_ord_run_monotone(total, first);
            int w;
            eq_ord_halves_apply(&got, &seq);
            CHECK(memcmp(&want, &got, sizeof got) == 0);
            /* the tree: neighbours in pairs, then pairs of those */
            for (w = 1; w < nl; w *= 2)
                for (l = 0; l + w < nl; l += 2 * w)
                    lane[l] = eq_ord_halves_compose(lane[l], lane[l + w]);
            got = eq_ord_run_monotone(total, first);
            eq_ord_halves_apply(&got, &lane[0]);
            CHECK(memcmp(&want, &got, sizeof got) == 0);
        }
    }
    CHECK(used > rounds / 2 && with_half > used / 2 && leads > 0);
    printf("halves of lanes: %ld chunks held to the rule (%ld with a half, %ld starting "
           "with one)\n",
           used, with_half, leads);
}

/* eq_ord_rising_term against the one-term rule: OK with the rule's one
 * increment, TIE with two, each within 2^52 units, for a positive normal
 * term; SLOW for everything else. Terms of every sign, class and exponent
 * gap to the binade. */
static void rising_terms(long count)
{
    long k, n[3] = { 0, 0, 0 }, bad = 0;
    for (k = 0; k < count; k++) {
        const int e = (int)(rnd() % 2046) - 1022, gap = (int)(rnd() % 64) - 3;
        const unsigned kind = (unsigned)(rnd() % 16);
        double x;
        int64_t inc = -1;
        if (kind == 0) { /* an exact half of the unit, or a whole number of them */
            const uint64_t r = rnd();
            x = ldexp((double)(r >> (11 + rnd() % 53)), e - 53);
        } else if (kind == 1)
            x = (rnd() & 1) ? 0.0 : -0.0;
        else if (kind == 2)
            x = (rnd() & 1) ? INFINITY : NAN;
        else if (kind == 3) { /* subnormal or 0 */
            const double m = rnd01();
            x = ldexp(m, -1022 - (int)(rnd() % 52));
        } else if (kind == 4) /* 2^52 units, half a unit below, one above */
            x = ldexp(rnd() % 3 == 0 ? 1.0 : rnd() % 2 ? 1.0 - 0x1p-53 : 1.0 + 0x1p-52, e);
        else
            x = ldexp(1.0 + rnd01(), e - gap);
        x = (rnd() % 8) == 0 ? -x : x;
        {
            const int a = eq_ord_rising_term(x, e, &inc);
            const EqOrdRun r = eq_ord_term(x, e);
            const int64_t big = (int64_t)1 << 52;
            const int fits = x > 0.0 && eq_exp_field(x) != 0 && r.lo[0] != -EQ_ORD_POISON &&
                             r.d[0] <= big && r.d[1] <= big;
            const int want = !fits ? EQ_ORD_RISING_SLOW
                                   : r.d[0] == r.d[1] ? EQ_ORD_RISING_OK : EQ_ORD_RISING_TIE;
            if (a != want && bad++ < 3)
                printf("rising term: x=%a e=%d: class %d, want %d (rule %lld/%lld)\n", x, e, a,
                       want, (long long)r.d[0], (long long)r.d[1]);
            CHECK(a == want);
            if (a == EQ_ORD_RISING_OK)
                CHECK(inc == r.d[0]);
            if (a >= 0 && a <= 2)
                n[a]++;
        }
    }
    printf("rising terms: %ld ok, %ld ties, %ld slow\n", n[0], n[1], n[2]);
    CHECK(n[0] > count / 4 && n[1] > count / 50 && n[2] > count / 4);
}

/* A part of up to 32 rising terms (eq_ord_rising_part, the device's
 * cross_split): positive terms, none an exact half, with increments from
 * none up to 2^52 units, zeros among them (no term, as the device leaves
 * them out), many parts long enough to pass EQ_ORD_CAP. The terms' runs
 * (eq_ord_term) composed one by one, from the last one back and as a
 * warp's scan groups them must each equal eq_ord_rising_part of the
 * increments' total and the first one, poisoned or not. */
static void rising_parts(long rounds)
{
    long k, used = 0, poisoned = 0;
    for (k = 0; k < rounds; k++) {
        const int e = (int)(rnd() % 81) - 40, n = 1 + (int)(rnd() % 32),
                  w = 8 + (int)(rnd() % 32);
        EqOrdRun left = eq_ord_empty(), right = eq_ord_empty(), v[32];
        int64_t d = 0, f = -1;
        int j, o, ok = 1;
        for (j = 0; j < n; j++) {
            /* 0; a whole number of units below 2^52; or a smaller term,
             * an exact half with odds 2^-(w + 1) */
            const uint64_t r = rnd();
            const double x = r % 8 == 0  ? 0.0
                             : r % 8 < 4 ? ldexp((double)(rnd() >> 12), e - 52)
                                         : ldexp(rnd01(), e - w - 1);
            int64_t inc = 0;
            if (x != 0.0 && eq_ord_rising_term(x, e, &inc) != EQ_ORD_RISING_OK)
                ok = 0;
            v[j] = x == 0.0 ? eq_ord_empty() : eq_ord_term(x, e);
            left = eq_ord_compose(left, v[j]);
            if (x != 0.0) {
                d += inc;
                f = f < 0 ? inc : f;
            }
        }
        if (!ok)
            continue; /* an exact half (rare here) */
        for (j = n - 1; j >= 0; j--)
            right = eq_ord_compose(v[j], right);
        for (o = 1; o < n; o *= 2)
            for (j = n - 1; j >= o; j--)
                v[j] = eq_ord_compose(v[j - o], v[j]);
        {
            const EqOrdRun want = f < 0 ? eq_ord_empty() : eq_ord_rising_part(d, f);
            CHECK(eq_ord_same_run(&want, &left) && eq_ord_same_run(&want, &right) &&
                  eq_ord_same_run(&want, &v[n - 1]));
            used++;
            poisoned += want.lo[0] == -EQ_ORD_POISON;
        }
    }
    printf("rising parts: %ld parts, %ld of them poisoned, %ld skipped for a half\n", used,
           poisoned, rounds - used);
    CHECK(used > rounds / 2 && poisoned > used / 20 && poisoned < used / 2);
}

/* A sum's first chunk in pieces walked from +0.0 (eq_ord_first_pieces,
 * eq_ord_first_sum: the model of session 47's first_rising, not kept on
 * the device) against the loop, bit for bit, on five kinds: SSIM-like
 * floats in [0.3, 1), floats in [0, 1) with zeros, mixed signs (no
 * pieces), a wide range (pieces past the most, or checks that fail), and
 * a chunk whose approximate prefix misleads: 2 - k u, then terms of 3/4 u
 * (u = 2^-52) that the loop rounds to u each and the lanes' totals keep
 * at 3/4 u, so that lane 2's prefix is below 2 where the sum is at 2 (its
 * piece's check fails, and the plain adds go on). The rows layout of the
 * device (rs 33, NaN between the rows) gives the same sum and the same
 * path. */
static void first_chunks(long rounds)
{
    long k, how_n[3] = {0, 0, 0}, kind_whole[5] = {0, 0, 0, 0, 0};
    int ssim_pieces_max = 0;
    for (k = 0; k < rounds; k++) {
        double x[1024], rows[32 * 33], loop = 0.0;
        const int kind = (int)(k % 5);
        const int n = rnd() % 4 ? 1024 : 1 + (int)(rnd() % 1024);
        const int kk = 20 + (int)(rnd() % 20);
        int i, how, how_rows;
        for (i = 0; i < n; i++) {
            const double u = rnd01();
            switch (kind) {
            case 0:
                x[i] = (double)(float)(0.3 + 0.7 * u);
                break;
            case 1:
                x[i] = rnd() % 8 == 0 ? 0.0 : (double)(float)u;
                break;
            case 2:
                x[i] = u - 0.25;
                break;
            case 3:
                x[i] = ldexp(0.5 + u, (int)(rnd() % 40) - 20);
                break;
            default:
                x[i] = i == 0 ? 2.0 - kk * 0x1p-52 : i < 32 ? 0.0 : 0.75 * 0x1p-52;
                break;
            }
        }
        for (i = 0; i < 32 * 33; i++)
            rows[i] = NAN;
        for (i = 0; i < n; i++) {
            rows[(i / 32) * 33 + i % 32] = x[i];
            loop += x[i];
        }
        {
            const double got = eq_ord_first_sum(x, 32, n, 32, 32, EQ_ORD_FIRST_PIECES, &how);
            const double got_rows =
                eq_ord_first_sum(rows, 33, n, 32, 32, EQ_ORD_FIRST_PIECES, &how_rows);
            CHECK(same_bits(got, loop) && same_bits(got_rows, loop) && how == how_rows);
        }
        how_n[how]++;
        kind_whole[kind] += how == 1;
        if (kind == 0) {
            EqOrdPiece pc[EQ_ORD_FIRST_PIECES];
            const int np = eq_ord_first_pieces(x, 32, n, 32, 32, EQ_ORD_FIRST_PIECES, pc);
            ssim_pieces_max = np > ssim_pieces_max ? np : ssim_pieces_max;
        }
    }
    printf("first chunks: %ld, %ld walked whole in pieces (by kind %ld %ld %ld %ld %ld), %ld "
           "handed to the plain adds by a check, %ld without pieces; SSIM-like chunks in at "
           "most %d pieces\n",
           rounds, how_n[1], kind_whole[0], kind_whole[1], kind_whole[2], kind_whole[3],
           kind_whole[4], how_n[2], how_n[0], ssim_pieces_max);
    CHECK(kind_whole[0] > rounds / 5 * 9 / 10 && kind_whole[1] > rounds / 5 / 2);
    CHECK(kind_whole[2] == 0 && how_n[2] > rounds / 5 / 2);
}

/* A rising stretch (eq_ord_rising_parity, eq_ord_rising_entry): positive
 * terms with increments of at most 2^52 units, exact halves among them,
 * some long enough to pass EQ_ORD_CAP. The run from integer prefixes, as
 * the device's fast split forms a piece's run, against the terms pushed one
 * by one. */
static void rising_stretches(long rounds)
{
    long k, ties = 0, odd_before = 0, poisoned = 0, mismatches = 0;
    for (k = 0; k < rounds; k++) {
        double x[1024];
        /* one in four: up to 8 terms, mostly of about 2^52 units, whose
         * total straddles the cap (4 such terms reach it) */
        const int big = (rnd() % 4) == 0, e = (int)(rnd() % 81) - 40;
        const int n = 1 + (int)(rnd() % (big ? 8 : 1024));
        const double u = ldexp(1.0, e - 52);
        int64_t tf = 0, acc[2] = { 0, 0 }, first[2] = { 0, 0 };
        EqOrdRun want, got;
        int i, p;
        for (i = 0; i < n; i++) {
            const unsigned kind = (unsigned)(rnd() % 8);
            if (kind == 0) { /* an exact half: (2j + 1) / 2 units */
                const uint64_t r = rnd();
                x[i] = ldexp((double)(2 * (r >> (13 + rnd() % 40)) + 1), e - 53);
            } else if (big) { /* 2^52 units or just below */
                x[i] = ldexp(1.0, e) - u * (double)(rnd() % 3);
            } else { /* from below 1/2 unit up to about 2^40 */
                const double m = rnd01() + 0x1p-30;
                x[i] = u * ldexp(m, (int)(rnd() % 42) - 1);
            }
        }
        for (i = 0; i < n; i++) {
            int64_t inc = 0;
            const int a = eq_ord_rising_term(x[i], e, &inc);
            CHECK(a != EQ_ORD_RISING_SLOW);
            if (a == EQ_ORD_RISING_OK) {
                if (i == 0)
                    first[0] = first[1] = inc;
                tf += inc;
            } else {
                const EqOrdRun r = eq_ord_term(x[i], e);
                CHECK(r.d[0] != r.d[1]);
                if (i == 0) {
                    first[0] = r.d[0];
                    first[1] = r.d[1];
                }
                for (p = 0; p < 2; p++)
                    acc[p] += eq_ord_rising_parity(p, tf, acc[p]) ? r.d[1] : r.d[0];
                ties++;
                odd_before += tf & 1;
            }
        }
        for (p = 0; p < 2; p++)
            eq_ord_rising_entry(&got, p, tf + acc[p], first[p]);
        want = eq_ord_run_terms(x, n, 1, e);
        if (!run_eq(&want, &got) && mismatches++ < 3)
            printf("rising stretch %ld: n=%d e=%d x[0]=%a: pushed d %lld/%lld lo %lld/%lld, "
                   "rising d %lld/%lld lo %lld/%lld\n",
                   k, n, e, x[0], (long long)want.d[0], (long long)want.d[1],
                   (long long)want.lo[0], (long long)want.lo[1], (long long)got.d[0],
                   (long long)got.d[1], (long long)got.lo[0], (long long)got.lo[1]);
        CHECK(run_eq(&want, &got));
        poisoned += want.lo[0] == -EQ_ORD_POISON;
    }
    printf("rising stretches: %ld, %ld exact halves (%ld after an odd tie-free total), "
           "%ld poisoned, %ld mismatches\n",
           rounds, ties, odd_before, poisoned, mismatches);
    CHECK(ties > rounds && odd_before > rounds / 4 && poisoned > rounds / 20);
    CHECK(poisoned < rounds / 2);
}

/* One piece of a walk's test, its terms appended to x from x[n] (returns
 * the new count): a crossing term about 2^e0 (`cross`; with odd > 0, an
 * infinity one time in odd and a NaN one time in odd), or a run of 1 to 16
 * small terms (exact halves of a unit, zeros, up to 2^24 units) under the
 * binade of the exact sum *s before it, or the binade above it one time in
 * `wrong` (its check then fails); every term with the sign of s0. *s moves
 * past the piece's terms by the loop. */
static int walk_piece(double *x, int n, EqOrdPiece *pc, double *s, double s0, int e0, int cross,
                      int wrong, int odd)
{
    const int len = cross ? 1 : 1 + (int)(rnd() % 16);
    const int e = eq_ord_binade(*s);
    const double u = ldexp(1.0, (e == EQ_ORD_NONE ? e0 : e) - 52);
    const int a = n;
    int i;
    for (i = 0; i < len; i++) {
        const unsigned kind = (unsigned)(rnd() % 8);
        if (cross) {
            const unsigned big = odd > 0 ? (unsigned)(rnd() % (unsigned)odd) : 2;
            x[n] = big == 0 ? INFINITY : big == 1 ? NAN : ldexp(0.5 + rnd01(), e0);
        } else if (kind == 0) { /* an exact half of a unit */
            x[n] = u * (double)(2 * (rnd() % 64) + 1) / 2.0;
        } else if (kind == 1) {
            x[n] = 0.0;
        } else { /* a unit to about 2^24 of them */
            const int g = (int)(rnd() % 25);
            x[n] = u * ldexp(1.0 + rnd01(), g);
        }
        x[n] = s0 < 0.0 ? -x[n] : x[n];
        n++;
    }
    memset(pc, 0, sizeof(*pc));
    pc->start = a;
    pc->x = x[a];
    if (cross) {
        pc->e = EQ_ORD_CROSS;
        pc->run.d[0] = (int64_t)(rnd() >> 12); /* never read */
    } else {
        pc->e = rnd() % (unsigned)wrong == 0 ? e + 1 : e;
        pc->run = eq_ord_run_terms(x + a, len, 1, pc->e);
    }
    *s = eq_ordsum_loop(x + a, (size_t)len, 1, *s);
    return n;
}

/* Short split records (eq_ord_walk_short, the device's small walk): up
 * to EQ_ORD_SHORT_PIECES pieces from a start s0: a crossing piece of one
 * term about the size of the sum, or a run of small terms under the binade
 * of the exact sum before it (one off a time in six: its check then
 * fails; a run may also carry the sum out of its binade), now and then a
 * piece poisoned. Held to the
 * definition, the pieces in order each checked before the next
 * (eq_ord_apply; a crossing piece's plain add): the same return and the
 * same sum, which is the loop's over the terms before the failed piece
 * (all of them when none failed). */
static void short_records(long rounds)
{
    long k, applied = 0, failed = 0, poisoned = 0, crosses = 0, negative = 0, mismatches = 0;
    for (k = 0; k < rounds; k++) {
        double x[64], s0, s, want_s, m;
        EqOrdPiece pc[EQ_ORD_SHORT_PIECES];
        int n, np, p, poison, got, want;
        const int e0 = (int)(rnd() % 61) - 30;
        /* a start in binade e0, near its top one time in two (a run then
         * may carry the sum over it, and fail its check), negative one
         * time in eight */
        if (rnd() % 2) {
            const int below = (int)(rnd() % 20) + 10;
            m = 2.0 - ldexp(rnd01(), -below);
        } else {
            m = 1.0 + rnd01();
        }
        s0 = ldexp(m, e0);
        s0 = rnd() % 8 == 0 ? -s0 : s0;
        /* pieces: a crossing one (one term about the size of the sum) one
         * time in three, else a run of 1 to 16 small terms (exact halves
         * of a unit, zeros, up to 2^24 units) */
        np = 1 + (int)(rnd() % EQ_ORD_SHORT_PIECES);
        n = 0;
        s = s0;
        for (p = 0; p < np; p++) {
            const int cross = rnd() % 3 == 0;
            n = walk_piece(x, n, &pc[p], &s, s0, e0, cross, 6, 0);
            crosses += cross;
        }
        poison = rnd() % 6 == 0 ? (int)(rnd() % (unsigned)np) : -1;
        /* the definition */
        want_s = s0;
        want = -1;
        for (p = 0; p < np && want < 0; p++) {
            EqOrdRun r = p == poison ? eq_ord_poison() : pc[p].run;
            if (pc[p].e == EQ_ORD_CROSS)
                want_s = want_s + pc[p].x;
            else if (!eq_ord_apply(&want_s, &r, pc[p].e))
                want = pc[p].start;
        }
        CHECK(same_bits(want_s, eq_ordsum_loop(x, (size_t)(want < 0 ? n : want), 1, s0)));
        s = s0;
        got = eq_ord_walk_short(&s, pc, np, poison);
        if ((got != want || !same_bits(s, want_s)) && mismatches++ < 3)
            printf("short record %ld: np=%d poison=%d s0=%a: walk %d %a, definition %d %a\n", k,
                   np, poison, s0, got, s, want, want_s);
        CHECK(got == want);
        CHECK(same_bits(s, want_s));
        applied += want < 0;
        failed += want >= 0;
        poisoned += poison >= 0;
        negative += s0 < 0.0;
    }
    printf("short records: %ld, %ld applied, %ld failed a piece (%ld poisoned, %ld negative "
           "starts), %ld crossing pieces, %ld mismatches\n",
           rounds, applied, failed, poisoned, negative, crosses, mismatches);
    CHECK(applied > rounds / 4 && failed > rounds / 8 && crosses > rounds / 4);
    CHECK(negative > rounds / 20);
}

/* A walk as one chain (eq_ord_walk_chain, the device's small walk with
 * EQ_CUDA_WALKCHAIN_ENV): up to 40 steps from a start s0, each a crossing
 * term about the size of the sum (now and then an infinity or a NaN) or a
 * run of small terms under the binade of the exact sum before it (one off
 * a time in eight), the start now and then negative, infinite or NaN. Held
 * to the definition (eq_ord_walk_record): where the chain says 1, every
 * piece was added there, the same sum, and every sum of the walk was finite
 * (the caller steps over zero chunks between the steps); where it says 0,
 * *s is untouched; and where every piece passes, every sum is finite and
 * none is negative, the chain says 1. */
static void chain_walks(long rounds)
{
    long k, ok_n = 0, refused = 0, unfinite = 0, negative = 0, mismatches = 0;
    long composed = 0, composed_ok = 0;
    for (k = 0; k < rounds; k++) {
        enum { MAXS = 40 };
        double x[MAXS * 16], s0, s, want_s, m;
        EqOrdPiece pc[MAXS];
        int n = 0, ns, p, want, got, finite = 1, nonneg;
        const int e0 = (int)(rnd() % 61) - 30;
        const unsigned startk = (unsigned)(rnd() % 64);
        m = rnd() % 2 ? 2.0 - ldexp(rnd01(), -(int)(rnd() % 20) - 10) : 1.0 + rnd01();
        s0 = ldexp(m, e0);
        s0 = startk == 0 ? INFINITY : startk == 1 ? NAN : rnd() % 8 == 0 ? -s0 : s0;
        ns = 1 + (int)(rnd() % MAXS);
        s = s0;
        for (p = 0; p < ns; p++)
            n = walk_piece(x, n, &pc[p], &s, s0, e0, rnd() % 4 == 0, 8, 64);
        /* the definition, and whether its sums were finite and not
         * negative */
        want_s = s0;
        want = eq_ord_walk_record(&want_s, pc, ns, -1);
        s = s0;
        nonneg = !signbit(s0);
        finite = eq_exp_field(s0) != 0x7ff;
        for (p = 0; p < ns && want < 0; p++) {
            if (pc[p].e == EQ_ORD_CROSS)
                s = s + pc[p].x;
            else
                (void)eq_ord_apply(&s, &pc[p].run, pc[p].e);
            finite &= eq_exp_field(s) != 0x7ff;
            nonneg &= !signbit(s);
        }
        CHECK(want >= 0 || same_bits(s, want_s));
        /* the same chain with its stretches of one binade composed
         * (eq_ord_compose_chain): the same result and sum */
        {
            EqOrdPiece cc[MAXS];
            double sc = s0, sw = s0;
            int nc, gc, gw;
            memcpy(cc, pc, (size_t)ns * sizeof(cc[0]));
            nc = eq_ord_compose_chain(cc, ns);
            gc = eq_ord_walk_chain(&sc, cc, nc);
            gw = eq_ord_walk_chain(&sw, pc, ns);
            if ((gc != gw || !same_bits(sc, sw)) && mismatches++ < 3)
                printf("chain %ld: %d steps composed to %d, s0=%a: %d %a, uncomposed %d %a\n",
                       k, ns, nc, s0, gc, sc, gw, sw);
            CHECK(gc == gw && same_bits(sc, sw));
            composed += ns - nc;
            composed_ok += gc && nc < ns;
        }
        s = s0;
        got = eq_ord_walk_chain(&s, pc, ns);
        if (got) {
            if ((want >= 0 || !same_bits(s, want_s) || !finite) && mismatches++ < 3)
                printf("chain %ld: %d steps, s0=%a: chain %a, definition %d %a (finite %d)\n",
                       k, ns, s0, s, want, want_s, finite);
            CHECK(want < 0 && same_bits(s, want_s) && finite);
        } else {
            CHECK(same_bits(s, s0));
            if (want < 0 && finite && nonneg && mismatches++ < 3)
                printf("chain %ld: %d steps, s0=%a refused a walk that passes\n", k, ns, s0);
            CHECK(!(want < 0 && finite && nonneg));
        }
        ok_n += got;
        refused += !got;
        unfinite += want < 0 && !finite;
        negative += want < 0 && finite && !nonneg;
    }
    printf("chains: %ld, %ld walked whole, %ld refused (%ld with a sum not finite, %ld with a "
           "negative one, the rest with a failed check), %ld mismatches; composed: %ld steps "
           "fewer, %ld composed chains walked whole\n",
           rounds, ok_n, refused, unfinite, negative, mismatches, composed, composed_ok);
    CHECK(ok_n > rounds / 8 && refused > rounds / 8 && unfinite > rounds / 1000);
    CHECK(composed > rounds && composed_ok > rounds / 16);
}

/* Crossing chunks walked from lane runs under two binades
 * (eq_ord_walk_cross): 32 lanes of 32 terms (the last chunk of a sum one
 * time in eight: fewer), from a start near the top of its binade e0, terms
 * that carry the sum over 2^(e0+1) about half way (one time in eight far
 * enough to cross twice, one time in eight too little to cross, one time in
 * twelve a start outside e0; exact halves, zeros and small terms mixed in,
 * now and then a negative one), P and S by eq_ord_cross_record. Held to
 * the loop: -1 and the loop's sum over all terms, or an index and the
 * loop's sum over the terms before it. And the prefixes that pass their
 * check from the start are those before the first that fails (the
 * device's walk, lib/cuda/ordsum.cu cross_walk, tests every lane's prefix
 * at once and takes the first that fails, where this walk searches). One
 * chunk in sixteen has wide terms of both signs instead (increments up to
 * 1.5 2^49 units: a whole chunk's prefixes range about as far as
 * EQ_ORD_CAP, so that a part's poison depends on the grouping); against
 * the runs composed one by one, the record's (the device's grouping) must
 * give every prefix and suffix the same check result and sum (and differ
 * in some, or the case is not met). */
static void cross_record_seq(const double *x, int n, int lanes, int per, int e0, EqOrdRun *P,
                             EqOrdRun *S)
{
    int l;
    for (l = 0; l < lanes; l++) {
        const int a = eq_ord_lane_at(l, per, n), b = eq_ord_lane_at(l + 1, per, n);
        const EqOrdRun r = eq_ord_run_terms(x + a, b - a, 1, e0);
        P[l] = l ? eq_ord_compose(P[l - 1], r) : r;
    }
    S[lanes - 1] = eq_ord_empty();
    for (l = lanes - 2; l >= 0; l--) {
        const int a = eq_ord_lane_at(l + 1, per, n), b = eq_ord_lane_at(l + 2, per, n);
        S[l] = eq_ord_compose(eq_ord_run_terms(x + a, b - a, 1, e0 + 1), S[l + 1]);
    }
}

/* r and q give s the same check result and the same sum under e */
static int same_effect(double s, const EqOrdRun *r, const EqOrdRun *q, int e)
{
    double a = s, b = s;
    const int pa = eq_ord_apply(&a, r, e), pb = eq_ord_apply(&b, q, e);
    return pa == pb && same_bits(a, b);
}

/* A crossing chunk's n terms about `total` in all under binade e0: exact
 * halves, zeros and small negative terms mixed in; `wild`: terms of both
 * signs up to 1.5 2^(e0-3) instead */
static void cross_terms(double *x, int n, int e0, double total, int wild)
{
    const double u = ldexp(1.0, e0 - 52);
    int i;
    for (i = 0; i < n; i++) {
        const unsigned kind = (unsigned)(rnd() % 16);
        if (wild)
            x[i] = ldexp(rnd01() * 3.0 - 1.5, e0 - 3);
        else if (kind == 0)
            x[i] = u * (double)(2 * (rnd() % 64) + 1) / 2.0; /* an exact half */
        else if (kind == 1)
            x[i] = 0.0;
        else if (kind == 2)
            x[i] = -u * (double)(rnd() % 1000);
        else
            x[i] = total / n * (0.5 + rnd01());
    }
}

static void cross_chunks(long rounds)
{
    enum { LANES = 32, PER = 32 };
    long k, whole = 0, handed = 0, plain = 0, mismatches = 0, not_prefix = 0, mixed = 0;
    long wide = 0, regrouped = 0, effect_differs = 0;
    for (k = 0; k < rounds; k++) {
        double x[LANES * PER], s0, s, want;
        EqOrdRun P[LANES], S[LANES];
        const int e0 = (int)(rnd() % 81) - 40;
        const int n = rnd() % 8 ? LANES * PER : 1 + (int)(rnd() % (LANES * PER));
        const unsigned how = (unsigned)(rnd() % 8);
        int got;
        /* the start: 2^e0 (2 - d), d small; the terms' total about
         * 2^e0 times 2d (one crossing), 2.5 (two) or d / 4 (none) */
        const double d = ldexp(1.0 + rnd01(), -(int)(rnd() % 16) - 4);
        s0 = ldexp(2.0 - d, e0);
        s0 = rnd() % 12 == 0 ? ldexp(1.0 + rnd01(), e0 + 2) : s0;
        const double total = ldexp(how == 0 ? 2.5 : how == 1 ? d / 4.0 : 2.0 * d, e0);
        const int wild = rnd() % 16 == 0;
        wide += wild;
        cross_terms(x, n, e0, total, wild);
        eq_ord_cross_record(x, n, LANES, PER, e0, P, S);
        {
            EqOrdRun Pq[LANES], Sq[LANES];
            int l, differs = 0;
            cross_record_seq(x, n, LANES, PER, e0, Pq, Sq);
            for (l = 0; l < LANES; l++) {
                differs |= memcmp(&P[l], &Pq[l], sizeof(EqOrdRun)) ||
                           memcmp(&S[l], &Sq[l], sizeof(EqOrdRun));
                /* a prefix from s0; a suffix from the top and the foot
                 * of e0 + 1 */
                effect_differs += !same_effect(s0, &P[l], &Pq[l], e0) ||
                                  !same_effect(ldexp(1.0, e0 + 1), &S[l], &Sq[l], e0 + 1) ||
                                  !same_effect(ldexp(2.0 - d, e0 + 1), &S[l], &Sq[l], e0 + 1);
            }
            regrouped += differs;
        }
        {
            int l, failed = 0, passes = 0;
            for (l = 0; l < LANES; l++) {
                double t = s0;
                const int pass = eq_ord_apply(&t, &P[l], e0);
                not_prefix += pass && failed;
                failed |= !pass;
                passes += pass;
            }
            mixed += passes > 0 && passes < LANES;
        }
        s = s0;
        got = eq_ord_walk_cross(&s, P, S, e0, x, n, LANES, PER);
        want = eq_ordsum_loop(x, (size_t)(got < 0 ? n : got), 1, s0);
        if ((!same_bits(s, want) || got > n || got == 0) && mismatches++ < 3)
            printf("cross chunk %ld: n=%d e0=%d s0=%a: walk %d %a, loop %a\n", k, n, e0, s0, got,
                   s, want);
        CHECK(same_bits(s, want));
        CHECK(got < 0 || (got > 0 && got <= n));
        whole += got < 0;
        handed += got >= 0;
        plain += eq_ord_binade(s0) != e0;
    }
    printf("cross chunks: %ld, %ld walked whole, %ld handed on (%ld starts outside e0), %ld "
           "mismatches; %ld with prefixes that pass and prefixes that fail, %ld passing after "
           "one that fails\n",
           rounds, whole, handed, plain, mismatches, mixed, not_prefix);
    printf("cross chunks: %ld with wide terms of both signs; %ld records whose runs differ from "
           "the lanes composed one by one (poison), %ld prefixes or suffixes that act "
           "differently\n",
           wide, regrouped, effect_differs);
    CHECK(regrouped > 0 && effect_differs == 0);
    CHECK(whole > rounds / 2 && handed > rounds / 20);
    CHECK(not_prefix == 0 && mixed > rounds / 2);
}

/* eq_ord_run_spread_ok: lanes of 32 terms (some zero, of both signs, up to
 * 2^(e - 3) .. 2^e, so that a lane's prefixes span about EQ_ORD_CAP units)
 * composed as a warp does (an inclusive scan of one-term runs by
 * eq_ord_compose, the empty run for a zero) against the terms pushed one by
 * one: wherever the pushed run passes, the scan's total is that run, bit
 * for bit; some scans differ (a part poisoned), and none of those passes. */
static void spread_lanes(long rounds)
{
    long k, passed = 0, differ = 0, differ_passed = 0;
    for (k = 0; k < rounds; k++) {
        const int e = (int)(rnd() % 81) - 40, w = 3 - (int)(rnd() % 4);
        EqOrdRun seq = eq_ord_empty(), v[32];
        int j, o;
        for (j = 0; j < 32; j++) {
            const double x = rnd() % 8 == 0 ? 0.0 : ldexp(rnd01() * 3.0 - 1.5, e - w);
            v[j] = x == 0.0 ? eq_ord_empty() : eq_ord_term(x, e);
            if (x != 0.0)
                eq_ord_push(&seq, x, e);
        }
        for (o = 1; o < 32; o *= 2)
            for (j = 31; j >= o; j--)
                v[j] = eq_ord_compose(v[j - o], v[j]);
        const int ok = eq_ord_run_spread_ok(&seq), same = eq_ord_same_run(&seq, &v[31]);
        passed += ok;
        differ += !same;
        differ_passed += !same && ok;
    }
    printf("spread: %ld lanes, %ld pass eq_ord_run_spread_ok, %ld composed otherwise than "
           "pushed (%ld of them passing)\n",
           rounds, passed, differ, differ_passed);
    CHECK(differ_passed == 0 && differ > 0 && passed > rounds / 4 && passed < rounds);
}

/* Split records formed from crossing records (eq_ord_split_from_cross,
 * the model of a split block that turns its early crossing record into
 * the walk's split record): chunks as cross_chunks makes them, one in
 * sixteen with wide terms of both signs (their lanes' runs composed in a
 * tree may poison where the terms pushed one by one do not: such a record
 * is refused), the approximate prefix before the chunk the start itself
 * or the start a few units off. Every record formed must be well formed
 * (eq_ord_split_ok, as the device's harness holds split records), and its
 * walk (eq_ord_walk_record) must give the loop's sum: over all terms, or
 * over those before the piece whose check failed. Most chunks that cross
 * once must take the form and walk whole; chunks with a zero first term
 * (one in eight) must be refused where P would count it. The same form
 * from the device's layout (eq_ord_split_from_cross_at: lanes as rows
 * with NaN between them, the lanes' totals given) must give the same
 * pieces, bit for bit. */
static void cross_splits(long rounds)
{
    enum { LANES = 32, PER = 32 };
    long k, formed = 0, refused = 0, whole = 0, handed = 0, bad = 0, mismatches = 0;
    long lead_zero = 0, lead_refused = 0, one_cross = 0, one_whole = 0, strided = 0;
    long wide = 0, wide_refused = 0;
    for (k = 0; k < rounds; k++) {
        double x[LANES * PER], s0, s, want;
        EqOrdRun P[LANES], S[LANES];
        EqOrdPiece p[3];
        const int e0 = (int)(rnd() % 81) - 40;
        const int n = rnd() % 8 ? LANES * PER : 1 + (int)(rnd() % (LANES * PER));
        const unsigned how = (unsigned)(rnd() % 8);
        int np, got;
        const double d = ldexp(1.0 + rnd01(), -(int)(rnd() % 16) - 4);
        const double total = ldexp(how == 0 ? 2.5 : how == 1 ? d / 4.0 : 2.0 * d, e0);
        const double u = ldexp(1.0, e0 - 52);
        s0 = ldexp(2.0 - d, e0);
        const int wild = rnd() % 16 == 0;
        cross_terms(x, n, e0, total, wild);
        if (rnd() % 8 == 0)
            x[0] = 0.0;
        const int zero_first = x[0] == 0.0;
        eq_ord_cross_record(x, n, LANES, PER, e0, P, S);
        /* the plan's prefix: the start, or a few units off it */
        const double approx = rnd() % 2 ? s0 : s0 + u * (double)((int)(rnd() % 9) - 4);
        np = eq_ord_split_from_cross(x, n, LANES, PER, P, S, e0, approx, p);
        {
            /* the device's layout: lanes as rows of RS with NaN between
             * them (never read), their totals the caller's */
            enum { RS = PER + 1 };
            double rows[LANES * RS], tot[LANES];
            EqOrdPiece q[3];
            int l, i, nq;
            for (i = 0; i < LANES * RS; i++)
                rows[i] = NAN;
            for (l = 0; l < LANES; l++) {
                tot[l] = 0.0;
                for (i = 0; i < PER && l * PER + i < n; i++) {
                    rows[l * RS + i] = x[l * PER + i];
                    tot[l] += x[l * PER + i];
                }
            }
            nq = eq_ord_split_from_cross_at(rows, RS, n, LANES, PER, tot, P, S, e0, approx, q);
            if ((nq != np || (np > 0 && memcmp(p, q, (size_t)np * sizeof(EqOrdPiece)))) &&
                strided++ < 3)
                printf("split from cross %ld: rows of %d give %d pieces, in order %d\n", k, RS,
                       nq, np);
            CHECK(nq == np && (np <= 0 || !memcmp(p, q, (size_t)np * sizeof(EqOrdPiece))));
        }
        lead_zero += zero_first;
        wide += wild;
        if (np < 0) {
            refused++;
            lead_refused += zero_first;
            wide_refused += wild;
            continue;
        }
        formed++;
        if (!eq_ord_split_ok(p, np, x, 1, n)) {
            if (bad++ < 3)
                printf("split from cross %ld: n=%d e0=%d: %d pieces, not well formed\n", k, n,
                       e0, np);
            CHECK(0);
            continue;
        }
        s = s0;
        got = eq_ord_walk_record(&s, p, np, -1);
        want = eq_ordsum_loop(x, (size_t)(got < 0 ? n : got), 1, s0);
        if (!same_bits(s, want) && mismatches++ < 3)
            printf("split from cross %ld: n=%d e0=%d s0=%a: walk %d %a, loop %a\n", k, n, e0,
                   s0, got, s, want);
        CHECK(same_bits(s, want));
        whole += got < 0;
        handed += got >= 0;
        one_cross += how >= 2;
        one_whole += how >= 2 && got < 0;
    }
    printf("split records from crossing records: %ld chunks, %ld formed (%ld walked whole, %ld "
           "handed on), %ld refused (%ld of %ld with a zero first term), %ld not well formed, "
           "%ld mismatches; %ld of %ld formed for chunks made to cross once walked whole; %ld "
           "differ in rows; %ld of %ld with wide terms refused\n",
           rounds, formed, whole, handed, refused, lead_refused, lead_zero, bad, mismatches,
           one_whole, one_cross, strided, wide_refused, wide);
    CHECK(bad == 0 && mismatches == 0 && strided == 0);
    CHECK(formed > rounds / 2 && handed > 0 && one_whole > one_cross * 3 / 4);
    CHECK(lead_refused > 0);
}

/* ------------------------------------------------------------------ */
/* 3. The pipeline against the loop                                     */

enum {
    K_SSIMU2_TIES,
    K_SSIMU2_Q,
    K_SSIM_NEAR_ONE,
    K_SSIM_SIGNED,
    K_MIXED_SIGNS,
    K_CANCEL_ZERO,
    K_HOVER_POW2,
    K_HUGE_RANGE,
    K_SUBNORMAL,
    K_ALL_ZERO,
    K_SIGNED_ZEROS,
    K_NAN,
    K_INF,
    K_INF_MINUS_INF,
    K_OVERFLOW,
    K_HUGE_AMONG_TINY,
    K_COUNT
};

static const char *const kind_names[K_COUNT] = {
    "ssimulacra2 d (k*2^-53)",
    "ssimulacra2 d = 1 - q",
    "ssim near 1",
    "ssim signed",
    "mixed signs",
    "cancellation through zero",
    "hover around 2^0",
    "huge dynamic range",
    "subnormals",
    "all zero",
    "signed zeros",
    "nan",
    "infinity",
    "+inf and -inf",
    "overflow from finite",
    "huge among tiny",
};

static void make_input(int kind, double *x, size_t n)
{
    size_t i;
    double s = 0.0;
    for (i = 0; i < n; i++) {
        uint64_t r = rnd();
        double v;
        switch (kind) {
        case K_SSIMU2_TIES:
            /* multiples of 2^-53 below 2^-12: the sum spends thousands of
             * terms in [1, 2), where every odd multiple is a tie */
            v = (double)(r >> 23) * 0x1p-53;
            break;
        case K_SSIMU2_Q: {
            /* d = 1 - q, q in [1/2, 1): exact, a multiple of 2^-53 */
            double q = 1.0 - (double)((r >> 11) % ((uint64_t)1 << 41) + 1) * 0x1p-53;
            if ((r & 255) == 0)
                q = 0.5 + rnd01() * 0.5;
            v = 1.0 - q;
            break;
        }
        case K_SSIM_NEAR_ONE:
            v = 0.999 + 0.001 * rnd01();
            if ((r & 63) == 0)
                v = 1.0;
            break;
        case K_SSIM_SIGNED:
            /* an l*c*s-like term: mostly near 1, some negative structure */
            v = (r & 7) == 0 ? -0.3 * rnd01() : 0.6 + 0.4 * rnd01();
            break;
        case K_MIXED_SIGNS:
            v = (rnd01() * 2.0 - 1.0) * ldexp(1.0, (int)(r % 21) - 10);
            break;
        case K_CANCEL_ZERO:
            /* pushes the sum back through zero; exact pairs hit +0 */
            if ((r & 3) == 0 && i > 0) {
                v = -x[i - 1];
            } else {
                v = (1.0 + rnd01()) * ldexp(1.0, (int)(r % 7) - 3);
                if (s > 0)
                    v = -v;
                if ((r >> 8 & 7) == 0)
                    v = -v;
            }
            break;
        case K_HOVER_POW2:
            /* first term 1, then signed multiples of 2^-53: the sum crosses
             * 1 down and up inside chunks (signed prefixes matter) */
            v = i == 0
                    ? 1.0 + 0x1p-40
                    : (double)((int64_t)(r % 4097) - 2048 - (int64_t)(s > 1.0) * 2) * 0x1p-53;
            break;
        case K_HUGE_RANGE:
            v = (rnd01() + 0.5) * ldexp(1.0, (int)(r % 601) - 300);
            if ((r >> 20) & 1)
                v = -v;
            break;
        case K_SUBNORMAL:
            /* subnormal terms; the sum moves between subnormal and normal */
            v = eq_from_bits((r >> 12) % ((uint64_t)1 << 44));
            if ((r >> 60) == 0)
                v = DBL_MIN * rnd01();
            if (((r >> 56) & 3) == 0)
                v = -v;
            if (((r >> 50) & 1023) == 0)
                v = DBL_MIN;
            break;
        case K_ALL_ZERO:
            v = 0.0;
            break;
        case K_SIGNED_ZEROS:
            v = (r & 1) ? -0.0 : 0.0;
            break;
        case K_NAN:
            v = rnd01();
            if (i == n / 3)
                v = NAN;
            break;
        case K_INF:
            v = rnd01() - 0.25;
            if (i == n / 2)
                v = INFINITY;
            break;
        case K_INF_MINUS_INF:
            v = rnd01();
            if (i == n / 4)
                v = INFINITY;
            if (i == n / 2)
                v = -INFINITY;
            break;
        case K_OVERFLOW:
            /* finite terms whose sum passes DBL_MAX; later terms negative */
            v = DBL_MAX * (0.5 + 0.5 * rnd01()) / (double)(n / 4 + 1);
            if (i > n / 2)
                v = -v;
            break;
        default: /* K_HUGE_AMONG_TINY */
            v = rnd01() * 1e-12;
            if (i == n / 2 + 7)
                v = 0x1.23456789abcdep+600;
            break;
        }
        x[i] = v;
        s += v;
    }
}

typedef struct {
    const char *name;
    EqOrdLayout layout;
} NamedLayout;

/* terms per lane x lanes per chunk, chunks per segment, lanes per piece */
static const NamedLayout layouts[] = {
    {"4x256 seg64 piece16", {4, 256, 64, 16}}, {"4x256 seg64 piece0", {4, 256, 64, 0}},
    {"4x32 seg8 piece3", {4, 32, 8, 3}},       {"3x7 seg5 piece2", {3, 7, 5, 2}},
    {"1x1 seg1 piece0", {1, 1, 1, 0}},         {"2x64 seg1 piece1", {2, 64, 1, 1}},
    {"1x16 seg300 piece0", {1, 16, 300, 0}},
};

static void pipeline_case(int kind, const double *x, size_t n, ptrdiff_t stride, double s0,
                          const NamedLayout *nl, const EqOrdPlanSpec *spec,
                          const char *plan_name, EqOrdStats *st)
{
    double loop = eq_ordsum_loop(x, n, stride, s0), got = -1.0;
    int err = eq_ordsum_host(x, n, stride, s0, &nl->layout, spec, &got, st);
    CHECK(err == 0);
    if (!same_bits(loop, got)) {
        eqtest_failed++;
        fprintf(stderr,
                "pipeline: kind '%s' n=%zu stride=%td layout %s plan %s: loop %a engine %a\n",
                kind_names[kind], n, stride, nl->name, plan_name, loop, got);
    } else {
        eqtest_passed++;
    }
}

static void pipeline(void)
{
    size_t nmax = 120000;
    double *x = malloc(nmax * sizeof *x);
    int kind;
    size_t li;
    EqOrdStats ssim_tree = {0}, ssimu2_tree = {0}, hover_tree = {0};

    if (!x) {
        CHECK(!"out of memory");
        return;
    }
    for (kind = 0; kind < K_COUNT; kind++) {
        /* a length that is not a multiple of any chunk */
        size_t n = nmax - 1 - (size_t)kind * 7;
        double loop;
        int fixed;
        make_input(kind, x, n);
        loop = eq_ordsum_loop(x, n, 1, 0.0);
        fixed = eq_ord_binade(loop) == EQ_ORD_NONE ? 3 : eq_ord_binade(loop);
        for (li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
            const NamedLayout *nl = &layouts[li];
            EqOrdPlanSpec plans[7] = {
                {EQ_ORD_PLAN_TREE, 0, 0},   {EQ_ORD_PLAN_HIGH, 0, 0},
                {EQ_ORD_PLAN_ZERO, 0, 0},   {EQ_ORD_PLAN_FIXED, fixed, 0},
                {EQ_ORD_PLAN_RANDOM, 0, 1}, {EQ_ORD_PLAN_RANDOM, 0, 0xabcdef},
                {EQ_ORD_PLAN_NONE, 0, 0},
            };
            static const char *const plan_names[7] = {
                "tree", "high", "zero", "fixed", "random=1", "random=0xabcdef", "none",
            };
            int pi;
            /* the small layouts walk the whole input; the cheap plans on
             * the 1x1 layout would repeat the loop, so skip half of them */
            for (pi = 0; pi < 7; pi++) {
                EqOrdStats st;
                char name[64];
                snprintf(name, sizeof name, "%s", plan_names[pi]);
                if (plans[pi].kind == EQ_ORD_PLAN_FIXED)
                    snprintf(name, sizeof name, "fixed=%d", fixed);
                pipeline_case(kind, x, n, 1, 0.0, nl, &plans[pi], name, &st);
                if (pi == 0 && li == 0) {
                    if (kind == K_SSIM_NEAR_ONE)
                        ssim_tree = st;
                    if (kind == K_SSIMU2_TIES)
                        ssimu2_tree = st;
                    if (kind == K_HOVER_POW2)
                        hover_tree = st;
                }
            }
        }
        /* reversed stride, and a start value other than +0 */
        {
            EqOrdPlanSpec tree = {EQ_ORD_PLAN_TREE, 0, 0};
            pipeline_case(kind, x + n - 1, n, -1, 0.0, &layouts[0], &tree, "tree reversed",
                          NULL);
            pipeline_case(kind, x, n / 2, 2, 0.0, &layouts[1], &tree, "tree stride 2", NULL);
            pipeline_case(kind, x, n, 1, -0.0, &layouts[0], &tree, "tree s0=-0", NULL);
            pipeline_case(kind, x, n, 1, 1.0, &layouts[2], &tree, "tree s0=1", NULL);
        }
    }

    /* The fast path must actually carry these streams. */
    CHECK(ssim_tree.chunks_applied * 4 >= ssim_tree.chunks * 3);
    CHECK(ssimu2_tree.chunks_applied * 4 >= ssimu2_tree.chunks * 3);
    CHECK(ssim_tree.segments_applied > 0);
    CHECK(hover_tree.chunks_applied > 0);
    /* pieces: a failed chunk adds far fewer than its 1024 terms one by one */
    CHECK(ssim_tree.terms_term_by_term * 4 < ssim_tree.chunks_term_by_term * 1024);
    CHECK(ssimu2_tree.terms_term_by_term * 4 < ssimu2_tree.chunks_term_by_term * 1024);
    printf("fast path, %s, tree plan: ssim %zu/%zu chunks (%zu/%zu segments, %zu plain adds), "
           "ssimulacra2 %zu/%zu chunks (%zu plain adds), hover %zu/%zu chunks\n",
           layouts[0].name, ssim_tree.chunks_applied, ssim_tree.chunks,
           ssim_tree.segments_applied, ssim_tree.segments, ssim_tree.terms_term_by_term,
           ssimu2_tree.chunks_applied, ssimu2_tree.chunks, ssimu2_tree.terms_term_by_term,
           hover_tree.chunks_applied, hover_tree.chunks);

    /* Signed zeros: +0 start gives +0 for all -0 (+0 + -0 = +0); a -0
     * start gives -0 (-0 + -0 = -0). */
    {
        size_t i, n = 3000;
        EqOrdPlanSpec tree = {EQ_ORD_PLAN_TREE, 0, 0};
        double got;
        for (i = 0; i < n; i++)
            x[i] = -0.0;
        CHECK(eq_ordsum_host(x, n, 1, 0.0, &layouts[1].layout, &tree, &got, NULL) == 0);
        CHECK_BITS(got, 0.0);
        CHECK(eq_ordsum_host(x, n, 1, -0.0, &layouts[1].layout, &tree, &got, NULL) == 0);
        CHECK_BITS(got, -0.0);
        CHECK_BITS(eq_ordsum(x, n), 0.0);
        x[n / 2] = 0.0;
        CHECK(eq_ordsum_host(x, n, 1, -0.0, &layouts[1].layout, &tree, &got, NULL) == 0);
        CHECK_BITS(got, 0.0);
        /* 1 + ... - 1 through exact cancellation gives +0 */
        x[0] = 1.0;
        x[n - 1] = -1.0;
        CHECK_BITS(eq_ordsum(x, n), 0.0);
    }
    /* Chunk runs: the ordered tree equals the sequential composition. */
    {
        size_t n = 5000, c;
        const EqOrdLayout *L = &layouts[0].layout;
        size_t nch = eq_ordsum_nchunks(n, L), ct = eq_ordsum_chunk_terms(L);
        double sums[8];
        int plan[8];
        EqOrdRun runs[8], *lanes = malloc(256 * sizeof *lanes);
        make_input(K_SSIMU2_TIES, x, n);
        eq_ordsum_chunk_sums(x, n, 1, L, sums);
        eq_ordsum_plan_tree(0.0, sums, nch, plan);
        for (c = 0; c < nch; c++)
            plan[c] = 0;
        if (lanes) {
            eq_ordsum_chunk_runs(x, n, 1, L, plan, runs, lanes);
            for (c = 0; c < nch; c++) {
                size_t len = c + 1 < nch ? ct : n - c * ct;
                EqOrdRun seq = eq_ord_run_terms(x + c * ct, (int)len, 1, 0);
                CHECK(run_eq(&seq, &runs[c]));
            }
        }
        free(lanes);
    }
    /* Segment runs (segmented scan) equal the in-order composition of
     * their chunks' runs; segments break at group edges and plan changes. */
    {
        enum { NC = 100 };
        EqOrdRun runs[NC], seg[NC];
        EqOrdSegRun scratch[8];
        int plan[NC], seg_len[NC], c, k, covered = 0, multi = 0;
        EqOrdLayout L = {1, 1, 8, 0};
        for (c = 0; c < NC; c++) {
            double t[3];
            plan[c] = (c / 5) % 3 == 2 ? EQ_ORD_NONE : (c / 5) % 3;
            for (k = 0; k < 3; k++)
                t[k] = (double)((int64_t)(rnd() % 2001) - 1000) * 0x1p-53;
            runs[c] = eq_ord_run_terms(t, 3, 1, plan[c] == EQ_ORD_NONE ? 0 : plan[c]);
        }
        eq_ordsum_segment_runs(runs, plan, NC, &L, seg, seg_len, scratch);
        for (c = 0; c < NC; c++) {
            if (seg_len[c] > 0) {
                EqOrdRun want = runs[c];
                CHECK(eq_ord_segment_head(plan, c, 8));
                for (k = 1; k < seg_len[c]; k++) {
                    CHECK(!eq_ord_segment_head(plan, c + k, 8));
                    want = eq_ord_compose(want, runs[c + k]);
                }
                CHECK(run_eq(&want, &seg[c]));
                covered += seg_len[c];
                multi += seg_len[c] > 1;
            }
        }
        CHECK(covered == NC);
        CHECK(multi > 5);
    }
    /* Bad arguments are refused. */
    {
        EqOrdLayout bad = {0, 256, 64, 16}, bad_piece = {4, 256, 64, -1};
        EqOrdPlanSpec tree = {EQ_ORD_PLAN_TREE, 0, 0}, fixed = {EQ_ORD_PLAN_FIXED, 5000, 0};
        double got;
        CHECK(eq_ordsum_host(x, 10, 1, 0.0, &bad, &tree, &got, NULL) < 0);
        CHECK(eq_ordsum_host(x, 10, 1, 0.0, &bad_piece, &tree, &got, NULL) < 0);
        CHECK(eq_ordsum_host(x, 10, 1, 0.0, &layouts[0].layout, &fixed, &got, NULL) < 0);
        CHECK(eq_ordsum_host(NULL, 10, 1, 0.0, &layouts[0].layout, &tree, &got, NULL) < 0);
        CHECK(eq_ordsum_host(NULL, 0, 1, 0.0, &layouts[0].layout, &tree, &got, NULL) == 0);
        CHECK_BITS(got, 0.0);
    }
    free(x);
}

/* Random small cases: random lengths (0 and 1 included), random layouts,
 * plans and start values, inputs spliced from several kinds. */
static void random_cases(int count)
{
    double *x = malloc(6000 * sizeof *x), *tmp = malloc(6000 * sizeof *tmp);
    int k, mismatches = 0;
    if (!x || !tmp) {
        CHECK(!"out of memory");
        free(x);
        free(tmp);
        return;
    }
    for (k = 0; k < count; k++) {
        size_t n = (size_t)(rnd() % 6001), done = 0;
        EqOrdLayout L;
        EqOrdPlanSpec spec;
        double s0, loop, got = 0.0;
        int err;
        if (k < 4)
            n = (size_t)k; /* 0, 1, 2, 3 terms */
        while (done < n) {
            size_t len = 1 + (size_t)(rnd() % 2000);
            if (len > n - done)
                len = n - done;
            make_input((int)(rnd() % K_COUNT), tmp, len);
            memcpy(x + done, tmp, len * sizeof *x);
            done += len;
        }
        L.terms_per_lane = 1 + (int)(rnd() % 5);
        L.lanes_per_chunk = 1 + (int)(rnd() % 70);
        L.chunks_per_segment = 1 + (int)(rnd() % 20);
        L.lanes_per_piece = (int)(rnd() % 8);
        spec.kind = (EqOrdPlanKind)(rnd() % 6);
        spec.fixed = -5 + (int)(rnd() % 20);
        spec.seed = rnd();
        switch (rnd() % 4) {
        case 0:
            s0 = 0.0;
            break;
        case 1:
            s0 = -0.0;
            break;
        case 2:
            s0 = 1.0 + rnd01();
            break;
        default:
            s0 = 1.0 + rnd01();
            s0 = -ldexp(s0, (int)(rnd() % 40) - 20);
        }
        loop = eq_ordsum_loop(x, n, 1, s0);
        err = eq_ordsum_host(x, n, 1, s0, &L, &spec, &got, NULL);
        if (err != 0 || !same_bits(loop, got)) {
            if (mismatches++ < 5)
                fprintf(stderr,
                        "random case %d: n=%zu layout %dx%d seg%d piece%d plan %d s0=%a: "
                        "loop %a engine %a (err %d)\n",
                        k, n, L.terms_per_lane, L.lanes_per_chunk, L.chunks_per_segment,
                        L.lanes_per_piece, (int)spec.kind, s0, loop, got, err);
        }
    }
    CHECK(mismatches == 0);
    printf("random cases: %d, %d mismatches\n", count, mismatches);
    free(x);
    free(tmp);
}

int main(void)
{
    term_rule_samples(1500000);
    term_rule_specials();
    plan_rules();
    printf("one-term rule: %ld samples, %ld applied (%ld ties), %ld mismatches\n", term_samples,
           term_applied, term_ties_applied, term_mismatch);
    CHECK(term_mismatch == 0);
    CHECK(term_applied > term_samples / 2);
    CHECK(term_ties_applied > term_samples / 20);
    printf("fast rule: %ld ok, %ld slow, %ld poison, %ld mismatches\n", fast_ok, fast_slow,
           fast_poison, fast_mismatch);
    CHECK(fast_mismatch == 0);
    CHECK(fast_ok > term_samples / 2);
    CHECK(fast_slow > term_samples / 20);
    printf("scaled rule: %ld clean, %ld ties, %ld big, %ld mismatches\n", scaled_clean,
           scaled_tie, scaled_big, scaled_mismatch);
    CHECK(scaled_mismatch == 0);
    CHECK(scaled_clean > term_samples / 4);
    CHECK(scaled_tie > term_samples / 20);
    CHECK(scaled1_clean > term_samples / 4);

    composition(200000);
    monotone_lanes(2000);
    halves_lanes(4000);
    pipeline();
    random_cases(1500);
    /* last: the cases above keep their seeded inputs */
    rising_terms(400000);
    rising_stretches(3000);
    rising_parts(20000);
    first_chunks(5000);
    short_records(200000);
    chain_walks(100000);
    cross_chunks(20000);
    spread_lanes(20000);
    cross_splits(20000);
    return eqtest_done();
}
