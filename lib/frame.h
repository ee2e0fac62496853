/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal: geometry of a frame's planes, and a strided view of one
 * component that hides planar / semi-planar / packed and MSB alignment.
 */
#ifndef EQ_FRAME_H
#define EQ_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "exactquality.h"

/* One component (Y, Cb, Cr or R, G, B) as a strided 2-D array of samples. */
typedef struct EqPlane {
    const uint8_t *data; /* first sample of row 0 */
    ptrdiff_t stride;    /* bytes between rows */
    ptrdiff_t step;      /* bytes between consecutive samples of a row */
    int width;
    int height;
    int bytes;           /* 1 or 2 bytes per sample */
    int shift;           /* right shift applied to each 16-bit word */
} EqPlane;

/* 1 for GRAY, 3 otherwise. */
int eq_frame_components(const EqFrame *f);
/* 1 for the packed RGB layouts. */
int eq_frame_is_rgb(const EqFrame *f);
/* Chroma subsampling shifts of the layout (0 or 1). */
void eq_layout_subsampling(EqLayout layout, int *ss_x, int *ss_y);
/* View of component `comp` (0..2); 0 on success, negative code otherwise. */
int eq_frame_plane(const EqFrame *f, int comp, EqPlane *out);
/* 0 when ref and dist have the same layout, size and bit depth. */
int eq_frames_match(const EqFrame *a, const EqFrame *b);

static inline unsigned eq_plane_sample(const EqPlane *p, int x, int y)
{
    const uint8_t *s = p->data + (ptrdiff_t)y * p->stride + (ptrdiff_t)x * p->step;
    if (p->bytes == 1)
        return s[0];
    return (unsigned)(uint16_t)(s[0] | (s[1] << 8)) >> p->shift;
}

#endif /* EQ_FRAME_H */
