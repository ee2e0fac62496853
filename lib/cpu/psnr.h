/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal: the stages of psnr. Per pixel eq_psnr_term (lib/exact/
 * psnr_terms.h); per plane an integer SSE; on the host eq_psnr_from_sse
 * (lib/finish.h), shared with the CUDA backend.
 */
#ifndef EQ_CPU_PSNR_H
#define EQ_CPU_PSNR_H

#include <stdint.h>

#include "frame.h"

/* terms[x] = eq_psnr_term(ref(x, y), dist(x, y)) for x < w. */
void eq_psnr_row_terms_c(const EqPlane *ref, const EqPlane *dist, int y, int w,
                         uint32_t *terms);
/* The integer SSE over the top-left w x h samples of a plane. */
uint64_t eq_psnr_plane_sse_c(const EqPlane *ref, const EqPlane *dist, int w, int h);

#endif /* EQ_CPU_PSNR_H */
