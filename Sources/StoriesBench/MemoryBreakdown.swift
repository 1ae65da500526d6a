import CStoriesSupport
import Foundation

/// Where this process's resident memory is (issue 48, point 3), measured from
/// `/proc/self/smaps` and malloc's own count, not guessed: the program's code, the Swift
/// runtime and Foundation, FFmpeg's and the other C libraries, thread stacks, and the heap
/// — split by malloc into what is in use and what it holds free.
enum MemoryBreakdown {
    struct Part {
        var name: String
        var megabytes: Double
    }

    static func now() -> [Part] {
        // Read to its end (a /proc file says its size is 0: one read would stop at a page).
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps"),
              let data = try? handle.readToEnd() else { return [] }
        try? handle.close()
        let smaps = String(decoding: data, as: UTF8.self)
        var byGroup: [String: Int] = [:] // kB resident
        let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var group = "other"
        var size = 0
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), first.first?.isHexDigit == true {
                // A mapping's header: its range, and its path when it has one.
                let path = fields.count >= 6 ? String(fields[5...].joined(separator: " ")) : ""
                group = Self.group(of: path, program: program)
                let bounds = first.split(separator: "-").compactMap { UInt64($0, radix: 16) }
                size = bounds.count == 2 ? Int((bounds[1] &- bounds[0]) / 1024) : 0
                // A thread's stack: an anonymous mapping of the stack size glibc gives threads.
                if path.isEmpty, size == 8192 || size == 8188 { group = "thread stacks" }
            } else if line.hasPrefix("Rss:"), fields.count >= 2, let kilobytes = Int(fields[1]) {
                byGroup[group, default: 0] += kilobytes
            }
        }
        var parts = byGroup.map { Part(name: $0.key, megabytes: Double($0.value) / 1024) }
        // The heap as malloc sees it: in use, and held free in its arenas.
        var inUse: UInt64 = 0, heldFree: UInt64 = 0
        stories_malloc_counts(&inUse, &heldFree)
        parts.append(Part(name: "of the heap: malloc in use", megabytes: Double(inUse) / 1_048_576))
        parts.append(Part(name: "of the heap: malloc held free", megabytes: Double(heldFree) / 1_048_576))
        return parts.sorted { $0.megabytes > $1.megabytes }
    }

    static func group(of path: String, program: String) -> String {
        if path.isEmpty || path.hasPrefix("[anon") { return "heap and anonymous" }
        if path == "[heap]" { return "heap and anonymous" }
        if path == "[stack]" { return "main stack" }
        if path.hasPrefix("[") { return "kernel (vdso, vvar)" }
        let name = URL(fileURLWithPath: path).lastPathComponent
        if path == program { return "the program" }
        if name.hasPrefix("libswift") || name.hasPrefix("libFoundation") || name.hasPrefix("lib_FoundationICU")
            || name.hasPrefix("libdispatch") || name.hasPrefix("libBlocksRuntime") || name.hasPrefix("libswift_") {
            return "Swift runtime and Foundation"
        }
        if name.hasPrefix("libc.") || name.hasPrefix("libm.") || name.hasPrefix("ld-linux") || name.hasPrefix("libstdc++") || name.hasPrefix("libgcc") {
            return "libc, libm, libstdc++"
        }
        // The C libraries stories itself links (and PulseAudio's, opened for sound).
        if ["libncursesw", "libtinfo", "libjpeg", "libpng", "libwebp", "libsharpyuv", "libz.", "libfribidi", "libpulse", "libsqlite"]
            .contains(where: name.hasPrefix) {
            return "the program's own C libraries"
        }
        // Everything else is loaded with FFmpeg (opened when the first video plays): Debian's
        // libavcodec and libavformat link some 125 libraries (codecs, TLS, SVG, fonts …),
        // each with pages its relocations touched.
        return "FFmpeg and the libraries it loads"
    }
}
