/* GStreamer exactquality: the summary's pooled statistics
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal to the element (not installed). One pool holds the values of a
 * run, in columns (one per published value), in bounded memory: mean,
 * harmonic mean, min and max are summed as the frames come; the values
 * themselves, needed by the two-pass standard deviation and the
 * percentiles, go to an anonymous temporary file in blocks of a fixed
 * number of frames, and are read back at summary time.
 */
#ifndef __GST_EXACT_QUALITY_POOL_H__
#define __GST_EXACT_QUALITY_POOL_H__

#include <glib.h>

G_BEGIN_DECLS

/* Frames per block when the element's test hook does not say otherwise:
 * a block is the RAM buffer, and the unit written to the file. */
#define GST_EXACT_QUALITY_POOL_DEFAULT_BLOCK 1024

typedef struct _GstExactQualityPool GstExactQualityPool;

typedef struct
{
  guint64 n;                    /* values pooled; 0: no statistics */
  gdouble mean, harmonic_mean, min, max;
  gboolean have_spread;         /* FALSE: stddev and percentiles unknown */
  gdouble stddev, p1, p5, p50;
} GstExactQualityPoolStats;

GstExactQualityPool *gst_exact_quality_pool_new (guint n_columns,
    guint block_frames, const gchar * spill_path);
void gst_exact_quality_pool_free (GstExactQualityPool * pool);

gboolean gst_exact_quality_pool_add_frame (GstExactQualityPool * pool,
    const gdouble * values, const gboolean * present, GError ** error);

gboolean gst_exact_quality_pool_stats (GstExactQualityPool * pool,
    guint column, GstExactQualityPoolStats * st, GError ** error);

gboolean gst_exact_quality_pool_spill_failed (const GstExactQualityPool *
    pool);
guint64 gst_exact_quality_pool_blocks_spilled (const GstExactQualityPool *
    pool);

/* tests only */
void gst_exact_quality_pool_fail_read (GstExactQualityPool * pool,
    guint64 nth);

G_END_DECLS

#endif /* __GST_EXACT_QUALITY_POOL_H__ */
