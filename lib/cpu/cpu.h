/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal: the CPU reference backend. One metric per file; each returns 0
 * and fills its members of EqScores, or a negative EQ_ERR_* after logging a
 * sentence that names the metric.
 */
#ifndef EQ_CPU_H
#define EQ_CPU_H

#include "internal.h"

struct EqCpu {
    EqSettings settings;
    EqLog log;
    int threads; /* resolved worker count, >= 1 */
};

int eq_cpu_psnr(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out);
int eq_cpu_ssim(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out);
int eq_cpu_ms_ssim(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out);
int eq_cpu_ssimulacra2(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out);

#endif /* EQ_CPU_H */
