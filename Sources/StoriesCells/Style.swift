
public struct Attributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let bold = Attributes(rawValue: 1)
    public static let dim = Attributes(rawValue: 2)
    public static let italic = Attributes(rawValue: 4)
    public static let underline = Attributes(rawValue: 8)
    public static let reverse = Attributes(rawValue: 16)
}

/// How a cell is drawn.
public struct Style: Hashable, Sendable {
    public var foreground: Color
    public var background: Color
    public var attributes: Attributes

    public init(foreground: Color = .default, background: Color = .default, attributes: Attributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    public static let plain = Style()

    public func with(foreground: Color) -> Style {
        var copy = self; copy.foreground = foreground; return copy
    }
    public func with(background: Color) -> Style {
        var copy = self; copy.background = background; return copy
    }
    public func adding(_ attributes: Attributes) -> Style {
        var copy = self; copy.attributes.formUnion(attributes); return copy
    }
}
