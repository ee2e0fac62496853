/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A fixed pthread pool: one task at a time, jobs taken by a shared counter.
 */
#include <pthread.h>
#include <stdlib.h>

#include "exactquality.h"
#include "cpu/pool.h"

struct EqPool {
    int threads;
    pthread_t *tids;
    int n_started;
    pthread_mutex_t lock;
    pthread_cond_t wake;   /* workers wait for a new generation */
    pthread_cond_t done;   /* the caller waits for the task's end */
    unsigned generation;
    int quit;
    /* the current task */
    EqPoolFn fn;
    void *ctx;
    int n_jobs;
    int next_job;
    int busy;              /* workers still inside the task */
};

/* Takes jobs until none is left. Called with the lock held; returns with it. */
static void take_jobs(EqPool *p, int worker)
{
    while (p->next_job < p->n_jobs) {
        int job = p->next_job++;
        pthread_mutex_unlock(&p->lock);
        p->fn(p->ctx, job, worker);
        pthread_mutex_lock(&p->lock);
    }
}

typedef struct {
    EqPool *pool;
    int worker;
} WorkerArg;

static void *worker_main(void *arg)
{
    WorkerArg *wa = arg;
    EqPool *p = wa->pool;
    int worker = wa->worker;
    unsigned seen = 0;

    free(wa);
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit)
            break;
        seen = p->generation;
        p->busy++;
        take_jobs(p, worker);
        if (--p->busy == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int eq_pool_open(EqPool **out, int threads)
{
    EqPool *p = calloc(1, sizeof(*p));
    if (!p)
        return EQ_ERR_NO_MEMORY;
    p->threads = threads < 1 ? 1 : threads;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    if (p->threads > 1) {
        p->tids = calloc((size_t)p->threads - 1, sizeof(*p->tids));
        if (!p->tids)
            goto fail;
        for (int i = 1; i < p->threads; i++) {
            WorkerArg *wa = malloc(sizeof(*wa));
            if (!wa)
                goto fail;
            wa->pool = p;
            wa->worker = i;
            if (pthread_create(&p->tids[i - 1], NULL, worker_main, wa) != 0) {
                free(wa);
                goto fail;
            }
            p->n_started++;
        }
    }
    *out = p;
    return 0;

fail:
    eq_pool_close(&p);
    return EQ_ERR_NO_MEMORY;
}

void eq_pool_close(EqPool **pool)
{
    EqPool *p;
    if (!pool || !*pool)
        return;
    p = *pool;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->n_started; i++)
        pthread_join(p->tids[i], NULL);
    free(p->tids);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
    *pool = NULL;
}

int eq_pool_threads(const EqPool *pool)
{
    return pool ? pool->n_started + 1 : 1;
}

void eq_pool_run(EqPool *p, int n_jobs, EqPoolFn fn, void *ctx)
{
    if (!p || p->n_started == 0 || n_jobs <= 1) {
        for (int j = 0; j < n_jobs; j++)
            fn(ctx, j, 0);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->n_jobs = n_jobs;
    p->next_job = 0;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    p->busy++;
    take_jobs(p, 0);
    p->busy--;
    while (p->busy > 0 || p->next_job < p->n_jobs)
        pthread_cond_wait(&p->done, &p->lock);
    p->fn = NULL;
    pthread_mutex_unlock(&p->lock);
}
