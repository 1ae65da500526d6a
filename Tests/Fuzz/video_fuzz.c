// libFuzzer target: a video opened from bytes, its first frames decoded and scaled, as the
// app does for a poster and a player (docs/fuzzing.md). Small limits, like the app's.
#include "stories_video.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    stories_video_limits limits = { .max_pixels = 4000000, .max_streams = 16, .max_fps = 240, .max_duration = 600 };
    stories_video *video = NULL;
    stories_video_info info;
    char message[256];
    if (stories_video_open(data, size, &limits, &video, &info, message, sizeof message) != STORIES_VIDEO_OK) return 0;
    static uint8_t rgb[48 * 24 * 3];
    double pts;
    for (int frame = 0; frame < 8; frame++) {
        if (stories_video_next(video, &pts, message, sizeof message) != 1) break;
        stories_video_scale(video, rgb, 48, 24, 0, 0, 0, 0);
        stories_video_scale(video, rgb, 24, 48, info.width / 4, info.height / 4, info.width / 2, info.height / 2);
    }
    stories_video_close(video);
    return 0;
}
