#include "CStoriesImage.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

// PNG through libpng. A picture larger than the screen needs is decoded a row at a time and
// box-averaged as it comes (issue 48, point 5): only one source row and one row of sums are
// held, never the whole inflated picture (a 16 MP PNG was 48 MB of RGB before it was
// scaled). A picture needed at full size, an interlaced one (Adam7 gives its rows in seven
// passes, so they cannot be summed as they come), and one whose colours the simplified API
// would convert (16 bits a channel, alpha, a gamma other than sRGB's) go through libpng's
// simplified API, so a picture's colours are the same at every size.

// The bytes being read, and where libpng's error stopped the read.
typedef struct {
    const unsigned char *data;
    size_t size;
    size_t at;
    jmp_buf jump;
    char message[160];
} png_source;

static void read_bytes(png_structp png, png_bytep into, size_t count) {
    png_source *source = png_get_io_ptr(png);
    if (count > source->size - source->at) png_error(png, "the file is cut short");
    memcpy(into, source->data + source->at, count);
    source->at += count;
}

static void on_error(png_structp png, png_const_charp message) {
    png_source *source = png_get_error_ptr(png);
    snprintf(source->message, sizeof source->message, "%s", message ? message : "corrupt PNG data");
    longjmp(source->jump, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message; // a benign problem (a bad ancillary chunk): the picture still decodes
}

// The whole picture through the simplified API, at its own size.
static int decode_whole(const unsigned char *data, size_t size, long long max_pixels,
                        unsigned int background_rgb, stories_image *out) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) {
        snprintf(out->message, sizeof out->message, "%s", image.message[0] ? image.message : "not a PNG file");
        png_image_free(&image);
        return STORIES_IMAGE_CORRUPT;
    }
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

// What the row-by-row decode holds; freed on every way out, a longjmp included.
typedef struct {
    png_structp png;
    png_infop info;
    unsigned char *row;
    unsigned long long *sums;
    unsigned char *pixels;
} png_rows;

static void release(png_rows *rows) {
    if (rows->png) png_destroy_read_struct(&rows->png, rows->info ? &rows->info : NULL, NULL);
    free(rows->row);
    free(rows->sums);
    free(rows->pixels);
    memset(rows, 0, sizeof *rows);
}

int stories_png_decode(const unsigned char *data, size_t size, int min_width, int min_height,
                       long long max_pixels, long long max_source_pixels,
                       unsigned int background_rgb, stories_image *out) {
    memset(out, 0, sizeof *out);
    out->orientation = 1;
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        snprintf(out->message, sizeof out->message, "not a PNG file");
        return STORIES_IMAGE_CORRUPT;
    }
    // On the heap, what libpng's longjmp must find as it was left (a local changed after
    // setjmp is not to be trusted after the jump).
    struct { png_source source; png_rows rows; } *state = calloc(1, sizeof *state);
    if (!state) {
        snprintf(out->message, sizeof out->message, "out of memory for libpng");
        return STORIES_IMAGE_NO_MEMORY;
    }
    state->source.data = data;
    state->source.size = size;
#define source (state->source)
#define rows (state->rows)
    rows.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, on_error, on_warning);
    if (!rows.png || !(rows.info = png_create_info_struct(rows.png))) {
        release(&rows);
        free(state);
        snprintf(out->message, sizeof out->message, "out of memory for libpng");
        return STORIES_IMAGE_NO_MEMORY;
    }
    if (setjmp(source.jump)) {
        release(&rows);
        out->pixels = NULL;
        snprintf(out->message, sizeof out->message, "%s", source.message[0] ? source.message : "corrupt PNG data");
        free(state);
        return STORIES_IMAGE_CORRUPT;
    }
    png_set_read_fn(rows.png, &source, read_bytes);
    // No limit of libpng's own stands in for ours (the header is checked below).
    png_set_user_limits(rows.png, 0x7fffffff, 0x7fffffff);
    png_read_info(rows.png, rows.info);
    png_uint_32 width = png_get_image_width(rows.png, rows.info), height = png_get_image_height(rows.png, rows.info);
    out->source_width = (int)width;
    out->source_height = (int)height;
    // libpng's own limit of a million pixels a side is lifted above (so that the area is
    // ours to judge), and kept here: a strip 125 million wide, within the area, would
    // otherwise need rows of gigabytes.
    if (width == 0 || height == 0 || width > 1000000 || height > 1000000
        || (long long)width * (long long)height > max_source_pixels) {
        release(&rows);
        free(state);
        snprintf(out->message, sizeof out->message, "%ux%u pixels", width, height);
        return STORIES_IMAGE_TOO_LARGE;
    }
    // The box: the largest whole factor that still covers min_width×min_height, larger
    // still while the result would be more than max_pixels.
    long long factor = 1;
    if (min_width > 0 && min_height > 0) {
        while ((long long)width / (factor + 1) >= min_width && (long long)height / (factor + 1) >= min_height) factor++;
    }
    while ((((long long)width + factor - 1) / factor) * (((long long)height + factor - 1) / factor) > max_pixels
           && (factor < (long long)width || factor < (long long)height)) factor++;
    // Rows are read and averaged here only where libpng's simplified reader (the whole
    // decode) would do no more than expand them: 8 bits or fewer a channel, no alpha (it
    // composites over the background in linear light), and no gamma but sRGB's (it
    // converts 16-bit and other gammas to sRGB), so a picture has the same colours at
    // every size. An interlaced one comes whole too.
    int interlaced = png_get_interlace_type(rows.png, rows.info) != PNG_INTERLACE_NONE;
    int deep = png_get_bit_depth(rows.png, rows.info) > 8
               || (png_get_color_type(rows.png, rows.info) & PNG_COLOR_MASK_ALPHA)
               || png_get_valid(rows.png, rows.info, PNG_INFO_tRNS);
    png_fixed_point gamma = 0;
    int own_gamma = png_get_gAMA_fixed(rows.png, rows.info, &gamma) && !png_get_valid(rows.png, rows.info, PNG_INFO_sRGB)
                    && (gamma < 44000 || gamma > 46000);
    if (factor == 1 || interlaced || deep || own_gamma) {
        release(&rows);
        free(state);
        int status = decode_whole(data, size, max_pixels, background_rgb, out);
        out->source_width = (int)width;
        out->source_height = (int)height;
        return status;
    }

    // Every colour type left to 8-bit RGB: palettes and low bit depths expanded, grey to
    // RGB. zlib's
    // Adler-32 of the inflated data is not checked (a third of inflate's time): the chunk's
    // CRC still guards what was read.
    png_set_option(rows.png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    png_set_expand(rows.png);
    png_set_gray_to_rgb(rows.png);
    png_read_update_info(rows.png, rows.info);
    size_t channels = png_get_channels(rows.png, rows.info);
    if (channels != 3 || png_get_rowbytes(rows.png, rows.info) != (size_t)width * channels) {
        png_error(rows.png, "an unexpected row layout");
    }

    size_t out_w = (width + factor - 1) / factor, out_h = (height + factor - 1) / factor;
    if ((long long)out_w * (long long)out_h > max_pixels) {
        release(&rows);
        free(state);
        snprintf(out->message, sizeof out->message, "%ux%u pixels", width, height);
        return STORIES_IMAGE_TOO_LARGE;
    }
    rows.row = malloc((size_t)width * channels);
    rows.sums = calloc(out_w * 3, sizeof *rows.sums);
    rows.pixels = malloc(out_w * out_h * 3);
    if (!rows.row || !rows.sums || !rows.pixels) {
        release(&rows);
        free(state);
        snprintf(out->message, sizeof out->message, "out of memory for %zux%zu pixels", out_w, out_h);
        return STORIES_IMAGE_NO_MEMORY;
    }
    size_t step = (size_t)factor;
    size_t band = 0; // rows summed into this output row so far
    size_t out_y = 0;
    for (png_uint_32 y = 0; y < height; y++) {
        png_read_row(rows.png, rows.row, NULL);
        const unsigned char *p = rows.row;
        unsigned long long *sum = rows.sums;
        // Box by box along the row: its columns summed.
        for (size_t x0 = 0; x0 < width; x0 += step, sum += 3) {
            size_t x1 = x0 + step < width ? x0 + step : width;
            unsigned long long r = 0, g = 0, b = 0;
            for (size_t x = x0; x < x1; x++, p += 3) { r += p[0]; g += p[1]; b += p[2]; }
            sum[0] += r;
            sum[1] += g;
            sum[2] += b;
        }
        band++;
        if (band == step || y + 1 == height) {
            unsigned char *line = rows.pixels + out_y * out_w * 3;
            for (size_t x = 0; x < out_w; x++) {
                size_t columns = (x + 1) * step <= width ? step : width - x * step;
                size_t count = columns * band;
                for (int c = 0; c < 3; c++) line[x * 3 + c] = (unsigned char)((rows.sums[x * 3 + c] + count / 2) / count);
            }
            memset(rows.sums, 0, out_w * 3 * sizeof *rows.sums);
            band = 0;
            out_y++;
        }
    }
    // The rest of the file (its end chunk) is not needed for the pixels.
    out->pixels = rows.pixels;
    out->width = (int)out_w;
    out->height = (int)out_h;
    rows.pixels = NULL;
    release(&rows);
    free(state);
    return STORIES_IMAGE_OK;
#undef source
#undef rows
}
