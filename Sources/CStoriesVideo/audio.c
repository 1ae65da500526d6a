// A video's sound (see stories_audio.h): FFmpeg decodes, libswresample resamples to what
// the output wants (sound.c plays it). Opened at run time. Every number from the file is
// bounded before it sizes anything.
#include "stories_audio.h"
#include "libav.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The most channels and the highest rate a stream may declare (beyond them the header
/// lies, or the file is no story's).
#define MAX_CHANNELS 16
#define MAX_RATE 384000
/// The most frames one decoded packet may give after resampling (8 s at 48 kHz).
#define MAX_PENDING (48000 * 8)
/// The furthest a sound's time may be from its video's start, seconds.
#define MAX_SECONDS 86400.0

struct stories_audio {
    stories_memory memory;    // our copy of the file
    AVIOContext *io;
    AVFormatContext *format;
    AVCodecContext *codec;
    SwrContext *swr;
    AVPacket *packet;
    AVFrame *frame;
    int stream;
    int rate;
    int channels;
    double time_base;
    int64_t zero;             // the video's start, in the audio stream's time base
    int draining;
    int ended;
    int corrupt;
    int16_t *pending;         // resampled frames not yet read
    int pending_capacity;     // in frames
    int pending_count;
    int pending_start;
    double pending_pts;       // time of pending[pending_start]
};

void stories_audio_close(stories_audio *audio) {
    if (!audio) return;
    if (audio->swr) p_swr_free(&audio->swr);
    if (audio->frame) p_av_frame_free(&audio->frame);
    if (audio->packet) p_av_packet_free(&audio->packet);
    if (audio->codec) p_avcodec_free_context(&audio->codec);
    if (audio->format) p_avformat_close_input(&audio->format);
    if (audio->io) {
        p_av_freep(&audio->io->buffer);
        p_avio_context_free(&audio->io);
    }
    free(audio->pending);
    free(audio->memory.bytes);
    free(audio);
}

static int make_resampler(stories_audio *audio) {
    if (audio->swr) p_swr_free(&audio->swr);
    AVChannelLayout in, out;
    if (audio->codec->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || audio->codec->ch_layout.nb_channels <= 0) {
        p_av_channel_layout_default(&in, audio->codec->ch_layout.nb_channels > 0 ? audio->codec->ch_layout.nb_channels : 1);
    } else {
        in = audio->codec->ch_layout; // read only: swr copies it
    }
    p_av_channel_layout_default(&out, audio->channels);
    int status = p_swr_alloc_set_opts2(&audio->swr, &out, AV_SAMPLE_FMT_S16, audio->rate, &in, audio->codec->sample_fmt,
                                       audio->codec->sample_rate, 0, NULL);
    if (status < 0 || !audio->swr) return -1;
    return p_swr_init(audio->swr) < 0 ? -1 : 0;
}

int stories_audio_open(const uint8_t *data, size_t size, int rate, int channels, stories_audio **out,
                       stories_audio_info *info, char *message, size_t message_size) {
    *out = NULL;
    memset(info, 0, sizeof *info);
    info->duration = -1;
    if (!stories_libav_ready(message, message_size)) return STORIES_AUDIO_UNSUPPORTED;
    if (!data || size == 0) { stories_say(message, message_size, "the file is empty"); return STORIES_AUDIO_NONE; }
    if (rate < 8000 || rate > 192000 || channels < 1 || channels > 2) {
        stories_say(message, message_size, "the output asked for %d Hz and %d channels", rate, channels);
        return STORIES_AUDIO_UNSUPPORTED;
    }
    stories_audio *audio = calloc(1, sizeof *audio);
    if (!audio) return STORIES_AUDIO_NO_MEMORY;
    audio->rate = rate;
    audio->channels = channels;
    audio->stream = -1;
    audio->memory.bytes = malloc(size);
    if (!audio->memory.bytes) { free(audio); return STORIES_AUDIO_NO_MEMORY; }
    memcpy(audio->memory.bytes, data, size);
    audio->memory.size = size;

    const int io_size = 32768;
    uint8_t *io_buffer = p_av_malloc(io_size);
    if (!io_buffer) { stories_audio_close(audio); return STORIES_AUDIO_NO_MEMORY; }
    audio->io = p_avio_alloc_context(io_buffer, io_size, 0, &audio->memory, stories_memory_read, NULL, stories_memory_seek);
    if (!audio->io) { p_av_free(io_buffer); stories_audio_close(audio); return STORIES_AUDIO_NO_MEMORY; }
    audio->format = p_avformat_alloc_context();
    if (!audio->format) { stories_audio_close(audio); return STORIES_AUDIO_NO_MEMORY; }
    audio->format->pb = audio->io;
    audio->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    audio->format->probesize = 4 << 20;
    audio->format->max_analyze_duration = 5 * AV_TIME_BASE;
    audio->format->max_streams = 17;
    audio->format->format_whitelist = p_av_strdup("mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,mpegts,ogg,flv,gif,mp3,wav,flac");
    audio->format->protocol_whitelist = p_av_strdup("none");
    int status = p_avformat_open_input(&audio->format, NULL, NULL, NULL);
    if (status < 0) {
        audio->format = NULL;
        stories_say(message, message_size, "not a container FFmpeg can read");
        stories_audio_close(audio);
        return STORIES_AUDIO_CORRUPT;
    }
    if (p_avformat_find_stream_info(audio->format, NULL) < 0 || audio->format->nb_streams > 16) {
        stories_say(message, message_size, "the streams cannot be read");
        stories_audio_close(audio);
        return STORIES_AUDIO_CORRUPT;
    }
    const AVCodec *decoder = NULL;
    int index = p_av_find_best_stream(audio->format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0);
    if (index == AVERROR_STREAM_NOT_FOUND) {
        stories_say(message, message_size, "the file has no sound");
        stories_audio_close(audio);
        return STORIES_AUDIO_NONE;
    }
    if (index < 0 || !decoder) {
        const char *name = index >= 0 ? p_avcodec_get_name(audio->format->streams[index]->codecpar->codec_id) : "unknown";
        snprintf(info->codec, sizeof info->codec, "%s", name);
        stories_say(message, message_size, "no decoder for the %s sound", name);
        stories_audio_close(audio);
        return STORIES_AUDIO_UNSUPPORTED;
    }
    AVStream *stream = audio->format->streams[index];
    audio->stream = index;
    snprintf(info->codec, sizeof info->codec, "%s", decoder->name);
    AVCodecParameters *parameters = stream->codecpar;
    if (parameters->sample_rate <= 0 || parameters->sample_rate > MAX_RATE
        || parameters->ch_layout.nb_channels <= 0 || parameters->ch_layout.nb_channels > MAX_CHANNELS) {
        stories_say(message, message_size, "the sound says %d Hz and %d channels (at most %d Hz and %d channels are read)",
            parameters->sample_rate, parameters->ch_layout.nb_channels, MAX_RATE, MAX_CHANNELS);
        stories_audio_close(audio);
        return STORIES_AUDIO_CORRUPT;
    }
    if (stream->time_base.num <= 0 || stream->time_base.den <= 0) {
        stories_say(message, message_size, "the sound has no time base");
        stories_audio_close(audio);
        return STORIES_AUDIO_CORRUPT;
    }
    info->sample_rate = parameters->sample_rate;
    info->channels = parameters->ch_layout.nb_channels;
    audio->time_base = av_q2d(stream->time_base);
    // The video's start is the zero both streams are timed from.
    int64_t audio_start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    audio->zero = audio_start;
    int video = p_av_find_best_stream(audio->format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (video >= 0) {
        AVStream *pictures = audio->format->streams[video];
        if (pictures->start_time != AV_NOPTS_VALUE && pictures->time_base.num > 0 && pictures->time_base.den > 0) {
            double seconds = (double)pictures->start_time * av_q2d(pictures->time_base);
            if (isfinite(seconds) && fabs(seconds) < 3600) audio->zero = (int64_t)llround(seconds / audio->time_base);
        }
    }
    // In doubles: two timestamps from the file may be anywhere in int64's range.
    double offset = ((double)audio_start - (double)audio->zero) * audio->time_base;
    info->offset = isfinite(offset) && fabs(offset) < 60 ? offset : 0;
    if (stream->duration != AV_NOPTS_VALUE && stream->duration > 0) {
        double duration = (double)stream->duration * audio->time_base;
        info->duration = isfinite(duration) && duration < 86400 ? duration : -1;
    }

    audio->codec = p_avcodec_alloc_context3(decoder);
    if (!audio->codec) { stories_audio_close(audio); return STORIES_AUDIO_NO_MEMORY; }
    if (p_avcodec_parameters_to_context(audio->codec, parameters) < 0) {
        stories_say(message, message_size, "bad sound parameters");
        stories_audio_close(audio);
        return STORIES_AUDIO_CORRUPT;
    }
    audio->codec->thread_count = 1;
    audio->codec->pkt_timebase = stream->time_base;
    if (p_avcodec_open2(audio->codec, decoder, NULL) < 0) {
        stories_say(message, message_size, "cannot start the %s decoder", decoder->name);
        stories_audio_close(audio);
        return STORIES_AUDIO_UNSUPPORTED;
    }
    if (audio->codec->sample_rate <= 0 || audio->codec->sample_rate > MAX_RATE
        || audio->codec->ch_layout.nb_channels <= 0 || audio->codec->ch_layout.nb_channels > MAX_CHANNELS) {
        stories_say(message, message_size, "the decoder says %d Hz and %d channels", audio->codec->sample_rate, audio->codec->ch_layout.nb_channels);
        stories_audio_close(audio);
        return STORIES_AUDIO_CORRUPT;
    }
    if (make_resampler(audio) < 0) {
        stories_say(message, message_size, "the sound cannot be resampled to %d Hz", rate);
        stories_audio_close(audio);
        return STORIES_AUDIO_UNSUPPORTED;
    }
    audio->packet = p_av_packet_alloc();
    audio->frame = p_av_frame_alloc();
    if (!audio->packet || !audio->frame) { stories_audio_close(audio); return STORIES_AUDIO_NO_MEMORY; }
    *out = audio;
    return STORIES_AUDIO_OK;
}

/// Decodes the next frame of sound into `pending`. 1, 0 at the end, < 0 past hope.
static int decode_more(stories_audio *audio, char *message, size_t message_size) {
    int failures = 0;
    for (;;) {
        int status = p_avcodec_receive_frame(audio->codec, audio->frame);
        if (status == 0) {
            AVFrame *frame = audio->frame;
            if (frame->nb_samples <= 0 || frame->sample_rate != audio->codec->sample_rate
                || frame->ch_layout.nb_channels != audio->codec->ch_layout.nb_channels || frame->format != audio->codec->sample_fmt) {
                // A stream that changes its shape midway: skipped rather than misread.
                audio->corrupt++;
                if (++failures > 64) { stories_say(message, message_size, "the sound changes its format midway"); return -1; }
                continue;
            }
            int wanted = p_swr_get_out_samples(audio->swr, frame->nb_samples);
            if (wanted <= 0 || wanted > MAX_PENDING) { audio->corrupt++; continue; }
            if (wanted > audio->pending_capacity) {
                int16_t *bigger = realloc(audio->pending, (size_t)wanted * (size_t)audio->channels * sizeof(int16_t));
                if (!bigger) { stories_say(message, message_size, "no memory for the sound"); return -1; }
                audio->pending = bigger;
                audio->pending_capacity = wanted;
            }
            // What the resampler still holds from before comes out first: the output's
            // time is this frame's less that.
            int64_t held = p_swr_get_delay(audio->swr, audio->rate);
            uint8_t *out[1] = {(uint8_t *)audio->pending};
            int got = p_swr_convert(audio->swr, out, wanted, (const uint8_t **)frame->extended_data, frame->nb_samples);
            if (got < 0) { audio->corrupt++; continue; }
            int64_t stamp = frame->best_effort_timestamp != AV_NOPTS_VALUE ? frame->best_effort_timestamp : frame->pts;
            double seconds = stamp == AV_NOPTS_VALUE ? audio->pending_pts : ((double)stamp - (double)audio->zero) * audio->time_base;
            // A time from the file, bounded: a day either way (a story's video is minutes).
            if (!isfinite(seconds)) seconds = audio->pending_pts;
            if (seconds > MAX_SECONDS) seconds = MAX_SECONDS;
            if (seconds < -MAX_SECONDS) seconds = -MAX_SECONDS;
            if (held > 0 && held < MAX_PENDING) seconds -= (double)held / audio->rate;
            audio->pending_pts = seconds;
            audio->pending_start = 0;
            audio->pending_count = got;
            if (got == 0) continue;
            return 1;
        }
        if (status == AVERROR_EOF) { audio->ended = 1; return 0; }
        if (status != AVERROR(EAGAIN)) {
            audio->corrupt++;
            if (++failures > 64) { stories_say(message, message_size, "the sound cannot be decoded"); return -1; }
        }
        if (audio->draining) { audio->ended = 1; return 0; }
        for (;;) {
            status = p_av_read_frame(audio->format, audio->packet);
            if (status < 0) {
                audio->draining = 1;
                p_avcodec_send_packet(audio->codec, NULL);
                break;
            }
            if (audio->packet->stream_index != audio->stream) { p_av_packet_unref(audio->packet); continue; }
            status = p_avcodec_send_packet(audio->codec, audio->packet);
            p_av_packet_unref(audio->packet);
            if (status < 0 && status != AVERROR(EAGAIN)) {
                audio->corrupt++;
                if (++failures > 64) { stories_say(message, message_size, "the sound cannot be decoded"); return -1; }
                continue;
            }
            break;
        }
    }
}

int stories_audio_read(stories_audio *audio, int16_t *pcm, int max_frames, double *pts, char *message, size_t message_size) {
    if (max_frames <= 0) return 0;
    if (audio->pending_count == 0) {
        if (audio->ended) return 0;
        int status = decode_more(audio, message, message_size);
        if (status <= 0) return status;
    }
    int count = audio->pending_count < max_frames ? audio->pending_count : max_frames;
    memcpy(pcm, audio->pending + (size_t)audio->pending_start * (size_t)audio->channels,
           (size_t)count * (size_t)audio->channels * sizeof(int16_t));
    *pts = audio->pending_pts;
    audio->pending_start += count;
    audio->pending_count -= count;
    audio->pending_pts += (double)count / audio->rate;
    return count;
}

int stories_audio_seek(stories_audio *audio, double seconds) {
    if (!isfinite(seconds) || seconds < 0) seconds = 0;
    if (seconds > 86400) seconds = 86400;
    double place = (double)audio->zero + seconds / audio->time_base; // in doubles: `zero` is the file's
    if (!isfinite(place) || place > 9.0e18 || place < -9.0e18) return -1;
    int64_t target = (int64_t)place;
    int status = p_av_seek_frame(audio->format, audio->stream, target, AVSEEK_FLAG_BACKWARD);
    if (status < 0) status = p_avformat_seek_file(audio->format, audio->stream, INT64_MIN, target, target, 0);
    if (status < 0) return status;
    p_avcodec_flush_buffers(audio->codec);
    if (make_resampler(audio) < 0) return -1;
    audio->ended = 0;
    audio->draining = 0;
    audio->pending_count = 0;
    audio->pending_start = 0;
    audio->pending_pts = seconds;
    return 0;
}

int stories_audio_corrupt_packets(const stories_audio *audio) { return audio->corrupt; }

