/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal: a small fixed pthread pool for the CPU reference. eq_pool_run()
 * runs fn(ctx, job, worker) for job = 0 .. n_jobs-1 on the calling thread and
 * the pool's workers, and returns when all are done. Jobs are handed out in
 * increasing order; `worker` (0 .. eq_pool_threads()-1) indexes per-thread
 * scratch. Parallelism never changes a result: jobs write disjoint outputs,
 * and every floating-point sum stays sequential (see lib/cpu/ssim.c).
 */
#ifndef EQ_CPU_POOL_H
#define EQ_CPU_POOL_H

typedef struct EqPool EqPool;
typedef void (*EqPoolFn)(void *ctx, int job, int worker);

/* threads >= 1; 1 creates no thread. 0 or a negative EQ_ERR_*. */
int eq_pool_open(EqPool **out, int threads);
void eq_pool_close(EqPool **pool);
int eq_pool_threads(const EqPool *pool);
void eq_pool_run(EqPool *pool, int n_jobs, EqPoolFn fn, void *ctx);

#endif /* EQ_CPU_POOL_H */
