/* GStreamer exactquality
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstExactQualityMeta: the scores of one reference/distorted frame pair,
 * attached by the exactquality element to the distorted buffer it outputs.
 */
#ifndef __GST_EXACT_QUALITY_META_H__
#define __GST_EXACT_QUALITY_META_H__

#include <gst/gst.h>
#include <exactquality.h>

G_BEGIN_DECLS

#ifndef GST_EXACT_QUALITY_META_API
#  if defined(__GNUC__)
#    define GST_EXACT_QUALITY_META_API extern __attribute__((visibility("default")))
#  else
#    define GST_EXACT_QUALITY_META_API extern
#  endif
#endif

/**
 * GST_EXACT_QUALITY_META_API_TYPE:
 *
 * The #GType of the meta API, registered as "GstExactQualityMetaAPI" with
 * no tags, so elements that transform buffers keep it.
 */
#define GST_EXACT_QUALITY_META_API_TYPE (gst_exact_quality_meta_api_get_type ())
#define GST_EXACT_QUALITY_META_INFO (gst_exact_quality_meta_get_info ())

/**
 * GST_EXACT_QUALITY_STRUCTURE_META_NAME:
 *
 * Name of the #GstCustomMeta that carries the same scores as a
 * #GstStructure, for language bindings without the GstExactQuality typelib
 * (Python: `buf.get_custom_meta("GstExactQualityStructureMeta")
 * .get_structure()`). The structure is the one
 * gst_exact_quality_meta_to_structure() returns.
 */
#define GST_EXACT_QUALITY_STRUCTURE_META_NAME "GstExactQualityStructureMeta"

typedef struct _GstExactQualityMeta GstExactQualityMeta;

/**
 * GstExactQualityMeta:
 * @meta: parent #GstMeta
 * @frame: index of the scored pair (0 for the first pair scored since the
 *     element started)
 * @backend: "cpu" or "cuda": the backend that scored the pair (static string)
 * @ref_running_time: running time of the reference buffer it was paired with
 * @scores: (skip): the library's results, bit for bit (lib/exactquality.h);
 *     read values with eq_value_get (&meta->scores, i) for i <
 *     eq_value_count (), or with gst_exact_quality_meta_get_nth_value()
 *
 * Scores of one frame pair. Language bindings (GObject-Introspection
 * namespace GstExactQuality) read @frame, @backend and @ref_running_time
 * as fields and the values through gst_exact_quality_meta_get_nth_value()
 * or gst_exact_quality_meta_get_value(): #EqScores is a plain C struct of
 * the library, not introspectable.
 */
struct _GstExactQualityMeta
{
  GstMeta meta;

  guint64 frame;
  const gchar *backend;
  GstClockTime ref_running_time;
  EqScores scores;
};

GST_EXACT_QUALITY_META_API
GType gst_exact_quality_meta_api_get_type (void);

GST_EXACT_QUALITY_META_API
const GstMetaInfo *gst_exact_quality_meta_get_info (void);

GST_EXACT_QUALITY_META_API
GstExactQualityMeta *gst_buffer_add_exact_quality_meta (GstBuffer * buffer,
    guint64 frame, const gchar * backend, GstClockTime ref_running_time,
    const EqScores * scores);

GST_EXACT_QUALITY_META_API
GstExactQualityMeta *gst_buffer_get_exact_quality_meta (GstBuffer * buffer);

GST_EXACT_QUALITY_META_API
GstStructure *gst_exact_quality_meta_to_structure (const GstExactQualityMeta *
    meta);

GST_EXACT_QUALITY_META_API
gboolean gst_exact_quality_meta_get_value (const GstExactQualityMeta * meta,
    const gchar * nick, gdouble * value);

GST_EXACT_QUALITY_META_API
guint gst_exact_quality_meta_n_values (void);

GST_EXACT_QUALITY_META_API
const gchar *gst_exact_quality_meta_value_nick (guint index);

GST_EXACT_QUALITY_META_API
gboolean gst_exact_quality_meta_get_nth_value (const GstExactQualityMeta *
    meta, guint index, gdouble * value);

G_END_DECLS

#endif /* __GST_EXACT_QUALITY_META_H__ */
