extension GestureRecognizer {
    // MARK: - Words

    static func milliseconds(_ seconds: Double) -> String { "\(Int((seconds * 1000).rounded())) ms" }

    public static func describe(_ event: InputEvent) -> String {
        switch event {
        case .key: return "key \(event)"
        case .mouse(let mouse):
            let kind: String
            switch mouse.kind {
            case .press(let button): kind = "press \(button)"
            case .release(let button): kind = "release \(button)"
            case .drag(let button): kind = "drag \(button)"
            case .move: kind = "move"
            case .wheelUp: kind = "wheel up"
            case .wheelDown: kind = "wheel down"
            case .wheelLeft: kind = "wheel left"
            case .wheelRight: kind = "wheel right"
            }
            return "mouse \(kind) at \(mouse.column),\(mouse.row)"
        }
    }

    public static func describe(_ step: GestureStep) -> String {
        switch step {
        case .command(let command): command.rawValue
        case .select(let index): "select \(index + 1)"
        case .focusCell(let section, let cell): "focus cell \(cell + 1) of section \(section + 1)"
        case .endDrag(_, let commit): commit ? "end drag: complete" : "end drag: snap back"
        case .completeTransition: "completeTransition"
        case .searchEdit(let edit): "search \(edit)"
        }
    }

    public static func describe(_ drag: Drag) -> String {
        switch drag {
        case .swipe(let offset): "drag swipe \(format(offset))"
        case .dismiss(let offset): "drag down \(format(offset))"
        }
    }

    static func format(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = abs(hundredths)
        return "\(sign)\(magnitude / 100).\(magnitude % 100 < 10 ? "0" : "")\(magnitude % 100)"
    }
}
