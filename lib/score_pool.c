/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pooling of one value over the frames of a run (exactquality.h,
 * EqScorePool), the way libvmaf 3.2.0 pools a feature
 * (libvmaf/src/libvmaf.c, vmaf_feature_score_pooled): running sums in the
 * order the values come, the harmonic mean as n / sum (1 / (x + 1)) - 1.
 * The CLI and the GStreamer element both pool through here; the header
 * states the arithmetic, and tests/lib/test_score_pool.c holds it to a
 * plain loop bit for bit.
 */
#include <math.h>
#include <string.h>

#include "exactquality.h"

void eq_score_pool_init(EqScorePool *pool)
{
    if (pool)
        memset(pool, 0, sizeof(*pool));
}

void eq_score_pool_add(EqScorePool *pool, double x)
{
    if (!pool || isnan(x))
        return;
    if (pool->n == 0 || x < pool->min)
        pool->min = x;
    if (pool->n == 0 || x > pool->max)
        pool->max = x;
    pool->sum += x;
    pool->inv_sum += 1.0 / (x + 1.0);
    pool->n++;
}

uint64_t eq_score_pool_count(const EqScorePool *pool)
{
    return pool ? pool->n : 0;
}

double eq_score_pool_mean(const EqScorePool *pool)
{
    if (!pool || pool->n == 0)
        return NAN;
    return pool->sum / (double)pool->n;
}

double eq_score_pool_harmonic_mean(const EqScorePool *pool)
{
    if (!pool || pool->n == 0)
        return NAN;
    return (double)pool->n / pool->inv_sum - 1.0;
}

double eq_score_pool_min(const EqScorePool *pool)
{
    return pool && pool->n ? pool->min : NAN;
}

double eq_score_pool_max(const EqScorePool *pool)
{
    return pool && pool->n ? pool->max : NAN;
}
