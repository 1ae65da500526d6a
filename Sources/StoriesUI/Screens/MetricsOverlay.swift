import StoriesCells
import StoriesCore

/// The `i` overlay: how long the latest navigations took to become visible (t2 items, t1
/// view models, t3 media) and whether the preloader had them ready, a live strip of the
/// preload window item by item, and memory and bytes.
public enum MetricsOverlay {
    public static func render(_ metrics: MetricsSnapshot, into canvas: inout Canvas) {
        let width = canvas.width
        var title = " Metrics · preload \(metrics.policy.rawValue)"
        if metrics.navigations > 0 {
            title += " · hits \(metrics.hits)/\(metrics.navigations) (\(metrics.hits * 100 / metrics.navigations)%)"
        }
        let panel = BottomPanel.draw(title: title + " · i hides ", minimumHeight: 8, into: &canvas)
        let box = panel.box, background = panel.background

        var y = box.y + 1
        let strong = background.with(foreground: .palette(255))
        let muted = background.with(foreground: Theme.muted)
        // Memory and bytes.
        // Small amounts in KB: "0.0 MB (23%)" said nothing true.
        let wasted = metrics.bytesFetched > 0 ? " (\(metrics.bytesNeverShown * 100 / metrics.bytesFetched)% of it)" : ""
        canvas.text("memory \(bytes(metrics.memoryBytes)) of \(bytes(metrics.memoryBudget)) · fetched \(bytes(metrics.bytesFetched)) · never shown \(bytes(metrics.bytesNeverShown))\(wasted)",
                    x: 1, y: y, style: muted, maxWidth: width - 2)
        y += 1
        // Video, once any has played: the live players, frames shown and dropped.
        if metrics.framesShown > 0 || metrics.livePlayers > 0 {
            canvas.text("video \(metrics.livePlayers) live · \(metrics.framesShown) frames shown · \(metrics.framesDropped) dropped",
                        x: 1, y: y, style: muted, maxWidth: width - 2)
            y += 1
        }
        // What the adaptive window learned and chose.
        if !metrics.preloadState.isEmpty, box.maxY - y > 3 {
            canvas.text(metrics.preloadState, x: 1, y: y, style: muted, maxWidth: width - 2)
            y += 1
        }
        // The preload window, most urgent first.
        var x = 1
        x += canvas.text("window ", x: x, y: y, style: muted)
        if metrics.window.isEmpty {
            canvas.text("nothing to prepare", x: x, y: y, style: muted, maxWidth: width - x - 1)
        }
        for item in metrics.window {
            let text = "\(item.label) \(item.stage)"
            guard x + text.displayWidth + 3 < width else { break }
            let style = item.isVisible ? strong.adding(.bold) : background.with(foreground: color(of: item.stage))
            x += canvas.text("[" + text + "]", x: x, y: y, style: style)
            x += 1
        }
        y += 1
        // The latest navigations, newest at the bottom.
        let rows = box.maxY - y
        guard rows > 0 else { return }
        if metrics.latest.isEmpty {
            canvas.text("No navigation measured yet: open a story and tap through it.", x: 1, y: y, style: muted, maxWidth: width - 2)
            return
        }
        for record in metrics.latest.suffix(rows) {
            let line = "\(pad(record.trigger, 24)) visible \(pad(ms(record.timeToVisible), 8))"
                + " t2 \(ms(record.t2)) · t1 \(ms(record.t1)) · t3 \(ms(record.t3)) · first frame \(ms(record.firstFrame))"
            // "left": the next navigation came before this one was whole.
            let mark = !record.complete ? "left" : record.hit ? "hit " : "miss"
            x = 1 + canvas.text(mark, x: 1, y: y, style: background.with(foreground: record.hit ? .palette(114) : Theme.warning).adding(.bold))
            canvas.text(" " + line, x: x, y: y, style: strong, maxWidth: width - x - 1)
            y += 1
        }
    }

    static func color(of stage: String) -> Color {
        switch stage {
        case "shown", "ready": .palette(114)
        case "fetching", "decoding": .palette(221)
        case "failed": Theme.warning
        default: Theme.muted
        }
    }

    static func ms(_ value: Double) -> String {
        value < 10 ? "\(Int((value * 10).rounded()) / 10).\(Int((value * 10).rounded()) % 10) ms" : "\(Int(value.rounded())) ms"
    }

    /// "512 B", "195 KB", "3.1 MB": never a rounded-away "0.0 MB".
    static func bytes(_ count: Int) -> String {
        if count < 1024 { return "\(max(0, count)) B" }
        if count < 1_048_576 { return "\(Int((Double(count) / 1024).rounded())) KB" }
        let tenths = Int((Double(count) / 104_857.6).rounded())
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        let shown = text.truncated(toWidth: width)
        return shown + String(repeating: " ", count: max(0, width - shown.displayWidth))
    }
}
