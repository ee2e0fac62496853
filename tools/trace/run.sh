#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The engine's phases by clock64 / %globaltimer stamps (printf), SSIM at 4K
# and 1080p: the fused small launch per block, split_chunk's steps, the
# small walk and walk_chunks' step kinds (docs/performance.md, session 17,
# item 3). On the GPU machine, from the repository root:
#   OUT=... bash tools/trace/run.sh
# It copies the tree to /tmp/tr, patches lib/cuda/ordsum.cu there
# (patch_ordsum.py: the patterns are the source's own lines, so it stops
# with an AssertionError once they change) and builds bench_cuda.
# The printf calls inside split_chunk and walk_chunks lengthen the blocks
# that make them (a split block's last phase then reads about 1 ms): their
# own steps are stamped before they print, but the fused kernel's phases
# and span are read from a patch without those two parts (the first half
# of patch_ordsum.py), as performance.md's table was.
# Its patterns follow main as of session 31 (the fed walk's flags, the
# chain, the crossing records' copy and steps; TW's six phases: flags,
# the records' flags, segments and loads, copies, chain, walk loop; the
# fused kernel's chunk sum published before its first barrier, so TF's
# "publish" phase is empty and a first chunk's prewalk lies in "stage+sum").
# TRACE_REUSE=1 keeps the build of the call before (another form of the
# walk, say EXACTQUALITY_CUDA_CROSSREC=on, with another OUT).
# LIGHT=1 stamps only the fused blocks and the walk (patch_ordsum.py
# --light): the fused span and the blocks' ends as they are untraced
# (not with SPLIT_WALK=1, whose stamps lie in the part it leaves out).
# SIZES (default "3840x2160 1920x1080") and METRICS (default ssim) choose
# the frames: SIZES=576x324 METRICS=ssimulacra2, say, for SSIMULACRA2's
# fused launch of scales 1.. (one metric at a time: its launches are told
# apart by time only).
# XS=1 also stamps cross_split's steps and a split block's FED publish
# (patch_ordsum.py --cross-split, session 47; with the default
# EXACTQUALITY_CUDA_CROSSREC, split): their printf lengthens the split
# blocks, so read the fused span from a build without it.
# BENCH_ARGS are added to bench_cuda's (BENCH_ARGS="--pairs 1", say:
# one frame pair, a quarter of the input's footprint; session 49).
# SPLIT_WALK=1 also stamps split_walk's two passes (patch_ordsum.py
# --split-walk, performance.md session 18, item 3); its printf lengthens
# the walk.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O; R=$PWD
export PATH=$PATH:/usr/local/cuda/bin
if [ "${TRACE_REUSE:-0}" != 1 ] || [ ! -x /tmp/b-tr/tools/bench_cuda ]; then
  rm -rf /tmp/tr /tmp/b-tr && mkdir -p /tmp/tr && tar --exclude=./build-cuda --exclude=./.git --exclude=./.dev --exclude=./tests/data -cf - . | tar -xf - -C /tmp/tr
  sw=; [ "${SPLIT_WALK:-0}" = 1 ] && sw=--split-walk
  [ "${LIGHT:-0}" = 1 ] && sw="$sw --light"
  [ "${XS:-0}" = 1 ] && sw="$sw --cross-split"
  python3 tools/trace/patch_ordsum.py $sw /tmp/tr/lib/cuda/ordsum.cu || exit 1
  (cd /tmp/tr && meson setup /tmp/b-tr -Dgst=disabled -Dcuda=enabled --buildtype=release > $O/build-tr.log 2>&1 && ninja -C /tmp/b-tr tools/bench_cuda >> $O/build-tr.log 2>&1) || { tail -20 $O/build-tr.log; exit 1; }
fi
for sz in ${SIZES:-3840x2160 1920x1080}; do
  /tmp/b-tr/tools/bench_cuda --sizes $sz --metrics ${METRICS:-ssim} --frames 4 --warmup 2 --profile \
    ${BENCH_ARGS:-} > $O/trace-$sz.log 2>&1
  echo "== $sz"; grep profile $O/trace-$sz.log; python3 tools/trace/report.py $O/trace-$sz.log
done
