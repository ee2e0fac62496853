/* GStreamer exactquality
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_EXACT_QUALITY_H__
#define __GST_EXACT_QUALITY_H__

#include <stdio.h>

#include <gst/gst.h>
#include <gst/base/gstaggregator.h>
#include <gst/video/video.h>
#include <exactquality.h>

G_BEGIN_DECLS

#define GST_TYPE_EXACT_QUALITY (gst_exact_quality_get_type ())
G_DECLARE_FINAL_TYPE (GstExactQuality, gst_exact_quality, GST, EXACT_QUALITY,
    GstAggregator);

typedef enum
{
  GST_EXACT_QUALITY_METRIC_PSNR = EQ_METRIC_PSNR,
  GST_EXACT_QUALITY_METRIC_SSIM = EQ_METRIC_SSIM,
  GST_EXACT_QUALITY_METRIC_MS_SSIM = EQ_METRIC_MS_SSIM,
  GST_EXACT_QUALITY_METRIC_SSIMULACRA2 = EQ_METRIC_SSIMULACRA2,
} GstExactQualityMetrics;

typedef enum
{
  GST_EXACT_QUALITY_BACKEND_AUTO = EQ_BACKEND_AUTO,
  GST_EXACT_QUALITY_BACKEND_CPU = EQ_BACKEND_CPU,
  GST_EXACT_QUALITY_BACKEND_CUDA = EQ_BACKEND_CUDA,
} GstExactQualityBackend;

typedef enum
{
  GST_EXACT_QUALITY_PAIRING_TIMESTAMP,
  GST_EXACT_QUALITY_PAIRING_SEQUENCE,
} GstExactQualityPairing;

typedef enum
{
  GST_EXACT_QUALITY_CROSS_CHECK_WARN,
  GST_EXACT_QUALITY_CROSS_CHECK_ERROR,
} GstExactQualityCrossCheckAction;

typedef enum
{
  GST_EXACT_QUALITY_LOG_CSV,
  GST_EXACT_QUALITY_LOG_JSONL,
} GstExactQualityLogFormat;

typedef enum
{
  GST_EXACT_QUALITY_MATRIX_AUTO = EQ_MATRIX_UNSPECIFIED,
  GST_EXACT_QUALITY_MATRIX_BT601 = EQ_MATRIX_BT601,
  GST_EXACT_QUALITY_MATRIX_BT709 = EQ_MATRIX_BT709,
  GST_EXACT_QUALITY_MATRIX_BT2020NC = EQ_MATRIX_BT2020NC,
} GstExactQualityMatrix;

typedef enum
{
  GST_EXACT_QUALITY_RANGE_AUTO = EQ_RANGE_UNSPECIFIED,
  GST_EXACT_QUALITY_RANGE_LIMITED = EQ_RANGE_LIMITED,
  GST_EXACT_QUALITY_RANGE_FULL = EQ_RANGE_FULL,
} GstExactQualityRange;

typedef struct _GstExactQualitySlot GstExactQualitySlot;
typedef struct _GstExactQualityJob GstExactQualityJob;
typedef struct _GstExactQualityPool GstExactQualityPool;

struct _GstExactQuality
{
  GstAggregator parent;

  GstAggregatorPad *ref_pad;
  GstAggregatorPad *dist_pad;

  /* properties (object lock) */
  guint metrics;
  GstExactQualityBackend backend;
  gint cuda_device_id;
  guint threads;
  guint cross_check_interval;
  GstExactQualityCrossCheckAction cross_check_action;
  gboolean post_messages;
  gchar *log_location;
  GstExactQualityLogFormat log_format;
  GstExactQualityMatrix matrix;
  GstExactQualityRange range;
  GstExactQualityPairing pairing;
  gint64 ts_offset;
  guint frames_in_flight;

  /* negotiated formats (object lock) */
  GstVideoInfo ref_info;
  GstVideoInfo dist_info;
  gboolean have_ref_info;
  gboolean have_dist_info;

  /* streaming state, from start() to stop() (src task) */
  GstExactQualitySlot *slots;   /* one scorer (+ cross-check scorer) per
                                   frame in flight */
  guint n_slots;
  GAsyncQueue *free_slots;
  GThreadPool *workers;
  GQueue pending;               /* GstExactQualityJob, in output order */
  GMutex jobs_lock;
  GCond jobs_cond;
  guint64 next_frame;           /* index of the next pair submitted */
  const gchar *backend_name;    /* "cpu" or "cuda" */
  guint run_metrics;
  guint run_cross_check_interval;
  GstExactQualityPairing run_pairing;
  gint64 run_ts_offset;
  FILE *log_file;
  GstExactQualityLogFormat run_log_format;
  gboolean summary_done;
  gboolean test_perturb;        /* GST_EXACT_QUALITY_TEST_PERTURB_CROSS_CHECK */
  guint warned_metrics;         /* metrics whose failure was already posted */

  guint64 frames;               /* pairs scored (the next frame index) */
  guint64 failed;               /* pairs where a metric failed */
  guint64 unpaired_ref;
  guint64 unpaired_dist;
  guint64 check_compared;
  guint64 check_identical;
  guint64 check_different;
  guint64 spill_errors;         /* the summary's temporary file failed */
  GstExactQualityPool *pool;    /* the summary's values (a column per
                                   value of run_metrics) */
  gint *pool_column;            /* value index -> column, or -1 */
  gdouble *pool_values;         /* one frame's values, by column */
  gboolean *pool_present;
};

GST_ELEMENT_REGISTER_DECLARE (exactquality);

G_END_DECLS

#endif /* __GST_EXACT_QUALITY_H__ */
