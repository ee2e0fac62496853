/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * bench_cuda: median milliseconds per frame of each metric on the CUDA
 * backend, 8-bit 4:2:0, exact sums against the tree-sum variant of the same
 * kernels, with input already on the device (eq_scorer_score_device) and
 * from host memory (eq_scorer_score: upload included; pageable and
 * page-locked).
 *
 *   bench_cuda [--frames N] [--warmup N] [--sizes 576x324,1920x1080,3840x2160]
 *              [--metrics psnr,ssim,ms_ssim,ssimulacra2] [--threads N,... [--tree]]
 *              [--profile [--tree]] [--interleave | --interleave-same] [--gate US]
 *              [--pairs N] [--scorers K]
 *
 * Frames rotate among 4 seeded pairs so that the L2 cache does not hold
 * the input. Device-input times are CUDA events on the caller's stream
 * around each call; host-input times are the host clock around each call
 * (which returns with the scores). --threads 1,2,4,8 runs, for each count N
 * in the list, N scorers on N threads (each with its own stream, all
 * scoring the same frame pairs), device and page-locked host input, and
 * reports the aggregate milliseconds per frame: the wall time from the
 * moment every scorer has finished its 5 warm-up calls (which open its
 * buffers and tables) to the last one's end, over all frames of all
 * threads; then the same with the warm-up and the scorers' setup counted
 * (the figure before session 25); and the median per call of thread 0.
 * With --tree, each count runs again with the tree sums, and the exact
 * aggregate over the tree's is printed: the cost of exactness when
 * scorers share the device, where one scorer's walk of its sums (a few
 * blocks) leaves room for another's kernels.
 *
 * --gate US (with --interleave or --profile; device input): before each
 * call a host function holds the stream for US microseconds
 * (cudaLaunchHostFunc) and the first event follows it, so that the call
 * has queued all its launches before the GPU reaches them. The events
 * then time the GPU's work without waits for the host's launches (and, in
 * both sum modes alike, the host's return from the call's wait for the
 * scores, before the second event); wall times include the gate, so read
 * the events. Without it a short frame can be bound by the host's
 * launches, which hides part of the device's work (docs/performance.md,
 * sessions 49 and 50). With --profile (the light trace's runs) it gives
 * the trace of a frame whose launches were all queued first.
 *
 * --pairs N (1 to 4, default 4): only the first N pairs rotate. With fewer,
 * the frames a call reads span fewer pages and bytes (a 4K pair is 25 MB):
 * a test of whether the input's footprint (the L2 cache, the TLBs) slows
 * the kernels after it; with 1 or 2, --interleave's modes share pairs
 * and the second call of a step may find its input in the L2.
 *
 * --scorers K (2 to 8, with --interleave; device input only): K scorers
 * open at once, each with its own buffers, timed in turn, three rounds
 * (scorer 0 .. K-1, then again): a scorer whose ratio stays apart from the
 * others' round after round points at where its buffers lie, not at the
 * time (docs/performance.md, session 50).
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/common/framegen.h"
#include "cuda/cuda.h"

#define NPAIRS 4

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int gate_us;         /* --gate */
static int npairs = NPAIRS; /* --pairs: how many of the pairs rotate */
static int nscorers = 1;    /* --scorers: how many scorers are timed in turn */

/* The gate: runs on the driver's thread and holds its stream meanwhile. */
static void CUDART_CB gate_fn(void *arg)
{
    const double until = now_ms() + *(const int *)arg * 1e-3;
    while (now_ms() < until)
        ;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void log_cb(void *user, EqLogLevel level, const char *msg)
{
    (void)user;
    if (level <= EQ_LOG_WARNING)
        fprintf(stderr, "exactquality: %s\n", msg);
}

typedef struct Pairs {
    FgFrame host[NPAIRS][2];   /* pageable */
    EqFrame pinned[NPAIRS][2]; /* page-locked copies */
    EqFrame dev[NPAIRS][2];    /* device copies */
    void *mem[NPAIRS][2][2][3];
} Pairs;

static int make_pairs(Pairs *p, int w, int h)
{
    static const FgFormat fmt = {"yuv420p", EQ_LAYOUT_YUV420P, 8, 0};
    memset(p, 0, sizeof(*p));
    for (int k = 0; k < NPAIRS; k++) {
        if (fg_alloc(&p->host[k][0], &fmt, w, h, 0) < 0 ||
            fg_alloc(&p->host[k][1], &fmt, w, h, 0) < 0)
            return -1;
        fg_fill(&p->host[k][0], 1000 + k, 1);
        fg_distort(&p->host[k][1], &p->host[k][0], 2000 + k, 6);
        for (int f = 0; f < 2; f++) {
            p->pinned[k][f] = p->host[k][f].f;
            p->dev[k][f] = p->host[k][f].f;
            for (int i = 0; i < 3; i++) {
                int spp, bw, bh;
                fg_buffer_geometry(&p->host[k][f].f, i, &spp, &bw, &bh);
                size_t n = (size_t)p->host[k][f].f.stride[i] * bh;
                if (cudaMallocHost(&p->mem[k][f][0][i], n) != cudaSuccess ||
                    cudaMalloc(&p->mem[k][f][1][i], n) != cudaSuccess)
                    return -1;
                memcpy(p->mem[k][f][0][i], p->host[k][f].f.data[i], n);
                cudaMemcpy(p->mem[k][f][1][i], p->host[k][f].f.data[i], n,
                           cudaMemcpyHostToDevice);
                p->pinned[k][f].data[i] = p->mem[k][f][0][i];
                p->dev[k][f].data[i] = p->mem[k][f][1][i];
            }
        }
    }
    return 0;
}

static void free_pairs(Pairs *p)
{
    for (int k = 0; k < NPAIRS; k++)
        for (int f = 0; f < 2; f++) {
            fg_free(&p->host[k][f]);
            for (int i = 0; i < 3; i++) {
                if (p->mem[k][f][0][i])
                    cudaFreeHost(p->mem[k][f][0][i]);
                if (p->mem[k][f][1][i])
                    cudaFree(p->mem[k][f][1][i]);
            }
        }
}

enum { IN_DEVICE, IN_PINNED, IN_PAGEABLE };
static const char *in_names[] = {"device", "host-pinned", "host-pageable"};

/* Scores pair k once from `input`: *wall the host's ms around the call,
 * *ev the CUDA-event ms for device input (0 otherwise). */
typedef struct Timer {
    cudaStream_t stream;
    cudaEvent_t e0, e1;
} Timer;

static int score_once(EqScorer *sc, Pairs *p, int k, int input, Timer *tm, double *wall,
                      double *ev)
{
    EqScores out;
    int err;
    float ms = 0;
    double t0 = now_ms();
    if (input == IN_DEVICE) {
        if (gate_us > 0 && cudaLaunchHostFunc(tm->stream, gate_fn, &gate_us) != cudaSuccess) {
            fprintf(stderr, "could not gate the stream\n");
            return -1;
        }
        cudaEventRecord(tm->e0, tm->stream);
        err = eq_scorer_score_device(sc, &p->dev[k][0], &p->dev[k][1], tm->stream, &out);
        cudaEventRecord(tm->e1, tm->stream);
        cudaEventSynchronize(tm->e1);
    } else if (input == IN_PINNED) {
        err = eq_scorer_score(sc, &p->pinned[k][0], &p->pinned[k][1], &out);
    } else {
        err = eq_scorer_score(sc, &p->host[k][0].f, &p->host[k][1].f, &out);
    }
    *wall = now_ms() - t0;
    if (err < 0) {
        fprintf(stderr, "scoring failed: %s\n", eq_strerror(err));
        return err;
    }
    if (input == IN_DEVICE)
        cudaEventElapsedTime(&ms, tm->e0, tm->e1);
    *ev = ms;
    return 0;
}

static void timer_open(Timer *tm)
{
    cudaStreamCreateWithFlags(&tm->stream, cudaStreamNonBlocking);
    cudaEventCreate(&tm->e0);
    cudaEventCreate(&tm->e1);
}

static void timer_close(Timer *tm)
{
    cudaEventDestroy(tm->e0);
    cudaEventDestroy(tm->e1);
    cudaStreamDestroy(tm->stream);
}

/* Median ms/frame of one configuration; *ev_ms gets the CUDA-event median
 * for device input. */
/* With `ready` (--threads), the calling thread waits there once after its
 * warm-up, also when a call failed, so that no thread waits for it in vain. */
static double run_config(EqScorer *sc, Pairs *p, int input, int warmup, int frames,
                         double *ev_ms, pthread_barrier_t *ready)
{
    double *t = malloc(sizeof(double) * (size_t)frames);
    double *te = malloc(sizeof(double) * (size_t)frames);
    Timer tm;
    double m = -1;
    int waited = 0;

    timer_open(&tm);
    for (int i = -warmup; i < frames; i++) {
        double wall, ev;
        if (i == 0 && ready) {
            pthread_barrier_wait(ready);
            waited = 1;
        }
        if (score_once(sc, p, (i + warmup) % npairs, input, &tm, &wall, &ev) < 0)
            goto done;
        if (i >= 0) {
            t[i] = wall;
            te[i] = ev;
        }
    }
    m = median(t, frames);
    *ev_ms = input == IN_DEVICE ? median(te, frames) : 0;
done:
    if (ready && !waited)
        pthread_barrier_wait(ready);
    timer_close(&tm);
    free(t);
    free(te);
    return m;
}

/* --interleave: the exact and the tree sums frame by frame on one scorer,
 * so that whatever drifts during a run (clocks, the host's load) falls on
 * both; median ms/frame of each in ms[0] (exact) and ms[1] (tree),
 * CUDA-event medians in ev[] for device input. Returns -1 when scoring
 * failed. Step n scores two pairs, 2n and 2n + 1 (mod npairs), exact first
 * in two steps of four and tree first in the others, so that each sum mode
 * sees every pair, as often first as second, and never the pair the other
 * just read: a 4K pair (25 MB) fits in the L2 cache, and the second call
 * on the same pair found its input there. `same` (--interleave-same) keeps
 * that older order, exact then tree on one pair, to show its bias (PSNR,
 * whose two modes are one kernel, measured 1.25 at 4K on an H100 so:
 * docs/performance.md, session 48). */
static int run_interleaved(EqScorer *sc, Pairs *p, int input, int warmup, int frames, int same,
                           double ms[2], double ev[2])
{
    double *t[2], *te[2];
    Timer tm;
    int rc = -1;

    for (int m = 0; m < 2; m++) {
        t[m] = malloc(sizeof(double) * (size_t)frames);
        te[m] = malloc(sizeof(double) * (size_t)frames);
    }
    timer_open(&tm);
    for (int i = -warmup; i < frames; i++) {
        const int n = i + warmup;
        for (int j = 0; j < 2; j++) {
            const int m = same ? j : j ^ ((n >> 1) & 1); /* 0: exact, 1: tree */
            const int k = same ? n % npairs : (2 * n + j) % npairs;
            double wall, e;
            eq_cuda_set_sum_mode(sc->cuda, m ? EQ_CUDA_SUM_TREE : EQ_CUDA_SUM_EXACT);
            if (score_once(sc, p, k, input, &tm, &wall, &e) < 0)
                goto done;
            if (i >= 0) {
                t[m][i] = wall;
                te[m][i] = e;
            }
        }
    }
    for (int m = 0; m < 2; m++) {
        ms[m] = median(t[m], frames);
        ev[m] = input == IN_DEVICE ? median(te[m], frames) : 0;
    }
    rc = 0;
done:
    eq_cuda_set_sum_mode(sc->cuda, EQ_CUDA_SUM_EXACT);
    timer_close(&tm);
    for (int m = 0; m < 2; m++) {
        free(t[m]);
        free(te[m]);
    }
    return rc;
}

/* One line of run_interleaved's medians: the walls, the exact event, their
 * ratio, `what` (how they were taken), the tree's event and the events'
 * ratio. */
static void print_interleaved(const char *size, unsigned metric, int in, const double ms[2],
                              const double ev[2], const char *what)
{
    printf("%-10s %-12s %-14s %10.4f %10.4f %10.4f %8.3f %s (tree event %.4f, ex/tree %.3f)\n",
           size, eq_metric_name(metric), in_names[in], ms[0], ms[1], ev[0],
           ms[1] > 0 ? ms[0] / ms[1] : 0, what, ev[1], ev[1] > 0 ? ev[0] / ev[1] : 0);
    fflush(stdout);
}

/* --scorers: sc and nscorers - 1 more scorers of settings s, open at
 * once (each with its own buffers, allocated at its first call), timed by
 * run_interleaved on device input in turn, three rounds. */
static int run_scorers(EqScorer *sc, const EqSettings *s, Pairs *p, int warmup, int frames,
                       int same, const char *size)
{
    EqScorer *scs[8] = {sc};
    int rc = 0;

    for (int k = 1; k < nscorers && rc == 0; k++)
        rc = eq_scorer_open(&scs[k], s) < 0 ? -1 : 0;
    for (int r = 1; r <= 3 && rc == 0; r++)
        for (int k = 0; k < nscorers && rc == 0; k++) {
            double ms[2], ev[2];
            char what[32];
            if ((rc = run_interleaved(scs[k], p, IN_DEVICE, warmup, frames, same, ms, ev)) < 0)
                break;
            snprintf(what, sizeof(what), "scorer %d round %d", k, r);
            print_interleaved(size, s->metrics, IN_DEVICE, ms, ev, what);
        }
    for (int k = 1; k < nscorers; k++)
        if (scs[k])
            eq_scorer_close(&scs[k]);
    return rc;
}

/* 1 when `name` is one of the comma-separated words of `list`. */
static int has_name(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len + (e ? 1 : 0);
    }
    return 0;
}

typedef struct ThreadArg {
    EqScorer *sc;
    Pairs *p;
    int frames;
    int input;
    double ms;
    pthread_barrier_t *ready;
} ThreadArg;

static void *thread_main(void *v)
{
    ThreadArg *a = v;
    double ev;
    a->ms = run_config(a->sc, a->p, a->input, 5, a->frames, &ev, a->ready);
    return NULL;
}

/* --threads: n scorers on n threads (each its own stream), all scoring
 * the same pairs with sums in `mode` (EQ_CUDA_SUM_EXACT or _TREE). *agg
 * gets the aggregate ms/frame from the moment every scorer has finished
 * its warm-up to the last one's end, *agg_setup the same with the warm-up
 * and the scorers' setup, *med thread 0's median per call. Returns -1
 * when a scorer could not be opened or a call failed. */
static int run_threads(const EqSettings *s, Pairs *p, int n, int in, int frames, int mode,
                       double *agg, double *agg_setup, double *med)
{
    EqScorer *scs[16];
    ThreadArg args[16];
    pthread_t th[16];
    pthread_barrier_t ready;
    int opened = 0, rc = 0;

    for (int t = 0; t < n && rc == 0; t++) {
        if (eq_scorer_open(&scs[t], s) < 0) {
            rc = -1;
            break;
        }
        opened++;
        if (eq_cuda_set_sum_mode(scs[t]->cuda, mode) < 0)
            rc = -1;
        args[t] = (ThreadArg){scs[t], p, frames, in, 0, &ready};
    }
    if (rc == 0) {
        pthread_barrier_init(&ready, NULL, (unsigned)n + 1);
        const double t0 = now_ms();
        for (int t = 0; t < n; t++)
            pthread_create(&th[t], NULL, thread_main, &args[t]);
        pthread_barrier_wait(&ready);
        const double t1 = now_ms();
        for (int t = 0; t < n; t++)
            pthread_join(th[t], NULL);
        const double t2 = now_ms();
        pthread_barrier_destroy(&ready);
        *agg = (t2 - t1) / ((double)n * frames);
        *agg_setup = (t2 - t0) / ((double)n * (frames + 5));
        *med = args[0].ms;
        for (int t = 0; t < n; t++)
            rc = args[t].ms < 0 ? -1 : rc;
    }
    for (int t = 0; t < opened; t++)
        eq_scorer_close(&scs[t]);
    return rc;
}

int main(int argc, char **argv)
{
    int frames = 200, warmup = 20, profile = 0, interleave = 0, tree = 0;
    const char *threads = NULL;
    const char *sizes = "576x324,1920x1080,3840x2160";
    const char *mlist = "psnr,ssim,ms_ssim,ssimulacra2";
    char why[256];

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
            warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes = argv[++i];
        else if (!strcmp(argv[i], "--metrics") && i + 1 < argc)
            mlist = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = argv[++i];
        else if (!strcmp(argv[i], "--profile"))
            profile = 1; /* device input, exact sums only: for ncu */
        else if (!strcmp(argv[i], "--tree"))
            tree = 1; /* with --profile: the tree sums instead; with --threads: too */
        else if (!strcmp(argv[i], "--interleave"))
            interleave = 1; /* exact and tree frame by frame (run_interleaved) */
        else if (!strcmp(argv[i], "--interleave-same"))
            interleave = 2; /* the same, both on one pair, exact first (biased) */
        else if (!strcmp(argv[i], "--gate") && i + 1 < argc)
            gate_us = atoi(argv[++i]); /* device input: all launches queued first */
        else if (!strcmp(argv[i], "--pairs") && i + 1 < argc)
            npairs = atoi(argv[++i]); /* 1 .. NPAIRS frame pairs in turn */
        else if (!strcmp(argv[i], "--scorers") && i + 1 < argc)
            nscorers = atoi(argv[++i]); /* open at once, timed in turn */
        else {
            fprintf(stderr,
                    "usage: %s [--frames N] [--warmup N] [--sizes WxH,...] "
                    "[--metrics a,b] [--threads N,... [--tree]] [--profile [--tree]] "
                    "[--interleave | --interleave-same] [--gate US] [--pairs N] "
                    "[--scorers K]\n",
                    argv[0]);
            return 2;
        }
    }
    if (tree && !profile && !threads) {
        fprintf(stderr,
                "%s: --tree goes with --profile or --threads (the other modes time both "
                "sums)\n",
                argv[0]);
        return 2;
    }
    if (gate_us > 0 && (!(interleave || profile) || threads)) {
        fprintf(stderr,
                "%s: --gate goes with --interleave (whose lines give both sums' events) "
                "or --profile\n",
                argv[0]);
        return 2;
    }
    if (nscorers < 1 || nscorers > 8 || (nscorers > 1 && (!interleave || threads))) {
        fprintf(stderr, "%s: --scorers takes 1 to 8, with --interleave\n", argv[0]);
        return 2;
    }
    if (npairs < 1 || npairs > NPAIRS) {
        fprintf(stderr, "%s: --pairs takes 1 to %d\n", argv[0], NPAIRS);
        return 2;
    }
    if (frames < 1)
        frames = 1;
    if (!eq_cuda_device_available(why, sizeof(why))) {
        printf("no CUDA device (%s)\n", why);
        return 77;
    }

    printf("%-10s %-12s %-14s %10s %10s %10s %8s\n", "size", "metric", "input", "exact_ms",
           "tree_ms", "event_ms", "ex/tree");
    char sizebuf[256];
    snprintf(sizebuf, sizeof(sizebuf), "%s", sizes);
    for (char *sv = strtok(sizebuf, ","); sv; sv = strtok(NULL, ",")) {
        int w, h;
        if (sscanf(sv, "%dx%d", &w, &h) != 2)
            continue;
        Pairs *p = calloc(1, sizeof(*p));
        if (!p || make_pairs(p, w, h) < 0) {
            fprintf(stderr, "could not allocate %dx%d frames\n", w, h);
            return 1;
        }
        for (unsigned m = 1; m <= EQ_METRIC_SSIMULACRA2; m <<= 1) {
            if (!has_name(mlist, eq_metric_name(m)))
                continue;
            EqSettings s;
            EqScorer *sc = NULL;
            eq_settings_init(&s);
            s.backend = EQ_BACKEND_CUDA;
            s.metrics = m;
            s.log = log_cb;
            if (eq_scorer_open(&sc, &s) < 0)
                return 1;
            if (!(eq_cuda_metrics(sc->cuda) & m)) {
                printf("%-10s %-12s (not on the device yet)\n", sv, eq_metric_name(m));
                eq_scorer_close(&sc);
                continue;
            }
            if (profile) {
                double ev = 0;
                if (tree)
                    eq_cuda_set_sum_mode(sc->cuda, EQ_CUDA_SUM_TREE);
                double ms = run_config(sc, p, IN_DEVICE, warmup, frames, &ev, NULL);
                printf("%-10s %-12s profile: %.4f ms\n", sv, eq_metric_name(m), ms);
                eq_scorer_close(&sc);
                continue;
            }
            if (nscorers > 1) {
                if (run_scorers(sc, &s, p, warmup, frames, interleave == 2, sv) < 0)
                    return 1;
                eq_scorer_close(&sc);
                continue;
            }
            for (int in = IN_DEVICE; interleave && in <= IN_PAGEABLE; in++) {
                double ms[2], ev[2];
                if (run_interleaved(sc, p, in, warmup, frames, interleave == 2, ms, ev) < 0)
                    return 1;
                print_interleaved(sv, m, in, ms, ev,
                                  interleave == 2 ? "interleaved on one pair" : "interleaved");
            }
            for (int in = IN_DEVICE; !interleave && in <= IN_PAGEABLE; in++) {
                double ev_exact = 0, ev_tree = 0;
                eq_cuda_set_sum_mode(sc->cuda, EQ_CUDA_SUM_EXACT);
                double ex = run_config(sc, p, in, warmup, frames, &ev_exact, NULL);
                eq_cuda_set_sum_mode(sc->cuda, EQ_CUDA_SUM_TREE);
                double tr = run_config(sc, p, in, warmup, frames, &ev_tree, NULL);
                printf("%-10s %-12s %-14s %10.4f %10.4f %10.4f %8.3f\n", sv, eq_metric_name(m),
                       in_names[in], ex, tr, ev_exact, tr > 0 ? ex / tr : 0);
                fflush(stdout);
            }
            eq_cuda_set_sum_mode(sc->cuda, EQ_CUDA_SUM_EXACT);
            eq_scorer_close(&sc);

            for (const char *tv = threads; tv && *tv;) {
                int n = atoi(tv);
                const char *comma = strchr(tv, ',');
                tv = comma ? comma + 1 : NULL;
                if (n < 1)
                    continue;
                n = n > 16 ? 16 : n;
                for (int in = IN_DEVICE; in <= IN_PINNED; in++) {
                    static const int modes[2] = {EQ_CUDA_SUM_EXACT, EQ_CUDA_SUM_TREE};
                    double exact_agg = 0;
                    for (int mi = 0; mi < (tree ? 2 : 1); mi++) {
                        const int mode = modes[mi];
                        double agg, agg_setup, med;
                        if (run_threads(&s, p, n, in, frames, mode, &agg, &agg_setup, &med) <
                            0) {
                            fprintf(stderr, "%d scorers (%s sums) failed\n", n,
                                    mode == EQ_CUDA_SUM_TREE ? "tree" : "exact");
                            continue;
                        }
                        printf("%-10s %-12s %-14s %2d scorers%s: %.4f ms/frame aggregate "
                               "after the warm-up (%.4f with it and the setup; median per "
                               "call %.4f)",
                               sv, eq_metric_name(m), in_names[in], n,
                               mode == EQ_CUDA_SUM_TREE ? " (tree)" : "", agg, agg_setup, med);
                        if (mode == EQ_CUDA_SUM_TREE)
                            printf(", ex/tree %.3f", agg > 0 ? exact_agg / agg : 0);
                        printf("\n");
                        exact_agg = mode == EQ_CUDA_SUM_EXACT ? agg : exact_agg;
                        fflush(stdout);
                    }
                }
            }
        }
        free_pairs(p);
        free(p);
    }
    return 0;
}
