import StoriesFeedIO
import ArgumentParser
import Foundation
import StoriesCore
import StoriesMedia
import StoriesCommandLine

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
        let index: FeedFolder
        do { index = try FeedFolder(directory: directory) } catch {
            var info = stat()
            let plain = lstat(directory.appendingPathComponent("feed.json").path, &info) != 0 && stat(directory.path, &info) == 0
                && (info.st_mode & S_IFMT) == S_IFDIR
            throw fail(error.description + (plain ? " (a folder of photos has no documents yet: stories init \(feed) writes them, with BlurHashes)" : ""))
        }
        // Everything is read and written from the folder's descriptor, never by its path again.
        let root = index.root
        let documents: OpenFolder
        do { documents = try root.folder("stories") } catch {
            throw fail("\(SafeText.line(directory.appendingPathComponent("stories").path)): \(error)")
        }
        var written = 0, kept = 0, failed = 0
        for id in index.index.storyIDs {
            let path = "stories/\(id).json"
            // The document as its author wrote it: only the hashes' values change (JSONEdits).
            guard let (data, _) = try? documents.read("\(id).json", maxBytes: FeedDecoder.maxDocumentBytes),
                  let story = try? JSONValue.parse(data, file: path),
                  let items = story["items"]?.arrayValue else {
                warn("\(path): skipped (not a story document)")
                failed += 1
                continue
            }
            let text = [UInt8](data)
            // Only the spans of items[n].media are kept, by n.
            var mediaSpans: [Int: JSONEdits.ObjectSpan] = [:]
            do {
                for span in try JSONEdits.objects(in: text, where: Self.isItemMedia) {
                    if case .index(let n) = span.path[1] { mediaSpans[n] = span }
                }
            } catch {
                warn("\(path): skipped (\(error))")
                failed += 1
                continue
            }
            var edits: [(range: Range<Int>, replacement: [UInt8])] = []
            for (n, item) in items.enumerated() {
                guard ["image", "video"].contains(item["type"]?.stringValue), let media = item["media"],
                      let mediaPath = media["path"]?.stringValue,
                      let span = mediaSpans[n] else { continue }
                if media["blurhash"] != nil && !force { kept += 1; continue }
                if let problem = FeedPath.problem(with: mediaPath) {
                    warn("\(path): \(SafeText.line(mediaPath)): \(problem)")
                    failed += 1
                    continue
                }
                do {
                    // A video's hash is of its first frame (the poster it shows first); the
                    // file is opened the one safe way (no link, no FIFO, bounded).
                    let opened: SafeFile.Opened
                    do { opened = try root.open(mediaPath) } catch { throw MediaError.unreadable(error.description) }
                    let hash = try BlurHash.ofFile(opened)
                    edits.append(JSONEdits.setting("blurhash", to: hash, in: span, of: text))
                    written += 1
                } catch {
                    warn("\(SafeText.line(mediaPath)): \(error)")
                    failed += 1
                }
            }
            if !edits.isEmpty {
                let mode = documents.status(of: "\(id).json").map { $0.st_mode & 0o777 } ?? 0o644
                do { try documents.write(Data(JSONEdits.apply(edits, to: text)), to: "\(id).json", mode: mode) } catch {
                    throw fail("\(error)")
                }
            }
        }
        print("blurhash: \(written) written, \(kept) already there, \(failed) failed")
        if failed > 0 { throw ExitCode(1) }
    }
}

extension BlurHashAssets {
    /// `items[n].media` of a story document.
    static func isItemMedia(_ path: [JSONEdits.PathElement]) -> Bool {
        guard path.count == 3, path[0] == .key("items"), path[2] == .key("media"), case .index = path[1] else { return false }
        return true
    }
}

/// A line on standard error, made printable.
func warn(_ message: String) {
    FileHandle.standardError.write(Data("stories: \(SafeText.line(message))\n".utf8))
}
