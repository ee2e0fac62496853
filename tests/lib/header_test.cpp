/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The public header compiles alone, first in its translation unit, as C11
 * and (header_test.cpp) as C++.
 */
#include "exactquality.h"

int main(void)
{
    EqSettings s;
    eq_settings_init(&s);
    return s.metrics == EQ_METRIC_ALL ? 0 : 1;
}
