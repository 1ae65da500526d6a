#ifndef STORIES_IMAGE_H
#define STORIES_IMAGE_H

#include <stddef.h>

/// What a decode produced: 8-bit RGB pixels (malloc'd, free with stories_image_free), the
/// decoded size (after DCT scaling), the size the file declares, and for JPEG the EXIF
/// orientation (1–8; 1 = as stored). On failure `pixels` is NULL and `message` says why.
typedef struct {
    unsigned char *pixels;
    int width;
    int height;
    int source_width;
    int source_height;
    int orientation;
    char message[200];
    /// Set when the picture decoded only in part (a JPEG whose data ends early or is
    /// corrupt in places): what is wrong, in words; the pixels hold what decoded (libjpeg
    /// fills the rest grey).
    char damage[200];
} stories_image;

enum {
    STORIES_IMAGE_OK = 0,
    STORIES_IMAGE_CORRUPT = 1,    /* not decodable: message says why */
    STORIES_IMAGE_TOO_LARGE = 2,  /* the header declares more than the pixels allowed */
    STORIES_IMAGE_NO_MEMORY = 3
};

/// libjpeg's own working memory, at most (a progressive file holds all its coefficients).
#define STORIES_JPEG_WORK_MEMORY (512L << 20)
// The most scans a JPEG may have (a progressive one has about ten).
#define STORIES_JPEG_MAX_SCANS 100

/// Decodes a JPEG. Reads the header first and refuses one that declares more than
/// `max_source_pixels` before anything is allocated. Picks the smallest DCT scale (1/8,
/// 1/4, 1/2, 1) whose output is still at least `min_width`×`min_height` (0 = full size),
/// smaller still if the output would be more than `max_pixels`. Grey, YCbCr, CMYK/YCCK and
/// progressive files are accepted. Never exits, never prints.
int stories_jpeg_decode(const unsigned char *data, size_t size, int min_width, int min_height,
                        long long max_pixels, long long max_source_pixels, stories_image *out);

/// Decodes a PNG (any colour type, palette, 16-bit, alpha) to RGB, compositing alpha over
/// the background colour `background_rgb` (0xRRGGBB). Same header check as JPEG; a picture
/// larger than `min_width`×`min_height` (0 = full size) is box-averaged by the largest whole
/// factor that still covers it as its rows are read (an interlaced one is decoded whole).
int stories_png_decode(const unsigned char *data, size_t size, int min_width, int min_height,
                       long long max_pixels, long long max_source_pixels,
                       unsigned int background_rgb, stories_image *out);

/// Decodes a still WebP (lossy or lossless, with or without alpha) to RGB: the header's
/// `max_source_pixels` checked first, then decoded straight at the smallest size covering
/// `min_width`×`min_height` (0 = full size) within `max_pixels`, alpha composited over
/// `background_rgb`. An animated WebP is refused.
int stories_webp_decode(const unsigned char *data, size_t size, int min_width, int min_height,
                        long long max_pixels, long long max_source_pixels, unsigned int background_rgb,
                        stories_image *out);

/// Encodes RGB (3 bytes a pixel) or RGBA (4) as lossless WebP (tests make their files with
/// it). Returns 0 and a malloc'd buffer, freed with stories_webp_free.
int stories_webp_encode_lossless(const unsigned char *pixels, int width, int height, int has_alpha,
                                 unsigned char **out, size_t *out_size);
void stories_webp_free(void *buffer);

void stories_image_free(stories_image *image);

#endif

#ifndef STORIES_IMAGE_ENCODE_H
#define STORIES_IMAGE_ENCODE_H
/// Encoders, for tests and benchmarks that need exact files: a PNG in any simplified-API
/// format (`format` is a PNG_FORMAT_* value; `colormap` is used for PNG_FORMAT_FLAG_COLORMAP),
/// and a JPEG from RGB, grey or CMYK samples, optionally progressive, optionally with an EXIF
/// orientation (1–8, 0 = none). Output is malloc'd; free with stories_buffer_free.
/// `fast`: zlib's fastest level, one pass (pictures for a terminal).
int stories_png_encode(const unsigned char *pixels, int width, int height, unsigned int format,
                       const unsigned char *colormap, int colormap_entries, int fast,
                       unsigned char **out, size_t *out_size);
int stories_jpeg_encode(const unsigned char *samples, int width, int height, int components,
                        int quality, int progressive, int orientation,
                        unsigned char **out, size_t *out_size);
void stories_buffer_free(unsigned char *buffer);

/// One band (six rows from row 6 × `band`) of a sixel picture whose pixels are palette
/// indices: each colour's "#n" and run-length coded sixels, joined by '$' (no '-').
/// `out` holds at least stories_sixel_band_bound(width) bytes, `scratch` (4-byte aligned)
/// stories_sixel_scratch_bound(width). Returns the bytes written (0 for a band
/// outside the picture or arguments out of range).
size_t stories_sixel_band_bound(int width);
size_t stories_sixel_scratch_bound(int width);
size_t stories_sixel_band(const unsigned char *indices, int width, int height, int band,
                          unsigned char *out, unsigned char *scratch);
/// Each of `count` RGB pixels' palette index, from `lookup` (the 15-bit colour bins'
/// indices; one `colours` or above is a bin not met yet, given its nearest palette colour
/// here and kept). `palette` is `colours` RGB triples (1…255).
void stories_sixel_map(const unsigned char *pixels, size_t count, unsigned char *lookup,
                       const unsigned char *palette, int colours, unsigned char *indices);
/// The mean difference (the three channels' added) between every `step`-th pixel and its
/// palette colour, bins found as stories_sixel_map finds them.
double stories_sixel_error(const unsigned char *pixels, size_t count, size_t step, unsigned char *lookup,
                           const unsigned char *palette, int colours);
/// Every bin of `lookup` not met yet given its nearest palette colour (a palette about to
/// be used for many pictures: 32 768 bins once, not a few thousand each picture).
void stories_sixel_fill_lookup(unsigned char *lookup, const unsigned char *palette, int colours);
#endif
