import StoriesCore

/// Turns one input into actions, the same way for the terminal and for tests: keys through
/// the key bindings (an unbound Alt+key is read as Esc then the key, each in the context the
/// one before left), the mouse through `PointerRouting`. `send` applies an action at once,
/// so the next key sees its effect. Issue 5's gesture router takes over this job.
public enum InputRouting {
    public static func route(_ event: InputEvent, bindings: KeyBindings, width: Int, height: Int,
                             state: () -> AppState, send: (AppAction) -> Void) {
        switch event {
        case .key:
            let keys = bindings.resolving(event, in: state().inputContext)
            guard keys == [event] else {
                for key in keys {
                    route(key, bindings: bindings, width: width, height: height, state: state, send: send)
                }
                return
            }
            if let command = bindings.command(for: event, in: state().inputContext) {
                send(.command(command))
            }
        case .mouse(let mouse):
            for action in PointerRouting.actions(for: mouse, state: state(), width: width, height: height) {
                send(action)
            }
        }
    }
}
