/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The exact ordered sum on the host, in the device's layout (internal).
 *
 * One function per kernel stage, so the CUDA backend and CI run the same
 * arithmetic (lib/exact/ordsum.h) in the same grouping:
 *
 *   eq_ordsum_chunk_sums    tree sum of each chunk (the plan's input)
 *   eq_ordsum_plan_tree     binade per chunk from the prefix of chunk sums
 *   eq_ordsum_plan_adjust   test plans (too high, zero, fixed, random, none)
 *   eq_ordsum_chunk_runs    per lane: its terms in order; per chunk: the
 *                           ordered tree across lanes
 *   eq_ordsum_segment_runs  per aligned group of chunks: runs of the chunks
 *                           that share a planned binade, by a segmented scan
 *   eq_ordsum_walk          the exact running sum over segments, chunks and,
 *                           where a check fails, terms
 *
 * Terms are read as x[i * stride] (stride in elements, may be negative).
 */
#ifndef EQ_EXACT_ORDSUM_HOST_H
#define EQ_EXACT_ORDSUM_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "exact/ordsum.h"

typedef enum EqOrdPlanKind {
    EQ_ORD_PLAN_TREE = 0, /* the real plan: binade of the approximate prefix */
    EQ_ORD_PLAN_HIGH,     /* one binade too high on every planned chunk */
    EQ_ORD_PLAN_ZERO,     /* every entry 0 (binade [1, 2)) */
    EQ_ORD_PLAN_FIXED,    /* every entry spec->fixed */
    EQ_ORD_PLAN_RANDOM,   /* seeded mix of right, wrong and "none" */
    EQ_ORD_PLAN_NONE,     /* every chunk term by term */
} EqOrdPlanKind;

typedef struct EqOrdPlanSpec {
    EqOrdPlanKind kind;
    int fixed;     /* EQ_ORD_PLAN_FIXED: the binade */
    uint64_t seed; /* EQ_ORD_PLAN_RANDOM */
} EqOrdPlanSpec;

/* What the walk did. */
typedef struct EqOrdStats {
    size_t terms;
    size_t chunks;
    size_t segments;            /* segments of two or more chunks tried */
    size_t segments_applied;    /* ... applied in one step */
    size_t chunks_applied;      /* chunks applied by a run (in segments too) */
    size_t chunks_term_by_term; /* chunks whose run was not applied (pieces) */
    size_t terms_term_by_term;  /* terms added with the plain add */
    size_t checks;              /* run checks (eq_ord_apply calls) on the walk */
} EqOrdStats;

/* The layout eq_ordsum() uses: 4 terms per lane, 256 lanes per chunk,
 * segments of up to 64 chunks, fallback pieces of 16 lanes. */
extern const EqOrdLayout eq_ordsum_default_layout;

/* 0 when the layout is usable (every count >= 1, chunk <= 2^20 terms). */
int eq_ordsum_layout_check(const EqOrdLayout *layout);

size_t eq_ordsum_chunk_terms(const EqOrdLayout *layout);
size_t eq_ordsum_nchunks(size_t n, const EqOrdLayout *layout);

void eq_ordsum_chunk_sums(const double *x, size_t n, ptrdiff_t stride,
                          const EqOrdLayout *layout, double *chunk_sum);
void eq_ordsum_plan_tree(double s0, const double *chunk_sum, size_t nchunks, int *plan);
void eq_ordsum_plan_adjust(const EqOrdPlanSpec *spec, int *plan, size_t nchunks);
/* lane_runs: scratch of layout->lanes_per_chunk runs. */
void eq_ordsum_chunk_runs(const double *x, size_t n, ptrdiff_t stride,
                          const EqOrdLayout *layout, const int *plan, EqOrdRun *runs,
                          EqOrdRun *lane_runs);
/* seg[c], seg_len[c] are set at segment heads (seg_len 0 elsewhere);
 * scratch: layout->chunks_per_segment elements. */
void eq_ordsum_segment_runs(const EqOrdRun *runs, const int *plan, size_t nchunks,
                            const EqOrdLayout *layout, EqOrdRun *seg, int *seg_len,
                            EqOrdSegRun *scratch);
/* s0: the value the loop starts from (the loop's own start is +0.0). */
double eq_ordsum_walk(const double *x, size_t n, ptrdiff_t stride, double s0,
                      const EqOrdLayout *layout, const int *plan, const EqOrdRun *runs,
                      const EqOrdRun *seg, const int *seg_len, EqOrdStats *stats);

/* The whole pipeline: the bits of `s = s0; for (i...) s += x[i * stride];`.
 * Returns 0 and the sum in *sum, or
 * EQ_ERR_INVALID_ARGUMENT (bad layout or plan) or
 * EQ_ERR_NO_MEMORY. stats may be NULL. */
int eq_ordsum_host(const double *x, size_t n, ptrdiff_t stride, double s0,
                   const EqOrdLayout *layout, const EqOrdPlanSpec *spec, double *sum,
                   EqOrdStats *stats);

/* Convenience: the sequential sum's bits through the pipeline (default
 * layout, tree plan). Where memory is short it adds in order instead,
 * which is the same value by definition. */
double eq_ordsum(const double *x, size_t n);
double eq_ordsum_strided(const double *x, size_t n, ptrdiff_t stride);

/* The plain loop, for comparison. */
double eq_ordsum_loop(const double *x, size_t n, ptrdiff_t stride, double s0);

#endif /* EQ_EXACT_ORDSUM_HOST_H */
