// FFmpeg's libraries opened on first use, their log forwarded, and what video.c and
// audio.c share: the custom I/O over our copy of the bytes, and how a message is said.
#include "stories_video.h"
#include "libav.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// FFmpeg is opened on first use, not linked: its libraries and the hundred or so they pull
// in (codecs, libjxl, libx265…) cost every process about 50 ms before main, video or not,
// which is all of a warm start's budget. Each function is looked up once, by name, in the
// libraries of the major versions these headers describe.
#include <dlfcn.h>
#include <pthread.h>

#define STORIES_DEFINE(lib, name) __typeof__(name) *p_##name;
STORIES_AV_FUNCTIONS(STORIES_DEFINE)

static void *lib_avutil, *lib_avcodec, *lib_avformat, *lib_swscale, *lib_swresample;
static pthread_once_t libav_once = PTHREAD_ONCE_INIT;
static int libav_loaded;          // 1 when every function was found
static char libav_problem[256];   // why not, otherwise

static void forward_log(void *context, int level, const char *format, va_list args);
_Thread_local int stories_stream_limit_hit;

static void *open_library(const char *name) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle && !libav_problem[0]) {
        const char *why = dlerror();
        snprintf(libav_problem, sizeof libav_problem, "%s", why ? why : name);
    }
    return handle;
}

static void load_libav(void) {
    lib_avutil = open_library("libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR));
    lib_avcodec = open_library("libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR));
    lib_avformat = open_library("libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR));
    lib_swscale = open_library("libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR));
    lib_swresample = open_library("libswresample.so." AV_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR));
    if (!lib_avutil || !lib_avcodec || !lib_avformat || !lib_swscale || !lib_swresample) return;
#define STORIES_RESOLVE(lib, name) \
    p_##name = (__typeof__(p_##name))dlsym(lib_##lib, #name); \
    if (!p_##name) { snprintf(libav_problem, sizeof libav_problem, "lib" #lib " has no " #name); return; }
    STORIES_AV_FUNCTIONS(STORIES_RESOLVE)
    // libav's default would print its warnings on the terminal.
    p_av_log_set_callback(forward_log);
    libav_loaded = 1;
}



void stories_say(char *message, size_t size, const char *format, ...) {
    if (!message || size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(message, size, format, args);
    va_end(args);
}

int stories_libav_ready(char *message, size_t size) {
    pthread_once(&libav_once, load_libav);
    if (libav_loaded) return 1;
    stories_say(message, size, "FFmpeg's libraries could not be loaded (%s)", libav_problem);
    return 0;
}


// The custom I/O context reads our copy of the bytes: a file name or URL never reaches
// libavformat, so no protocol (file, http, concat…) can be reached from a hostile file.
int stories_memory_read(void *opaque, uint8_t *buffer, int wanted) {
    stories_memory *memory = opaque;
    if (memory->position >= memory->size) return AVERROR_EOF;
    size_t left = memory->size - memory->position;
    size_t count = (size_t)wanted < left ? (size_t)wanted : left;
    memcpy(buffer, memory->bytes + memory->position, count);
    memory->position += count;
    return (int)count;
}

int64_t stories_memory_seek(void *opaque, int64_t offset, int whence) {
    stories_memory *memory = opaque;
    int64_t base;
    switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return (int64_t)memory->size;
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (int64_t)memory->position; break;
    case SEEK_END: base = (int64_t)memory->size; break;
    default: return AVERROR(EINVAL);
    }
    if (offset > INT64_MAX - base) return AVERROR(EINVAL);
    int64_t target = base + offset;
    if (target < 0 || target > (int64_t)memory->size) return AVERROR(EINVAL);
    memory->position = (size_t)target;
    return target;
}

static void (*log_sink)(int, const char *) = NULL;

static void forward_log(void *context, int level, const char *format, va_list args) {
    if (format && strncmp(format, "Number of streams exceeds max_streams", 37) == 0) stories_stream_limit_hit = 1;
    if (!log_sink || level > AV_LOG_WARNING) return;
    char line[512];
    int prefix = 1;
    p_av_log_format_line2(context, level, format, args, line, sizeof line, &prefix);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = 0;
    if (length > 0) log_sink(level, line);
}

void stories_video_set_log_sink(void (*sink)(int level, const char *line)) {
    log_sink = sink; // forward_log is installed when the libraries are loaded
}
