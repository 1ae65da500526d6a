import StoriesCore

/// Basic mouse routing for the walking skeleton, done where the layout is known: a click on
/// a bubble opens it, the wheel moves along the ring row, a click in the viewer's left third
/// taps back and in the rest taps forward, any click closes the help. Issue 5's gesture
/// router (drags, hold, swipe) replaces this.
public enum PointerRouting {
    public static func actions(for mouse: MouseEvent, state: AppState, width: Int, height: Int) -> [AppAction] {
        guard width >= AppView.minimumWidth, height >= AppView.minimumHeight else { return [] }
        if state.showsHelp {
            if case .press = mouse.kind { return [.command(.closeHelp)] }
            return []
        }
        if state.viewer != nil {
            guard mouse.kind == .press(.left) else { return [] }
            return [.command(mouse.column < width / 3 ? .previousItem : .nextItem)]
        }
        switch mouse.kind {
        case .wheelDown, .wheelRight: return [.command(.selectNext)]
        case .wheelUp, .wheelLeft: return [.command(.selectPrevious)]
        case .press(.left):
            guard let index = bubbleIndex(atColumn: mouse.column, row: mouse.row, state: state, width: width) else { return [] }
            return [.select(index), .command(.open)]
        default:
            return []
        }
    }

    /// The story whose bubble covers a cell of the home screen, if any.
    public static func bubbleIndex(atColumn column: Int, row: Int, state: AppState, width: Int) -> Int? {
        guard !state.isLoading, (HomeScreen.ringRow..<(HomeScreen.ringRow + Bubble.height)).contains(row),
              column >= 2 else { return nil }
        let visible = HomeScreen.visibleBubbles(width: width)
        let first = HomeScreen.firstVisible(selection: state.selection, count: state.store.count, visible: visible)
        let slot = (column - 2) / Bubble.slotWidth
        let index = first + slot
        guard slot < visible, state.store.summaries.indices.contains(index) else { return nil }
        return index
    }
}
