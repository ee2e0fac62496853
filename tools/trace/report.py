# SPDX-License-Identifier: LGPL-2.1-or-later
# Summarizes the lines of a build patched by patch_ordsum.py (the output
# of bench_cuda --profile, given as the one argument): per launch of the
# fused kernel its span and each phase's median / max for split and run
# chunks, the small walk's phases, split_chunk's steps (the general form
# and the block's fast split apart), walk_chunks' step
# kinds, with patch_ordsum.py --split-walk split_walk's passes by piece
# count, and with --cross-split cross_split's steps and the split blocks'
# FED publish.
# Cycles become us at the clock the stamps give (about 1.96 GHz).
import sys, statistics as st
F, W = [], []
for line in open(sys.argv[1]):
    p = line.split()
    if not p: continue
    if p[0] == 'TF': F.append([int(v) for v in p[1:]])
    elif p[0] == 'TW': W.append([int(v) for v in p[1:]])
def launches(rows, key):
    rows = sorted(rows, key=key); out = []; cur = []
    for r in rows:
        if cur and key(r) - key(cur[-1]) > 50000: out.append(cur); cur = []
        cur.append(r)
    if cur: out.append(cur)
    return out
fl = launches(F, lambda r: r[4]); wl = launches(W, lambda r: r[4])
print("fused launches", len(fl), "walk launches", len(wl))
names = ["ticket", "stage+sum", "publish", "wait", "scan", "plan", "run/split"]
for i, L in enumerate(fl):
    t0 = min(r[4] for r in L); t1 = max(r[5] for r in L)
    cyc = sum(sum(r[6:13]) for r in L); ns = sum(r[5] - r[4] for r in L)
    ghz = cyc / ns if ns else 0
    es = sorted(set(r[2] for r in L))
    # a chunk planned term by term (EQ_ORD_NONE, the launch's lowest e):
    # a split chunk, or a sum's prewalked first chunk (c == 0)
    none = lambda r: r[2] == es[0]
    last = max(L, key=lambda r: r[5])
    print("F%d: %d blocks, span %.2f us, clock %.2f GHz, start spread %.2f us, e values %s.., last block g=%d c=%d e=%d: %s" % (
        i, len(L), (t1 - t0) / 1e3, ghz, (max(r[4] for r in L) - t0) / 1e3, es[:3], last[0], last[1], last[2],
        " ".join("%s %.2f" % (n, v / ghz / 1e3) for n, v in zip(names, last[6:13]))))
    # where each kind of block ends, us from the launch's first start
    # (session 40: the split blocks end last)
    end = lambda R: sorted((r[5] - t0) / 1e3 for r in R)
    med_max = lambda E: (st.median(E), E[-1]) if E else (0, 0)
    firsts = [r for r in L if r[1] == 0]
    sp = end([r for r in L if none(r) and r[1] != 0])
    rn = end([r for r in L if not none(r)])
    print("   ends: first chunks %s; splits median %.2f max %.2f; runs median %.2f max %.2f" % (
        (" ".join("%.1f" % v for v in end(firsts)),) + med_max(sp) + med_max(rn)))
    for grp, sel in (("split", none), ("run", lambda r: not none(r))):
        S = [r for r in L if sel(r)]
        if not S: continue
        print("   %-5s n=%3d  " % (grp, len(S)) + "  ".join("%s %.2f/%.2f" % (n, st.median(r[6 + k] for r in S) / ghz / 1e3, max(r[6 + k] for r in S) / ghz / 1e3) for k, n in enumerate(names)) + "  (us median/max)")
    if i < len(wl):
        WL = wl[i]
        wn = ["flags", "records' flags", "segments+loads", "copies", "chain", "walk loop"]
        print("   walk: start %+.2f us, after its first flags (or pdl_wait) %+.2f, end %+.2f (from the fused launch's first start); per sum nch/nrec/iters: %s; phases us of the last: %s" % (
            (min(r[4] for r in WL) - t0) / 1e3, (max(r[5] for r in WL) - t0) / 1e3, (max(r[6] for r in WL) - t0) / 1e3,
            " ".join("%d/%d/%d" % (r[1], r[2], r[3]) for r in WL),
            "  ".join("%s %.2f" % (n, v / ghz / 1e3) for n, v in zip(wn, max(WL, key=lambda r: r[6])[7:13]))))
TS = [[int(v) for v in l.split()[1:]] for l in open(sys.argv[1]) if l.startswith("TS ")]
TC = [[int(v) for v in l.split()[1:]] for l in open(sys.argv[1]) if l.startswith("TC ")]
G = 1.96e3  # cycles per us
if TS:
    nm = ["base", "codes", "scan-last", "scan-heads", "slot", "pieces", "segscan+store"]
    # np < 0: the block's fast split (its pieces in "pieces", no segmented scan)
    for form, R in (("general", [r for r in TS if r[0] >= 0]), ("fast", [[-r[0]] + r[1:] for r in TS if r[0] < 0])):
        if not R: continue
        print("split_chunk (block, %s) n=%d, np median %d max %d; steps us median/max: " % (form, len(R), st.median(r[0] for r in R), max(r[0] for r in R)) +
              "  ".join("%s %.2f/%.2f" % (n, st.median(r[1 + k] for r in R) / G, max(r[1 + k] for r in R) / G) for k, n in enumerate(nm)))
if TC:
    def agg(i, j):
        n = sum(r[i] for r in TC); c = sum(r[j] for r in TC)
        return n / len(TC), (c / n / G if n else 0)
    print("walk_chunks n=%d calls: per call segs %.1f at %.3f us, runs %.1f at %.3f us, splits %.1f at %.3f us (pieces per split %.1f), crossing records %.1f at %.3f us; call total median %.2f us" % (
        (len(TC),) + agg(1, 2) + agg(3, 4) + agg(5, 6) + (sum(r[7] for r in TC) / max(1, sum(r[5] for r in TC)),) + agg(9, 10) + (st.median(r[8] for r in TC) / G,)))
SW = [[int(v) for v in l.split()[1:]] for l in open(sys.argv[1]) if l.startswith("SW ")]
if SW:
    for np_ in sorted(set(r[0] for r in SW)):
        R = [r for r in SW if r[0] == np_]
        print("split_walk np %d: %d calls, first pass %.0f cycles, checks %.0f cycles (mean), all passed in %d" % (
            np_, len(R), sum(r[1] for r in R) / len(R), sum(r[2] for r in R) / len(R), sum(r[3] for r in R)))
# patch_ordsum.py --cross-split: cross_split's steps and a split block's
# FED publish (cycles; their printf lengthens the split blocks)
TX = [[int(v) for v in l.split()[1:]] for l in open(sys.argv[1]) if l.startswith("TX ")]
TP = [[int(v) for v in l.split()[1:]] for l in open(sys.argv[1]) if l.startswith("TP ")]
if TP:
    print("split blocks n=%d: runs formed before the wait under this plan's binade %d, record formed %d; FED publish us median/max %.2f/%.2f" % (
        len(TP), sum(r[1] for r in TP), sum(r[2] for r in TP), st.median(r[3] for r in TP) / G, max(r[3] for r in TP) / G))
if TX:
    nm = ["scans", "parts", "pieces", "slot+store"]
    print("cross_split n=%d, np median %d; steps us median/max: " % (len(TX), st.median(r[1] for r in TX)) +
          "  ".join("%s %.2f/%.2f" % (n, st.median(r[2 + k] for r in TX) / G, max(r[2 + k] for r in TX) / G) for k, n in enumerate(nm)))
# patch_ordsum.py --fine: the split blocks' early crossing runs by warp and
# their phases after the plan (TG), the small walk's chain by step (TH)
TG = [[int(v) for v in l.split()[1:]] for l in open(sys.argv[1]) if l.startswith("TG ")]
TH = [[int(v) for v in l.split()[1:]] for l in open(sys.argv[1]) if l.startswith("TH ")]
if TG:
    emin = min(r[2] for r in TG)
    nm = ["early w0", "early w1", "early w2", "fed2 publish", "crossing block", "rest", "fed end",
          "cs scans", "cs parts", "cs pieces", "cs slot+store"]
    kinds = (("split c=1", lambda r: r[2] == emin and r[1] == 1),
             ("split c=2", lambda r: r[2] == emin and r[1] == 2),
             ("split c>2", lambda r: r[2] == emin and r[1] > 2),
             ("run", lambda r: r[2] != emin))
    for name, sel in kinds:
        R = [r for r in TG if sel(r)]
        if R:
            print("TG %-9s n=%4d  " % (name, len(R)) + "  ".join(
                "%s %.2f/%.2f" % (n, st.median(r[4 + k] for r in R) / G, max(r[4 + k] for r in R) / G)
                for k, n in enumerate(nm)) + "  (us median/max)")
if TH:
    nm = ["place", "prog", "chain", "after"]
    print("TH n=%d steps median %d max %d  " % (len(TH), st.median(r[1] for r in TH), max(r[1] for r in TH)) +
          "  ".join("%s %.2f/%.2f" % (n, st.median(r[2 + k] for r in TH) / G, max(r[2 + k] for r in TH) / G)
                    for k, n in enumerate(nm)) + "  (us median/max)")
