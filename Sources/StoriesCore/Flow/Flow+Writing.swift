import Foundation

/// A flow as `stories record --flow` writes it: the header, the recording's input lines (a
/// flow step each, with its `t`), and checkpoints — what the screen showed as it happened,
/// as expectations a person edits by hand.
extension Flow {
    /// The first line: the session's screen, start, seen state and setup.
    public static func headerLine(width: Int, height: Int, started: Double, seen: SeenState, setup: SessionSetup?) -> String {
        var members: [String: JSONValue] = [
            "stories-flow": .int(formatVersion), "width": .int(width), "height": .int(height), "started": .number(started),
        ]
        if !seen.items.isEmpty { members["seen"] = .object(seen.items.mapValues { .strings($0.sorted()) }) }
        if !seen.tooltips.isEmpty { members["tooltips"] = .strings(seen.tooltips.sorted()) }
        members.put("setup", setup?.json)
        return JSONValue.object(members).text()
    }

    /// A checkpoint: an expectation at `time`, checked at that moment (`now`) when the flow runs.
    public static func checkpointLine(_ expectation: FlowExpectation, at time: Double) -> String? {
        var members: [String: JSONValue] = ["t": .number((time * 1000).rounded() / 1000), "now": .bool(true)]
        switch expectation {
        case .shown(.home):
            members["expect"] = .string("shown")
            members["home"] = .bool(true)
        case .shown(.story(let story, let item)):
            members["expect"] = .string("shown")
            members["story"] = .string(story)
            switch item {
            case .number(let number)?: members["item"] = .int(number)
            case .id(let id)?: members["item"] = .string(id)
            case nil: break
            }
        case .gesture(let gesture):
            members["expect"] = .string("gesture")
            members.put("gesture", gesture.gesture.map(JSONValue.string))
            members.put("handler", gesture.handler.map(JSONValue.string))
            if !gesture.declined.isEmpty { members["declined"] = .strings(gesture.declined) }
            if !gesture.result.isEmpty { members["result"] = .strings(gesture.result) }
        case .text(let text, _, let present):
            members["expect"] = .string("text")
            members["text"] = .string(text)
            if !present { members["visible"] = .bool(false) }
        default:
            return nil
        }
        return JSONValue.object(members).text()
    }

    /// The checkpoint a routing decision makes: what it became, who took it and who declined
    /// it — for a gesture a person made (not a press still being decided, nor a drag's
    /// following steps).
    public static func checkpoint(for decision: GestureDecision) -> FlowExpectation? {
        guard decision.gesture != "none", decision.gesture != "press", !decision.gesture.hasSuffix("(following)"),
              decision.handler != "recognizer" else { return nil }
        return .gesture(FlowGesture(gesture: decision.gesture, handler: decision.handler,
                                    declined: Array(Set(decision.declined.map(\.recognizer))).sorted()))
    }
}
