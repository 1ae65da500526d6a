import Crypto
import Foundation
import StoriesCore
import StoriesFeedIO

/// Who may watch (issue 34): `stories serve --viewers FILE`. One line a viewer, a name and
/// the SHA-256 of their token in hex (`ayla 3f5a…`); `#` starts a comment. The tokens
/// themselves are never stored: `stories serve add-viewer NAME` prints a new one once.
/// Without a file the server has one anonymous viewer, as before there were viewers.
public struct Viewers: Sendable {
    /// A viewer as the server knows them: the name their state is kept under.
    public struct Viewer: Sendable, Equatable, Hashable {
        public let name: String
        public init(name: String) { self.name = name }
        /// The one viewer of a server without `--viewers`.
        public static let anonymous = Viewer(name: "")
    }

    /// Each viewer's name and token hash; empty for an open server.
    let entries: [(name: String, hash: [UInt8])]
    /// False without `--viewers`: every request is the anonymous viewer's.
    public let required: Bool

    public static let open = Viewers(entries: [], required: false)

    /// How many viewers the file lists.
    public var count: Int { entries.count }

    /// Where each hash is in `entries`, by its first eight bytes.
    private let byPrefix: [UInt64: [Int]]
    init(entries: [(name: String, hash: [UInt8])], required: Bool) {
        self.entries = entries
        self.required = required
        var byPrefix: [UInt64: [Int]] = [:]
        for (index, entry) in entries.enumerated() { byPrefix[Self.prefix(entry.hash), default: []].append(index) }
        self.byPrefix = byPrefix
    }

    private static func prefix(_ hash: [UInt8]) -> UInt64 {
        hash.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The most viewers a file may list.
    public static let maxViewers = 10_000
    /// The largest viewers file read.
    public static let maxFileBytes = 2 << 20
    /// A viewer's name: 1 to 64 of letters, digits, `.`, `_`, `-` (no spaces: a line is
    /// a name and a hash).
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }

    /// A file that cannot be used, with the line and what is wrong with it.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// Reads a viewers file (the one safe way: not a link, not a FIFO, bounded). A missing
    /// file is an error: a server told to check tokens never serves without them.
    public static func load(_ path: String) throws(Problem) -> Viewers {
        let shown = SafeText.line(path)
        let data: Data
        do { data = try SafeFile.readPrivate(path, maxBytes: maxFileBytes) } catch {
            throw Problem(description: "viewers file \(shown): \(SafeFile.describe(error, maxBytes: maxFileBytes))")
        }
        return try parse(data, file: shown)
    }

    public static func parse(_ data: Data, file: String) throws(Problem) -> Viewers {
        guard let text = String(data: data, encoding: .utf8) else {
            throw Problem(description: "viewers file \(file): not UTF-8 text")
        }
        var entries: [(name: String, hash: [UInt8])] = []
        var names = Set<String>()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let at = "viewers file \(file) line \(index + 1)"
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2 else {
                throw Problem(description: "\(at): a line is a name and a token's SHA-256 in hex, separated by a space")
            }
            let name = String(fields[0])
            guard isValidName(name) else {
                throw Problem(description: "\(at): '\(SafeText.line(String(name.prefix(64))))' is not a name (1 to 64 letters, digits, '.', '_' or '-')")
            }
            guard let hash = Self.hex(fields[1]), hash.count == 32 else {
                throw Problem(description: "\(at): the hash of \(name)'s token is not 64 hex digits")
            }
            guard names.insert(name).inserted else { throw Problem(description: "\(at): \(name) is listed twice") }
            guard entries.count < maxViewers else { throw Problem(description: "\(at): more than \(maxViewers) viewers") }
            entries.append((name, hash))
        }
        return Viewers(entries: entries, required: true)
    }

    /// Who an `Authorization` header names: nil when it names no one (missing, not Bearer,
    /// or a token no viewer has). The token's hash is compared in constant time with the
    /// hashes that start as it does.
    public func viewer(authorization: String?) -> Viewer? {
        guard required else { return .anonymous }
        guard let token = Self.bearerToken(authorization) else { return nil }
        let presented = Array(SHA256.hash(data: Data(token.utf8)))
        // Found by the hash's first bytes, then the whole hash compared in constant time.
        // What the time of the lookup could tell is which stored hashes share a prefix with
        // the hash of a token the caller chose; SHA-256 gives no way back from that to a
        // token. (Comparing with every viewer in turn cost a request 0.1 ms for each
        // thousand viewers.)
        var found: Int = -1
        for index in byPrefix[Self.prefix(presented)] ?? [] {
            var difference: UInt8 = 0
            for (a, b) in zip(presented, entries[index].hash) { difference |= a ^ b }
            // No branch on the secret: the index is kept by arithmetic.
            let same = Int(difference == 0 ? 1 : 0)
            found = same * index + (1 - same) * found
        }
        return found >= 0 ? Viewer(name: entries[found].name) : nil
    }

    /// The token of `Bearer TOKEN` (the scheme in any case), nil for anything else.
    static func bearerToken(_ header: String?) -> String? {
        guard let header, header.utf8.count <= 512 else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        // Spaces and tabs around the token are not part of it (Foundation's trimming with a
        // character set cost more than the rest of the lookup).
        let bytes = parts[1].utf8
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else { return nil }
        return String(parts[1][first...last])
    }

    // MARK: - New viewers

    /// A new token: 32 random bytes from the system's generator, as `st_` and 64 hex digits.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "st_" + hexString(bytes)
    }

    /// The line a viewers file keeps for `name` with `token`.
    public static func line(name: String, token: String) -> String {
        "\(name) \(hexString(Array(SHA256.hash(data: Data(token.utf8)))))\n"
    }

    /// Adds a viewer to the file (made, mode 0600, if missing) and returns their new token.
    /// The file is checked first: a name already there, or a file that is not a viewers
    /// file, is refused and the file left as it was.
    public static func add(name: String, to path: String) throws(Problem) -> String {
        guard isValidName(name) else {
            throw Problem(description: "'\(SafeText.line(String(name.prefix(64))))' is not a name: 1 to 64 letters, digits, '.', '_' or '-'")
        }
        var existing = Data()
        do { existing = try SafeFile.readPrivate(path, maxBytes: maxFileBytes) } catch .missing {
        } catch {
            throw Problem(description: "viewers file \(SafeText.line(path)): \(SafeFile.describe(error, maxBytes: maxFileBytes))")
        }
        let viewers = try parse(existing, file: SafeText.line(path))
        guard !viewers.entries.contains(where: { $0.name == name }) else {
            throw Problem(description: "\(name) is already in \(SafeText.line(path)); remove their line to give them a new token")
        }
        let token = newToken()
        var text = existing
        if let last = text.last, last != 0x0A { text.append(0x0A) }
        text.append(Data(line(name: name, token: token).utf8))
        do { try AtomicFile.write(text, to: URL(fileURLWithPath: path), mode: 0o600) } catch {
            throw Problem(description: "viewers file \(SafeText.line(path)): \(error.description)")
        }
        return token
    }

    static func hexString(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func hex(_ text: Substring) -> [UInt8]? {
        let bytes = Array(text.utf8)
        guard bytes.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let high = value(bytes[index]), let low = value(bytes[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}
