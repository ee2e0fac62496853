/* Reading exactquality's scores from C: the buffer meta and the messages.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Build: cc read_meta.c $(pkg-config --cflags --libs gstreamer-1.0 \
 *            gstexactqualitymeta-1.0 exactquality)
 * Usage: read_meta [REF.mkv DIST.mkv]     (without files: videotestsrc)
 *
 * Prints every frame's SSIM from the meta and from the message, and exits
 * non-zero unless both carry the same bits for every value.
 */
#include <string.h>

#include <gst/gst.h>
#include <gstexactqualitymeta.h>

static GHashTable *from_meta;   /* frame -> GstStructure */
static GMutex lock;             /* the probe runs in a streaming thread */

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstExactQualityMeta *meta = gst_buffer_get_exact_quality_meta (buf);
  gdouble ssim;

  (void) pad;
  (void) user_data;
  if (!meta)                    /* an unpaired distorted frame */
    return GST_PAD_PROBE_OK;
  /* the typed fields... */
  if (gst_exact_quality_meta_get_value (meta, "ssim", &ssim))
    g_print ("meta:    frame %" G_GUINT64_FORMAT " (%s) ssim %.17g\n",
        meta->frame, meta->backend, ssim);
  /* ...or all values at once, as a structure */
  g_mutex_lock (&lock);
  g_hash_table_insert (from_meta, GUINT_TO_POINTER ((guint) meta->frame),
      gst_exact_quality_meta_to_structure (meta));
  g_mutex_unlock (&lock);
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  GstElement *pipeline, *sink;
  GstPad *pad;
  GstBus *bus;
  GError *err = NULL;
  gchar *desc;
  gboolean done = FALSE;
  gint status = 0, compared = 0;

  gst_init (&argc, &argv);
  from_meta = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) gst_structure_free);
  if (argc == 3)
    desc = g_strdup_printf ("exactquality name=eq ! fakesink name=sink "
        "filesrc location=%s ! matroskademux ! decodebin ! videoconvert ! "
        "video/x-raw,format=I420 ! eq.ref_sink "
        "filesrc location=%s ! matroskademux ! decodebin ! videoconvert ! "
        "video/x-raw,format=I420 ! eq.dist_sink", argv[1], argv[2]);
  else
    desc = g_strdup ("exactquality name=eq ! fakesink name=sink "
        "videotestsrc num-buffers=5 ! video/x-raw,width=320,height=240 ! "
        "eq.ref_sink videotestsrc num-buffers=5 ! "
        "video/x-raw,width=320,height=240 ! videobalance hue=0.1 ! "
        "eq.dist_sink");
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipeline) {
    g_printerr ("%s\n", err->message);
    return 1;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);

  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    const GstStructure *s;

    if (!msg) {
      g_printerr ("timed out\n");
      status = 1;
      break;
    }
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ERROR:{
        GError *e = NULL;
        gchar *dbg = NULL;

        gst_message_parse_error (msg, &e, &dbg);
        g_printerr ("error: %s (%s)\n", e->message, dbg);
        g_clear_error (&e);
        g_free (dbg);
        status = 1;
        done = TRUE;
        break;
      }
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      default:
        s = gst_message_get_structure (msg);
        if (gst_structure_has_name (s, "exactquality")) {
          guint64 frame, ts;
          gdouble ssim;

          gst_structure_get_uint64 (s, "frame", &frame);
          gst_structure_get_uint64 (s, "timestamp", &ts);
          if (gst_structure_get_double (s, "ssim", &ssim))
            g_print ("message: frame %" G_GUINT64_FORMAT " at %"
                GST_TIME_FORMAT " ssim %.17g\n", frame, GST_TIME_ARGS (ts),
                ssim);
        } else if (gst_structure_has_name (s, "exactquality-summary")) {
          gchar *str = gst_structure_to_string (s);
          g_print ("summary: %s\n", str);
          g_free (str);
        }
        break;
    }
    /* messages and buffers travel separately: compare once both are in */
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT &&
        gst_structure_has_name (gst_message_get_structure (msg),
            "exactquality")) {
      const GstStructure *m = gst_message_get_structure (msg);
      guint64 frame;
      GstStructure *fm;
      gint i;

      gst_structure_get_uint64 (m, "frame", &frame);
      /* the buffer of this frame is pushed after its message is posted */
      fm = NULL;
      for (i = 0; i < 200 && !fm; i++) {
        g_mutex_lock (&lock);
        fm = g_hash_table_lookup (from_meta, GUINT_TO_POINTER ((guint) frame));
        g_mutex_unlock (&lock);
        if (!fm)
          g_usleep (10000);
      }
      if (!fm) {
        g_printerr ("frame %" G_GUINT64_FORMAT ": no meta\n", frame);
        status = 1;
      } else {
        for (i = 0; i < gst_structure_n_fields (fm); i++) {
          const gchar *name = gst_structure_nth_field_name (fm, i);
          gdouble a, b;

          if (!gst_structure_get_double (fm, name, &a))
            continue;
          if (!gst_structure_get_double (m, name, &b)
              || memcmp (&a, &b, sizeof (a)) != 0) {
            g_printerr ("frame %" G_GUINT64_FORMAT " %s differs\n", frame,
                name);
            status = 1;
          }
        }
        compared++;
      }
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_hash_table_unref (from_meta);
  if (compared == 0)
    status = 1;
  return status;
}
