import Foundation
import StoriesCore
import StoriesFeedIO
import StoriesTestSupport
import Testing
@testable import StoriesServer

/// Issue 34, point 1: the viewers file, new tokens, and who a request's token names.
@Suite struct ViewersTests {
    func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("viewers-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func addViewerPrintsATokenThatOnlyItsHashIsKeptFor() throws {
        let file = try folder().appendingPathComponent("viewers.txt").path
        let ayla = try Viewers.add(name: "ayla", to: file)
        let bo = try Viewers.add(name: "bo.k_2-x", to: file)
        #expect(ayla.hasPrefix("st_") && ayla.count == 67 && ayla != bo)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(!text.contains(ayla.dropFirst(3)) && !text.contains(bo.dropFirst(3)), "the tokens are not in the file: \(text)")
        #expect(text.split(separator: "\n").count == 2)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let viewers = try Viewers.load(file)
        #expect(viewers.count == 2 && viewers.required)
        #expect(viewers.viewer(authorization: "Bearer \(ayla)")?.name == "ayla")
        #expect(viewers.viewer(authorization: "bearer  \(bo)")?.name == "bo.k_2-x")
        for wrong in [nil, "", "Bearer", "Bearer ", "Basic \(ayla)", "Bearer \(ayla)x", "Bearer \(ayla.dropLast())", "Bearer st_" + String(repeating: "0", count: 64),
                      "Bearer " + String(repeating: "a", count: 600)] {
            #expect(viewers.viewer(authorization: wrong) == nil, "\(wrong ?? "nil")")
        }
        // A name already there: refused, the file as it was.
        #expect(throws: Viewers.Problem.self) { try Viewers.add(name: "ayla", to: file) }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == text)
        for bad in ["", "with space", "a/b", String(repeating: "x", count: 65), "ünï", "new\nline"] {
            #expect(throws: Viewers.Problem.self) { try Viewers.add(name: bad, to: file) }
        }
    }

    /// Found by their hash's first bytes, then compared whole: among thousands, each token
    /// finds its own viewer, and a hash that only starts the same is not a match.
    @Test func amongThousandsEachTokenFindsItsOwnViewer() {
        let tokens = (0..<Viewers.maxViewers).map { "st_token\($0)" }
        // Each hash as the viewers file keeps it (the line's second field, hex).
        var entries = tokens.enumerated().map { index, token -> (name: String, hash: [UInt8]) in
            let hex = Array(Viewers.line(name: "v\(index)", token: token).split(separator: " ")[1].utf8.prefix(64))
            return ("v\(index)", stride(from: 0, to: 64, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16) ?? 0 })
        }
        // A viewer whose hash starts as v7's does, listed before it.
        entries.insert((name: "lookalike", hash: Array(entries[7].hash.prefix(8)) + Array(repeating: 0, count: 24)), at: 0)
        let viewers = Viewers(entries: entries, required: true)
        for (index, token) in tokens.enumerated() {
            #expect(viewers.viewer(authorization: "Bearer \(token)")?.name == "v\(index)")
        }
        #expect(viewers.viewer(authorization: "Bearer \t st_token7 \t")?.name == "v7")
        #expect(viewers.viewer(authorization: "Bearer st_token\(Viewers.maxViewers)") == nil)
        #expect(viewers.viewer(authorization: "Bearer \t ") == nil)
    }

    @Test func withoutAFileEveryRequestIsTheAnonymousViewer() {
        #expect(Viewers.open.viewer(authorization: nil) == .anonymous)
        #expect(Viewers.open.viewer(authorization: "Bearer anything") == .anonymous)
    }

    @Test func aBrokenFileSaysWhichLineAndWhy() throws {
        let hash = String(repeating: "ab", count: 32)
        let cases: [(String, String)] = [
            ("ayla \(hash)\nbo\n", "line 2: a line is a name and a token's SHA-256 in hex"),
            ("# comment\n\nay/la \(hash)\n", "line 3: 'ay/la' is not a name"),
            ("ayla \(hash.dropLast())\n", "line 1: the hash of ayla's token is not 64 hex digits"),
            ("ayla zz\(hash.dropFirst(2))\n", "line 1: the hash of ayla's token is not 64 hex digits"),
            ("ayla \(hash)\nayla \(hash)\n", "line 2: ayla is listed twice"),
        ]
        for (text, said) in cases {
            #expect { try Viewers.parse(Data(text.utf8), file: "v.txt") } throws: { error in
                (error as? Viewers.Problem)?.description.hasPrefix("viewers file v.txt \(said)") == true
            }
        }
        #expect(throws: Viewers.Problem.self) { try Viewers.parse(Data([0xFF, 0xFE]), file: "v.txt") }
        // Missing, a link, a folder: each refused with the file's name.
        let dir = try folder()
        for path in [dir.appendingPathComponent("missing").path, dir.path] {
            #expect { try Viewers.load(path) } throws: { ($0 as? Viewers.Problem)?.description.hasPrefix("viewers file \(path): ") == true }
        }
        let real = dir.appendingPathComponent("real")
        _ = try Viewers.add(name: "ayla", to: real.path)
        let link = dir.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        #expect { try Viewers.load(link.path) } throws: { ($0 as? Viewers.Problem)?.description.contains("symbolic link") == true }
    }

    /// Issue 46, point 3: a file that says who may watch is refused, as OpenSSH refuses a key
    /// file, when another user could change it — writable by its group or by anyone, or owned
    /// by someone else — with what is wrong and how to fix it; the viewers file, a token file
    /// and the seen store alike.
    @Test func aFileOthersCouldChangeIsRefusedWithTheFix() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("viewers.txt").path
        _ = try Viewers.add(name: "ayla", to: file)
        let store = dir.appendingPathComponent("seen.sqlite").path
        try await SQLiteSeenDatabase.open(path: store).close()
        let made = try FileManager.default.attributesOfItem(atPath: store)[.posixPermissions] as? Int
        #expect(made == 0o600, "the store is made private, whatever the umask, so the next start does not refuse it")
        let token = dir.appendingPathComponent("token").path
        try Data("st_abc\n".utf8).write(to: URL(fileURLWithPath: token))
        #expect(chmod(token, 0o600) == 0)
        func refusal(_ path: String) async -> String? {
            if path == store {
                do { try await SQLiteSeenDatabase.open(path: path).close(); return nil } catch { return error.description }
            }
            if path == token {
                // As the app reads `--token-file`: a link followed, a secret.
                do { _ = try SafeFile.readPrivate(path, maxBytes: 4096, followLinks: true, secret: true); return nil } catch { return error.description }
            }
            do { _ = try Viewers.load(path); return nil } catch { return error.description }
        }
        for path in [file, store, token] {
            #expect(await refusal(path) == nil, "mode 0600, owned by this user: read")
            #expect(chmod(path, 0o666) == 0)
            let anyone = await refusal(path) ?? ""
            #expect(anyone.contains("is writable by anyone on this machine (mode 0666)") && anyone.contains("chmod 600 \(path)"), "\(anyone)")
            #expect(chmod(path, 0o620) == 0)
            let group = await refusal(path) ?? ""
            #expect(group.contains("is writable by its group (mode 0620)"), "\(group)")
            #expect(chmod(path, 0o644) == 0)
            if path == token {
                let readable = await refusal(path) ?? ""
                #expect(readable.contains("is readable by anyone on this machine (mode 0644), who could use the token in it"), "\(readable)")
                #expect(chmod(path, 0o640) == 0)
                #expect((await refusal(path) ?? "").contains("is readable by its group"))
                #expect(chmod(path, 0o600) == 0)
            } else {
                #expect(await refusal(path) == nil, "readable by others is not refused: the viewers file holds only hashes")
            }
            // Owned by another user: only root can make such a file here (CI runs as root).
            if geteuid() == 0 {
                #expect(chown(path, 4242, 4242) == 0)
                let owned = await refusal(path) ?? ""
                #expect(owned.contains("is owned by user 4242, not by you (user 0)"), "\(owned)")
                #expect(chown(path, 0, 0) == 0)
            }
        }
        // `add-viewer` refuses to add to a file others could change, and leaves it as it was.
        #expect(chmod(file, 0o666) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect { try Viewers.add(name: "bo", to: file) } throws: { ($0 as? Viewers.Problem)?.description.contains("chmod 600") == true }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }
}
