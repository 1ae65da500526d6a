import StoriesFeedIO
import StoriesCells
import ArgumentParser
import Foundation
import StoriesAssets
import StoriesApp
import StoriesCore
import StoriesHTTP
import StoriesTerminal
import StoriesCommandLine

/// Where the viewer's stories come from, its token, and the files it reads and writes.
extension ViewFlags {
    /// The source a setup names.
    /// `origin` names where the feed was given when it was not a flag ("--replay r.jsonl:
    /// setup.feed"), so a line about it says which file to look at.
    func source(for setup: SessionSetup, origin: String?) throws -> (source: any FeedSource, seenKey: String, onQuit: (@Sendable () -> Void)?) {
        let prefix = origin.map { $0 + ": " } ?? ""
        switch setup.feed {
        case .synthetic(let count, let seed):
            let source = SyntheticFeed(count: count, seed: seed, photos: demoMediaPool())
            return (source, "synthetic:\(count):\(seed)", nil)
        case .server(let address):
            let token = try viewerToken()
            // A viewer's answers, and what they have seen, are kept apart from another's on
            // the same machine (by a hash of the token, never the token).
            let viewer = token.map { "viewer-" + SeenStore.hash($0).prefix(16) }
            do {
                let cache = HTTPCache.standardDirectory().map { HTTPCache(directory: viewer.map($0.appendingPathComponent) ?? $0) }
                let source = try HTTPFeed(server: address, cache: cache, token: token)
                return (source, source.server.absoluteString + (viewer.map { "#" + $0 } ?? ""), nil)
            } catch {
                throw fail(prefix + error.description)
            }
        case .demo, .folder:
            let directory: URL
            var given = false
            if case .folder(let path) = setup.feed {
                directory = URL(fileURLWithPath: path)
                given = true
            } else if let demo = DemoFeed.directory {
                directory = demo
            } else {
                throw fail(prefix + "the embedded demo feed is missing next to the binary; pass --feed PATH")
            }
            do throws(FeedError) {
                // Opened once; a feed folder has feed.json (looked at from the folder's own
                // descriptor, a link as a link); any other folder is read as photos and videos.
                let open: OpenFolder
                do { open = try OpenFolder.open(directory.standardizedFileURL.path) } catch {
                    throw FeedError(file: SafeText.line(directory.path), reason: PhotoFolder.folderProblem(error))
                }
                if !given || open.status(of: "feed.json") != nil {
                    return (try FeedFolder(root: open, directory: directory), directory.standardizedFileURL.path, nil)
                }
                let cache = PhotoFolderCache.standard(for: directory)
                let source = PhotoFolder(root: NamedFolder(open), directory: directory, cache: cache)
                var onQuit: (@Sendable () -> Void)?
                if let cache { onQuit = { cache.flush() } }
                return (source, directory.standardizedFileURL.path, onQuit)
            } catch {
                throw fail(prefix + error.description)
            }
        }
    }

    /// The viewer's token: `--token-file` (read the one safe way, its first line), else
    /// `STORIES_TOKEN`; nil when neither is given. Only printable ASCII, at most 256 bytes.
    func viewerToken() throws -> String? {
        var token: String?
        var origin = "STORIES_TOKEN"
        if let tokenFile {
            origin = "--token-file \(SafeText.line(tokenFile))"
            do {
                let data = try SafeFile.readPrivate(tokenFile, maxBytes: 4096, followLinks: true, secret: true)
                token = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            } catch {
                throw fail("\(origin): \(SafeFile.describe(error, maxBytes: 4096))")
            }
        } else if let given = ProcessInfo.processInfo.environment["STORIES_TOKEN"] {
            token = given
        }
        guard let raw = token?.trimmingCharacters(in: .whitespaces) else { return nil }
        guard !raw.isEmpty, raw.utf8.count <= 256, raw.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw fail("\(origin): a token is 1 to 256 printable characters with no spaces (as `stories serve add-viewer` prints it)")
        }
        return raw
    }

    /// A config file's text, or nil when there is none; read the one safe way (a symlinked
    /// dotfile is followed; a FIFO, a device or a file over 1 MB is refused with what it is).
    func readConfig(_ url: URL) throws -> (path: String, content: String)? {
        let data: Data
        do { data = try SafeFile.read(url.path, maxBytes: 1 << 20, followLinks: true).0 } catch .missing { return nil } catch {
            throw fail("\(url.path): \(SafeFile.describe(error, maxBytes: 1 << 20))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw fail("\(url.path): cannot be read as UTF-8 text") }
        return (url.path, text)
    }

    /// A file the run writes as it goes. `--metrics` adds to a file that is there (one line
    /// per navigation, run after run); the others start it anew.
    func open(_ path: String, flag: String, append: Bool) throws -> LineFile {
        do { return try LineFile.open(path, append: append) } catch {
            throw fail("\(flag) \(path): cannot be written (\(error.reason))")
        }
    }
}
