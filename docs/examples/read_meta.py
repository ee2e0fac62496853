#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reads exactquality's scores in Python (gst-python), two ways:

1. from each output buffer's meta, through its GstStructure view: the custom
   meta "GstExactQualityStructureMeta" (bindings cannot see the C struct
   GstExactQualityMeta; this structure holds the same values);
2. from the per-frame "exactquality" element messages on the bus.

Usage: read_meta.py [REF.mkv DIST.mkv]   (without files: videotestsrc)
Prints one line per frame and checks that both ways give the same bits.
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


def bits(x):
    return struct.pack("<d", x)


def main(argv):
    Gst.init(None)
    if Gst.ElementFactory.find("exactquality") is None:
        print("the exactquality plugin is not on GST_PLUGIN_PATH", file=sys.stderr)
        return 1
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

    def on_buffer(pad, info):
        buf = info.get_buffer()
        meta = buf.get_custom_meta("GstExactQualityStructureMeta")
        if meta is not None:
            s = meta.get_structure()
            frame = s.get_uint64("frame")[1]
            values = {s.nth_field_name(i): s.get_value(s.nth_field_name(i))
                      for i in range(s.n_fields())}
            from_meta[frame] = values
        return Gst.PadProbeReturn.OK

    sinkpad = pipeline.get_by_name("sink").get_static_pad("sink")
    sinkpad.add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    from_messages = {}
    summary = None
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    while True:
        msg = bus.timed_pop_filtered(120 * Gst.SECOND,
                                     Gst.MessageType.ELEMENT | Gst.MessageType.EOS |
                                     Gst.MessageType.ERROR)
        if msg is None:
            print("timed out", file=sys.stderr)
            return 1
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print(f"error: {err.message} ({dbg})", file=sys.stderr)
            return 1
        if msg.type == Gst.MessageType.EOS:
            break
        s = msg.get_structure()
        if s.get_name() == "exactquality":
            frame = s.get_uint64("frame")[1]
            from_messages[frame] = {s.nth_field_name(i): s.get_value(s.nth_field_name(i))
                                    for i in range(s.n_fields())}
        elif s.get_name() == "exactquality-summary":
            summary = s
    pipeline.set_state(Gst.State.NULL)

    if not from_meta or sorted(from_meta) != sorted(from_messages):
        print(f"frames: meta {sorted(from_meta)}, messages {sorted(from_messages)}",
              file=sys.stderr)
        return 1
    for frame in sorted(from_meta):
        meta, msg = from_meta[frame], from_messages[frame]
        doubles = {k: v for k, v in meta.items() if isinstance(v, float)}
        for k, v in doubles.items():
            if k not in msg or bits(msg[k]) != bits(v):
                print(f"frame {frame} {k}: meta {v!r}, message {msg.get(k)!r}",
                      file=sys.stderr)
                return 1
        shown = " ".join(f"{k}={v:.17g}" for k, v in doubles.items()
                         if k in ("psnr-y", "ssim", "ms-ssim", "ssimulacra2"))
        print(f"frame {frame} ({meta['backend']}): {shown}")
    print(f"summary: {summary.get_uint64('frames')[1]} frames, "
          f"{summary.get_uint64('unpaired')[1]} unpaired")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
