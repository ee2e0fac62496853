/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CUDA backend when the library is built without CUDA.
 */
#include "internal.h"

int eq_cuda_is_built(void)
{
    return 0;
}

int eq_cuda_device_available(char *why, size_t why_size)
{
    if (why && why_size)
        why[0] = '\0';
    return 0;
}

int eq_cuda_open(EqCuda **out, const EqSettings *settings, const EqLog *log)
{
    (void)settings;
    *out = NULL;
    eq_log(log, EQ_LOG_ERROR, "this build of exactquality has no CUDA backend");
    return EQ_ERR_NOT_BUILT;
}

void eq_cuda_close(EqCuda **cuda)
{
    if (cuda)
        *cuda = NULL;
}

unsigned eq_cuda_metrics(const EqCuda *cuda)
{
    (void)cuda;
    return 0;
}

int eq_cuda_score(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist,
                  unsigned metrics, EqScores *out)
{
    (void)cuda, (void)ref, (void)dist, (void)metrics, (void)out;
    return EQ_ERR_NOT_BUILT;
}

int eq_cuda_score_device(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist,
                         void *stream, unsigned metrics, EqScores *out)
{
    (void)cuda, (void)ref, (void)dist, (void)stream, (void)metrics, (void)out;
    return EQ_ERR_NOT_BUILT;
}
