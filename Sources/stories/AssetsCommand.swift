import ArgumentParser
import Foundation
import StoriesCore
import StoriesMedia

/// `stories assets …`: tools for feed folders.
struct AssetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assets",
        abstract: "Tools for feed folders.",
        subcommands: [BlurHashAssets.self]
    )
}

/// `stories assets blurhash DIR`: computes a BlurHash for every image and video item with
/// a local file (a video's first frame) and writes it into the item's `media.blurhash`.
struct BlurHashAssets: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blurhash",
        abstract: "Fill media.blurhash into a feed's image and video items."
    )

    @Argument(help: "The feed folder (holding feed.json and stories/).")
    var feed: String

    @Flag(help: "Recompute hashes that are already there.")
    var force = false

    mutating func run() throws {
        let directory = URL(fileURLWithPath: feed)
        let index: DirectoryFeed
        do { index = try DirectoryFeed(directory: directory) } catch { throw fail(error.description) }
        var written = 0, kept = 0, failed = 0
        for id in index.index.storyIDs {
            let url = directory.appendingPathComponent("stories/\(id).json")
            guard let data = try? Data(contentsOf: url),
                  var story = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  var items = story["items"] as? [[String: Any]] else {
                FileHandle.standardError.write(Data("stories: \(url.path): skipped (not a story document)\n".utf8))
                failed += 1
                continue
            }
            var changed = false
            for (n, item) in items.enumerated() {
                guard ["image", "video"].contains(item["type"] as? String), var media = item["media"] as? [String: Any],
                      let path = media["path"] as? String else { continue }
                if media["blurhash"] != nil && !force { kept += 1; continue }
                do {
                    // 96 pixels across: the reference sampling leaks ~2/width of the colour
                    // into the first components, so much smaller inputs tint the blur.
                    // A video's hash is of its first frame (the poster it shows first).
                    let bytes = try ImageDecoder.readFile(at: directory.appendingPathComponent(path))
                    let image = try StillDecoder.decode(bytes, minimumSize: (96, 96))
                    let small = ImageScaler.scale(image, width: 96, height: max(1, 96 * image.height / max(1, image.width)), fit: .fill)
                    let portrait = image.height >= image.width
                    media["blurhash"] = BlurHash.encode(small, componentsX: portrait ? 3 : 4, componentsY: portrait ? 4 : 3)
                    var updated = item
                    updated["media"] = media
                    items[n] = updated
                    changed = true
                    written += 1
                } catch {
                    FileHandle.standardError.write(Data("stories: \(path): \(error)\n".utf8))
                    failed += 1
                }
            }
            if changed {
                story["items"] = items
                let out = try JSONSerialization.data(withJSONObject: story, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
                try (out + Data("\n".utf8)).write(to: url, options: .atomic)
            }
        }
        print("blurhash: \(written) written, \(kept) already there, \(failed) failed")
        if failed > 0 { throw ExitCode(1) }
    }
}
