#ifndef STORIES_VIDEO_H
#define STORIES_VIDEO_H

#include <stddef.h>
#include <stdint.h>

/// A video opened from bytes in memory with FFmpeg's libraries: demuxed through a custom
/// I/O context (never a file name, never the network), the first video stream decoded,
/// frames scaled by swscale straight to the size asked for. Opaque.
typedef struct stories_video stories_video;

/// Limits checked from the headers before any frame buffer is allocated: too many pixels or
/// streams refuse the file; a frame rate or duration beyond belief is treated as unknown.
typedef struct {
    long long max_pixels;     /* coded width × height */
    int max_streams;          /* streams in the container */
    double max_fps;           /* declared frame rate */
    double max_duration;      /* seconds */
} stories_video_limits;

/// What the headers say. `duration` is < 0 when the container has none or claims more than
/// `max_duration`; `fps` is 0 when unknown or beyond `max_fps` (timestamps still pace). `rotation` is 0, 90, 180 or 270: degrees clockwise to turn the coded picture
/// to show it upright.
typedef struct {
    int width;
    int height;
    int rotation;
    double fps;
    double duration;
    int has_audio;
    int streams;
    char codec[32];
    char container[32];
} stories_video_info;

enum {
    STORIES_VIDEO_OK = 0,
    STORIES_VIDEO_NOT_VIDEO = 1,     /* not a container FFmpeg recognises */
    STORIES_VIDEO_NO_STREAM = 2,     /* no video stream (audio only, say) */
    STORIES_VIDEO_UNSUPPORTED = 3,   /* no decoder for the codec */
    STORIES_VIDEO_TOO_LARGE = 4,     /* more pixels than max_pixels */
    STORIES_VIDEO_LIMIT = 5,         /* more streams than the limit */
    STORIES_VIDEO_CORRUPT = 6,
    STORIES_VIDEO_NO_MEMORY = 7
};

/// Opens a video from `size` bytes at `data` (copied: the caller's buffer may go). On
/// failure returns a STORIES_VIDEO_* code, `*out` is NULL and `message` says why
/// (NUL-terminated, at most message_size bytes). `info` is filled as far as was read.
int stories_video_open(const uint8_t *data, size_t size, const stories_video_limits *limits,
                       stories_video **out, stories_video_info *info, char *message, size_t message_size);

/// Decodes the next frame. Returns 1 with its presentation time in seconds from the
/// start of the stream, 0 at the end of the stream, or a negative value when decoding
/// can go no further (message says why). Packets that fail to decode are skipped: a
/// corrupt stretch mid-stream loses only its frames. Nothing is scaled yet: a frame that
/// is already late can be dropped without paying for it.
int stories_video_next(stories_video *video, double *pts, char *message, size_t message_size);

/// How long the frame last decoded is to be shown, in seconds, as its packet says (a GIF's
/// delay; FFmpeg's GIF reader makes a delay under 2 hundredths 0.1 s, as browsers do); 0
/// when the stream does not say or says more than an hour.
double stories_video_frame_duration(const stories_video *video);

/// Scales the last decoded frame's source rectangle (x, y, w, h, in coded pixels; chroma
/// aligned down) to `out_w`×`out_h` 8-bit RGB at `rgb` (out_w*out_h*3 bytes), honouring
/// the frame's colour range and matrix. Returns 0, or < 0 when there is no frame or the
/// scaler cannot be made.
int stories_video_scale(stories_video *video, uint8_t *rgb, int out_w, int out_h,
                        int x, int y, int w, int h);

/// Rewinds to the start (for looping). Returns 0 or < 0.
int stories_video_rewind(stories_video *video);

/// Frames that failed to decode (skipped) so far.
int stories_video_corrupt_frames(const stories_video *video);

void stories_video_close(stories_video *video);

/// libav's own log lines go here (never to the terminal): `sink` gets the level
/// (AV_LOG_*) and one line without its newline. NULL drops them. Call once, early.
void stories_video_set_log_sink(void (*sink)(int level, const char *line));

#endif
