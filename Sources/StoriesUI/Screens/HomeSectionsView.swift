import StoriesCells
import StoriesCore

/// The server-driven sections of the home screen, drawn from their view models at the
/// places `HomeGeometry` gives (the same places a click is tested against). Four styles:
/// ring (bubbles), cards (boxes side by side), list (a line per cell) and banner (one wide
/// picture at a time with its text over it).
enum HomeSectionsView {
    static let focusColor = Theme.accent
    static let boxColor = Color.palette(240)
    static let selectedRow = Color.palette(237)

    static func draw(_ state: AppState, into canvas: inout Canvas, banners: AppView.PictureLookup) {
        guard let models = state.currentHomeModels else { return }
        let level = state.home.level
        let visible = HomeGeometry.visibleSections(state)
        let bottom = HomeGeometry.bottom(state)
        for (index, y) in visible {
            guard let section = level.sections[safe: index], let model = models.sections.model(for: index) else { continue }
            let selected = level.selected[safe: index] ?? 0, isFocused = level.focus == index
            guard y + HomeGeometry.height(of: section) > bottom else {
                draw(model, section: section, selected: selected, isFocused: isFocused, y: y, into: &canvas, banners: banners)
                continue
            }
            // Only the focused section can be cut short (it is drawn even when it does not
            // fit): drawn on a copy of which only the section area is kept, so it ends above
            // the footer lines, never over them.
            var drawn = canvas
            draw(model, section: section, selected: selected, isFocused: isFocused, y: y, into: &drawn, banners: banners)
            canvas.copyRows(y..<bottom, from: drawn)
            if let focus = drawn.cursor, (y..<bottom).contains(focus.y) { canvas.cursor = focus }
        }
        if let first = visible.first, first.index > 0 {
            canvas.text("↑", x: canvas.width - 2, y: first.y, style: Theme.mutedText)
        }
    }

    /// "↓ 2 more sections" when sections below are out of view (the hint line shows it
    /// where there is room).
    static func moreBelow(_ state: AppState) -> String? {
        guard state.currentHomeModels != nil, let last = HomeGeometry.visibleSections(state).last,
              last.index < state.home.level.sections.count - 1 else { return nil }
        let more = state.home.level.sections.count - 1 - last.index
        return "↓ \(more) more section" + (more == 1 ? "" : "s")
    }

    static func draw(_ model: HomeSectionViewModel, section: HomeSection, selected: Int, isFocused: Bool, y: Int,
                     into canvas: inout Canvas, banners: AppView.PictureLookup) {
        let width = canvas.width
        // The title line: a marker where the keyboard is, the title, and "3/8" when the
        // section has more cells than are in view.
        if isFocused { canvas.text("▸", x: 0, y: y, style: Style(foreground: focusColor, attributes: [.bold])) }
        let titleStyle = Style(foreground: isFocused ? .palette(255) : .palette(250), attributes: [.bold])
        if let title = model.title {
            drawFormatted(title, x: HomeGeometry.leftMargin, y: y, base: titleStyle, maxWidth: width - 12, into: &canvas)
        }
        let boxes = HomeGeometry.cellBoxes(section, selected: selected, y: y, screenWidth: width)
        if boxes.count < model.cells.count, model.style != .banner {
            let position = "\(min(selected, model.cells.count - 1) + 1)/\(model.cells.count)"
            canvas.text(position, x: width - position.displayWidth - 3, y: y, style: Theme.mutedText)
        }
        for (index, box) in boxes {
            guard let cell = model.cells[safe: index] else { continue }
            let isSelected = isFocused && index == selected
            // The focus on the cell's text (a bubble puts it on its name itself).
            if isSelected {
                switch model.style {
                case .ring: break
                case .cards: canvas.focus(x: box.x + 2, y: box.y + 1)
                case .list: canvas.focus(x: box.x + 2, y: box.y)
                case .banner: break // on its title, which `drawBanner` places
                }
            }
            switch model.style {
            case .ring: drawBubble(cell, box: box, isSelected: isSelected, into: &canvas)
            case .cards: drawCard(cell, box: box, isSelected: isSelected, into: &canvas)
            case .list: drawRow(cell, box: box, isSelected: isSelected, into: &canvas)
            case .banner:
                drawBanner(cell, box: box, isSelected: isSelected, position: index, count: model.cells.count,
                           into: &canvas, banners: banners)
            }
        }
        // Cells scrolled out of view on either side.
        if let first = boxes.first, let last = boxes.last, model.style != .banner, model.style != .list {
            let arrow = Style(foreground: focusColor, attributes: [.bold])
            if first.cell > 0 { canvas.text("‹", x: 0, y: first.box.y + 1, style: arrow) }
            if last.cell < model.cells.count - 1 { canvas.text("›", x: width - 1, y: first.box.y + 1, style: arrow) }
        }
    }

    static func drawBubble(_ cell: HomeCellViewModel, box: Rect, isSelected: Bool, into canvas: inout Canvas) {
        Bubble(name: cell.name, initials: cell.initials, ring: cell.isSeen ? .seen : .unseen, isSelected: isSelected)
            .draw(into: &canvas, x: box.x, y: box.y)
        if let badge = cell.badge {
            // A small tag on the ring's top-right corner.
            let text = badge.text.truncated(toWidth: 4, ellipsis: false)
            let x = box.x + RingLayout.ringWidth + 1 - text.displayWidth
            canvas.text(text, x: x, y: box.y, style: badgeStyle(badge))
        }
    }

    static func drawCard(_ cell: HomeCellViewModel, box: Rect, isSelected: Bool, into canvas: inout Canvas) {
        let border = Style(foreground: isSelected ? focusColor : boxColor, attributes: isSelected ? [.bold] : [])
        let (h, v, tl, tr, bl, br) = isSelected ? ("━", "┃", "┏", "┓", "┗", "┛") : ("─", "│", "╭", "╮", "╰", "╯")
        let inner = max(0, box.width - 2)
        canvas.text(tl + String(repeating: h, count: inner) + tr, x: box.x, y: box.y, style: border, ellipsis: false)
        for row in 1..<(box.height - 1) {
            canvas.text(v, x: box.x, y: box.y + row, style: border)
            canvas.text(v, x: box.x + box.width - 1, y: box.y + row, style: border)
        }
        canvas.text(bl + String(repeating: h, count: inner) + br, x: box.x, y: box.y + box.height - 1, style: border, ellipsis: false)
        let textX = box.x + 2, textWidth = max(1, box.width - 4)
        drawFormatted(cell.title, x: textX, y: box.y + 1, base: Style(foreground: .palette(255), attributes: [.bold]),
                      maxWidth: textWidth, into: &canvas)
        if let subtitle = cell.subtitle {
            drawFormatted(subtitle, x: textX, y: box.y + 2, base: Theme.mutedText, maxWidth: textWidth, into: &canvas)
        }
        var x = textX
        if let badge = cell.badge {
            x += canvas.text(" " + badge.text + " ", x: x, y: box.y + 3, style: badgeStyle(badge), maxWidth: textWidth) + 1
        }
        if let progress = cell.progress {
            drawProgress(progress, label: cell.progressLabel, x: x, y: box.y + 3, width: textX + textWidth - x, into: &canvas)
        }
    }

    static func drawRow(_ cell: HomeCellViewModel, box: Rect, isSelected: Bool, into canvas: inout Canvas) {
        let background: Color = isSelected ? selectedRow : .default
        if isSelected { canvas.fill(Rect(x: box.x - 1, y: box.y, width: box.width + 1, height: 1), style: Style(background: background)) }
        canvas.text(isSelected ? "▸" : "·", x: box.x, y: box.y,
                    style: Style(foreground: isSelected ? focusColor : Theme.muted, background: background, attributes: [.bold]))
        // The right side first (badge, progress), then the text in what is left.
        var right = box.x + box.width
        if let progress = cell.progress {
            let barWidth = min(16, max(0, box.width / 4))
            right -= barWidth
            drawProgress(progress, label: cell.progressLabel, x: right, y: box.y, width: barWidth, into: &canvas, background: background)
            right -= 1
        }
        if let badge = cell.badge {
            let text = " " + badge.text + " "
            right -= text.displayWidth
            canvas.text(text, x: right, y: box.y, style: badgeStyle(badge))
            right -= 1
        }
        let textX = box.x + 2
        let available = max(0, right - textX - 1)
        var used = drawFormatted(cell.title, x: textX, y: box.y, base: Style(foreground: .palette(255), background: background,
                                                                            attributes: [.bold]),
                                 maxWidth: available, into: &canvas)
        if let subtitle = cell.subtitle, available - used > 4 {
            used += canvas.text("  ", x: textX + used, y: box.y, style: Style(background: background))
            drawFormatted(subtitle, x: textX + used, y: box.y, base: Style(foreground: Theme.muted, background: background),
                          maxWidth: available - used, into: &canvas)
        }
    }

    /// A banner: a panel with the cell's text at the left and its picture at the right,
    /// the badge on the panel's top edge, dots for where it is among the section's banners.
    static func drawBanner(_ cell: HomeCellViewModel, box: Rect, isSelected: Bool, position: Int, count: Int,
                           into canvas: inout Canvas, banners: AppView.PictureLookup) {
        let rect = box
        let panel = cell.badge.map { dim($0.color) } ?? Theme.placeholderBackground
        canvas.fill(rect, style: Style(background: panel))
        let size = HomeGeometry.bannerPictureSize(screenWidth: canvas.width)
        let pictureRect = Rect(x: rect.maxX - size.width, y: rect.y, width: size.width, height: size.height)
        var textWidth = rect.width - 4
        if let picture = cell.picture {
            textWidth = max(1, pictureRect.x - rect.x - 4)
            switch banners(picture) {
            case .ready(let cells), .placeholder(let cells):
                ViewerScreen.blit(cells, at: pictureRect, into: &canvas)
            case .loading:
                canvas.fill(pictureRect, style: Style(background: Theme.placeholderBackground))
                canvas.centered("▣", in: pictureRect, y: pictureRect.y + pictureRect.height / 2,
                                style: Style(foreground: Theme.placeholderFrame, background: Theme.placeholderBackground))
            case .failed(let reason):
                canvas.fill(pictureRect, style: Style(background: Theme.placeholderBackground))
                canvas.text("⚠ " + reason, x: pictureRect.x + 1, y: pictureRect.y + 1,
                            style: Style(foreground: Theme.warning, background: Theme.placeholderBackground),
                            maxWidth: pictureRect.width - 2)
            }
        }
        let textX = rect.x + 2
        var y = rect.y + 1
        if let badge = cell.badge {
            canvas.text(" " + badge.text + " ", x: textX, y: y, style: badgeStyle(badge), maxWidth: textWidth)
            y += 1
        }
        y += 1
        if isSelected { canvas.focus(x: textX, y: y) } // on the title
        drawFormatted(cell.title, x: textX, y: y, base: Style(foreground: .palette(255), background: panel, attributes: [.bold]),
                      maxWidth: textWidth, into: &canvas)
        y += 1
        if let subtitle = cell.subtitle {
            drawFormatted(subtitle, x: textX, y: y, base: Style(foreground: .palette(250), background: panel),
                          maxWidth: textWidth, into: &canvas)
            y += 1
        }
        if let progress = cell.progress, y < rect.maxY - 1 {
            drawProgress(progress, label: cell.progressLabel, x: textX, y: y, width: min(30, textWidth), into: &canvas,
                         background: panel)
        }
        if count > 1 {
            // Where this banner is among the section's: ● ○ ○, or "2/12" when there are many.
            let dots = count <= 8 ? (0..<count).map { $0 == position ? "●" : "○" }.joined(separator: " ") : "\(position + 1)/\(count)"
            canvas.text(dots, x: textX, y: rect.maxY - 1, style: Style(foreground: .palette(252), background: panel))
        }
        if isSelected {
            // The focus colour down the banner's left edge (a line, not a block: block cells
            // are a picture's, which the readability pass leaves alone; a line is a mark it
            // keeps at 3:1 on whatever the banner has there), and arrows where there is more.
            for row in rect.y..<rect.maxY { canvas.overlay("┃", x: rect.x, y: row, foreground: focusColor) }
            let arrow = Style(foreground: focusColor, attributes: [.bold])
            if position > 0 { canvas.text("‹", x: 0, y: rect.y + rect.height / 2, style: arrow) }
            if position < count - 1 { canvas.text("›", x: min(canvas.width - 1, rect.maxX), y: rect.y + rect.height / 2, style: arrow) }
        }
    }

    /// The focused cell's tooltip, once: a box under the cell (over it when there is no
    /// room below), in the focus colour.
    static func drawTooltip(_ state: AppState, into canvas: inout Canvas) {
        guard let tip = state.visibleTooltip, let focused = state.home.level.focusedCell,
              let placed = HomeGeometry.visibleSections(state).first(where: { $0.index == focused.section }),
              let section = state.home.level.sections[safe: focused.section],
              let box = HomeGeometry.cellBoxes(section, selected: focused.cell, y: placed.y, screenWidth: canvas.width)
                .first(where: { $0.cell == focused.cell })?.box else { return }
        let maxText = max(10, min(48, canvas.width - 8))
        let lines = Array(TextWrap.lines("Tip: " + tip.text, width: maxText).prefix(3))
        let innerWidth = lines.map(\.displayWidth).max() ?? 0
        let width = innerWidth + 4, height = lines.count + 2
        // Below the cell, else above its section (its title, with the focus marker, stays in
        // view); never over the lines at the bottom.
        var y = box.y + box.height
        if y + height > HomeGeometry.bottom(state) { y = max(1, placed.y - height) }
        let x = max(0, min(box.x, canvas.width - width))
        let frame = Style(foreground: focusColor, background: .palette(236), attributes: [.bold])
        let inside = Style(foreground: .palette(255), background: .palette(236))
        canvas.fill(Rect(x: x, y: y, width: width, height: height), style: inside)
        canvas.text("╭" + String(repeating: "─", count: width - 2) + "╮", x: x, y: y, style: frame, ellipsis: false)
        for (offset, line) in lines.enumerated() {
            canvas.text("│", x: x, y: y + 1 + offset, style: frame)
            canvas.text(line, x: x + 2, y: y + 1 + offset, style: inside, maxWidth: innerWidth)
            canvas.text("│", x: x + width - 1, y: y + 1 + offset, style: frame)
        }
        canvas.text("╰" + String(repeating: "─", count: width - 2) + "╯", x: x, y: y + height - 1, style: frame, ellipsis: false)
    }

    // MARK: - Pieces

    static func color(_ rgb: RGB) -> Color { .rgb(rgb.red, rgb.green, rgb.blue) }

    static func dim(_ rgb: RGB) -> Color {
        .rgb(UInt8(Double(rgb.red) * 0.35), UInt8(Double(rgb.green) * 0.35), UInt8(Double(rgb.blue) * 0.35))
    }

    static func badgeStyle(_ badge: Badge) -> Style {
        // Dark text on a light badge, light text on a dark one.
        let luma = 0.299 * Double(badge.color.red) + 0.587 * Double(badge.color.green) + 0.114 * Double(badge.color.blue)
        return Style(foreground: luma > 150 ? .rgb(0, 0, 0) : .rgb(255, 255, 255), background: color(badge.color), attributes: [.bold])
    }

    /// A bar of `width` cells (the label after it when there is room), at half-cell steps.
    static func drawProgress(_ value: Double, label: String?, x: Int, y: Int, width: Int, into canvas: inout Canvas,
                             background: Color = .default) {
        guard width > 0 else { return }
        let label = label.map { " " + $0 } ?? ""
        let showsLabel = width - label.displayWidth >= 4
        let barWidth = showsLabel ? width - label.displayWidth : width
        let halves = Int((min(1, max(0, value)) * Double(barWidth * 2)).rounded(.down))
        for cell in 0..<barWidth {
            let filled = halves - cell * 2
            let (glyph, foreground) = filled >= 2 ? ("━", Theme.progressDone) : (filled == 1 ? ("╸", Theme.progressDone) : ("─", Theme.progressTodo))
            canvas.text(glyph, x: x + cell, y: y, style: Style(foreground: foreground, background: background))
        }
        guard showsLabel else { return }
        canvas.text(label, x: x + barWidth, y: y, style: Style(foreground: Theme.muted, background: background))
    }

    /// Formatted text in its spans' emphasis and colours over `base`; returns the columns used.
    @discardableResult
    static func drawFormatted(_ text: FormattedText, x: Int, y: Int, base: Style, maxWidth: Int, into canvas: inout Canvas) -> Int {
        var used = 0
        for span in text.spans where used < maxWidth {
            var style = base
            if span.bold { style = style.adding(.bold) }
            if span.italic { style = style.adding(.italic) }
            if span.underline { style = style.adding(.underline) }
            if let rgb = span.color { style = style.with(foreground: color(rgb)) }
            used += canvas.text(span.text, x: x + used, y: y, style: style, maxWidth: maxWidth - used)
        }
        return used
    }


}
