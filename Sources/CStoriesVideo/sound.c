// Sound to and from the sound server through PulseAudio's simple API, opened at run time
// (see stories_audio.h).
#include "stories_audio.h"
#include "libav.h"

#include <dlfcn.h>
#include <pthread.h>
#include <pulse/error.h>
#include <pulse/simple.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: - PulseAudio's simple API, opened at run time

static void *lib_pulse_simple, *lib_pulse;
static pthread_once_t pulse_once = PTHREAD_ONCE_INIT;
static int pulse_loaded;
static char pulse_problem[200];
static __typeof__(pa_simple_new) *p_pa_simple_new;
static __typeof__(pa_simple_write) *p_pa_simple_write;
static __typeof__(pa_simple_get_latency) *p_pa_simple_get_latency;
static __typeof__(pa_simple_flush) *p_pa_simple_flush;
static __typeof__(pa_simple_free) *p_pa_simple_free;
static __typeof__(pa_strerror) *p_pa_strerror;
static __typeof__(pa_simple_read) *p_pa_simple_read;

/// pa_strerror's words, or a number where it has none.
static const char *pulse_error(int error) {
    const char *text = p_pa_strerror ? p_pa_strerror(error) : NULL;
    return text ? text : "unknown error";
}

static void load_pulse(void) {
    lib_pulse = dlopen("libpulse.so.0", RTLD_NOW | RTLD_LOCAL);
    lib_pulse_simple = lib_pulse ? dlopen("libpulse-simple.so.0", RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!lib_pulse || !lib_pulse_simple) {
        snprintf(pulse_problem, sizeof pulse_problem, "PulseAudio's library is not installed (libpulse-simple.so.0)");
        return;
    }
    p_pa_simple_new = (__typeof__(p_pa_simple_new))dlsym(lib_pulse_simple, "pa_simple_new");
    p_pa_simple_write = (__typeof__(p_pa_simple_write))dlsym(lib_pulse_simple, "pa_simple_write");
    p_pa_simple_get_latency = (__typeof__(p_pa_simple_get_latency))dlsym(lib_pulse_simple, "pa_simple_get_latency");
    p_pa_simple_flush = (__typeof__(p_pa_simple_flush))dlsym(lib_pulse_simple, "pa_simple_flush");
    p_pa_simple_free = (__typeof__(p_pa_simple_free))dlsym(lib_pulse_simple, "pa_simple_free");
    p_pa_strerror = (__typeof__(p_pa_strerror))dlsym(lib_pulse, "pa_strerror");
    p_pa_simple_read = (__typeof__(p_pa_simple_read))dlsym(lib_pulse_simple, "pa_simple_read");
    if (!p_pa_simple_new || !p_pa_simple_write || !p_pa_simple_get_latency || !p_pa_simple_flush || !p_pa_simple_free || !p_pa_strerror
        || !p_pa_simple_read) {
        snprintf(pulse_problem, sizeof pulse_problem, "PulseAudio's library lacks the simple API");
        return;
    }
    pulse_loaded = 1;
}

struct stories_sound {
    pa_simple *simple;
    int channels;
};

stories_sound *stories_sound_open(const char *server, int rate, int channels, const char *name, char *message, size_t message_size) {
    pthread_once(&pulse_once, load_pulse);
    if (!pulse_loaded) { stories_say(message, message_size, "%s", pulse_problem); return NULL; }
    if (rate < 8000 || rate > 192000 || channels < 1 || channels > 2) { stories_say(message, message_size, "no such output"); return NULL; }
    pa_sample_spec spec = { .format = PA_SAMPLE_S16LE, .rate = (uint32_t)rate, .channels = (uint8_t)channels };
    // The server's own buffering (PulseAudio's default is about 2 s ahead). Asked for less
    // (60, 200 ms), a stream on a sink that was idle started only after 0.3–1.6 s, writes
    // blocking meanwhile; with the default it is heard at once. A pause throws away what
    // is buffered (silence at once), and the clock counts what is still buffered.
    int error = 0;
    pa_simple *simple = p_pa_simple_new(server, "stories", PA_STREAM_PLAYBACK, NULL, name ? name : "story", &spec, NULL, NULL, &error);
    if (!simple) {
        stories_say(message, message_size, "no sound server (PulseAudio or PipeWire): %s", pulse_error(error));
        return NULL;
    }
    stories_sound *sound = calloc(1, sizeof *sound);
    if (!sound) { p_pa_simple_free(simple); return NULL; }
    sound->simple = simple;
    sound->channels = channels;
    return sound;
}

int stories_sound_write(stories_sound *sound, const int16_t *pcm, size_t frames, char *message, size_t message_size) {
    int error = 0;
    if (p_pa_simple_write(sound->simple, pcm, frames * (size_t)sound->channels * sizeof(int16_t), &error) < 0) {
        stories_say(message, message_size, "the sound server stopped taking sound: %s", pulse_error(error));
        return -1;
    }
    return 0;
}

long long stories_sound_latency(stories_sound *sound) {
    int error = 0;
    pa_usec_t latency = p_pa_simple_get_latency(sound->simple, &error);
    if (latency == (pa_usec_t)-1) return -1;
    return (long long)latency;
}

int stories_sound_flush(stories_sound *sound) {
    int error = 0;
    return p_pa_simple_flush(sound->simple, &error);
}

void stories_sound_close(stories_sound *sound) {
    if (!sound) return;
    p_pa_simple_free(sound->simple);
    free(sound);
}

stories_sound *stories_sound_record(const char *server, const char *device, int rate, int channels, int fragment_ms, char *message, size_t message_size) {
    pthread_once(&pulse_once, load_pulse);
    if (!pulse_loaded) { stories_say(message, message_size, "%s", pulse_problem); return NULL; }
    if (rate < 8000 || rate > 192000 || channels < 1 || channels > 2) { stories_say(message, message_size, "no such input"); return NULL; }
    if (fragment_ms < 2) fragment_ms = 2;
    if (fragment_ms > 1000) fragment_ms = 1000;
    pa_sample_spec spec = { .format = PA_SAMPLE_S16LE, .rate = (uint32_t)rate, .channels = (uint8_t)channels };
    pa_buffer_attr attributes = {
        .maxlength = (uint32_t)-1, .tlength = (uint32_t)-1, .prebuf = (uint32_t)-1, .minreq = (uint32_t)-1,
        .fragsize = (uint32_t)rate * (uint32_t)channels * 2 / 1000 * (uint32_t)fragment_ms,
    };
    int error = 0;
    pa_simple *simple = p_pa_simple_new(server, "stories", PA_STREAM_RECORD, device, "listening", &spec, NULL, &attributes, &error);
    if (!simple) {
        stories_say(message, message_size, "no sound server to record from: %s", pulse_error(error));
        return NULL;
    }
    stories_sound *sound = calloc(1, sizeof *sound);
    if (!sound) { p_pa_simple_free(simple); return NULL; }
    sound->simple = simple;
    sound->channels = channels;
    return sound;
}

int stories_sound_read(stories_sound *sound, int16_t *pcm, size_t frames, char *message, size_t message_size) {
    int error = 0;
    if (p_pa_simple_read(sound->simple, pcm, frames * (size_t)sound->channels * sizeof(int16_t), &error) < 0) {
        stories_say(message, message_size, "the sound server stopped giving sound: %s", pulse_error(error));
        return -1;
    }
    return 0;
}
