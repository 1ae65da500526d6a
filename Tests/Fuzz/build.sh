#!/usr/bin/env bash
# Builds the libFuzzer targets: jpeg, png, webp, blurhash, video, StoriesCore's readers
# exif, movie, cache, jsonedits, story, recording, seen, conf, and input (the terminal's bytes
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
cp "$root/Sources/CStoriesVideo/include/stories_video.h" "$root/Sources/CStoriesVideo/include/stories_audio.h" "$out/module/"
cp "$root/Sources/CStoriesFiles/include/CStoriesFiles.h" "$out/module/"
printf 'module CStoriesImage {\n  header "CStoriesImage.h"\n  export *\n}\nmodule CStoriesVideo {\n  header "stories_video.h"\n  header "stories_audio.h"\n  export *\n}\nmodule CStoriesFiles {\n  header "CStoriesFiles.h"\n  export *\n}\n' > "$out/module/module.modulemap"
# StoriesFeedIO's C half (openat2 and friends).
clang -O1 -g -fsanitize=fuzzer-no-link,address -I "$root/Sources/CStoriesFiles/include" \
    -c "$root/Sources/CStoriesFiles/files.c" -o "$out/files.o"
# StoriesMedia's video and sound half (FFmpeg, opened with dlopen when a video is first opened).
for c in video audio sound libav; do
    clang -O1 -g -fsanitize=fuzzer-no-link,address -I "$root/Sources/CStoriesVideo/include" \
        -c "$root/Sources/CStoriesVideo/$c.c" -o "$out/$c.o"
done
# StoriesMedia imports StoriesCore (safe text, layout): built first as a module of its own.
# Inline 8-bit counters here and below: this libFuzzer refuses the trace-pc-guard that
# swiftc otherwise instruments with.
coverage="-sanitize=fuzzer,address -sanitize-coverage=edge,inline-8bit-counters,pc-table"
# StoriesCore stands on StoriesCells (colours, styles, cell symbols), and StoriesMedia on
# StoriesFeedIO (safe files, folder metadata): each built as a module of its own, in order.
for module in StoriesCells StoriesCore StoriesFeedIO; do
    swiftc -parse-as-library -O -g $coverage -wmo -module-name "$module" -I "$out/module" \
        -emit-module -emit-module-path "$out/module/$module.swiftmodule" -c -o "$out/$module.o" \
        $(find "$root/Sources/$module" -name '*.swift' | sort)
done
base="$out/StoriesCells.o $out/StoriesCore.o $out/StoriesFeedIO.o $out/files.o"
for target in jpeg png webp blurhash; do
    flag=FUZZ_$(echo "$target" | tr a-z A-Z)
    swiftc -parse-as-library -O -g $coverage -D "$flag" -module-name FuzzMedia \
        -I "$out/module" $media "$root/Tests/Fuzz/FuzzTarget.swift" \
        $base "$out/video.o" "$out/audio.o" "$out/sound.o" "$out/libav.o" "$out/jpeg.o" "$out/png.o" "$out/webp.o" "$out/encode.o" -ljpeg -lpng16 -lwebp -ldl -o "$out/fuzz-$target"
    echo "built $out/fuzz-$target"
done
# The readers of outside bytes: the entry point compiled into one module with the sources of
# the module it reads with (so it reaches their internals) — StoriesCore's for documents,
# recordings, seen state and config; StoriesFeedIO's (over StoriesCore's module) for what a
# photo folder reads.
for target in exif movie cache jsonedits story recording seen conf; do
    flag=FUZZ_$(echo "$target" | tr a-z A-Z)
    case $target in
        exif|movie|cache) sources=$(find "$root/Sources/StoriesFeedIO" -name '*.swift' | sort)
                          objects="$out/StoriesCells.o $out/StoriesCore.o $out/files.o" ;;
        *) sources=$(find "$root/Sources/StoriesCore" -name '*.swift' | sort)
           objects="$out/StoriesCells.o" ;;
    esac
    swiftc -parse-as-library -O -g $coverage -D "$flag" -module-name FuzzCore -I "$out/module" \
        $sources "$root/Tests/Fuzz/FuzzCore.swift" $objects -o "$out/fuzz-$target"
    echo "built $out/fuzz-$target"
done
# The terminal's input through the real engine: StoriesMedia, StoriesUI and StoriesApp as
# modules over StoriesCore's, then StoriesTerminal's decoder (it needs no ncurses) and the
# entry point.
swiftc -parse-as-library -O -g $coverage -wmo -module-name StoriesMedia -I "$out/module" \
    -emit-module -emit-module-path "$out/module/StoriesMedia.swiftmodule" -c -o "$out/StoriesMedia.o" $media
for module in StoriesUI StoriesApp; do
    swiftc -parse-as-library -O -g $coverage -wmo -module-name "$module" -I "$out/module" -I "$root/Sources/CFriBiDi" \
        -emit-module -emit-module-path "$out/module/$module.swiftmodule" -c -o "$out/$module.o" \
        $(find "$root/Sources/$module" -name '*.swift' | sort)
done
swiftc -parse-as-library -O -g $coverage -module-name FuzzInput -I "$out/module" -I "$root/Sources/CFriBiDi" \
    "$root/Sources/StoriesTerminal/InputDecoder.swift" "$root/Sources/StoriesTerminal/InputDecoder+Keys.swift" "$root/Tests/Fuzz/FuzzInput.swift" \
    $base "$out/StoriesMedia.o" "$out/StoriesUI.o" "$out/StoriesApp.o" \
    "$out/video.o" "$out/audio.o" "$out/sound.o" "$out/libav.o" "$out/jpeg.o" "$out/png.o" "$out/webp.o" "$out/encode.o" -ljpeg -lpng16 -lwebp -lfribidi -ldl -o "$out/fuzz-input"
echo "built $out/fuzz-input"
# The video target is C only: our FFmpeg wrapper (instrumented) over the system's libav*.
clang -O1 -g -fsanitize=fuzzer,address -I "$root/Sources/CStoriesVideo/include" \
    "$root/Sources/CStoriesVideo/video.c" "$root/Sources/CStoriesVideo/libav.c" "$root/Tests/Fuzz/video_fuzz.c" \
    -lavformat -lavcodec -lswscale -lavutil -lm -o "$out/fuzz-video"
echo "built $out/fuzz-video"
