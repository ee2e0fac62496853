/* GStreamer exactquality: the summary's pooled statistics
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The summary used to keep every value of every frame in RAM (one double
 * per value per pair) for the two-pass standard deviation and the exact
 * percentiles: a run of days grew without bound. Here memory is bounded and
 * every statistic keeps its bits:
 *
 * - mean, harmonic mean, min and max are the library's running pool
 *   (EqScorePool, exactquality.h: the CLI's summary is the same code),
 *   updated as each frame comes, in frame order: the operations of the old
 *   single loop over the stored values, in the same order;
 * - the values go to a block in RAM of `block` frames; a full block is
 *   written to an anonymous temporary file (created in g_get_tmp_dir (),
 *   TMPDIR, and unlinked at once) and the RAM block is reused;
 * - at summary time each column is read back block by block, in frame
 *   order: the standard deviation's second pass sums (x - mean)^2 in frame
 *   order as before, and the nearest-rank percentiles are found by an exact
 *   radix select (below) instead of a sort.
 *
 * File layout, one fixed-size group per block of frames:
 *
 *   n_columns * block doubles   column c's values of the block's frames,
 *                               packed in frame order (absent values are
 *                               skipped), at c * block
 *   n_columns guint32           how many values each column holds
 *
 * so column c of group g is at g * group_size + c * block * 8, with no index
 * kept in memory. The RAM block has the same layout and is written as is.
 *
 * Percentiles. The old code sorted the values with qsort () and the
 * comparator `x < y ? -1 : x > y ? 1 : 0` and took sorted[rank - 1]. Values
 * are never NaN (the library publishes a NaN as absent), so the comparator
 * orders all values except -0.0 and +0.0, which compare equal; glibc's
 * qsort () is a merge sort, stable, so equal zeros stay in frame order. The
 * select reproduces exactly that order: each double is mapped to a 64-bit
 * key whose unsigned order is the doubles' order (sign bit set: all bits
 * inverted; clear: the sign bit set), with -0.0 mapped to +0.0's key. Eight
 * passes over the column, each with a 256-entry histogram of the next 8 key
 * bits among the keys that match the prefix chosen so far, give the key at
 * the rank and the rank among the keys equal to it. A non-zero key is one
 * double; a zero key needs one more pass: the value is the zero at that
 * position among the column's zeros in frame order (-0.0 or +0.0, as the
 * stable sort left it).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "exactquality.h"
#include "gstexactqualitypool.h"

#define KEY_SIGN G_GUINT64_CONSTANT (0x8000000000000000)
/* the key of +0.0 (and of -0.0) */
#define KEY_ZERO KEY_SIGN
#define N_PERCENTILES 3

struct _GstExactQualityPool
{
  guint n_columns;
  guint block;                  /* frames per block */
  gchar *spill_path;            /* test hook; NULL: anonymous temporary file */
  EqScorePool *columns;         /* mean, harmonic mean, min, max */

  guint8 *group;                /* the block being filled (file layout) */
  gsize group_size;
  guint group_frames;           /* frames in it */
  gint fd;                      /* -1 until the first block is written */
  guint64 groups_written;
  gboolean failed;              /* running sums only from then on */
  guint64 reads;                /* pread () calls on the file so far */
  guint64 fail_read;            /* test hook: that read fails (EIO); 0: none */
};

static gdouble *
group_values (guint8 * group, const GstExactQualityPool * pool, guint c)
{
  return (gdouble *) group + (gsize) c * pool->block;
}

static guint32 *
group_counts (guint8 * group, const GstExactQualityPool * pool)
{
  return (guint32 *) (group + sizeof (gdouble) * pool->n_columns *
      pool->block);
}

GstExactQualityPool *
gst_exact_quality_pool_new (guint n_columns, guint block_frames,
    const gchar * spill_path)
{
  GstExactQualityPool *pool = g_new0 (GstExactQualityPool, 1);
  guint c;

  pool->n_columns = n_columns;
  pool->block = MAX (block_frames, 1);
  pool->spill_path = g_strdup (spill_path);
  pool->columns = g_new (EqScorePool, MAX (n_columns, 1));
  for (c = 0; c < n_columns; c++)
    eq_score_pool_init (&pool->columns[c]);
  pool->group_size = (sizeof (gdouble) * pool->block + sizeof (guint32)) *
      n_columns;
  pool->group = g_malloc0 (MAX (pool->group_size, 1));
  pool->fd = -1;
  return pool;
}

void
gst_exact_quality_pool_free (GstExactQualityPool * pool)
{
  if (!pool)
    return;
  if (pool->fd >= 0)
    close (pool->fd);
  g_free (pool->group);
  g_free (pool->columns);
  g_free (pool->spill_path);
  g_free (pool);
}

gboolean
gst_exact_quality_pool_spill_failed (const GstExactQualityPool * pool)
{
  return pool->failed;
}

guint64
gst_exact_quality_pool_blocks_spilled (const GstExactQualityPool * pool)
{
  return pool->groups_written;
}

/* Test hook: the @nth read of the file from now (1: the next) fails with
 * EIO, as a failing disk's would, after the reads before it succeeded; 0
 * turns it off. Counts every pread () call (a short read that is resumed
 * counts twice). */
void
gst_exact_quality_pool_fail_read (GstExactQualityPool * pool, guint64 nth)
{
  pool->fail_read = nth ? pool->reads + nth : 0;
}

static void
set_errno_error (GError ** error, gint err, const gchar * what,
    const gchar * path)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
      "%s the summary's temporary file%s%s%s: %s", what,
      path ? " (" : "", path ? path : "", path ? ")" : "", g_strerror (err));
}

static gboolean
open_spill_file (GstExactQualityPool * pool, GError ** error)
{
  gchar *path = NULL;

  if (pool->spill_path) {
    /* test hook: a given path (/dev/full: every write fails) */
    pool->fd = g_open (pool->spill_path, O_RDWR | O_CREAT | O_TRUNC |
        O_CLOEXEC, 0600);
    if (pool->fd < 0) {
      set_errno_error (error, errno, "Could not create", pool->spill_path);
      return FALSE;
    }
    return TRUE;
  }
  pool->fd = g_file_open_tmp ("exactquality-summary-XXXXXX", &path, error);
  if (pool->fd < 0) {
    g_prefix_error (error, "Could not create the summary's temporary file "
        "in %s: ", g_get_tmp_dir ());
    return FALSE;
  }
  /* anonymous: the space is given back when the descriptor is closed, also
   * when the process dies */
  g_unlink (path);
  g_free (path);
  fcntl (pool->fd, F_SETFD, FD_CLOEXEC);
  return TRUE;
}

static gboolean
write_all (GstExactQualityPool * pool, const guint8 * buf, gsize size,
    guint64 offset, GError ** error)
{
  while (size > 0) {
    gssize w = pwrite (pool->fd, buf, size, (off_t) offset);

    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      set_errno_error (error, w < 0 ? errno : ENOSPC, "Could not write to",
          pool->spill_path);
      return FALSE;
    }
    buf += w;
    size -= w;
    offset += w;
  }
  return TRUE;
}

static gboolean
read_all (GstExactQualityPool * pool, gpointer dest, gsize size,
    guint64 offset, GError ** error)
{
  guint8 *buf = dest;

  while (size > 0) {
    gssize r;

    if (++pool->reads == pool->fail_read) {
      r = -1;                   /* the test hook */
      errno = EIO;
    } else {
      r = pread (pool->fd, buf, size, (off_t) offset);
    }
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      /* 0: the file is shorter than what was written */
      set_errno_error (error, r < 0 ? errno : EIO, "Could not read back",
          pool->spill_path);
      return FALSE;
    }
    buf += r;
    size -= r;
    offset += r;
  }
  return TRUE;
}

/* Stops keeping values: the RAM block and the file are given back. */
static void
give_up (GstExactQualityPool * pool)
{
  pool->failed = TRUE;
  g_clear_pointer (&pool->group, g_free);
  if (pool->fd >= 0) {
    close (pool->fd);
    pool->fd = -1;
  }
}

/* Adds one frame: values[c] where present[c] (a NaN is absent, as the
 * library publishes it). FALSE (with @error) when the block could not be
 * written: from then on the pool keeps the running sums only (mean,
 * harmonic mean, min, max), and reports no spread. */
gboolean
gst_exact_quality_pool_add_frame (GstExactQualityPool * pool,
    const gdouble * values, const gboolean * present, GError ** error)
{
  guint32 *counts = pool->failed ? NULL : group_counts (pool->group, pool);
  guint c;

  for (c = 0; c < pool->n_columns; c++) {
    gdouble x = values[c];

    if (!present[c] || isnan (x))
      continue;
    eq_score_pool_add (&pool->columns[c], x);
    if (counts)
      group_values (pool->group, pool, c)[counts[c]++] = x;
  }
  if (pool->failed || ++pool->group_frames < pool->block)
    return TRUE;

  /* a full block: to the file, and the RAM block is free again */
  if ((pool->fd < 0 && !open_spill_file (pool, error)) ||
      !write_all (pool, pool->group, pool->group_size,
          pool->groups_written * pool->group_size, error)) {
    give_up (pool);
    return FALSE;
  }
  pool->groups_written++;
  pool->group_frames = 0;
  memset (counts, 0, sizeof (guint32) * pool->n_columns);
  return TRUE;
}

/* Column @c of group @g (the RAM block when g == groups_written): *x and
 * *n; @buf holds `block` doubles. */
static gboolean
read_block (GstExactQualityPool * pool, guint c, guint64 g, gdouble * buf,
    const gdouble ** x, guint * n, GError ** error)
{
  guint64 base = g * pool->group_size;
  guint32 count;

  if (g == pool->groups_written) {
    *x = group_values (pool->group, pool, c);
    *n = group_counts (pool->group, pool)[c];
    return TRUE;
  }
  if (!read_all (pool, &count, sizeof (count), base + sizeof (gdouble) *
          pool->n_columns * pool->block + sizeof (guint32) * c, error))
    return FALSE;
  if (count > pool->block) {
    set_errno_error (error, EIO, "Inconsistent data in", pool->spill_path);
    return FALSE;
  }
  if (!read_all (pool, buf, sizeof (gdouble) * count, base +
          sizeof (gdouble) * pool->block * c, error))
    return FALSE;
  *x = buf;
  *n = count;
  return TRUE;
}

/* A key whose unsigned order is the order of the doubles, -0.0 == +0.0. */
static guint64
order_key (gdouble x)
{
  guint64 bits;

  if (x == 0.0)
    x = 0.0;
  memcpy (&bits, &x, sizeof (bits));
  return (bits & KEY_SIGN) ? ~bits : bits | KEY_SIGN;
}

static gdouble
key_value (guint64 key)
{
  guint64 bits = (key & KEY_SIGN) ? key & ~KEY_SIGN : ~key;
  gdouble x;

  memcpy (&x, &bits, sizeof (x));
  return x;
}

/* The statistics of column @c. FALSE (with @error) when the values could
 * not be read back: the running statistics are still filled in, without
 * the spread, and the pool keeps no values from then on. */
gboolean
gst_exact_quality_pool_stats (GstExactQualityPool * pool, guint c,
    GstExactQualityPoolStats * st, GError ** error)
{
  static const guint pct[N_PERCENTILES] = { 1, 5, 50 };
  const EqScorePool *col = &pool->columns[c];
  guint64 count = eq_score_pool_count (col);
  guint64 want[N_PERCENTILES], prefix[N_PERCENTILES] = { 0 }, mask = 0;
  guint64 hist[N_PERCENTILES][256], g, zeros = 0;
  gdouble result[N_PERCENTILES], sq = 0.0, *buf;
  gboolean need_zero = FALSE;
  guint pass, t, j;

  memset (st, 0, sizeof (*st));
  if (count == 0)
    return TRUE;
  st->n = count;
  st->mean = eq_score_pool_mean (col);
  st->harmonic_mean = eq_score_pool_harmonic_mean (col);
  st->min = eq_score_pool_min (col);
  st->max = eq_score_pool_max (col);
  if (pool->failed)
    return TRUE;

  /* nearest rank: sorted[ceil (k n / 100) - 1] */
  for (t = 0; t < N_PERCENTILES; t++) {
    guint64 rank = ((guint64) pct[t] * count + 99) / 100;

    want[t] = MAX (rank, 1) - 1;
  }
  buf = g_new (gdouble, pool->block);
  for (pass = 0; pass < 8; pass++) {
    guint shift = 56 - 8 * pass;

    memset (hist, 0, sizeof (hist));
    for (g = 0; g <= pool->groups_written; g++) {
      const gdouble *x;
      guint n;

      if (!read_block (pool, c, g, buf, &x, &n, error))
        goto failed;
      for (j = 0; j < n; j++) {
        guint64 key = order_key (x[j]);

        if (pass == 0) {
          /* the standard deviation's second pass, in frame order */
          gdouble d = x[j] - st->mean;
          gdouble d2 = d * d;

          sq += d2;
        }
        for (t = 0; t < N_PERCENTILES; t++)
          if ((key & mask) == prefix[t])
            hist[t][(key >> shift) & 0xff]++;
      }
    }
    /* the bucket that holds each rank; the rank within it */
    for (t = 0; t < N_PERCENTILES; t++) {
      guint b = 0;

      while (b < 255 && want[t] >= hist[t][b])
        want[t] -= hist[t][b++];
      prefix[t] |= (guint64) b << shift;
    }
    mask |= (guint64) 0xff << shift;
  }
  for (t = 0; t < N_PERCENTILES; t++) {
    result[t] = key_value (prefix[t]);
    need_zero |= prefix[t] == KEY_ZERO;
  }
  /* a zero: the want[t]-th zero in frame order (the stable sort's) */
  for (g = 0; need_zero && g <= pool->groups_written; g++) {
    const gdouble *x;
    guint n;

    if (!read_block (pool, c, g, buf, &x, &n, error))
      goto failed;
    for (j = 0; j < n; j++) {
      if (x[j] != 0.0)
        continue;
      for (t = 0; t < N_PERCENTILES; t++)
        if (prefix[t] == KEY_ZERO && want[t] == zeros)
          result[t] = x[j];
      zeros++;
    }
  }
  g_free (buf);
  st->stddev = sqrt (sq / count);
  st->p1 = result[0];
  st->p5 = result[1];
  st->p50 = result[2];
  st->have_spread = TRUE;
  return TRUE;

failed:
  g_free (buf);
  give_up (pool);
  return FALSE;
}
