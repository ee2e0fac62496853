/* The installed meta header compiles on its own (with only GStreamer's and
 * the library's headers on the include path).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gstexactqualitymeta.h>

int
main (void)
{
  gst_init (NULL, NULL);
  return GST_EXACT_QUALITY_META_API_TYPE != 0 &&
      GST_EXACT_QUALITY_META_INFO != NULL ? 0 : 1;
}
