#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reads exactquality's scores in Python through the meta library's typelib
(gi.repository.GstExactQuality): the GstExactQualityMeta of each output
buffer, then checks that it holds the same bits as the per-frame
"exactquality" message of the same frame.

Usage: read_meta_gi.py [REF.mkv DIST.mkv]   (without files: videotestsrc)
The typelib must be on GI_TYPELIB_PATH and its library on LD_LIBRARY_PATH
(a build folder's gst/), unless installed.
Exits 77 (meson's "skipped") when gi / GStreamer's Python bindings are missing.
"""
import struct
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    print(f"skipped: gst-python is not available ({e})")
    sys.exit(77)

gi.require_version("GstExactQuality", "1.0")
from gi.repository import GstExactQuality  # noqa: E402

Meta = GstExactQuality.ExactQualityMeta
NICKS = [Meta.value_nick(i) for i in range(Meta.n_values())]


def on_buffer(pad, info, from_meta):
    m = GstExactQuality.buffer_get_exact_quality_meta(info.get_buffer())
    if m is not None:
        values = {}
        for i, nick in enumerate(NICKS):
            present, v = m.get_nth_value(i)
            if present:
                values[nick] = v
        from_meta[m.frame] = (m.backend, values)
    return Gst.PadProbeReturn.OK


def main(argv):
    Gst.init(None)
    if len(argv) == 3:
        dec = ("filesrc location={} ! matroskademux ! decodebin ! videoconvert ! "
               "video/x-raw,format=I420")
        src_ref, src_dist = dec.format(argv[1]), dec.format(argv[2])
    else:
        caps = "video/x-raw,format=I420,width=320,height=240,framerate=25/1"
        src_ref = f"videotestsrc num-buffers=8 pattern=ball ! {caps}"
        src_dist = f"videotestsrc num-buffers=8 pattern=ball ! {caps} ! videobalance contrast=0.8"
    pipeline = Gst.parse_launch(
        f"exactquality name=eq ! fakesink name=sink "
        f"{src_ref} ! eq.ref_sink {src_dist} ! eq.dist_sink")
    from_meta = {}
    pipeline.get_by_name("sink").get_static_pad("sink").add_probe(
        Gst.PadProbeType.BUFFER, on_buffer, from_meta)

    from_messages = {}
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    while True:
        msg = bus.timed_pop_filtered(120 * Gst.SECOND, Gst.MessageType.ELEMENT |
                                     Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg is None or msg.type == Gst.MessageType.ERROR:
            print("error:", msg.parse_error()[0].message if msg else "timed out",
                  file=sys.stderr)
            pipeline.set_state(Gst.State.NULL)
            return 1
        if msg.type == Gst.MessageType.EOS:
            break
        s = msg.get_structure()
        if s.get_name() == "exactquality":
            from_messages[s.get_uint64("frame")[1]] = {
                nick: s.get_double(nick)[1] for nick in NICKS if s.has_field(nick)}
    pipeline.set_state(Gst.State.NULL)

    if not from_meta or sorted(from_meta) != sorted(from_messages):
        print(f"frames: meta {sorted(from_meta)}, messages {sorted(from_messages)}",
              file=sys.stderr)
        return 1
    for frame, (backend, values) in sorted(from_meta.items()):
        if {k: struct.pack("<d", v) for k, v in values.items()} != \
                {k: struct.pack("<d", v) for k, v in from_messages[frame].items()}:
            print(f"frame {frame}: meta {values}, message {from_messages[frame]}",
                  file=sys.stderr)
            return 1
        print(f"frame {frame} ({backend}): " + " ".join(
            f"{k}={values[k]:.17g}" for k in ("psnr-y", "ssim", "ms-ssim", "ssimulacra2")
            if k in values))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
