#include "CStoriesImage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

int stories_png_decode(const unsigned char *data, size_t size, long long max_pixels,
                       unsigned int background_rgb, stories_image *out) {
    memset(out, 0, sizeof *out);
    out->orientation = 1;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        snprintf(out->message, sizeof out->message, "%s", image.message[0] ? image.message : "not a PNG file");
        png_image_free(&image);
        return STORIES_IMAGE_CORRUPT;
    }
    out->source_width = (int)image.width;
    out->source_height = (int)image.height;
    if ((long long)image.width * (long long)image.height > max_pixels) {
        snprintf(out->message, sizeof out->message, "%ux%u pixels", image.width, image.height);
        png_image_free(&image);
        return STORIES_IMAGE_TOO_LARGE;
    }
    image.format = PNG_FORMAT_RGB; // grey, palette, 16-bit and alpha all become 8-bit RGB
    size_t bytes = PNG_IMAGE_SIZE(image);
    unsigned char *pixels = malloc(bytes);
    if (!pixels) {
        png_image_free(&image);
        snprintf(out->message, sizeof out->message, "out of memory for %ux%u pixels", image.width, image.height);
        return STORIES_IMAGE_NO_MEMORY;
    }
    png_color background = {
        (png_byte)(background_rgb >> 16), (png_byte)(background_rgb >> 8), (png_byte)background_rgb
    };
    if (!png_image_finish_read(&image, &background, pixels, 0, NULL)) {
        snprintf(out->message, sizeof out->message, "%s", image.message[0] ? image.message : "corrupt PNG data");
        free(pixels);
        png_image_free(&image);
        return STORIES_IMAGE_CORRUPT;
    }
    out->pixels = pixels;
    out->width = (int)image.width;
    out->height = (int)image.height;
    png_image_free(&image);
    return STORIES_IMAGE_OK;
}
