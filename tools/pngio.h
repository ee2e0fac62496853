/*
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reads a PNG into a packed RGB EqFrame (8-bit, or 16-bit words in machine
 * order) with libpng, for the SSIMULACRA2 tests and benchmark. Palette and
 * grey images are expanded to RGB, alpha is dropped; no colour management
 * (the files are read as sRGB, as libjxl's tool reads untagged PNGs).
 */
#ifndef EQ_TOOLS_PNGIO_H
#define EQ_TOOLS_PNGIO_H

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exactquality.h"

/* Returns 0 and a frame whose data[0] the caller frees, or -1. */
static inline int eq_png_read(const char *path, EqFrame *f)
{
    FILE *fp = fopen(path, "rb");
    png_structp png = NULL;
    png_infop info = NULL;
    unsigned char *buf = NULL;
    png_bytep *rows = NULL;

    if (!fp)
        return -1;
    png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (!png)
        goto fail;
    info = png_create_info_struct(png);
    if (!info)
        goto fail;
    if (setjmp(png_jmpbuf(png)))
        goto fail;
    png_init_io(png, fp);
    png_read_info(png, info);
    int depth = png_get_bit_depth(png, info);
    int type = png_get_color_type(png, info);
    if (type == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (type == PNG_COLOR_TYPE_GRAY || type == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    if (depth < 8)
        png_set_expand(png);
    if (type & PNG_COLOR_MASK_ALPHA)
        png_set_strip_alpha(png);
    if (depth == 16)
        png_set_swap(png); /* little-endian words, as EqFrame wants */
    png_read_update_info(png, info);
    int w = (int)png_get_image_width(png, info), h = (int)png_get_image_height(png, info);
    size_t rowbytes = png_get_rowbytes(png, info);
    buf = malloc(rowbytes * h);
    rows = malloc(sizeof(*rows) * h);
    if (!buf || !rows)
        goto fail;
    for (int y = 0; y < h; y++)
        rows[y] = buf + rowbytes * y;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    fclose(fp);
    memset(f, 0, sizeof(*f));
    f->layout = EQ_LAYOUT_RGB;
    f->width = w;
    f->height = h;
    f->bitdepth = depth == 16 ? 16 : 8;
    f->data[0] = buf;
    f->stride[0] = (ptrdiff_t)rowbytes;
    return 0;
fail:
    if (png)
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
    free(buf);
    free(rows);
    fclose(fp);
    return -1;
}

#endif /* EQ_TOOLS_PNGIO_H */
