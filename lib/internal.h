/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal: the scorer object, logging and the backend table.
 */
#ifndef EQ_INTERNAL_H
#define EQ_INTERNAL_H

#include "exactquality.h"
#include "frame.h"

#if defined(__GNUC__)
#define EQ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define EQ_PRINTF(a, b)
#endif

/* Where a message goes: the caller's callback, or nowhere. */
typedef struct EqLog {
    EqLogCallback cb;
    void *user;
} EqLog;

void eq_log(const EqLog *log, EqLogLevel level, const char *fmt, ...) EQ_PRINTF(3, 4);

/* NaN for values that are absent. */
double eq_nan(void);

typedef struct EqCpu EqCpu;   /* lib/cpu/cpu.c */
typedef struct EqCuda EqCuda; /* lib/cuda/, or the stub without CUDA */

struct EqScorer {
    EqSettings settings;
    EqLog log;
    EqBackend backend;  /* resolved: CPU or CUDA */
    EqCpu *cpu;         /* always present: reference, fallback, and metrics
                           the device does not do */
    EqCuda *cuda;       /* NULL unless backend == EQ_BACKEND_CUDA */
};

/* Resolved colour for SSIMULACRA2: settings override the frame. */
void eq_resolve_colour(const EqSettings *s, const EqFrame *f, EqMatrix *matrix, EqRange *range);

/* ---- CPU backend (lib/cpu/) ---- */
int eq_cpu_open(EqCpu **out, const EqSettings *settings, const EqLog *log);
void eq_cpu_close(EqCpu **cpu);
/* Scores `metrics` into out (sets scored bits and status). */
int eq_cpu_score(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist,
                 unsigned metrics, EqScores *out);

/* ---- CUDA backend (lib/cuda/, or lib/cuda_stub.c) ---- */
int eq_cuda_open(EqCuda **out, const EqSettings *settings, const EqLog *log);
void eq_cuda_close(EqCuda **cuda);
/* Metrics the device scores itself. */
unsigned eq_cuda_metrics(const EqCuda *cuda);
int eq_cuda_score(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist,
                  unsigned metrics, EqScores *out);
int eq_cuda_score_device(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist,
                         void *stream, unsigned metrics, EqScores *out);
int eq_cuda_is_built(void);
/* 1 when the runtime reports a device (cudaGetDeviceCount > 0). */
int eq_cuda_device_available(char *why, size_t why_size);

#endif /* EQ_INTERNAL_H */
