#!/usr/bin/env bash
# Builds the libFuzzer targets: jpeg, png, blurhash (docs/fuzzing.md).
# Usage: Tests/Fuzz/build.sh [OUT_DIR]   (default .build-fuzz)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/.build-fuzz}
mkdir -p "$out"
media=$(find "$root/Sources/StoriesMedia" -name '*.swift' | sort)
for c in jpeg png encode; do
    clang -O1 -g -fsanitize=fuzzer-no-link,address -I "$root/Sources/CStoriesImage/include" \
        -c "$root/Sources/CStoriesImage/$c.c" -o "$out/$c.o"
done
mkdir -p "$out/module"
cp "$root/Sources/CStoriesImage/include/CStoriesImage.h" "$out/module/"
printf 'module CStoriesImage {\n  header "CStoriesImage.h"\n  export *\n}\n' > "$out/module/module.modulemap"
for target in jpeg png blurhash; do
    flag=FUZZ_$(echo "$target" | tr a-z A-Z)
    swiftc -parse-as-library -O -g -sanitize=fuzzer,address -D "$flag" -module-name FuzzMedia \
        -I "$out/module" $media "$root/Tests/Fuzz/FuzzTarget.swift" \
        "$out/jpeg.o" "$out/png.o" "$out/encode.o" -ljpeg -lpng16 -o "$out/fuzz-$target"
    echo "built $out/fuzz-$target"
done
# The video target is C only: our FFmpeg wrapper (instrumented) over the system's libav*.
clang -O1 -g -fsanitize=fuzzer,address -I "$root/Sources/CStoriesVideo/include" \
    "$root/Sources/CStoriesVideo/video.c" "$root/Tests/Fuzz/video_fuzz.c" \
    -lavformat -lavcodec -lswscale -lavutil -lm -o "$out/fuzz-video"
echo "built $out/fuzz-video"
