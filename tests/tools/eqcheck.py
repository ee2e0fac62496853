# SPDX-License-Identifier: LGPL-2.1-or-later
"""The tools tests' count of checks: check() records one, done() prints
"N passed, N failed" and exits 1 when a check failed."""
import sys

passed = failed = 0


def check(cond, what, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}" + (f"\n  {detail}" if detail else ""), file=sys.stderr)


def done():
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
