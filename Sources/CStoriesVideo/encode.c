// `stories render`'s encoder: RGB frames to H.264 or VP9 (swscale to yuv420p), or palette
// frames to GIF, muxed through a custom I/O context onto the caller's file descriptor.
#include "stories_encode.h"
#include "stories_video.h"
#include "libav.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct stories_encoder {
    int fd;
    int kind;
    int width, height;
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    AVFrame *frame;
    AVPacket *packet;
    struct SwsContext *scale;
    uint8_t *io_buffer;
    uint8_t *input; // a frame's RGB, padded (write_rgb)
    int header_written;
    // The sound track, when asked for: its encoder, the converter from 16-bit interleaved,
    // the frames waiting to fill an encoder frame, and how many were sent.
    AVCodecContext *audio;
    AVStream *audio_stream;
    AVFrame *audio_frame;
    struct SwrContext *resample;
    int16_t *pending;
    int pending_frames;
    int64_t audio_sent;
};

static int write_fd(void *opaque, uint8_t *buffer, int size) { // FFmpeg 5.1: not const
    stories_encoder *encoder = opaque;
    int done = 0;
    while (done < size) {
        ssize_t n = write(encoder->fd, buffer + done, (size_t)(size - done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return AVERROR(errno ? errno : EIO);
        done += (int)n;
    }
    return size;
}

static int64_t seek_fd(void *opaque, int64_t offset, int whence) {
    stories_encoder *encoder = opaque;
    if (whence == AVSEEK_SIZE) {
        off_t here = lseek(encoder->fd, 0, SEEK_CUR), end = lseek(encoder->fd, 0, SEEK_END);
        if (here < 0 || end < 0 || lseek(encoder->fd, here, SEEK_SET) < 0) return AVERROR(ESPIPE);
        return end;
    }
    off_t at = lseek(encoder->fd, offset, whence & ~AVSEEK_FORCE);
    return at < 0 ? AVERROR(errno) : at;
}

static void say_av(char *message, size_t size, const char *what, int code) {
    char reason[128] = "";
    p_av_strerror(code, reason, sizeof reason);
    stories_say(message, size, "%s: %s", what, reason);
}

void stories_encoder_free(stories_encoder *encoder) {
    if (!encoder) return;
    if (encoder->scale) p_sws_freeContext(encoder->scale);
    p_av_free(encoder->input);
    if (encoder->frame) p_av_frame_free(&encoder->frame);
    if (encoder->packet) p_av_packet_free(&encoder->packet);
    if (encoder->codec) p_avcodec_free_context(&encoder->codec);
    if (encoder->audio) p_avcodec_free_context(&encoder->audio);
    if (encoder->audio_frame) p_av_frame_free(&encoder->audio_frame);
    if (encoder->resample) p_swr_free(&encoder->resample);
    free(encoder->pending);
    if (encoder->format) {
        if (encoder->format->pb) {
            p_av_freep(&encoder->format->pb->buffer);
            p_avio_context_free(&encoder->format->pb);
        }
        p_avformat_free_context(encoder->format);
    }
    free(encoder);
}

/// The sound track: AAC (MP4) or Opus (WebM), 48 kHz stereo, fed 16-bit interleaved frames
/// through swresample. 0 on success.
static int open_sound(stories_encoder *encoder, char *message, size_t size) {
    const char *name = encoder->kind == STORIES_ENCODE_MP4 ? "aac" : "libopus";
    const AVCodec *codec = p_avcodec_find_encoder_by_name(name);
    if (!codec) { stories_say(message, size, "this FFmpeg has no %s encoder", name); return -1; }
    encoder->audio_stream = p_avformat_new_stream(encoder->format, NULL);
    encoder->audio = p_avcodec_alloc_context3(codec);
    encoder->audio_frame = p_av_frame_alloc();
    if (!encoder->audio_stream || !encoder->audio || !encoder->audio_frame) { stories_say(message, size, "out of memory"); return -1; }
    AVCodecContext *a = encoder->audio;
    a->sample_rate = 48000;
    a->sample_fmt = encoder->kind == STORIES_ENCODE_MP4 ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_S16;
    p_av_channel_layout_default(&a->ch_layout, 2);
    a->bit_rate = 128000;
    a->time_base = (AVRational){1, 48000};
    if (encoder->format->oformat->flags & AVFMT_GLOBALHEADER) a->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int code = p_avcodec_open2(a, codec, NULL);
    if (code < 0) { say_av(message, size, name, code); return -1; }
    code = p_avcodec_parameters_from_context(encoder->audio_stream->codecpar, a);
    if (code < 0) { say_av(message, size, "the sound track", code); return -1; }
    encoder->audio_stream->time_base = a->time_base;
    int frame_size = a->frame_size > 0 ? a->frame_size : 960;
    AVChannelLayout stereo;
    p_av_channel_layout_default(&stereo, 2);
    code = p_swr_alloc_set_opts2(&encoder->resample, &a->ch_layout, a->sample_fmt, 48000, &stereo, AV_SAMPLE_FMT_S16, 48000, 0, NULL);
    p_av_channel_layout_uninit(&stereo);
    if (code < 0 || !encoder->resample || p_swr_init(encoder->resample) < 0) { stories_say(message, size, "swresample cannot convert the sound"); return -1; }
    encoder->audio_frame->format = a->sample_fmt;
    encoder->audio_frame->nb_samples = frame_size;
    encoder->audio_frame->sample_rate = 48000;
    p_av_channel_layout_default(&encoder->audio_frame->ch_layout, 2);
    code = p_av_frame_get_buffer(encoder->audio_frame, 0);
    if (code < 0) { say_av(message, size, "a sound frame", code); return -1; }
    encoder->pending = calloc((size_t)frame_size * 2, sizeof(int16_t));
    if (!encoder->pending) { stories_say(message, size, "out of memory"); return -1; }
    return 0;
}

stories_encoder *stories_encoder_open(int fd, int kind, int width, int height, int fps, int sound, char *message, size_t size) {
    if (!stories_libav_ready(message, size)) return NULL;
    if (width < 2 || height < 2 || width > 8192 || height > 8192 || fps < 1 || fps > 240) {
        stories_say(message, size, "a %dx%d picture at %d frames a second cannot be encoded", width, height, fps);
        return NULL;
    }
    const char *muxer = kind == STORIES_ENCODE_MP4 ? "mp4" : kind == STORIES_ENCODE_WEBM ? "webm" : "gif";
    const char *codec_name = kind == STORIES_ENCODE_MP4 ? "libx264" : kind == STORIES_ENCODE_WEBM ? "libvpx-vp9" : "gif";
    stories_encoder *encoder = calloc(1, sizeof *encoder);
    if (!encoder) { stories_say(message, size, "out of memory"); return NULL; }
    encoder->fd = fd;
    encoder->kind = kind;
    encoder->width = width;
    encoder->height = height;
    const AVCodec *codec = p_avcodec_find_encoder_by_name(codec_name);
    if (!codec) {
        stories_say(message, size, "this FFmpeg has no %s encoder", codec_name);
        stories_encoder_free(encoder);
        return NULL;
    }
    int code = p_avformat_alloc_output_context2(&encoder->format, NULL, muxer, NULL);
    if (code < 0 || !encoder->format) { say_av(message, size, "the container", code); stories_encoder_free(encoder); return NULL; }
    encoder->io_buffer = p_av_malloc(65536);
    if (!encoder->io_buffer) { stories_say(message, size, "out of memory"); stories_encoder_free(encoder); return NULL; }
    encoder->format->pb = p_avio_alloc_context(encoder->io_buffer, 65536, 1, encoder, NULL, write_fd, seek_fd);
    if (!encoder->format->pb) { p_av_free(encoder->io_buffer); stories_say(message, size, "out of memory"); stories_encoder_free(encoder); return NULL; }
    encoder->stream = p_avformat_new_stream(encoder->format, NULL);
    encoder->codec = p_avcodec_alloc_context3(codec);
    encoder->frame = p_av_frame_alloc();
    encoder->packet = p_av_packet_alloc();
    if (!encoder->stream || !encoder->codec || !encoder->frame || !encoder->packet) {
        stories_say(message, size, "out of memory");
        stories_encoder_free(encoder);
        return NULL;
    }
    AVCodecContext *c = encoder->codec;
    c->width = width;
    c->height = height;
    c->time_base = (AVRational){1, fps};
    c->framerate = (AVRational){fps, 1};
    c->pix_fmt = kind == STORIES_ENCODE_GIF ? AV_PIX_FMT_PAL8 : AV_PIX_FMT_YUV420P;
    c->gop_size = kind == STORIES_ENCODE_GIF ? 0 : fps * 2;
    c->thread_count = 0;
    if (encoder->format->oformat->flags & AVFMT_GLOBALHEADER) c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary *options = NULL;
    if (kind == STORIES_ENCODE_MP4) {
        // Text stays sharp at crf 18; veryfast keeps a minute's render well under a minute.
        p_av_dict_set(&options, "preset", "veryfast", 0);
        p_av_dict_set(&options, "crf", "18", 0);
        p_av_dict_set(&options, "tune", "animation", 0);
    } else if (kind == STORIES_ENCODE_WEBM) {
        p_av_dict_set(&options, "deadline", "realtime", 0);
        p_av_dict_set(&options, "cpu-used", "8", 0);
        p_av_dict_set(&options, "row-mt", "1", 0);
        p_av_dict_set(&options, "crf", "30", 0);
        p_av_dict_set(&options, "b", "0", 0);
    }
    code = p_avcodec_open2(c, codec, &options);
    p_av_dict_free(&options);
    if (code < 0) { say_av(message, size, codec_name, code); stories_encoder_free(encoder); return NULL; }
    code = p_avcodec_parameters_from_context(encoder->stream->codecpar, c);
    if (code < 0) { say_av(message, size, "the stream", code); stories_encoder_free(encoder); return NULL; }
    encoder->stream->time_base = c->time_base;
    encoder->frame->format = c->pix_fmt;
    encoder->frame->width = width;
    encoder->frame->height = height;
    code = p_av_frame_get_buffer(encoder->frame, 0);
    if (code < 0) { say_av(message, size, "a frame", code); stories_encoder_free(encoder); return NULL; }
    if (kind != STORIES_ENCODE_GIF) {
        encoder->scale = p_sws_getCachedContext(NULL, width, height, AV_PIX_FMT_RGB24, width, height, AV_PIX_FMT_YUV420P,
                                                SWS_BICUBIC, NULL, NULL, NULL);
        if (!encoder->scale) { stories_say(message, size, "swscale cannot convert RGB to yuv420p"); stories_encoder_free(encoder); return NULL; }
    }
    if (sound && kind != STORIES_ENCODE_GIF && open_sound(encoder, message, size) != 0) {
        stories_encoder_free(encoder);
        return NULL;
    }
    AVDictionary *muxing = NULL;
    // A pipe cannot be sought back to finish the index: fragments instead. (The index is at
    // the end of a file: `faststart` would reopen the file by name, which libavformat never has.)
    if (kind == STORIES_ENCODE_MP4 && lseek(fd, 0, SEEK_CUR) < 0) {
        p_av_dict_set(&muxing, "movflags", "frag_keyframe+empty_moov", 0);
    }
    code = p_avformat_write_header(encoder->format, &muxing);
    p_av_dict_free(&muxing);
    if (code < 0) { say_av(message, size, "the file's header", code); stories_encoder_free(encoder); return NULL; }
    encoder->header_written = 1;
    return encoder;
}

/// Sends a frame (NULL: the end) to `codec` and writes every packet it has ready to `stream`.
static int send_to(stories_encoder *encoder, AVCodecContext *codec, AVStream *stream, AVFrame *frame, int64_t duration,
                   char *message, size_t size) {
    int code = p_avcodec_send_frame(codec, frame);
    if (code < 0) { say_av(message, size, "encoding", code); return code; }
    for (;;) {
        code = p_avcodec_receive_packet(codec, encoder->packet);
        if (code == AVERROR(EAGAIN) || code == AVERROR_EOF) return 0;
        if (code < 0) { say_av(message, size, "encoding", code); return code; }
        // A GIF frame lasts until the next (its delay); the encoder would say one tick. Any
        // other frame lasts at least one tick of the grid: MP4's edit list ends at the last
        // frame's end, and a frame of no duration there is left out (dropped on playing).
        if (duration > 0) encoder->packet->duration = duration;
        else if (encoder->packet->duration <= 0) encoder->packet->duration = 1;
        p_av_packet_rescale_ts(encoder->packet, codec->time_base, stream->time_base);
        encoder->packet->stream_index = stream->index;
        code = p_av_interleaved_write_frame(encoder->format, encoder->packet);
        if (code < 0) { say_av(message, size, "writing", code); return code; }
    }
}

static int send(stories_encoder *encoder, AVFrame *frame, int64_t duration, char *message, size_t size) {
    return send_to(encoder, encoder->codec, encoder->stream, frame, duration, message, size);
}

/// One encoder frame of sound from `pending` (padded with silence when `count` is short).
static int send_sound(stories_encoder *encoder, int count, char *message, size_t size) {
    int frame_size = encoder->audio_frame->nb_samples;
    if (count < frame_size) memset(encoder->pending + (size_t)count * 2, 0, (size_t)(frame_size - count) * 2 * sizeof(int16_t));
    int code = p_av_frame_make_writable(encoder->audio_frame);
    if (code < 0) { say_av(message, size, "a sound frame", code); return code; }
    const uint8_t *in[1] = { (const uint8_t *)encoder->pending };
    int converted = p_swr_convert(encoder->resample, encoder->audio_frame->data, frame_size, in, frame_size);
    if (converted < 0) { say_av(message, size, "converting the sound", converted); return converted; }
    encoder->audio_frame->pts = encoder->audio_sent;
    encoder->audio_sent += frame_size;
    return send_to(encoder, encoder->audio, encoder->audio_stream, encoder->audio_frame, 0, message, size);
}

int stories_encoder_write_sound(stories_encoder *encoder, const int16_t *pcm, int frames, char *message, size_t size) {
    if (!encoder || !encoder->audio || !pcm || frames < 0) { stories_say(message, size, "no sound track"); return -1; }
    int frame_size = encoder->audio_frame->nb_samples;
    while (frames > 0) {
        int take = frame_size - encoder->pending_frames < frames ? frame_size - encoder->pending_frames : frames;
        memcpy(encoder->pending + (size_t)encoder->pending_frames * 2, pcm, (size_t)take * 2 * sizeof(int16_t));
        encoder->pending_frames += take;
        pcm += (size_t)take * 2;
        frames -= take;
        if (encoder->pending_frames == frame_size) {
            encoder->pending_frames = 0;
            int code = send_sound(encoder, frame_size, message, size);
            if (code < 0) return code;
        }
    }
    return 0;
}

int stories_encoder_write_rgb(stories_encoder *encoder, const uint8_t *rgb, int64_t pts, char *message, size_t size) {
    if (!encoder || encoder->kind == STORIES_ENCODE_GIF || !rgb) { stories_say(message, size, "not an RGB encoder"); return -1; }
    int code = p_av_frame_make_writable(encoder->frame);
    if (code < 0) { say_av(message, size, "a frame", code); return code; }
    // swscale's SIMD readers take whole blocks: the caller's rows go through a buffer with
    // room past its end (as the decoder's output does, video.c).
    size_t row = (size_t)encoder->width * 3, need = row * (size_t)encoder->height + 64;
    if (!encoder->input) {
        encoder->input = p_av_malloc(need);
        if (!encoder->input) { stories_say(message, size, "out of memory"); return -1; }
    }
    memcpy(encoder->input, rgb, row * (size_t)encoder->height);
    const uint8_t *planes[4] = { encoder->input, NULL, NULL, NULL };
    int strides[4] = { (int)row, 0, 0, 0 };
    if (p_sws_scale(encoder->scale, planes, strides, 0, encoder->height, encoder->frame->data, encoder->frame->linesize) <= 0) {
        stories_say(message, size, "swscale could not convert a frame");
        return -1;
    }
    encoder->frame->pts = pts;
    return send(encoder, encoder->frame, 0, message, size);
}

int stories_encoder_write_indexed(stories_encoder *encoder, const uint8_t *indices, const uint32_t *palette,
                                  int64_t pts, int64_t duration, char *message, size_t size) {
    if (!encoder || encoder->kind != STORIES_ENCODE_GIF || !indices || !palette) { stories_say(message, size, "not a GIF encoder"); return -1; }
    int code = p_av_frame_make_writable(encoder->frame);
    if (code < 0) { say_av(message, size, "a frame", code); return code; }
    for (int y = 0; y < encoder->height; y++) {
        memcpy(encoder->frame->data[0] + (size_t)y * (size_t)encoder->frame->linesize[0], indices + (size_t)y * (size_t)encoder->width,
               (size_t)encoder->width);
    }
    memcpy(encoder->frame->data[1], palette, 256 * sizeof(uint32_t));
    encoder->frame->pts = pts;
    // The GIF muxer times a frame by the next one's start; the last one's delay is its
    // `final_delay` (each frame sets it: the last frame's stands).
    p_av_opt_set_int(encoder->format->priv_data, "final_delay", duration > 65535 ? 65535 : duration, 0);
    return send(encoder, encoder->frame, duration, message, size);
}

int stories_encoder_finish(stories_encoder *encoder, char *message, size_t size) {
    if (!encoder || !encoder->header_written) return -1;
    int code;
    if (encoder->audio) {
        if (encoder->pending_frames > 0) {
            code = send_sound(encoder, encoder->pending_frames, message, size);
            encoder->pending_frames = 0;
            if (code < 0) return code;
        }
        code = send_to(encoder, encoder->audio, encoder->audio_stream, NULL, 0, message, size);
        if (code < 0) return code;
    }
    code = send(encoder, NULL, 0, message, size);
    if (code < 0) return code;
    code = p_av_write_trailer(encoder->format);
    if (code < 0) { say_av(message, size, "the file's end", code); return code; }
    encoder->header_written = 0;
    return 0;
}
