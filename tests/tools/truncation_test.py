#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# exactquality-score on truncated YUV4MPEG2 input, cut at many offsets: the
# stream header, the frame headers (and one byte either side of them), and
# every 89th byte of the payload; REF cut as well as DIST.
# For every cut: no crash (an exit status, never a signal), the rows printed
# are exactly the first rows of the uncut run (a truncated frame is never
# scored), one per complete frame, and unless the cut is the whole file the
# exit status is non-zero with one sentence on stderr that says what is wrong.
#
#   truncation_test.py EXACTQUALITY_SCORE TMPDIR
import os, random, subprocess, sys

tool, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
W, H, FRAMES = 40, 24, 3
FRAME = W * H + 2 * ((W + 1) // 2) * ((H + 1) // 2)
rng = random.Random(7)

def y4m(noise):
    header = f'YUV4MPEG2 W{W} H{H} F25:1 Ip A1:1 C420jpeg\n'.encode()
    data = bytearray(header)
    starts = []
    for k in range(FRAMES):
        starts.append(len(data))
        data += b'FRAME\n'
        data += bytes(min(255, max(0, (x * 7 + k * 13) % 256 + (rng.randrange(2 * noise + 1) - noise)))
                      for x in range(FRAME))
    return bytes(data), len(header), starts

ref, _, _ = y4m(0)
dist, hlen, starts = y4m(6)
paths = {'ref': os.path.join(tmp, 'ref.y4m'), 'dist': os.path.join(tmp, 'dist.y4m')}
for name, data in (('ref', ref), ('dist', dist)):
    with open(paths[name], 'wb') as f:
        f.write(data)

def run(ref_path, dist_path):
    p = subprocess.run([tool, '-q', '-t', '1', '-m', 'psnr,ssim,ssimulacra2', ref_path, dist_path],
                       capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode().splitlines(), p.stderr.decode().strip()

rc, full, err = run(paths['ref'], paths['dist'])
assert rc == 0 and len(full) == FRAMES + 1, (rc, full, err)

cuts = set(range(0, hlen + 2, 5)) | {hlen - 1, hlen, hlen + 1}
for s in starts:
    cuts |= {s - 1, s, s + 1, s + 5, s + 6, s + 7}
cuts |= set(range(hlen, len(dist), 89))
cuts |= {len(dist) - 1, len(dist)}
cuts = sorted(c for c in cuts if 0 <= c <= len(dist))

failures = checked = 0
for side in ('dist', 'ref'):
    for cut in cuts:
        data = (dist if side == 'dist' else ref)[:cut]
        cut_path = os.path.join(tmp, f'cut-{side}.y4m')
        with open(cut_path, 'wb') as f:
            f.write(data)
        args = (paths['ref'], cut_path) if side == 'dist' else (cut_path, paths['dist'])
        rc, rows, err = run(*args)
        complete = sum(1 for s in starts if s + 6 + FRAME <= cut)
        problems = []
        if rc < 0 or rc >= 128:
            problems.append(f'killed by a signal / crashed (status {rc})')
        if cut == len(dist):
            if rc != 0:
                problems.append(f'uncut file failed: {err}')
        else:
            if rc == 0:
                problems.append('a truncated input was accepted')
            if not err or len(err.splitlines()) != 1:
                problems.append(f'expected one error line, got {err!r}')
        want = full[:1 + complete] if complete or rows else []
        if rows and rows != want:
            problems.append(f'rows are not the first {complete} rows of the uncut run: {rows}')
        if len(rows) > 1 + complete:
            problems.append('a truncated frame was scored')
        checked += 1
        if problems:
            failures += 1
            print(f'{side} cut at {cut} of {len(dist)}: ' + '; '.join(problems))
print(f'{checked} cuts checked, {failures} failed')
sys.exit(1 if failures else 0)
