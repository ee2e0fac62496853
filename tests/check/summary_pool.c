/* GStreamer exactquality: the summary's pool against a sort
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst/gstexactqualitypool.c (linked in as it is) keeps the values in a
 * temporary file in blocks and finds the percentiles by a radix select.
 * Here the same values go through the computation the element made before
 * (every value in an array, one loop for mean / harmonic mean / min / max,
 * a second loop for the standard deviation, qsort () for the percentiles),
 * and every statistic must have the same bits, for several block sizes:
 * one frame per block, a few, many blocks, exactly one block, and all in
 * RAM. The values cover duplicates, -0.0 and +0.0 (equal for the sort,
 * which keeps them in frame order), infinities, subnormals, values that
 * share their leading bits, any bit pattern but NaN, absent values, and
 * columns with no or one value. Then the failure paths of the file: a
 * write that fails (/dev/full: ENOSPC), a file that cannot be created, a
 * file that is shorter at summary time than what was written (read back
 * short: EIO), and a read that fails part-way (the pool's test hook makes
 * its N-th read fail with EIO, for every N the summary reaches).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "gstexactqualitypool.h"
#include "hand_stats.h"

#define N_COLUMNS 6

/* ------------------------------------------- the computation of before */

typedef struct
{
  guint n;
  gdouble mean, harmonic_mean, min, max, stddev, p1, p5, p50;
} RefStats;

static gboolean
ref_stats (const GArray * samples, RefStats * st)
{
  HandStats h;
  guint n = samples->len;

  memset (st, 0, sizeof (*st));
  if (n == 0)
    return FALSE;
  hand_stats ((const gdouble *) samples->data, n, &h);
  st->n = n;
  st->mean = h.mean;
  st->harmonic_mean = h.harmonic_mean;
  st->min = h.min;
  st->max = h.max;
  st->stddev = h.stddev;
  st->p1 = h.sorted[rank_index (1, n)];
  st->p5 = h.sorted[rank_index (5, n)];
  st->p50 = h.sorted[rank_index (50, n)];
  g_free (h.sorted);
  return TRUE;
}

/* ------------------------------------------------------------ values */

static guint64
bits_of (gdouble x)
{
  guint64 b;

  memcpy (&b, &x, sizeof (b));
  return b;
}

static gdouble
double_of (guint64 b)
{
  gdouble x;

  memcpy (&x, &b, sizeof (x));
  return x;
}

/* Frame @f's value of column @c; FALSE when absent. */
static gboolean
value_of (GRand * r, guint f, guint c, gdouble * v)
{
  switch (c) {
    case 0:
      /* few distinct values: long runs of equal keys */
      *v = floor (g_rand_double_range (r, 0.0, 50.0)) / 4.0;
      return TRUE;
    case 1:{
      /* mostly zeros of either sign, a few negatives and positives,
       * infinities and subnormals */
      gint32 k = g_rand_int_range (r, 0, 100);

      if (k < 60)
        *v = g_rand_boolean (r) ? -0.0 : 0.0;
      else if (k < 75)
        *v = -g_rand_double_range (r, 0.0, 3.0);
      else if (k < 90)
        *v = g_rand_double_range (r, 0.0, 3.0);
      else if (k < 92)
        *v = k & 1 ? INFINITY : -INFINITY;
      else
        *v = double_of (g_rand_int (r)) * (k & 1 ? 1.0 : -1.0);
      return TRUE;
    }
    case 2:{
      /* any bit pattern but NaN (the library never publishes one) */
      guint64 b;

      do
        b = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
      while (isnan (double_of (b)));
      *v = double_of (b);
      return TRUE;
    }
    case 3:
      /* SSIM-like: the leading key bits all equal; absent in 30 % */
      *v = 0.99 + g_rand_double_range (r, 0.0, 1e-9);
      return g_rand_int_range (r, 0, 10) >= 3;
    case 4:
      return FALSE;             /* never present */
    default:
      *v = 42.5;
      return f == 0;            /* present once */
  }
}

static gboolean
same_bits (gdouble a, gdouble b)
{
  return bits_of (a) == bits_of (b);
}

#define CHECK_SAME(what, got, want) G_STMT_START { \
    if (!same_bits ((got), (want))) \
      g_error ("n=%u block=%u column %u %s: pool %a, sort %a", n, block, c, \
          what, (got), (want)); \
  } G_STMT_END

/* @n frames through a pool of blocks of @block frames, against the sort. */
static void
check_against_sort (guint n, guint block, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  GstExactQualityPool *pool = gst_exact_quality_pool_new (N_COLUMNS, block,
      NULL);
  GArray *cols[N_COLUMNS];
  guint f, c;

  for (c = 0; c < N_COLUMNS; c++)
    cols[c] = g_array_new (FALSE, FALSE, sizeof (gdouble));
  for (f = 0; f < n; f++) {
    gdouble v[N_COLUMNS];
    gboolean present[N_COLUMNS];
    GError *error = NULL;

    for (c = 0; c < N_COLUMNS; c++) {
      v[c] = 0.0;
      present[c] = value_of (r, f, c, &v[c]);
      if (present[c])
        g_array_append_val (cols[c], v[c]);
    }
    g_assert_true (gst_exact_quality_pool_add_frame (pool, v, present,
            &error));
    g_assert_no_error (error);
  }
  g_assert_cmpuint (gst_exact_quality_pool_blocks_spilled (pool), ==,
      n / block);
  for (c = 0; c < N_COLUMNS; c++) {
    GstExactQualityPoolStats st;
    RefStats want;
    GError *error = NULL;
    gboolean have = ref_stats (cols[c], &want);

    g_assert_true (gst_exact_quality_pool_stats (pool, c, &st, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (st.n, ==, want.n);
    if (!have)
      continue;
    g_assert_true (st.have_spread);
    CHECK_SAME ("mean", st.mean, want.mean);
    CHECK_SAME ("harmonic mean", st.harmonic_mean, want.harmonic_mean);
    CHECK_SAME ("min", st.min, want.min);
    CHECK_SAME ("max", st.max, want.max);
    CHECK_SAME ("stddev", st.stddev, want.stddev);
    CHECK_SAME ("p1", st.p1, want.p1);
    CHECK_SAME ("p5", st.p5, want.p5);
    CHECK_SAME ("p50", st.p50, want.p50);
  }
  for (c = 0; c < N_COLUMNS; c++)
    g_array_free (cols[c], TRUE);
  gst_exact_quality_pool_free (pool);
  g_rand_free (r);
}

static void
test_against_sort (void)
{
  static const guint sizes[] = { 1, 2, 99, 100, 101, 257, 5000 };
  static const guint blocks[] = { 1, 7, 64, 1000, 5000, 100000 };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (j = 0; j < G_N_ELEMENTS (blocks); j++) {
      /* one frame per block over 5000 frames: 240 k reads; enough at 257 */
      if (blocks[j] == 1 && sizes[i] > 257)
        continue;
      check_against_sort (sizes[i], blocks[j], 1234 + sizes[i]);
    }
}

/* The zeros: -0.0 and +0.0 compare equal, and the sort is stable, so a
 * percentile that falls in the run of zeros is the zero at that place in
 * frame order. A fixed pattern, with the expected signs written out. */
static void
test_signed_zeros (void)
{
  guint block;

  for (block = 3; block <= 300; block *= 10) {
    GstExactQualityPool *pool = gst_exact_quality_pool_new (1, block, NULL);
    GstExactQualityPoolStats st;
    GArray *col = g_array_new (FALSE, FALSE, sizeof (gdouble));
    RefStats want;
    guint f, n = 200;

    for (f = 0; f < n; f++) {
      /* 10 negatives, then zeros: -0.0 at zero positions 0..1, 9..10 and
       * 89..90 (frame order), +0.0 elsewhere */
      gdouble v;
      gboolean yes = TRUE;
      guint z = f - 10;

      if (f < 10)
        v = -1.0 - f;
      else
        v = (z <= 1 || z == 9 || z == 10 || z == 89 || z == 90) ? -0.0 : 0.0;
      g_array_append_val (col, v);
      g_assert_true (gst_exact_quality_pool_add_frame (pool, &v, &yes, NULL));
    }
    g_assert_true (gst_exact_quality_pool_stats (pool, 0, &st, NULL));
    g_assert_true (ref_stats (col, &want));
    /* p1: rank 2 -> -9.0; p5: rank 10 -> -1.0; p50: rank 100 -> the 90th
     * zero (index 89): -0.0 */
    g_assert_true (same_bits (st.p1, -9.0));
    g_assert_true (same_bits (st.p5, -1.0));
    g_assert_true (same_bits (st.p50, -0.0));
    g_assert_true (same_bits (want.p50, -0.0));
    g_array_free (col, TRUE);
    gst_exact_quality_pool_free (pool);
  }
}

/* The file cannot be written (/dev/full: ENOSPC) or created: the pool says
 * so once, keeps the running statistics, and has no spread. */
static void
check_spill_failure (const gchar * path, const gchar * words)
{
  GstExactQualityPool *pool = gst_exact_quality_pool_new (2, 4, path);
  GArray *col = g_array_new (FALSE, FALSE, sizeof (gdouble));
  GstExactQualityPoolStats st;
  RefStats want;
  guint f, failures = 0;

  for (f = 0; f < 10; f++) {
    gdouble v[2] = { 30.0 + f * 0.25, 0.0 };
    gboolean present[2] = { TRUE, FALSE };
    GError *error = NULL;

    g_array_append_val (col, v[0]);
    if (!gst_exact_quality_pool_add_frame (pool, v, present, &error)) {
      failures++;
      /* the fourth frame fills the first block */
      g_assert_cmpuint (f, ==, 3);
      g_assert_nonnull (error);
      if (!strstr (error->message, words))
        g_error ("\"%s\" does not say \"%s\"", error->message, words);
      g_clear_error (&error);
    }
    g_assert_no_error (error);
  }
  g_assert_cmpuint (failures, ==, 1);
  g_assert_true (gst_exact_quality_pool_spill_failed (pool));
  g_assert_true (gst_exact_quality_pool_stats (pool, 0, &st, NULL));
  g_assert_true (ref_stats (col, &want));
  g_assert_cmpuint (st.n, ==, 10);
  g_assert_true (same_bits (st.mean, want.mean));
  g_assert_true (same_bits (st.harmonic_mean, want.harmonic_mean));
  g_assert_true (same_bits (st.min, want.min));
  g_assert_true (same_bits (st.max, want.max));
  g_assert_false (st.have_spread);
  g_assert_true (gst_exact_quality_pool_stats (pool, 1, &st, NULL));
  g_assert_cmpuint (st.n, ==, 0);
  g_array_free (col, TRUE);
  gst_exact_quality_pool_free (pool);
}

static void
test_spill_failure (void)
{
  if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    check_spill_failure ("/dev/full", g_strerror (ENOSPC));
  else
    g_test_message ("no /dev/full here: the write failure is not tested");
  check_spill_failure ("/nonexistent-exactquality-dir/spill",
      "Could not create");
}

/* Column @c's statistics after a read of column @bad failed: @bad reports
 * an error that says so (with EIO, and @path when given); every column
 * keeps its running statistics, == the sort's (@col; @n values, spilled
 * in blocks of @block for the messages); the columns before
 * @bad keep their spread, == the sort's; from @bad on none has. @nth (the
 * failing read, 0 when not injected) only labels messages. Returns 1 for
 * the failing column. */
static guint
check_column_after_failure (GstExactQualityPool * pool, guint c, guint bad,
    GArray * col, guint n, guint block, const gchar * path, guint64 nth)
{
  GstExactQualityPoolStats st;
  RefStats want;
  GError *error = NULL;
  gboolean ok = gst_exact_quality_pool_stats (pool, c, &st, &error);

  g_assert_true (ref_stats (col, &want));
  if (c == bad) {
    g_assert_false (ok);
    g_assert_nonnull (error);
    if (!strstr (error->message, "Could not read back") ||
        (path && !strstr (error->message, path)) ||
        !strstr (error->message, g_strerror (EIO)))
      g_error ("read %" G_GUINT64_FORMAT ": \"%s\" does not say what "
          "failed", nth, error->message);
    g_clear_error (&error);
  } else {
    g_assert_true (ok);
    g_assert_no_error (error);
  }
  g_assert_cmpuint (st.n, ==, n);
  CHECK_SAME ("mean", st.mean, want.mean);
  CHECK_SAME ("harmonic mean", st.harmonic_mean, want.harmonic_mean);
  CHECK_SAME ("min", st.min, want.min);
  CHECK_SAME ("max", st.max, want.max);
  if (st.have_spread != (c < bad))
    g_error ("read %" G_GUINT64_FORMAT ", column %u: spread %s", nth, c,
        st.have_spread ? "kept" : "lost");
  if (st.have_spread) {
    CHECK_SAME ("stddev", st.stddev, want.stddev);
    CHECK_SAME ("p1", st.p1, want.p1);
    CHECK_SAME ("p5", st.p5, want.p5);
    CHECK_SAME ("p50", st.p50, want.p50);
  }
  return c == bad;
}

/* The file is cut between the last write and the summary (the test path is
 * a real file, not unlinked: truncate () it): @all, to nothing (column 0's
 * first read comes back short); else by its last 4 bytes, the last group's
 * count of column 1 (column 0 is read in full, column 1 fails after its
 * first group). Column @bad fails with a sentence that says so; every
 * column keeps its running statistics; the columns before @bad have their
 * spread; from the failure on, none has. */
static void
check_read_failure (gboolean all, guint bad)
{
  gchar *dir = g_dir_make_tmp ("eqpoolXXXXXX", NULL);
  gchar *path = g_build_filename (dir, "spill", NULL);
  GstExactQualityPool *pool = gst_exact_quality_pool_new (2, 4, path);
  GArray *cols[2];
  GStatBuf sb;
  guint f, c, n = 10, block = 4;

  for (c = 0; c < 2; c++)
    cols[c] = g_array_new (FALSE, FALSE, sizeof (gdouble));
  for (f = 0; f < n; f++) {
    gdouble v[2] = { 30.0 + f * 0.25, 1.0 / (f + 3) };
    gboolean present[2] = { TRUE, TRUE };
    GError *error = NULL;

    for (c = 0; c < 2; c++)
      g_array_append_val (cols[c], v[c]);
    g_assert_true (gst_exact_quality_pool_add_frame (pool, v, present,
            &error));
    g_assert_no_error (error);
  }
  g_assert_cmpuint (gst_exact_quality_pool_blocks_spilled (pool), ==, 2);
  /* all: nothing left; else the last 4 bytes (the last group's count of
   * the last column, see the layout in gstexactqualitypool.c) */
  g_assert_cmpint (g_stat (path, &sb), ==, 0);
  g_assert_cmpint (sb.st_size, ==, 2 * 2 * (4 * sizeof (gdouble) + 4));
  g_assert_cmpint (truncate (path, all ? 0 : sb.st_size - 4), ==, 0);
  g_assert_false (gst_exact_quality_pool_spill_failed (pool));

  for (c = 0; c < 2; c++)
    check_column_after_failure (pool, c, bad, cols[c], n, block, path, 0);
  g_assert_true (gst_exact_quality_pool_spill_failed (pool));
  /* asked again, a column read in full before has no spread now */
  for (c = 0; c < 2; c++) {
    GstExactQualityPoolStats st;
    GError *error = NULL;

    g_assert_true (gst_exact_quality_pool_stats (pool, c, &st, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (st.n, ==, n);
    g_assert_false (st.have_spread);
  }
  for (c = 0; c < 2; c++)
    g_array_free (cols[c], TRUE);
  gst_exact_quality_pool_free (pool);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_free (path);
  g_free (dir);
}

static void
test_read_failure (void)
{
  check_read_failure (TRUE, 0);
  check_read_failure (FALSE, 1);
}

/* Three columns, blocks of 4 frames, 10 frames: two groups in the file,
 * two frames in RAM. Every pass over a column reads each group's count and
 * values (4 reads); 8 radix passes; column 2 is all zeros of both signs, so
 * its percentiles take the extra zero pass: 32 + 32 + 36 reads. */
#define RE_COLUMNS 3
#define RE_READS (32 + 32 + 36)

static gdouble
read_error_value (guint f, guint c)
{
  switch (c) {
    case 0:
      return 30.0 + f * 0.25;
    case 1:
      return 1.0 / (f + 3);
    default:
      return f % 3 ? 0.0 : -0.0;
  }
}

/* The @nth read of the file fails with EIO (the test hook), after the
 * reads before it succeeded; @nth past the last read: nothing fails. The
 * column being read then (@bad) fails once, with a sentence; every column
 * keeps its running statistics, == the sort's; the columns before @bad
 * have their spread, == the sort's; from @bad on none has. */
static void
check_read_error (guint64 nth)
{
  GstExactQualityPool *pool = gst_exact_quality_pool_new (RE_COLUMNS, 4,
      NULL);
  GArray *cols[RE_COLUMNS];
  guint f, c, n = 10, block = 4, errors = 0;
  guint bad = nth <= 32 ? 0 : nth <= 64 ? 1 : nth <= RE_READS ? 2 : 3;

  for (c = 0; c < RE_COLUMNS; c++)
    cols[c] = g_array_new (FALSE, FALSE, sizeof (gdouble));
  for (f = 0; f < n; f++) {
    gdouble v[RE_COLUMNS];
    gboolean present[RE_COLUMNS] = { TRUE, TRUE, TRUE };

    for (c = 0; c < RE_COLUMNS; c++) {
      v[c] = read_error_value (f, c);
      g_array_append_val (cols[c], v[c]);
    }
    g_assert_true (gst_exact_quality_pool_add_frame (pool, v, present,
            NULL));
  }
  g_assert_cmpuint (gst_exact_quality_pool_blocks_spilled (pool), ==, 2);
  gst_exact_quality_pool_fail_read (pool, nth);

  for (c = 0; c < RE_COLUMNS; c++)
    errors += check_column_after_failure (pool, c, bad, cols[c], n, block, NULL,
        nth);
  g_assert_cmpuint (errors, ==, bad < RE_COLUMNS ? 1 : 0);
  g_assert_true (gst_exact_quality_pool_spill_failed (pool) ==
      (bad < RE_COLUMNS));
  for (c = 0; c < RE_COLUMNS; c++)
    g_array_free (cols[c], TRUE);
  gst_exact_quality_pool_free (pool);
}

static void
test_read_error (void)
{
  guint64 nth;

  /* every read the summary makes, and one past the last */
  for (nth = 1; nth <= RE_READS + 1; nth++)
    check_read_error (nth);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/summary-pool/against-sort", test_against_sort);
  g_test_add_func ("/summary-pool/signed-zeros", test_signed_zeros);
  g_test_add_func ("/summary-pool/spill-failure", test_spill_failure);
  g_test_add_func ("/summary-pool/read-failure", test_read_failure);
  g_test_add_func ("/summary-pool/read-error", test_read_error);
  return g_test_run ();
}
