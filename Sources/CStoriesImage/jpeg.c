#include "CStoriesImage.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

// libjpeg's default error_exit calls exit(): this manager jumps back instead and keeps the
// message, and output_message stays silent (the default prints to stderr).
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf escape;
    char *message;
    // The first warning that means damage (not the harmless "extraneous bytes"), and the
    // output row the decode had reached then.
    char warning[JMSG_LENGTH_MAX];
    int warning_code;
    unsigned warning_row;
} stories_jpeg_error;

// Warnings (msg_level < 0) go on silently, as libjpeg's do, but the first one that means the
// picture is damaged is kept: the picture is shown as decoded, with a notice.
static void on_emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level >= 0) return;
    stories_jpeg_error *error = (stories_jpeg_error *)cinfo->err;
    cinfo->err->num_warnings++;
    // Only warnings that mean missing or broken picture data (header oddities that change
    // nothing seen are let pass, as libjpeg does).
    int code = cinfo->err->msg_code;
    if (error->warning[0] || !(code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER || code == JWRN_MUST_RESYNC
                               || code == JWRN_HUFF_BAD_CODE || code == JWRN_BOGUS_PROGRESSION)) return;
    (*cinfo->err->format_message)(cinfo, error->warning);
    error->warning_code = cinfo->err->msg_code;
    error->warning_row = cinfo->is_decompressor ? ((j_decompress_ptr)cinfo)->output_scanline : 0;
}

static void on_error_exit(j_common_ptr cinfo) {
    stories_jpeg_error *error = (stories_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    longjmp(error->escape, 1);
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

// A progressive JPEG has about ten scans; one made of thousands (each a warning libjpeg
// lets pass) keeps a decoder busy for minutes. Past the limit the file is refused.
static void on_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
    if (decompress->input_scan_number > STORIES_JPEG_MAX_SCANS) {
        stories_jpeg_error *error = (stories_jpeg_error *)cinfo->err;
        snprintf(error->message, JMSG_LENGTH_MAX, "more than %d scans (a progressive JPEG has about ten): refused",
                 STORIES_JPEG_MAX_SCANS);
        longjmp(error->escape, 1);
    }
}

static unsigned read16(const unsigned char *p, int little) {
    return little ? (unsigned)(p[0] | p[1] << 8) : (unsigned)(p[0] << 8 | p[1]);
}

static unsigned read32(const unsigned char *p, int little) {
    return little ? (unsigned)(p[0] | p[1] << 8 | p[2] << 16 | (unsigned)p[3] << 24)
                  : (unsigned)((unsigned)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]);
}

// The Orientation tag (0x0112) of IFD0 in an APP1 "Exif" segment; 1 when absent or odd.
static int exif_orientation(j_decompress_ptr cinfo) {
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1 || marker->data_length < 14) continue;
        const unsigned char *d = marker->data;
        if (memcmp(d, "Exif\0\0", 6) != 0) continue;
        const unsigned char *tiff = d + 6;
        size_t length = marker->data_length - 6;
        int little;
        if (tiff[0] == 'I' && tiff[1] == 'I') little = 1;
        else if (tiff[0] == 'M' && tiff[1] == 'M') little = 0;
        else continue;
        unsigned offset = read32(tiff + 4, little);
        if (offset > length - 2 || offset < 8) continue;
        unsigned count = read16(tiff + offset, little);
        for (unsigned i = 0; i < count; i++) {
            size_t entry = (size_t)offset + 2 + (size_t)i * 12;
            if (entry + 12 > length) break;
            if (read16(tiff + entry, little) == 0x0112) {
                unsigned value = read16(tiff + entry + 8, little);
                return (value >= 1 && value <= 8) ? (int)value : 1;
            }
        }
    }
    return 1;
}

int stories_jpeg_decode(const unsigned char *data, size_t size, int min_width, int min_height,
                        long long max_pixels, long long max_source_pixels, stories_image *out) {
    memset(out, 0, sizeof *out);
    out->orientation = 1;
    if (size < 4 || size > (size_t)0x7fffffff) {
        snprintf(out->message, sizeof out->message, "not a JPEG file");
        return STORIES_IMAGE_CORRUPT;
    }

    struct jpeg_decompress_struct cinfo;
    stories_jpeg_error error;
    char message[JMSG_LENGTH_MAX] = {0};
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = on_error_exit;
    error.base.output_message = on_output_message;
    error.base.emit_message = on_emit_message;
    error.message = message;
    error.warning[0] = 0;
    error.warning_code = 0;
    error.warning_row = 0;
    // volatile: read after longjmp
    unsigned char *volatile pixels = NULL;
    unsigned char *volatile row = NULL;

    if (setjmp(error.escape)) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        free(row);
        snprintf(out->message, sizeof out->message, "%s", message[0] ? message : "corrupt JPEG data");
        return STORIES_IMAGE_CORRUPT;
    }

    jpeg_create_decompress(&cinfo);
    struct jpeg_progress_mgr progress;
    memset(&progress, 0, sizeof progress);
    progress.progress_monitor = on_progress;
    cinfo.progress = &progress;
    // libjpeg's own working memory (a progressive file keeps every coefficient of the whole
    // picture, 2 bytes each) is bounded too; past it the file is refused, not swapped.
    cinfo.mem->max_memory_to_use = STORIES_JPEG_WORK_MEMORY;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_read_header(&cinfo, TRUE);
    // Where the first scan's data starts: a file that ends there has no picture at all.
    size_t scan_start = (size_t)(cinfo.src->next_input_byte - data);

    out->source_width = (int)cinfo.image_width;
    out->source_height = (int)cinfo.image_height;
    // The header's ceiling: a decompression bomb is refused before anything is allocated.
    // What is decoded is bounded separately, after the DCT scale is chosen (a 48 MP phone
    // photo is decoded at an eighth of its size for a terminal).
    if ((long long)cinfo.image_width * (long long)cinfo.image_height > max_source_pixels) {
        jpeg_destroy_decompress(&cinfo);
        snprintf(out->message, sizeof out->message, "%ux%u pixels", cinfo.image_width, cinfo.image_height);
        return STORIES_IMAGE_TOO_LARGE;
    }
    out->orientation = exif_orientation(&cinfo);
    if (out->orientation >= 5) { int t = min_width; min_width = min_height; min_height = t; } // stored sideways

    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    cinfo.scale_num = 8;
    cinfo.scale_denom = 8;
    for (int num = 1; num < 8; num *= 2) {
        // DCT scaling: output = ceil(size * num / 8).
        long long w = ((long long)cinfo.image_width * num + 7) / 8;
        long long h = ((long long)cinfo.image_height * num + 7) / 8;
        if (w >= min_width && h >= min_height && min_width > 0 && min_height > 0) {
            cinfo.scale_num = (unsigned)num;
            break;
        }
    }
    // The decoded picture within max_pixels: a smaller scale if need be.
    while (cinfo.scale_num > 1 &&
           (((long long)cinfo.image_width * cinfo.scale_num + 7) / 8) * (((long long)cinfo.image_height * cinfo.scale_num + 7) / 8) > max_pixels) {
        cinfo.scale_num /= 2;
    }
    if ((((long long)cinfo.image_width * cinfo.scale_num + 7) / 8) * (((long long)cinfo.image_height * cinfo.scale_num + 7) / 8) > max_pixels) {
        jpeg_destroy_decompress(&cinfo);
        snprintf(out->message, sizeof out->message, "%ux%u pixels", cinfo.image_width, cinfo.image_height);
        return STORIES_IMAGE_TOO_LARGE;
    }
    if (cinfo.scale_num < 8) {
        // Scaled down, the accurate IDCT and smooth chroma upsampling change nothing visible
        // in a terminal cell; the fast paths cut decode time (docs/performance.md).
        cinfo.dct_method = JDCT_IFAST;
        cinfo.do_fancy_upsampling = FALSE;
    }
    jpeg_start_decompress(&cinfo);

    int width = (int)cinfo.output_width, height = (int)cinfo.output_height;
    int components = cinfo.output_components;
    size_t stride = (size_t)width * (size_t)components;
    pixels = malloc((size_t)width * (size_t)height * 3);
    row = malloc(stride);
    if (!pixels || !row) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        free(row);
        snprintf(out->message, sizeof out->message, "out of memory for %dx%d pixels", width, height);
        return STORIES_IMAGE_NO_MEMORY;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        unsigned char *rows[1] = { row };
        unsigned y = cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, rows, 1);
        unsigned char *dst = pixels + (size_t)y * (size_t)width * 3;
        if (cmyk) {
            // Adobe writes CMYK inverted; plain CMYK is not.
            int inverted = cinfo.saw_Adobe_marker;
            for (int x = 0; x < width; x++) {
                unsigned c = row[x * 4], m = row[x * 4 + 1], yy = row[x * 4 + 2], k = row[x * 4 + 3];
                if (!inverted) { c = 255 - c; m = 255 - m; yy = 255 - yy; k = 255 - k; }
                dst[x * 3] = (unsigned char)(c * k / 255);
                dst[x * 3 + 1] = (unsigned char)(m * k / 255);
                dst[x * 3 + 2] = (unsigned char)(yy * k / 255);
            }
        } else {
            memcpy(dst, row, (size_t)width * 3);
        }
    }
    jpeg_finish_decompress(&cinfo);
    if (error.warning[0]) {
        int ended = error.warning_code == JWRN_JPEG_EOF || error.warning_code == JWRN_HIT_MARKER;
        unsigned rows = cinfo.output_height;
        if (ended && scan_start + 2 > size) {
            // Nothing of the picture came before the data ended: there is nothing to show.
            jpeg_destroy_decompress(&cinfo);
            free(pixels);
            free(row);
            snprintf(out->message, sizeof out->message, "the file ends before any of the picture (cut short)");
            return STORIES_IMAGE_CORRUPT;
        }
        if (ended && cinfo.progressive_mode) {
            snprintf(out->damage, sizeof out->damage, "the file ends early (cut short): the picture is coarse where its data stops");
        } else if (ended && rows > 0) {
            unsigned percent = (unsigned)((unsigned long long)error.warning_row * 100 / rows);
            if (percent == 0) {
                snprintf(out->damage, sizeof out->damage, "the file ends early (cut short): only its first rows decoded");
            } else {
                snprintf(out->damage, sizeof out->damage, "the file ends early (cut short): only the first %u%% decoded", percent);
            }
        } else {
            snprintf(out->damage, sizeof out->damage, "damaged data (%s): parts may be grey", error.warning);
        }
    }
    jpeg_destroy_decompress(&cinfo);
    free(row);
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    return STORIES_IMAGE_OK;
}

void stories_image_free(stories_image *image) {
    free(image->pixels);
    image->pixels = NULL;
}
