#include "CStoriesImage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>

// WebP through libwebp, in the JPEG decoder's design: the header is read first and a bomb
// refused before anything is allocated; the picture is decoded straight at the size the
// screen needs (libwebp scales while decoding, keeping the aspect), within max_pixels; alpha
// is composited over the background, as for PNG. Animated files are refused (one picture
// per item).
int stories_webp_decode(const unsigned char *data, size_t size, int min_width, int min_height,
                        long long max_pixels, long long max_source_pixels, unsigned int background_rgb,
                        stories_image *out) {
    memset(out, 0, sizeof *out);
    out->orientation = 1;
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        snprintf(out->message, sizeof out->message, "libwebp does not match its headers");
        return STORIES_IMAGE_CORRUPT;
    }
    if (WebPGetFeatures(data, size, &config.input) != VP8_STATUS_OK) {
        snprintf(out->message, sizeof out->message, "not a WebP file, or its header is damaged");
        return STORIES_IMAGE_CORRUPT;
    }
    int source_w = config.input.width, source_h = config.input.height;
    out->source_width = source_w;
    out->source_height = source_h;
    if (source_w <= 0 || source_h <= 0 || (long long)source_w * (long long)source_h > max_source_pixels) {
        snprintf(out->message, sizeof out->message, "%dx%d pixels", source_w, source_h);
        return STORIES_IMAGE_TOO_LARGE;
    }
    if (config.input.has_animation) {
        snprintf(out->message, sizeof out->message, "an animated WebP (only still pictures are shown)");
        return STORIES_IMAGE_CORRUPT;
    }

    // The smallest size that still covers min_width×min_height, in the file's aspect; never
    // larger than the file, and within max_pixels.
    long long w = source_w, h = source_h;
    if (min_width > 0 && min_height > 0) {
        double scale_w = (double)min_width / source_w, scale_h = (double)min_height / source_h;
        double scale = scale_w > scale_h ? scale_w : scale_h;
        if (scale < 1) {
            w = (long long)(source_w * scale + 0.999);
            h = (long long)(source_h * scale + 0.999);
        }
    }
    while (w * h > max_pixels && w > 1 && h > 1) { w = (w + 1) / 2; h = (h + 1) / 2; }
    if (w * h > max_pixels) {
        snprintf(out->message, sizeof out->message, "%dx%d pixels", source_w, source_h);
        return STORIES_IMAGE_TOO_LARGE;
    }
    if (w != source_w || h != source_h) {
        config.options.use_scaling = 1;
        config.options.scaled_width = (int)w;
        config.options.scaled_height = (int)h;
    }

    size_t stride = (size_t)w * 4;
    unsigned char *rgba = malloc(stride * (size_t)h);
    unsigned char *pixels = malloc((size_t)w * (size_t)h * 3);
    if (!rgba || !pixels) {
        free(rgba);
        free(pixels);
        snprintf(out->message, sizeof out->message, "out of memory for %lldx%lld pixels", w, h);
        return STORIES_IMAGE_NO_MEMORY;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = rgba;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = stride * (size_t)h;
    VP8StatusCode status = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK) {
        free(rgba);
        free(pixels);
        snprintf(out->message, sizeof out->message, "%s",
                 status == VP8_STATUS_NOT_ENOUGH_DATA ? "the file is cut short" : "corrupt WebP data");
        return STORIES_IMAGE_CORRUPT;
    }
    unsigned br = (background_rgb >> 16) & 0xFF, bg = (background_rgb >> 8) & 0xFF, bb = background_rgb & 0xFF;
    size_t count = (size_t)w * (size_t)h;
    for (size_t i = 0; i < count; i++) {
        unsigned a = rgba[i * 4 + 3];
        pixels[i * 3] = (unsigned char)((rgba[i * 4] * a + br * (255 - a) + 127) / 255);
        pixels[i * 3 + 1] = (unsigned char)((rgba[i * 4 + 1] * a + bg * (255 - a) + 127) / 255);
        pixels[i * 3 + 2] = (unsigned char)((rgba[i * 4 + 2] * a + bb * (255 - a) + 127) / 255);
    }
    free(rgba);
    out->pixels = pixels;
    out->width = (int)w;
    out->height = (int)h;
    return STORIES_IMAGE_OK;
}
