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
#include "cpu/pool.h"

struct EqCpuSsimState;   /* lib/cpu/ssim.c: planes kept between frames */
struct EqCpuMsSsimState; /* lib/cpu/ms_ssim.c */
struct EqCpuS2State;     /* lib/cpu/ssimulacra2.c */

struct EqCpu {
    EqSettings settings;
    EqLog log;
    int threads; /* resolved worker count, >= 1 */
    EqPool *pool; /* `threads` threads, the caller's included */
    struct EqCpuSsimState *ssim;
    struct EqCpuMsSsimState *ms_ssim;
    struct EqCpuS2State *ssimulacra2;
};

int eq_cpu_psnr(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out);
int eq_cpu_ssim(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out);
int eq_cpu_ms_ssim(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out);
int eq_cpu_ssimulacra2(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out);

/* Buffers a metric keeps between frames; called by eq_cpu_close. */
void eq_cpu_ssim_free(EqCpu *cpu);
void eq_cpu_ms_ssim_free(EqCpu *cpu);
void eq_cpu_ssimulacra2_free(EqCpu *cpu);

#endif /* EQ_CPU_H */
