import Foundation

/// Reads `home.json` / `GET /v1/home` (docs/feed-format.md, "Home sections") as hostile
/// input. Nothing in it is fatal to the app: a document that is not a home layout at all
/// throws (the caller shows one line and keeps what it had); a section of a style this
/// build does not know, or a malformed section, is skipped with a warning; a malformed cell
/// is skipped with a warning; an action of an unknown type leaves its cell without one,
/// with a warning. Every list, string and nesting level is bounded.
public enum HomeDecoder {
    public static let maxSections = 32
    public static let maxCells = 100
    /// Screens of sections inside sections (`"type": "sections"` actions), the home included.
    public static let maxDepth = 4
    /// Cells in the whole document, at every depth.
    public static let maxTotalCells = 2000
    /// Characters kept of any one text (titles, subtitles, badges, tooltips).
    public static let maxTextLength = 300
    public static let maxSpans = 16
    public static let maxLinkLength = 2048
    /// The most warnings one document adds to the feed-problems line.
    public static let maxWarnings = 50

    /// Named colours a document may use instead of `#rrggbb`.
    public static let namedColors: [String: RGB] = [
        "accent": RGB(0xFF, 0x87, 0xFF), "muted": RGB(0x8A, 0x8A, 0x8A), "warning": RGB(0xFF, 0xAF, 0x00),
        "red": RGB(0xE6, 0x39, 0x46), "green": RGB(0x2A, 0x9D, 0x8F), "blue": RGB(0x45, 0x7B, 0x9D),
        "yellow": RGB(0xFF, 0xD1, 0x66), "orange": RGB(0xF4, 0x8C, 0x06), "purple": RGB(0x9B, 0x5D, 0xE5),
        "pink": RGB(0xF1, 0x5B, 0xB5), "white": RGB(0xFF, 0xFF, 0xFF), "grey": RGB(0x8A, 0x8A, 0x8A),
    ]

    public static func decode(_ data: Data, file: String) throws(FeedError) -> HomeLoad {
        guard data.count <= FeedDecoder.maxDocumentBytes else {
            throw FeedError(file: file, reason: "\(data.count) bytes is larger than the \(FeedDecoder.maxDocumentBytes >> 20) MB a feed document may be")
        }
        let root = JSONField(value: try JSONValue.parse(data, file: file), file: file, path: "")
        _ = try root.object()
        try root.checkVersion()
        var reader = Reader()
        let sections = try reader.sections(try root.required("sections"), depth: 1)
        var warnings = reader.warnings
        if warnings.count > maxWarnings {
            let more = warnings.count - maxWarnings
            warnings = Array(warnings.prefix(maxWarnings))
            warnings.append(FeedWarning("\(file): \(more) more problems in the home sections not listed"))
        }
        return HomeLoad(layout: HomeLayout(sections: sections), warnings: warnings, bytes: data.count)
    }

    /// One pass over a document: the warnings so far and the cells counted against the
    /// document's budget.
    private struct Reader {
        var warnings: [FeedWarning] = []
        var cellBudget = HomeDecoder.maxTotalCells

        mutating func warn(_ field: JSONField, _ reason: String) {
            warnings.append(FeedWarning("\(field.file): \(field.path): \(reason)"))
        }

        mutating func sections(_ field: JSONField, depth: Int) throws(FeedError) -> [HomeSection] {
            var sections: [HomeSection] = []
            var ids = Set<String>()
            let elements = try field.array()
            if elements.count > HomeDecoder.maxSections {
                warn(field, "\(elements.count) sections; only the first \(HomeDecoder.maxSections) are shown")
            }
            for element in elements.prefix(HomeDecoder.maxSections) {
                do throws(FeedError) {
                    guard let section = try section(element, depth: depth) else { continue }
                    guard ids.insert(section.id).inserted else {
                        warn(element, "section id '\(section.id)' is used by an earlier section; skipped")
                        continue
                    }
                    sections.append(section)
                } catch {
                    warnings.append(FeedWarning("\(error); section skipped"))
                }
            }
            return sections
        }

        /// A section, or nil (with a warning) when its style is not one this build draws.
        mutating func section(_ field: JSONField, depth: Int) throws(FeedError) -> HomeSection? {
            _ = try field.object()
            let id = try HomeDecoder.identifier(try field.required("id"))
            let styleField = try field.required("style")
            let styleName = try styleField.string()
            guard let style = SectionStyle(rawValue: styleName) else {
                let known = SectionStyle.allCases.map(\.rawValue).joined(separator: ", ")
                warn(styleField, "'\(SafeText.line(styleName, maxColumns: SafeText.Limit.quoted))' is not a section style this app knows (\(known)); section skipped")
                return nil
            }
            let title = try field.member("title").map { f throws(FeedError) in try HomeDecoder.formatted(f) }
            var cells: [HomeCell] = []
            var ids = Set<String>()
            let cellsField = try field.required("cells")
            let elements = try cellsField.array()
            if elements.count > HomeDecoder.maxCells {
                warn(cellsField, "\(elements.count) cells; only the first \(HomeDecoder.maxCells) are shown")
            }
            for element in elements.prefix(HomeDecoder.maxCells) {
                guard cellBudget > 0 else {
                    warn(element, "the document has more than \(HomeDecoder.maxTotalCells) cells; the rest are not shown")
                    break
                }
                do throws(FeedError) {
                    let cell = try cell(element, depth: depth)
                    guard ids.insert(cell.id).inserted else {
                        warn(element, "cell id '\(cell.id)' is used by an earlier cell of the section; skipped")
                        continue
                    }
                    cellBudget -= 1
                    cells.append(cell)
                } catch {
                    warnings.append(FeedWarning("\(error); cell skipped"))
                }
            }
            guard !cells.isEmpty else {
                warn(cellsField, "the section has no cells to show; skipped")
                return nil
            }
            return HomeSection(id: id, style: style, title: title?.spans.isEmpty == true ? nil : title, cells: cells)
        }

        mutating func cell(_ field: JSONField, depth: Int) throws(FeedError) -> HomeCell {
            _ = try field.object()
            let id = try HomeDecoder.identifier(try field.required("id"))
            let titleField = try field.required("title")
            let title = try HomeDecoder.formatted(titleField)
            guard !title.plain.isEmpty else { throw titleField.fail("has no printable characters") }
            let subtitle = try field.member("subtitle").map { f throws(FeedError) in try HomeDecoder.formatted(f) }
            var badge: Badge?
            if let badgeField = try field.member("badge") {
                let text = SafeText.line(try badgeField.required("text").string(), maxColumns: 12)
                let color = try badgeField.member("color").map { f throws(FeedError) in try HomeDecoder.color(f) }
                if !text.isEmpty { badge = Badge(text: text, color: color ?? RGB(0xE6, 0x39, 0x46)) }
            }
            var progress: Double?
            var fromSeen = false
            if let progressField = try field.member("progress") {
                // "seen": how much of the cell's story the viewer has seen (issue 34).
                if case .string(let word) = progressField.value {
                    guard word == "seen" else { throw progressField.fail("expected a number from 0 to 1 or \"seen\", found '\(SafeText.line(String(word.prefix(20))))'") }
                    fromSeen = true
                } else {
                    let value = try progressField.number()
                    guard value.isFinite, value >= 0, value <= 1 else {
                        throw progressField.fail("expected a number from 0 to 1 or \"seen\", found \(value)")
                    }
                    progress = value
                }
            }
            if let hideField = try field.member("hide") {
                guard try hideField.string() == "seen" else { throw hideField.fail("expected \"seen\" (the cell goes once its story is seen)") }
            }
            var tooltip: Tooltip?
            if let tooltipField = try field.member("tooltip") {
                let tipID = try HomeDecoder.identifier(try tooltipField.required("id"))
                let text = SafeText.line(try tooltipField.required("text").string(), maxColumns: HomeDecoder.maxTextLength)
                if !text.isEmpty { tooltip = Tooltip(id: tipID, text: text) }
            }
            let picture = try field.member("picture").map { f throws(FeedError) in try FeedDecoder.media(f) }
            var action: HomeAction?
            if let actionField = try field.member("action") {
                action = try self.action(actionField, depth: depth)
            }
            var cell = HomeCell(id: id, title: title, subtitle: subtitle?.spans.isEmpty == true ? nil : subtitle, badge: badge,
                                progress: progress, tooltip: tooltip, picture: picture, action: action)
            cell.progressFromSeen = fromSeen
            return cell
        }

        /// An action, or nil (with a warning) when its type is not one this build runs.
        mutating func action(_ field: JSONField, depth: Int) throws(FeedError) -> HomeAction? {
            _ = try field.object()
            let typeField = try field.required("type")
            let type = try typeField.string()
            switch type {
            case "story":
                let idField = try field.required("story")
                let id = try idField.nonEmptyString()
                guard StoryIDRule.isValid(id) else { throw idField.fail("'\(SafeText.line(id, maxColumns: SafeText.Limit.quoted))' is not a story id") }
                return .openStory(id)
            case "sections":
                guard depth < HomeDecoder.maxDepth else {
                    warn(field, "sections nested more than \(HomeDecoder.maxDepth) deep; the cell shows without its action")
                    return nil
                }
                let title = try field.member("title").map { f throws(FeedError) in SafeText.line(try f.string(), maxColumns: 80) } ?? ""
                let sections = try sections(try field.required("sections"), depth: depth + 1)
                guard !sections.isEmpty else {
                    warn(field, "opens no sections; the cell shows without its action")
                    return nil
                }
                return .openSections(title: title, sections: sections)
            case "link":
                let urlField = try field.required("url")
                let url = try urlField.string()
                guard let problem = HomeDecoder.linkProblem(url) else {
                    let title = try field.member("title").map { f throws(FeedError) in SafeText.line(try f.string(), maxColumns: 80) }
                    return .openLink(Link(title: title ?? url, url: url))
                }
                throw urlField.fail(problem)
            default:
                warn(typeField, "'\(SafeText.line(type, maxColumns: SafeText.Limit.quoted))' is not an action this app knows (story, sections, link); the cell shows without it")
                return nil
            }
        }
    }

    /// Why `url` is not a link the app will open (nil when it is): http or https, with a
    /// host, no spaces or control characters, at most 2 KB.
    public static func linkProblem(_ url: String) -> String? {
        guard url.utf8.count <= maxLinkLength else { return "a link may be at most \(maxLinkLength) bytes" }
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else { return "expected an http or https URL" }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) }) else {
            return "a link may not hold spaces or control characters"
        }
        // Only the characters RFC 3986 allows in a URI (anything else percent-encoded).
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%".unicodeScalars)
        guard url.unicodeScalars.allSatisfy({ allowed.contains($0) }) else {
            return "a link may hold only the characters of a URI (others percent-encoded)"
        }
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            return "not a URL with a host"
        }
        return nil
    }

    static func identifier(_ field: JSONField) throws(FeedError) -> String {
        let id = try field.nonEmptyString()
        guard id.utf8.count <= 128, SafeText.line(id) == id else {
            throw field.fail("expected an id of at most 128 bytes with no control characters")
        }
        return id
    }

    /// A span's text: cleaned like any line, but a space at either end is kept, since
    /// spans are joined ("Continue " + "watching").
    static func spanText(_ raw: String, limit: Int) -> String {
        var words = SafeText.line(raw, maxColumns: limit)
        guard !words.isEmpty, limit - words.displayWidth >= 1 else { return words }
        if raw.first?.isWhitespace == true { words = " " + words }
        if raw.last?.isWhitespace == true, limit - words.displayWidth >= 1 { words += " " }
        return words
    }

    static func color(_ field: JSONField) throws(FeedError) -> RGB {
        let name = try field.string()
        if let rgb = namedColors[name.lowercased()] ?? RGB(hex: name) { return rgb }
        throw field.fail("expected a colour like \"#e63946\" or one of \(namedColors.keys.sorted().joined(separator: ", "))")
    }

    /// A string, or an array of spans `{"text", "bold", "italic", "underline", "color"}`.
    static func formatted(_ field: JSONField) throws(FeedError) -> FormattedText {
        if case .string(let raw) = field.value { return FormattedText(SafeText.line(raw, maxColumns: maxTextLength)) }
        let elements = try field.array()
        guard elements.count <= maxSpans else { throw field.fail("at most \(maxSpans) spans, found \(elements.count)") }
        var spans: [FormattedText.Span] = []
        var left = maxTextLength
        for element in elements {
            _ = try element.object()
            func flag(_ key: String) throws(FeedError) -> Bool {
                guard let member = try element.member(key) else { return false }
                guard case .bool(let value) = member.value else { throw member.fail("expected true or false, found \(member.value.kindName)") }
                return value
            }
            let words = spanText(try element.required("text").string(), limit: left)
            let spanColor = try element.member("color").map { f throws(FeedError) in try HomeDecoder.color(f) }
            let bold = try flag("bold"), italic = try flag("italic"), underline = try flag("underline")
            guard !words.isEmpty else { continue }
            left -= words.displayWidth
            spans.append(FormattedText.Span(words, bold: bold, italic: italic, underline: underline, color: spanColor))
            if left <= 0 { break }
        }
        return FormattedText(spans)
    }
}
