/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element summary's statistics computed the plain way, for the tests
 * that hold the summary (gst/gstexactqualitypool.c) to them bit for bit:
 * from values in frame order, the mean, libvmaf's harmonic mean
 * n / sum(1 / (x + 1)) - 1, min, max, the two-pass population standard
 * deviation, and the values sorted with qsort () for nearest-rank
 * percentiles. Included by tests/check/summary_pool.c and
 * tests/check/elements/exactquality.c.
 */
#ifndef EQ_TEST_HAND_STATS_H
#define EQ_TEST_HAND_STATS_H

#include <math.h>
#include <stdlib.h>

#include <glib.h>

typedef struct
{
  gdouble mean, harmonic_mean, min, max, stddev;
  gdouble *sorted;              /* the @m values in order; g_free () it */
} HandStats;

static gint
hand_stats_cmp (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

/* @m >= 1 values. */
static void
hand_stats (const gdouble * x, guint m, HandStats * h)
{
  gdouble sum = 0, isum = 0, sq = 0;
  guint j;

  h->min = h->max = x[0];
  for (j = 0; j < m; j++) {
    sum += x[j];
    isum += 1.0 / (x[j] + 1.0);
    if (x[j] < h->min)
      h->min = x[j];
    if (x[j] > h->max)
      h->max = x[j];
  }
  h->mean = sum / m;
  h->harmonic_mean = m / isum - 1.0;
  for (j = 0; j < m; j++) {
    gdouble d = x[j] - h->mean;
    gdouble d2 = d * d;
    sq += d2;
  }
  h->stddev = sqrt (sq / m);
  h->sorted = g_memdup2 (x, m * sizeof (gdouble));
  qsort (h->sorted, m, sizeof (gdouble), hand_stats_cmp);
}

/* Nearest rank: the index of Pk among @m sorted values. */
static guint
rank_index (guint k, guint m)
{
  guint64 rank = ((guint64) k * m + 99) / 100;

  return (guint) MAX (rank, 1) - 1;
}

#endif /* EQ_TEST_HAND_STATS_H */
