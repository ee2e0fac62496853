#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes the seed corpus of fuzz_api (tests/fuzz/corpus/api/): one input per
# layout and bit depth at a few sizes, with padding and misalignment. The
# header layout is documented in fuzz_api.c.
import os, random, sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'corpus', 'api')
os.makedirs(out, exist_ok=True)
rng = random.Random(20261202)

def seed(name, layout, depth_idx, w, h, metrics, msb=0, pad=(0, 0, 0), off=(0, 0, 0),
         threads=0, mode=0, flags=0, body=256):
    hdr = bytearray(16)
    hdr[0] = layout
    hdr[1] = depth_idx
    hdr[2] = msb | flags
    hdr[3] = (w - 1) & 255
    hdr[4] = ((w - 1) >> 8) & 1 | (((h - 1) >> 8) & 1) << 1 | (8 if w > 64 or h > 64 else 0)
    hdr[5] = (h - 1) & 255
    hdr[6] = metrics
    hdr[7:10] = bytes(pad)
    hdr[10:13] = bytes(off)
    hdr[13] = threads
    hdr[14] = mode
    data = bytes(hdr) + bytes(rng.randrange(256) for _ in range(body))
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)

for layout in range(9):
    for d, depth in enumerate((8, 10, 12, 16)):
        if layout >= 5 and depth != 8 and not (layout == 5 and depth == 16):
            continue
        seed(f'l{layout}-d{depth}-24x20', layout, d, 24, 20, 15, pad=(5, 3, 1), off=(1, 2, 3))
        seed(f'l{layout}-d{depth}-msb', layout, d, 17, 13, 15, msb=1, threads=1)
    seed(f'l{layout}-1x1', layout, 0, 1, 1, 15)
    seed(f'l{layout}-176', layout, 0, 176, 176, 15, mode=1, body=0)
    seed(f'l{layout}-same', layout, 1, 40, 36, 15, mode=4)
seed('psnr-only-wide', 1, 0, 512, 3, 1)
seed('ssimulacra2-8x8', 3, 0, 8, 8, 8)
seed('ssim-11x11', 0, 0, 11, 11, 2)
seed('short-stride', 1, 0, 32, 32, 15, pad=(0xc1, 0, 0))
seed('negative-stride', 0, 0, 32, 32, 15, pad=(0xff, 0, 0))
seed('mismatch', 1, 0, 32, 32, 15, flags=8)
seed('bad-metrics', 1, 0, 32, 32, 0)
seed('bad-depth', 1, 13, 32, 32, 15)
seed('empty', 1, 0, 32, 32, 15, flags=0)  # overwritten below with width 0
with open(os.path.join(out, 'empty'), 'r+b') as f:
    f.seek(4)
    f.write(bytes([4]))
