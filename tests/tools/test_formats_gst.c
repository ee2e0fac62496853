/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The raw-format table against GStreamer itself: every name must be a
 * GStreamer format, and at sizes where GStreamer's default row alignment
 * adds no padding (64x48, 128x32), GstVideoInfo must agree with the table on
 * frame size, plane strides and depths; then every sample the library reads
 * through the table's EqFrame must equal what GStreamer's own unpack
 * function reads from the same random bytes.
 *
 * (Component byte offsets are not taken from GstVideoFormatInfo.poffset:
 * GStreamer 1.22 lists V of P010_10LE/P012_LE/P016_LE at byte 1 while its
 * unpack functions read it at byte 2, as the format is defined.)
 */
#include <gst/video/video.h>
#include <string.h>

#include "eqtest.h"
#include "formats.h"
#include "frame.h"

static void check_format(const PixFormatName *pf, int w, int h)
{
    GstVideoFormat gf = gst_video_format_from_string(pf->name);
    CHECK(gf != GST_VIDEO_FORMAT_UNKNOWN);
    if (gf == GST_VIDEO_FORMAT_UNKNOWN) {
        fprintf(stderr, "  %s is not a GStreamer format\n", pf->name);
        return;
    }
    GstVideoInfo info;
    CHECK(gst_video_info_set_format(&info, gf, (guint)w, (guint)h));
    const GstVideoFormatInfo *fi = info.finfo;

    size_t size = 0;
    CHECK(pix_frame_size(&pf->format, w, h, &size) == 0);
    CHECK(size == GST_VIDEO_INFO_SIZE(&info));

    static uint8_t buf[128 * 48 * 8];
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)g_random_int();
    EqFrame f;
    CHECK(pix_frame_wrap(&pf->format, w, h, buf, &f) == 0);
    int ncomp = eq_frame_components(&f);
    /* GRAY has one component; YUV and RGB three (alpha / x not scored). */
    CHECK(ncomp == (GST_VIDEO_FORMAT_INFO_IS_GRAY(fi) ? 1 : 3));
    EqPlane p[3];
    for (int c = 0; c < ncomp; c++) {
        CHECK(eq_frame_plane(&f, c, &p[c]) == 0);
        int plane = GST_VIDEO_FORMAT_INFO_PLANE(fi, c);
        int ok = p[c].stride == GST_VIDEO_INFO_PLANE_STRIDE(&info, plane) &&
                 p[c].step == GST_VIDEO_FORMAT_INFO_PSTRIDE(fi, c) &&
                 f.bitdepth == (int)GST_VIDEO_FORMAT_INFO_DEPTH(fi, c) &&
                 p[c].width == (int)GST_VIDEO_INFO_COMP_WIDTH(&info, c) &&
                 p[c].height == (int)GST_VIDEO_INFO_COMP_HEIGHT(&info, c);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  %s %dx%d comp %d: stride %td/%d step %td/%d depth %d/%u "
                    "size %dx%d/%dx%d\n",
                    pf->name, w, h, c, p[c].stride, GST_VIDEO_INFO_PLANE_STRIDE(&info, plane),
                    p[c].step, GST_VIDEO_FORMAT_INFO_PSTRIDE(fi, c), f.bitdepth,
                    GST_VIDEO_FORMAT_INFO_DEPTH(fi, c), p[c].width, p[c].height,
                    GST_VIDEO_INFO_COMP_WIDTH(&info, c), GST_VIDEO_INFO_COMP_HEIGHT(&info, c));
    }
    if (ncomp == 1) /* GStreamer's GRAY unpack gives Y in the first channel */
        p[1] = p[2] = p[0];

    /* GStreamer's unpack: one row to AYUV/ARGB (8-bit) or AYUV64/ARGB64,
     * values left in place (TRUNCATE_RANGE: no low-bit replication). */
    gpointer planes[GST_VIDEO_MAX_PLANES];
    gint strides[GST_VIDEO_MAX_PLANES];
    for (guint i = 0; i < GST_VIDEO_MAX_PLANES; i++) {
        planes[i] = buf + (i < GST_VIDEO_INFO_N_PLANES(&info) ? info.offset[i] : 0);
        strides[i] = info.stride[i];
    }
    int wide = GST_VIDEO_FORMAT_INFO_BITS(fi) > 8;
    guint16 row16[128 * 4];
    guint8 row8[128 * 4];
    int ss_x[3], ss_y[3];
    for (int c = 0; c < 3; c++) {
        ss_x[c] = GST_VIDEO_FORMAT_INFO_W_SUB(fi, c < ncomp ? c : 0);
        ss_y[c] = GST_VIDEO_FORMAT_INFO_H_SUB(fi, c < ncomp ? c : 0);
    }
    long differ = 0;
    for (int y = 0; y < h; y++) {
        fi->unpack_func(fi, GST_VIDEO_PACK_FLAG_TRUNCATE_RANGE, wide ? (gpointer)row16
                        : (gpointer)row8, (const gpointer *)planes, strides, 0, y, w);
        for (int x = 0; x < w; x++) {
            for (int c = 0; c < (ncomp == 1 ? 1 : 3); c++) {
                unsigned ours = eq_plane_sample(&p[c], x >> ss_x[c], y >> ss_y[c]);
                unsigned theirs = wide ? row16[4 * x + 1 + c] : row8[4 * x + 1 + c];
                /* Both as a value in the high bits of a word; GStreamer
                 * keeps a P01x word's ignored low bits, so mask them. */
                if (wide) {
                    ours = (ours << (16 - f.bitdepth)) & 0xffff;
                    theirs &= (0xffffu << (16 - f.bitdepth)) & 0xffff;
                }
                differ += ours != theirs;
            }
        }
    }
    CHECK(differ == 0);
    if (differ)
        fprintf(stderr, "  %s %dx%d: %ld samples differ from GStreamer's unpack\n", pf->name,
                w, h, differ);
    /* Little-endian words: GStreamer's _LE formats. */
    if (pf->format.bitdepth > 8)
        CHECK(GST_VIDEO_FORMAT_INFO_IS_LE(fi));
    CHECK(!!GST_VIDEO_FORMAT_INFO_IS_RGB(fi) == (pf->format.layout >= EQ_LAYOUT_RGB));
}

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    for (int i = 0; i < pix_format_count(); i++) {
        check_format(pix_format_at(i), 64, 48);
        check_format(pix_format_at(i), 128, 32);
    }
    return eqtest_done();
}
