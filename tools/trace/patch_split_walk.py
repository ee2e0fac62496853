# SPDX-License-Identifier: LGPL-2.1-or-later
# Adds clock64 stamps to split_walk in a copy of lib/cuda/ordsum.cu (given
# as the one argument, after patch_ordsum.py): one printf line a call from
# lane 0, "SW np first-pass-cycles checks-cycles all-passed". For
# measuring only (docs/performance.md, session 18, item 3). Its printf
# lengthens walk_chunks' split steps, so run.sh applies it only with
# SPLIT_WALK=1, and the TC figures of such a run are not the walk's.
import sys
p = sys.argv[1]
s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
rep('''    double y = *x, mine_y = y;''', '''    long long sw0 = clock64();
    double y = *x, mine_y = y;''')
rep('''    double next;
    const int good''', '''    long long sw1 = clock64();
    double next;
    const int good''')
rep('''    if (__all_sync(0xffffffffu, good)) {
        *x = y;
        return -1;
    }''', '''    const int allg = __all_sync(0xffffffffu, good);
    long long sw2 = clock64();
    if (lane == 0)
        printf("SW %d %lld %lld %d\\n", np, sw1 - sw0, sw2 - sw1, allg);
    if (allg) {
        *x = y;
        return -1;
    }''')
open(p, 'w').write(s)
