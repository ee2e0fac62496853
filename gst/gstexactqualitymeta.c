/* GStreamer exactquality
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:gstexactqualitymeta
 * @title: GstExactQualityMeta
 * @short_description: per-frame quality scores on a buffer
 *
 * The exactquality element attaches a #GstExactQualityMeta to every
 * distorted buffer it scored. The meta holds the library's #EqScores as
 * they came out of eq_scorer_score(): the same bits as the element's
 * message and log.
 *
 * The API type is registered with no tags, and the transform function
 * copies the meta whenever a buffer is copied
 * (GST_META_TRANSFORM_IS_COPY), so it survives elements that copy or
 * transform buffers (queue, tee, videoconvert in passthrough, ...).
 *
 * ## Reading it from C
 * |[<!-- language="C" -->
 * GstExactQualityMeta *m = gst_buffer_get_exact_quality_meta (buf);
 * gdouble ssim;
 * if (m && gst_exact_quality_meta_get_value (m, "ssim", &ssim))
 *   g_print ("frame %" G_GUINT64_FORMAT " ssim %.17g\n", m->frame, ssim);
 * ]|
 * or every value: `for (i = 0; i < eq_value_count (); i++)
 * if (eq_value_present (&m->scores, i)) ... eq_value_get (&m->scores, i)`.
 *
 * ## Reading it from Python (GObject-Introspection)
 * The library comes with a typelib, namespace GstExactQuality 1.0
 * (built when g-ir-scanner is found):
 * |[<!-- language="Python" -->
 * gi.require_version("GstExactQuality", "1.0")
 * from gi.repository import GstExactQuality
 * m = GstExactQuality.buffer_get_exact_quality_meta(buf)
 * if m:
 *     ok, ssim = m.get_value("ssim")
 *     for i in range(GstExactQuality.ExactQualityMeta.n_values()):
 *         present, v = m.get_nth_value(i)
 *         if present:
 *             print(m.frame, m.backend,
 *                   GstExactQuality.ExactQualityMeta.value_nick(i), v)
 * ]|
 *
 * ## Reading it without the typelib (gst-python)
 * gst_buffer_add_exact_quality_meta() also attaches a #GstCustomMeta named
 * "GstExactQualityStructureMeta" whose #GstStructure is
 * gst_exact_quality_meta_to_structure()'s, for bindings where the typelib
 * is not installed:
 * |[<!-- language="Python" -->
 * meta = buf.get_custom_meta("GstExactQualityStructureMeta")
 * if meta:
 *     s = meta.get_structure()
 *     print(s.get_uint64("frame")[1], s.get_double("ssim")[1])
 * ]|
 * docs/examples/ holds both as complete programs.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstexactqualitymeta.h"

/**
 * gst_exact_quality_meta_api_get_type:
 *
 * Returns: the #GType of the meta API ("GstExactQualityMetaAPI"), for
 *     gst_buffer_get_meta() and gst_meta_api_type_has_tag().
 */
GType
gst_exact_quality_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType _type = gst_meta_api_type_register ("GstExactQualityMetaAPI", tags);
    g_once_init_leave (&type, _type);
  }
  return type;
}

static gboolean
gst_exact_quality_meta_init (GstMeta * meta, gpointer params,
    GstBuffer * buffer)
{
  GstExactQualityMeta *m = (GstExactQualityMeta *) meta;

  (void) params;
  (void) buffer;
  m->frame = 0;
  m->backend = "cpu";
  m->ref_running_time = GST_CLOCK_TIME_NONE;
  memset (&m->scores, 0, sizeof (m->scores));
  return TRUE;
}

static GstExactQualityMeta *
add_typed_meta (GstBuffer * buffer, const GstExactQualityMeta * from)
{
  GstExactQualityMeta *m;

  m = (GstExactQualityMeta *) gst_buffer_add_meta (buffer,
      GST_EXACT_QUALITY_META_INFO, NULL);
  if (!m)
    return NULL;
  m->frame = from->frame;
  m->backend = from->backend;
  m->ref_running_time = from->ref_running_time;
  m->scores = from->scores;
  return m;
}

static gboolean
gst_exact_quality_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  /* Scores describe the whole picture: keep them on any copy, drop them on
   * anything else (scaling, cropping, ...), where they no longer apply. */
  (void) buffer;
  (void) data;
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  return add_typed_meta (dest, (GstExactQualityMeta *) meta) != NULL;
}

/**
 * gst_exact_quality_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstExactQualityMeta,
 *     registered on the first call.
 */
const GstMetaInfo *
gst_exact_quality_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_EXACT_QUALITY_META_API_TYPE,
        "GstExactQualityMeta", sizeof (GstExactQualityMeta),
        gst_exact_quality_meta_init, NULL, gst_exact_quality_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

static const GstMetaInfo *
structure_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    static const gchar *tags[] = { NULL };
    /* NULL transform: copied on copy, dropped otherwise (as the typed meta) */
    const GstMetaInfo *mi =
        gst_meta_register_custom (GST_EXACT_QUALITY_STRUCTURE_META_NAME, tags,
        NULL, NULL, NULL);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_buffer_add_exact_quality_meta: (skip)
 * @buffer: a writable #GstBuffer
 * @frame: index of the scored pair
 * @backend: "cpu" or "cuda" (must be a static string)
 * @ref_running_time: running time of the reference frame
 * @scores: the library's results
 *
 * Attaches a #GstExactQualityMeta, and the "GstExactQualityStructureMeta"
 * custom meta that carries the same values as a #GstStructure.
 *
 * Returns: (transfer none): the meta, or %NULL.
 */
GstExactQualityMeta *
gst_buffer_add_exact_quality_meta (GstBuffer * buffer, guint64 frame,
    const gchar * backend, GstClockTime ref_running_time,
    const EqScores * scores)
{
  GstExactQualityMeta tmp, *m;
  GstCustomMeta *cm;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), NULL);
  g_return_val_if_fail (scores != NULL, NULL);

  tmp.frame = frame;
  tmp.backend = backend ? backend : "cpu";
  tmp.ref_running_time = ref_running_time;
  tmp.scores = *scores;
  m = add_typed_meta (buffer, &tmp);
  if (!m)
    return NULL;

  /* The structure view for bindings, built from the typed meta. */
  structure_meta_get_info ();
  cm = gst_buffer_add_custom_meta (buffer,
      GST_EXACT_QUALITY_STRUCTURE_META_NAME);
  if (cm) {
    GstStructure *dst = gst_custom_meta_get_structure (cm);
    GstStructure *src = gst_exact_quality_meta_to_structure (m);
    gint i, n = gst_structure_n_fields (src);

    for (i = 0; i < n; i++) {
      const gchar *name = gst_structure_nth_field_name (src, i);
      gst_structure_set_value (dst, name, gst_structure_get_value (src, name));
    }
    gst_structure_free (src);
  }
  return m;
}

/**
 * gst_buffer_get_exact_quality_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the buffer's #GstExactQualityMeta,
 *     valid as long as @buffer is (in Python too: read it while holding
 *     the buffer or sample).
 */
GstExactQualityMeta *
gst_buffer_get_exact_quality_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstExactQualityMeta *) gst_buffer_get_meta (buffer,
      GST_EXACT_QUALITY_META_API_TYPE);
}

/**
 * gst_exact_quality_meta_to_structure:
 * @meta: a #GstExactQualityMeta
 *
 * A #GstStructure named "exactquality" with fields `frame` (guint64),
 * `backend` (gchararray), `ref-running-time` (guint64) and one gdouble per
 * value present, named by the library's value nick (eq_value_info(i)->nick:
 * psnr-y, psnr-cb, psnr-cr, ssim, ms-ssim, ssimulacra2, ssim-l, ssim-c,
 * ssim-s, ms-ssim-l-scale0, ...).
 *
 * Returns: (transfer full): a new structure; free with gst_structure_free().
 */
GstStructure *
gst_exact_quality_meta_to_structure (const GstExactQualityMeta * meta)
{
  GstStructure *s;
  gint i;

  g_return_val_if_fail (meta != NULL, NULL);

  s = gst_structure_new ("exactquality",
      "frame", G_TYPE_UINT64, meta->frame,
      "backend", G_TYPE_STRING, meta->backend,
      "ref-running-time", G_TYPE_UINT64, (guint64) meta->ref_running_time,
      NULL);
  for (i = 0; i < eq_value_count (); i++) {
    if (eq_value_present (&meta->scores, i))
      gst_structure_set (s, eq_value_info (i)->nick, G_TYPE_DOUBLE,
          eq_value_get (&meta->scores, i), NULL);
  }
  return s;
}

/**
 * gst_exact_quality_meta_get_value:
 * @meta: a #GstExactQualityMeta
 * @nick: a value nick ("ssim", "psnr-y", ...)
 * @value: (out) (optional): the value
 *
 * Returns: %TRUE when the value is present (@value is then set); %FALSE
 *     for an unknown nick or a value that was not scored.
 */
gboolean
gst_exact_quality_meta_get_value (const GstExactQualityMeta * meta,
    const gchar * nick, gdouble * value)
{
  gint i;

  g_return_val_if_fail (meta != NULL && nick != NULL, FALSE);
  for (i = 0; i < eq_value_count (); i++) {
    if (strcmp (eq_value_info (i)->nick, nick) == 0) {
      if (!eq_value_present (&meta->scores, i))
        return FALSE;
      if (value)
        *value = eq_value_get (&meta->scores, i);
      return TRUE;
    }
  }
  return FALSE;
}

/**
 * gst_exact_quality_meta_n_values:
 *
 * The number of values the library can publish (eq_value_count()): the
 * indices of gst_exact_quality_meta_value_nick() and
 * gst_exact_quality_meta_get_nth_value() run from 0 to this number - 1, in
 * the CLI's column order.
 *
 * Returns: the number of values.
 */
guint
gst_exact_quality_meta_n_values (void)
{
  return (guint) eq_value_count ();
}

/**
 * gst_exact_quality_meta_value_nick:
 * @index: a value index, below gst_exact_quality_meta_n_values()
 *
 * Returns: (transfer none) (nullable): the value's nick ("psnr-y", "ssim",
 *     "ms-ssim-l-scale0", ...), which is also its field name in the
 *     element's messages and in gst_exact_quality_meta_to_structure(); %NULL
 *     when @index is out of range.
 */
const gchar *
gst_exact_quality_meta_value_nick (guint index)
{
  const EqValueInfo *info;

  if (index >= (guint) eq_value_count ())
    return NULL;
  info = eq_value_info ((gint) index);
  return info ? info->nick : NULL;
}

/**
 * gst_exact_quality_meta_get_nth_value:
 * @meta: a #GstExactQualityMeta
 * @index: a value index, below gst_exact_quality_meta_n_values()
 * @value: (out) (optional): the value, bit for bit as scored
 *
 * Reads value @index (named by gst_exact_quality_meta_value_nick()) of the
 * meta's scores.
 *
 * Returns: %TRUE when the value is present (@value is then set); %FALSE
 *     when its metric was not scored, the value is absent (psnr-cb and
 *     psnr-cr of a grey picture) or @index is out of range.
 */
gboolean
gst_exact_quality_meta_get_nth_value (const GstExactQualityMeta * meta,
    guint index, gdouble * value)
{
  g_return_val_if_fail (meta != NULL, FALSE);

  if (index >= (guint) eq_value_count ()
      || !eq_value_present (&meta->scores, (gint) index))
    return FALSE;
  if (value)
    *value = eq_value_get (&meta->scores, (gint) index);
  return TRUE;
}
