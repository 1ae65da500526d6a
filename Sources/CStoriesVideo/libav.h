// FFmpeg's functions as this target calls them: looked up once, by name, in the libraries
// of the major versions these headers describe (video.c opens them on first use). Private
// to CStoriesVideo: video.c and audio.c.
#ifndef STORIES_LIBAV_H
#define STORIES_LIBAV_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <stddef.h>

#define STORIES_AV_FUNCTIONS(X) \
    X(avutil, av_display_rotation_get) \
    X(avutil, av_frame_alloc) \
    X(avutil, av_frame_free) \
    X(avutil, av_free) \
    X(avutil, av_freep) \
    X(avutil, av_log_format_line2) \
    X(avutil, av_log_set_callback) \
    X(avutil, av_malloc) \
    X(avutil, av_opt_set_int) \
    X(avutil, av_pix_fmt_desc_get) \
    X(avutil, av_strdup) \
    X(avutil, av_strerror) \
    X(avcodec, av_packet_alloc) \
    X(avcodec, av_packet_free) \
    X(avcodec, av_packet_unref) \
    X(avcodec, avcodec_alloc_context3) \
    X(avcodec, avcodec_flush_buffers) \
    X(avcodec, avcodec_free_context) \
    X(avcodec, avcodec_get_name) \
    X(avcodec, avcodec_open2) \
    X(avcodec, avcodec_parameters_to_context) \
    X(avcodec, avcodec_receive_frame) \
    X(avcodec, avcodec_send_packet) \
    X(avformat, av_find_best_stream) \
    X(avformat, av_read_frame) \
    X(avformat, av_seek_frame) \
    X(avformat, av_stream_get_side_data) \
    X(avformat, avformat_alloc_context) \
    X(avformat, avformat_close_input) \
    X(avformat, avformat_find_stream_info) \
    X(avformat, avformat_open_input) \
    X(avformat, avformat_seek_file) \
    X(avformat, avio_alloc_context) \
    X(avformat, avio_context_free) \
    X(swscale, sws_freeContext) \
    X(swscale, sws_getCachedContext) \
    X(swscale, sws_getCoefficients) \
    X(swscale, sws_scale) \
    X(swscale, sws_setColorspaceDetails) \
    X(avutil, av_channel_layout_default) \
    X(avutil, av_channel_layout_uninit) \
    X(avutil, av_get_bytes_per_sample) \
    X(swresample, swr_alloc_set_opts2) \
    X(swresample, swr_init) \
    X(swresample, swr_convert) \
    X(swresample, swr_get_out_samples) \
    X(swresample, swr_get_delay) \
    X(swresample, swr_free) \
    X(avutil, av_frame_get_buffer) \
    X(avutil, av_frame_make_writable) \
    X(avutil, av_dict_set) \
    X(avutil, av_dict_free) \
    X(avcodec, avcodec_find_encoder_by_name) \
    X(avcodec, avcodec_send_frame) \
    X(avcodec, avcodec_receive_packet) \
    X(avcodec, avcodec_parameters_from_context) \
    X(avcodec, av_packet_rescale_ts) \
    X(avformat, avformat_alloc_output_context2) \
    X(avformat, avformat_free_context) \
    X(avformat, avformat_new_stream) \
    X(avformat, avformat_write_header) \
    X(avformat, av_interleaved_write_frame) \
    X(avformat, av_write_trailer) \
    /* end */


#define STORIES_DECLARE(lib, name) extern __typeof__(name) *p_##name;
STORIES_AV_FUNCTIONS(STORIES_DECLARE)

/// Bytes in memory as libavformat reads them (a custom I/O context's opaque): a file name
/// or URL never reaches it, so no protocol can be reached from a hostile file.
typedef struct {
    uint8_t *bytes;
    size_t size;
    size_t position;
} stories_memory;

int stories_memory_read(void *opaque, uint8_t *buffer, int wanted);
int64_t stories_memory_seek(void *opaque, int64_t offset, int whence);

/// Writes a message (as printf) into `message` when there is room for one.
void stories_say(char *message, size_t size, const char *format, ...);

/// Set on this thread when FFmpeg refused to add a stream past `max_streams` (its own
/// words, in the log), so that an open it made fail is said as the stream limit it is.
extern _Thread_local int stories_stream_limit_hit;

/// True once FFmpeg is there (loading it on the first call); otherwise says why.
int stories_libav_ready(char *message, size_t size);

#endif
