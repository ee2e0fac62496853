/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * psnr_y, psnr_cb, psnr_cr, the CPU reference (libvmaf 3.2.0 feature "psnr",
 * libvmaf/src/feature/integer_psnr.c, default options: chroma on, peak
 * 2^bpc - 1, psnr_max 6 * bpc + 12).
 *
 * Plane sizes are libvmaf's: a chroma plane is (w >> ss_x) x (h >> ss_y)
 * (libvmaf/src/picture.c), so with an odd width or height the last chroma
 * column or row of a 4:2:0 / 4:2:2 frame is not scored, as in libvmaf.
 * GRAY frames score psnr_y only (libvmaf disables chroma for YUV400).
 */
#include <stdint.h>
#include <stdlib.h>

#include "cpu/cpu.h"
#include "cpu/psnr.h"
#include "exact/psnr_terms.h"
#include "finish.h"

void eq_psnr_row_terms_c(const EqPlane *ref, const EqPlane *dist, int y, int w,
                         uint32_t *terms)
{
    const uint8_t *r = ref->data + (ptrdiff_t)y * ref->stride;
    const uint8_t *d = dist->data + (ptrdiff_t)y * dist->stride;

    if (ref->bytes == 1 && ref->step == 1 && dist->step == 1) {
        for (int x = 0; x < w; x++)
            terms[x] = eq_psnr_term8(r[x], d[x]);
    } else {
        for (int x = 0; x < w; x++)
            terms[x] = eq_psnr_term(eq_plane_sample(ref, x, y), eq_plane_sample(dist, x, y));
    }
}

/* The plane's SSE: an exact integer (see lib/exact/psnr_terms.h), added here
 * row by row like libvmaf (a uint32_t per 8-bit row, a uint64_t otherwise);
 * any order gives the same value. */
uint64_t eq_psnr_plane_sse_c(const EqPlane *ref, const EqPlane *dist, int w, int h)
{
    uint64_t sse = 0;

    for (int y = 0; y < h; y++) {
        const uint8_t *r = ref->data + (ptrdiff_t)y * ref->stride;
        const uint8_t *d = dist->data + (ptrdiff_t)y * dist->stride;
        if (ref->bytes == 1 && ref->step == 1 && dist->step == 1) {
            uint32_t row = 0;
            for (int x = 0; x < w; x++)
                row += eq_psnr_term8(r[x], d[x]);
            sse += row;
        } else if (ref->bytes == 2 && ref->step == 2 && dist->step == 2) {
            const int sr = ref->shift, sd = dist->shift;
            uint64_t row = 0;
            for (int x = 0; x < w; x++) {
                uint32_t a = (uint32_t)(r[2 * x] | (r[2 * x + 1] << 8)) >> sr;
                uint32_t b = (uint32_t)(d[2 * x] | (d[2 * x + 1] << 8)) >> sd;
                row += eq_psnr_term(a, b);
            }
            sse += row;
        } else {
            for (int x = 0; x < w; x++)
                sse += eq_psnr_term(eq_plane_sample(ref, x, y), eq_plane_sample(dist, x, y));
        }
    }
    return sse;
}

int eq_cpu_psnr(EqCpu *cpu, const EqFrame *ref, const EqFrame *dist, EqScores *out)
{
    double *dst[3] = { &out->psnr_y, &out->psnr_cb, &out->psnr_cr };
    const int ncomp = eq_frame_components(ref);
    int ss_x, ss_y;

    eq_layout_subsampling(ref->layout, &ss_x, &ss_y);
    for (int c = 0; c < ncomp; c++) {
        EqPlane pr, pd;
        if (eq_frame_plane(ref, c, &pr) < 0 || eq_frame_plane(dist, c, &pd) < 0) {
            eq_log(&cpu->log, EQ_LOG_ERROR, "psnr: cannot view component %d", c);
            return EQ_ERR_INTERNAL;
        }
        const int w = c ? ref->width >> ss_x : ref->width;
        const int h = c ? ref->height >> ss_y : ref->height;
        uint64_t sse = eq_psnr_plane_sse_c(&pr, &pd, w, h);
        *dst[c] = eq_psnr_from_sse(sse, (uint64_t)w * (uint64_t)h, ref->bitdepth);
    }
    return 0;
}
