import Foundation

/// Seen state over HTTP (issue 34; docs/feed-format.md, "Seen state"): what a terminal sends
/// (`PUT /v1/seen`, a batch), what the server answers it (a receipt), and what another
/// terminal catches up with (`GET /v1/seen?since=`, changes). Both ends read with the same
/// bounds, and every number from the other end is bounded before it is used.
public enum SeenWire {
    /// One seen item; `at` is when, in seconds since 1970 (nil: the server's now).
    public struct Entry: Sendable, Equatable, Hashable {
        public var story: StoryID
        public var item: ItemID
        public var at: Int64?

        public init(story: StoryID, item: ItemID, at: Int64? = nil) {
            self.story = story
            self.item = item
            self.at = at
        }
    }

    public struct Batch: Sendable, Equatable {
        public var entries: [Entry]
        public var tooltips: [String]

        public init(entries: [Entry], tooltips: [String] = []) {
            self.entries = entries
            self.tooltips = tooltips
        }
    }

    /// An entry the server did not keep, and why (an unknown story or item): the client
    /// drops it rather than send it again.
    public struct Ignored: Sendable, Equatable {
        public var story: StoryID
        public var item: ItemID
        public var reason: String
        public init(story: StoryID, item: ItemID, reason: String) {
            self.story = story
            self.item = item
            self.reason = reason
        }
    }

    public struct Receipt: Sendable, Equatable {
        public var next: Int64
        public var recorded: Int
        public var ignored: [Ignored]
        public init(next: Int64, recorded: Int, ignored: [Ignored] = []) {
            self.next = next
            self.recorded = recorded
            self.ignored = ignored
        }
    }

    public struct Changes: Sendable, Equatable {
        public var entries: [Entry]
        public var tooltips: [String]
        /// Where to ask from next.
        public var next: Int64
        /// More is waiting past `next`: ask again at once.
        public var more: Bool
        public init(entries: [Entry], tooltips: [String], next: Int64, more: Bool) {
            self.entries = entries
            self.tooltips = tooltips
            self.next = next
            self.more = more
        }
    }

    /// The most items one batch carries (a terminal with more sends several).
    public static let maxItems = 1000
    /// The most tooltips one batch carries.
    public static let maxTooltips = 100
    /// The largest batch body read (1000 items of long ids fit).
    public static let maxBatchBytes = 512 << 10
    /// The most items one answer of changes carries (more than a batch: a batch is never split).
    public static let maxChanges = 5000
    /// The largest answer of changes read.
    public static let maxChangesBytes = 8 << 20
    /// A tooltip id: 1 to 128 bytes of printable characters (as the home's).
    public static func isValidTooltip(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.unicodeScalars.allSatisfy(SafeText.isShowable)
    }
    /// Counters and times: whole numbers from 0 to 2^53 (what JSON carries exactly).
    static let largest: Double = 9_007_199_254_740_991

    // MARK: - Writing

    // Written by hand (JSONText), keys in order: a server writes a receipt for every batch.

    public static func batch(_ batch: Batch) -> Data {
        var out = JSONText(capacity: 64 + batch.entries.count * 64)
        out.raw("{")
        seenAndTooltips(&out, batch.entries, batch.tooltips)
        out.raw(",\"version\":1}")
        return Data(out.bytes)
    }

    public static func receipt(_ receipt: Receipt) -> Data {
        var out = JSONText()
        out.raw("{\"ignored\":")
        out.array(receipt.ignored) { out, ignored in
            out.raw("{\"item\":")
            out.string(ignored.item)
            out.raw(",\"reason\":")
            out.string(SafeText.line(ignored.reason))
            out.raw(",\"story\":")
            out.string(ignored.story)
            out.raw("}")
        }
        out.raw(",\"next\":")
        out.number(receipt.next)
        out.raw(",\"recorded\":")
        out.number(Int64(receipt.recorded))
        out.raw(",\"version\":1}")
        return Data(out.bytes)
    }

    public static func changes(_ changes: Changes) -> Data {
        var out = JSONText(capacity: 64 + changes.entries.count * 64)
        out.raw("{\"more\":")
        out.bool(changes.more)
        out.raw(",\"next\":")
        out.number(changes.next)
        out.raw(",")
        seenAndTooltips(&out, changes.entries, changes.tooltips)
        out.raw(",\"version\":1}")
        return Data(out.bytes)
    }

    /// `"seen":[…],"tooltips":[…]`, as a batch and changes both end.
    private static func seenAndTooltips(_ out: inout JSONText, _ entries: [Entry], _ tooltips: [String]) {
        out.raw("\"seen\":")
        out.array(entries, entry)
        out.raw(",\"tooltips\":")
        out.array(tooltips) { $0.string($1) }
    }

    private static func entry(_ out: inout JSONText, _ entry: Entry) {
        out.raw("{")
        if let at = entry.at {
            out.raw("\"at\":")
            out.number(at)
            out.raw(",")
        }
        out.raw("\"item\":")
        out.string(entry.item)
        out.raw(",\"story\":")
        out.string(entry.story)
        out.raw("}")
    }

    // MARK: - Reading

    /// A batch as the server reads it: an object with `seen` (at most `maxItems`), each a
    /// story id and an item id by the feed's rules, `at` a whole number if given, and
    /// `tooltips` (at most `maxTooltips`).
    public static func decodeBatch(_ data: Data, file: String = "PUT /v1/seen") throws(FeedError) -> Batch {
        guard data.count <= maxBatchBytes else {
            throw FeedError(file: file, reason: "\(data.count) bytes is more than the \(maxBatchBytes >> 10) KB a batch may be")
        }
        let root = JSONField(value: try JSONValue.parse(data, file: file), file: file, path: "")
        _ = try root.object()
        try root.checkVersion()
        let seen = try root.member("seen")?.array() ?? []
        guard seen.count <= maxItems else {
            throw FeedError(file: file, field: "seen", reason: "\(seen.count) items is more than the \(maxItems) a batch may carry; send several")
        }
        let entries = try seen.map { (field: JSONField) throws(FeedError) -> Entry in try entry(field) }
        let tooltips = try root.member("tooltips")?.array() ?? []
        guard tooltips.count <= maxTooltips else {
            throw FeedError(file: file, field: "tooltips", reason: "\(tooltips.count) tooltips is more than the \(maxTooltips) a batch may carry")
        }
        let ids = try tooltips.map { (field: JSONField) throws(FeedError) -> String in
            let id = try field.string()
            guard isValidTooltip(id) else { throw field.fail("expected a tooltip id of 1 to 128 bytes of printable characters") }
            return id
        }
        return Batch(entries: entries, tooltips: ids)
    }

    public static func decodeReceipt(_ data: Data, file: String) throws(FeedError) -> Receipt {
        guard data.count <= maxBatchBytes * 4 else { throw FeedError(file: file, reason: "the receipt is \(data.count) bytes, far more than one is") }
        let root = JSONField(value: try JSONValue.parse(data, file: file), file: file, path: "")
        try root.checkVersion(required: false) // a server before version 1 was written said none
        let next = try counter(root.required("next"))
        let recorded = try counter(root.member("recorded")) 
        var ignored: [Ignored] = []
        for field in try root.member("ignored")?.array().prefix(maxItems) ?? [] {
            let story = try field.required("story").string(), item = try field.required("item").string()
            let reason = try field.member("reason")?.string() ?? "not kept"
            ignored.append(Ignored(story: story, item: item, reason: SafeText.line(reason, maxColumns: 200)))
        }
        return Receipt(next: next, recorded: Int(min(recorded, Int64(maxItems))), ignored: ignored)
    }

    public static func decodeChanges(_ data: Data, file: String) throws(FeedError) -> Changes {
        guard data.count <= maxChangesBytes else {
            throw FeedError(file: file, reason: "\(data.count) bytes is more than the \(maxChangesBytes >> 20) MB an answer of changes may be")
        }
        let root = JSONField(value: try JSONValue.parse(data, file: file), file: file, path: "")
        try root.checkVersion(required: false) // a server before version 1 was written said none
        let next = try counter(root.required("next"))
        let more: Bool
        if let field = try root.member("more") {
            guard case .bool(let value) = field.value else { throw field.fail("expected true or false, found \(field.value.kindName)") }
            more = value
        } else {
            more = false
        }
        let seen = try root.member("seen")?.array() ?? []
        guard seen.count <= maxChanges else {
            throw FeedError(file: file, field: "seen", reason: "\(seen.count) items is more than the \(maxChanges) an answer may carry")
        }
        let entries = try seen.map { (field: JSONField) throws(FeedError) -> Entry in try entry(field) }
        let tooltips = try root.member("tooltips")?.array() ?? []
        guard tooltips.count <= SeenState.maxTooltips else {
            throw FeedError(file: file, field: "tooltips", reason: "\(tooltips.count) tooltips is more than the \(SeenState.maxTooltips) kept")
        }
        let ids = try tooltips.map { (field: JSONField) throws(FeedError) -> String in
            let id = try field.string()
            guard isValidTooltip(id) else { throw field.fail("expected a tooltip id of 1 to 128 bytes of printable characters") }
            return id
        }
        return Changes(entries: entries, tooltips: ids, next: next, more: more)
    }

    private static func entry(_ field: JSONField) throws(FeedError) -> Entry {
        _ = try field.object()
        let storyField = try field.required("story")
        let story = try storyField.string()
        guard StoryIDRule.isValid(story) else { throw storyField.fail("expected a story id (1 to 128 letters, digits, '-', '_', '.')") }
        let item = try FeedDecoder.itemID(try field.required("item"))
        let at = try field.member("at").map { (field: JSONField) throws(FeedError) -> Int64 in try counter(field) }
        return Entry(story: story, item: item, at: at)
    }

    /// A whole number from 0 to 2^53.
    private static func counter(_ field: JSONField?) throws(FeedError) -> Int64 {
        guard let field else { return 0 }
        let number = try field.number()
        guard number >= 0, number <= largest, number.rounded() == number else {
            throw field.fail("expected a whole number from 0 to 2^53")
        }
        return Int64(number)
    }
}
