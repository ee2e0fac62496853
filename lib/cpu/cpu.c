/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * CPU backend: dispatch to the per-metric reference scorers.
 */
#include <stdlib.h>
#include <unistd.h>

#include "cpu/cpu.h"

int eq_cpu_open(EqCpu **out, const EqSettings *settings, const EqLog *log)
{
    EqCpu *cpu = calloc(1, sizeof(*cpu));
    if (!cpu)
        return EQ_ERR_NO_MEMORY;
    cpu->settings = *settings;
    cpu->log = *log;
    cpu->threads = settings->threads;
    if (cpu->threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        cpu->threads = n > 0 ? (int)n : 1;
    }
    if (cpu->threads > 256)
        cpu->threads = 256;
    if (eq_pool_open(&cpu->pool, cpu->threads) < 0) {
        eq_log(log, EQ_LOG_ERROR, "cpu: cannot start %d worker threads", cpu->threads);
        free(cpu);
        return EQ_ERR_NO_MEMORY;
    }
    *out = cpu;
    return 0;
}

void eq_cpu_close(EqCpu **cpu)
{
    if (!cpu || !*cpu)
        return;
    eq_cpu_ssim_free(*cpu);
    eq_cpu_ms_ssim_free(*cpu);
    eq_cpu_ssimulacra2_free(*cpu);
    eq_pool_close(&(*cpu)->pool);
    free(*cpu);
    *cpu = NULL;
}

typedef int (*EqCpuMetricFn)(EqCpu *, const EqFrame *, const EqFrame *, EqScores *);

int eq_cpu_score(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist,
                 unsigned metrics, EqScores *out)
{
    static const struct {
        unsigned metric;
        EqCpuMetricFn fn;
    } table[] = {
        { EQ_METRIC_PSNR, eq_cpu_psnr },
        { EQ_METRIC_SSIM, eq_cpu_ssim },
        { EQ_METRIC_MS_SSIM, eq_cpu_ms_ssim },
        { EQ_METRIC_SSIMULACRA2, eq_cpu_ssimulacra2 },
    };
    int first_err = 0;

    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (!(metrics & table[i].metric))
            continue;
        int err = table[i].fn(cpu, ref, dist, out);
        out->status[eq_metric_index(table[i].metric)] = err;
        if (err < 0) {
            out->scored &= ~table[i].metric;
            if (!first_err)
                first_err = err;
        } else {
            out->scored |= table[i].metric;
        }
    }
    return first_err;
}
