/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The ordered-sum engine: the device's sums against the loop itself, and
 * every partial result against the host pipeline's stage in the same
 * layout (lib/exact/ordsum_host.c): chunk sums, chunk runs and segment runs
 * bit for bit under the device's plan. Several sums of different lengths go
 * in one launch, as a metric sends them. The plan is advice: its entries
 * are compared with the host's for information only, and a run with every
 * chunk planned "term by term" must give the same bits.
 *
 * The chunk runs are formed twice: with the device's fast paths (lanes of
 * non-negative terms by eq_ord_run_scaled, both parities in double, ties
 * included; other lanes by eq_ord_term_fast; a chunk with no exact half
 * under its binade composes one increment per lane) and with
 * EQ_CUDA_STAGE_SUM_PAIRS (every chunk by the parity-pair functions); both
 * must be the host's runs, and the inputs must contain tie-free chunks,
 * chunks with a tie, and chunks with a tie and a negative term (counted on
 * the host; kinds 13 and 14 guarantee them at every size list). Kinds 15
 * to 17 put an infinity (of either sign) or an overflow in a sum: the
 * loop's infinity, through the runs' poisoning. Kind 18 puts an exact half
 * of 2^51 units in a chunk planned under its binade (a lane that
 * eq_ord_run_scaled1 flags BIG, for the int64 rule; unflagged, it went to
 * the pair form, which gave the empty run, until session 39, and since
 * then to the halves added apart, exact there too), in every sum of more
 * than 1064 terms. Kind 19 puts in the second
 * chunk, which the sum crosses 2 in, a piece headed by an exact half and
 * holding a second one after an odd tie-free increment, after a piece of
 * odd tie-free increments: the block's fast split (split_fast_pieces)
 * with the three things its mutants `fastfirst`, `fasttie` and `fastpre`
 * get wrong, in every sum of more than 1127 terms.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "../common/framegen.h"
#include "ck.h"
#include "exact/ordsum_host.h"
#include "exact/ssimulacra2.h"

static double uniform(uint64_t *rng)
{
    return (double)(fg_splitmix(rng) >> 11) * 0x1p-53;
}

/* Twenty-three kinds of terms (22 for the plane groups only). */
static void fill(double *x, size_t n, int kind, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++) {
        double u = uniform(rng), v;
        switch (kind) {
        case 0:
            v = u;
            break; /* [0, 1) */
        case 1:
            v = 1.0 - (0.5 + 0.5 * u);
            break; /* ties: 1 - q */
        case 2:
            v = (u - 0.5) * 3.0;
            break; /* mixed sign */
        case 3:
            v = ldexp(0.5 + u, (int)(fg_splitmix(rng) % 61) - 30);
            break; /* wide range */
        case 4:
            v = (fg_splitmix(rng) % 17) ? 0.0 : u;
            break; /* mostly zeros */
        case 5:
            v = (double)(fg_splitmix(rng) % 256);
            break; /* integers */
        case 6:
            v = (fg_splitmix(rng) % 3) ? ldexp(u, -1060) : 0.0;
            break; /* subnormals */
        case 7:
            v = u * 1.1 - 0.1;
            break; /* SSIM-like */
        case 8:
            v = i == 0 ? 1e12 : u * 1e-3;
            break; /* huge head */
        case 10:
            v = i < n * 3 / 5 ? ((i & 1) ? -0.0 : 0.0) : u;
            break; /* zeros first */
        case 11:
            v = 0.0;
            break; /* all zero */
        case 12:
            v = (i / 3000) % 2 ? u * 1e-9 : 0.0;
            break; /* zero stretches */
        case 9:
            v = (i & 1) ? -x[i - 1] : ldexp(u, (int)(i % 20));
            break; /* cancellation */
        case 13:
        case 14:
            /* a head of 2^20, then terms of half the sum's unit 2^-32
             * (exact halves in every chunk: 2^-33, 3 2^-33) in odd chunks
             * and of whole units in even chunks (no half); kind 14 with
             * negative halves as well (the int64 pair path) */
            if (i == 0)
                v = 0x1p20;
            else if ((i / 1024) & 1) {
                /* the draws in order (the operands of * are unsequenced) */
                v = (fg_splitmix(rng) & 1 ? 3.0 : 1.0) * 0x1p-33;
                v *= kind == 14 && (fg_splitmix(rng) & 1) ? -1.0 : 1.0;
            } else
                v = (double)(fg_splitmix(rng) % 4) * 0x1p-32;
            break; /* ties, all non-negative (13) or signed (14) */
        case 15:
            v = i == n / 3 ? INFINITY : u;
            break; /* an infinity among non-negative terms */
        case 16:
            v = i == n / 2 ? -INFINITY : (u - 0.5) * 3.0;
            break; /* a negative infinity among mixed signs */
        case 17:
            v = i < 2 ? DBL_MAX : u;
            break; /* overflow: the loop's sum is an infinity from its second term */
        case 18:
            /* 1, then whole units of [1, 2) (2^-52: no half), and in the
             * second chunk (lane 1) 1/2 + 2^-53: 2^51 + 1/2 units under the
             * binade 0 that the sum stays in, planned so */
            v = i == 0 ? 1.0 : i == 1024 + 40 ? 0.5 + 0x1p-53
                                              : (double)(fg_splitmix(rng) % 4) * 0x1p-52;
            break; /* a big exact half in a planned chunk */
        case 19:
            /* 1 and whole units of [1, 2), then in the second chunk: one
             * unit (2^-52), zeros, the crossing term 1 (the sum passes 2),
             * and under the binade 1 (unit 2^-51) a half, a unit, a half,
             * then whole units */
            if (i == 0 || i == 1024 + 100)
                v = 1.0;
            else if (i < 1024)
                v = (double)(fg_splitmix(rng) % 4) * 0x1p-52;
            else if (i == 1024 || i == 1024 + 101 || i == 1024 + 103)
                v = 0x1p-52;
            else if (i < 1024 + 100)
                v = 0.0;
            else if (i == 1024 + 102)
                v = 0x1p-51;
            else
                v = (double)(fg_splitmix(rng) % 4) * 0x1p-51;
            break; /* exact halves in the fast split's pieces */
        case 20:
        case 21:
            /* 1 and whole units of [1, 2); the second chunk: units, the
             * crossing term 1 (the sum passes 2), units of the binade 1, the
             * crossing term 2 (it passes 4), zeros: a split record of 4
             * pieces; the third: the same through 8, 16 and 32, 6 pieces;
             * then whole units of [32, 64). In sums of at most 256 chunks
             * the small walk keeps both records: the lean walk takes the
             * first (its copy must hold 4 pieces) and copies the records
             * again whole for the second (branch s24walk). Kind 21: the
             * first two chunks alone, then whole units of [4, 8): where the
             * fused kernel adds the first chunk itself (no record), no
             * record of more than 4 pieces, so that the lean copy's 4
             * pieces are the ones walked (in kind 20 the 6-piece record of the same
             * sum has every record copied whole; the mutant `leanwords`,
             * which leaves out the copy's last piece, was green where no
             * random kind made a 4-piece record alone) */
            if (kind == 21 && i >= 2048)
                v = (double)(fg_splitmix(rng) % 4) * 0x1p-50;
            else if (i == 0 || i == 1024 + 100)
                v = 1.0;
            else if (i == 1024 + 200)
                v = 2.0;
            else if (i == 2048 + 100 || i == 2048 + 200 || i == 2048 + 300)
                v = i == 2048 + 100 ? 4.0 : i == 2048 + 200 ? 8.0 : 16.0;
            else if (i < 1024 + 100)
                v = (double)(fg_splitmix(rng) % 4) * 0x1p-52;
            else if (i < 1024 + 200)
                v = (double)(fg_splitmix(rng) % 4) * 0x1p-51;
            else if (i < 2048)
                v = 0.0;
            else if (i < 2048 + 100)
                v = (double)(fg_splitmix(rng) % 4) * 0x1p-50;
            else if (i < 2048 + 200)
                v = (double)(fg_splitmix(rng) % 4) * 0x1p-49;
            else if (i < 2048 + 300)
                v = (double)(fg_splitmix(rng) % 4) * 0x1p-48;
            else if (i < 3072)
                v = 0.0;
            else
                v = (double)(fg_splitmix(rng) % 4) * 0x1p-47;
            break; /* records of 4 and 6 pieces (kind 21: 4) in the small walk */
        case 22:
            /* 10240 = 1.25 2^13 first, -10240 at n / 2, else +-1, +-2 or
             * +-3: the quartic sums of x (to n / 2), of the artifact and
             * (from n / 2) of the detail stay in the binade 53, whose unit
             * 2 makes the quartics of +-1 and +-3 (1, 81) exact halves and
             * that of +-2 (16) whole units; the base sums add whole units */
            if (i == 0) {
                v = 10240.0;
            } else if (i == n / 2) {
                v = -10240.0;
            } else {
                v = (double)(1 + fg_splitmix(rng) % 3);
                v *= fg_splitmix(rng) & 1 ? -1.0 : 1.0;
            }
            break; /* exact halves in quartics (the plane groups' fill) */
        default:
            v = u;
            break;
        }
        x[i] = v;
    }
}

/* A split record (lib/cuda/cuda.h) against its chunk's `count` terms
 * x[first * stride] ...: a piece count in range, and the pieces well
 * formed (eq_ord_split_ok: they start at the first non-zero term and at
 * non-zero terms only; a crossing piece is its one term, the rest of its
 * range zero; a stretch's run is the run of its non-zero terms under its
 * binade, composed on the host). Returns 1 when it holds. */
static int split_ok(const EqCudaSplit *r, const double *x, ptrdiff_t stride, size_t first,
                    int count)
{
    if (r->np < 0 || r->np > EQ_CUDA_SPLIT_MAX)
        return 0;
    return eq_ord_split_ok(r->p, r->np, x + first * (size_t)stride, stride, count);
}

/* The partial results of a launch of n chunks for eq_cuda_stage_ordsum:
 * the arrays it always fills, and where asked its split records, or its
 * crossing records and the plan's prefixes; every other field 0. */
static EqCudaSumPartials partials_new(size_t n, int split, int cross)
{
    return (EqCudaSumPartials){ .chunk_sum = calloc(n, sizeof(double)),
                                .plan = calloc(n, sizeof(int)),
                                .runs = calloc(n, sizeof(EqOrdRun)),
                                .seg = calloc(n, sizeof(EqOrdRun)),
                                .seg_len = calloc(n, sizeof(int)),
                                .split = split ? calloc(n, sizeof(EqCudaSplit)) : NULL,
                                .cross = cross ? calloc(n, sizeof(EqCudaCross)) : NULL,
                                .approx = cross ? calloc(n, sizeof(double)) : NULL };
}

static void partials_free(EqCudaSumPartials *p)
{
    free(p->chunk_sum);
    free(p->plan);
    free(p->runs);
    free(p->seg);
    free(p->seg_len);
    free(p->split);
    free(p->cross);
    free(p->approx);
}

/* How many of a sum's n terms chunk c holds (1024, fewer in the last) */
static int chunk_len(size_t n, size_t c)
{
    return n - c * 1024 < 1024 ? (int)(n - c * 1024) : 1024;
}

/* The terms of case sc from `first` (count of them, each the term its
 * kind forms) in v; returns whether one is non-zero */
static int chunk_terms(const EqCudaSumCase *sc, size_t first, int count, double *v)
{
    int nonzero = 0;
    for (int k = 0; k < count; k++) {
        v[k] = eq_s2_term(sc->kind, sc->x[(first + (size_t)k) * (size_t)sc->stride]);
        nonzero |= v[k] != 0.0;
    }
    return nonzero;
}

/* The binade e0 from which chunk g's plan's prefixes cross one binade
 * (eq_ord_cross_binade of its approximate prefix and chunk sum, for a
 * chunk planned term by term) where the fused kernel takes it as crossing:
 * a non-zero chunk, and not a sum's prewalked first one (c, its index in
 * its sum); else EQ_ORD_NONE */
static int crossing_binade(const EqCudaSumPartials *part, size_t g, int nonzero, size_t c,
                           int prewalk)
{
    if (part->plan[g] != EQ_ORD_NONE || !nonzero || (c == 0 && prewalk))
        return EQ_ORD_NONE;
    return eq_ord_cross_binade(part->approx[g], part->chunk_sum[g]);
}

/* A crossing record (EQ_CUDA_STAGE_SUM_CROSS) of the chunk terms v (count
 * of them) against the host's: its count, its terms and
 * eq_ord_cross_record's runs under its e0. */
static int cross_rec_ok(const EqCudaCross *r, const double *v, int count)
{
    EqOrdRun P[EQ_ORD_CROSS_LANES], S[EQ_ORD_CROSS_LANES];
    if (r->count != count || count < 1 || count > EQ_CUDA_CROSS_TERMS)
        return 0;
    if (memcmp(r->x, v, (size_t)count * sizeof(double)))
        return 0;
    eq_ord_cross_record(v, count, EQ_ORD_CROSS_LANES, EQ_ORD_CROSS_LANES, r->e0, P, S);
    for (int l = 0; l < EQ_ORD_CROSS_LANES; l++)
        if (!eq_ord_same_run(&P[l], &r->P[l]) || !eq_ord_same_run(&S[l], &r->S[l]))
            return 0;
    return 1;
}

/* twice[k]: the sums sc[0 .. ns-1] with every term doubled (exactly), in
 * memory of their own (cases_free) */
static void cases_twice(const EqCudaSumCase *sc, int ns, EqCudaSumCase *twice)
{
    for (int k = 0; k < ns; k++) {
        double *y = malloc((sc[k].n ? sc[k].n : 1) * sizeof(double));
        for (size_t i = 0; i < sc[k].n; i++)
            y[i] = 2.0 * sc[k].x[i * (size_t)sc[k].stride];
        twice[k] = (EqCudaSumCase){y, sc[k].n, 1, sc[k].kind};
    }
}

static void cases_free(EqCudaSumCase *c, int n)
{
    for (int k = 0; k < n; k++)
        free((double *)c[k].x);
}

/* Whether a sum's first chunk is prewalked: unless EQ_CUDA_PREWALK_ENV is
 * "off" */
static int prewalk_on(void)
{
    const char *pw = getenv(EQ_CUDA_PREWALK_ENV);
    return !(pw && !strcmp(pw, "off"));
}

/* Launches r = 0 .. nr-1 of the sums sc[0 .. ns-1] (twice, the same
 * doubled, for r == twice_r) with flags[r], into sums[r] and part[r]
 * (made by the caller); each sum against the loop */
static void launches_vs_loop(CkContext *ck, int kind, const char *label,
                             const EqCudaSumCase *sc, const EqCudaSumCase *twice, int ns,
                             int nr, const int *flags, int twice_r, const char *const *what_r,
                             double (*sums)[16], EqCudaSumPartials *part)
{
    char what[200];
    for (int r = 0; r < nr; r++) {
        const int err = eq_cuda_stage_ordsum(ck->cuda, r == twice_r ? twice : sc, ns, flags[r],
                                             sums[r], &part[r]);
        if (err < 0) {
            snprintf(what, sizeof(what), "eq_cuda_stage_ordsum (%s)", label);
            ck_error(ck, what, err);
        }
    }
    for (int k = 0; k < ns; k++) {
        const double want = eq_ordsum_loop(sc[k].x, sc[k].n, sc[k].stride, 0.0);
        const double want2 = eq_ordsum_loop(twice[k].x, twice[k].n, 1, 0.0);
        for (int r = 0; r < nr; r++) {
            snprintf(what, sizeof(what), "kind %d n %zu: sum, %s, %s", kind, sc[k].n, label,
                     what_r[r]);
            ck_same(ck, what, &sums[r][k], r == twice_r ? &want2 : &want, sizeof(double));
        }
    }
}

/* Crossing records' tallies over the kinds (ordsum_cross). */
typedef struct CrossTally {
    long made, early, checked, applied, lie_failed, redone;
    /* split records formed from crossing records' runs (ordsum_cross_split):
     * chunks whose runs were formed before the wait under their binade,
     * records formed from them (each the host's), refused (split_chunk's
     * instead), counted by the launch; the rows the crossing term fell in
     * (bits), crossings at a row's first and last term */
    long xs_early, xs_formed, xs_refused, xs_counted_early, xs_counted_formed;
    unsigned xs_rows;
    long xs_row_first, xs_row_last;
} CrossTally;

/* The small launch of one kind (sc[0 .. ns-1], schunks chunks) with
 * crossing records (EQ_CUDA_STAGE_SUM_CROSS): (0) fused, its chunk sums
 * published late over NaN (_FUSED_LATE), the walk fed in two steps and as
 * one chain (_CHAIN: the records among its steps); (1) the same launch
 * again, fused, fed, step by step: its slot kept (0)'s binades, so every
 * record is formed before the fused kernel's wait; (2) fused with
 * EQ_CUDA_STAGE_SUM_LIE, the walk after the kernel's end, one chain (the
 * suffix of every record taken for a poisoned run: the chain fails, the
 * walk goes step by step and the block adds the rest of the chunk); (3)
 * (0) with the walk fed at each chunk's end, step by step; (4) (1) with
 * every term doubled: the slot kept binades one below this launch's, so
 * every record formed before the wait is formed again after it (none is
 * early); then (1) again in a launch slot of its own (slot 1, with
 * (4)'s launch in slot 0 between): every record early. Every sum against
 * the loop; in (0), (1) and (4), every chunk whose plan's prefixes cross
 * one binade (eq_ord_cross_binade of its approximate prefix and chunk
 * sum; but a zero chunk and a prewalked first one) has a crossing
 * record under that binade, the host's (cross_rec_ok), and no other chunk
 * has one. */
static void ordsum_cross(CkContext *ck, int kind, const EqCudaSumCase *sc, int ns, size_t schunks,
                         CrossTally *ct)
{
    enum { NR = 5 };
    static const int late = EQ_CUDA_STAGE_SUM_FUSED | EQ_CUDA_STAGE_SUM_FUSED_LATE;
    static const int cross = EQ_CUDA_STAGE_SUM_CROSS, chain = EQ_CUDA_STAGE_SUM_CHAIN;
    static const int flags[NR] = {
        late | EQ_CUDA_STAGE_SUM_FED | cross | chain,
        EQ_CUDA_STAGE_SUM_FUSED | EQ_CUDA_STAGE_SUM_FED | cross,
        EQ_CUDA_STAGE_SUM_FUSED | EQ_CUDA_STAGE_SUM_LIE | cross | chain,
        late | EQ_CUDA_STAGE_SUM_FED_END | cross,
        EQ_CUDA_STAGE_SUM_FUSED | EQ_CUDA_STAGE_SUM_FED | cross
    };
    static const char *const what_r[NR] = { "fed, one chain", "again (formed before the wait)",
                                            "a poisoned suffix, one chain",
                                            "fed at each chunk's end",
                                            "the terms doubled (formed again after the wait)" };
    static const int checked_r[] = { 0, 1, 4 }; /* the launches whose records are checked */
    EqCudaSumPartials part[NR];
    EqCudaSumCase twice[16]; /* (4)'s sums: every term doubled, exactly */
    double sums[NR][16];
    char what[160];
    const int zero = 0;
    const int prewalk = prewalk_on();
    if (ns == 0)
        return;
    cases_twice(sc, ns, twice);
    for (int r = 0; r < NR; r++)
        part[r] = partials_new(schunks + 1, 0, r < 2 || r == 4);
    launches_vs_loop(ck, kind, "crossing records", sc, twice, ns, NR, flags, 4, what_r, sums,
                     part);
    for (int ri = 0; ri < 3; ri++) {
        const int r = checked_r[ri];
        const EqCudaSumCase *rc = r == 4 ? twice : sc;
        int bad = 0;
        size_t c0 = 0;
        for (int k = 0; k < ns; k++) {
            const size_t n = rc[k].n, nch = eq_cuda_stage_ordsum_chunks(n);
            for (size_t c = 0; c < nch && n; c++) {
                const size_t g = c0 + c;
                const int cnt = chunk_len(n, c);
                double v[EQ_CUDA_CROSS_TERMS];
                const int nonzero = chunk_terms(&rc[k], c * 1024, cnt, v);
                const int e0 = crossing_binade(&part[r], g, nonzero, c, prewalk);
                const int want = e0 != EQ_ORD_NONE;
                const EqCudaCross *rec = &part[r].cross[g];
                if (want != (rec->count >= 0) || (want && rec->e0 != e0))
                    bad++;
                else if (want)
                    bad += !cross_rec_ok(rec, v, cnt);
                ct->checked += want;
            }
            c0 += nch;
        }
        snprintf(what, sizeof(what), "kind %d: crossing records, %s (%d differ)", kind,
                 what_r[r], bad);
        ck_same(ck, what, &bad, &zero, sizeof(int));
        ct->made += part[r].cross_made;
    }
    /* (1): the same sums as (0), so every record formed before the wait */
    snprintf(what, sizeof(what), "kind %d: crossing records formed before the wait (%d of %d)",
             kind, part[1].cross_early, part[1].cross_made);
    ck_same(ck, what, &part[1].cross_early, &part[1].cross_made, sizeof(int));
    ct->early += part[1].cross_early;
    /* (4): none of those formed before the wait kept (their binade is one
     * below this launch's); the records are where they belong (above) */
    snprintf(what, sizeof(what),
             "kind %d: crossing records, the terms doubled: none kept from before the wait (%d "
             "of %d)", kind, part[4].cross_early, part[4].cross_made);
    ck_same(ck, what, &part[4].cross_early, &zero, sizeof(int));
    ct->redone += part[4].cross_made;
    /* a launch slot of its own (EQ_CUDA_STAGE_SUM_SLOT): (1)'s launch in
     * slot 1, the doubled terms' in slot 0 between, (1)'s again in slot 1:
     * every record of the last formed before the wait (slot 0's launch
     * kept its binades apart), and its sums the loop's */
    {
        static const int f1 = EQ_CUDA_STAGE_SUM_FUSED | EQ_CUDA_STAGE_SUM_FED | cross;
        double ssum[16];
        EqCudaSumPartials ps = partials_new(schunks + 1, 0, 1);
        int err = eq_cuda_stage_ordsum(ck->cuda, sc, ns, f1 | EQ_CUDA_STAGE_SUM_SLOT(1), ssum,
                                       NULL);
        if (err >= 0)
            err = eq_cuda_stage_ordsum(ck->cuda, twice, ns, f1, ssum, NULL);
        if (err >= 0)
            err = eq_cuda_stage_ordsum(ck->cuda, sc, ns, f1 | EQ_CUDA_STAGE_SUM_SLOT(1), ssum,
                                       &ps);
        if (err < 0)
            ck_error(ck, "eq_cuda_stage_ordsum (crossing records, launch slots)", err);
        snprintf(what, sizeof(what),
                 "kind %d: crossing records, a slot of its own: formed before the wait (%d of "
                 "%d, as (1) %d)", kind, ps.cross_early, ps.cross_made, part[1].cross_made);
        const int got_me[2] = { ps.cross_early, ps.cross_made };
        const int want_me[2] = { part[1].cross_made, part[1].cross_made };
        ck_same(ck, what, got_me, want_me, sizeof(got_me));
        for (int k = 0; k < ns; k++) {
            const double want = eq_ordsum_loop(sc[k].x, sc[k].n, sc[k].stride, 0.0);
            snprintf(what, sizeof(what), "kind %d n %zu: sum, crossing records, slot 1", kind,
                     sc[k].n);
            ck_same(ck, what, &ssum[k], &want, sizeof(double));
        }
        partials_free(&ps);
    }
    ct->applied += part[0].cross_applied + part[1].cross_applied + part[4].cross_applied;
    ct->lie_failed += part[2].cross_failed;
    for (int r = 0; r < NR; r++)
        partials_free(&part[r]);
    cases_free(twice, ns);
}

/* The small launch of one kind (sc[0 .. ns-1], schunks chunks) with split
 * records formed from crossing records' runs (EQ_CUDA_STAGE_SUM_CROSS_SPLIT):
 * (0) fused, its chunk sums published late over NaN, the walk fed in two
 * steps and as one chain; (1) the same launch again, fed, step by step:
 * its slot kept (0)'s binades, so every crossing chunk's runs are formed
 * before the wait under its binade; (2) (1) with EQ_CUDA_STAGE_SUM_LIE, one
 * chain (a poisoned piece's check fails; the block adds the rest); (3) the
 * terms doubled: the binades kept are one below this launch's, so no
 * chunk takes the form. Every sum against the loop; every split record of
 * (0), (1) and (3) well formed (split_ok); in (1), every chunk whose plan's
 * prefixes cross one binade (but a zero chunk and a prewalked first one)
 * counted, and where the host's form (eq_ord_split_from_cross, from
 * eq_ord_cross_record's runs, the terms and the plan's prefix) fits, its
 * record the host's, bit for bit; the launch's counts the host's. */
static void ordsum_cross_split(CkContext *ck, int kind, const EqCudaSumCase *sc, int ns,
                               size_t schunks, CrossTally *ct)
{
    enum { NR = 4 };
    static const int late = EQ_CUDA_STAGE_SUM_FUSED | EQ_CUDA_STAGE_SUM_FUSED_LATE;
    static const int xs = EQ_CUDA_STAGE_SUM_CROSS_SPLIT, chain = EQ_CUDA_STAGE_SUM_CHAIN;
    static const int fused_fed = EQ_CUDA_STAGE_SUM_FUSED | EQ_CUDA_STAGE_SUM_FED;
    static const int flags[NR] = {late | EQ_CUDA_STAGE_SUM_FED | xs | chain, fused_fed | xs,
                                  EQ_CUDA_STAGE_SUM_FUSED | EQ_CUDA_STAGE_SUM_LIE | xs | chain,
                                  fused_fed | xs};
    static const char *const what_r[NR] = {"fed, one chain", "again (formed before the wait)",
                                           "a poisoned piece, one chain",
                                           "the terms doubled (none formed before the wait)"};
    EqCudaSumPartials part[NR];
    EqCudaSumCase twice[16];
    double sums[NR][16];
    char what[200];
    const int prewalk = prewalk_on();
    if (ns == 0)
        return;
    cases_twice(sc, ns, twice);
    for (int r = 0; r < NR; r++)
        part[r] = partials_new(schunks + 1, 1, r == 1);
    launches_vs_loop(ck, kind, "split records from crossing records", sc, twice, ns, NR, flags,
                     3, what_r, sums, part);
    for (int r = 0; r < NR; r++) {
        if (r == 2)
            continue;
        const EqCudaSumCase *rc = r == 3 ? twice : sc;
        int bad = 0, early = 0, formed = 0, differ = 0;
        size_t c0 = 0;
        for (int k = 0; k < ns; k++) {
            const size_t n = rc[k].n, nch = eq_cuda_stage_ordsum_chunks(n);
            for (size_t c = 0; c < nch && n; c++) {
                const size_t g = c0 + c;
                const int cnt = chunk_len(n, c);
                const EqCudaSplit *rec = &part[r].split[g];
                if (rec->np >= 0)
                    bad += !split_ok(rec, rc[k].x, rc[k].stride, c * 1024, cnt);
                if (r != 1)
                    continue;
                double v[EQ_CUDA_CROSS_TERMS];
                const int nonzero = chunk_terms(&rc[k], c * 1024, cnt, v);
                const int e0 = crossing_binade(&part[r], g, nonzero, c, prewalk);
                if (e0 == EQ_ORD_NONE)
                    continue;
                EqOrdRun P[EQ_ORD_CROSS_LANES], S[EQ_ORD_CROSS_LANES];
                EqOrdPiece p[3];
                early++;
                eq_ord_cross_record(v, cnt, EQ_ORD_CROSS_LANES, EQ_ORD_CROSS_LANES, e0, P, S);
                const int np =
                    eq_ord_split_from_cross(v, cnt, EQ_ORD_CROSS_LANES, EQ_ORD_CROSS_LANES, P,
                                            S, e0, part[r].approx[g], p);
                if (np < 0) {
                    ct->xs_refused++;
                    continue;
                }
                formed++;
                differ += rec->np != np || memcmp(rec->p, p, (size_t)np * sizeof(EqOrdPiece));
                for (int q = 0; q < np; q++) {
                    if (p[q].e != EQ_ORD_CROSS)
                        continue;
                    ct->xs_rows |= 1u << (p[q].start / 32);
                    ct->xs_row_first += p[q].start % 32 == 0;
                    ct->xs_row_last += p[q].start % 32 == 31;
                }
            }
            c0 += nch;
        }
        snprintf(what, sizeof(what),
                 "kind %d: split records from crossing records, %s: well "
                 "formed (%d not)",
                 kind, what_r[r], bad);
        ck_same(ck, what, &bad, &(int){0}, sizeof(int));
        if (r == 1) {
            snprintf(what, sizeof(what),
                     "kind %d: split records from crossing records: the "
                     "host's form (%d of %d differ)",
                     kind, differ, formed);
            ck_same(ck, what, &differ, &(int){0}, sizeof(int));
            snprintf(what, sizeof(what),
                     "kind %d: split records from crossing records: "
                     "counted (runs before the wait %d, host %d; formed %d, host %d)",
                     kind, part[r].cross_made, early, part[r].cross_early, formed);
            const int got[2] = {part[r].cross_made, part[r].cross_early};
            const int want[2] = {early, formed};
            ck_same(ck, what, got, want, sizeof(got));
            ct->xs_early += early;
            ct->xs_formed += formed;
            ct->xs_counted_early += part[r].cross_made;
            ct->xs_counted_formed += part[r].cross_early;
        }
    }
    /* (3): no binade kept matches, so no chunk took the form */
    snprintf(what, sizeof(what),
             "kind %d: split records from crossing records, the terms "
             "doubled: none formed before the wait (%d)",
             kind, part[3].cross_made);
    ck_same(ck, what, &part[3].cross_made, &(int){0}, sizeof(int));
    for (int r = 0; r < NR; r++)
        partials_free(&part[r]);
    cases_free(twice, ns);
}

/* The launch of one kind (cases[0 .. nc-1], `chunks` in all) again: (1) the
 * sizes of at most EQC_ORD_LANES (256) chunks in a launch of their own,
 * which the walk of small launches takes (ord_walk_small_kernel): sums
 * and segments against the host; (2) the same with EQ_CUDA_STAGE_SUM_LIE
 * and (3) the whole launch with it (the walk takes a piece of every split
 * record for a poisoned run: that piece's check fails, the block adds the
 * rest of the chunk): the sums against the host; (4) the small launch by
 * the fused kernel (EQ_CUDA_STAGE_SUM_FUSED: chunk sums, plan, runs and
 * split records in one kernel), its chunk sums published late, the later
 * chunks first, over a NaN array (_FUSED_LATE): sums, chunk sums, chunk
 * runs, segments and split records against the host, and its plan the
 * plan of (1), whose scan it repeats (a block that read the chunk sums
 * before its own without waiting would plan from NaN); (5) the fused
 * kernel with EQ_CUDA_STAGE_SUM_LIE: the sums. (4) and (5) feed the small
 * walk by the fused kernel's chunk flags in two steps (_FED); (6) and (7)
 * are (4) with the walk waiting for the kernel's end, and for each
 * chunk's end (_FED_END): sums and segments (a walk that read a chunk
 * before its flag would segment the arrays' stale values). (2), (4), (5)
 * and (7) walk as one chain where they can (_CHAIN; a poisoned piece's
 * check fails it, and the walk goes step by step), (1), (3) and (6) step
 * by step. *failed
 * counts the records handed on, *small the chunks of (1), *fused_split
 * the split records of (4) checked. */
static void ordsum_small_and_lie(CkContext *ck, int kind, const EqCudaSumCase *cases, int nc,
                                 size_t chunks, long *failed, long *small, long *fused_split,
                                 CrossTally *ct)
{
    const EqOrdLayout *lay = &eq_ordsum_default_layout;
    EqCudaSumCase sc[16];
    int ns = 0;
    size_t schunks = 0;
    for (int i = 0; i < nc; i++)
        if (eq_cuda_stage_ordsum_chunks(cases[i].n) <= 256) {
            sc[ns++] = cases[i];
            schunks += eq_cuda_stage_ordsum_chunks(cases[i].n);
        }
    enum { NR = 7 };
    EqCudaSumPartials part[NR];
    double sums[NR][16];
    static const int late = EQ_CUDA_STAGE_SUM_FUSED | EQ_CUDA_STAGE_SUM_FUSED_LATE;
    static const int chain = EQ_CUDA_STAGE_SUM_CHAIN;
    static const int flags[NR] = { 0,
                                   EQ_CUDA_STAGE_SUM_LIE | chain,
                                   EQ_CUDA_STAGE_SUM_LIE,
                                   late | EQ_CUDA_STAGE_SUM_FED | chain,
                                   EQ_CUDA_STAGE_SUM_FUSED | EQ_CUDA_STAGE_SUM_LIE |
                                       EQ_CUDA_STAGE_SUM_FED | chain,
                                   late,
                                   late | EQ_CUDA_STAGE_SUM_FED_END | chain };
    for (int r = 0; r < NR; r++) {
        const size_t n = r == 2 ? chunks : schunks;
        part[r] = partials_new(n + 1, r == 3, 0);
        const int err = eq_cuda_stage_ordsum(ck->cuda, r == 2 ? cases : sc, r == 2 ? nc : ns,
                                             flags[r], sums[r], &part[r]);
        if (err < 0)
            ck_error(ck, "eq_cuda_stage_ordsum (small launch, lie, fused)", err);
        *failed += flags[r] & EQ_CUDA_STAGE_SUM_LIE ? part[r].split_failed : 0;
    }
    *small += (long)schunks;
    char what[112];
    /* (8) the whole launch with _LIE, its walk as one chain (_BIGCHAIN):
     * each sum with a record fails its chain, and the walk goes group by
     * group from +0.0 */
    double bsums[16];
    {
        EqCudaSumPartials pb = partials_new(chunks + 1, 0, 0);
        const int err = eq_cuda_stage_ordsum(ck->cuda, cases, nc,
                                             EQ_CUDA_STAGE_SUM_LIE | EQ_CUDA_STAGE_SUM_BIGCHAIN,
                                             bsums, &pb);
        if (err < 0)
            ck_error(ck, "eq_cuda_stage_ordsum (lie, one chain)", err);
        *failed += pb.split_failed;
        partials_free(&pb);
    }
    for (int i = 0; i < nc; i++) {
        const double want = eq_ordsum_loop(cases[i].x, cases[i].n, cases[i].stride, 0.0);
        snprintf(what, sizeof(what), "kind %d n %zu: sum, a poisoned piece in every split record",
                 kind, cases[i].n);
        ck_same(ck, what, &sums[2][i], &want, sizeof(double));
        snprintf(what, sizeof(what),
                 "kind %d n %zu: sum, a poisoned piece in every split record, one chain", kind,
                 cases[i].n);
        ck_same(ck, what, &bsums[i], &want, sizeof(double));
    }
    size_t c0 = 0;
    for (int k = 0; k < ns; k++) {
        const size_t n = sc[k].n, nch = eq_cuda_stage_ordsum_chunks(n);
        const double want = eq_ordsum_loop(sc[k].x, n, sc[k].stride, 0.0);
        snprintf(what, sizeof(what), "kind %d n %zu: sum, small launch", kind, n);
        ck_same(ck, what, &sums[0][k], &want, sizeof(double));
        snprintf(what, sizeof(what), "kind %d n %zu: sum, small launch, a poisoned piece", kind, n);
        ck_same(ck, what, &sums[1][k], &want, sizeof(double));
        snprintf(what, sizeof(what), "kind %d n %zu: sum, fused small launch", kind, n);
        ck_same(ck, what, &sums[3][k], &want, sizeof(double));
        snprintf(what, sizeof(what), "kind %d n %zu: sum, fused small launch, a poisoned piece",
                 kind, n);
        ck_same(ck, what, &sums[4][k], &want, sizeof(double));
        for (int r = 5; r < NR; r++) {
            snprintf(what, sizeof(what), "kind %d n %zu: sum, fused small launch, walk %s", kind,
                     n, r == 5 ? "after the kernel" : "fed at each chunk's end");
            ck_same(ck, what, &sums[r][k], &want, sizeof(double));
        }
        if (n) {
            EqOrdRun *runs = malloc(nch * sizeof(EqOrdRun)), *seg = malloc(nch * sizeof(EqOrdRun));
            EqOrdRun *lanes = malloc((size_t)lay->lanes_per_chunk * sizeof(EqOrdRun));
            EqOrdSegRun *scr = malloc((size_t)lay->chunks_per_segment * sizeof(EqOrdSegRun));
            int *seg_len = malloc(nch * sizeof(int));
            const int *dplan = part[0].plan + c0;
            eq_ordsum_chunk_runs(sc[k].x, n, sc[k].stride, lay, dplan, runs, lanes);
            eq_ordsum_segment_runs(runs, dplan, nch, lay, seg, seg_len, scr);
            int bad = 0;
            for (size_t c = 0; c < nch; c++)
                bad += seg_len[c] != part[0].seg_len[c0 + c] ||
                       (seg_len[c] > 0 && !eq_ord_same_run(&seg[c], &part[0].seg[c0 + c]));
            snprintf(what, sizeof(what), "kind %d n %zu: segment runs, small launch (%d differ)",
                     kind, n, bad);
            const int zero = 0;
            ck_same(ck, what, &bad, &zero, sizeof(int));

            /* the fused kernel: its plan is (1)'s; chunk sums, runs,
             * segments and split records are the host's under it */
            snprintf(what, sizeof(what), "kind %d n %zu: plan, fused small launch", kind, n);
            ck_same(ck, what, part[3].plan + c0, dplan, nch * sizeof(int));
            double *cs = malloc(nch * sizeof(double));
            eq_ordsum_chunk_sums(sc[k].x, n, sc[k].stride, lay, cs);
            snprintf(what, sizeof(what), "kind %d n %zu: chunk sums, fused small launch", kind, n);
            ck_same(ck, what, part[3].chunk_sum + c0, cs, nch * sizeof(double));
            free(cs);
            const int *fplan = part[3].plan + c0;
            eq_ordsum_chunk_runs(sc[k].x, n, sc[k].stride, lay, fplan, runs, lanes);
            eq_ordsum_segment_runs(runs, fplan, nch, lay, seg, seg_len, scr);
            bad = 0;
            for (size_t c = 0; c < nch; c++) {
                const EqCudaSplit *sp = &part[3].split[c0 + c];
                const int cnt = chunk_len(n, c);
                bad += !eq_ord_same_run(&runs[c], &part[3].runs[c0 + c]);
                bad += seg_len[c] != part[3].seg_len[c0 + c] ||
                       (seg_len[c] > 0 && !eq_ord_same_run(&seg[c], &part[3].seg[c0 + c]));
                if (sp->np >= 0) {
                    bad += fplan[c] != EQ_ORD_NONE ||
                           !split_ok(sp, sc[k].x, sc[k].stride, c * 1024, cnt);
                    (*fused_split)++;
                }
            }
            snprintf(what, sizeof(what),
                     "kind %d n %zu: chunk runs, segments, split records, fused (%d differ)",
                     kind, n, bad);
            ck_same(ck, what, &bad, &zero, sizeof(int));
            for (int r = 5; r < NR; r++) {
                const int *rplan = part[r].plan + c0;
                eq_ordsum_chunk_runs(sc[k].x, n, sc[k].stride, lay, rplan, runs, lanes);
                eq_ordsum_segment_runs(runs, rplan, nch, lay, seg, seg_len, scr);
                bad = 0;
                for (size_t c = 0; c < nch; c++)
                    bad += seg_len[c] != part[r].seg_len[c0 + c] ||
                           (seg_len[c] > 0 && !eq_ord_same_run(&seg[c], &part[r].seg[c0 + c]));
                snprintf(what, sizeof(what), "kind %d n %zu: segments, fused, walk %s (%d differ)",
                         kind, n, r == 5 ? "after the kernel" : "fed at each chunk's end", bad);
                ck_same(ck, what, &bad, &zero, sizeof(int));
            }
            free(runs);
            free(seg);
            free(lanes);
            free(scr);
            free(seg_len);
        }
        c0 += nch;
    }
    for (int r = 0; r < NR; r++)
        partials_free(&part[r]);
    ordsum_cross(ck, kind, sc, ns, schunks, ct);
    ordsum_cross_split(ck, kind, sc, ns, schunks, ct);
}

/* The large walk's composition of its chain (eq_cuda_stage_ord_compose)
 * against eq_ord_compose_chain: random chains of up to 512 steps (every
 * length at the block's edges among them), crossing steps now and then,
 * and the binade of the run steps changing at a chain's own rate, now
 * and then without a crossing step between (as a wrong plan gives); each
 * chain's steps left, and each one's binade and run (a crossing step's
 * term), must be the host's. */
static void ck_ordsum_compose(CkContext *ck, uint64_t *rng)
{
    /* a chain's room: its most steps (EQ_CUDA_COMPOSE_STEPS, the large
     * chain's), each chain at a multiple of it */
    const size_t room = EQ_CUDA_COMPOSE_STEPS;
    static const int fixed[] = {1, 2, 3, 255, 256, 257, 510, 511, 512};
    const int nch = ck->quick ? 12 : 96, nfixed = (int)(sizeof(fixed) / sizeof(fixed[0]));
    EqOrdPiece *in = malloc((size_t)nch * room * sizeof(EqOrdPiece));
    EqOrdPiece *got = malloc((size_t)nch * room * sizeof(EqOrdPiece));
    EqOrdPiece *want = malloc((size_t)nch * room * sizeof(EqOrdPiece));
    int *n = malloc((size_t)nch * sizeof(int)), *left = malloc((size_t)nch * sizeof(int));
    long fewer = 0, crossing = 0;
    memset(in, 0, (size_t)nch * room * sizeof(EqOrdPiece));
    for (int b = 0; b < nch; b++) {
        /* the chance in 64 of a crossing step, and of a new binade */
        const int cross = (int)(fg_splitmix(rng) % 8),
                  change = 1 + (int)(fg_splitmix(rng) % 12);
        int e = (int)(fg_splitmix(rng) % 21) - 10;
        n[b] = b < nfixed ? fixed[b] : 1 + (int)(fg_splitmix(rng) % room);
        for (int k = 0; k < n[b]; k++) {
            EqOrdPiece *q = &in[(size_t)b * room + k];
            const int r = (int)(fg_splitmix(rng) % 64);
            q->start = k;
            if (r < cross) {
                q->e = EQ_ORD_CROSS;
                q->x = ldexp(uniform(rng) + 1.0, e + 1);
                q->run = eq_ord_empty();
                e += fg_splitmix(rng) % 4 ? 1 : -1;
                crossing++;
                continue;
            }
            if (r < cross + change)
                e += fg_splitmix(rng) % 2 ? 1 : -1;
            q->e = e;
            q->x = 0.0;
            for (int p = 0; p < 2; p++) {
                q->run.d[p] = (int64_t)(fg_splitmix(rng) % 2001) - 1000;
                q->run.lo[p] = -(int64_t)(fg_splitmix(rng) % 4096);
                q->run.hi[p] = (int64_t)(fg_splitmix(rng) % 4096);
            }
        }
    }
    memcpy(want, in, (size_t)nch * room * sizeof(EqOrdPiece));
    int err = eq_cuda_stage_ord_compose(ck->cuda, in, n, nch, got, left);
    if (err < 0) {
        ck_error(ck, "eq_cuda_stage_ord_compose", err);
    } else {
        for (int b = 0; b < nch; b++) {
            char what[96];
            const int w = eq_ord_compose_chain(want + (size_t)b * room, n[b]);
            fewer += n[b] - w;
            snprintf(what, sizeof(what),
                     "large chain composed: chain %d of %d steps, steps left", b, n[b]);
            if (!ck_same(ck, what, &left[b], &w, sizeof(int)))
                continue;
            int bad = 0;
            for (int k = 0; k < w; k++) {
                const EqOrdPiece *g = &got[(size_t)b * room + k];
                const EqOrdPiece *h = &want[(size_t)b * room + k];
                bad += g->e != h->e ||
                       (h->e == EQ_ORD_CROSS ? memcmp(&g->x, &h->x, sizeof(double)) != 0
                                             : !eq_ord_same_run(&g->run, &h->run));
            }
            const int zero = 0;
            snprintf(what, sizeof(what),
                     "large chain composed: chain %d of %d steps, steps differ", b, n[b]);
            ck_same(ck, what, &bad, &zero, sizeof(int));
        }
    }
    printf("  ordsum: %d chains composed as the large walk does (%ld crossing steps), %ld "
           "steps fewer\n",
           nch, crossing, fewer);
    {
        int used = fewer > nch && crossing > 0, one = 1;
        ck_same(ck, "large chains composed", &used, &one, sizeof(int));
    }
    free(in);
    free(got);
    free(want);
    free(n);
    free(left);
}

/* The chunk runs and segment runs of one sum of n terms t[] (the terms
 * its kind forms) under the device's plan, against the device's: *bad
 * gets the chunks that differ; *planned counts the planned chunks (runs
 * that the kernel formed, not split), *halves those of them whose lanes
 * of 32 terms raise neither NEG nor BIG in eq_ord_run_scaled1 and in some
 * lane TIE (exact halves added apart, EqOrdHalves). */
static void ck_groups_runs(const double *t, size_t n, const int *plan, const EqOrdRun *runs,
                           const EqOrdRun *seg, const int *seg_len, int *bad, long *planned,
                           long *halves)
{
    const EqOrdLayout *lay = &eq_ordsum_default_layout;
    const size_t nch = eq_cuda_stage_ordsum_chunks(n);
    const size_t ct = (size_t)lay->lanes_per_chunk * (size_t)lay->terms_per_lane;
    EqOrdRun *hr = malloc(nch * sizeof(EqOrdRun)), *hs = malloc(nch * sizeof(EqOrdRun));
    int *hl = malloc(nch * sizeof(int));
    EqOrdRun *lanes = malloc((size_t)lay->lanes_per_chunk * sizeof(EqOrdRun));
    EqOrdSegRun *scr = malloc((size_t)lay->chunks_per_segment * sizeof(EqOrdSegRun));
    *bad = 0;
    if (n) {
        eq_ordsum_chunk_runs(t, n, 1, lay, plan, hr, lanes);
        eq_ordsum_segment_runs(hr, plan, nch, lay, hs, hl, scr);
        for (size_t c = 0; c < nch; c++) {
            *bad += !eq_ord_same_run(&hr[c], &runs[c]) || hl[c] != seg_len[c] ||
                    (hl[c] > 0 && !eq_ord_same_run(&hs[c], &seg[c]));
            *planned += plan[c] != EQ_ORD_NONE;
            const size_t first = c * ct, count = n - first < ct ? n - first : ct;
            *halves += plan[c] != EQ_ORD_NONE &&
                       eq_ord_chunk_lane_flags(t + first, count, plan[c]) == EQ_ORD_SF_TIE;
        }
    }
    free(hr);
    free(hs);
    free(hl);
    free(lanes);
    free(scr);
}

/* Sums of one plane (as SSIMULACRA2 sends six sums of two planes): with a
 * warp per chunk of the plane group, the launch stages each chunk once for
 * the sums of the plane, forms each sum's terms in place (the quartic of
 * the term held where it can, x staged again where it cannot; with a
 * reused plan a base sum and its quartic together from x, the twins,
 * unless _SINGLES); with a warp
 * per chunk of each sum, every warp forms its own sum's terms from x. Each
 * sum must be the loop over its own terms, both ways. Seven kinds in an
 * order that takes every path. Returns the sums walked as one chain by
 * the walk of larger launches. */
static long ck_ordsum_groups(CkContext *ck, uint64_t *rng)
{
    static const int kinds[7] = {EQ_CUDA_TERM_X,        EQ_CUDA_TERM_QUARTIC,
                                 EQ_CUDA_TERM_ARTIFACT, EQ_CUDA_TERM_ARTIFACT4,
                                 EQ_CUDA_TERM_DETAIL,   EQ_CUDA_TERM_DETAIL4,
                                 EQ_CUDA_TERM_X};
    /* --quick (compute-sanitizer): one whole group of 64 chunks and a
     * partial one, and 293 chunks a sum (the large walk's chain, which no
     * other launch of --quick takes), two fills */
    /* 300007 terms: 293 chunks a sum, the walk of larger launches */
    static const size_t sizes[] = {1, 1023, 1025, 65536 + 77, 200003, 300007};
    /* 13: exact halves in the base sums; 22: in the quartics, its
     * previous frame the same (a quartic's plan from terms of 1.5 x is
     * another binade: every chunk formed again) */
    static const int fills[] = {2, 7, 9, 12, 3, 13, 22};
    static const int quick_sizes[] = {0, 2, 3, 5}, quick_fills[] = {0, 3};
    const int nf = ck->quick ? 2 : 7, ns = ck->quick ? 4 : 6;
    /* planned chunk runs held to the host: twins, sums alone; of them
     * with exact halves (ck_groups_runs), of base sums and of quartics */
    long chained = 0, group_runs[2] = {0, 0}, halves[2][2] = {{0, 0}, {0, 0}};
    for (int fi = 0; fi < nf; fi++)
        for (int sj = 0; sj < ns; sj++) {
            const int f = ck->quick ? quick_fills[fi] : fi, si = ck->quick ? quick_sizes[sj] : sj;
            const size_t n = sizes[si];
            double *x = malloc(n * sizeof(double)), *t = malloc(n * sizeof(double));
            EqCudaSumCase cases[7];
            double got[7];
            fill(x, n, fills[f], rng);
            for (int k = 0; k < 7; k++)
                cases[k] = (EqCudaSumCase){x, n, 1, kinds[k]};
            /* m 0, 1: runs per group, per sum; 2, 3: the same with the
             * plan of a launch of 1.5 x (fill 22: of x) reused (its chunk
             * sums, formed in the runs kernel from the terms in place, and
             * so its plan, must be the fresh launch's); the walk of larger
             * launches as one chain (_BIGCHAIN: from the first chunks'
             * sums that the runs kernel adds, each of its kind's terms)
             * but in 3; 4: as 2, each sum formed alone (_SINGLES: 2 forms
             * a base sum and its quartic together). 2 and 4: the chunk
             * runs and segment runs against the host's under the device's
             * plan */
            const size_t nch = eq_cuda_stage_ordsum_chunks(n);
            double *cs[2] = {malloc(7 * nch * sizeof(double)), malloc(7 * nch * sizeof(double))};
            int *pl[2] = {malloc(7 * nch * sizeof(int)), malloc(7 * nch * sizeof(int))};
            EqOrdRun *rs = malloc(7 * nch * sizeof(EqOrdRun)), *sg = malloc(7 * nch * sizeof(EqOrdRun));
            int *sl = malloc(7 * nch * sizeof(int));
            for (int m = 0; m < 5; m++) {
                const int mapping =
                    (m & 1 ? EQ_CUDA_STAGE_SUM_RUNS_SUM : EQ_CUDA_STAGE_SUM_RUNS_GROUP) |
                    (m < 3 || m == 4 ? EQ_CUDA_STAGE_SUM_BIGCHAIN : 0) |
                    (m == 4 ? EQ_CUDA_STAGE_SUM_SINGLES : 0);
                const int kept = m == 2 || m == 4; /* plan reused, its partials checked */
                EqCudaSumPartials part = {.chunk_sum = cs[m >= 2], .plan = pl[m >= 2], .runs = rs,
                                          .seg = sg, .seg_len = sl};
                int err = 0;
                if (m >= 2) {
                    double *o = malloc(n * sizeof(double));
                    EqCudaSumCase oc[7];
                    for (size_t i = 0; i < n; i++)
                        o[i] = fills[f] == 22 ? x[i] : x[i] * 1.5;
                    for (int k = 0; k < 7; k++)
                        oc[k] = (EqCudaSumCase){o, n, 1, kinds[k]};
                    err = eq_cuda_stage_ordsum(ck->cuda, oc, 7, mapping, got, NULL);
                    free(o);
                }
                if (err >= 0)
                    err = eq_cuda_stage_ordsum(ck->cuda, cases, 7,
                                               mapping | (m >= 2 ? EQ_CUDA_STAGE_SUM_REUSE : 0),
                                               got, m == 0 || kept ? &part : NULL);
                if (err < 0) {
                    ck_error(ck, "eq_cuda_stage_ordsum (one plane)", err);
                    break;
                }
                if (m == 0 || kept)
                    chained += part.big_chains;
                for (int k = 0; k < 7; k++) {
                    char what[112];
                    for (size_t i = 0; i < n; i++)
                        t[i] = eq_s2_term(kinds[k], x[i]);
                    const double want = eq_ordsum_loop(t, n, 1, 0.0);
                    snprintf(what, sizeof(what),
                             "one plane, runs per %s%s, fill %d n %zu: sum %d (kind %d)",
                             m & 1 ? "sum" : "group",
                             m == 4 ? ", plan reused, sums alone" : m >= 2 ? ", plan reused" : "",
                             fills[f], n, k, kinds[k]);
                    ck_same(ck, what, &got[k], &want, sizeof(double));
                    if (kept) {
                        /* the runs and segments the walk read, against the
                         * host's from this kind's terms under the plan */
                        int bad = 0;
                        ck_groups_runs(t, n, pl[1] + k * nch, rs + k * nch, sg + k * nch,
                                       sl + k * nch, &bad, &group_runs[m == 4],
                                       &halves[m == 4][kinds[k] & 1]);
                        const int zero = 0;
                        snprintf(what, sizeof(what),
                                 "one plane, fill %d n %zu, kind %d: chunk and segment runs, "
                                 "plan reused%s (%d differ)",
                                 fills[f], n, kinds[k], m == 4 ? ", sums alone" : "", bad);
                        ck_same(ck, what, &bad, &zero, sizeof(int));
                    }
                }
                if (kept) {
                    char what[112];
                    const int one = 1;
                    const char *how = m == 4 ? ", sums alone" : "";
                    snprintf(what, sizeof(what), "one plane, fill %d n %zu: plan reused%s",
                             fills[f], n, how);
                    ck_same(ck, what, &part.plan_reused, &one, sizeof(int));
                    snprintf(what, sizeof(what),
                             "one plane, fill %d n %zu: chunk sums with the plan reused%s",
                             fills[f], n, how);
                    ck_same(ck, what, cs[1], cs[0], 7 * nch * sizeof(double));
                    snprintf(what, sizeof(what),
                             "one plane, fill %d n %zu: plan with the plan reused%s", fills[f], n,
                             how);
                    ck_same(ck, what, pl[1], pl[0], 7 * nch * sizeof(int));
                }
            }
            free(cs[0]);
            free(cs[1]);
            free(pl[0]);
            free(pl[1]);
            free(rs);
            free(sg);
            free(sl);
            free(x);
            free(t);
        }
    printf("  ordsum: sums of one plane, plan reused: %ld planned chunk runs held to the host "
           "(twins), %ld (sums alone); with exact halves %ld and %ld of base sums, %ld and %ld "
           "of quartics\n",
           group_runs[0], group_runs[1], halves[0][0], halves[1][0], halves[0][1],
           halves[1][1]);
    if (!ck->quick) {
        /* every form held to the host on planned chunks, halves in base
         * sums and in quartics among them (fills 13 and 22) */
        const int seen = group_runs[0] > 0 && group_runs[1] > 0 && halves[0][0] > 0 &&
                         halves[0][1] > 0 && halves[1][0] > 0 && halves[1][1] > 0,
                  one = 1;
        ck_same(ck, "one plane, plan reused: planned chunks with exact halves held to the host",
                &seen, &one, sizeof(int));
    }
    return chained;
}

void ck_ordsum(CkContext *ck)
{
    /* 2100007 terms: 2051 chunks, 33 groups (the walk's composed groups,
     * the plan kernel's block of 1024) */
    static const size_t sizes_ci[] = {0,    1,          5,      1023,   1024,
                                      1025, 4103, 65536 + 77, 200003, 2100007};
    static const size_t sizes_full[] = {0,    1,          5,      1023,    1024,       1025,
                                        4103, 65536 + 77, 200003, 1000003, 3840 * 2160};
    const size_t *sizes = ck->full ? sizes_full : sizes_ci;
    int nsizes = ck->full ? 11 : ck->quick ? 7 : 10;
    uint64_t rng = ck->seed ^ 0x4f5244ull;
    const EqOrdLayout *lay = &eq_ordsum_default_layout;
    long plan_diff = 0, plan_total = 0, tie_chunks = 0, free_chunks = 0, tie_neg_chunks = 0;
    long split_made = 0, split_applied = 0, split_failed = 0, split_checked = 0;
    long big_chains = 0;
    long reuse_again = 0, reuse_kept = 0, reuse_changed = 0;
    long lie_failed = 0, small_chunks = 0, fused_split = 0;
    CrossTally cross = { 0 };

    /* CK_ORDSUM_KINDS=a,b,...: only those kinds (for compute-sanitizer's
     * racecheck, which is slow; the default run takes all twenty-two) */
    const char *only = getenv("CK_ORDSUM_KINDS");
    for (int kind = 0; kind < 22; kind++) {
        if (only) {
            char key[8];
            snprintf(key, sizeof(key), ",%d,", kind);
            char list[128];
            snprintf(list, sizeof(list), ",%s,", only);
            if (!strstr(list, key))
                continue;
        }
        /* all sizes of one kind in one launch, with strides 1 and 3 */
        EqCudaSumCase cases[16];
        double *mem[16];
        int nc = 0;
        size_t chunks = 0;
        for (int si = 0; si < nsizes; si++) {
            size_t n = sizes[si];
            ptrdiff_t stride = (si & 1) ? 3 : 1;
            size_t len = n ? (n - 1) * (size_t)stride + 1 : 1;
            mem[nc] = malloc(len * sizeof(double));
            for (size_t i = 0; i < len; i++)
                mem[nc][i] = NAN; /* gaps between strided terms: never read */
            double *tmp = malloc((n ? n : 1) * sizeof(double));
            fill(tmp, n, kind, &rng);
            for (size_t i = 0; i < n; i++)
                mem[nc][i * (size_t)stride] = tmp[i];
            free(tmp);
            cases[nc] = (EqCudaSumCase){mem[nc], n, stride, EQ_CUDA_TERM_X};
            chunks += eq_cuda_stage_ordsum_chunks(n);
            nc++;
        }
        /* r 0: fast paths; 1: pair functions; 2: the plan of a launch of
         * other terms in the same layout (the terms times 1.5, launch 3)
         * reused: its chunks formed again where the plans differ, their
         * split records made by a block each for odd kinds, by a warp each
         * for even ones. 0 and 2 walk the launch (larger: 2051 chunks in
         * its largest sum) as one chain where they can (_BIGCHAIN), 1
         * group by group. */
        const int split_way =
            kind & 1 ? EQ_CUDA_STAGE_SUM_SPLIT_BLOCK : EQ_CUDA_STAGE_SUM_SPLIT_WARP;
        EqCudaSumPartials part[4];
        double sums[4][16], none_sums[16];
        for (int r = 0; r < 4; r++)
            part[r] = partials_new(chunks, r == 0 || r == 2, 0);
        for (int r = 0; r < 3; r++) {
            int err = 0;
            if (r == 2) {
                EqCudaSumCase other[16];
                double *om[16];
                for (int i = 0; i < nc; i++) {
                    size_t len = cases[i].n ? (cases[i].n - 1) * (size_t)cases[i].stride + 1 : 1;
                    om[i] = malloc(len * sizeof(double));
                    for (size_t k = 0; k < len; k++)
                        om[i][k] = mem[i][k] * 1.5;
                    other[i] = cases[i];
                    other[i].x = om[i];
                }
                err = eq_cuda_stage_ordsum(ck->cuda, other, nc, 0, sums[3], &part[3]);
                for (int i = 0; i < nc; i++)
                    free(om[i]);
            }
            if (err >= 0)
                err = eq_cuda_stage_ordsum(ck->cuda, cases, nc,
                                           r == 1   ? EQ_CUDA_STAGE_SUM_PAIRS
                                           : r == 2 ? EQ_CUDA_STAGE_SUM_REUSE | split_way |
                                                          EQ_CUDA_STAGE_SUM_BIGCHAIN
                                                    : EQ_CUDA_STAGE_SUM_BIGCHAIN,
                                           sums[r], &part[r]);
            if (err < 0) {
                ck_error(ck, "eq_cuda_stage_ordsum", err);
                return;
            }
        }
        {
            /* the chunks formed again: exactly those planned term by term
             * or planned otherwise than the launch of other terms; but,
             * where the large walk takes the launch (_BIGCHAIN), a sum's
             * first chunk planned term by term in both: the runs kernel
             * added it, and the chain starts from its sum */
            long again = 0;
            size_t most = 0;
            for (int i = 0; i < nc; i++) {
                const size_t nch = eq_cuda_stage_ordsum_chunks(cases[i].n);
                most = nch > most ? nch : most;
            }
            const int chain_launch = !eq_cuda_small_walk((long long)most);
            for (size_t c = 0, c0 = 0, i = 0; c < chunks; c++) {
                const int e = part[2].plan[c];
                const int first = c == c0;
                if (first)
                    c0 += eq_cuda_stage_ordsum_chunks(cases[i++].n);
                if (chain_launch && first && e == EQ_ORD_NONE && part[3].plan[c] == EQ_ORD_NONE)
                    continue;
                again += e == EQ_ORD_NONE || e != part[3].plan[c];
                reuse_kept += e != EQ_ORD_NONE && e == part[3].plan[c];
                reuse_changed += e != EQ_ORD_NONE && e != part[3].plan[c];
            }
            char what[96];
            const int one = 1;
            snprintf(what, sizeof(what), "kind %d: the plan of the launch before reused", kind);
            ck_same(ck, what, &part[2].plan_reused, &one, sizeof(int));
            const int got = part[2].formed_again, want = (int)again;
            snprintf(what, sizeof(what), "kind %d: chunks formed again (%d, want %d)", kind,
                     got, want);
            ck_same(ck, what, &got, &want, sizeof(int));
            reuse_again += again;
        }
        int err = eq_cuda_stage_ordsum(ck->cuda, cases, nc, EQ_CUDA_STAGE_SUM_NONE_PLAN,
                                       none_sums, NULL);
        if (err < 0)
            ck_error(ck, "eq_cuda_stage_ordsum (plan none)", err);
        ordsum_small_and_lie(ck, kind, cases, nc, chunks, &lie_failed, &small_chunks,
                             &fused_split, &cross);

        size_t c0 = 0;
        for (int i = 0; i < nc; i++) {
            char what[96];
            size_t n = cases[i].n, nch = eq_cuda_stage_ordsum_chunks(n);
            double want = eq_ordsum_loop(cases[i].x, n, cases[i].stride, 0.0);
            snprintf(what, sizeof(what), "kind %d n %zu stride %td: sum", kind, n,
                     cases[i].stride);
            ck_same(ck, what, &sums[0][i], &want, sizeof(double));
            ck_same(ck, what, &sums[1][i], &want, sizeof(double));
            snprintf(what, sizeof(what), "kind %d n %zu stride %td: sum, plan reused", kind, n,
                     cases[i].stride);
            ck_same(ck, what, &sums[2][i], &want, sizeof(double));
            snprintf(what, sizeof(what), "kind %d n %zu: sum, every chunk term by term", kind,
                     n);
            ck_same(ck, what, &none_sums[i], &want, sizeof(double));

            /* the partials, against the host stages in the same layout */
            if (n) {
                double *cs = malloc(nch * sizeof(double));
                int *plan = malloc(nch * sizeof(int));
                EqOrdRun *runs = malloc(nch * sizeof(EqOrdRun));
                EqOrdRun *seg = malloc(nch * sizeof(EqOrdRun));
                int *seg_len = malloc(nch * sizeof(int));
                EqOrdRun *lanes = malloc((size_t)lay->lanes_per_chunk * sizeof(EqOrdRun));
                EqOrdSegRun *scr =
                    malloc((size_t)lay->chunks_per_segment * sizeof(EqOrdSegRun));
                eq_ordsum_chunk_sums(cases[i].x, n, cases[i].stride, lay, cs);
                snprintf(what, sizeof(what), "kind %d n %zu: chunk sums", kind, n);
                ck_same(ck, what, part[0].chunk_sum + c0, cs, nch * sizeof(double));
                ck_same(ck, what, part[1].chunk_sum + c0, cs, nch * sizeof(double));
                snprintf(what, sizeof(what), "kind %d n %zu: chunk sums, plan reused", kind, n);
                ck_same(ck, what, part[2].chunk_sum + c0, cs, nch * sizeof(double));
                eq_ordsum_plan_tree(0.0, cs, nch, plan);
                for (size_t c = 0; c < nch; c++)
                    plan_diff += plan[c] != part[0].plan[c0 + c];
                plan_total += (long)nch;
                snprintf(what, sizeof(what), "kind %d n %zu: plan, run twice", kind, n);
                ck_same(ck, what, part[0].plan + c0, part[1].plan + c0, nch * sizeof(int));
                snprintf(what, sizeof(what), "kind %d n %zu: plan, plan reused", kind, n);
                ck_same(ck, what, part[0].plan + c0, part[2].plan + c0, nch * sizeof(int));
                /* runs and segments under the device's plan */
                const int *dplan = part[0].plan + c0;
                eq_ordsum_chunk_runs(cases[i].x, n, cases[i].stride, lay, dplan, runs, lanes);
                eq_ordsum_segment_runs(runs, dplan, nch, lay, seg, seg_len, scr);
                /* which path the fast kernel takes for each chunk */
                for (size_t c = 0; c < nch; c++) {
                    int e = dplan[c], tie = 0, neg = 0;
                    if (e == EQ_ORD_NONE)
                        continue;
                    for (size_t k = c * 1024; k < n && k < (c + 1) * 1024; k++) {
                        double xk = cases[i].x[k * (size_t)cases[i].stride];
                        EqOrdRun t = eq_ord_term(xk, e);
                        tie |= t.d[0] != t.d[1];
                        neg |= xk < 0.0;
                    }
                    if (tie)
                        tie_chunks++;
                    else
                        free_chunks++;
                    tie_neg_chunks += tie && neg;
                }
                int bad_runs = 0, bad_seg = 0;
                for (size_t c = 0; c < nch; c++)
                    for (int r = 0; r < 3; r++) {
                        bad_runs += !eq_ord_same_run(&runs[c], &part[r].runs[c0 + c]);
                        bad_seg +=
                            seg_len[c] != part[r].seg_len[c0 + c] ||
                            (seg_len[c] > 0 && !eq_ord_same_run(&seg[c], &part[r].seg[c0 + c]));
                    }
                snprintf(what, sizeof(what), "kind %d n %zu: chunk runs (%d differ)", kind, n,
                         bad_runs);
                int zero = 0;
                ck_same(ck, what, &bad_runs, &zero, sizeof(int));
                snprintf(what, sizeof(what), "kind %d n %zu: segment runs (%d differ)", kind, n,
                         bad_seg);
                ck_same(ck, what, &bad_seg, &zero, sizeof(int));
                /* split records of the chunks planned term by term */
                int bad_split = 0;
                for (int r = 0; r < 3; r += 2)
                    for (size_t c = 0; c < nch; c++) {
                        const EqCudaSplit *sp = &part[r].split[c0 + c];
                        /* the same chunks have a record either way */
                        bad_split += (sp->np < 0) != (part[0].split[c0 + c].np < 0);
                        if (sp->np < 0)
                            continue;
                        const int cnt = chunk_len(n, c);
                        bad_split += dplan[c] != EQ_ORD_NONE ||
                                     !split_ok(sp, cases[i].x, cases[i].stride, c * 1024, cnt);
                        split_checked += r == 0;
                    }
                snprintf(what, sizeof(what), "kind %d n %zu: split records (%d differ)", kind, n,
                         bad_split);
                ck_same(ck, what, &bad_split, &zero, sizeof(int));
                free(cs);
                free(plan);
                free(runs);
                free(seg);
                free(seg_len);
                free(lanes);
                free(scr);
            }
            c0 += nch;
        }
        split_made += part[0].split_made;
        split_applied += part[0].split_applied;
        split_failed += part[0].split_failed;
        big_chains += part[0].big_chains + part[2].big_chains;
        for (int r = 0; r < 4; r++)
            partials_free(&part[r]);
        for (int i = 0; i < nc; i++)
            free(mem[i]);
    }
    printf("  ordsum: device plan differs from the host's sequential-prefix plan in "
           "%ld of %ld chunks (advice only); chunk runs: %ld with a tie (pair path), "
           "%ld tie-free (fast path); with a tie and a negative term %ld\n",
           plan_diff, plan_total, tie_chunks, free_chunks, tie_neg_chunks);
    printf("  ordsum: plan reused: %ld chunks formed again (%ld of them planned otherwise), "
           "%ld kept\n",
           reuse_again, reuse_changed, reuse_kept);
    {
        /* both kinds of chunk: runs kept from the reused plan, and formed
         * again under a changed binade */
        int both = only || (reuse_kept > 0 && reuse_changed > 0), one = 1;
        ck_same(ck, "plan reused: chunks kept and chunks formed again", &both, &one,
                sizeof(int));
    }
    big_chains += ck_ordsum_groups(ck, &rng);
    ck_ordsum_compose(ck, &rng);
    printf("  ordsum: split records %ld made (%ld checked against the host), %ld applied "
           "whole by the walk, %ld handed to the block's exact add part way\n",
           split_made, split_checked, split_applied, split_failed);
    {
        int used = split_made > 0 && split_applied > 0 && split_checked == split_made, one = 1;
        ck_same(ck, "split records were made, checked and applied", &used, &one, sizeof(int));
    }
    printf("  ordsum: %ld sums of larger launches walked as one chain (fast paths, plan "
           "reused, sums of one plane)\n",
           big_chains);
    {
        int used = only || big_chains > 0, one = 1;
        ck_same(ck, "sums of larger launches walked as one chain", &used, &one, sizeof(int));
    }
    printf("  ordsum: with a poisoned piece in every split record, %ld records handed to the "
           "block's exact add; %ld chunks walked by the walk of small launches; %ld split "
           "records of the fused kernel checked\n",
           lie_failed, small_chunks, fused_split);
    {
        int used = only || (lie_failed > 0 && small_chunks > 0 && fused_split > 0), one = 1;
        ck_same(ck, "split records failed their check, small launches walked, fused ones checked",
                &used, &one, sizeof(int));
    }
    printf("  ordsum: crossing records %ld made (%ld checked against the host), %ld formed "
           "before the wait, %ld formed again after it (the terms doubled), %ld applied "
           "whole; with a poisoned suffix, %ld handed to the block's exact add\n",
           cross.made, cross.checked, cross.early, cross.redone, cross.applied,
           cross.lie_failed);
    {
        int used = only || (cross.made > 0 && cross.checked == cross.made && cross.early > 0 &&
                            cross.redone > 0 && cross.applied > 0 && cross.lie_failed > 0),
            one = 1;
        ck_same(ck,
                "crossing records made, checked, formed before the wait, formed again, applied, "
                "failed",
                &used, &one, sizeof(int));
    }
    {
        int rows = 0;
        for (int l = 0; l < 32; l++)
            rows += cross.xs_rows >> l & 1;
        printf("  ordsum: split records from crossing records: %ld chunks with runs formed "
               "before the wait (%ld counted), %ld records formed from them (%ld counted), "
               "each the host's; %ld refused; crossings in %d rows, %ld at a row's first term, "
               "%ld at its last\n",
               cross.xs_early, cross.xs_counted_early, cross.xs_formed, cross.xs_counted_formed,
               cross.xs_refused, rows, cross.xs_row_first, cross.xs_row_last);
        int used = only || cross.xs_formed > 0, one = 1;
        ck_same(ck, "split records from crossing records formed", &used, &one, sizeof(int));
    }
    {
        /* the paths of ord_chunk_runs: tie-free chunks, chunks with a tie
         * in lanes of non-negative terms (both parities in double) and in
         * lanes with a negative term (the int64 pair functions) */
        int both = only || (tie_chunks > tie_neg_chunks && free_chunks > 0 && tie_neg_chunks > 0),
            one = 1;
        ck_same(ck, "chunks of both paths (with and without ties) were checked", &both, &one,
                sizeof(int));
    }
}
