import Foundation

/// The home screen's sections below the ring row, as the server (`GET /v1/home`) or a feed
/// folder's `home.json` sends them (docs/feed-format.md, "Home sections"). Server-driven, as
/// in Calm: the server picks each section's style and each cell's styling and action; the
/// app only draws and runs them. Text is already cleaned by `SafeText` and every number
/// bounded by `HomeDecoder`.
public struct HomeLayout: Equatable, Sendable {
    public var sections: [HomeSection]

    public init(sections: [HomeSection] = []) { self.sections = sections }

    public static let empty = HomeLayout()
}

/// How a section is drawn.
public enum SectionStyle: String, Equatable, Sendable, CaseIterable {
    /// Bubbles like the ring row's: a ring round initials, the name below.
    case ring
    /// Boxed cards side by side: title, subtitle, badge, progress.
    case cards
    /// One line per cell, up to `HomeGeometry.listRows` at a time.
    case list
    /// One wide picture at a time with its text over it.
    case banner
}

/// A row of the home screen: a title and its cells.
public struct HomeSection: Equatable, Sendable {
    public var id: String
    public var style: SectionStyle
    public var title: FormattedText?
    public var cells: [HomeCell]

    public init(id: String, style: SectionStyle, title: FormattedText? = nil, cells: [HomeCell]) {
        self.id = id
        self.style = style
        self.title = title
        self.cells = cells
    }
}

/// One cell of a section, with the styling data the server chose for it.
public struct HomeCell: Equatable, Sendable {
    public var id: String
    public var title: FormattedText
    public var subtitle: FormattedText?
    /// A small decorator ("NEW", "3") in a colour.
    public var badge: Badge?
    /// How far along something is, 0…1 (drawn as a bar).
    public var progress: Double?
    /// A hint shown the first time the cell is focused, and never again (by `id`, across
    /// restarts).
    public var tooltip: Tooltip?
    /// A banner's picture (any style may carry one; banners draw it).
    public var picture: Media?
    /// What Enter or a click on the cell does; nil: nothing.
    public var action: HomeAction?
    /// `"progress": "seen"`: the bar shows how much of the cell's story the viewer has seen,
    /// worked out from the seen state as it changes (a server with viewers sends the
    /// number instead, issue 34).
    public var progressFromSeen = false

    public init(id: String, title: FormattedText, subtitle: FormattedText? = nil, badge: Badge? = nil,
                progress: Double? = nil, tooltip: Tooltip? = nil, picture: Media? = nil, action: HomeAction? = nil) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.badge = badge
        self.progress = progress
        self.tooltip = tooltip
        self.picture = picture
        self.action = action
    }
}

/// Text in runs, each with its own emphasis and colour.
public struct FormattedText: Equatable, Sendable {
    public struct Span: Equatable, Sendable {
        public var text: String
        public var bold = false
        public var italic = false
        public var underline = false
        /// nil: the style's own colour.
        public var color: RGB?

        public init(_ text: String, bold: Bool = false, italic: Bool = false, underline: Bool = false, color: RGB? = nil) {
            self.text = text
            self.bold = bold
            self.italic = italic
            self.underline = underline
            self.color = color
        }
    }

    public var spans: [Span]

    public init(_ spans: [Span]) { self.spans = spans }
    public init(_ text: String) { spans = [Span(text)] }

    /// The words without their styling.
    public var plain: String { spans.map(\.text).joined() }

    /// Cut to `width` columns, the last span ending in "…" when anything was cut.
    public func truncated(toWidth width: Int) -> FormattedText {
        var left = max(0, width)
        var out: [Span] = []
        for (index, span) in spans.enumerated() where left > 0 {
            let spanWidth = span.text.displayWidth
            let isLast = index == spans.count - 1
            if spanWidth <= left && (isLast || spanWidth < left || spans[(index + 1)...].allSatisfy { $0.text.isEmpty }) {
                out.append(span)
                left -= spanWidth
            } else {
                var cut = span
                cut.text = span.text.truncated(toWidth: left)
                out.append(cut)
                left = 0
                if cut.text != span.text || !isLast { break }
            }
        }
        return FormattedText(out)
    }
}

/// A decorator on a cell.
public struct Badge: Equatable, Sendable {
    public var text: String
    public var color: RGB

    /// `{new}` in a badge's text stands for the number of the story's items not seen yet.
    public static let newCount = "{new}"

    public init(text: String, color: RGB) {
        self.text = text
        self.color = color
    }
}

/// A one-time hint: shown the first time its cell is focused, remembered by `id`.
public struct Tooltip: Equatable, Sendable {
    public var id: String
    public var text: String

    public init(id: String, text: String) {
        self.id = id
        self.text = text
    }
}

/// What a cell does.
public indirect enum HomeAction: Equatable, Sendable {
    /// Open a story of the feed, as its bubble would.
    case openStory(StoryID)
    /// Open a screen of more sections (Calm's `sections`), with a title; Esc comes back.
    case openSections(title: String, sections: [HomeSection])
    /// Open a web page (http or https only).
    case openLink(Link)
}

/// The home sections and what was wrong with the document they came from.
public struct HomeLoad: Equatable, Sendable {
    public var layout: HomeLayout
    public var warnings: [FeedWarning]
    public var bytes: Int

    public init(layout: HomeLayout, warnings: [FeedWarning] = [], bytes: Int = 0) {
        self.layout = layout
        self.warnings = warnings
        self.bytes = bytes
    }
}
