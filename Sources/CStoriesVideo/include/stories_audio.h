#ifndef STORIES_AUDIO_H
#define STORIES_AUDIO_H

#include <stddef.h>
#include <stdint.h>

/// A video's sound (issue 32): the best audio stream of a file held in memory, demuxed
/// through its own custom I/O context (never a file name, never the network), decoded by
/// FFmpeg and resampled by libswresample to interleaved signed 16-bit samples at the rate
/// and channel count the output asked for. Opaque; one thread at a time.
typedef struct stories_audio stories_audio;

/// What the headers say of the sound. `offset`: seconds from the video stream's start to
/// the audio stream's (a container may start its sound a little after its pictures).
typedef struct {
    int sample_rate;
    int channels;
    double duration;
    double offset;
    char codec[32];
} stories_audio_info;

enum {
    STORIES_AUDIO_OK = 0,
    STORIES_AUDIO_NONE = 1,          /* no audio stream: pictures alone */
    STORIES_AUDIO_UNSUPPORTED = 2,   /* no decoder, or FFmpeg missing */
    STORIES_AUDIO_CORRUPT = 3,       /* headers that cannot be read, or out of bounds */
    STORIES_AUDIO_NO_MEMORY = 4
};

/// Opens the sound of the `size` bytes at `data` (copied), to be read as `rate` Hz and
/// `channels` channels (1 or 2). On failure returns a STORIES_AUDIO_* code, `*out` is NULL
/// and `message` says why.
int stories_audio_open(const uint8_t *data, size_t size, int rate, int channels, stories_audio **out,
                       stories_audio_info *info, char *message, size_t message_size);

/// Reads up to `max_frames` frames (a frame: one sample a channel) into `pcm`. Returns how
/// many (> 0) with `*pts`, the first one's time in seconds from the video's start; 0 at
/// the end; < 0 when decoding can go no further (`message` says why). Packets that fail
/// to decode are skipped.
int stories_audio_read(stories_audio *audio, int16_t *pcm, int max_frames, double *pts, char *message, size_t message_size);

/// Goes to `seconds` from the video's start (the packet at or before it; `read` then says
/// where it is). Returns 0 or < 0.
int stories_audio_seek(stories_audio *audio, double seconds);

/// Packets that failed to decode (skipped) so far.
int stories_audio_corrupt_packets(const stories_audio *audio);

void stories_audio_close(stories_audio *audio);

/// The desktop's sound server through PulseAudio's simple API (PipeWire's pulse server
/// speaks it too), opened at run time: a machine without libpulse-simple, or with no
/// server running, gets a message, not a failure to start. Blocking writes: call from a
/// thread of the sound's own.
typedef struct stories_sound stories_sound;

/// Connects to `server` (NULL: the default, or PULSE_SERVER) for playback of `rate` Hz,
/// `channels` channels, signed 16-bit, with the server's own buffering. NULL with
/// `message` saying why when it cannot.
stories_sound *stories_sound_open(const char *server, int rate, int channels, const char *name, char *message, size_t message_size);

/// Writes `frames` frames (blocks until the server has room). 0 or < 0 with `message`.
int stories_sound_write(stories_sound *sound, const int16_t *pcm, size_t frames, char *message, size_t message_size);

/// Microseconds between what was written and what is heard now; < 0 when unknown.
long long stories_sound_latency(stories_sound *sound);

/// Throws away what is buffered and not yet heard (pausing: silence at once).
int stories_sound_flush(stories_sound *sound);

void stories_sound_close(stories_sound *sound);

/// Records from `device` (a source: "out.monitor" hears what the sink "out" plays; NULL:
/// the default) of `server` (NULL: the default, or PULSE_SERVER) at `rate` Hz and `channels` channels, in pieces of `fragment_ms` — for the
/// tests and `stories bench sound`, which listen to what was played.
stories_sound *stories_sound_record(const char *server, const char *device, int rate, int channels, int fragment_ms, char *message, size_t message_size);

/// Reads `frames` frames (blocks until they are there). 0 or < 0 with `message`.
int stories_sound_read(stories_sound *sound, int16_t *pcm, size_t frames, char *message, size_t message_size);

#endif
