#!/bin/bash
# One call on the GPU machine (the device tool's `run`): tools/cuda_gpu_check.sh
# with the given steps, its logs in a folder of their own, its summary on
# stdout, and the logs in one archive under $OUT (the device tool brings back
# only a few files). The decoded fixtures travel with the call (carry
# .dev/fix; docs/cuda.md, "Tests"); the whole run is held under
# CALL_TIMEOUT seconds (default 565, inside the call's 600).
#
#   SEED=N tools/cuda_gpu_call.sh build kernels errors parity fixtures fedwalk
set -u
dest=${OUT:-$PWD/gpu-out}
mkdir -p "$dest"
logs=$(mktemp -d "${TMPDIR:-/tmp}/eq-gpu-logs.XXXXXX")
name=$(echo "${*:-default}" | tr ' ' '-')
OUT=$logs FIX=${FIX:-$PWD/.dev/fix} timeout "${CALL_TIMEOUT:-565}" tools/cuda_gpu_check.sh "$@"
rc=$?
[ $rc = 124 ] && echo "cuda_gpu_call.sh: stopped after ${CALL_TIMEOUT:-565} s"
tar czf "$dest/logs-$name.tgz" -C "$logs" . && echo "logs: $dest/logs-$name.tgz"
exit $rc
