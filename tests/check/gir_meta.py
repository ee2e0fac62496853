#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""GstExactQualityMeta through its GObject-Introspection typelib.

A real pipeline (two videotestsrc, the distorted one through videobalance)
runs the exactquality element; an appsink takes the output buffers. Each
buffer's meta is read through gi.repository.GstExactQuality (the typelib of
this build: GI_TYPELIB_PATH) and every value is compared with the element's
per-frame bus message for the same frame: the same double (== and the same
bit pattern), the same set of values present, the same frame, backend and
reference running time; the buffer is the scored one (its PTS is the
message's timestamp).

Exits 77 (meson's "skipped") only when gi or GStreamer's typelib is missing.
"""
import os
import struct
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    print(f"skipped: python3-gi / GStreamer's typelib are not available ({e})")
    sys.exit(77)

# From here on a missing piece is a failure: this test is only registered
# when the build made the typelib.
gi.require_version("GIRepository", "2.0")
gi.require_version("GstExactQuality", "1.0")
from gi.repository import GIRepository, GstExactQuality  # noqa: E402

FRAMES = 4
CAPS = "video/x-raw,format={},width=320,height=240,framerate=25/1"


def bits(x):
    return struct.pack("<d", x)


class Failures:
    def __init__(self):
        self.n = 0

    def check(self, ok, what):
        if not ok:
            self.n += 1
            print(f"FAIL: {what}", file=sys.stderr)


def read_meta(buf):
    """Everything the typelib gives for one buffer, read in the appsink."""
    m = GstExactQuality.buffer_get_exact_quality_meta(buf)
    if m is None:
        return None
    n = GstExactQuality.ExactQualityMeta.n_values()
    values, by_nick = {}, {}
    for i in range(n):
        nick = GstExactQuality.ExactQualityMeta.value_nick(i)
        present, v = m.get_nth_value(i)
        if present:
            values[nick] = v
        ok, w = m.get_value(nick)
        by_nick[nick] = w if ok else None
    beyond = (GstExactQuality.ExactQualityMeta.value_nick(n),
              m.get_nth_value(n)[0], m.get_value("no-such-value")[0])
    s = m.to_structure()
    view = {s.nth_field_name(i): s.get_value(s.nth_field_name(i))
            for i in range(s.n_fields())}
    return {
        "frame": m.frame, "backend": m.backend,
        "ref_running_time": m.ref_running_time, "pts": buf.pts,
        "values": values, "by_nick": by_nick, "beyond": beyond,
        "structure": view,
    }


def run(f, props, fmt, absent):
    """One pipeline: the element with props, frames converted to fmt; the
    value nicks in absent must be missing from every meta."""
    caps = CAPS.format(fmt)
    print(f"exactquality {props or '(defaults)'}, {fmt}")
    pipeline = Gst.parse_launch(
        f"exactquality name=eq {props} ! appsink name=sink sync=false emit-signals=true "
        f"videotestsrc num-buffers={FRAMES} pattern=ball ! videoconvert ! {caps} ! eq.ref_sink "
        f"videotestsrc num-buffers={FRAMES} pattern=ball ! "
        f"videobalance contrast=0.8 brightness=0.05 ! videoconvert ! {caps} ! eq.dist_sink")

    from_meta = []

    def on_new_sample(sink):
        sample = sink.emit("pull-sample")
        from_meta.append(read_meta(sample.get_buffer()))
        return Gst.FlowReturn.OK

    pipeline.get_by_name("sink").connect("new-sample", on_new_sample)

    from_messages = {}
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    while True:
        msg = bus.timed_pop_filtered(120 * Gst.SECOND,
                                     Gst.MessageType.ELEMENT | Gst.MessageType.EOS |
                                     Gst.MessageType.ERROR)
        if msg is None:
            f.check(False, "timed out")
            break
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            f.check(False, f"error: {err.message} ({dbg})")
            break
        if msg.type == Gst.MessageType.EOS:
            break
        s = msg.get_structure()
        if s.get_name() == "exactquality":
            from_messages[s.get_uint64("frame")[1]] = {
                s.nth_field_name(i): s.get_value(s.nth_field_name(i))
                for i in range(s.n_fields())}
    pipeline.set_state(Gst.State.NULL)

    f.check(len(from_meta) == FRAMES, f"{len(from_meta)} buffers, expected {FRAMES}")
    f.check(all(m is not None for m in from_meta), "a buffer without the meta")
    f.check(sorted(from_messages) == list(range(FRAMES)),
            f"messages for frames {sorted(from_messages)}")
    from_meta = [m for m in from_meta if m is not None]
    f.check([m["frame"] for m in from_meta] == list(range(FRAMES)),
            f"meta frames {[m['frame'] for m in from_meta]}")

    nicks = [GstExactQuality.ExactQualityMeta.value_nick(i)
             for i in range(GstExactQuality.ExactQualityMeta.n_values())]
    for want in ("psnr-y", "psnr-cb", "psnr-cr", "ssim", "ms-ssim", "ssimulacra2"):
        f.check(want in nicks, f"value nick {want} not listed")

    distinct = set()
    for m in from_meta:
        frame = m["frame"]
        msg = from_messages.get(frame)
        if msg is None:
            continue
        f.check(m["backend"] == msg["backend"],
                f"frame {frame}: backend {m['backend']!r}, message {msg['backend']!r}")
        f.check(m["ref_running_time"] == msg["ref-running-time"],
                f"frame {frame}: ref_running_time {m['ref_running_time']}, "
                f"message {msg['ref-running-time']}")
        f.check(m["pts"] == msg["timestamp"],
                f"frame {frame}: buffer PTS {m['pts']}, message {msg['timestamp']}")
        msg_values = {k: v for k, v in msg.items() if k in nicks}
        f.check(sorted(m["values"]) == sorted(msg_values),
                f"frame {frame}: values present {sorted(m['values'])}, "
                f"message {sorted(msg_values)}")
        for nick, v in m["values"].items():
            want = msg_values.get(nick)
            f.check(isinstance(v, float) and want is not None and v == want and
                    bits(v) == bits(want),
                    f"frame {frame} {nick}: typelib {v!r}, message {want!r}")
            got = m["by_nick"][nick]
            f.check(got is not None and bits(got) == bits(v),
                    f"frame {frame} {nick}: get_value {got!r}, get_nth_value {v!r}")
            view = m["structure"].get(nick)
            f.check(view is not None and bits(view) == bits(v),
                    f"frame {frame} {nick}: to_structure {view!r}, get_nth_value {v!r}")
            distinct.add((nick, v))
        for nick, got in m["by_nick"].items():
            f.check(nick in m["values"] or got is None,
                    f"frame {frame} {nick}: get_value finds an absent value")
        for nick in absent:
            f.check(nick not in m["values"] and m["by_nick"][nick] is None and
                    nick not in msg,
                    f"frame {frame} {nick}: present, expected absent")
        f.check(m["beyond"] == (None, False, False),
                f"frame {frame}: out of range index / unknown nick gave {m['beyond']}")
        f.check(m["structure"].get("frame") == frame and
                m["structure"].get("backend") == m["backend"],
                f"frame {frame}: to_structure frame/backend {m['structure']}")
        print(f"frame {frame} ({m['backend']}): {len(m['values'])} values, " +
              " ".join(f"{k}={m['values'][k]:.17g}" for k in
                       ("psnr-y", "ssim", "ms-ssim", "ssimulacra2") if k in m["values"]))

    # the pictures differ (ball moves, contrast changed): the values are
    # real scores, not one constant read back for every field
    f.check(len({v for _, v in distinct}) > FRAMES * 2,
            f"only {len({v for _, v in distinct})} distinct values")


def main():
    Gst.init(None)
    f = Failures()

    where = GIRepository.Repository.get_default().get_typelib_path("GstExactQuality")
    build_gst = os.environ.get("EQ_BUILD_GST_DIR", "")
    f.check(build_gst and where and os.path.dirname(os.path.realpath(where)) ==
            os.path.realpath(build_gst),
            f"typelib loaded from {where}, not from the build folder {build_gst}")
    if Gst.ElementFactory.find("exactquality") is None:
        print("the exactquality plugin is not on GST_PLUGIN_PATH", file=sys.stderr)
        return 1

    # every metric (every value present) ...
    run(f, "", "I420", [])
    # ... and values absent: two metrics only, and no chroma in GRAY8
    run(f, "metrics=psnr+ssim", "GRAY8",
        ["psnr-cb", "psnr-cr", "ms-ssim", "ssimulacra2", "ms-ssim-l-scale0"])
    print(f"{f.n} failures")
    return 1 if f.n else 0


if __name__ == "__main__":
    sys.exit(main())
