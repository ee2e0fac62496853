/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The exact ordered sum on the host, in the device's layout. Every stage
 * uses the shared arithmetic of lib/exact/ordsum.h; the loops here stand
 * for the kernels' threads (a lane, a block, one walking thread).
 */
#include "exact/ordsum_host.h"

#include <stdlib.h>

#include "exactquality.h"

const EqOrdLayout eq_ordsum_default_layout = {4, 256, 64, 16};

int eq_ordsum_layout_check(const EqOrdLayout *layout)
{
    if (!layout || layout->terms_per_lane < 1 || layout->lanes_per_chunk < 1 ||
        layout->chunks_per_segment < 1 || layout->lanes_per_piece < 0)
        return EQ_ERR_INVALID_ARGUMENT;
    if ((long)layout->terms_per_lane * layout->lanes_per_chunk > (1L << 20) ||
        layout->chunks_per_segment > (1 << 20))
        return EQ_ERR_INVALID_ARGUMENT;
    return 0;
}

size_t eq_ordsum_chunk_terms(const EqOrdLayout *layout)
{
    return (size_t)layout->terms_per_lane * (size_t)layout->lanes_per_chunk;
}

size_t eq_ordsum_nchunks(size_t n, const EqOrdLayout *layout)
{
    size_t ct = eq_ordsum_chunk_terms(layout);
    return (n + ct - 1) / ct;
}

static inline double term_at(const double *x, size_t i, ptrdiff_t stride)
{
    return x[(ptrdiff_t)i * stride];
}

/* The plan's input: per chunk, each lane adds its terms in order, then the
 * lanes are added by the ordered tree. Only advice: any order would do. */
void eq_ordsum_chunk_sums(const double *x, size_t n, ptrdiff_t stride,
                          const EqOrdLayout *layout, double *chunk_sum)
{
    size_t ct = eq_ordsum_chunk_terms(layout);
    size_t nchunks = eq_ordsum_nchunks(n, layout);
    int lanes = layout->lanes_per_chunk, tpl = layout->terms_per_lane;
    size_t c;

    for (c = 0; c < nchunks; c++) {
        double lane_sum[64];
        double acc = 0.0;
        int l;
        /* lanes in blocks of 64 on the host stack; the tree over 64 lanes,
         * then in order across blocks (advice: grouping is free) */
        for (l = 0; l < lanes; l += 64) {
            int nl = lanes - l < 64 ? lanes - l : 64, k, step;
            for (k = 0; k < nl; k++) {
                size_t i0 = c * ct + (size_t)(l + k) * (size_t)tpl;
                double ls = 0.0;
                int t;
                for (t = 0; t < tpl && i0 + (size_t)t < n; t++)
                    ls += term_at(x, i0 + (size_t)t, stride);
                lane_sum[k] = ls;
            }
            for (step = 1; step < nl; step *= 2)
                for (k = 0; k + step < nl; k += 2 * step)
                    lane_sum[k] += lane_sum[k + step];
            acc += lane_sum[0];
        }
        chunk_sum[c] = acc;
    }
}

/* The binade each chunk is planned under: that of the approximate sum of
 * all chunks before it, when the approximate sum after it is in the same
 * binade (eq_ord_plan_chunk). The device forms this prefix with a scan; any
 * grouping is advice. The first chunk (prefix 0) goes term by term. */
void eq_ordsum_plan_tree(double s0, const double *chunk_sum, size_t nchunks, int *plan)
{
    double prefix = s0;
    size_t c;
    for (c = 0; c < nchunks; c++) {
        double next = prefix + chunk_sum[c];
        plan[c] = eq_ord_plan_chunk(prefix, next);
        prefix = next;
    }
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int clamp_binade(int e)
{
    if (e == EQ_ORD_NONE)
        return e;
    return e < EQ_ORD_EMIN ? EQ_ORD_EMIN : e > EQ_ORD_EMAX ? EQ_ORD_EMAX : e;
}

/* Wrong plans for tests and the tool: the walk must give the same bits. */
void eq_ordsum_plan_adjust(const EqOrdPlanSpec *spec, int *plan, size_t nchunks)
{
    uint64_t state = spec->seed;
    size_t c;
    for (c = 0; c < nchunks; c++) {
        switch (spec->kind) {
        case EQ_ORD_PLAN_TREE:
            break;
        case EQ_ORD_PLAN_HIGH:
            if (plan[c] != EQ_ORD_NONE)
                plan[c] = clamp_binade(plan[c] + 1);
            break;
        case EQ_ORD_PLAN_ZERO:
            plan[c] = 0;
            break;
        case EQ_ORD_PLAN_FIXED:
            plan[c] = spec->fixed;
            break;
        case EQ_ORD_PLAN_NONE:
            plan[c] = EQ_ORD_NONE;
            break;
        case EQ_ORD_PLAN_RANDOM: {
            uint64_t r = splitmix64(&state);
            switch (r & 7) {
            case 0:
                plan[c] = EQ_ORD_NONE;
                break;
            case 1:
                plan[c] = EQ_ORD_EMIN + (int)((r >> 8) % (EQ_ORD_EMAX - EQ_ORD_EMIN + 1));
                break;
            case 2:
                plan[c] = plan[c] == EQ_ORD_NONE ? 0 : clamp_binade(plan[c] - 1);
                break;
            case 3:
                plan[c] = plan[c] == EQ_ORD_NONE ? -1 : clamp_binade(plan[c] + 1);
                break;
            default:
                break; /* right (as far as the tree plan is) */
            }
            break;
        }
        }
    }
}

/* Per chunk: each lane composes its terms_per_lane terms in order under the
 * chunk's binade, then the ordered tree across the lanes. Chunks planned
 * "none" get a poisoned run (never applied). */
void eq_ordsum_chunk_runs(const double *x, size_t n, ptrdiff_t stride,
                          const EqOrdLayout *layout, const int *plan, EqOrdRun *runs,
                          EqOrdRun *lane_runs)
{
    size_t ct = eq_ordsum_chunk_terms(layout);
    size_t nchunks = eq_ordsum_nchunks(n, layout);
    int lanes = layout->lanes_per_chunk, tpl = layout->terms_per_lane;
    size_t c;

    for (c = 0; c < nchunks; c++) {
        int e = plan[c], l;
        if (e == EQ_ORD_NONE) {
            runs[c] = eq_ord_poison();
            continue;
        }
        for (l = 0; l < lanes; l++) {
            size_t i0 = c * ct + (size_t)l * (size_t)tpl;
            if (i0 < n) {
                int nt = n - i0 < (size_t)tpl ? (int)(n - i0) : tpl;
                lane_runs[l] = eq_ord_run_terms(x + (ptrdiff_t)i0 * stride, nt, stride, e);
            } else {
                lane_runs[l] = eq_ord_empty(); /* past the end: the identity */
            }
        }
        eq_ord_tree(lane_runs, lanes);
        runs[c] = lane_runs[0];
    }
}

/* Per aligned group of chunks_per_segment chunks (a block on the device):
 * a segmented scan of the chunk runs, segments starting where
 * eq_ord_segment_head() says; each segment's run is the scan's value at its
 * last chunk, stored at its head with its length. */
void eq_ordsum_segment_runs(const EqOrdRun *runs, const int *plan, size_t nchunks,
                            const EqOrdLayout *layout, EqOrdRun *seg, int *seg_len,
                            EqOrdSegRun *scratch)
{
    size_t cps = (size_t)layout->chunks_per_segment, g0;

    for (g0 = 0; g0 < nchunks; g0 += cps) {
        int len = (int)(nchunks - g0 < cps ? nchunks - g0 : cps), k, head = 0;
        for (k = 0; k < len; k++) {
            scratch[k].run = runs[g0 + (size_t)k];
            scratch[k].head = eq_ord_segment_head(plan, (int64_t)(g0 + (size_t)k),
                                                  layout->chunks_per_segment);
            seg_len[g0 + (size_t)k] = 0;
        }
        eq_ord_seg_scan(scratch, len);
        for (k = 1; k <= len; k++) {
            if (k == len || eq_ord_segment_head(plan, (int64_t)(g0 + (size_t)k),
                                                layout->chunks_per_segment)) {
                seg[g0 + (size_t)head] = scratch[k - 1].run;
                seg_len[g0 + (size_t)head] = k - head;
                head = k;
            }
        }
    }
}

/* The one sequential part: the exact running sum, from +0.0 as the loop
 * starts. A segment of two or more chunks is applied in one step when its
 * check passes; otherwise its chunks are tried one by one, and a chunk
 * whose check fails has its terms added with the plain add. */
double eq_ordsum_walk(const double *x, size_t n, ptrdiff_t stride, double s0,
                      const EqOrdLayout *layout, const int *plan, const EqOrdRun *runs,
                      const EqOrdRun *seg, const int *seg_len, EqOrdStats *stats)
{
    size_t ct = eq_ordsum_chunk_terms(layout);
    size_t nchunks = eq_ordsum_nchunks(n, layout);
    EqOrdStats st = {0};
    int piece = layout->lanes_per_piece * layout->terms_per_lane;
    double s = s0;
    size_t c = 0;

    st.terms = n;
    st.chunks = nchunks;
    while (c < nchunks) {
        size_t len = seg_len[c] > 0 ? (size_t)seg_len[c] : 1, end = c + len;
        if (len > 1) {
            st.segments++;
            st.checks++;
            if (eq_ord_apply(&s, &seg[c], plan[c])) {
                st.segments_applied++;
                st.chunks_applied += len;
                c = end;
                continue;
            }
        }
        for (; c < end; c++) {
            size_t first = c * ct, last = (c + 1) * ct < n ? (c + 1) * ct : n;
            int plain;
            if (plan[c] != EQ_ORD_NONE)
                st.checks++;
            if (eq_ord_walk_chunk(&s, &runs[c], plan[c], x + (ptrdiff_t)first * stride,
                                  (int)(last - first), stride, piece, &plain)) {
                st.chunks_applied++;
            } else {
                st.chunks_term_by_term++;
                st.terms_term_by_term += (size_t)plain;
            }
        }
    }
    if (stats)
        *stats = st;
    return s;
}

int eq_ordsum_host(const double *x, size_t n, ptrdiff_t stride, double s0,
                   const EqOrdLayout *layout, const EqOrdPlanSpec *spec, double *sum,
                   EqOrdStats *stats)
{
    double *chunk_sum = NULL;
    int *plan = NULL, *seg_len = NULL;
    EqOrdRun *runs = NULL, *seg = NULL, *lane_runs = NULL;
    EqOrdSegRun *scratch = NULL;
    size_t nchunks;
    int err;

    if (!sum || (!x && n) || !spec || spec->kind < EQ_ORD_PLAN_TREE ||
        spec->kind > EQ_ORD_PLAN_NONE)
        return EQ_ERR_INVALID_ARGUMENT;
    err = eq_ordsum_layout_check(layout);
    if (err < 0)
        return err;
    if (spec->kind == EQ_ORD_PLAN_FIXED &&
        (spec->fixed < EQ_ORD_EMIN || spec->fixed > EQ_ORD_EMAX))
        return EQ_ERR_INVALID_ARGUMENT;

    nchunks = eq_ordsum_nchunks(n, layout);
    err = EQ_ERR_NO_MEMORY;
    if (nchunks) {
        chunk_sum = malloc(nchunks * sizeof *chunk_sum);
        plan = malloc(nchunks * sizeof *plan);
        seg_len = malloc(nchunks * sizeof *seg_len);
        runs = malloc(nchunks * sizeof *runs);
        seg = malloc(nchunks * sizeof *seg);
        if (!chunk_sum || !plan || !seg_len || !runs || !seg)
            goto out;
    }
    lane_runs = malloc((size_t)layout->lanes_per_chunk * sizeof *lane_runs);
    scratch = malloc((size_t)layout->chunks_per_segment * sizeof *scratch);
    if (!lane_runs || !scratch)
        goto out;

    eq_ordsum_chunk_sums(x, n, stride, layout, chunk_sum);
    eq_ordsum_plan_tree(s0, chunk_sum, nchunks, plan);
    eq_ordsum_plan_adjust(spec, plan, nchunks);
    eq_ordsum_chunk_runs(x, n, stride, layout, plan, runs, lane_runs);
    eq_ordsum_segment_runs(runs, plan, nchunks, layout, seg, seg_len, scratch);
    *sum = eq_ordsum_walk(x, n, stride, s0, layout, plan, runs, seg, seg_len, stats);
    err = 0;

out:
    free(scratch);
    free(lane_runs);
    free(seg);
    free(runs);
    free(seg_len);
    free(plan);
    free(chunk_sum);
    return err;
}

double eq_ordsum_loop(const double *x, size_t n, ptrdiff_t stride, double s0)
{
    double s = s0;
    size_t i;
    for (i = 0; i < n; i++)
        s += term_at(x, i, stride);
    return s;
}

double eq_ordsum_strided(const double *x, size_t n, ptrdiff_t stride)
{
    EqOrdPlanSpec spec = {EQ_ORD_PLAN_TREE, 0, 0};
    double s;
    if (eq_ordsum_host(x, n, stride, 0.0, &eq_ordsum_default_layout, &spec, &s, NULL) < 0)
        return eq_ordsum_loop(x, n, stride, 0.0);
    return s;
}

double eq_ordsum(const double *x, size_t n)
{
    return eq_ordsum_strided(x, n, 1);
}
