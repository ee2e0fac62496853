#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes the seed corpus of fuzz_y4m (tests/fuzz/corpus/y4m/): small valid
# streams in every colour space the reader takes, and a few damaged ones.
import os, random, sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'corpus', 'y4m')
os.makedirs(out, exist_ok=True)
rng = random.Random(20261202)

def frame_bytes(chroma, w, h):
    depth = 8
    for d in (10, 12, 16):
        if chroma.endswith(f'p{d}') or chroma == f'mono{d}':
            depth = d
    b = 2 if depth > 8 else 1
    cw, ch = (w + 1) // 2, (h + 1) // 2
    if chroma.startswith('mono'):
        n = w * h
    elif chroma.startswith('420'):
        n = w * h + 2 * cw * ch
    elif chroma.startswith('422'):
        n = w * h + 2 * cw * h
    else:
        n = 3 * w * h
    if b == 1:
        return bytes(rng.randrange(256) for _ in range(n))
    out = bytearray()
    for _ in range(n):
        v = rng.randrange(1 << depth)
        out += bytes((v & 255, v >> 8))
    return bytes(out)

def stream(name, header, chroma, w, h, frames=2, frame_hdr=b'FRAME\n', cut=None):
    data = header + b'\n'
    for _ in range(frames):
        data += frame_hdr + frame_bytes(chroma, w, h)
    if cut is not None:
        data = data[:cut]
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)

for chroma in ('420jpeg', '420mpeg2', '420paldv', '420', '422', '444', 'mono',
               '420p10', '420p12', '420p16', '422p10', '422p12', '422p16',
               '444p10', '444p12', '444p16', 'mono10', 'mono12', 'mono16'):
    w, h = 9, 7
    stream(f'{chroma}', f'YUV4MPEG2 W{w} H{h} F25:1 Ip A1:1 C{chroma}'.encode(), chroma, w, h)
stream('default-420', b'YUV4MPEG2 W16 H8 F30000:1001', '420', 16, 8)
stream('xcolorrange', b'YUV4MPEG2 W8 H8 F25:1 Ip A0:0 C444 XYSCSS=444 XCOLORRANGE=FULL',
       '444', 8, 8)
stream('frame-params', b'YUV4MPEG2 W8 H4 C420jpeg', '420', 8, 4, frame_hdr=b'FRAME Ip XFOO\n')
stream('interlaced', b'YUV4MPEG2 W8 H4 C420jpeg It', '420', 8, 4)
stream('truncated-frame', b'YUV4MPEG2 W8 H4 C420jpeg', '420', 8, 4, cut=60)
stream('truncated-header', b'YUV4MPEG2 W8 H4 C420jpeg', '420', 8, 4, cut=15)
stream('no-height', b'YUV4MPEG2 W8 C420jpeg', '420', 8, 4, frames=0)
stream('huge', b'YUV4MPEG2 W8192 H8192 C444p16', '420', 1, 1, frames=0)
stream('bad-frame-header', b'YUV4MPEG2 W8 H4 C420jpeg', '420', 8, 4, frame_hdr=b'FRAMX\n')
stream('1x1', b'YUV4MPEG2 W1 H1 Cmono', 'mono', 1, 1, frames=3)
