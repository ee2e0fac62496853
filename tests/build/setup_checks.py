#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# lib/cuda/meson.build's setup checks, each by a `meson setup` of this tree
# into a scratch directory (no build): a gpu_arch below sm_90 or not of the
# form sm_NN is refused with its sentence; an nvcc older than the minimum
# (a stand-in script that prints an old release, first in PATH) is refused
# with -Dcuda=enabled and leaves the CUDA backend out, with a warning, with
# -Dcuda=auto; sm_90a and sm_100f are taken. Ends with "N passed, N failed".
#
#   setup_checks.py MESON SOURCE_ROOT TMPDIR
import os, re, shutil, subprocess, sys

meson, src, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(tmp, exist_ok=True)
passed = failed = 0

def setup(name, opts, env=None):
    b = os.path.join(tmp, name)
    shutil.rmtree(b, ignore_errors=True)
    p = subprocess.run([meson, 'setup', b, src, '-Dgst=disabled', '-Dtests=disabled',
                        '-Dintrospection=disabled', '-Dfuzz=disabled'] + opts,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    shutil.rmtree(b, ignore_errors=True)
    return p.returncode, p.stdout

def check(name, cond, out):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f'FAIL {name}:\n' + '\n'.join(out.splitlines()[-12:]))

for arch, says in (('sm_89', 'gpu_arch sm_89 is not supported: the kernels need sm_90 (Hopper) or newer'),
                   ('sm_80', 'gpu_arch sm_80 is not supported'),
                   ('compute_90', "gpu_arch 'compute_90' is not an architecture name like sm_90"),
                   ('sm_9x', "gpu_arch 'sm_9x' is not an architecture name like sm_90"),
                   ('sm_', "gpu_arch 'sm_' is not an architecture name like sm_90"),
                   ('sm_a90', "gpu_arch 'sm_a90' is not an architecture name like sm_90"),
                   ('sm_90af', "gpu_arch 'sm_90af' is not an architecture name like sm_90")):
    rc, out = setup('arch-' + arch, ['-Dcuda=enabled', '-Dgpu_arch=' + arch])
    check(arch, rc != 0 and says in out, out)
    rc, out = setup('auto-' + arch, ['-Dcuda=auto', '-Dgpu_arch=' + arch])
    check(arch + ' (auto)', rc != 0 and says in out, out)
for arch in ('sm_90', 'sm_90a', 'sm_100f', 'sm_120'):
    rc, out = setup('arch-' + arch, ['-Dcuda=enabled', '-Dgpu_arch=' + arch])
    check(arch, rc == 0 and re.search(r'CUDA backend\s*:\s*(True|YES)', out), out)

# an old nvcc, first in PATH
fake = os.path.join(tmp, 'old-nvcc')
os.makedirs(fake, exist_ok=True)
with open(os.path.join(fake, 'nvcc'), 'w') as f:
    f.write('#!/bin/sh\necho "nvcc: NVIDIA (R) Cuda compiler driver"\n'
            'echo "Copyright (c) 2005-2022 NVIDIA Corporation"\n'
            'echo "Cuda compilation tools, release 11.7, V11.7.99"\n')
os.chmod(os.path.join(fake, 'nvcc'), 0o755)
env = dict(os.environ, PATH=fake + os.pathsep + os.environ.get('PATH', ''))
rc, out = setup('old-enabled', ['-Dcuda=enabled'], env)
check('nvcc 11.7 (enabled)', rc != 0 and 'nvcc 11.7 (' + os.path.join(fake, 'nvcc') +
      ') is too old: the CUDA backend needs CUDA' in out, out)
rc, out = setup('old-auto', ['-Dcuda=auto'], env)
check('nvcc 11.7 (auto)', rc == 0 and 'CUDA backend not built: nvcc 11.7' in out and
      re.search(r'CUDA backend\s*:\s*(False|NO)', out), out)

print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
