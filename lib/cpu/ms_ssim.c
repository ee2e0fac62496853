/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cpu/cpu.h"

int eq_cpu_ms_ssim(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out)
{
    (void)ref;
    (void)dist;
    (void)out;
    eq_log(&cpu->log, EQ_LOG_ERROR, "ms_ssim: not implemented yet");
    return EQ_ERR_NOT_BUILT;
}
