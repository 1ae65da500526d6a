#include <zlib.h>

/// deflateInit2 is a macro in zlib.h: this gives Swift a function to call. `windowBits`
/// 15 + 16 writes a gzip wrapper.
static inline int stories_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

/// inflateInit2 is a macro too: `windowBits` 15 + 16 reads a gzip wrapper only.
static inline int stories_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}
