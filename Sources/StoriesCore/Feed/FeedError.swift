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
        if let field, !field.isEmpty { return SafeText.line("\(file): \(field): \(reason)") }
        return SafeText.line("\(file): \(reason)")
    }
}

/// Something in a feed that was skipped so the rest could be shown.
public struct FeedWarning: Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// Made printable here, whoever wrote the line.
    public init(_ message: String) { self.message = SafeText.line(message) }
    public var description: String { message }
}
