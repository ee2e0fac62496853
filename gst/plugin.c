/* GStreamer exactquality
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstexactquality.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (exactquality, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR,
    GST_VERSION_MINOR,
    exactquality,
    "Video quality metrics whose GPU results equal the CPU reference's bits",
    plugin_init, PACKAGE_VERSION, "LGPL", "exactquality",
    "https://example.invalid/exactquality")
