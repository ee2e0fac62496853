/* GStreamer exactquality
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-exactquality
 * @title: exactquality
 *
 * Scores a distorted video against its reference, frame by frame, with
 * PSNR, SSIM, MS-SSIM and SSIMULACRA2 from libexactquality: the CUDA
 * backend and the CPU reference return the same IEEE-754 bits.
 *
 * The reference goes to `ref_sink`, the distorted video to `dist_sink`. Each
 * distorted buffer leaves on `src` unchanged (no pixel copy), carrying a
 * #GstExactQualityMeta with its scores.
 *
 * ## Pairing
 * Frames are paired strictly one to one, never repeated, never dropped
 * silently. With `pairing=timestamp` (default) a reference and a distorted
 * frame pair when their running times (the distorted one plus `ts-offset`)
 * differ by less than half a frame duration (the distorted buffer's
 * duration, else the reference's, else 1/framerate of the distorted caps;
 * without any, only equal running times pair). The earlier of two frames that
 * do not pair is *unpaired*: a reference frame is discarded, a distorted frame
 * is pushed downstream without meta. Frames without a timestamp (no PTS):
 * when neither head frame has one, the two pair in the order they came;
 * a frame without one facing a frame with one is unpaired
 * (`no-timestamp`). With `pairing=sequence` the n-th
 * reference frame pairs with the n-th distorted frame. When one pad ends
 * first, the other pad's remaining frames are unpaired. In a live pipeline a
 * frame whose partner has not arrived when the aggregator times out (its
 * latency, see #GstAggregator:latency) is unpaired too. Every unpaired frame
 * is counted, logged at INFO and reported with an `exactquality-unpaired`
 * message.
 *
 * ## Latency
 * The element adds |ts-offset| to the latency it reports (on top of the
 * aggregator's `latency` property): a shifted partner arrives that much later.
 *
 * ## Messages
 * With `post-messages=true` (default), element messages from the element:
 *
 * `exactquality`, one per scored pair:
 *
 * * `frame` (G_TYPE_UINT64): index of the pair, from 0.
 * * `timestamp` (G_TYPE_UINT64): PTS of the scored distorted buffer
 *   (GST_CLOCK_TIME_NONE when it has none).
 * * `stream-time` (G_TYPE_UINT64): its stream time.
 * * `running-time` (G_TYPE_UINT64): its running time (without ts-offset).
 * * `duration` (G_TYPE_UINT64): its duration.
 * * `ref-running-time` (G_TYPE_UINT64): running time of the reference frame
 *   it was paired with.
 * * `backend` (G_TYPE_STRING): "cpu" or "cuda", the backend that scored it.
 * * one G_TYPE_DOUBLE per value present, named by the library's value nick:
 *   `psnr-y`, `psnr-cb`, `psnr-cr` (psnr), `ssim`, `ssim-l`, `ssim-c`,
 *   `ssim-s` (ssim), `ms-ssim`, `ms-ssim-l-scale0` ... `ms-ssim-s-scale4`
 *   (ms-ssim), `ssimulacra2`. The values are the library's, bit for bit
 *   (eq_scorer_score()). A metric that failed on this pair has no fields.
 *
 * `exactquality-unpaired`, one per unpaired frame:
 *
 * * `pad` (G_TYPE_STRING): "ref_sink" or "dist_sink".
 * * `timestamp`, `running-time` (G_TYPE_UINT64): the frame's PTS and running
 *   time (ts-offset included for the distorted pad).
 * * `reason` (G_TYPE_STRING): "no-partner", "other-pad-ended", "timeout",
 *   "outside-segment" (a PTS outside the segment) or "no-timestamp" (no PTS,
 *   while the other pad's frame has one).
 *
 * `exactquality-summary`, once, when both pads have ended (also when the
 * element stops before that):
 *
 * * `frames` (G_TYPE_UINT64): pairs scored (including failed ones).
 * * `failed` (G_TYPE_UINT64): pairs where at least one metric failed.
 * * `unpaired`, `unpaired-ref`, `unpaired-dist` (G_TYPE_UINT64): frames left
 *   without a partner, in all and per pad.
 * * `backend` (G_TYPE_STRING).
 * * `cross-check-compared`, `cross-check-identical`,
 *   `cross-check-different` (G_TYPE_UINT64).
 * * `spill-errors` (G_TYPE_UINT64): 0, or 1 when the summary's temporary
 *   file (below) could not be created, written or read.
 * * for each value nick N present in at least one frame, G_TYPE_DOUBLE
 *   fields `N-mean`, `N-harmonic-mean`, `N-min`, `N-max`, `N-stddev`,
 *   `N-p1`, `N-p5`, `N-p50`, pooled over the pairs where the value is
 *   present. Mean: sum in frame order / n. Harmonic mean as libvmaf 3.2.0
 *   (libvmaf/src/libvmaf.c, vmaf_feature_score_pooled): n / sum (1 / (x + 1))
 *   - 1. Standard deviation: population, sqrt (sum ((x - mean)^2) / n).
 *   Percentiles: nearest rank on the sorted values, Pk = sorted[ceil (k n /
 *   100) - 1] (no interpolation, always one of the scores; -0.0 and +0.0
 *   are equal and keep their frame order).
 *
 * Memory stays bounded however long the run: the standard deviation and
 * the percentiles need every value, which the element keeps in RAM for
 * 1024 pairs at a time and then in an anonymous temporary file in
 * g_get_tmp_dir () (TMPDIR): 8 bytes per value per pair, 192 bytes per
 * pair with all metrics. When that file fails (a full disk), a
 * GST_ELEMENT_WARNING says so, `spill-errors` counts it, and the summary
 * has no `N-stddev`, `N-p1`, `N-p5`, `N-p50` (`nan` in the CSV log, null
 * in the JSON-lines log).
 *
 * ## Log
 * `log-location` writes one record per pair and the summary last.
 * `log-format=csv`: the CLI's columns, `frame` then the library's value
 * names (psnr_y, psnr_cb, psnr_cr, float_ssim, ...) of the requested
 * metrics with `%.17g` (an absent value is `nan`, as in the CLI); then one row per
 * statistic with `frame` = mean, harmonic_mean, min, max, stddev, p1, p5, p50;
 * then a last line `# summary frames=... failed=... unpaired=...`.
 * `log-format=jsonl`: one JSON object per pair (`frame`, `timestamp`,
 * `stream_time`, `running_time`, `duration`, `backend` and every requested
 * value by library name; absent or non-finite values as null), and last
 * `{"summary": {...}}` with the counts and `pooled` statistics.
 *
 * ## Cross-check
 * `cross-check-interval=N` scores frames 0, N, 2N, ... a second time with
 * a CPU scorer and compares every value's bits with the backend's. A
 * difference posts a GST_ELEMENT_WARNING (or an error with
 * `cross-check-action=error`) and is counted in the summary. Test hook (for
 * tests only): the environment variable
 * `GST_EXACT_QUALITY_TEST_PERTURB_CROSS_CHECK=1`, read when the element starts,
 * flips the lowest bit of the first value of every cross-check result.
 *
 * ## Formats
 * GRAY8, GRAY16_LE, I420, I420_10LE, I420_12LE, Y42B, I422_10LE, I422_12LE,
 * Y444, Y444_10LE, Y444_12LE, Y444_16LE, NV12, P010_10LE, P012_LE, P016_LE;
 * RGB, RGBx, BGRx and RGBA for `metrics=ssimulacra2` only. Both inputs must
 * have the same format and size (add videoconvert and videoscale otherwise).
 * Interlaced input is refused. Caps may change mid-stream.
 *
 * ## Threads
 * Each pair is scored in a worker thread; `frames-in-flight=N` scores up to
 * N pairs at once, each with its own scorer. Output order, frame numbers,
 * values, messages and log are those of N = 1; with N > 1 a scored buffer
 * can wait for the next input before it is pushed. A flush drops the pairs
 * in flight.
 *
 * ## Output buffers
 * The distorted buffer is pushed as it came in. To add the meta it must be
 * writable: when upstream still holds a reference (a tee, say),
 * gst_buffer_make_writable() makes a new #GstBuffer that shares the same
 * memory — metadata is copied, pixels are not.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m exactquality name=eq ! fakesink \
 *   videotestsrc num-buffers=10 ! video/x-raw,format=I420,width=320,height=240 ! tee name=t \
 *   t. ! queue ! eq.ref_sink \
 *   t. ! queue ! videobalance saturation=0.5 ! eq.dist_sink
 * ]| Scores ten frames against a desaturated copy; each `exactquality`
 * message on the bus carries one frame's scores, `exactquality-summary` the
 * pooled ones.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gstexactquality.h"
#include "gstexactqualitymeta.h"
#include "gstexactqualitypool.h"

GST_DEBUG_CATEGORY_STATIC (gst_exact_quality_debug);
#define GST_CAT_DEFAULT gst_exact_quality_debug

#define DEFAULT_METRICS EQ_METRIC_ALL
#define DEFAULT_BACKEND GST_EXACT_QUALITY_BACKEND_AUTO
#define DEFAULT_CUDA_DEVICE_ID 0
#define DEFAULT_THREADS 0
#define DEFAULT_CROSS_CHECK_INTERVAL 0
#define DEFAULT_CROSS_CHECK_ACTION GST_EXACT_QUALITY_CROSS_CHECK_WARN
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_LOG_LOCATION NULL
#define DEFAULT_LOG_FORMAT GST_EXACT_QUALITY_LOG_CSV
#define DEFAULT_MATRIX GST_EXACT_QUALITY_MATRIX_AUTO
#define DEFAULT_RANGE GST_EXACT_QUALITY_RANGE_AUTO
#define DEFAULT_PAIRING GST_EXACT_QUALITY_PAIRING_TIMESTAMP
#define DEFAULT_TS_OFFSET 0
#define DEFAULT_FRAMES_IN_FLIGHT 1

#define TEST_PERTURB_ENV "GST_EXACT_QUALITY_TEST_PERTURB_CROSS_CHECK"
#define TEST_SUMMARY_BLOCK_ENV "GST_EXACT_QUALITY_TEST_SUMMARY_BLOCK"
#define TEST_SUMMARY_SPILL_PATH_ENV "GST_EXACT_QUALITY_TEST_SUMMARY_SPILL_PATH"
#define TEST_SUMMARY_FAIL_READ_ENV "GST_EXACT_QUALITY_TEST_SUMMARY_FAIL_READ"

enum
{
  PROP_0,
  PROP_METRICS,
  PROP_BACKEND,
  PROP_CUDA_DEVICE_ID,
  PROP_THREADS,
  PROP_CROSS_CHECK_INTERVAL,
  PROP_CROSS_CHECK_ACTION,
  PROP_POST_MESSAGES,
  PROP_LOG_LOCATION,
  PROP_LOG_FORMAT,
  PROP_SSIMULACRA2_MATRIX,
  PROP_SSIMULACRA2_RANGE,
  PROP_PAIRING,
  PROP_TS_OFFSET,
  PROP_FRAMES_IN_FLIGHT,
};

#define FORMATS "{ GRAY8, GRAY16_LE, I420, I420_10LE, I420_12LE, Y42B, " \
    "I422_10LE, I422_12LE, Y444, Y444_10LE, Y444_12LE, Y444_16LE, NV12, " \
    "P010_10LE, P012_LE, P016_LE, RGB, RGBx, BGRx, RGBA }"

static GstStaticPadTemplate ref_sink_template =
GST_STATIC_PAD_TEMPLATE ("ref_sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (FORMATS)));

static GstStaticPadTemplate dist_sink_template =
GST_STATIC_PAD_TEMPLATE ("dist_sink",
    GST_PAD_SINK,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (FORMATS)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC,
    GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (FORMATS)));

/* ------------------------------------------------------------ enum types */

#define GST_TYPE_EXACT_QUALITY_METRICS (gst_exact_quality_metrics_get_type ())
static GType
gst_exact_quality_metrics_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {GST_EXACT_QUALITY_METRIC_PSNR, "PSNR of Y, Cb, Cr (libvmaf psnr)", "psnr"},
    {GST_EXACT_QUALITY_METRIC_SSIM, "SSIM (libvmaf float_ssim)", "ssim"},
    {GST_EXACT_QUALITY_METRIC_MS_SSIM, "MS-SSIM (libvmaf float_ms_ssim)",
        "ms-ssim"},
    {GST_EXACT_QUALITY_METRIC_SSIMULACRA2, "SSIMULACRA 2.1 (libjxl)",
        "ssimulacra2"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstExactQualityMetrics", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_EXACT_QUALITY_BACKEND (gst_exact_quality_backend_get_type ())
static GType
gst_exact_quality_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_EXACT_QUALITY_BACKEND_AUTO,
        "CUDA when a device opens, else the CPU", "auto"},
    {GST_EXACT_QUALITY_BACKEND_CPU, "The CPU reference", "cpu"},
    {GST_EXACT_QUALITY_BACKEND_CUDA,
        "CUDA; the element fails to start without a device", "cuda"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstExactQualityBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_EXACT_QUALITY_PAIRING (gst_exact_quality_pairing_get_type ())
static GType
gst_exact_quality_pairing_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_EXACT_QUALITY_PAIRING_TIMESTAMP,
        "Pair frames whose running times differ by less than half a frame "
          "(two frames without timestamps: in arrival order)",
        "timestamp"},
    {GST_EXACT_QUALITY_PAIRING_SEQUENCE,
        "Pair the n-th reference frame with the n-th distorted frame",
        "sequence"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstExactQualityPairing", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_EXACT_QUALITY_CROSS_CHECK_ACTION \
    (gst_exact_quality_cross_check_action_get_type ())
static GType
gst_exact_quality_cross_check_action_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_EXACT_QUALITY_CROSS_CHECK_WARN,
        "Post a warning and continue", "warn"},
    {GST_EXACT_QUALITY_CROSS_CHECK_ERROR,
        "Post an error and stop", "error"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstExactQualityCrossCheckAction",
        values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_EXACT_QUALITY_LOG_FORMAT \
    (gst_exact_quality_log_format_get_type ())
static GType
gst_exact_quality_log_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_EXACT_QUALITY_LOG_CSV, "CSV with the CLI's columns", "csv"},
    {GST_EXACT_QUALITY_LOG_JSONL, "One JSON object per line", "jsonl"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstExactQualityLogFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_EXACT_QUALITY_MATRIX (gst_exact_quality_matrix_get_type ())
static GType
gst_exact_quality_matrix_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_EXACT_QUALITY_MATRIX_AUTO,
        "From the caps colorimetry (BT.709 when unknown)", "auto"},
    {GST_EXACT_QUALITY_MATRIX_BT601, "BT.601", "bt601"},
    {GST_EXACT_QUALITY_MATRIX_BT709, "BT.709", "bt709"},
    {GST_EXACT_QUALITY_MATRIX_BT2020NC, "BT.2020 non-constant luminance",
        "bt2020nc"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstExactQualityMatrix", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_EXACT_QUALITY_RANGE (gst_exact_quality_range_get_type ())
static GType
gst_exact_quality_range_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_EXACT_QUALITY_RANGE_AUTO,
          "From the caps colorimetry (limited for YUV, full for RGB when unknown)",
        "auto"},
    {GST_EXACT_QUALITY_RANGE_LIMITED, "Limited (16-235)", "limited"},
    {GST_EXACT_QUALITY_RANGE_FULL, "Full (0-255)", "full"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstExactQualityRange", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* ---------------------------------------------------------------- type */

#define gst_exact_quality_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstExactQuality, gst_exact_quality,
    GST_TYPE_AGGREGATOR,
    GST_DEBUG_CATEGORY_INIT (gst_exact_quality_debug, "exactquality", 0,
        "exactquality element"));
GST_ELEMENT_REGISTER_DEFINE (exactquality, "exactquality", GST_RANK_NONE,
    GST_TYPE_EXACT_QUALITY);

static void gst_exact_quality_finalize (GObject * object);
static void gst_exact_quality_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_exact_quality_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_exact_quality_start (GstAggregator * agg);
static gboolean gst_exact_quality_stop (GstAggregator * agg);
static GstFlowReturn gst_exact_quality_flush (GstAggregator * agg);
static gboolean gst_exact_quality_sink_event (GstAggregator * agg,
    GstAggregatorPad * pad, GstEvent * event);
static GstFlowReturn gst_exact_quality_update_src_caps (GstAggregator * agg,
    GstCaps * caps, GstCaps ** ret);
static GstFlowReturn gst_exact_quality_aggregate (GstAggregator * agg,
    gboolean timeout);

static void
gst_exact_quality_class_init (GstExactQualityClass * klass)
{
  GObjectClass *gobject_class = (GObjectClass *) klass;
  GstElementClass *element_class = (GstElementClass *) klass;
  GstAggregatorClass *agg_class = (GstAggregatorClass *) klass;

  gobject_class->finalize = gst_exact_quality_finalize;
  gobject_class->set_property = gst_exact_quality_set_property;
  gobject_class->get_property = gst_exact_quality_get_property;

  g_object_class_install_property (gobject_class, PROP_METRICS,
      g_param_spec_flags ("metrics", "Metrics", "Metrics to compute",
          GST_TYPE_EXACT_QUALITY_METRICS, DEFAULT_METRICS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where to score; the backend in use is named in the log, the "
          "messages and the meta", GST_TYPE_EXACT_QUALITY_BACKEND,
          DEFAULT_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use with backend=cuda or auto", 0, G_MAXINT,
          DEFAULT_CUDA_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads",
          "Worker threads of the CPU backend (0 = one per core)", 0, 1024,
          DEFAULT_THREADS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CROSS_CHECK_INTERVAL,
      g_param_spec_uint ("cross-check-interval", "Cross-check interval",
          "Score frames 0, N, 2N, ... again with a CPU scorer and compare "
          "the bits (0 = off)", 0, G_MAXUINT, DEFAULT_CROSS_CHECK_INTERVAL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CROSS_CHECK_ACTION,
      g_param_spec_enum ("cross-check-action", "Cross-check action",
          "What a cross-check difference does",
          GST_TYPE_EXACT_QUALITY_CROSS_CHECK_ACTION,
          DEFAULT_CROSS_CHECK_ACTION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post element messages: 'exactquality' per pair (frame, timestamp, "
          "stream-time, running-time, duration, ref-running-time: guint64; "
          "backend: string; one gdouble per value nick), "
          "'exactquality-unpaired' per unpaired frame, "
          "'exactquality-summary' at the end", DEFAULT_POST_MESSAGES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_LOG_LOCATION,
      g_param_spec_string ("log-location", "Log location",
          "File to write per-frame scores and the summary to (NULL = none)",
          DEFAULT_LOG_LOCATION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_LOG_FORMAT,
      g_param_spec_enum ("log-format", "Log format", "Format of the log file",
          GST_TYPE_EXACT_QUALITY_LOG_FORMAT, DEFAULT_LOG_FORMAT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SSIMULACRA2_MATRIX,
      g_param_spec_enum ("ssimulacra2-matrix", "SSIMULACRA2 matrix",
          "YUV to RGB matrix for SSIMULACRA2", GST_TYPE_EXACT_QUALITY_MATRIX,
          DEFAULT_MATRIX,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SSIMULACRA2_RANGE,
      g_param_spec_enum ("ssimulacra2-range", "SSIMULACRA2 range",
          "Sample range for SSIMULACRA2", GST_TYPE_EXACT_QUALITY_RANGE,
          DEFAULT_RANGE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PAIRING,
      g_param_spec_enum ("pairing", "Pairing",
          "How reference and distorted frames are paired",
          GST_TYPE_EXACT_QUALITY_PAIRING, DEFAULT_PAIRING,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_TS_OFFSET,
      g_param_spec_int64 ("ts-offset", "Timestamp offset",
          "Nanoseconds added to the distorted stream's running time before "
          "pairing (pairing=timestamp)", G_MININT64, G_MAXINT64,
          DEFAULT_TS_OFFSET,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  g_object_class_install_property (gobject_class, PROP_FRAMES_IN_FLIGHT,
      g_param_spec_uint ("frames-in-flight", "Frames in flight",
          "Pairs scored at the same time, each by its own scorer in its own "
          "thread; output order, values and messages are unchanged (1 = "
          "score each pair before taking the next)", 1, 64,
          DEFAULT_FRAMES_IN_FLIGHT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &ref_sink_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &dist_sink_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &src_template, GST_TYPE_AGGREGATOR_PAD);

  gst_element_class_set_static_metadata (element_class,
      "Exact video quality", "Filter/Analyzer/Video",
      "Scores the video on dist_sink against the reference on ref_sink with "
      "PSNR, SSIM, MS-SSIM and SSIMULACRA2 (CUDA or CPU, the same bits on "
      "both). Outputs the distorted buffers with a GstExactQualityMeta "
      "(API GstExactQualityMetaAPI; GstStructure view: custom meta "
      "GstExactQualityStructureMeta) and posts element messages "
      "'exactquality', 'exactquality-unpaired' and 'exactquality-summary'",
      "exactquality developers");
  /* gst-inspect-1.0 prints every metadata key: what users parse. */
  gst_element_class_add_static_metadata (element_class, "messages",
      "'exactquality' per pair: frame, timestamp, stream-time, running-time, "
      "duration, ref-running-time (guint64, of the scored distorted buffer), "
      "backend (string), one gdouble per value nick present (psnr-y, psnr-cb, "
      "psnr-cr, ssim, ms-ssim, ssimulacra2, ssim-l, ssim-c, ssim-s, "
      "ms-ssim-{l,c,s}-scale0..4). 'exactquality-unpaired' per unpaired "
      "frame: pad, reason (string), timestamp, running-time (guint64). "
      "'exactquality-summary' at the end: frames, failed, unpaired, "
      "unpaired-ref, unpaired-dist, cross-check-compared, "
      "cross-check-identical, cross-check-different, spill-errors "
      "(guint64), backend (string), and per value nick N: N-mean, "
      "N-harmonic-mean, N-min, N-max, N-stddev, N-p1, N-p5, N-p50 (gdouble; "
      "nearest-rank percentiles; stddev and percentiles absent when the "
      "summary's temporary file failed, spill-errors 1)");
  gst_element_class_add_static_metadata (element_class, "meta",
      "GstExactQualityMeta (API GstExactQualityMetaAPI, no tags, copied with "
      "the buffer): frame (guint64), backend (string), ref_running_time, "
      "scores (EqScores); header gst/exactquality/gstexactqualitymeta.h, "
      "gst_buffer_get_exact_quality_meta(), "
      "gst_exact_quality_meta_to_structure(). Python and other bindings: "
      "typelib GstExactQuality-1.0 "
      "(GstExactQuality.buffer_get_exact_quality_meta(buf), "
      "meta.get_nth_value(i), meta.get_value(nick)); without it, the same "
      "values as a GstStructure in the custom meta "
      "'GstExactQualityStructureMeta'");

  agg_class->start = GST_DEBUG_FUNCPTR (gst_exact_quality_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_exact_quality_stop);
  agg_class->flush = GST_DEBUG_FUNCPTR (gst_exact_quality_flush);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_exact_quality_sink_event);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (gst_exact_quality_update_src_caps);
  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_exact_quality_aggregate);
  agg_class->get_next_time = gst_aggregator_simple_get_next_time;

  gst_type_mark_as_plugin_api (GST_TYPE_EXACT_QUALITY_METRICS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_EXACT_QUALITY_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_EXACT_QUALITY_PAIRING, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_EXACT_QUALITY_CROSS_CHECK_ACTION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_EXACT_QUALITY_LOG_FORMAT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_EXACT_QUALITY_MATRIX, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_EXACT_QUALITY_RANGE, 0);
}

static GstAggregatorPad *
make_sink_pad (GstExactQuality * self, GstStaticPadTemplate * st)
{
  GstPadTemplate *templ = gst_static_pad_template_get (st);
  GstAggregatorPad *pad = g_object_new (GST_TYPE_AGGREGATOR_PAD,
      "name", st->name_template, "direction", GST_PAD_SINK,
      "template", templ, NULL);

  gst_object_unref (templ);
  gst_element_add_pad (GST_ELEMENT (self), GST_PAD (pad));
  return pad;
}

static void
gst_exact_quality_init (GstExactQuality * self)
{
  self->metrics = DEFAULT_METRICS;
  self->backend = DEFAULT_BACKEND;
  self->cuda_device_id = DEFAULT_CUDA_DEVICE_ID;
  self->threads = DEFAULT_THREADS;
  self->cross_check_interval = DEFAULT_CROSS_CHECK_INTERVAL;
  self->cross_check_action = DEFAULT_CROSS_CHECK_ACTION;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->log_location = g_strdup (DEFAULT_LOG_LOCATION);
  self->log_format = DEFAULT_LOG_FORMAT;
  self->matrix = DEFAULT_MATRIX;
  self->range = DEFAULT_RANGE;
  self->pairing = DEFAULT_PAIRING;
  self->ts_offset = DEFAULT_TS_OFFSET;
  self->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  self->backend_name = "cpu";
  g_queue_init (&self->pending);
  g_mutex_init (&self->jobs_lock);
  g_cond_init (&self->jobs_cond);

  self->ref_pad = make_sink_pad (self, &ref_sink_template);
  self->dist_pad = make_sink_pad (self, &dist_sink_template);
}

static void
gst_exact_quality_finalize (GObject * object)
{
  GstExactQuality *self = GST_EXACT_QUALITY (object);

  g_free (self->log_location);
  g_mutex_clear (&self->jobs_lock);
  g_cond_clear (&self->jobs_cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ---------------------------------------------------------- properties */

static void
gst_exact_quality_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstExactQuality *self = GST_EXACT_QUALITY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_METRICS:
      self->metrics = g_value_get_flags (value);
      break;
    case PROP_BACKEND:
      self->backend = g_value_get_enum (value);
      break;
    case PROP_CUDA_DEVICE_ID:
      self->cuda_device_id = g_value_get_int (value);
      break;
    case PROP_THREADS:
      self->threads = g_value_get_uint (value);
      break;
    case PROP_CROSS_CHECK_INTERVAL:
      self->cross_check_interval = g_value_get_uint (value);
      break;
    case PROP_CROSS_CHECK_ACTION:
      self->cross_check_action = g_value_get_enum (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_LOG_LOCATION:
      g_free (self->log_location);
      self->log_location = g_value_dup_string (value);
      break;
    case PROP_LOG_FORMAT:
      self->log_format = g_value_get_enum (value);
      break;
    case PROP_SSIMULACRA2_MATRIX:
      self->matrix = g_value_get_enum (value);
      break;
    case PROP_SSIMULACRA2_RANGE:
      self->range = g_value_get_enum (value);
      break;
    case PROP_PAIRING:
      self->pairing = g_value_get_enum (value);
      break;
    case PROP_TS_OFFSET:{
      GstClockTime lat;

      self->ts_offset = g_value_get_int64 (value);
      lat = self->ts_offset < 0 ? (GstClockTime) - self->ts_offset :
          (GstClockTime) self->ts_offset;
      GST_OBJECT_UNLOCK (self);
      /* a partner shifted by ts-offset arrives that much later */
      gst_aggregator_set_latency (GST_AGGREGATOR (self), lat, lat);
      return;
    }
    case PROP_FRAMES_IN_FLIGHT:
      self->frames_in_flight = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_exact_quality_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstExactQuality *self = GST_EXACT_QUALITY (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_METRICS:
      g_value_set_flags (value, self->metrics);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, self->backend);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, self->cuda_device_id);
      break;
    case PROP_THREADS:
      g_value_set_uint (value, self->threads);
      break;
    case PROP_CROSS_CHECK_INTERVAL:
      g_value_set_uint (value, self->cross_check_interval);
      break;
    case PROP_CROSS_CHECK_ACTION:
      g_value_set_enum (value, self->cross_check_action);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_LOG_LOCATION:
      g_value_set_string (value, self->log_location);
      break;
    case PROP_LOG_FORMAT:
      g_value_set_enum (value, self->log_format);
      break;
    case PROP_SSIMULACRA2_MATRIX:
      g_value_set_enum (value, self->matrix);
      break;
    case PROP_SSIMULACRA2_RANGE:
      g_value_set_enum (value, self->range);
      break;
    case PROP_PAIRING:
      g_value_set_enum (value, self->pairing);
      break;
    case PROP_TS_OFFSET:
      g_value_set_int64 (value, self->ts_offset);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      g_value_set_uint (value, self->frames_in_flight);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ------------------------------------------------------------- helpers */

/* A scorer and its cross-check scorer, used by one thread at a time. */
struct _GstExactQualitySlot
{
  GstExactQuality *self;
  EqScorer *scorer;
  EqScorer *check_scorer;       /* CPU scorer of the cross-check, or NULL */
  gchar last_error[512];        /* last error sentence from the library */
};

/* One distorted buffer on its way out: a pair being scored by a worker, or
 * an unpaired distorted buffer that passes through (in output order). */
struct _GstExactQualityJob
{
  gboolean scored;              /* FALSE: unpaired, goes out without meta */
  GstBuffer *ref_buf;
  GstBuffer *dist_buf;
  GstVideoInfo ref_info;
  GstVideoInfo dist_info;
  GstClockTime ref_rt;
  guint64 frame;
  gboolean do_check;
  gboolean map_failed;
  gint err;
  gint check_err;
  EqBackend backend;            /* the backend that scored this pair */
  EqScores scores;
  EqScores check;
  gchar last_error[512];
  gboolean done;                /* jobs_lock */
};

/* The library's log goes to the element's debug category. */
static void
gst_exact_quality_lib_log (void *user, EqLogLevel level, const char *message)
{
  GstExactQualitySlot *slot = user;
  GstExactQuality *self = slot->self;

  switch (level) {
    case EQ_LOG_ERROR:
      GST_ERROR_OBJECT (self, "%s", message);
      g_strlcpy (slot->last_error, message, sizeof (slot->last_error));
      break;
    case EQ_LOG_WARNING:
      GST_WARNING_OBJECT (self, "%s", message);
      break;
    case EQ_LOG_INFO:
      GST_INFO_OBJECT (self, "%s", message);
      break;
    default:
      GST_DEBUG_OBJECT (self, "%s", message);
      break;
  }
}

static const struct
{
  GstVideoFormat format;
  EqLayout layout;
} format_table[] = {
  {GST_VIDEO_FORMAT_GRAY8, EQ_LAYOUT_GRAY},
  {GST_VIDEO_FORMAT_GRAY16_LE, EQ_LAYOUT_GRAY},
  {GST_VIDEO_FORMAT_I420, EQ_LAYOUT_YUV420P},
  {GST_VIDEO_FORMAT_I420_10LE, EQ_LAYOUT_YUV420P},
  {GST_VIDEO_FORMAT_I420_12LE, EQ_LAYOUT_YUV420P},
  {GST_VIDEO_FORMAT_Y42B, EQ_LAYOUT_YUV422P},
  {GST_VIDEO_FORMAT_I422_10LE, EQ_LAYOUT_YUV422P},
  {GST_VIDEO_FORMAT_I422_12LE, EQ_LAYOUT_YUV422P},
  {GST_VIDEO_FORMAT_Y444, EQ_LAYOUT_YUV444P},
  {GST_VIDEO_FORMAT_Y444_10LE, EQ_LAYOUT_YUV444P},
  {GST_VIDEO_FORMAT_Y444_12LE, EQ_LAYOUT_YUV444P},
  {GST_VIDEO_FORMAT_Y444_16LE, EQ_LAYOUT_YUV444P},
  {GST_VIDEO_FORMAT_NV12, EQ_LAYOUT_NV12},
  {GST_VIDEO_FORMAT_P010_10LE, EQ_LAYOUT_NV12},
  {GST_VIDEO_FORMAT_P012_LE, EQ_LAYOUT_NV12},
  {GST_VIDEO_FORMAT_P016_LE, EQ_LAYOUT_NV12},
  {GST_VIDEO_FORMAT_RGB, EQ_LAYOUT_RGB},
  {GST_VIDEO_FORMAT_RGBx, EQ_LAYOUT_RGBX},
  {GST_VIDEO_FORMAT_BGRx, EQ_LAYOUT_BGRX},
  {GST_VIDEO_FORMAT_RGBA, EQ_LAYOUT_RGBA},
};

static gboolean
layout_of (GstVideoFormat format, EqLayout * layout)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (format_table); i++) {
    if (format_table[i].format == format) {
      *layout = format_table[i].layout;
      return TRUE;
    }
  }
  return FALSE;
}

/* A mapped GstVideoFrame as the library's EqFrame (no copy). */
static gboolean
fill_eq_frame (const GstVideoFrame * vf, EqFrame * f)
{
  const GstVideoInfo *info = &vf->info;
  const GstVideoFormatInfo *finfo = info->finfo;
  guint i;

  memset (f, 0, sizeof (*f));
  if (!layout_of (GST_VIDEO_INFO_FORMAT (info), &f->layout))
    return FALSE;
  f->width = GST_VIDEO_INFO_WIDTH (info);
  f->height = GST_VIDEO_INFO_HEIGHT (info);
  f->bitdepth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
  /* P010/P012: value in the high bits of each 16-bit word */
  f->msb_aligned = f->bitdepth > 8 && GST_VIDEO_FORMAT_INFO_SHIFT (finfo, 0);

  switch (info->colorimetry.matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT601:
      f->matrix = EQ_MATRIX_BT601;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT709:
      f->matrix = EQ_MATRIX_BT709;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT2020:
      f->matrix = EQ_MATRIX_BT2020NC;
      break;
    default:
      f->matrix = EQ_MATRIX_UNSPECIFIED;
      break;
  }
  switch (info->colorimetry.range) {
    case GST_VIDEO_COLOR_RANGE_0_255:
      f->range = EQ_RANGE_FULL;
      break;
    case GST_VIDEO_COLOR_RANGE_16_235:
      f->range = EQ_RANGE_LIMITED;
      break;
    default:
      f->range = EQ_RANGE_UNSPECIFIED;
      break;
  }
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (vf) && i < 3; i++) {
    f->data[i] = GST_VIDEO_FRAME_PLANE_DATA (vf, i);
    f->stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (vf, i);
  }
  return TRUE;
}

static void
post_structure (GstExactQuality * self, GstStructure * s)
{
  gboolean post;

  GST_OBJECT_LOCK (self);
  post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  if (post)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), s));
  else
    gst_structure_free (s);
}

/* JSON has no NaN or infinity. */
static void
json_double (FILE * f, double v)
{
  if (isfinite (v))
    fprintf (f, "%.17g", v);
  else
    fputs ("null", f);
}

static void
json_time (FILE * f, GstClockTime t)
{
  if (GST_CLOCK_TIME_IS_VALID (t))
    fprintf (f, "%" G_GUINT64_FORMAT, (guint64) t);
  else
    fputs ("null", f);
}

static void
write_log_header (GstExactQuality * self)
{
  gint i;

  if (!self->log_file || self->run_log_format != GST_EXACT_QUALITY_LOG_CSV)
    return;
  fputs ("frame", self->log_file);
  for (i = 0; i < eq_value_count (); i++)
    if (eq_value_info (i)->metric & self->run_metrics)
      fprintf (self->log_file, ",%s", eq_value_info (i)->name);
  fputc ('\n', self->log_file);
}

static void
write_log_frame (GstExactQuality * self, guint64 frame, GstClockTime pts,
    GstClockTime stream_time, GstClockTime running_time,
    GstClockTime duration, const EqScores * scores)
{
  FILE *f = self->log_file;
  gint i;

  if (!f)
    return;
  if (self->run_log_format == GST_EXACT_QUALITY_LOG_CSV) {
    fprintf (f, "%" G_GUINT64_FORMAT, frame);
    for (i = 0; i < eq_value_count (); i++) {
      if (!(eq_value_info (i)->metric & self->run_metrics))
        continue;
      fputc (',', f);
      /* as the CLI: an absent value is nan */
      if (eq_value_present (scores, i))
        fprintf (f, "%.17g", eq_value_get (scores, i));
      else
        fputs ("nan", f);
    }
    fputc ('\n', f);
    return;
  }
  fprintf (f, "{\"frame\": %" G_GUINT64_FORMAT ", \"timestamp\": ", frame);
  json_time (f, pts);
  fputs (", \"stream_time\": ", f);
  json_time (f, stream_time);
  fputs (", \"running_time\": ", f);
  json_time (f, running_time);
  fputs (", \"duration\": ", f);
  json_time (f, duration);
  fprintf (f, ", \"backend\": \"%s\"", self->backend_name);
  /* as the CLI: every requested value, an absent one as null */
  for (i = 0; i < eq_value_count (); i++) {
    if (!(eq_value_info (i)->metric & self->run_metrics))
      continue;
    fprintf (f, ", \"%s\": ", eq_value_info (i)->name);
    json_double (f, eq_value_get (scores, i));
  }
  fputs ("}\n", f);
}

/* ------------------------------------------------------------- summary */

typedef GstExactQualityPoolStats PoolStats;

static const struct
{
  const gchar *field;           /* message suffix */
  const gchar *key;             /* log key */
  gsize offset;
  gboolean spread;              /* needs the values (the temporary file) */
} stat_fields[] = {
  {"mean", "mean", G_STRUCT_OFFSET (PoolStats, mean), FALSE},
  {"harmonic-mean", "harmonic_mean", G_STRUCT_OFFSET (PoolStats,
          harmonic_mean), FALSE},
  {"min", "min", G_STRUCT_OFFSET (PoolStats, min), FALSE},
  {"max", "max", G_STRUCT_OFFSET (PoolStats, max), FALSE},
  {"stddev", "stddev", G_STRUCT_OFFSET (PoolStats, stddev), TRUE},
  {"p1", "p1", G_STRUCT_OFFSET (PoolStats, p1), TRUE},
  {"p5", "p5", G_STRUCT_OFFSET (PoolStats, p5), TRUE},
  {"p50", "p50", G_STRUCT_OFFSET (PoolStats, p50), TRUE},
};

#define STAT(st, k) (*(const gdouble *) ((const gchar *) (st) + \
    stat_fields[k].offset))
/* statistic k of @st is known */
#define STAT_KNOWN(st, k) ((st)->n > 0 && (!stat_fields[k].spread || \
    (st)->have_spread))

static void
write_log_summary (GstExactQuality * self, const PoolStats * stats)
{
  FILE *f = self->log_file;
  gint i;
  guint k;
  gboolean first = TRUE;

  if (!f)
    return;
  if (self->run_log_format == GST_EXACT_QUALITY_LOG_CSV) {
    for (k = 0; k < G_N_ELEMENTS (stat_fields); k++) {
      fputs (stat_fields[k].key, f);
      for (i = 0; i < eq_value_count (); i++) {
        if (!(eq_value_info (i)->metric & self->run_metrics))
          continue;
        fputc (',', f);
        if (STAT_KNOWN (&stats[i], k))
          fprintf (f, "%.17g", STAT (&stats[i], k));
        else
          fputs ("nan", f);
      }
      fputc ('\n', f);
    }
    fprintf (f, "# summary frames=%" G_GUINT64_FORMAT " failed=%"
        G_GUINT64_FORMAT " unpaired=%" G_GUINT64_FORMAT " unpaired_ref=%"
        G_GUINT64_FORMAT " unpaired_dist=%" G_GUINT64_FORMAT
        " cross_check_compared=%" G_GUINT64_FORMAT " cross_check_identical=%"
        G_GUINT64_FORMAT " cross_check_different=%" G_GUINT64_FORMAT
        " spill_errors=%" G_GUINT64_FORMAT " backend=%s\n", self->frames,
        self->failed, self->unpaired_ref + self->unpaired_dist,
        self->unpaired_ref, self->unpaired_dist, self->check_compared,
        self->check_identical, self->check_different, self->spill_errors,
        self->backend_name);
  } else {
    fprintf (f, "{\"summary\": {\"frames\": %" G_GUINT64_FORMAT
        ", \"failed\": %" G_GUINT64_FORMAT ", \"unpaired\": %"
        G_GUINT64_FORMAT ", \"unpaired_ref\": %" G_GUINT64_FORMAT
        ", \"unpaired_dist\": %" G_GUINT64_FORMAT ", \"backend\": \"%s\""
        ", \"cross_check\": {\"compared\": %" G_GUINT64_FORMAT
        ", \"identical\": %" G_GUINT64_FORMAT ", \"different\": %"
        G_GUINT64_FORMAT "}, \"spill_errors\": %" G_GUINT64_FORMAT
        ", \"pooled\": {", self->frames, self->failed,
        self->unpaired_ref + self->unpaired_dist, self->unpaired_ref,
        self->unpaired_dist, self->backend_name, self->check_compared,
        self->check_identical, self->check_different, self->spill_errors);
    for (i = 0; i < eq_value_count (); i++) {
      if (!stats[i].n)
        continue;
      fprintf (f, "%s\"%s\": {\"n\": %" G_GUINT64_FORMAT, first ? "" :
          ", ", eq_value_info (i)->name, stats[i].n);
      for (k = 0; k < G_N_ELEMENTS (stat_fields); k++) {
        fprintf (f, ", \"%s\": ", stat_fields[k].key);
        /* an unknown statistic (no temporary file) is null */
        json_double (f, STAT_KNOWN (&stats[i], k) ? STAT (&stats[i], k) :
            NAN);
      }
      fputc ('}', f);
      first = FALSE;
    }
    fputs ("}}}\n", f);
  }
  fflush (f);
}

/* The summary's temporary file could not be created, written or read: the
 * summary goes without standard deviations and percentiles. Once a run. */
static void
spill_failed (GstExactQuality * self, GError * error)
{
  self->spill_errors++;
  GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
      ("Could not keep the scores in a temporary file for the summary: the "
          "summary will have mean, harmonic mean, min and max, but no "
          "standard deviation and no percentiles (check the free space in "
          "%s, or set TMPDIR)", g_get_tmp_dir ()),
      ("%s", error ? error->message : "unknown error"));
  g_clear_error (&error);
}

static void
gst_exact_quality_summary (GstExactQuality * self)
{
  PoolStats *stats;
  GstStructure *s;
  GError *error = NULL;
  gint i, n = eq_value_count ();
  guint k;

  if (self->summary_done || !self->pool)
    return;
  self->summary_done = TRUE;

  stats = g_new0 (PoolStats, n);
  for (i = 0; i < n; i++) {
    if (self->pool_column[i] < 0)
      continue;
    if (!gst_exact_quality_pool_stats (self->pool, self->pool_column[i],
            &stats[i], &error))
      spill_failed (self, g_steal_pointer (&error));
  }
  s = gst_structure_new ("exactquality-summary",
      "frames", G_TYPE_UINT64, self->frames,
      "failed", G_TYPE_UINT64, self->failed,
      "unpaired", G_TYPE_UINT64, self->unpaired_ref + self->unpaired_dist,
      "unpaired-ref", G_TYPE_UINT64, self->unpaired_ref,
      "unpaired-dist", G_TYPE_UINT64, self->unpaired_dist,
      "backend", G_TYPE_STRING, self->backend_name,
      "cross-check-compared", G_TYPE_UINT64, self->check_compared,
      "cross-check-identical", G_TYPE_UINT64, self->check_identical,
      "cross-check-different", G_TYPE_UINT64, self->check_different,
      "spill-errors", G_TYPE_UINT64, self->spill_errors, NULL);
  for (i = 0; i < n; i++) {
    for (k = 0; k < G_N_ELEMENTS (stat_fields); k++) {
      gchar *name;

      if (!STAT_KNOWN (&stats[i], k))
        continue;
      name = g_strdup_printf ("%s-%s", eq_value_info (i)->nick,
          stat_fields[k].field);
      gst_structure_set (s, name, G_TYPE_DOUBLE, STAT (&stats[i], k), NULL);
      g_free (name);
    }
  }
  GST_INFO_OBJECT (self, "summary: %" G_GUINT64_FORMAT " pairs scored, %"
      G_GUINT64_FORMAT " failed, %" G_GUINT64_FORMAT " reference and %"
      G_GUINT64_FORMAT " distorted frames left unpaired, %" G_GUINT64_FORMAT
      " blocks of values read back from the temporary file", self->frames,
      self->failed, self->unpaired_ref, self->unpaired_dist,
      gst_exact_quality_pool_blocks_spilled (self->pool));
  write_log_summary (self, stats);
  post_structure (self, s);
  g_free (stats);
}

/* ------------------------------------------------------------ workers */

/* Scores one pair with a free slot's scorer (a worker thread). */
static void
gst_exact_quality_worker (gpointer data, gpointer user_data)
{
  GstExactQualityJob *job = data;
  GstExactQuality *self = user_data;
  GstExactQualitySlot *slot = g_async_queue_pop (self->free_slots);
  GstVideoFrame ref_vf, dist_vf;
  EqFrame ref_f, dist_f;

  slot->last_error[0] = '\0';
  if (!gst_video_frame_map (&ref_vf, &job->ref_info, job->ref_buf,
          GST_MAP_READ)) {
    job->map_failed = TRUE;
  } else if (!gst_video_frame_map (&dist_vf, &job->dist_info, job->dist_buf,
          GST_MAP_READ)) {
    gst_video_frame_unmap (&ref_vf);
    job->map_failed = TRUE;
  } else {
    fill_eq_frame (&ref_vf, &ref_f);
    fill_eq_frame (&dist_vf, &dist_f);
    job->err = eq_scorer_score (slot->scorer, &ref_f, &dist_f, &job->scores);
    /* with backend=auto a failing device hands over to the CPU inside the
     * library; the pair is scored either way */
    job->backend = eq_scorer_backend (slot->scorer);
    if (job->do_check && job->err == 0)
      job->check_err = eq_scorer_score (slot->check_scorer, &ref_f, &dist_f,
          &job->check);
    gst_video_frame_unmap (&dist_vf);
    gst_video_frame_unmap (&ref_vf);
  }
  g_strlcpy (job->last_error, slot->last_error, sizeof (job->last_error));
  g_async_queue_push (self->free_slots, slot);

  g_mutex_lock (&self->jobs_lock);
  job->done = TRUE;
  g_cond_broadcast (&self->jobs_cond);
  g_mutex_unlock (&self->jobs_lock);
}

static void
job_free (GstExactQualityJob * job)
{
  gst_clear_buffer (&job->ref_buf);
  gst_clear_buffer (&job->dist_buf);
  g_free (job);
}

/* Waits for every job in flight and drops them (flush, stop, error). */
static void
gst_exact_quality_drop_jobs (GstExactQuality * self)
{
  GstExactQualityJob *job;

  g_mutex_lock (&self->jobs_lock);
  while ((job = g_queue_peek_head (&self->pending))) {
    if (!job->done) {
      g_cond_wait (&self->jobs_cond, &self->jobs_lock);
      continue;
    }
    g_queue_pop_head (&self->pending);
    job_free (job);
  }
  g_mutex_unlock (&self->jobs_lock);
}

static void
gst_exact_quality_close_slots (GstExactQuality * self)
{
  guint i;

  gst_exact_quality_drop_jobs (self);
  if (self->workers) {
    g_thread_pool_free (self->workers, FALSE, TRUE);
    self->workers = NULL;
  }
  if (self->free_slots) {
    while (g_async_queue_try_pop (self->free_slots));
    g_async_queue_unref (self->free_slots);
    self->free_slots = NULL;
  }
  for (i = 0; i < self->n_slots; i++) {
    eq_scorer_close (&self->slots[i].check_scorer);
    eq_scorer_close (&self->slots[i].scorer);
  }
  g_clear_pointer (&self->slots, g_free);
  self->n_slots = 0;
}

/* ------------------------------------------------------- start / stop */

static gboolean
gst_exact_quality_start (GstAggregator * agg)
{
  GstExactQuality *self = GST_EXACT_QUALITY (agg);
  EqSettings settings;
  gchar *location;
  const gchar *env;
  gint err, i;
  guint k, depth, columns, block;
  GError *gerr = NULL;

  eq_settings_init (&settings);
  GST_OBJECT_LOCK (self);
  settings.metrics = self->metrics;
  settings.backend = (EqBackend) self->backend;
  settings.cuda_device = self->cuda_device_id;
  settings.threads = self->threads;
  settings.matrix = (EqMatrix) self->matrix;
  settings.range = (EqRange) self->range;
  self->run_metrics = self->metrics;
  self->run_cross_check_interval = self->cross_check_interval;
  self->run_pairing = self->pairing;
  self->run_ts_offset = self->ts_offset;
  self->run_log_format = self->log_format;
  depth = MAX (self->frames_in_flight, 1);
  location = g_strdup (self->log_location);
  GST_OBJECT_UNLOCK (self);
  settings.log = gst_exact_quality_lib_log;

  if (settings.metrics == 0) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("No metric selected: set the metrics property"), (NULL));
    goto fail;
  }

  self->slots = g_new0 (GstExactQualitySlot, depth);
  self->n_slots = depth;
  self->free_slots = g_async_queue_new ();
  for (k = 0; k < depth; k++) {
    GstExactQualitySlot *slot = &self->slots[k];

    slot->self = self;
    settings.log_user = slot;
    err = eq_scorer_open (&slot->scorer, &settings);
    if (err < 0) {
      if (settings.backend == EQ_BACKEND_CUDA)
        GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
            ("backend=cuda was requested, but no CUDA device could be "
                "opened; use backend=auto (CUDA when available, else the "
                "CPU) or backend=cpu"),
            ("eq_scorer_open: %s (%d), device %d: %s", eq_strerror (err), err,
                settings.cuda_device, slot->last_error));
      else
        GST_ELEMENT_ERROR (self, LIBRARY, INIT,
            ("Could not open the quality scorer"),
            ("eq_scorer_open: %s (%d): %s", eq_strerror (err), err,
                slot->last_error));
      goto fail;
    }
    if (self->run_cross_check_interval > 0) {
      EqSettings cs = settings;

      cs.backend = EQ_BACKEND_CPU;
      err = eq_scorer_open (&slot->check_scorer, &cs);
      if (err < 0) {
        GST_ELEMENT_ERROR (self, LIBRARY, INIT,
            ("Could not open the CPU scorer of the cross-check"),
            ("eq_scorer_open: %s (%d): %s", eq_strerror (err), err,
                slot->last_error));
        goto fail;
      }
    }
    g_async_queue_push (self->free_slots, slot);
  }
  self->backend_name =
      eq_backend_name (eq_scorer_backend (self->slots[0].scorer));
  if (settings.backend == EQ_BACKEND_AUTO &&
      eq_scorer_backend (self->slots[0].scorer) == EQ_BACKEND_CPU &&
      eq_cuda_device_present ())
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
        ("A CUDA device is present but could not be used; scoring on the CPU"),
        ("backend=auto, cuda-device-id=%d", settings.cuda_device));
  GST_INFO_OBJECT (self, "scoring with the %s backend, %u frame(s) in "
      "flight", self->backend_name, depth);
  self->workers = g_thread_pool_new (gst_exact_quality_worker, self, depth,
      FALSE, &gerr);
  if (!self->workers) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not start the scoring threads"), ("%s", gerr->message));
    g_clear_error (&gerr);
    goto fail;
  }

  env = g_getenv (TEST_PERTURB_ENV);
  self->test_perturb = env && env[0] == '1';
  if (self->test_perturb)
    GST_WARNING_OBJECT (self, "%s is set: cross-check results are perturbed "
        "(test hook)", TEST_PERTURB_ENV);

  if (location && location[0]) {
    self->log_file = fopen (location, "w");
    if (!self->log_file) {
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
          ("Could not open the log file \"%s\" for writing", location),
          GST_ERROR_SYSTEM);
      goto fail;
    }
  }
  g_free (location);
  location = NULL;

  self->frames = self->failed = 0;
  self->next_frame = 0;
  self->unpaired_ref = self->unpaired_dist = 0;
  self->check_compared = self->check_identical = self->check_different = 0;
  self->summary_done = FALSE;
  self->warned_metrics = 0;
  self->spill_errors = 0;
  /* the summary's values: a column per value of the requested metrics */
  self->pool_column = g_new (gint, eq_value_count ());
  for (i = 0, columns = 0; i < eq_value_count (); i++)
    self->pool_column[i] = (eq_value_info (i)->metric & self->run_metrics) ?
        (gint) columns++ : -1;
  self->pool_values = g_new0 (gdouble, MAX (columns, 1));
  self->pool_present = g_new0 (gboolean, MAX (columns, 1));
  env = g_getenv (TEST_SUMMARY_BLOCK_ENV);
  block = env ? (guint) g_ascii_strtoull (env, NULL, 10) : 0;
  if (block == 0 || block > 1 << 20)
    block = GST_EXACT_QUALITY_POOL_DEFAULT_BLOCK;
  env = g_getenv (TEST_SUMMARY_SPILL_PATH_ENV);
  if (block != GST_EXACT_QUALITY_POOL_DEFAULT_BLOCK || (env && env[0]))
    GST_WARNING_OBJECT (self, "summary test hook: blocks of %u frames, "
        "temporary file %s", block, env && env[0] ? env : "(anonymous)");
  self->pool = gst_exact_quality_pool_new (columns, block,
      env && env[0] ? env : NULL);
  env = g_getenv (TEST_SUMMARY_FAIL_READ_ENV);
  if (env && env[0]) {
    guint64 nth = g_ascii_strtoull (env, NULL, 10);

    GST_WARNING_OBJECT (self, "summary test hook: read %" G_GUINT64_FORMAT
        " of the temporary file fails", nth);
    gst_exact_quality_pool_fail_read (self->pool, nth);
  }
  write_log_header (self);
  return TRUE;

fail:
  g_free (location);
  gst_exact_quality_close_slots (self);
  return FALSE;
}

static gboolean
gst_exact_quality_stop (GstAggregator * agg)
{
  GstExactQuality *self = GST_EXACT_QUALITY (agg);

  gst_exact_quality_close_slots (self);
  /* Stopped before both pads ended: the log still ends with a summary. */
  if (self->pool && (self->frames || self->unpaired_ref ||
          self->unpaired_dist))
    gst_exact_quality_summary (self);
  if (self->log_file) {
    fclose (self->log_file);
    self->log_file = NULL;
  }
  g_clear_pointer (&self->pool, gst_exact_quality_pool_free);
  g_clear_pointer (&self->pool_column, g_free);
  g_clear_pointer (&self->pool_values, g_free);
  g_clear_pointer (&self->pool_present, g_free);
  GST_OBJECT_LOCK (self);
  self->have_ref_info = self->have_dist_info = FALSE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* A flush drops the pairs in flight (their buffers belong before it). */
static GstFlowReturn
gst_exact_quality_flush (GstAggregator * agg)
{
  gst_exact_quality_drop_jobs (GST_EXACT_QUALITY (agg));
  return GST_FLOW_OK;
}

/* -------------------------------------------------------- caps, events */

static gboolean
gst_exact_quality_set_pad_caps (GstExactQuality * self,
    GstAggregatorPad * pad, GstCaps * caps)
{
  GstVideoInfo info;
  guint metrics;

  if (!gst_video_info_from_caps (&info, caps)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Could not understand the video format on %s", GST_PAD_NAME (pad)),
        ("caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  if (GST_VIDEO_INFO_IS_INTERLACED (&info)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Interlaced video is not supported: add deinterlace in front of "
            "exactquality"), ("%s: interlace-mode %s", GST_PAD_NAME (pad),
            gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE
                (&info))));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  metrics = self->slots ? self->run_metrics : self->metrics;
  GST_OBJECT_UNLOCK (self);
  if (GST_VIDEO_INFO_IS_RGB (&info) && (metrics & ~EQ_METRIC_SSIMULACRA2)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("RGB input is scored by SSIMULACRA2 only: set metrics=ssimulacra2, "
            "or convert both inputs to YUV with videoconvert"),
        ("%s: format %s, metrics 0x%x", GST_PAD_NAME (pad),
            GST_VIDEO_INFO_NAME (&info), metrics));
    return FALSE;
  }

  GST_OBJECT_LOCK (self);
  if (pad == self->ref_pad) {
    self->ref_info = info;
    self->have_ref_info = TRUE;
  } else {
    self->dist_info = info;
    self->have_dist_info = TRUE;
  }
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s caps %" GST_PTR_FORMAT, GST_PAD_NAME (pad),
      caps);
  /* the output caps are the distorted input's */
  if (pad == self->dist_pad)
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (self));
  return TRUE;
}

static gboolean
gst_exact_quality_sink_event (GstAggregator * agg, GstAggregatorPad * pad,
    GstEvent * event)
{
  GstExactQuality *self = GST_EXACT_QUALITY (agg);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;

      gst_event_parse_caps (event, &caps);
      if (!gst_exact_quality_set_pad_caps (self, pad, caps)) {
        gst_event_unref (event);
        return FALSE;
      }
      break;
    }
    case GST_EVENT_SEGMENT:
      /* the output is the distorted stream: so is its segment */
      if (pad == self->dist_pad) {
        const GstSegment *segment;

        gst_event_parse_segment (event, &segment);
        gst_aggregator_update_segment (agg, segment);
      }
      break;
    default:
      break;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, pad, event);
}

static GstFlowReturn
gst_exact_quality_update_src_caps (GstAggregator * agg, GstCaps * caps,
    GstCaps ** ret)
{
  GstExactQuality *self = GST_EXACT_QUALITY (agg);
  GstCaps *dist_caps;

  GST_OBJECT_LOCK (self);
  dist_caps = self->have_dist_info ?
      gst_video_info_to_caps (&self->dist_info) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (!dist_caps)
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  if (!gst_caps_can_intersect (dist_caps, caps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream does not accept the distorted video's format"),
        ("dist caps %" GST_PTR_FORMAT ", downstream %" GST_PTR_FORMAT,
            dist_caps, caps));
    gst_caps_unref (dist_caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  *ret = dist_caps;
  return GST_FLOW_OK;
}

/* ------------------------------------------------------------ pairing */

typedef enum
{
  UNPAIRED_NO_PARTNER,
  UNPAIRED_OTHER_ENDED,
  UNPAIRED_TIMEOUT,
  UNPAIRED_OUTSIDE_SEGMENT,
  UNPAIRED_NO_TIMESTAMP,
} UnpairedReason;

static const gchar *const unpaired_reasons[] = {
  "no-partner", "other-pad-ended", "timeout", "outside-segment",
  "no-timestamp",
};

static GstClockTime
pad_running_time (GstAggregatorPad * pad, GstBuffer * buf)
{
  GstClockTime pts = GST_BUFFER_PTS (buf), rt;

  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (pad);
  rt = gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME, pts);
  GST_OBJECT_UNLOCK (pad);
  return rt;
}

static void
advance_position (GstExactQuality * self, GstClockTime position)
{
  GstSegment *seg;

  if (!GST_CLOCK_TIME_IS_VALID (position))
    return;
  GST_OBJECT_LOCK (self);
  seg = &GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD (self))->segment;
  if (!GST_CLOCK_TIME_IS_VALID (seg->position) || position > seg->position)
    seg->position = position;
  GST_OBJECT_UNLOCK (self);
}

static GstFlowReturn gst_exact_quality_enqueue (GstExactQuality * self,
    GstExactQualityJob * job);

/* Takes the head buffer of @pad, counts and reports it as unpaired; a
 * distorted frame still goes downstream (without meta, in order). */
static GstFlowReturn
gst_exact_quality_unpaired (GstExactQuality * self, GstAggregatorPad * pad,
    GstClockTime rt, UnpairedReason reason)
{
  GstBuffer *buf = gst_aggregator_pad_pop_buffer (pad);
  gboolean is_ref = pad == self->ref_pad;
  GstExactQualityJob *job;
  GstClockTime pts;

  if (!buf)
    return GST_FLOW_OK;
  pts = GST_BUFFER_PTS (buf);
  if (is_ref)
    self->unpaired_ref++;
  else
    self->unpaired_dist++;
  GST_INFO_OBJECT (self, "unpaired %s frame (%s): pts %" GST_TIME_FORMAT
      ", running time %" GST_TIME_FORMAT, GST_PAD_NAME (pad),
      unpaired_reasons[reason], GST_TIME_ARGS (pts), GST_TIME_ARGS (rt));
  post_structure (self, gst_structure_new ("exactquality-unpaired",
          "pad", G_TYPE_STRING, GST_PAD_NAME (pad),
          "reason", G_TYPE_STRING, unpaired_reasons[reason],
          "timestamp", G_TYPE_UINT64, (guint64) pts,
          "running-time", G_TYPE_UINT64, (guint64) rt, NULL));
  if (is_ref) {
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  job = g_new0 (GstExactQualityJob, 1);
  job->scored = FALSE;
  job->dist_buf = buf;
  job->done = TRUE;
  return gst_exact_quality_enqueue (self, job);
}

/* Compares every published value's bits. */
static gboolean
cross_check (GstExactQuality * self, guint64 frame, const EqScores * a,
    const EqScores * b, GString * diff)
{
  gint i;
  gboolean same = TRUE;

  for (i = 0; i < eq_value_count (); i++) {
    gint pa = eq_value_present (a, i), pb = eq_value_present (b, i);
    gdouble va = eq_value_get (a, i), vb = eq_value_get (b, i);
    guint64 ba, bb;

    memcpy (&ba, &va, sizeof (ba));
    memcpy (&bb, &vb, sizeof (bb));
    if (pa != pb || (pa && ba != bb)) {
      if (same)
        g_string_append_printf (diff, "frame %" G_GUINT64_FORMAT ":", frame);
      g_string_append_printf (diff, " %s %s %a vs cpu %a",
          eq_value_info (i)->name, self->backend_name, va, vb);
      same = FALSE;
    }
  }
  return same;
}

static gboolean
is_input_error (gint err)
{
  return err == EQ_ERR_NOT_BUILT || err == EQ_ERR_UNSUPPORTED ||
      err == EQ_ERR_TOO_SMALL || err == EQ_ERR_TOO_LARGE;
}

/* Reports a scored pair and pushes its distorted buffer with the meta. */
static GstFlowReturn
gst_exact_quality_finish_job (GstExactQuality * self, GstExactQualityJob * job)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstBuffer *dist_buf = job->dist_buf;
  GstClockTime pts, duration, stream_time, running_time;
  const GstVideoInfo *dist_info = &job->dist_info;
  EqScores *scores = &job->scores, *check = &job->check;
  GstSegment seg;
  GstStructure *s;
  GString *diff = NULL;
  GError *error = NULL;
  GstFlowReturn ret = GST_FLOW_OK;
  guint64 frame = job->frame;
  guint failed_metrics = 0;
  gint i;

  job->dist_buf = NULL;
  pts = GST_BUFFER_PTS (dist_buf);
  duration = GST_BUFFER_DURATION (dist_buf);

  if (!job->scored) {
    /* an unpaired distorted frame */
    if (GST_CLOCK_TIME_IS_VALID (pts))
      advance_position (self, pts + (GST_CLOCK_TIME_IS_VALID (duration) ?
              duration : 0));
    ret = gst_aggregator_finish_buffer (agg, dist_buf);
    goto out;
  }

  if (!job->map_failed && job->backend == EQ_BACKEND_CPU &&
      g_strcmp0 (self->backend_name, "cuda") == 0) {
    GST_ELEMENT_WARNING (self, LIBRARY, FAILED,
        ("The CUDA backend failed; scoring continues on the CPU"),
        ("from frame %" G_GUINT64_FORMAT ": %s", frame, job->last_error));
    self->backend_name = eq_backend_name (EQ_BACKEND_CPU);
  }

  if (job->map_failed) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Could not read a reference or distorted frame"),
        ("gst_video_frame_map failed on frame %" G_GUINT64_FORMAT, frame));
    ret = GST_FLOW_ERROR;
    goto done;
  }

  /* a failed metric: the input's fault (warn once, count) or the system's */
  for (i = 0; i < EQ_METRIC_COUNT; i++) {
    guint m = 1u << i;

    if (!(self->run_metrics & m) || scores->status[i] == 0)
      continue;
    if (!is_input_error (scores->status[i])) {
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
          ("Scoring %s failed on frame %" G_GUINT64_FORMAT,
              eq_metric_name (m), frame), ("%s (%d): %s",
              eq_strerror (scores->status[i]), scores->status[i],
              job->last_error));
      ret = GST_FLOW_ERROR;
      goto done;
    }
    failed_metrics |= m;
    if (!(self->warned_metrics & m)) {
      self->warned_metrics |= m;
      GST_ELEMENT_WARNING (self, LIBRARY, FAILED,
          ("Could not score %s: %s", eq_metric_name (m),
              eq_strerror (scores->status[i])),
          ("frame %" G_GUINT64_FORMAT ", %dx%d %s: %s", frame,
              dist_info->width, dist_info->height,
              GST_VIDEO_INFO_NAME (dist_info), job->last_error));
    }
  }
  if (job->err < 0 && !failed_metrics) {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Scoring failed on frame %" G_GUINT64_FORMAT, frame),
        ("%s (%d): %s", eq_strerror (job->err), job->err, job->last_error));
    ret = GST_FLOW_ERROR;
    goto done;
  }

  if (job->do_check && job->err == 0) {
    gboolean check_ok;

    if (job->check_err < 0) {
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
          ("The CPU cross-check could not score frame %" G_GUINT64_FORMAT,
              frame), ("%s (%d): %s", eq_strerror (job->check_err),
              job->check_err, job->last_error));
      ret = GST_FLOW_ERROR;
      goto done;
    }
    if (self->test_perturb) {
      for (i = 0; i < eq_value_count (); i++) {
        if (eq_value_present (check, i)) {
          /* flip the lowest bit of the first value through the table */
          gdouble v = eq_value_get (check, i);
          guint64 bits;

          memcpy (&bits, &v, sizeof (bits));
          bits ^= 1;
          memcpy (&v, &bits, sizeof (v));
          switch (eq_value_info (i)->metric) {
            case EQ_METRIC_PSNR:
              check->psnr_y = v;
              break;
            case EQ_METRIC_SSIM:
              check->ssim = v;
              break;
            case EQ_METRIC_MS_SSIM:
              check->ms_ssim = v;
              break;
            default:
              check->ssimulacra2 = v;
              break;
          }
          break;
        }
      }
    }
    diff = g_string_new (NULL);
    self->check_compared++;
    check_ok = cross_check (self, frame, scores, check, diff);
    if (check_ok) {
      self->check_identical++;
    } else {
      GstExactQualityCrossCheckAction action;

      self->check_different++;
      GST_OBJECT_LOCK (self);
      action = self->cross_check_action;
      GST_OBJECT_UNLOCK (self);
      if (action == GST_EXACT_QUALITY_CROSS_CHECK_ERROR) {
        GST_ELEMENT_ERROR (self, STREAM, FAILED,
            ("The %s backend's scores differ from the CPU reference's on "
                "frame %" G_GUINT64_FORMAT, self->backend_name, frame),
            ("%s", diff->str));
        ret = GST_FLOW_ERROR;
        goto done;
      }
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("The %s backend's scores differ from the CPU reference's on "
              "frame %" G_GUINT64_FORMAT, self->backend_name, frame),
          ("%s", diff->str));
    }
  }

  /* the pair is scored: count, pool, report */
  self->frames++;
  if (failed_metrics)
    self->failed++;
  for (i = 0; i < eq_value_count (); i++) {
    gint c = self->pool_column[i];

    if (c < 0)
      continue;
    self->pool_present[c] = eq_value_present (scores, i);
    self->pool_values[c] = self->pool_present[c] ?
        eq_value_get (scores, i) : 0.0;
  }
  if (!gst_exact_quality_pool_add_frame (self->pool, self->pool_values,
          self->pool_present, &error))
    spill_failed (self, g_steal_pointer (&error));

  GST_OBJECT_LOCK (self->dist_pad);
  seg = self->dist_pad->segment;
  GST_OBJECT_UNLOCK (self->dist_pad);
  stream_time = gst_segment_to_stream_time (&seg, GST_FORMAT_TIME, pts);
  running_time = gst_segment_to_running_time (&seg, GST_FORMAT_TIME, pts);

  s = gst_structure_new ("exactquality",
      "frame", G_TYPE_UINT64, frame,
      "timestamp", G_TYPE_UINT64, (guint64) pts,
      "stream-time", G_TYPE_UINT64, (guint64) stream_time,
      "running-time", G_TYPE_UINT64, (guint64) running_time,
      "duration", G_TYPE_UINT64, (guint64) duration,
      "ref-running-time", G_TYPE_UINT64, (guint64) job->ref_rt,
      "backend", G_TYPE_STRING, self->backend_name, NULL);
  for (i = 0; i < eq_value_count (); i++)
    if (eq_value_present (scores, i))
      gst_structure_set (s, eq_value_info (i)->nick, G_TYPE_DOUBLE,
          eq_value_get (scores, i), NULL);
  post_structure (self, s);
  write_log_frame (self, frame, pts, stream_time, running_time, duration,
      scores);

  /* Output: the distorted buffer itself; writable only to take the meta
   * (a shared buffer is copied shallowly: pixels stay where they are). */
  dist_buf = gst_buffer_make_writable (dist_buf);
  gst_buffer_add_exact_quality_meta (dist_buf, frame, self->backend_name,
      job->ref_rt, scores);
  if (GST_CLOCK_TIME_IS_VALID (pts))
    advance_position (self, pts + (GST_CLOCK_TIME_IS_VALID (duration) ?
            duration : 0));
  gst_aggregator_selected_samples (agg, pts, GST_BUFFER_DTS (dist_buf),
      duration, NULL);
  ret = gst_aggregator_finish_buffer (agg, dist_buf);
  dist_buf = NULL;

done:
  gst_clear_buffer (&dist_buf);
out:
  if (diff)
    g_string_free (diff, TRUE);
  job_free (job);
  return ret;
}

/* Pushes out the jobs at the head of the queue that are done, in order;
 * with @all, waits for every job; otherwise waits only while more than
 * frames-in-flight pairs are being scored. */
static GstFlowReturn
gst_exact_quality_finish_ready (GstExactQuality * self, gboolean all)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GstExactQualityJob *job;

  for (;;) {
    g_mutex_lock (&self->jobs_lock);
    job = g_queue_peek_head (&self->pending);
    if (!job) {
      g_mutex_unlock (&self->jobs_lock);
      break;
    }
    if (!job->done) {
      if (all || self->pending.length >= self->n_slots)
        g_cond_wait (&self->jobs_cond, &self->jobs_lock);
      g_mutex_unlock (&self->jobs_lock);
      if (all || self->pending.length >= self->n_slots)
        continue;
      break;
    }
    g_queue_pop_head (&self->pending);
    g_mutex_unlock (&self->jobs_lock);
    ret = gst_exact_quality_finish_job (self, job);
    if (ret != GST_FLOW_OK)
      break;
  }
  return ret;
}

static GstFlowReturn
gst_exact_quality_enqueue (GstExactQuality * self, GstExactQualityJob * job)
{
  g_mutex_lock (&self->jobs_lock);
  g_queue_push_tail (&self->pending, job);
  g_mutex_unlock (&self->jobs_lock);
  if (job->scored)
    g_thread_pool_push (self->workers, job, NULL);
  return gst_exact_quality_finish_ready (self, FALSE);
}

/* Takes the two head buffers as a pair and hands them to a worker. */
static GstFlowReturn
gst_exact_quality_submit_pair (GstExactQuality * self, GstClockTime ref_rt)
{
  GstBuffer *ref_buf, *dist_buf;
  GstVideoInfo ref_info, dist_info;
  GstExactQualityJob *job;

  ref_buf = gst_aggregator_pad_pop_buffer (self->ref_pad);
  dist_buf = gst_aggregator_pad_pop_buffer (self->dist_pad);
  if (!ref_buf || !dist_buf) {
    gst_clear_buffer (&ref_buf);
    gst_clear_buffer (&dist_buf);
    GST_ELEMENT_ERROR (self, CORE, FAILED, ("Internal error in exactquality"),
        ("a pad's buffer disappeared between peek and pop"));
    return GST_FLOW_ERROR;
  }

  GST_OBJECT_LOCK (self);
  if (!self->have_ref_info || !self->have_dist_info) {
    GST_OBJECT_UNLOCK (self);
    gst_buffer_unref (ref_buf);
    gst_buffer_unref (dist_buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Received video before its format (caps)"), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  ref_info = self->ref_info;
  dist_info = self->dist_info;
  GST_OBJECT_UNLOCK (self);

  if (GST_VIDEO_INFO_FORMAT (&ref_info) != GST_VIDEO_INFO_FORMAT (&dist_info)
      || ref_info.width != dist_info.width
      || ref_info.height != dist_info.height) {
    gst_buffer_unref (ref_buf);
    gst_buffer_unref (dist_buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The reference and distorted videos differ in size or format: add "
            "videoconvert and videoscale (and a capsfilter) so that both "
            "inputs match"), ("ref %s %dx%d, dist %s %dx%d",
            GST_VIDEO_INFO_NAME (&ref_info), ref_info.width, ref_info.height,
            GST_VIDEO_INFO_NAME (&dist_info), dist_info.width,
            dist_info.height));
    return GST_FLOW_NOT_NEGOTIATED;
  }

  job = g_new0 (GstExactQualityJob, 1);
  job->scored = TRUE;
  job->ref_buf = ref_buf;
  job->dist_buf = dist_buf;
  job->ref_info = ref_info;
  job->dist_info = dist_info;
  job->ref_rt = ref_rt;
  job->frame = self->next_frame++;
  job->do_check = self->run_cross_check_interval > 0 &&
      job->frame % self->run_cross_check_interval == 0;
  return gst_exact_quality_enqueue (self, job);
}

/* Half a frame: the distorted buffer's duration, else the reference's, else
 * the distorted framerate's; 0 when none is known (exact match only). */
static GstClockTime
frame_duration (GstExactQuality * self, GstBuffer * ref, GstBuffer * dist)
{
  GstClockTime d = GST_CLOCK_TIME_NONE;

  if (dist && GST_BUFFER_DURATION_IS_VALID (dist))
    return GST_BUFFER_DURATION (dist);
  if (ref && GST_BUFFER_DURATION_IS_VALID (ref))
    return GST_BUFFER_DURATION (ref);
  GST_OBJECT_LOCK (self);
  if (self->have_dist_info && self->dist_info.fps_n > 0)
    d = gst_util_uint64_scale_int (GST_SECOND, self->dist_info.fps_d,
        self->dist_info.fps_n);
  GST_OBJECT_UNLOCK (self);
  return GST_CLOCK_TIME_IS_VALID (d) ? d : 0;
}

static GstFlowReturn
gst_exact_quality_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstExactQuality *self = GST_EXACT_QUALITY (agg);
  GstBuffer *ref, *dist;
  gboolean ref_eos, dist_eos;
  GstClockTime ref_rt = GST_CLOCK_TIME_NONE, dist_rt = GST_CLOCK_TIME_NONE;
  GstClockTime dur;
  gint64 dist_adj = 0;
  GstFlowReturn ret = GST_FLOW_OK;

  ref = gst_aggregator_pad_peek_buffer (self->ref_pad);
  dist = gst_aggregator_pad_peek_buffer (self->dist_pad);
  ref_eos = gst_aggregator_pad_is_eos (self->ref_pad);
  dist_eos = gst_aggregator_pad_is_eos (self->dist_pad);

  if (ref)
    ref_rt = pad_running_time (self->ref_pad, ref);
  if (dist) {
    dist_rt = pad_running_time (self->dist_pad, dist);
    if (GST_CLOCK_TIME_IS_VALID (dist_rt))
      dist_adj = (gint64) dist_rt + self->run_ts_offset;
  }
  dur = frame_duration (self, ref, dist);

  if (!ref && !dist) {
    if (ref_eos && dist_eos) {
      /* the pairs still being scored go out before the summary */
      ret = gst_exact_quality_finish_ready (self, TRUE);
      if (ret != GST_FLOW_OK)
        return ret;
      gst_exact_quality_summary (self);
      return GST_FLOW_EOS;
    }
    if (timeout) {
      /* nothing arrived in time: move the deadline on by a frame */
      GstClockTime next = gst_aggregator_simple_get_next_time (agg);
      GstSegment *seg;

      GST_OBJECT_LOCK (self);
      seg = &GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD (self))->segment;
      if (GST_CLOCK_TIME_IS_VALID (next))
        seg->position = gst_segment_position_from_running_time (seg,
            GST_FORMAT_TIME, next + MAX (dur, GST_MSECOND));
      GST_OBJECT_UNLOCK (self);
    }
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  }

  if (!ref || !dist) {
    GstAggregatorPad *pad = ref ? self->ref_pad : self->dist_pad;
    GstClockTime rt = ref ? ref_rt : dist_rt;
    gboolean other_eos = ref ? dist_eos : ref_eos;

    if (other_eos) {
      ret = gst_exact_quality_unpaired (self, pad, rt, UNPAIRED_OTHER_ENDED);
    } else if (timeout && self->run_pairing ==
        GST_EXACT_QUALITY_PAIRING_TIMESTAMP) {
      /* the frame's time on the output (distorted) timeline */
      gint64 out_rt = ref ? (gint64) ref_rt - self->run_ts_offset :
          (gint64) dist_rt;
      GstClockTime now = GST_CLOCK_TIME_NONE;
      GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));

      if (clock) {
        GstClockTime base = gst_element_get_base_time (GST_ELEMENT (self));
        GstClockTime t = gst_clock_get_time (clock);

        now = t > base ? t - base : 0;
        gst_object_unref (clock);
      }
      GST_DEBUG_OBJECT (self, "timeout: %s frame at %" GST_TIME_FORMAT
          " alone, now %" GST_TIME_FORMAT ", latency %" GST_TIME_FORMAT,
          GST_PAD_NAME (pad), GST_TIME_ARGS (rt), GST_TIME_ARGS (now),
          GST_TIME_ARGS (gst_aggregator_get_latency (agg)));
      if (!GST_CLOCK_TIME_IS_VALID (rt) || !GST_CLOCK_TIME_IS_VALID (now) ||
          (gint64) now >= out_rt + (gint64) gst_aggregator_get_latency (agg)) {
        /* its own deadline has passed and its partner did not come */
        ret = gst_exact_quality_unpaired (self, pad, rt, UNPAIRED_TIMEOUT);
      } else {
        /* not due yet: wait for its partner until its own deadline (the
         * aggregator waits until the output position plus the latency) */
        GstSegment *seg;

        GST_OBJECT_LOCK (self);
        seg = &GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD (self))->segment;
        seg->position = gst_segment_position_from_running_time (seg,
            GST_FORMAT_TIME, (GstClockTime) MAX (out_rt, 0));
        GST_OBJECT_UNLOCK (self);
        ret = GST_AGGREGATOR_FLOW_NEED_DATA;
      }
    } else {
      ret = GST_AGGREGATOR_FLOW_NEED_DATA;
    }
    goto done;
  }

  if (self->run_pairing == GST_EXACT_QUALITY_PAIRING_SEQUENCE) {
    ret = gst_exact_quality_submit_pair (self, ref_rt);
    goto done;
  }

  if (!GST_BUFFER_PTS_IS_VALID (ref) && !GST_BUFFER_PTS_IS_VALID (dist)) {
    /* neither frame has a timestamp: nothing to compare, they pair in the
     * order they came (as pairing=sequence would) */
    GST_LOG_OBJECT (self, "pairing two frames without timestamps");
    ret = gst_exact_quality_submit_pair (self, ref_rt);
  } else if (!GST_CLOCK_TIME_IS_VALID (ref_rt)) {
    /* no timestamp while the distorted frame has one, or outside the
     * segment: cannot be placed against it */
    ret = gst_exact_quality_unpaired (self, self->ref_pad, ref_rt,
        GST_BUFFER_PTS_IS_VALID (ref) ? UNPAIRED_OUTSIDE_SEGMENT :
        UNPAIRED_NO_TIMESTAMP);
  } else if (!GST_CLOCK_TIME_IS_VALID (dist_rt)) {
    ret = gst_exact_quality_unpaired (self, self->dist_pad, dist_rt,
        GST_BUFFER_PTS_IS_VALID (dist) ? UNPAIRED_OUTSIDE_SEGMENT :
        UNPAIRED_NO_TIMESTAMP);
  } else {
    gint64 d = dist_adj - (gint64) ref_rt;
    guint64 ad = d < 0 ? -(guint64) d : (guint64) d;

    /* |d| < dur / 2, without overflow */
    if (ad == 0 || (ad < dur && 2 * ad < dur)) {
      GST_LOG_OBJECT (self, "pairing ref %" GST_TIME_FORMAT " with dist %"
          GST_TIME_FORMAT, GST_TIME_ARGS (ref_rt), GST_TIME_ARGS (dist_rt));
      ret = gst_exact_quality_submit_pair (self, ref_rt);
    } else if (d > 0) {
      /* the distorted frame is later: this reference frame has no partner */
      ret = gst_exact_quality_unpaired (self, self->ref_pad, ref_rt,
          UNPAIRED_NO_PARTNER);
    } else {
      ret = gst_exact_quality_unpaired (self, self->dist_pad,
          (GstClockTime) MAX (dist_adj, 0), UNPAIRED_NO_PARTNER);
    }
  }

done:
  gst_clear_buffer (&ref);
  gst_clear_buffer (&dist);
  return ret;
}
