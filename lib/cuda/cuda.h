/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal: what the CUDA backend offers beyond lib/internal.h, for the
 * benchmark (tools/bench_cuda.c) and the kernel harness
 * (tests/checkkernels/). Plain C; no CUDA types.
 */
#ifndef EQ_CUDA_CUDA_H
#define EQ_CUDA_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* internal.h and frame.h are C headers without linkage guards. */
#include "internal.h"
#include "exact/ordsum.h"
#include "exact/ssimulacra2.h"

/*
 * How the frame sums are formed on the device.
 *   EQ_CUDA_SUM_EXACT: the ordered-sum engine; the CPU's sequential double
 *                      sums, bit for bit (the default, the product).
 *   EQ_CUDA_SUM_TREE:  the same kernels with a plain tree of double adds in
 *                      place of the ordered walk. Not exact: only for the
 *                      benchmark, to measure what exactness costs.
 * PSNR's sums are integers and the same in both modes.
 */
enum { EQ_CUDA_SUM_EXACT = 0, EQ_CUDA_SUM_TREE = 1 };
int eq_cuda_set_sum_mode(EqCuda *cuda, int mode);

/* 1 when a CUDA device can be opened (for tests that must skip without). */
int eq_cuda_device_available(char *why, size_t why_size);

/*
 * TEST ONLY. Fault injection: the environment variable
 * EXACTQUALITY_CUDA_FAULT, read once by eq_cuda_open(), makes one kind of
 * CUDA call report an error as if the device had failed:
 *   init    device detection (open fails: EQ_ERR_NO_DEVICE)
 *   alloc   device or pinned allocation (EQ_ERR_NO_MEMORY)
 *   copy    host/device copies (EQ_ERR_DEVICE)
 *   launch  kernel launches (EQ_ERR_DEVICE)
 * The error goes through the same check macro and unwinding as a real one.
 * Never set it in production.
 */
#define EQ_CUDA_FAULT_ENV "EXACTQUALITY_CUDA_FAULT"

/*
 * How the walk adds a chunk whose run (or split record) does not apply
 * (lib/cuda/ordsum.cuh): EXACTQUALITY_CUDA_WALK=seq (one thread adds the
 * chunk's terms from the failing one on, the loop's own adds in order),
 * scan (the block's exact add: one block scan per binade crossing) or plan
 * (the block's exact add with a planned pass over per-term binades first,
 * then scans where it stops). Read by eq_cuda_open(); all give the loop's
 * bits; the default is EQ_CUDA_WALK_DEFAULT.
 */
#define EQ_CUDA_WALK_ENV "EXACTQUALITY_CUDA_WALK"
#define EQ_CUDA_WALK_DEFAULT "seq"
/* "off": no split records (EqCudaSplit below): every chunk planned term by
 * term goes to the walk's fallback, as before they existed. "warp" or
 * "block": the records of the chunks formed again after a reused plan are
 * made by one warp each, or by a block of 256 threads each (shorter
 * chains, fewer chunks at once); by default by a block in launches of at
 * most EQC_SPLIT_BLOCK_MAX chunks (lib/cuda/ordsum.cu: SSIM's, whose few
 * split chunks are the kernel's latency), by a warp above. For
 * tools/bench_cuda; the same bits every way. */
#define EQ_CUDA_SPLIT_ENV "EXACTQUALITY_CUDA_SPLIT"
/* The chunk runs kernel takes one warp per chunk of a plane group, which
 * forms the runs of all the group's sums in a row ("group"), or one warp
 * per chunk of each sum ("sum"); by default "sum" for launches of at most
 * EQC_RUNS_PER_SUM_MAX chunks (lib/cuda/ordsum.cu), "group" above (for
 * tools/bench_cuda; the same bits either way). */
#define EQ_CUDA_RUNS_ENV "EXACTQUALITY_CUDA_RUNS"
/* Host frames scored with SSIMULACRA2 go up in bands of rows, each band
 * converted while the next is copied: by default one band per
 * EQ_CUDA_BAND_ROWS luma rows (at most 16), or the number this variable
 * gives (1: the whole frame at once; for tools/bench_cuda; the same bits
 * either way). */
/* The engine's plan: "reuse" (the default) forms the chunk runs under the
 * plan of the scorer's previous launch of the same layout (the same sums,
 * lengths, strides and kinds at the same place in the frame) in the pass
 * that forms this frame's chunk sums, then forms again only the chunks
 * whose new plan differs or is "term by term"; "fresh" plans every launch
 * from its own chunk sums first (a pass over the terms more). The plan is
 * advice: the same bits either way (for tools/bench_cuda). */
#define EQ_CUDA_PLAN_ENV "EXACTQUALITY_CUDA_PLAN"
/* Launches whose sums have at most 256 chunks each (SSIM's, MS-SSIM's and
 * SSIMULACRA2's at small sizes) form their chunk sums, plan, chunk runs and
 * split records in one kernel, a block a chunk (lib/cuda/ordsum.cu,
 * ord_small_chunks_kernel): "off" takes the kernels of larger launches
 * instead (chunk sums or runs under a kept plan, plan, runs again), "on"
 * the one kernel whatever the launch's total. The same bits every way (for
 * tools/bench_cuda). */
#define EQ_CUDA_FUSED_ENV "EXACTQUALITY_CUDA_FUSED"
/* The launches that kernel takes: every sum of at most
 * EQ_CUDA_FUSED_SUM_CHUNKS chunks (a thread of its block each), and, unless
 * forced (`forced` 1 on, 0 off, -1 by size: EQ_CUDA_FUSED_ENV), at most
 * EQ_CUDA_FUSED_MAX chunks in all. For the engine (lib/cuda/ordsum.cu) and
 * its model (tools/ordsum_rates.c). */
#define EQ_CUDA_FUSED_SUM_CHUNKS 256
#define EQ_CUDA_FUSED_MAX 2048
static inline int eq_cuda_fused_launch(long long most_chunks, long long total_chunks, int forced)
{
    return most_chunks <= EQ_CUDA_FUSED_SUM_CHUNKS &&
           (forced >= 0 ? forced : total_chunks <= EQ_CUDA_FUSED_MAX);
}
/* Whether a launch's sums are walked by the small walk
 * (ord_walk_small_kernel, a thread of its block per chunk of a sum),
 * fused or not. */
static inline int eq_cuda_small_walk(long long most_chunks)
{
    return most_chunks <= EQ_CUDA_FUSED_SUM_CHUNKS;
}
/* In that kernel a sum's first chunk, planned term by term (its sum
 * leaves binades from +0.0 on), is added by the loop itself, its start
 * being known, and the walk starts after it: "off" makes it a split record
 * for the walk, as the other chunks planned term by term. The same bits
 * either way (for tools/bench_cuda). */
#define EQ_CUDA_PREWALK_ENV "EXACTQUALITY_CUDA_PREWALK"
/* That kernel lets the small walk's launch go ahead as soon as all its
 * blocks run (griddepcontrol.launch_dependents), so that the walk's few
 * blocks wait resident, and start the moment it completes (the walk's
 * griddepcontrol.wait still waits for its completion and writes): "off"
 * launches the walk when it ends. The same bits either way. */
#define EQ_CUDA_EARLYWALK_ENV "EXACTQUALITY_CUDA_EARLYWALK"
/* "two": the small walk after the fused kernel waits for each of its
 * sum's chunks to be published (flags set by the chunk's block) instead of
 * for the fused kernel's end, so that it starts as soon as its own sum's
 * chunks are done, in two steps (every chunk's run and plan, from which it
 * forms its segments while the split records are made; then the chunks
 * with a split record), the default since session 28 (SSIM 4K on an
 * H100 with the chain below: exact / tree 1.206 against 1.235 interleaved,
 * 576x324 and 1080p 7 % faster); "end" waits for each chunk's end at once;
 * "off" waits for the kernel's end (griddepcontrol.wait). The same bits
 * each way. */
#define EQ_CUDA_FEDWALK_ENV "EXACTQUALITY_CUDA_FEDWALK"
/* "on": the small walk applies its sum's segments and split records'
 * pieces as one chain (eq_ord_walk_chain, lib/exact/ordsum.h): the steps
 * placed in order by all its threads at once, then the sums alone, the
 * checks beside them, looked at once; where one fails, the walk step by
 * step as before. The default since session 28; "off" walks step by step
 * alone. The same bits each way. */
#define EQ_CUDA_WALKCHAIN_ENV "EXACTQUALITY_CUDA_WALKCHAIN"
/* "on" (the default since session 36; "off": the walk below alone): the
 * walk of larger launches (ord_walk_kernel) takes a sum of at most 8192
 * chunks (4096 in session 36; 4K's first scale has 8100) as one chain
 * too. The runs kernel adds each sum's first chunk (planned term by term:
 * its prefix +0.0 has no binade) by the loop's own adds; the walk places
 * every segment's run and every split record's piece of the sum in order
 * at once, composes each stretch of run steps under one binade into one
 * step (eq_cuda_stage_ord_compose), then applies them as the small walk's
 * chain does. A chunk planned term by term without a split record (an
 * early chunk that crosses many binades) is added by the block between
 * two stretches of the chain (and the steps are then not composed). Where
 * the chain fails (too many steps, a failed check), the walk goes group by
 * group from +0.0 as before. The same bits each way. "debug": as "on",
 * and the walk prints a line per sum (its chunks, steps and records,
 * whether the chain held, and the cycles of its three parts). */
#define EQ_CUDA_BIGCHAIN_ENV "EXACTQUALITY_CUDA_BIGCHAIN"
/* Its forms: 1 ("on", the default: unset or any other value), 0 ("off"),
 * 2 ("debug"). */
static inline int eq_cuda_bigchain_form(const char *v)
{
    return v && !strcmp(v, "debug") ? 2 : !(v && !strcmp(v, "off"));
}
/* "off": the kept plan's runs kernel (a warp per chunk of a plane group)
 * forms each sum from its terms in the rows, one at a time. By default a
 * base sum and its quartic's (SSIMULACRA2's d and d^4, and so for the
 * artifact and the detail of d1) are formed together from one read of the
 * staged x: their chunk sums, and their runs wherever the chunk's terms
 * are tie-free, non-negative and small enough for the monotone form (else
 * that sum alone, as before). The same bits each way. */
#define EQ_CUDA_TWINS_ENV "EXACTQUALITY_CUDA_TWINS"
/* The small walk's forms a value of those two variables names: fed 2
 * ("two", the default: unset or any other value), 1 ("end") or 0 ("off");
 * chain 1 ("on", the default) or 0 ("off"). */
static inline int eq_cuda_fedwalk_form(const char *v)
{
    return !v ? 2 : !strcmp(v, "off") ? 0 : !strcmp(v, "end") ? 1 : 2;
}
static inline int eq_cuda_walkchain_form(const char *v)
{
    return !(v && !strcmp(v, "off"));
}
/* "on": in a fused launch walked by the small walk, a chunk whose plan's
 * prefixes cross exactly one binade (eq_ord_cross_binade: SSIM's crossing
 * chunks) gets a crossing record (EqCudaCross) instead of a split record:
 * its 32 lanes' runs under that binade e0 and under e0 + 1, as prefixes
 * and suffixes, and its terms. It depends on e0 alone, so the fused
 * kernel forms it before its wait for the chunk sums before it, from the
 * e0 the launch before left for the chunk (the same sums a frame before),
 * and again after the wait only where this frame's e0 differs. The small
 * walk applies the longest prefix that passes its check, the next lane's
 * terms by the loop's own adds (the crossing is among them) and the
 * suffix after it, checked (eq_ord_walk_cross, lib/exact/ordsum.h).
 * "split": such a chunk gets a split record as ever, but where the e0 of
 * the launch before is this frame's, the fused kernel forms it from the
 * runs and the lanes' totals formed before its wait
 * (eq_ord_split_from_cross_at, lib/exact/ordsum.h), not from its terms'
 * codes after the wait (split_chunk); the walk sees split records only.
 * "split" is the default since session 47, when its runs took the
 * rising forms: on an H100 SSIM 4K exact / tree 1.095-1.182 over six
 * interleaved rounds against 1.161-1.199 with "off" (at 576x324
 * SSIMULACRA2 about 2.5 % slower, MS-SSIM 0.5 %). "on" made SSIM 4K
 * slower (session 28: 1.31 against 1.21). The same bits each way. Returns
 * 0 for "off", 1 for "on", else 2. */
#define EQ_CUDA_CROSSREC_ENV "EXACTQUALITY_CUDA_CROSSREC"
static inline int eq_cuda_crossrec_form(const char *v)
{
    return !v ? 2 : !strcmp(v, "off") ? 0 : !strcmp(v, "on") ? 1 : 2;
}
/* The small walk (launches whose sums have at most 256 chunks) copies the
 * first words of its split records to shared memory while it forms its
 * segments, and walks a record of at most 4 pieces (SSIM's crossing
 * chunks) with every lane reading the pieces, without shuffles, its
 * checks off the chain of sums: "off" copies whole records after the
 * segments and walks every record with split_walk. The same bits either
 * way (for tools/bench_cuda). */
#define EQ_CUDA_LEANWALK_ENV "EXACTQUALITY_CUDA_LEANWALK"
/* In the fused kernel a block waits for the chunk sums before its chunk
 * by its first warp, each lane for every 32nd chunk, pausing between
 * polls, and shares them through shared memory: "thread" has each thread
 * j wait for chunk j's itself, as before (up to 255 threads of a block
 * polling the launch's few cache lines of flags). The same bits either
 * way. */
#define EQ_CUDA_FUSEDWAIT_ENV "EXACTQUALITY_CUDA_FUSEDWAIT"
#define EQ_CUDA_BANDS_ENV "EXACTQUALITY_CUDA_BANDS"
/* SSIMULACRA2 launches scale 0's sums on the third stream (the greatest
 * priority, as the other scales' sums) after its column blur; "stream"
 * launches them on the scorer's stream instead, where they ran before
 * session 19 (1080p 0.77 against 0.75 ms). The same bits (for
 * tools/bench_cuda). */
#define EQ_CUDA_S0SUMS_ENV "EXACTQUALITY_CUDA_S0SUMS"
#define EQ_CUDA_BAND_ROWS 512

/*
 * Stage entry points for tests/checkkernels: each runs ONE device stage on
 * host input (copied up on the scorer's stream) and copies every output of
 * the stage back, so that the harness can compare it with the C reference
 * bit for bit. They return 0 or a negative EQ_ERR_*.
 */

/* PSNR: sum of squared differences of one component, as an integer. */
int eq_cuda_stage_psnr_sse(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist, int comp,
                           uint64_t *sse);

/* SSIM stages on tight host float planes (lib/cpu/ssim.h's C stages are
 * the references): component 0 of ref and dist to floats (w x h each); the
 * box decimation by `factor`; float_ssim's box decimation by `factor`
 * straight from component 0's samples (2 .. 64; the C reference is
 * to_float then the box; outputs eq_decimated_size on a side);
 * MS-SSIM's low-pass decimation by 2 (likewise); the window terms of one
 * scale ((w-10) x (h-10) windows; s widened to double, as the sums take
 * it). Where they read samples, `misalign` 0 reads component 0 where the
 * upload put it (rows on 256 bytes); 1 .. 255 first moves it to that many
 * bytes past a 256-byte boundary, rows (row bytes + misalign) apart, so
 * that the kernels' unaligned paths run. */
int eq_cuda_stage_ssim_to_float(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist,
                                int misalign, float *dr, float *dd);
int eq_cuda_stage_ssim_box(EqCuda *cuda, const float *src, int w, int h, int factor,
                           float *dst);
int eq_cuda_stage_ssim_box_samples(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist,
                                   int factor, int misalign, float *dr, float *dd);
int eq_cuda_stage_ms_ssim_lpf(EqCuda *cuda, const float *src, int w, int h, float *dst);
int eq_cuda_stage_ssim_terms(EqCuda *cuda, const float *ref, const float *dist, int w, int h,
                             double *l, double *c, double *s, double *lcs);

/* SSIMULACRA2 stages (lib/cpu/ssimulacra2.h's C stages are the
 * references). to_linear: 6 planes of w x h (ref R, G, B, dist R, G, B);
 * downsample: one plane into (w+1)/2 x (h+1)/2; xyb: 3 planes of n in, 3
 * out (float); blur_terms: one channel's x1, x2 (w x h floats) to its d and
 * d1 planes (the five blurs, then eq_s2_ssim_d and eq_s2_edge_d1). */
int eq_cuda_stage_s2_to_linear(EqCuda *cuda, const EqFrame *ref, const EqFrame *dist,
                               double *lin);
int eq_cuda_stage_s2_downsample(EqCuda *cuda, const double *in, int w, int h, double *out);
int eq_cuda_stage_s2_xyb(EqCuda *cuda, const double *lin, size_t n, float *xyb);
int eq_cuda_stage_s2_blur_terms(EqCuda *cuda, const float *x1, const float *x2, int w, int h,
                                double *d, double *d1);

/* The ordered-sum engine on `ncases` sums in one launch, as a metric uses
 * it. Terms are host arrays read as x[i * stride]. sums[i] gets sum i (in
 * the scorer's sum mode); with `partials`, every chunk's intermediate
 * results, the cases' chunks one after another (see
 * eq_cuda_stage_ordsum_chunks). flags: EQ_CUDA_STAGE_SUM_NONE_PLAN plans
 * every chunk "term by term" (a wrong plan must cost time, never bits);
 * EQ_CUDA_STAGE_SUM_PAIRS forms every chunk run with the parity-pair
 * functions, without the tie-free fast path (both must give the host's
 * runs); EQ_CUDA_STAGE_SUM_RUNS_GROUP and EQ_CUDA_STAGE_SUM_RUNS_SUM take
 * the chunk runs kernel's warps per chunk of a plane group or per chunk of
 * each sum (EQ_CUDA_RUNS_ENV), whatever the launch's size;
 * EQ_CUDA_STAGE_SUM_REUSE takes the plan of the stage's launch before, when
 * its layout was the same (EQ_CUDA_PLAN_ENV; without the flag the stage
 * plans afresh); EQ_CUDA_STAGE_SUM_SPLIT_WARP and _SPLIT_BLOCK choose how
 * the split records of the chunks formed again are made (EQ_CUDA_SPLIT_ENV),
 * whatever the launch's size; EQ_CUDA_STAGE_SUM_LIE has the walk take the
 * middle run piece of every split record for a poisoned run, which fails
 * its check, so that the block adds the rest of the chunk (the same bits,
 * split_failed counting them); EQ_CUDA_STAGE_SUM_FUSED takes
 * ord_small_chunks_kernel for a launch whose sums have at most 256 chunks
 * each (without it the stage never does, so that the other kernels stay
 * tested at those sizes). */
#define EQ_CUDA_STAGE_SUM_NONE_PLAN 1
#define EQ_CUDA_STAGE_SUM_PAIRS 2
#define EQ_CUDA_STAGE_SUM_RUNS_GROUP 4
#define EQ_CUDA_STAGE_SUM_RUNS_SUM 8
#define EQ_CUDA_STAGE_SUM_REUSE 16
#define EQ_CUDA_STAGE_SUM_SPLIT_WARP 32  /* split records formed again: a warp each */
#define EQ_CUDA_STAGE_SUM_SPLIT_BLOCK 64 /* ... a block each (default: by size) */
#define EQ_CUDA_STAGE_SUM_LIE 128
#define EQ_CUDA_STAGE_SUM_FUSED 256 /* a small launch by ord_small_chunks_kernel (else never) */
/* with _FUSED: the chunk sums' array NaN before the launch, and each block
 * publishing its chunk sum late, the later chunks of a sum first (about
 * 2 us a chunk), so that a block that did not wait for the chunks before
 * it would plan from NaN; the engine's other arrays hold the launch's
 * epoch before it, so that a ready flag among them would read as
 * published */
#define EQ_CUDA_STAGE_SUM_FUSED_LATE 512
/* with _FUSED: the small walk fed by the fused kernel's chunk flags, in two
 * steps (EQ_CUDA_FEDWALK_ENV "two"), or at each chunk's end (_FED_END,
 * "end"); with neither, the walk waits for the kernel's end ("off"),
 * whatever the environment says */
#define EQ_CUDA_STAGE_SUM_FED 1024
#define EQ_CUDA_STAGE_SUM_FED_END 2048
/* the small walk as one chain (EQ_CUDA_WALKCHAIN_ENV "on"); without it,
 * step by step, whatever the environment says */
#define EQ_CUDA_STAGE_SUM_CHAIN 4096
/* crossing records (EQ_CUDA_CROSSREC_ENV "on") in a fused launch walked by
 * the small walk; without it (or _CROSS_SPLIT), none, whatever the
 * environment says */
#define EQ_CUDA_STAGE_SUM_CROSS 8192
/* the large walk as one chain (EQ_CUDA_BIGCHAIN_ENV "on"); without it,
 * group by group, whatever the environment says */
#define EQ_CUDA_STAGE_SUM_BIGCHAIN 16384
/* the kept plan's runs kernel forms each sum alone (EQ_CUDA_TWINS_ENV
 * "off"; default: a base sum and its quartic together) */
#define EQ_CUDA_STAGE_SUM_SINGLES 32768
/* the launch slot of a frame (0 .. 7) the launch takes, with the plan and
 * the crossing records' binades it kept (the scorer gives each launch of a
 * frame its own, in order): a caller that interleaves the launches of
 * several metrics gives each its own, as the scorer does; 0 without it */
#define EQ_CUDA_STAGE_SUM_SLOT(k) (((k) & 7) << 16)
/* the slot that EQ_CUDA_STAGE_SUM_SLOT put in `flags` */
#define EQ_CUDA_STAGE_SUM_SLOT_OF(flags) (((flags) >> 16) & 7)
/* split records formed from crossing records' runs (EQ_CUDA_CROSSREC_ENV
 * "split") in a fused launch walked by the small walk */
#define EQ_CUDA_STAGE_SUM_CROSS_SPLIT (1 << 19)
typedef struct EqCudaSumCase {
    const double *x;
    size_t n;
    ptrdiff_t stride;
    int kind; /* EQ_CUDA_TERM_*: what is added for x[i] */
} EqCudaSumCase;

/* Terms the engine forms from x[i]: eq_s2_term(kind, x[i]), whose kinds
 * (lib/exact/ssimulacra2.h) these name. */
enum {
    EQ_CUDA_TERM_X = EQ_S2_TERM_X,                 /* x[i] */
    EQ_CUDA_TERM_QUARTIC = EQ_S2_TERM_QUARTIC,     /* eq_s2_quartic(x[i]) */
    EQ_CUDA_TERM_ARTIFACT = EQ_S2_TERM_ARTIFACT,   /* eq_s2_artifact(x[i]) */
    EQ_CUDA_TERM_ARTIFACT4 = EQ_S2_TERM_ARTIFACT4, /* eq_s2_quartic(eq_s2_artifact(x[i])) */
    EQ_CUDA_TERM_DETAIL = EQ_S2_TERM_DETAIL,       /* eq_s2_detail(x[i]) */
    EQ_CUDA_TERM_DETAIL4 = EQ_S2_TERM_DETAIL4,     /* eq_s2_quartic(eq_s2_detail(x[i])) */
};

/*
 * A chunk planned "term by term" (its approximate prefix leaves a binade
 * inside it) is split by ord_chunk_runs into pieces, in term order: a term
 * that crosses a binade by the approximate in-chunk prefix (e ==
 * EQ_CUDA_SPLIT_CROSS: added with the plain add, x is the term) or a
 * stretch of terms planned under one binade e (run: the run of its non-zero
 * terms under e). Zero terms belong to no piece (s + 0 == s for every s a
 * sum can hold). A piece covers the terms from its start to the next
 * piece's start (the chunk's end for the last). The walk applies the pieces
 * with the checked eq_ord_apply; the first check that fails hands the rest
 * of the chunk, from that piece's start, to the walk's fallback
 * (EQ_CUDA_WALK_ENV). Advice made cheap: a wrong split costs time, never
 * bits.
 */
#define EQ_CUDA_SPLIT_MAX 32
/* A split chunk whose run terms are all rising (eq_ord_rising_term) takes
 * the block's fast path (lib/cuda/ordsum.cu, split_fast_pieces) when it
 * holds at most this many exact halves. */
#define EQ_CUDA_SPLIT_FAST_TIES 16
#define EQ_CUDA_SPLIT_CROSS EQ_ORD_CROSS /* lib/exact/ordsum.h, -32767 */
typedef EqOrdPiece EqCudaSplitPiece; /* lib/exact/ordsum.h */
typedef struct EqCudaSplit {
    int np; /* pieces */
    int pad;
    EqCudaSplitPiece p[EQ_CUDA_SPLIT_MAX];
} EqCudaSplit;

/* A chunk's crossing record (EQ_CUDA_CROSSREC_ENV): its terms x[0 ..
 * count-1] as EQ_ORD_CROSS_LANES lanes of as many terms, P[l] lanes 0 ..
 * l's runs under binade e0 composed in order, S[l] lanes l + 1 .. 31's
 * under e0 + 1 (eq_ord_cross_record's; S[31] empty), and the terms
 * themselves (as the loop adds them), for the lane in which the walk
 * finds the crossing. 11 KB. */
#define EQ_CUDA_CROSS_TERMS (EQ_ORD_CROSS_LANES * EQ_ORD_CROSS_LANES)
typedef struct EqCudaCross {
    int e0;
    int count; /* -1: no record (EqCudaSumPartials) */
    int pad[2]; /* a multiple of 16 bytes (the walk copies them so) */
    EqOrdRun P[EQ_ORD_CROSS_LANES];
    EqOrdRun S[EQ_ORD_CROSS_LANES];
    double x[EQ_CUDA_CROSS_TERMS];
} EqCudaCross;

typedef struct EqCudaSumPartials {
    double *chunk_sum;
    int *plan;
    EqOrdRun *runs;
    EqOrdRun *seg; /* meaningful where seg_len > 0 */
    int *seg_len;
    /* optional (NULL: not copied): per chunk, its split record (np = -1:
     * none; only chunks planned "term by term" have one) */
    EqCudaSplit *split;
    /* split records made, applied whole by the walk, and handed to the
     * walk's fallback part way */
    int split_made, split_applied, split_failed;
    /* optional (NULL: not copied), with EQ_CUDA_STAGE_SUM_CROSS: per
     * chunk, its crossing record (count = -1: none); and the plan's
     * approximate prefix before each chunk (meaningful where the plan is
     * EQ_ORD_NONE) */
    EqCudaCross *cross;
    double *approx;
    /* crossing records the walk used, of those the ones formed before the
     * fused kernel's wait, applied whole, handed to the fallback part way;
     * with EQ_CUDA_STAGE_SUM_CROSS_SPLIT, cross_made counts the chunks
     * whose runs formed before the wait were under this launch's binade,
     * cross_early those of them that took the form (a split record from
     * them, in the pool if it had room) */
    int cross_made, cross_early, cross_applied, cross_failed;
    int plan_reused;   /* 1: the launch took the plan of the launch before */
    int formed_again;  /* chunks whose runs were formed again (plan reused) */
    int big_chains;    /* sums the large walk took as one chain (EQ_CUDA_STAGE_SUM_BIGCHAIN) */
} EqCudaSumPartials;

/* Chunks of case i (an empty sum has one empty chunk). */
size_t eq_cuda_stage_ordsum_chunks(size_t n);
int eq_cuda_stage_ordsum(EqCuda *cuda, const EqCudaSumCase *cases, int ncases, int flags,
                         double *sums, EqCudaSumPartials *partials);

/* The large walk's composition of its chain (EQ_CUDA_BIGCHAIN_ENV): chain b
 * of nchains, its n[b] steps (at most EQ_CUDA_COMPOSE_STEPS) at
 * steps + b EQ_CUDA_COMPOSE_STEPS, each stretch of run steps under one
 * binade composed into one step by a block of the device, as
 * eq_ord_compose_chain does on the host; out (the same layout) gets the
 * steps left, nout[b] their count. A composed step's run and binade are
 * the host's; its x and start are its stretch's last step's. */
#define EQ_CUDA_COMPOSE_STEPS 512
int eq_cuda_stage_ord_compose(EqCuda *cuda, const EqOrdPiece *steps, const int *n, int nchains,
                              EqOrdPiece *out, int *nout);

#ifdef __cplusplus
}
#endif

#endif /* EQ_CUDA_CUDA_H */
