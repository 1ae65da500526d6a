/// What is wrong with a feed document, said so a person can fix it: which file, which field
/// (a path like `items[2].media.width`), and why.
public struct FeedError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var field: String?
    public var reason: String
    /// The network failed (unreachable, timed out, a 5xx): asking again later may work. A
    /// document that is wrong, or a 404, stays wrong.
    public var isTransient: Bool

    public init(file: String, field: String? = nil, reason: String, isTransient: Bool = false) {
        self.file = file
        self.field = field
        self.reason = reason
        self.isTransient = isTransient
    }

    /// Printable whatever a file name, a field or a value quoted in the reason held.
    public var description: String {
        let whole = field.map { $0.isEmpty ? "\(file): \(reason)" : "\(file): \($0): \(reason)" } ?? "\(file): \(reason)"
        return SafeText.line(whole, maxColumns: SafeText.Limit.message)
    }
}

/// Something in a feed that was skipped so the rest could be shown.
public struct FeedWarning: Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// What the line is about when it can stop being true ("home": the sections did not
    /// load; "paging": pages stopped adding stories): it leaves the screen and the problems
    /// list when that succeeds. nil: a fact about the feed that stays.
    public var topic: String?
    /// Made printable and bounded here, whoever wrote the line.
    public init(_ message: String, topic: String? = nil) {
        self.message = SafeText.line(message, maxColumns: SafeText.Limit.message)
        self.topic = topic
    }
    public var description: String { message }
}
