#!/usr/bin/env bash
# Builds the libFuzzer targets: jpeg, png, webp, blurhash, video, StoriesCore's readers
# exif, movie, cache, jsonedits, story, recording, conf, and input (the terminal's bytes
# through the engine) (docs/fuzzing.md).
# Usage: Tests/Fuzz/build.sh [OUT_DIR]   (default .build-fuzz)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/.build-fuzz}
mkdir -p "$out"
media=$(find "$root/Sources/StoriesMedia" -name '*.swift' | sort)
for c in jpeg png webp encode; do
    clang -O1 -g -fsanitize=fuzzer-no-link,address -I "$root/Sources/CStoriesImage/include" \
        -c "$root/Sources/CStoriesImage/$c.c" -o "$out/$c.o"
done
mkdir -p "$out/module"
cp "$root/Sources/CStoriesImage/include/CStoriesImage.h" "$out/module/"
cp "$root/Sources/CStoriesVideo/include/stories_video.h" "$out/module/"
printf 'module CStoriesImage {\n  header "CStoriesImage.h"\n  export *\n}\nmodule CStoriesVideo {\n  header "stories_video.h"\n  export *\n}\n' > "$out/module/module.modulemap"
# StoriesMedia's video half (FFmpeg, opened with dlopen when a video is first opened).
clang -O1 -g -fsanitize=fuzzer-no-link,address -I "$root/Sources/CStoriesVideo/include" \
    -c "$root/Sources/CStoriesVideo/video.c" -o "$out/video.o"
# StoriesMedia imports StoriesCore (safe text, layout): built first as a module of its own.
# Inline 8-bit counters here and below: this libFuzzer refuses the trace-pc-guard that
# swiftc otherwise instruments with.
coverage="-sanitize=fuzzer,address -sanitize-coverage=edge,inline-8bit-counters,pc-table"
swiftc -parse-as-library -O -g $coverage -wmo -module-name StoriesCore \
    -emit-module -emit-module-path "$out/module/StoriesCore.swiftmodule" -c -o "$out/StoriesCore.o" \
    $(find "$root/Sources/StoriesCore" -name '*.swift' | sort)
for target in jpeg png webp blurhash; do
    flag=FUZZ_$(echo "$target" | tr a-z A-Z)
    swiftc -parse-as-library -O -g $coverage -D "$flag" -module-name FuzzMedia \
        -I "$out/module" $media "$root/Tests/Fuzz/FuzzTarget.swift" \
        "$out/StoriesCore.o" "$out/video.o" "$out/jpeg.o" "$out/png.o" "$out/webp.o" "$out/encode.o" -ljpeg -lpng16 -lwebp -ldl -o "$out/fuzz-$target"
    echo "built $out/fuzz-$target"
done
# StoriesCore's readers: its sources and the entry point as one module.
for target in exif movie cache jsonedits story recording conf; do
    flag=FUZZ_$(echo "$target" | tr a-z A-Z)
    swiftc -parse-as-library -O -g $coverage -D "$flag" -module-name FuzzCore \
        $(find "$root/Sources/StoriesCore" -name '*.swift' | sort) "$root/Tests/Fuzz/FuzzCore.swift" -o "$out/fuzz-$target"
    echo "built $out/fuzz-$target"
done
# The terminal's input through the real engine: StoriesMedia, StoriesUI and StoriesApp as
# modules over StoriesCore's, then StoriesTerminal's decoder (it needs no ncurses) and the
# entry point.
swiftc -parse-as-library -O -g $coverage -wmo -module-name StoriesMedia -I "$out/module" \
    -emit-module -emit-module-path "$out/module/StoriesMedia.swiftmodule" -c -o "$out/StoriesMedia.o" $media
for module in StoriesUI StoriesApp; do
    swiftc -parse-as-library -O -g $coverage -wmo -module-name "$module" -I "$out/module" \
        -emit-module -emit-module-path "$out/module/$module.swiftmodule" -c -o "$out/$module.o" \
        $(find "$root/Sources/$module" -name '*.swift' | sort)
done
swiftc -parse-as-library -O -g $coverage -module-name FuzzInput -I "$out/module" \
    "$root/Sources/StoriesTerminal/InputDecoder.swift" "$root/Tests/Fuzz/FuzzInput.swift" \
    "$out/StoriesCore.o" "$out/StoriesMedia.o" "$out/StoriesUI.o" "$out/StoriesApp.o" \
    "$out/video.o" "$out/jpeg.o" "$out/png.o" "$out/webp.o" "$out/encode.o" -ljpeg -lpng16 -lwebp -ldl -o "$out/fuzz-input"
echo "built $out/fuzz-input"
# The video target is C only: our FFmpeg wrapper (instrumented) over the system's libav*.
clang -O1 -g -fsanitize=fuzzer,address -I "$root/Sources/CStoriesVideo/include" \
    "$root/Sources/CStoriesVideo/video.c" "$root/Tests/Fuzz/video_fuzz.c" \
    -lavformat -lavcodec -lswscale -lavutil -lm -o "$out/fuzz-video"
echo "built $out/fuzz-video"
