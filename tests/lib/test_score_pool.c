/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * EqScorePool (exactquality.h) against the plain loop the header spells
 * out, bit for bit: no values, one value, signed zeros, negatives, -1.0,
 * infinities, NaNs (not pooled), a sequence whose sum depends on the order,
 * and seeded random sequences of mixed magnitudes and signs. Some results
 * are also written out by hand, so that the loop here is not the only
 * witness.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "eqtest.h"
#include "exactquality.h"

/* The loop a caller would write (libvmaf's pooling): frame order, NaNs
 * skipped, min and max from the first value on. */
typedef struct Hand {
    uint64_t n;
    double mean, harmonic_mean, min, max;
} Hand;

static Hand hand(const double *x, int len)
{
    Hand h = { 0, NAN, NAN, NAN, NAN };
    double sum = 0.0, inv_sum = 0.0;

    for (int k = 0; k < len; k++) {
        if (isnan(x[k]))
            continue;
        if (h.n == 0) {
            h.min = x[k];
            h.max = x[k];
        }
        if (x[k] < h.min)
            h.min = x[k];
        if (x[k] > h.max)
            h.max = x[k];
        sum += x[k];
        inv_sum += 1.0 / (x[k] + 1.0);
        h.n++;
    }
    if (h.n > 0) {
        h.mean = sum / (double)h.n;
        h.harmonic_mean = (double)h.n / inv_sum - 1.0;
    }
    return h;
}

static Hand pooled(const double *x, int len)
{
    EqScorePool p;
    Hand h;

    eq_score_pool_init(&p);
    for (int k = 0; k < len; k++)
        eq_score_pool_add(&p, x[k]);
    h.n = eq_score_pool_count(&p);
    h.mean = eq_score_pool_mean(&p);
    h.harmonic_mean = eq_score_pool_harmonic_mean(&p);
    h.min = eq_score_pool_min(&p);
    h.max = eq_score_pool_max(&p);
    return h;
}

/* The pool and the loop give the same count and the same bits; returns the
 * pool's answer for the explicit checks. */
static Hand check_seq(const double *x, int len)
{
    Hand want = hand(x, len), got = pooled(x, len);

    CHECK(got.n == want.n);
    CHECK_BITS(got.mean, want.mean);
    CHECK_BITS(got.harmonic_mean, want.harmonic_mean);
    CHECK_BITS(got.min, want.min);
    CHECK_BITS(got.max, want.max);
    return got;
}

#define CHECK_SEQ(...)                                                         \
    check_seq((const double[]){ __VA_ARGS__ },                                 \
              (int)(sizeof((const double[]){ __VA_ARGS__ }) / sizeof(double)))

static int is_positive_nan(double x)
{
    return isnan(x) && !signbit(x);
}

static uint64_t bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof(b));
    return b;
}

/* xorshift64*: a fixed sequence on every machine */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

/* Values like scores (PSNR-like, SSIM-like), with a few large, tiny,
 * negative and zero ones; never NaN unless @nans. */
static double random_value(int nans)
{
    uint64_t r = rng();
    double u = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */

    switch ((r >> 3) % 16) {
    case 0:
        return -u * 4.0;
    case 1:
        return u * 1e12;
    case 2:
        return u * 1e-300;
    case 3:
        return (r & 1) ? 0.0 : -0.0;
    case 4:
        return nans ? NAN : -1.0 + u;
    case 5:
        return 0.9 + u * 1e-9;
    default:
        return 20.0 + u * 40.0;
    }
}

int main(void)
{
    EqScorePool p, zeroed;
    Hand h;

    /* ---- no values: count 0, every statistic a positive NaN */
    eq_score_pool_init(&p);
    CHECK(eq_score_pool_count(&p) == 0);
    CHECK(is_positive_nan(eq_score_pool_mean(&p)));
    CHECK(is_positive_nan(eq_score_pool_harmonic_mean(&p)));
    CHECK(is_positive_nan(eq_score_pool_min(&p)));
    CHECK(is_positive_nan(eq_score_pool_max(&p)));
    h = check_seq(NULL, 0);
    CHECK(h.n == 0);
    /* only NaNs: still empty */
    h = CHECK_SEQ(NAN, -NAN, NAN);
    CHECK(h.n == 0);
    CHECK(is_positive_nan(h.mean) && is_positive_nan(h.max));
    /* a zero-filled pool is an empty one, and NULL is harmless */
    memset(&zeroed, 0, sizeof(zeroed));
    CHECK(memcmp(&zeroed, &p, sizeof(p)) == 0);
    eq_score_pool_init(NULL);
    eq_score_pool_add(NULL, 1.0);
    CHECK(eq_score_pool_count(NULL) == 0);
    CHECK(is_positive_nan(eq_score_pool_mean(NULL)));
    CHECK(is_positive_nan(eq_score_pool_harmonic_mean(NULL)));
    CHECK(is_positive_nan(eq_score_pool_min(NULL)));
    CHECK(is_positive_nan(eq_score_pool_max(NULL)));

    /* ---- one value */
    h = CHECK_SEQ(42.5);
    CHECK(h.n == 1);
    CHECK(h.mean == 42.5 && h.min == 42.5 && h.max == 42.5);
    CHECK_BITS(h.harmonic_mean, 1.0 / (1.0 / 43.5) - 1.0);

    /* ---- written out: 1 and 3 */
    h = CHECK_SEQ(1.0, 3.0);
    CHECK(h.mean == 2.0);
    CHECK_BITS(h.harmonic_mean, 2.0 / 0.75 - 1.0);
    CHECK(h.harmonic_mean != 2.0 / 0.75); /* the "- 1" is there */

    /* ---- NaNs are not pooled: the same as without them */
    h = CHECK_SEQ(NAN, 1.0, NAN, 3.0, -NAN);
    CHECK(h.n == 2);
    CHECK(h.mean == 2.0);
    CHECK_BITS(h.harmonic_mean, 2.0 / 0.75 - 1.0);

    /* ---- signed zeros: the first zero stays min and max, with its sign;
     * the sum starts at +0.0 */
    h = CHECK_SEQ(-0.0);
    CHECK(bits(h.min) == bits(-0.0) && bits(h.max) == bits(-0.0));
    CHECK(bits(h.mean) == bits(0.0));
    CHECK(h.harmonic_mean == 0.0);
    h = CHECK_SEQ(-0.0, 0.0, -0.0);
    CHECK(bits(h.min) == bits(-0.0) && bits(h.max) == bits(-0.0));
    h = CHECK_SEQ(0.0, -0.0);
    CHECK(bits(h.min) == bits(0.0) && bits(h.max) == bits(0.0));
    CHECK_SEQ(0.0, 0.0, 0.0, 0.0);

    /* ---- negatives, and -1.0 (1 / (x + 1) = +inf: harmonic mean -1) */
    h = CHECK_SEQ(-3.0, -0.5, 2.0);
    CHECK(h.min == -3.0 && h.max == 2.0);
    h = CHECK_SEQ(5.0, -1.0, 7.0);
    CHECK(h.harmonic_mean == -1.0);
    CHECK(h.mean == 11.0 / 3.0);
    /* 1 and -3: inv_sum 0.5 - 0.5 = +0: harmonic mean +inf */
    h = CHECK_SEQ(1.0, -3.0);
    CHECK(h.harmonic_mean == INFINITY);

    /* ---- infinities */
    h = CHECK_SEQ(INFINITY, 1.0);
    CHECK(h.mean == INFINITY && h.max == INFINITY && h.min == 1.0);
    CHECK_BITS(h.harmonic_mean, 2.0 / 0.5 - 1.0);
    h = CHECK_SEQ(-INFINITY, 2.0);
    CHECK(h.mean == -INFINITY && h.min == -INFINITY);
    h = CHECK_SEQ(INFINITY, -INFINITY);
    CHECK(isnan(h.mean));
    CHECK(h.harmonic_mean == INFINITY);
    CHECK(h.min == -INFINITY && h.max == INFINITY);
    CHECK_SEQ(INFINITY, -1.0, -INFINITY, 0.0, -0.0);

    /* ---- the order matters: 1 + 1e16 rounds to 1e16 (ties to even) */
    h = CHECK_SEQ(1.0, 1e16, -1e16);
    CHECK(bits(h.mean) == bits(0.0));
    h = CHECK_SEQ(-1e16, 1e16, 1.0);
    CHECK(h.mean == 1.0 / 3.0);
    /* the harmonic sum too: 1 / (x + 1) of 1e-17 - 1 is huge, of 0 is 1 */
    CHECK_SEQ(0.0, -1.0 + 0x1p-53, 0.0, 1e300);

    /* ---- random sequences of many lengths, with and without NaNs */
    for (int len = 1; len <= 4096; len = len * 3 + 1) {
        for (int nans = 0; nans <= 1; nans++) {
            static double x[4096];
            for (int k = 0; k < len; k++)
                x[k] = random_value(nans);
            check_seq(x, len);
        }
    }

    /* ---- a pool used again after init starts empty */
    eq_score_pool_init(&p);
    eq_score_pool_add(&p, 3.0);
    eq_score_pool_init(&p);
    eq_score_pool_add(&p, 5.0);
    CHECK(eq_score_pool_count(&p) == 1);
    CHECK(eq_score_pool_min(&p) == 5.0 && eq_score_pool_mean(&p) == 5.0);

    return eqtest_done();
}
