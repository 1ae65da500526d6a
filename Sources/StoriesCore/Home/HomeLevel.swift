/// A screen of home sections: the home itself (below the ring row) or one a cell opened
/// (`HomeAction.openSections`), with where the keyboard is on it.
public struct HomeLevel: Equatable, Sendable {
    /// "" for the home itself.
    public var title: String
    public var sections: [HomeSection]
    /// The section with the keyboard; nil: the ring row (only the home itself has one).
    public var focus: Int?
    /// The selected cell of each section, by section index.
    public var selected: [Int]

    public init(title: String, sections: [HomeSection], focus: Int? = nil) {
        self.title = title
        self.sections = sections
        self.focus = focus
        self.selected = Array(repeating: 0, count: sections.count)
    }

    /// The focused section and its selected cell.
    public var focusedCell: (section: Int, cell: Int)? {
        guard let focus, sections.indices.contains(focus) else { return nil }
        return (focus, selected[safe: focus] ?? 0)
    }

    public func cell(section: Int, index: Int) -> HomeCell? {
        sections[safe: section]?.cells[safe: index]
    }

    /// New sections (the home re-fetched): the keyboard stays on the same section and cell
    /// by id where they still exist, else on the nearest place.
    public mutating func replaceSections(_ new: [HomeSection]) {
        var selectedByID: [String: String] = [:]
        for (index, section) in sections.enumerated() {
            if let cell = section.cells[safe: selected[safe: index] ?? 0] { selectedByID[section.id] = cell.id }
        }
        let focusedID = focus.flatMap { sections[safe: $0]?.id }
        sections = new
        selected = new.map { section in
            selectedByID[section.id].flatMap { id in section.cells.firstIndex { $0.id == id } } ?? 0
        }
        if let focus {
            if let id = focusedID, let index = new.firstIndex(where: { $0.id == id }) {
                self.focus = index
            } else {
                self.focus = new.isEmpty ? nil : min(focus, new.count - 1)
            }
        }
    }
}

/// Where things are on the home screen's section area, for the reducer (clicks, which
/// sections are in view) and `HomeScreen` (drawing) alike, so a click and a drawn cell can
/// never disagree. Derived from the state alone: the area scrolls to keep the focused
/// section whole in view, each section to keep its selected cell in view.
public enum HomeGeometry {
    public static let leftMargin = 2
    public static let cardWidth = 26
    /// A card: top border, title, subtitle, badge and progress, bottom border.
    public static let cardHeight = 5
    public static let listRows = 4
    /// The widest a list row or a banner is drawn: on a wide screen a row's badge would
    /// otherwise sit a whole screen away from its text.
    public static let maxListWidth = 100
    public static let maxBannerWidth = 120
    public static let bannerHeight = 7
    /// The most columns a banner's picture takes (at its right; the text is at its left).
    public static let bannerPictureWidth = 36
    /// Rows the details of the selected story take under the ring row (name, summary,
    /// preview) and the blank row after them.
    public static let detailsRows = 4

    /// Rows a section takes: its title line and its cells.
    public static func height(of section: HomeSection) -> Int {
        1 + bodyHeight(of: section)
    }

    static func bodyHeight(of section: HomeSection) -> Int {
        switch section.style {
        case .ring: RingLayout.bubbleHeight
        case .cards: cardHeight
        case .list: min(listRows, section.cells.count)
        case .banner: bannerHeight
        }
    }

    /// The first row of the section area: under the ring row and the selected story's
    /// details; at the top of a screen of sections a cell opened. It does not move when a
    /// section takes the keyboard, so a second click lands where the first one did.
    public static func top(_ state: AppState) -> Int {
        guard state.home.levels.count <= 1 else { return 2 }
        return RingLayout.row + RingLayout.bubbleHeight + 1 + detailsRows
    }

    /// One past the last row of the section area: above the lines at the bottom (the key
    /// hints, and the notice, paging and feed-problem lines when there are any).
    public static func bottom(_ state: AppState) -> Int {
        var footer = 1 + noticeLines(state).count
        footer += pagingLines(state).count
        if !state.feed.warnings.isEmpty { footer += 2 }
        return state.screenHeight - footer
    }

    /// The line about paging or the source (`AppState.pagingNotice`), wrapped to the width:
    /// at most two lines, so an address and its answer (a 404) are read whole.
    public static func pagingLines(_ state: AppState) -> [String] {
        guard let notice = state.pagingNotice else { return [] }
        let lines = TextWrap.lines("⚠ " + notice, width: max(1, state.screenWidth - 4))
        guard lines.count > 2 else { return lines }
        return [lines[0], (lines[1] + " " + lines[2...].joined(separator: " ")).truncated(toWidth: max(1, state.screenWidth - 4))]
    }

    /// The most lines the notice takes: a link's whole URL, to copy, is the usual notice.
    public static let maxNoticeLines = 6

    /// The notice cut into lines of the screen's width (at most `maxNoticeLines`, fewer on
    /// a short screen, the last ending in "…" when there was more), after a line about a
    /// story being opened from a section, where the ring row's loading ring is not in view.
    /// Linear in the notice's length.
    public static func noticeLines(_ state: AppState) -> [String] {
        var notice = state.chrome.notice ?? ""
        if state.viewer == nil, let id = state.row.opening, state.home.level.focus != nil || state.home.levels.count > 1 {
            let name = state.feed.store.positions[id].map { state.feed.store.summaries[$0].author.name } ?? id
            notice = "◌ Loading \(name)'s story… (Esc: stop)" + (notice.isEmpty ? "" : " · " + notice)
        } else if state.viewer == nil, let target = state.row.seeking {
            let so = "\(state.feed.store.count) stories so far; Esc: stop"
            let line = switch target {
            case .story(let id): "◌ Looking for the story '\(id)' further along the feed (\(so))"
            case .last: "◌ Going to the last story, loading the feed on the way (\(so))"
            case .unseen: "◌ Looking for the next story with unseen items (\(so))"
            case .name(let text, _):
                "◌ Looking for '\(SafeText.line(text, maxColumns: SafeText.Limit.quoted))' further along the feed (\(so))"
            }
            notice = line + (notice.isEmpty ? "" : " · " + notice)
        }
        guard !notice.isEmpty else { return [] }
        let limit = max(1, min(maxNoticeLines, (state.screenHeight - 10) / 2))
        let width = max(1, state.screenWidth - 2 * leftMargin)
        // Broken at spaces (a sentence keeps its words whole), a word longer than the line (a
        // link's address, to copy) between characters.
        var lines = TextWrap.lines(notice, width: width)
        if lines.count > limit {
            lines = Array(lines.prefix(limit))
            let last = lines[limit - 1]
            lines[limit - 1] = last.displayWidth < width ? last + "…" : String(last.dropLast()) + "…"
        }
        return lines
    }

    /// The sections in view, in order, with the row each starts on.
    public static func visibleSections(_ state: AppState) -> [(index: Int, y: Int)] {
        let sections = state.home.level.sections
        guard !sections.isEmpty else { return [] }
        let top = top(state), bottom = bottom(state)
        let available = bottom - top
        let focus = min(state.home.level.focus ?? 0, sections.count - 1)
        // The first section in view: as many before the focused one as fit with it.
        var first = focus
        var used = height(of: sections[focus])
        while first > 0, used + 1 + height(of: sections[first - 1]) <= available {
            first -= 1
            used += 1 + height(of: sections[first])
        }
        var result: [(Int, Int)] = []
        var y = top
        for index in first..<sections.count {
            let needed = height(of: sections[index])
            // The focused section is drawn even when it does not fit whole (it is cut).
            guard y + needed <= bottom || (index == focus && y < bottom) else { break }
            result.append((index, y))
            y += needed + 1
        }
        return result
    }

    /// Where each cell of a section in view is drawn (`y` is the section's title row),
    /// scrolled so the selected cell is in view.
    public static func cellBoxes(_ section: HomeSection, selected: Int, y: Int, screenWidth: Int) -> [(cell: Int, box: Rect)] {
        let count = section.cells.count
        let width = max(1, screenWidth - 2 * leftMargin)
        let body = y + 1
        func row(slot: Int, cellWidth: Int, height: Int) -> [(Int, Rect)] {
            let visible = max(1, (width + 1) / slot)
            let first = RingLayout.firstVisible(selection: selected, count: count, visible: visible)
            return (first..<min(count, first + visible)).map { index in
                (index, Rect(x: leftMargin + (index - first) * slot, y: body, width: min(cellWidth, width), height: height))
            }
        }
        switch section.style {
        case .ring:
            return row(slot: RingLayout.slotWidth, cellWidth: RingLayout.slotWidth - 1, height: RingLayout.bubbleHeight)
        case .cards:
            let cardWidth = min(cardWidth, width)
            return row(slot: cardWidth + 1, cellWidth: cardWidth, height: cardHeight)
        case .list:
            let first = RingLayout.firstVisible(selection: selected, count: count, visible: listRows)
            return (first..<min(count, first + listRows)).map { index in
                (index, Rect(x: leftMargin, y: body + index - first, width: min(width, maxListWidth), height: 1))
            }
        case .banner:
            let index = min(max(0, selected), count - 1)
            return [(index, Rect(x: leftMargin, y: body, width: min(width, maxBannerWidth), height: bannerHeight))]
        }
    }

    /// The size a banner's picture is drawn at on a screen this wide (what the preloader
    /// prepares for it): the right part of the banner, at most `bannerPictureWidth` columns
    /// and never more than half of it, its full height. A wide strip across the whole
    /// screen would show a sliver of any photo; this shows the photo.
    public static func bannerPictureSize(screenWidth: Int) -> (width: Int, height: Int) {
        let banner = max(1, min(maxBannerWidth, screenWidth - 2 * leftMargin))
        return (max(1, min(bannerPictureWidth, banner / 2)), bannerHeight)
    }

    /// The cell under a cell of the screen, if any.
    public static func cell(atColumn column: Int, row: Int, state: AppState) -> (section: Int, cell: Int)? {
        guard state.viewer == nil, state.isUsable else { return nil }
        let level = state.home.level
        for (index, y) in visibleSections(state) {
            for (cell, box) in cellBoxes(level.sections[index], selected: level.selected[safe: index] ?? 0, y: y,
                                         screenWidth: state.screenWidth)
            where box.contains(column: column, row: row) && row < bottom(state) {
                return (index, cell)
            }
        }
        return nil
    }
}
