# SPDX-License-Identifier: LGPL-2.1-or-later
# Adds clock64 / %globaltimer stamps and printf lines (TF: a fused block's
# phases; TW: a small walk's; TS: split_chunk's steps, block form; TC:
# walk_chunks' cycles by step kind; with --split-walk also SW: split_walk's
# two passes, "SW np first-pass-cycles checks-cycles all-passed", whose
# printf lengthens walk_chunks' split steps) to a copy of
# lib/cuda/ordsum.cu, given as the argument. For measuring only: never
# build it into the library. tools/trace/run.sh runs it; report.py reads
# the lines.
import sys
# --light: the fused kernel's and the small walk's stamps only (TF, TW),
# without split_chunk's and walk_chunks' printf, so that the fused span
# and its blocks' ends are what they are untraced (session 40)
# --cross-split: also cross_split's steps (EXACTQUALITY_CUDA_CROSSREC
# "split", session 47): "TX g np scans parts pieces store", cycles, by the
# lane that forms the record, and "TP g early formed publish", the cycles
# of a split block's FED publish before it; their printf lengthens the
# split blocks, so the fused span and ends are not to be read with it
split_walk = '--split-walk' in sys.argv[1:]
light = '--light' in sys.argv[1:]
cross_split = '--cross-split' in sys.argv[1:]
# --fine (with --light): finer stamps of the split blocks and the small
# walk's chain, printed after each kernel's own end (session 52): "TG g c
# e early w0 w1 w2 fed2 cross rest end scans parts pieces store", cycles:
# the early crossing runs of warps 0, 1 and 2 (cross_split_runs; 0 where
# not formed); after the plan FED 2's publish, the crossing block
# (cross_split with its barrier), the rest up to the FED end, and that end
# (fence, barrier, flags); then cross_split's steps by lane 31's clock,
# kept in shared memory (--cross-split's TX line printed them from inside
# it, which lengthened the blocks; 0 where no record was formed). "TH s
# steps place prog chain after": cycles of the chain's step placement
# (scans and counts), its steps' stores, warp 0's chain and the barriers
# after
fine = '--fine' in sys.argv[1:]
assert light or not fine, '--fine goes with --light'
assert not (fine and cross_split), '--fine stamps cross_split where --cross-split prints'
assert not (light and split_walk), '--split-walk stamps the finer half, which --light leaves out'
p = [a for a in sys.argv[1:] if a not in ('--split-walk', '--light', '--cross-split', '--fine')][0]
s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
helpers = '''
static __device__ __forceinline__ unsigned long long tr_gt(void)
{
    unsigned long long v;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(v));
    return v;
}
#define TRK(i) do { if (threadIdx.x == 0) tk[i] = clock64(); } while (0)
'''
rep('static __device__ __forceinline__ unsigned ld_acquire_u32(', helpers + 'static __device__ __forceinline__ unsigned ld_acquire_u32(')
# fused kernel
# its TF line: the block's end (TRK(7) and gt7, the FED end after it),
# printed after the FED end (and --fine's TG line), so that the printf
# (about 1 ms) holds neither the small walk's flags nor TG's last phases
# (before session 53 it came before the FED end)
tf_print = '''    if (tid == 0)
        printf("TF %lld %d %d %d %llu %llu %lld %lld %lld %lld %lld %lld %lld\\n", g, c, e, count,
               gt0, gt7, tk[1] - tk[0], tk[2] - tk[1], tk[3] - tk[2], tk[4] - tk[3],
               tk[5] - tk[4], tk[6] - tk[5], tk[7] - tk[6]);
'''
rep('''    if (early_walk)
        asm volatile("griddepcontrol.launch_dependents;");
    if (tid == 0)
        ticket = atomicAdd(&counters[4], 1);
    __syncthreads();
    const long long g = ticket;''', '''    long long tk[8];
    const unsigned long long gt0 = tr_gt();
    TRK(0);
    if (early_walk)
        asm volatile("griddepcontrol.launch_dependents;");
    if (tid == 0)
        ticket = atomicAdd(&counters[4], 1);
    __syncthreads();
    TRK(1);
    const long long g = ticket;''')
# the chunk sum is published before the barrier (session 31): TRK(2)
# and TRK(3) together, its phase 0 us; a sum's first chunk's prewalk
# (thread 32) lies in phase 1 (staging, chunk sum) of its block
rep('''    __syncthreads();
    const double cs = own;''', '''    __syncthreads();
    TRK(2);
    const double cs = own;
    TRK(3);''')
rep('''    const double prefix = plan_prefix<SPLIT_NT>(wtot, local);''', '''    __syncthreads();
    TRK(4);
    const double prefix = plan_prefix<SPLIT_NT>(wtot, local);
    TRK(5);''')
rep('''    __syncthreads();
    const int e = own_plan;''', '''    __syncthreads();
    TRK(6);
    const int e = own_plan;''')
rep('''        chunk_result(stage + lane * RUNS_ROW, min(max(count - lane * 32, 0), 32), e, g, no_fast,
                     approx, zero, runs, split_idx, pool, pool_cap, counters, lane);
    }
''', '''        chunk_result(stage + lane * RUNS_ROW, min(max(count - lane * 32, 0), 32), e, g, no_fast,
                     approx, zero, runs, split_idx, pool, pool_cap, counters, lane);
    }
    __syncthreads();
    TRK(7);
    const unsigned long long gt7 = tr_gt();
''')
# after the FED end (--fine's TG line goes before it, anchored on the same line)
rep('''            st_release_u32(&done[g], epoch);
        }
    }
''', '''            st_release_u32(&done[g], epoch);
        }
    }
''' + tf_print)
# small walk
rep('''    const int s = blockIdx.x, c = threadIdx.x, lane = c & 31, w = c >> 5;
    const int g = c / EQC_ORD_SEG, j = c % EQC_ORD_SEG;
    if (!FED)
        pdl_wait();''', '''    const int s = blockIdx.x, c = threadIdx.x, lane = c & 31, w = c >> 5;
    const int g = c / EQC_ORD_SEG, j = c % EQC_ORD_SEG;
    long long tk[8];
    int iters = 0;
    const unsigned long long gt0 = tr_gt();
    if (!FED)
        pdl_wait();
    TRK(0);''')
# the fed walk's flags: the first (every chunk's run, or its end)
rep('''        if (in)
            wait_flag(FED == 2 ? &run_ready[off + c] : &done[off + c], epoch);
        __syncthreads();
    }
''', '''        if (in)
            wait_flag(FED == 2 ? &run_ready[off + c] : &done[off + c], epoch);
        __syncthreads();
    }
    const unsigned long long gt1 = tr_gt();
    TRK(4);
''')
# FED 2: the records' flags (chunks planned term by term)
rep('''        if (in && p == EQ_ORD_NONE)
            wait_flag(&done[off + c], epoch);
        if (in)
            sp = none_plan ? -1 : split_idx[off + c];
    }
''', '''        if (in && p == EQ_ORD_NONE)
            wait_flag(&done[off + c], epoch);
        if (in)
            sp = none_plan ? -1 : split_idx[off + c];
        __syncthreads();
    }
    TRK(5);
''')
rep('''    if (lean) {
        lean_recs.store(sh.recs, nrec);
        __syncthreads();
        /* a kept record of more pieces: all copied again whole */
        const bool long_rec = c < nrec && sh.recs[c].np > EQC_LEAN_PIECES;
        if (__syncthreads_or(long_rec)) {
            copy_split_records(sh.recs, sh.rec_src, nrec, pool);
            lean = 2;
        }
    } else {
        __syncthreads();
        copy_split_records(sh.recs, sh.rec_src, nrec, pool);
    }
''', '''    TRK(1);
    if (lean) {
        lean_recs.store(sh.recs, nrec);
        __syncthreads();
        /* a kept record of more pieces: all copied again whole */
        const bool long_rec = c < nrec && sh.recs[c].np > EQC_LEAN_PIECES;
        if (__syncthreads_or(long_rec)) {
            copy_split_records(sh.recs, sh.rec_src, nrec, pool);
            lean = 2;
        }
    } else {
        __syncthreads();
        copy_split_records(sh.recs, sh.rec_src, nrec, pool);
    }
''')
# after every copy (the crossing records' last)
rep('''            xc.store(X->rec, nxrec, q0);
        }
    }
    __syncthreads();
''', '''            xc.store(X->rec, nxrec, q0);
        }
    }
    __syncthreads();
    TRK(2);
''')
# the chain (EQ_CUDA_WALKCHAIN_ENV), whether it walked the sum or not
rep('''            if (sh.next) {
                sum = sh.s;
                c0 = nch;
            }
            __syncthreads();
        }
    }
''', '''            if (sh.next) {
                sum = sh.s;
                c0 = nch;
            }
            __syncthreads();
        }
    }
    TRK(6);
''')
rep('''            sum = walk_rest(d, c0, sum, pos0, walk, sh.terms, &sh.ex, &sh.s);
            c0++;
        }
    }
    if (c == 0)
        out[d.out] = sum;''', '''            sum = walk_rest(d, c0, sum, pos0, walk, sh.terms, &sh.ex, &sh.s);
            c0++;
        }
        iters++;
    }
    TRK(3);
    if (c == 0)
        out[d.out] = sum;
    if (c == 0)
        printf("TW %d %d %d %d %llu %llu %llu %lld %lld %lld %lld %lld %lld\\n", s, nch, nrec,
               iters, gt0, gt1, tr_gt(), tk[4] - tk[0], tk[5] - tk[4], tk[1] - tk[5],
               tk[2] - tk[1], tk[6] - tk[2], tk[3] - tk[6]);''')
if cross_split:
    rep('''    const int lane = threadIdx.x & 31;
    const double inc = xs->inc[lane];''', '''    const int lane = threadIdx.x & 31;
    const long long z0 = clock64();
    const double inc = xs->inc[lane];''')
    rep('''    const int tt = __ffs(cross) - 1;
    const unsigned nz = __ballot_sync(0xffffffffu, x != 0.0);''', '''    const int tt = __ffs(cross) - 1;
    const long long z1 = clock64();
    const unsigned nz = __ballot_sync(0xffffffffu, x != 0.0);''')
    rep('''    /* lane 31: the scans' totals, the pieces (eq_ord_split_pieces, as the''', '''    const long long z2 = clock64();
    /* lane 31: the scans' totals, the pieces (eq_ord_split_pieces, as the''')
    rep('''    xs->formed = np >= 0;
    if (np < 0)
        return;''', '''    const long long z3 = clock64();
    xs->formed = np >= 0;
    if (np < 0)
        return;''')
    rep('''        runs[g] = eq_ord_poison();
    split_idx[g] = slot;
}''', '''        runs[g] = eq_ord_poison();
    split_idx[g] = slot;
    printf("TX %lld %d %lld %lld %lld %lld\\n", g, np, z1 - z0, z2 - z1, z3 - z2, clock64() - z3);
}''')
    # (the lines' beginnings only, so that a change to their ends, as
    # session 47's s47pub.diff made, leaves the patterns as they are)
    rep('''    if (FED == 2 && e == EQ_ORD_NONE''', '''    const long long q0 = clock64();
    if (FED == 2 && e == EQ_ORD_NONE''')
    rep('''    const bool run_left = FED != 2 || e != EQ_ORD_NONE''', '''    const long long q1 = clock64();
    const bool run_left = FED != 2 || e != EQ_ORD_NONE''')
    rep('''            xsplit = xs.formed;
        }''', '''            xsplit = xs.formed;
        }
        if (tid == 0 && e == EQ_ORD_NONE)
            printf("TP %lld %d %d %lld\\n", g, (int)early, (int)(early && xs.formed), q1 - q0);''')
if fine:
    # each stamp placed before or after a unique line of the source
    before = lambda anchor, text: rep(anchor, text + anchor)
    after = lambda anchor, text: rep(anchor, anchor + text)
    before('''static __device__ __forceinline__ void cross_split(''',
           '''__shared__ long long tr_cs[5]; /* cross_split's steps, lane 31's clock */
''')
    before('''    const double inc = xs->inc[lane];
''', '''    if (lane == 31)
        tr_cs[0] = clock64();
''')
    after('''    const int tt = __ffs(cross) - 1;
''', '''    if (lane == 31)
        tr_cs[1] = clock64();
''')
    before('''    /* lane 31: the scans' totals, the pieces''', '''    tr_cs[2] = clock64();
''')
    after('''    xs->formed = np >= 0;
''', '''    tr_cs[3] = clock64();
''')
    rep('''        runs[g] = eq_ord_poison();
    split_idx[g] = slot;
}''', '''        runs[g] = eq_ord_poison();
    split_idx[g] = slot;
    tr_cs[4] = clock64();
}''')
    after('''    __shared__ long long ticket;
''', '''    __shared__ long long trw[3];
    long long tq[5];
    if (threadIdx.x < 3)
        trw[threadIdx.x] = 0;
    if (threadIdx.x < 5)
        tr_cs[threadIdx.x] = 0;
''')
    before('''            if constexpr (CROSS == 2)
                cross_split_runs(stage, count, k, &xs);
''', '''            const long long x0 = clock64();
''')
    # after the if constexpr's else branch: an anchor between its two
    # branches made cross_form the stamp's else (session 53: the fine
    # trace's illegal address)
    after('''                cross_form(stage, count, k, cross + g);
''', '''            if (tid < 96 && lane == 0)
                trw[warp] = clock64() - x0;
''')
    after('''    const int e = own_plan;
''', '''    tq[0] = clock64();
''')
    before('''    const bool run_left = FED != 2 || e != EQ_ORD_NONE''', '''    tq[1] = clock64();
''')
    before('''    if (count <= 0) {
        if (tid == 0)
            empty_chunk(''', '''    tq[2] = clock64();
''')
    before('''    if (FED) {
        __threadfence();
        __syncthreads();
        if (tid == 0) {
            if (FED == 2 && e != EQ_ORD_NONE)''', '''    tq[3] = clock64();
''')
    after('''            st_release_u32(&done[g], epoch);
        }
    }
''', '''    tq[4] = clock64();
    if (tid == 0)
        printf("TG %lld %d %d %d %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld\\n", g, c,
               e, early_e0, trw[0], trw[1], trw[2], tq[1] - tq[0], tq[2] - tq[1], tq[3] - tq[2],
               tq[4] - tq[3], tr_cs[4] ? tr_cs[1] - tr_cs[0] : 0, tr_cs[4] ? tr_cs[2] - tr_cs[1] : 0,
               tr_cs[4] ? tr_cs[3] - tr_cs[2] : 0, tr_cs[4] ? tr_cs[4] - tr_cs[3] : 0);
''')
    rep('''    long long tk[8];
    int iters = 0;''', '''    long long tk[8], th[3] = {0, 0, 0};
    int th_steps = -1;
    int iters = 0;''')
    after('''        bad = __syncthreads_or(bad);
''', '''        th[0] = clock64();
''')
    before('''            if (w == 0) {
                double y = sum;''', '''            th[1] = clock64();
            th_steps = steps;
''')
    after('''                        atomicAdd(&counters[EQC_CNT_CROSS_APPLIED], nxchain);
                }
            }
''', '''            th[2] = clock64();
''')
    after('''        }
    }
    TRK(6);
''', '''    if (c == 0 && th_steps >= 0)
        printf("TH %d %d %lld %lld %lld %lld\\n", s, th_steps, th[0] - tk[2], th[1] - th[0],
               th[2] - th[1], tk[6] - th[2]);
''')
open(p, 'w').write(s)
if light:
    sys.exit(0)
# --- finer: split_chunk's steps (block form) and walk_chunks' step kinds
s = open(p).read()
def rep2(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
rep2('''    const auto upi = [](int v, int o) { return __shfl_up_sync(0xffffffffu, v, o); };
''', '''    const auto upi = [](int v, int o) { return __shfl_up_sync(0xffffffffu, v, o); };
    long long sk[10];
    sk[0] = clock64();
''')
rep2('''    /* one pass over the thread's codes: those of its first and last''', '''    sk[1] = clock64();
    /* one pass over the thread's codes: those of its first and last''')
rep2('''    /* the code of the last non-zero term up to this thread, and before it */''', '''    sk[2] = clock64();
    /* the code of the last non-zero term up to this thread, and before it */''')
rep2('''    if (!has)
        prev_in = SPLIT_NOCODE;
''', '''    if (!has)
        prev_in = SPLIT_NOCODE;
    sk[3] = clock64();
''')
rep2('''    if (np > EQ_CUDA_SPLIT_MAX)
        return -1;''', '''    sk[4] = clock64();
    if (np > EQ_CUDA_SPLIT_MAX)
        return -1;''')
rep2('''    EqCudaSplit *rec = pool + slot;''', '''    sk[5] = clock64();
    EqCudaSplit *rec = pool + slot;''')
# the block's fast split (session 22): its pieces in the "pieces" step, no
# segmented scan; its TS line carries -np
rep2('''    if (NT > 32 && all_fast && split_fast_pieces(mine, TPT, base, prev_in, pb, np, tf_base,
                                                 tf_all, row * 32 + q * TPT, rec, sh))
        return slot;''', '''    if (NT > 32 && all_fast && split_fast_pieces(mine, TPT, base, prev_in, pb, np, tf_base,
                                                 tf_all, row * 32 + q * TPT, rec, sh)) {
        sk[6] = sk[7] = clock64();
        if (t == 0)
            printf("TS %d %lld %lld %lld %lld %lld %lld %lld\\n", -np, sk[1] - sk[0],
                   sk[2] - sk[1], sk[3] - sk[2], sk[4] - sk[3], sk[5] - sk[4], sk[6] - sk[5],
                   sk[7] - sk[6]);
        return slot;
    }''')
rep2('''    EqOrdSegRun agg, exs;
    agg.run = r;''', '''    sk[6] = clock64();
    EqOrdSegRun agg, exs;
    agg.run = r;''')
rep2('''    if (t == NT - 1 && np > 0 && last_all != EQ_CUDA_SPLIT_CROSS)
        rec->p[np - 1].run = incs.run;
    return slot;''', '''    if (t == NT - 1 && np > 0 && last_all != EQ_CUDA_SPLIT_CROSS)
        rec->p[np - 1].run = incs.run;
    sk[7] = clock64();
    if (NT > 32 && t == 0)
        printf("TS %d %lld %lld %lld %lld %lld %lld %lld\\n", np, sk[1] - sk[0], sk[2] - sk[1],
               sk[3] - sk[2], sk[4] - sk[3], sk[5] - sk[4], sk[6] - sk[5], sk[7] - sk[6]);
    return slot;''')
# walk_chunks: cycles by step kind
rep2('''    *pos0 = 0;
    while (k < nb) {
        const int len = sh.seg_len[k];
        if (len > 1 && eq_ord_apply(x, &sh.seg[k], sh.plan[k])) {
            k += len;
            continue;
        }''', '''    *pos0 = 0;
    long long cy[4] = {0, 0, 0, 0}, tw0 = clock64();
    int nk[4] = {0, 0, 0, 0}, npc = 0;
    while (k < nb) {
        const int len = sh.seg_len[k];
        long long c0 = clock64();
        if (len > 1 && eq_ord_apply(x, &sh.seg[k], sh.plan[k])) {
            k += len;
            cy[0] += clock64() - c0; nk[0]++;
            continue;
        }''')
rep2('''            } else if (WALK_RUN_AT(sh, k)) {
                const EqOrdRun r = run_of(k);
                if (!eq_ord_apply(x, &r, sh.plan[k]))
                    break;
                k++;
            } else if (WALK_RECORD_AT(sh, k)) {
                const int sl = sh.slot[k];
                /* lean 1: the kept records' first EQC_LEAN_WORDS words alone
                 * are in recs, and none has more pieces */
                const int p0 =
                    lean && sl >= 0 && sh.recs[sl].np <= EQC_LEAN_PIECES
                        ? split_walk_lean(&sh.recs[sl], x, lie)
                        : split_walk(sl >= 0 ? &sh.recs[sl] : pool + sh.split[k], x, lane, lie);''', '''            } else if (WALK_RUN_AT(sh, k)) {
                long long c1 = clock64();
                const EqOrdRun r = run_of(k);
                if (!eq_ord_apply(x, &r, sh.plan[k]))
                    break;
                k++;
                cy[1] += clock64() - c1; nk[1]++;
            } else if (WALK_RECORD_AT(sh, k)) {
                long long c1 = clock64();
                const int sl = sh.slot[k];
                /* a kept record's count is in recs in both modes */
                npc += (sl >= 0 ? &sh.recs[sl] : pool + sh.split[k])->np;
                /* lean 1: the kept records' first EQC_LEAN_WORDS words alone
                 * are in recs, and none has more pieces */
                const int p0 =
                    lean && sl >= 0 && sh.recs[sl].np <= EQC_LEAN_PIECES
                        ? split_walk_lean(&sh.recs[sl], x, lie)
                        : split_walk(sl >= 0 ? &sh.recs[sl] : pool + sh.split[k], x, lane, lie);
                cy[2] += clock64() - c1; nk[2]++;''')
rep2('''                int p0;
                *x = cross_step(*cross_of(k), *x, lane, lie, &p0);''', '''                int p0;
                long long c1 = clock64();
                *x = cross_step(*cross_of(k), *x, lane, lie, &p0);
                cy[3] += clock64() - c1; nk[3]++;''')
rep2('''        if (k < end)
            break; /* chunk k fails its check */
    }
    return k;''', '''        if (k < end)
            break; /* chunk k fails its check */
    }
    if (lane == 0)
        printf("TC %d %d %lld %d %lld %d %lld %d %lld %d %lld\\n", blockIdx.x, nk[0], cy[0], nk[1],
               cy[1], nk[2], cy[2], npc, clock64() - tw0, nk[3], cy[3]);
    return k;''')
# split_walk: cycles of its two passes (performance.md, session 18, item 3)
SW = []
SW.append(('''    double y = *x, mine_y = y;''', '''    long long sw0 = clock64();
    double y = *x, mine_y = y;'''))
SW.append(('''    double next;
    const int good''', '''    long long sw1 = clock64();
    double next;
    const int good'''))
SW.append(('''    if (__all_sync(0xffffffffu, good)) {
        *x = y;
        return -1;
    }''', '''    const int allg = __all_sync(0xffffffffu, good);
    long long sw2 = clock64();
    if (lane == 0)
        printf("SW %d %lld %lld %d\\n", np, sw1 - sw0, sw2 - sw1, allg);
    if (allg) {
        *x = y;
        return -1;
    }'''))
if split_walk:
    for a, b in SW:
        rep(a, b)
open(p, 'w').write(s)
