// Sixel bands (issue 48, point 4): the inner loop of SixelEncoder, in C because it runs over
// every pixel of every video frame. Given each pixel's palette index, one band of six rows
// is written as a terminal reads it: for each colour, in the order the colours first appear
// row by row, "#n" and its sixels from the band's first column to the last column it has,
// runs of more than three as "!count" and the sixel, colours joined by '$'. The caller adds
// the '-' between bands. Nothing here allocates; the caller's buffer is at least
// stories_sixel_band_bound(width) bytes and the scratch stories_sixel_scratch_bound(width).

#include "CStoriesImage.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t stories_sixel_band_bound(int width) {
    if (width <= 0) return 0;
    // Per entry (a colour in a column): its sixel, and before it at most one run of empty
    // columns ("!" and up to 10 digits and "?"); per colour "$#" and up to 3 digits.
    return (size_t)width * 6 * 14 + 256 * 6 + 16;
}

size_t stories_sixel_scratch_bound(int width) {
    if (width <= 0) return 0;
    return (size_t)width * 6 * (4 + 4 + 1 + 1 + 1);
}

static inline uint8_t *put_number(uint8_t *out, unsigned value) {
    char digits[12];
    int n = 0;
    do { digits[n++] = (char)('0' + value % 10); value /= 10; } while (value > 0);
    while (n > 0) *out++ = (uint8_t)digits[--n];
    return out;
}

static inline uint8_t *put_run(uint8_t *out, uint8_t value, unsigned run) {
    if (run > 3) {
        *out++ = '!';
        out = put_number(out, run);
        *out++ = (uint8_t)(63 + value);
    } else {
        for (unsigned i = 0; i < run; i++) *out++ = (uint8_t)(63 + value);
    }
    return out;
}

size_t stories_sixel_band(const uint8_t *indices, int width, int height, int band, uint8_t *out, uint8_t *scratch) {
    if (!indices || !out || !scratch || width <= 0 || height <= 0 || band < 0) return 0;
    if (band > (height - 1) / 6 || width > INT32_MAX / 84) return 0;
    if (((uintptr_t)scratch & 3) != 0) return 0; // the columns are 32-bit
    const int top = band * 6;
    const int rows = height - top < 6 ? height - top : 6;
    const size_t most = (size_t)width * 6;
    // Scratch: entries (colour, column, bits) as found, then grouped by colour.
    // The columns first (the scratch is 4-byte aligned: checked above), then the bytes.
    int32_t *entry_x = (int32_t *)(void *)scratch;
    int32_t *sorted_x = (int32_t *)(void *)(scratch + most * 4);
    uint8_t *entry_colour = scratch + most * 8;
    uint8_t *entry_bits = scratch + most * 9;
    uint8_t *sorted_bits = scratch + most * 10;
    int count[256], at[256];
    uint8_t order[256];
    int colours = 0;
    memset(count, 0, sizeof count);
    // The colours in the order they first appear, row by row.
    for (int dy = 0; dy < rows; dy++) {
        const uint8_t *row = indices + (size_t)(top + dy) * (size_t)width;
        for (int x = 0; x < width; x++) {
            const uint8_t colour = row[x];
            if (count[colour] == 0) { count[colour] = -1; order[colours++] = colour; }
        }
    }
    // Down each column: its colours (at most six) and their bits. Without branches: the
    // bits of a row's colour are the rows that have it, and the first row that has a colour
    // writes its entry (the pointer moves on only then).
    size_t entries = 0;
    const uint8_t *r0 = indices + (size_t)top * (size_t)width;
    if (rows == 6) {
        const uint8_t *r1 = r0 + width, *r2 = r1 + width, *r3 = r2 + width, *r4 = r3 + width, *r5 = r4 + width;
        for (int x = 0; x < width; x++) {
            const uint8_t c0 = r0[x], c1 = r1[x], c2 = r2[x], c3 = r3[x], c4 = r4[x], c5 = r5[x];
            // Which rows share a colour: fifteen comparisons, then each row's bits.
            const unsigned e01 = c0 == c1, e02 = c0 == c2, e03 = c0 == c3, e04 = c0 == c4, e05 = c0 == c5;
            const unsigned e12 = c1 == c2, e13 = c1 == c3, e14 = c1 == c4, e15 = c1 == c5;
            const unsigned e23 = c2 == c3, e24 = c2 == c4, e25 = c2 == c5;
            const unsigned e34 = c3 == c4, e35 = c3 == c5, e45 = c4 == c5;
            const uint8_t colour[6] = { c0, c1, c2, c3, c4, c5 };
            const unsigned bits[6] = {
                1u | e01 << 1 | e02 << 2 | e03 << 3 | e04 << 4 | e05 << 5,
                e01 | 2u | e12 << 2 | e13 << 3 | e14 << 4 | e15 << 5,
                e02 | e12 << 1 | 4u | e23 << 3 | e24 << 4 | e25 << 5,
                e03 | e13 << 1 | e23 << 2 | 8u | e34 << 4 | e35 << 5,
                e04 | e14 << 1 | e24 << 2 | e34 << 3 | 16u | e45 << 5,
                e05 | e15 << 1 | e25 << 2 | e35 << 3 | e45 << 4 | 32u,
            };
            // A row writes its colour's entry when no row above has that colour.
            const unsigned first[6] = { 1u, !e01, !(e02 | e12), !(e03 | e13 | e23), !(e04 | e14 | e24 | e34),
                                        !(e05 | e15 | e25 | e35 | e45) };
            for (int dy = 0; dy < 6; dy++) {
                entry_colour[entries] = colour[dy];
                entry_x[entries] = x;
                entry_bits[entries] = (uint8_t)bits[dy];
                entries += first[dy];
            }
        }
    } else {
        for (int x = 0; x < width; x++) {
            for (int dy = 0; dy < rows; dy++) {
                const uint8_t colour = r0[(size_t)dy * (size_t)width + (size_t)x];
                unsigned bits = 0, before = 0;
                for (int k = 0; k < rows; k++) {
                    const unsigned same = r0[(size_t)k * (size_t)width + (size_t)x] == colour;
                    bits |= same << k;
                    before |= same & (unsigned)(k < dy);
                }
                entry_colour[entries] = colour;
                entry_x[entries] = x;
                entry_bits[entries] = (uint8_t)bits;
                entries += !before;
            }
        }
    }
    // Grouped by colour, in column order within each (a counting sort).
    for (int n = 0; n < colours; n++) count[order[n]] = 0;
    for (size_t j = 0; j < entries; j++) count[entry_colour[j]]++;
    int next = 0;
    for (int n = 0; n < colours; n++) { at[order[n]] = next; next += count[order[n]]; }
    for (size_t j = 0; j < entries; j++) {
        const int slot = at[entry_colour[j]]++;
        sorted_x[slot] = entry_x[j];
        sorted_bits[slot] = entry_bits[j];
    }
    // Each colour's line, from column 0 to its last column.
    uint8_t *p = out;
    size_t slot = 0;
    for (int n = 0; n < colours; n++) {
        if (n > 0) *p++ = '$';
        *p++ = '#';
        p = put_number(p, order[n]);
        uint8_t value = 0;
        unsigned run = 0;
        int x = 0;
        for (int k = 0; k < count[order[n]]; k++, slot++) {
            const int column = sorted_x[slot];
            const uint8_t bits = sorted_bits[slot];
            if (column > x) {
                if (value != 0) { p = put_run(p, value, run); value = 0; run = 0; }
                run += (unsigned)(column - x);
            }
            if (bits != value) { p = put_run(p, value, run); value = bits; run = 0; }
            run++;
            x = column + 1;
        }
        p = put_run(p, value, run);
    }
    return (size_t)(p - out);
}

/// The palette colour nearest a 15-bit bin's centre (squared distance).
static uint8_t nearest(int bin, const uint8_t *palette, int colours) {
    const int r = (bin >> 10) << 3 | 4, g = ((bin >> 5) & 31) << 3 | 4, b = (bin & 31) << 3 | 4;
    int best = 0, best_distance = 1 << 30;
    for (int n = 0; n < colours; n++) {
        const int dr = r - palette[3 * n], dg = g - palette[3 * n + 1], db = b - palette[3 * n + 2];
        const int distance = dr * dr + dg * dg + db * db;
        if (distance < best_distance) { best_distance = distance; best = n; }
    }
    return (uint8_t)best;
}

static inline uint8_t lookup_index(uint8_t *lookup, const uint8_t *palette, int colours, int r, int g, int b) {
    const int bin = (r >> 3) << 10 | (g >> 3) << 5 | b >> 3;
    uint8_t index = lookup[bin];
    if (index >= colours) {
        // A bin not met yet: its nearest colour, kept.
        index = nearest(bin, palette, colours);
        lookup[bin] = index;
    }
    return index;
}

void stories_sixel_map(const uint8_t *pixels, size_t count, uint8_t *lookup, const uint8_t *palette, int colours,
                       uint8_t *indices) {
    if (!pixels || !lookup || !palette || !indices || colours <= 0 || colours > 255) return;
    for (size_t i = 0; i < count; i++) {
        indices[i] = lookup_index(lookup, palette, colours, pixels[3 * i], pixels[3 * i + 1], pixels[3 * i + 2]);
    }
}

double stories_sixel_error(const uint8_t *pixels, size_t count, size_t step, uint8_t *lookup, const uint8_t *palette,
                           int colours) {
    if (!pixels || !lookup || !palette || colours <= 0 || colours > 255 || count == 0 || step == 0) return 0;
    unsigned long long error = 0, sampled = 0;
    for (size_t i = 0; i < count; i += step) {
        const int r = pixels[3 * i], g = pixels[3 * i + 1], b = pixels[3 * i + 2];
        const uint8_t *p = palette + 3 * lookup_index(lookup, palette, colours, r, g, b);
        error += (unsigned)(abs(r - p[0]) + abs(g - p[1]) + abs(b - p[2]));
        sampled++;
    }
    return (double)error / (double)sampled;
}

void stories_sixel_fill_lookup(uint8_t *lookup, const uint8_t *palette, int colours) {
    if (!lookup || !palette || colours <= 0 || colours > 255) return;
    for (int bin = 0; bin < 1 << 15; bin++) {
        if (lookup[bin] >= colours) lookup[bin] = nearest(bin, palette, colours);
    }
}
