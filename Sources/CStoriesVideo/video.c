// FFmpeg behind a small C surface (see stories_video.h). Everything from the file is
// bounded before it is used: the headers are read with small probe limits, then the
// declared size, stream count, frame rate and duration are checked before a decoder or a
// frame buffer exists.
#include "stories_video.h"
#include "libav.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct stories_video {
    stories_memory memory;    // our copy of the file, as libavformat reads it
    AVIOContext *io;
    AVFormatContext *format;
    AVCodecContext *codec;
    int stream;
    AVPacket *packet;
    AVFrame *frame;
    int has_frame;
    int draining;
    int ended;
    int corrupt;
    struct SwsContext *sws;
    // What swscale writes into: rows padded to 64 bytes and a spare row after them. Its
    // SIMD converters write whole blocks of pixels, past the end of a row that is not a
    // multiple of them — past the end of a caller's buffer on its last row (a heap
    // corruption found by `stories render`'s tests, decoding a 600-pixel-wide frame).
    uint8_t *scratch;
    size_t scratch_size;
    double time_base;
    int64_t start_pts;
};

static void say_av(char *message, size_t size, const char *what, int error) {
    char text[128];
    p_av_strerror(error, text, sizeof text);
    stories_say(message, size, "%s: %s", what, text);
}

void stories_video_close(stories_video *video) {
    if (!video) return;
    p_sws_freeContext(video->sws);
    p_av_free(video->scratch);
    p_av_frame_free(&video->frame);
    p_av_packet_free(&video->packet);
    p_avcodec_free_context(&video->codec);
    if (video->format) p_avformat_close_input(&video->format);
    if (video->io) {
        p_av_freep(&video->io->buffer);
        p_avio_context_free(&video->io);
    }
    free(video->memory.bytes);
    free(video);
}

static int rotation_of(AVStream *stream) {
    const uint8_t *matrix = p_av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (!matrix) return 0;
    double degrees = p_av_display_rotation_get((const int32_t *)matrix);
    if (isnan(degrees)) return 0;
    // av_display_rotation_get is counter-clockwise; the picture turns clockwise by its negation.
    int clockwise = (int)lround(-degrees) % 360;
    if (clockwise < 0) clockwise += 360;
    clockwise = (clockwise + 45) / 90 * 90 % 360;
    return clockwise;
}

int stories_video_open(const uint8_t *data, size_t size, const stories_video_limits *limits,
                       stories_video **out, stories_video_info *info, char *message, size_t message_size) {
    *out = NULL;
    memset(info, 0, sizeof *info);
    info->duration = -1;
    if (!stories_libav_ready(message, message_size)) return STORIES_VIDEO_UNSUPPORTED;
    if (!data || size == 0) { stories_say(message, message_size, "the file is empty"); return STORIES_VIDEO_NOT_VIDEO; }

    stories_video *video = calloc(1, sizeof *video);
    if (!video) return STORIES_VIDEO_NO_MEMORY;
    video->memory.bytes = malloc(size);
    if (!video->memory.bytes) { free(video); stories_say(message, message_size, "no memory for %zu bytes", size); return STORIES_VIDEO_NO_MEMORY; }
    memcpy(video->memory.bytes, data, size);
    video->memory.size = size;
    video->stream = -1;

    const int io_size = 32768;
    uint8_t *io_buffer = p_av_malloc(io_size);
    if (!io_buffer) { stories_video_close(video); return STORIES_VIDEO_NO_MEMORY; }
    video->io = p_avio_alloc_context(io_buffer, io_size, 0, &video->memory, stories_memory_read, NULL, stories_memory_seek);
    if (!video->io) { p_av_free(io_buffer); stories_video_close(video); return STORIES_VIDEO_NO_MEMORY; }

    video->format = p_avformat_alloc_context();
    if (!video->format) { stories_video_close(video); return STORIES_VIDEO_NO_MEMORY; }
    video->format->pb = video->io;
    video->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    // Bounded probing: how much is read and analysed to find the streams.
    video->format->probesize = 4 << 20;
    video->format->max_analyze_duration = 5 * AV_TIME_BASE;
    // One more than the app allows, so that a file with too many streams opens far enough
    // to be counted and named by the check below (FFmpeg's own refusal only says "cannot
    // read"); past that, its refusal is recognised (stories_stream_limit_hit) and said the same way.
    int allowed = limits->max_streams > 0 ? limits->max_streams : 16;
    if (allowed > 10000) allowed = 10000; // so that one more is still a number
    video->format->max_streams = allowed + 1;
    // Only containers a story video comes in: no playlists, no concat lists, no demuxer
    // that opens other files or URLs.
    video->format->format_whitelist = p_av_strdup("mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,mpegts,ogg,flv,gif");
    video->format->protocol_whitelist = p_av_strdup("none");

    stories_stream_limit_hit = 0;
    int status = p_avformat_open_input(&video->format, NULL, NULL, NULL);
    if (status < 0 || stories_stream_limit_hit) {
        // avformat_open_input frees the context on failure.
        if (status < 0) video->format = NULL;
        if (stories_stream_limit_hit) {
            stories_say(message, message_size, "the file has more than %d streams; at most %d are allowed", allowed + 1, allowed);
            stories_video_close(video);
            return STORIES_VIDEO_LIMIT;
        }
        stories_say(message, message_size, "neither a photo (JPEG, PNG, WebP) nor a video FFmpeg can read");
        stories_video_close(video);
        return STORIES_VIDEO_NOT_VIDEO;
    }
    snprintf(info->container, sizeof info->container, "%s", video->format->iformat ? video->format->iformat->name : "?");
    status = p_avformat_find_stream_info(video->format, NULL);
    if (stories_stream_limit_hit) {
        stories_say(message, message_size, "the file has more than %d streams; at most %d are allowed", allowed + 1, allowed);
        stories_video_close(video);
        return STORIES_VIDEO_LIMIT;
    }
    if (status < 0) {
        say_av(message, message_size, "cannot read the streams", status);
        stories_video_close(video);
        return STORIES_VIDEO_CORRUPT;
    }
    info->streams = (int)video->format->nb_streams;
    if ((int)video->format->nb_streams > allowed) {
        stories_say(message, message_size, "the file has %u streams; at most %d are allowed", video->format->nb_streams, allowed);
        stories_video_close(video);
        return STORIES_VIDEO_LIMIT;
    }
    for (unsigned i = 0; i < video->format->nb_streams; i++) {
        if (video->format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) info->has_audio = 1;
    }
    const AVCodec *decoder = NULL;
    int index = p_av_find_best_stream(video->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (index == AVERROR_STREAM_NOT_FOUND) {
        stories_say(message, message_size, info->has_audio ? "the file has sound but no picture" : "the file has no video stream");
        stories_video_close(video);
        return STORIES_VIDEO_NO_STREAM;
    }
    if (index < 0 || !decoder) {
        AVStream *stream = index >= 0 ? video->format->streams[index] : NULL;
        const char *name = stream ? p_avcodec_get_name(stream->codecpar->codec_id) : "unknown";
        if (!stream) {
            for (unsigned i = 0; i < video->format->nb_streams; i++) {
                if (video->format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) {
                    name = p_avcodec_get_name(video->format->streams[i]->codecpar->codec_id);
                    break;
                }
            }
        }
        snprintf(info->codec, sizeof info->codec, "%s", name);
        stories_say(message, message_size, "no decoder for the %s codec", name);
        stories_video_close(video);
        return STORIES_VIDEO_UNSUPPORTED;
    }
    AVStream *stream = video->format->streams[index];
    video->stream = index;
    snprintf(info->codec, sizeof info->codec, "%s", decoder->name);
    info->width = stream->codecpar->width;
    info->height = stream->codecpar->height;
    info->rotation = rotation_of(stream);
    AVRational rate = stream->avg_frame_rate.num > 0 && stream->avg_frame_rate.den > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    info->fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    if (stream->duration != AV_NOPTS_VALUE && stream->duration > 0 && stream->time_base.num > 0 && stream->time_base.den > 0) {
        info->duration = (double)stream->duration * av_q2d(stream->time_base);
    } else if (video->format->duration != AV_NOPTS_VALUE && video->format->duration > 0) {
        info->duration = (double)video->format->duration / AV_TIME_BASE;
    }
    if (info->width <= 0 || info->height <= 0) {
        stories_say(message, message_size, "the video stream has no picture size");
        stories_video_close(video);
        return STORIES_VIDEO_CORRUPT;
    }
    if ((long long)info->width * info->height > limits->max_pixels) {
        stories_say(message, message_size, "the video is %d×%d, more than the %lld megapixels a video may be",
            info->width, info->height, limits->max_pixels / 1000000);
        stories_video_close(video);
        return STORIES_VIDEO_TOO_LARGE;
    }
    // A declared frame rate or length beyond belief is a header that lies, not a reason to
    // refuse the file: the timestamps pace the frames and the stream's end ends the item.
    if (!(info->fps > 0) || info->fps > limits->max_fps) {
        AVRational raw = stream->r_frame_rate;
        double fallback = raw.num > 0 && raw.den > 0 ? av_q2d(raw) : 0;
        info->fps = fallback > 0 && fallback <= limits->max_fps ? fallback : 0;
    }
    if (!isfinite(info->duration) || info->duration > limits->max_duration) info->duration = -1;

    video->codec = p_avcodec_alloc_context3(decoder);
    if (!video->codec) { stories_video_close(video); return STORIES_VIDEO_NO_MEMORY; }
    status = p_avcodec_parameters_to_context(video->codec, stream->codecpar);
    if (status < 0) { say_av(message, message_size, "bad codec parameters", status); stories_video_close(video); return STORIES_VIDEO_CORRUPT; }
    video->codec->max_pixels = limits->max_pixels;
    video->codec->thread_count = 1; // one decoder per player; the app runs several jobs at once
    video->codec->pkt_timebase = stream->time_base;
    // A GIF's transparent pixels (and the area a frame disposed "to the background" leaves
    // where the frame had a transparent colour) as black, the viewer's own background, not
    // FFmpeg's default of white: what a browser shows over a black page.
    if (stream->codecpar->codec_id == AV_CODEC_ID_GIF) p_av_opt_set_int(video->codec, "trans_color", 0, AV_OPT_SEARCH_CHILDREN);
    status = p_avcodec_open2(video->codec, decoder, NULL);
    if (status < 0) { say_av(message, message_size, "cannot start the decoder", status); stories_video_close(video); return STORIES_VIDEO_UNSUPPORTED; }
    video->packet = p_av_packet_alloc();
    video->frame = p_av_frame_alloc();
    if (!video->packet || !video->frame) { stories_video_close(video); return STORIES_VIDEO_NO_MEMORY; }
    video->time_base = av_q2d(stream->time_base);
    video->start_pts = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    *out = video;
    return STORIES_VIDEO_OK;
}

int stories_video_next(stories_video *video, double *pts, char *message, size_t message_size) {
    if (video->ended) return 0;
    // At most this many packets that fail in a row before giving up on the stream.
    int failures = 0;
    for (;;) {
        int status = p_avcodec_receive_frame(video->codec, video->frame);
        if (status == 0) {
            video->has_frame = 1;
            int64_t stamp = video->frame->best_effort_timestamp;
            if (stamp == AV_NOPTS_VALUE) stamp = video->frame->pts;
            double seconds = stamp == AV_NOPTS_VALUE ? 0 : (double)(stamp - video->start_pts) * video->time_base;
            *pts = isfinite(seconds) && seconds > 0 ? seconds : 0;
            if (video->frame->decode_error_flags || (video->frame->flags & AV_FRAME_FLAG_CORRUPT)) video->corrupt++;
            return 1;
        }
        if (status == AVERROR_EOF) { video->ended = 1; return 0; }
        if (status != AVERROR(EAGAIN)) {
            video->corrupt++;
            if (++failures > 64) { say_av(message, message_size, "decoding failed", status); return -1; }
        }
        if (video->draining) { video->ended = 1; return 0; }
        // Feed the decoder the next packet of our stream.
        for (;;) {
            status = p_av_read_frame(video->format, video->packet);
            if (status < 0) {
                video->draining = 1;
                p_avcodec_send_packet(video->codec, NULL);
                break;
            }
            if (video->packet->stream_index != video->stream) { p_av_packet_unref(video->packet); continue; }
            status = p_avcodec_send_packet(video->codec, video->packet);
            p_av_packet_unref(video->packet);
            if (status < 0 && status != AVERROR(EAGAIN)) {
                video->corrupt++;
                if (++failures > 64) { say_av(message, message_size, "decoding failed", status); return -1; }
                continue; // skip the bad packet
            }
            break;
        }
    }
}

int stories_video_scale(stories_video *video, uint8_t *rgb, int out_w, int out_h, int x, int y, int w, int h) {
    if (!video->has_frame || out_w <= 0 || out_h <= 0) return -1;
    AVFrame *frame = video->frame;
    const AVPixFmtDescriptor *desc = p_av_pix_fmt_desc_get(frame->format);
    if (!desc || frame->width <= 0 || frame->height <= 0) return -1;
    // Clamp the rectangle to the frame and align it to the chroma grid.
    if (x < 0) x = 0;
    if (y < 0) y = 0;
    if (x >= frame->width || y >= frame->height) return -1;
    if (w <= 0 || w > frame->width - x) w = frame->width - x;
    if (h <= 0 || h > frame->height - y) h = frame->height - y;
    int ax = (1 << desc->log2_chroma_w) - 1, ay = (1 << desc->log2_chroma_h) - 1;
    x &= ~ax;
    y &= ~ay;
    if ((desc->flags & AV_PIX_FMT_FLAG_HWACCEL) || (desc->flags & AV_PIX_FMT_FLAG_BITSTREAM)) return -1;

    video->sws = p_sws_getCachedContext(video->sws, w, h, frame->format, out_w, out_h, AV_PIX_FMT_RGB24,
                                      SWS_AREA, NULL, NULL, NULL);
    if (!video->sws) return -2;
    int full_range = frame->color_range == AVCOL_RANGE_JPEG
        || frame->format == AV_PIX_FMT_YUVJ420P || frame->format == AV_PIX_FMT_YUVJ422P || frame->format == AV_PIX_FMT_YUVJ444P;
    int space = frame->colorspace == AVCOL_SPC_BT709 ? SWS_CS_ITU709
        : frame->colorspace == AVCOL_SPC_BT2020_NCL || frame->colorspace == AVCOL_SPC_BT2020_CL ? SWS_CS_BT2020
        : SWS_CS_ITU601;
    const int *coefficients = p_sws_getCoefficients(space);
    p_sws_setColorspaceDetails(video->sws, coefficients, full_range, p_sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);

    const uint8_t *planes[4] = {0};
    int strides[4] = {0};
    for (int p = 0; p < 4 && frame->data[p]; p++) {
        int is_chroma = (p == 1 || p == 2) && !(desc->flags & AV_PIX_FMT_FLAG_RGB);
        int px = is_chroma ? x >> desc->log2_chroma_w : x;
        int py = is_chroma ? y >> desc->log2_chroma_h : y;
        int step = desc->comp[0].step > 0 ? desc->comp[0].step : 1;
        // Packed formats step over whole pixels; planar ones have one component a plane.
        int bytes_per_pixel = (desc->flags & AV_PIX_FMT_FLAG_PLANAR) ? (desc->comp[0].depth > 8 ? 2 : 1) : step;
        planes[p] = frame->data[p] + (ptrdiff_t)py * frame->linesize[p] + (ptrdiff_t)px * bytes_per_pixel;
        strides[p] = frame->linesize[p];
    }
    size_t row = (size_t)out_w * 3, stride = (row + 63) & ~(size_t)63;
    size_t need = stride * ((size_t)out_h + 1) + 64;
    if (video->scratch_size < need) {
        p_av_free(video->scratch);
        video->scratch = p_av_malloc(need);
        video->scratch_size = video->scratch ? need : 0;
        if (!video->scratch) return -2;
    }
    uint8_t *dst[4] = {video->scratch, NULL, NULL, NULL};
    int dst_stride[4] = {(int)stride, 0, 0, 0};
    int rows = p_sws_scale(video->sws, planes, strides, 0, h, dst, dst_stride);
    if (rows <= 0) return -3;
    for (int r = 0; r < out_h; r++) memcpy(rgb + (size_t)r * row, video->scratch + (size_t)r * stride, row);
    return 0;
}

int stories_video_rewind(stories_video *video) {
    int status = p_av_seek_frame(video->format, video->stream, video->start_pts, AVSEEK_FLAG_BACKWARD);
    if (status < 0) status = p_avformat_seek_file(video->format, video->stream, INT64_MIN, video->start_pts, video->start_pts, 0);
    if (status < 0) return status;
    p_avcodec_flush_buffers(video->codec);
    video->ended = 0;
    video->draining = 0;
    video->has_frame = 0;
    return 0;
}

int stories_video_corrupt_frames(const stories_video *video) { return video->corrupt; }

double stories_video_frame_duration(const stories_video *video) {
    if (!video->has_frame || !video->frame) return 0;
#if LIBAVUTIL_VERSION_MAJOR > 57 || (LIBAVUTIL_VERSION_MAJOR == 57 && LIBAVUTIL_VERSION_MINOR >= 30)
    int64_t ticks = video->frame->duration;
#else
    int64_t ticks = video->frame->pkt_duration;
#endif
    // From the file: bounded before use (a tick count past an hour is no frame's length).
    if (ticks <= 0 || ticks > (int64_t)1 << 40) return 0;
    double seconds = (double)ticks * video->time_base;
    return isfinite(seconds) && seconds > 0 && seconds <= 3600 ? seconds : 0;
}

