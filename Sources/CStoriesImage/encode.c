#include "CStoriesImage.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <png.h>

int stories_png_encode(const unsigned char *pixels, int width, int height, unsigned int format,
                       const unsigned char *colormap, int colormap_entries, int fast,
                       unsigned char **out, size_t *out_size) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = format;
    image.colormap_entries = (png_uint_32)colormap_entries;
    png_alloc_size_t size = 0;
    if (fast) {
        // zlib's fastest level, written once into a buffer of the largest size it can take
        // (a picture sent to a terminal: time matters more than a few bytes).
        image.flags = PNG_IMAGE_FLAG_FAST;
        size = PNG_IMAGE_PNG_SIZE_MAX(image);
        unsigned char *buffer = malloc(size);
        if (!buffer) return 3;
        if (png_image_write_to_memory(&image, buffer, &size, 0, pixels, 0, colormap)) {
            *out = buffer;
            *out_size = size;
            return 0;
        }
        free(buffer);
        image.opaque = NULL;
        image.warning_or_error = 0;
        size = 0;
    }
    if (!png_image_write_to_memory(&image, NULL, &size, 0, pixels, 0, colormap)) return 1;
    unsigned char *buffer = malloc(size);
    if (!buffer) return 3;
    if (!png_image_write_to_memory(&image, buffer, &size, 0, pixels, 0, colormap)) { free(buffer); return 1; }
    *out = buffer;
    *out_size = size;
    return 0;
}

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf escape;
} encode_error;

static void encode_error_exit(j_common_ptr cinfo) { longjmp(((encode_error *)cinfo->err)->escape, 1); }

int stories_jpeg_encode(const unsigned char *samples, int width, int height, int components,
                        int quality, int progressive, int orientation,
                        unsigned char **out, size_t *out_size) {
    struct jpeg_compress_struct cinfo;
    encode_error error;
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = encode_error_exit;
    if (setjmp(error.escape)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return 1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : (components == 4 ? JCS_CMYK : JCS_RGB);
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    if (orientation >= 1 && orientation <= 8) {
        // A minimal big-endian EXIF block: IFD0 with one entry, Orientation (SHORT, 1 value).
        unsigned char exif[] = {
            'E', 'x', 'i', 'f', 0, 0,
            'M', 'M', 0, 42, 0, 0, 0, 8,
            0, 1,
            0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, (unsigned char)orientation, 0, 0,
            0, 0, 0, 0
        };
        jpeg_write_marker(&cinfo, JPEG_APP0 + 1, exif, sizeof exif);
    }
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(samples + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_size = size;
    return 0;
}

void stories_buffer_free(unsigned char *buffer) { free(buffer); }

#include <webp/encode.h>

int stories_webp_encode_lossless(const unsigned char *pixels, int width, int height, int has_alpha,
                                 unsigned char **out, size_t *out_size) {
    *out = NULL;
    *out_size = has_alpha ? WebPEncodeLosslessRGBA(pixels, width, height, width * 4, out)
                          : WebPEncodeLosslessRGB(pixels, width, height, width * 3, out);
    return *out_size > 0 ? 0 : 1;
}

void stories_webp_free(void *buffer) { WebPFree(buffer); }
