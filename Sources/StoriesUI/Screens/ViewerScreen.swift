import StoriesMedia
import StoriesCells
import StoriesCore

/// The full-screen viewer: progress bar, author line, the item, caption, key hints.
public enum ViewerScreen {
    public static func render(_ state: AppState, viewer: ViewerState, into canvas: inout Canvas,
                              pictures: AppView.PictureLookup = { _ in .loading }) {
        let width = canvas.width, height = canvas.height
        guard !viewer.isWaiting, let story = state.feed.store.story(at: viewer.storyIndex),
              story.items.indices.contains(viewer.itemIndex) else {
            renderWaiting(state, viewer: viewer, into: &canvas)
            return
        }
        let item = story.items[viewer.itemIndex]
        // The item's view model; for the frame or two before it is built, the header shows
        // the name alone and no caption.
        let model = state.viewModels.items[story.id]?[safe: viewer.itemIndex].flatMap { $0.key.item == item.id ? $0 : nil }

        let fraction = viewer.playback.elapsed(at: state.now.uptime) / state.duration(of: item)
        ProgressBar(segments: story.items.count, current: viewer.itemIndex, fraction: fraction, rightToLeft: state.isRightToLeft)
            .draw(into: &canvas, in: progressRect(width: width))

        let bottomLines = 3
        let media = Rect(x: 0, y: 2, width: width, height: height - 3 - bottomLines)
        // A photo fills everything between the progress bar and the hint line; the header
        // and caption lie on darkened bands of it.
        let size = ScreenLayout.photoSize(width: width, height: height)
        let photo = Rect(x: 0, y: 1, width: size.width, height: size.height) // the size `RenditionKey.viewer` asks for
        var overPhoto = false
        /// The photo in real pixels, where the terminal shows them, and what it shows.
        var pixels: PixelPicture?
        var pixelsSource = ""
        /// On a text card: the header and caption lie on the card's colour, not darkened.
        var overCard = false
        /// A photo, or a video's frame: the picture, or what stands in for it and why.
        func drawPicture(_ file: Media, symbol: String, kind: String, failure: String, reason: String?) {
            switch reason.map(PictureState.failed) ?? pictures(file) {
            case .ready(let cells):
                blit(cells, at: photo, into: &canvas)
                overPhoto = true
                pixels = cells.picture
                pixelsSource = file.location
            case .placeholder(let cells):
                blit(cells, at: photo, into: &canvas)
                overPhoto = true
            case .loading:
                drawPlaceholder(symbol: symbol, kind: kind, media: file, in: media, into: &canvas)
            case .failed(let reason):
                drawPlaceholder(symbol: "⚠", kind: failure, media: file, in: media, into: &canvas, detail: reason)
            }
        }
        switch item.content {
        case .text(let text, let background):
            // The card's colour fills the whole area a photo would (header to hint line);
            // its text is centred between the header and the caption.
            drawText(text, lines: model.flatMap { $0.width == width ? $0.textLines : nil }, background: background, in: media,
                     filling: photo, into: &canvas)
            overCard = true
        case .image(let file) where state.played(item) == nil:
            drawPicture(file, symbol: "▣", kind: "photo", failure: "cannot show this photo", reason: mediaFailure(state, file))
        case .image(let file):
            // A GIF that moves: played as a video is.
            drawPicture(file, symbol: "▣", kind: "photo", failure: "cannot play this animation",
                        reason: mediaFailure(state, file) ?? state.media.videos[file.location]?.failure)
        case .video(let file):
            // A player that failed says why even when a poster was made.
            drawPicture(file, symbol: "▶", kind: "video", failure: "cannot play this video",
                        reason: mediaFailure(state, file) ?? state.media.videos[file.location]?.failure)
        case .audio(let file):
            // A voice note: its waveform, drawn by the pipeline from its sound.
            drawPicture(file, symbol: "♪", kind: "voice note", failure: "cannot play this voice note", reason: mediaFailure(state, file))
        }
        if state.viewing.transition == nil { drawLoadingSign(state, in: media, into: &canvas) }
        if overPhoto { canvas.darken(rows: 1..<2) }
        var marks: [String] = []
        if let file = item.content.media, state.media.damaged[file.location] != nil, state.media.status[file.location] == .ready {
            marks.append("⚠ damaged")
        }
        if let file = state.played(item), let status = state.media.videos[file.location], status.failure == nil {
            if status.isStalled, !viewer.isPaused { marks.append("◌ buffering") }
        }
        // 🔊 while its sound is to be heard, 🔇 when off (m) or none can be played.
        if state.hasSound(item) { marks.append(state.media.sound.audible ? "🔊" : "🔇") }
        drawHeader(story: story, model: model, viewer: viewer, isHeld: state.isHeld, isAway: state.isInBackground && state.pauseOnBlur,
                   marks: marks, into: &canvas,
                   overPhoto: overPhoto || overCard, rightToLeft: state.isRightToLeft)

        var lines: [(String, Style)] = []
        var linkLines: Set<Int> = []
        if let model {
            lines += model.captionLines.map { ($0, Style(foreground: .palette(255))) }
            if let link = model.linkTitle {
                linkLines.insert(lines.count)
                lines.append(("↗ " + link, Style(foreground: Theme.accent, attributes: [.underline])))
                // `u`: the address under the title, to read before opening (o) or copying (y).
                if state.chrome.showsLinkAddress, let url = item.link?.url {
                    linkLines.insert(lines.count)
                    lines.append(("  " + SafeText.line(url, maxColumns: 2048).truncated(toWidth: max(1, width - 6)),
                                  Style(foreground: .palette(252), attributes: [.underline])))
                }
            }
        }
        if lines.count > bottomLines {
            lines = Array(lines.prefix(bottomLines))
            lines[bottomLines - 1].0 += " …"
        }
        let captionTop = media.maxY + bottomLines - lines.count
        if overPhoto, !lines.isEmpty { canvas.darken(rows: captionTop..<(captionTop + lines.count)) }
        for (offset, line) in lines.enumerated() {
            let y = overPhoto || overCard ? captionTop + offset : media.maxY + offset
            // Right to left, each line ends at the right margin.
            let x = state.isRightToLeft ? max(2, width - 2 - min(line.0.displayWidth, width - 4)) : 2
            let drawn = overPhoto || overCard
                ? canvas.overlay(line.0, x: x, y: y, foreground: line.1.foreground, attributes: line.1.attributes, maxWidth: width - 4)
                : canvas.text(line.0, x: x, y: y, style: line.1, maxWidth: width - 4)
            if linkLines.contains(offset), let url = item.link?.url, drawn > 0 {
                canvas.links.append(.init(x: x, y: y, width: drawn, url: url))
            }
        }

        drawLastLine(state, into: &canvas)
        // Real pixels between the author band and the caption: those rows stay cells, the
        // picture's own darkened bands with text on them.
        if let pixels, state.media.waiting == nil { // (none during a motion: AppView drops them)
            let top = photo.y + 1
            let bottom = min(photo.maxY, lines.isEmpty ? media.maxY + bottomLines : captionTop, pixels.rows + photo.y)
            if bottom > top {
                canvas.pictures.append(.init(rect: Rect(x: photo.x, y: top, width: min(photo.width, pixels.columns), height: bottom - top),
                                             picture: pixels, sourceRow: top - photo.y, source: pixelsSource))
            }
        }
    }

    /// The loading sign, once the picture on screen has been waited for `MediaWait.signAfter`:
    /// the loading ring's spinner, centred over whatever stands in for the picture, and
    /// under it what it waits for — after `MediaWait.slowAfter`, why it is slow. Nothing
    /// else moves meanwhile (the item's clock waits).
    static func drawLoadingSign(_ state: AppState, in rect: Rect, into canvas: inout Canvas) {
        guard let wait = state.media.waiting else { return }
        let waited = state.now.uptime - wait.since
        guard waited >= MediaWait.signAfter, rect.height >= 5, rect.width >= 12 else { return }
        var label = "loading…"
        if waited >= MediaWait.slowAfter {
            label = state.media.status[wait.location] == .decoding ? "decoding… (a large picture)" : "loading… (slow network)"
        }
        label = label.truncated(toWidth: rect.width - 2)
        let ringWidth = Bubble.ringWidth
        let top = rect.y + (rect.height - 4) / 2
        let left = rect.x + (rect.width - ringWidth) / 2
        // A dark box under the sign, so it reads over any BlurHash or poster.
        let boxWidth = max(ringWidth, label.displayWidth) + 2
        canvas.darken(rows: top..<(top + 4), columns: (rect.x + (rect.width - boxWidth) / 2)..<(rect.x + (rect.width - boxWidth) / 2 + boxWidth))
        let cells = Bubble.ringCells(left: left, top: top)
        for cell in cells {
            let glyph = switch cell.glyph { case "━": "┄"; case "┃": "┆"; default: cell.glyph }
            canvas.overlay(glyph, x: cell.x, y: cell.y, foreground: Theme.ringSeen)
        }
        let step = Int((waited - MediaWait.signAfter) * Bubble.spinnerStepsPerSecond)
        for (offset, colour) in [Theme.ringTop, Theme.ringSide, Theme.ringBottom].enumerated() {
            let cell = cells[((step - offset) % cells.count + cells.count) % cells.count]
            canvas.overlay(cell.glyph, x: cell.x, y: cell.y, foreground: colour, attributes: offset < 2 ? [.bold] : [])
        }
        canvas.overlay(label, x: rect.x + (rect.width - label.displayWidth) / 2, y: top + 3, foreground: .palette(252))
    }

    /// Why a photo or video cannot be shown, as the state has it: for good (a corrupt file, a
    /// 404), or for now (the source did not answer: it is asked for again by itself).
    static func mediaFailure(_ state: AppState, _ file: Media) -> String? {
        switch state.media.status[file.location] {
        case .failed(let reason)?: reason
        case .unreachable(let reason)?:
            reason + "\n↻ trying again by itself" + (state.media.retries[file.location].map { $0.attempt > 1 ? " · \($0.attempt) tries so far" : "" } ?? "")
        default: nil
        }
    }

    /// The key hints, or what the last key did (a link opened or copied) in their place
    /// until the next key.
    static func drawLastLine(_ state: AppState, into canvas: inout Canvas) {
        if let notice = state.chrome.notice {
            canvas.text(" " + notice, x: 0, y: canvas.height - 1, style: Style(foreground: Theme.accent), maxWidth: canvas.width)
        } else {
            Hints.draw(state, into: &canvas, y: canvas.height - 1)
        }
    }

    static func progressRect(width: Int) -> Rect { Rect(x: 1, y: 0, width: width - 2, height: 1) }

    /// The viewer while a story's items (or the next page) are on their way, or failed.
    static func renderWaiting(_ state: AppState, viewer: ViewerState, into canvas: inout Canvas) {
        let width = canvas.width, height = canvas.height
        let summary = state.feed.store.summaries[safe: viewer.storyIndex]
        ProgressBar(segments: max(1, summary?.itemIDs.count ?? 1), current: 0, fraction: 0, rightToLeft: state.isRightToLeft)
            .draw(into: &canvas, in: progressRect(width: width))
        var x = 1
        if let summary {
            x += canvas.text(ViewModelFactory.initials(of: summary.author.name), x: x, y: 1,
                             style: Style(foreground: Theme.ringSide, attributes: [.bold]), maxWidth: 4)
            canvas.text(summary.author.name, x: x + 1, y: 1, style: Style(attributes: [.bold]), maxWidth: width - x - 3)
            canvas.focus(x: x + 1, y: 1)
        }
        let media = Rect(x: 0, y: 2, width: width, height: height - 3)
        canvas.fill(media, style: Style(background: Theme.placeholderBackground))
        let background = Style(background: Theme.placeholderBackground)
        var lines: [(String, Style)]
        if summary == nil {
            lines = [("Loading more stories…", background.with(foreground: .palette(252)).adding(.bold))]
            if let notice = state.pagingNotice { lines.append((notice, background.with(foreground: Theme.warning))) }
        } else if case .failed(let reason)? = state.feed.store.items(at: viewer.storyIndex) {
            lines = [("⚠ Could not load this story", background.with(foreground: Theme.warning).adding(.bold))]
            // The address is cut in its middle, never the reason.
            lines += TextWrap.lines(reason, width: max(1, width - 8)).prefix(4)
                .map { ($0.truncatedInMiddle(toWidth: max(1, width - 8)), background.with(foreground: Theme.warning)) }
            if let summary, let retry = state.feed.storyRetries[summary.id] {
                lines.append(("↻ trying again by itself" + (retry.attempt > 1 ? " · \(retry.attempt) tries so far" : ""),
                              background.with(foreground: Theme.muted)))
            }
            lines.append(("→ next story · Esc back to the row", background.with(foreground: Theme.muted)))
        } else {
            lines = [("Loading the story…", background.with(foreground: .palette(252)).adding(.bold))]
        }
        let top = media.y + max(0, (media.height - lines.count) / 2)
        for (offset, line) in lines.enumerated() where top + offset < media.maxY {
            canvas.centered(line.0, in: media.insetBy(dx: 2, dy: 0), y: top + offset, style: line.1)
        }
        drawLastLine(state, into: &canvas)
    }

    /// Seconds until the viewer looks different with no input: the current segment gains
    /// its next half cell, or the item ends. Nil while nothing plays.
    public static func secondsUntilNextChange(_ state: AppState, width: Int) -> Double? {
        if let wait = state.media.waiting, state.viewer?.playback.isRunning != true {
            // The loading sign: it appears after `signAfter`, then turns a step at a time.
            let waited = state.now.uptime - wait.since
            if waited < MediaWait.signAfter { return MediaWait.signAfter - waited + 1e-6 }
            let steps = (waited - MediaWait.signAfter) * Bubble.spinnerStepsPerSecond
            return ((steps + 1e-9).rounded(.down) + 1 - steps) / Bubble.spinnerStepsPerSecond
        }
        guard let viewer = state.viewer, viewer.playback.isRunning, let story = state.feed.store.story(at: viewer.storyIndex) else { return nil }
        let item = story.items[viewer.itemIndex]
        let duration = state.duration(of: item)
        let elapsed = viewer.playback.elapsed(at: state.now.uptime)
        var untilEnd = max(0, duration - elapsed)
        // A video plays on at its own frame rate: wake when its next frame is due (on the
        // frame grid, so timer lateness does not pile up into skipped frames).
        if let video = state.visibleVideo, let status = state.media.videos[video.location], status.failure == nil {
            let interval = status.frameInterval
            untilEnd = min(untilEnd, ((elapsed / interval).rounded(.down) + 1) * interval - elapsed)
        }
        let widths = ProgressBar.layout(width: progressRect(width: width).width, segments: story.items.count).widths
        guard widths.indices.contains(viewer.itemIndex), widths[viewer.itemIndex] > 0 else { return untilEnd }
        let step = duration / Double(widths[viewer.itemIndex] * 2)
        let nextStep = ((elapsed / step).rounded(.down) + 1) * step - elapsed
        return min(nextStep, untilEnd)
    }

    static func drawHeader(story: Story, model: ViewerItemViewModel?, viewer: ViewerState, isHeld: Bool, isAway: Bool = false, marks: [String] = [],
                           into canvas: inout Canvas, overPhoto: Bool, rightToLeft: Bool = false) {
        let width = canvas.width
        // Over a photo the text keeps the darkened band's background.
        func draw(_ text: String, x: Int, style: Style, maxWidth: Int) -> Int {
            overPhoto
                ? canvas.overlay(text, x: x, y: 1, foreground: style.foreground == .default ? .palette(255) : style.foreground,
                                 attributes: style.attributes, maxWidth: maxWidth)
                : canvas.text(text, x: x, y: 1, style: style, maxWidth: maxWidth)
        }
        var right = model?.position ?? "\(viewer.itemIndex + 1)/\(story.items.count)"
        if viewer.isPaused {
            right = "❚❚ paused  " + right
        } else if isAway {
            right = "❚❚ in the background  " + right
        } else if isHeld {
            right = "❚❚ held  " + right
        }
        if !marks.isEmpty { right = marks.joined(separator: " ") + "  " + right }
        let rightWidth = right.displayWidth
        _ = draw(right, x: rightToLeft ? 1 : width - rightWidth - 1,
                 style: viewer.isPaused || isHeld || isAway ? Style(foreground: Theme.warning, attributes: [.bold]) : Theme.mutedText, maxWidth: rightWidth)
        let name = model?.authorName ?? story.author.name
        let age = model?.age.map { " · " + $0 } ?? ""
        let handle = model?.handle.map { "  @" + $0 } ?? ""
        if rightToLeft {
            // Mirrored: the initials at the right edge, the name to their left, the handle and
            // age to its left; where the item is, at the left.
            let initials = model?.initials ?? ""
            let initialsX = width - 1 - min(4, initials.displayWidth)
            _ = draw(initials, x: initialsX, style: Style(foreground: Theme.ringSide, attributes: [.bold]), maxWidth: 4)
            let end = initialsX - 1, start = rightWidth + 4
            let room = max(0, end - start)
            var detail = (name.displayWidth + handle.displayWidth + age.displayWidth <= room ? handle + age : age)
            detail = detail.trimmingCharacters(in: .whitespaces) + (detail.isEmpty ? "" : "  ")
            let nameWidth = min(name.displayWidth, max(min(room, 6), room - detail.displayWidth))
            let nameX = end - nameWidth
            canvas.focus(x: nameX, y: 1) // the author's name has the focus
            _ = draw(name, x: nameX, style: Style(attributes: [.bold]), maxWidth: nameWidth)
            let detailWidth = min(detail.displayWidth, max(0, nameX - start))
            _ = draw(detail, x: nameX - detailWidth, style: overPhoto ? Style(foreground: .palette(250)) : Theme.mutedText, maxWidth: detailWidth)
            return
        }

        let available = width - rightWidth - 4
        var x = 1
        x += draw(model?.initials ?? "", x: x, style: Style(foreground: Theme.ringSide, attributes: [.bold]), maxWidth: 4)
        x += 1
        // The name and how long ago come first; the handle goes first when they do not fit.
        let room = max(0, available - x + 1)
        let detail = name.displayWidth + handle.displayWidth + age.displayWidth <= room ? handle + age : age
        canvas.focus(x: x, y: 1) // the author's name has the focus
        x += draw(name, x: x, style: Style(attributes: [.bold]), maxWidth: max(min(room, 6), room - detail.displayWidth))
        _ = draw(detail, x: x, style: overPhoto ? Style(foreground: .palette(250)) : Theme.mutedText, maxWidth: max(0, available - x + 1))
    }

    /// Copies a rendered picture into the canvas.
    static func blit(_ cells: CellImage, at rect: Rect, into canvas: inout Canvas) {
        let columns = min(cells.width, rect.width)
        guard columns > 0 else { return }
        for y in 0..<min(cells.height, rect.height) {
            let row = y * cells.width
            canvas.writeRun(y: rect.y + y, columns: rect.x..<rect.x + columns) { tx in
                let cell = cells.cells[row + tx - rect.x]
                return Cell(glyph: cell.code, style: Style(foreground: cell.foreground, background: cell.background))
            }
        }
    }

    /// `lines`: the text as its view model wrapped it. Until that is built, only as much of
    /// the text as could fill the card is wrapped here: a frame's work stays bounded however
    /// long the text is.
    static func drawText(_ text: String, lines wrapped: [String]? = nil, background: RGB, in rect: Rect, filling area: Rect? = nil,
                         into canvas: inout Canvas) {
        let bg = Color.rgb(background.red, background.green, background.blue)
        canvas.fill(area ?? rect, style: Style(background: bg))
        let textWidth = max(1, rect.width - 8)
        var lines = wrapped ?? TextWrap.lines(String(text.prefix(max(64, (rect.width + 1) * (rect.height + 1)))), width: textWidth)
        if lines.count > rect.height {
            lines = Array(lines.prefix(rect.height))
            if let last = lines.indices.last { lines[last] = (lines[last] + " …").truncated(toWidth: textWidth) }
        }
        let top = rect.y + max(0, (rect.height - lines.count) / 2)
        let style = Style(foreground: .palette(255), background: bg, attributes: [.bold])
        for (offset, line) in lines.enumerated() {
            canvas.centered(line, in: rect, y: top + offset, style: style)
        }
    }

    static func drawPlaceholder(symbol: String, kind: String, media: Media, in rect: Rect, into canvas: inout Canvas,
                                detail message: String? = nil) {
        let background = Style(background: Theme.placeholderBackground)
        canvas.fill(rect, style: background)
        let frame = rect.insetBy(dx: 2, dy: 1)
        guard frame.width >= 4, frame.height >= 2 else { return }
        let line = Style(foreground: Theme.placeholderFrame, background: Theme.placeholderBackground)
        let inner = frame.width - 2
        canvas.text("╭" + String(repeating: "─", count: inner) + "╮", x: frame.x, y: frame.y, style: line)
        for y in (frame.y + 1)..<(frame.maxY - 1) {
            canvas.text("│", x: frame.x, y: y, style: line)
            canvas.text("│", x: frame.maxX - 1, y: y, style: line)
        }
        canvas.text("╰" + String(repeating: "─", count: inner) + "╯", x: frame.x, y: frame.maxY - 1, style: line)

        let name = media.location.split(separator: "/").last.map(String.init) ?? media.location
        var detail = name
        if let w = media.width, let h = media.height { detail += " · \(w)×\(h)" }
        let middle = frame.y + frame.height / 2
        let content = frame.insetBy(dx: 1, dy: 0)
        canvas.centered(symbol + " " + kind, in: content, y: middle - 1,
                        style: background.with(foreground: .palette(252)).adding(.bold))
        // The name is cut in its middle, never the reason: it wraps onto every line the frame has.
        canvas.centered(detail.truncatedInMiddle(toWidth: content.width), in: content, y: middle,
                        style: background.with(foreground: Theme.muted))
        if let message {
            let room = max(1, frame.maxY - 1 - (middle + 2))
            var lines = TextWrap.lines(message, width: max(1, content.width - 4))
            if lines.count > room { // only on a very small screen: what is left of the reason is said at its end
                lines = TextWrap.lines(message, width: max(1, content.width))
            }
            let y = lines.count > room ? middle + 1 : middle + 2
            for (offset, line) in lines.prefix(max(room, 1) + (y == middle + 1 ? 1 : 0)).enumerated() {
                canvas.centered(line.truncatedInMiddle(toWidth: content.width), in: content, y: y + offset,
                                style: background.with(foreground: Theme.warning))
            }
        }
    }
}
