#ifndef STORIES_ENCODE_H
#define STORIES_ENCODE_H

#include <stddef.h>
#include <stdint.h>

/// A video written with FFmpeg's libraries (`stories render`): frames of RGB pixels (or
/// palette indices, for a GIF) encoded and muxed to a file descriptor the caller opened —
/// libavformat is never given a file name. Opaque.
typedef struct stories_encoder stories_encoder;

enum {
    STORIES_ENCODE_MP4 = 0,   /* H.264 (libx264), yuv420p, in MP4 */
    STORIES_ENCODE_WEBM = 1,  /* VP9 (libvpx-vp9), yuv420p, in WebM */
    STORIES_ENCODE_GIF = 2,   /* GIF, each frame with the 256-colour palette it is given */
};

/// Opens an encoder writing to `fd` (not closed by it). `width` and `height` are even for
/// MP4 and WebM; `fps` is the frame grid timestamps are counted on (a GIF's is 100: its
/// delays are hundredths). `sound`: MP4 and WebM get a sound track too (48 kHz stereo; AAC,
/// Opus). NULL with a reason in `message` on failure.
stories_encoder *stories_encoder_open(int fd, int kind, int width, int height, int fps, int sound, char *message, size_t size);

/// The sound track's next `frames` frames: interleaved 16-bit stereo at 48 kHz, following on
/// from the last. 0 on success.
int stories_encoder_write_sound(stories_encoder *encoder, const int16_t *pcm, int frames, char *message, size_t size);

/// One frame of `width × height` RGB pixels at `pts` (in frames of the grid). 0 on success.
int stories_encoder_write_rgb(stories_encoder *encoder, const uint8_t *rgb, int64_t pts, char *message, size_t size);

/// One GIF frame: palette indices and 256 colours (0xAARRGGBB), shown from `pts` for
/// `duration` hundredths. 0 on success.
int stories_encoder_write_indexed(stories_encoder *encoder, const uint8_t *indices, const uint32_t *palette,
                                  int64_t pts, int64_t duration, char *message, size_t size);

/// Flushes the encoder and writes the file's end. 0 on success.
int stories_encoder_finish(stories_encoder *encoder, char *message, size_t size);

void stories_encoder_free(stories_encoder *encoder);

#endif
