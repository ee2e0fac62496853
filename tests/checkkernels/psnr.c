/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * PSNR stage: the device's sum of squared differences per component
 * against the C reference stage eq_psnr_plane_sse_c.
 */
#include "../common/framegen.h"
#include "ck.h"
#include "cpu/psnr.h"
#include "frame.h"

/* The C reference stage (lib/cpu/psnr.c) on the CPU's plane size. */
static uint64_t sse_c(const EqFrame *ref, const EqFrame *dist, int comp)
{
    EqPlane a, b;
    int ss_x, ss_y;
    eq_frame_plane(ref, comp, &a);
    eq_frame_plane(dist, comp, &b);
    eq_layout_subsampling(ref->layout, &ss_x, &ss_y);
    int w = comp ? ref->width >> ss_x : ref->width;
    int h = comp ? ref->height >> ss_y : ref->height;
    return eq_psnr_plane_sse_c(&a, &b, w, h);
}

void ck_psnr(CkContext *ck)
{
    static const FgFormat formats[] = {
        {"gray8", EQ_LAYOUT_GRAY, 8, 0},
        {"yuv420p", EQ_LAYOUT_YUV420P, 8, 0},
        {"yuv422p10", EQ_LAYOUT_YUV422P, 10, 0},
        {"yuv444p12", EQ_LAYOUT_YUV444P, 12, 0},
        {"yuv420p16", EQ_LAYOUT_YUV420P, 16, 0},
        {"nv12", EQ_LAYOUT_NV12, 8, 0},
        {"p010", EQ_LAYOUT_NV12, 10, 1},
        {"p016", EQ_LAYOUT_NV12, 16, 1},
        {"yuv420p10msb", EQ_LAYOUT_YUV420P, 10, 1},
    };
    static const int sizes[][2] = {{1, 1},     {7, 5},       {176, 176},
                                   {577, 323}, {1921, 1081}, {3840, 2160}};
    int nsizes = ck->full ? 6 : ck->quick ? 3 : 4;
    uint64_t rng = ck->seed ^ 0x50534e52ull;

    for (size_t fi = 0; fi < sizeof(formats) / sizeof(formats[0]); fi++)
        for (int si = 0; si < nsizes; si++) {
            FgFrame r, d;
            int w = sizes[si][0], h = sizes[si][1];
            int pad = (int)(fg_splitmix(&rng) % 3) * 7;
            if (fg_alloc(&r, &formats[fi], w, h, pad) < 0 ||
                fg_alloc(&d, &formats[fi], w, h, pad + 3) < 0) {
                ck_error(ck, "allocation", EQ_ERR_NO_MEMORY);
                return;
            }
            int kind = (int)(fg_splitmix(&rng) % 2);
            fg_fill(&r, fg_splitmix(&rng), kind);
            if (kind == 0)
                fg_fill(&d, fg_splitmix(&rng), 0);
            else
                fg_distort(&d, &r, fg_splitmix(&rng), 1u << (formats[fi].bitdepth - 4));
            for (int c = 0; c < (formats[fi].layout == EQ_LAYOUT_GRAY ? 1 : 3); c++) {
                uint64_t want = sse_c(&r.f, &d.f, c), got[2] = {0, 0};
                char what[96];
                snprintf(what, sizeof(what), "%s %dx%d comp %d sse", formats[fi].name, w, h, c);
                for (int run = 0; run < 2; run++) {
                    int err = eq_cuda_stage_psnr_sse(ck->cuda, &r.f, &d.f, c, &got[run]);
                    if (err < 0)
                        ck_error(ck, what, err);
                }
                ck_same(ck, what, &got[0], &want, sizeof(want));
                ck_same(ck, what, &got[1], &want, sizeof(want));
            }
            fg_free(&r);
            fg_free(&d);
        }
}
