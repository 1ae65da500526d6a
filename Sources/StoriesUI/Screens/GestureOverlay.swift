import StoriesCells
import StoriesCore

/// The `g` overlay: the latest routing decisions as readable lines, newest at the bottom —
/// the input, the gesture it became, the handler that took it, what that did, and who
/// declined it and why — over the lower part of the screen, with the phase the recognizer
/// sees now in its title.
public enum GestureOverlay {
    public static func render(_ state: AppState, into canvas: inout Canvas) {
        let width = canvas.width
        let motion = state.reduceMotion ? " · motion off" : ""
        let panel = BottomPanel.draw(title: " Gestures · now: \(GesturePhase(state).rawValue)\(motion) · g hides ",
                                     minimumHeight: 6, into: &canvas)
        let box = panel.box, background = panel.background

        // Each decision takes one line, and a second when something declined it.
        var lines: [(String, Style)] = []
        for decision in state.gesture.log {
            let time = Self.seconds(decision.time - state.startedAt)
            lines.append(("\(time) \(decision.summary)", background.with(foreground: .palette(255))))
            if let declined = decision.detail {
                lines.append((String(repeating: " ", count: time.count + 1) + declined, background.with(foreground: Theme.muted)))
            }
        }
        let room = box.height - 1
        if lines.isEmpty {
            canvas.text("No input yet: press a key or click, and each decision shows here.", x: 2, y: box.y + 1,
                        style: background.with(foreground: Theme.muted), maxWidth: width - 4)
        }
        for (offset, line) in lines.suffix(room).enumerated() {
            canvas.text(line.0, x: 1, y: box.y + 1 + offset, style: line.1, maxWidth: width - 2)
        }
    }

    /// "12.31s", right-aligned to 7 columns.
    static func seconds(_ value: Double) -> String {
        let hundredths = max(0, Int((value * 100).rounded()))
        let text = "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)s"
        return String(repeating: " ", count: max(0, 7 - text.count)) + text
    }
}
