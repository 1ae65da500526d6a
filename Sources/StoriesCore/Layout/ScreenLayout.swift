/// The few facts of the screen's layout that the app's logic needs: the smallest usable
/// size and where the ring row's bubbles are. The reducer hit-tests a click with them (the
/// gesture recognizer is part of it), and `HomeScreen` draws with the same numbers, so a
/// click and a bubble can never disagree.
public enum ScreenLayout {
    public static let minimumWidth = 40
    public static let minimumHeight = 12

    /// Big enough to draw the app (below this one line says so and the mouse does nothing).
    public static func isUsable(width: Int, height: Int) -> Bool {
        width >= minimumWidth && height >= minimumHeight
    }

    /// The cells a story's photo fills on a screen of this size: everything below the
    /// progress bar and above the hint line (what the viewer draws and the preloader renders for).
    public static func photoSize(width: Int, height: Int) -> (width: Int, height: Int) { (width, max(0, height - 2)) }
}

/// The ring row's geometry: bubbles of `slotWidth` columns from column `leftMargin`, on
/// rows `row ..< row + bubbleHeight`, scrolled so that the selection stays in view.
public enum RingLayout {
    public static let row = 2
    public static let leftMargin = 2
    public static let slotWidth = ViewModelFactory.bubbleNameWidth + 1
    public static let bubbleHeight = 4
    public static let ringWidth = 8

    /// How many bubbles fit across a screen `width` wide.
    public static func visibleBubbles(width: Int) -> Int {
        max(1, (width - 2 * leftMargin) / slotWidth)
    }

    /// The first story in view: the selection stays in view, centred when the row scrolls.
    /// Derived from the selection alone, so the row needs no scroll state of its own.
    public static func firstVisible(selection: Int, count: Int, visible: Int) -> Int {
        guard count > visible else { return 0 }
        return min(max(0, selection - visible / 2), count - visible)
    }

    /// The left column of the `slot`th bubble in view: from the left, or right to left from
    /// the right edge (the row mirrored, issue 33).
    public static func slotX(_ slot: Int, width: Int, rightToLeft: Bool) -> Int {
        rightToLeft ? width - leftMargin - (slot + 1) * slotWidth : leftMargin + slot * slotWidth
    }

    /// A column of the screen as the left-to-right row would have it (the same column unless
    /// the row runs right to left): hit tests read the mirrored row through it.
    static func logicalColumn(_ column: Int, state: AppState) -> Int {
        state.isRightToLeft ? state.screenWidth - 1 - column : column
    }

    /// The story whose bubble covers a cell of the home screen, if any.
    public static func bubbleIndex(atColumn physical: Int, row cellRow: Int, state: AppState) -> Int? {
        let column = logicalColumn(physical, state: state)
        guard !state.isLoading, state.home.levels.count == 1, cellRow >= row, cellRow < row + bubbleHeight,
              column >= leftMargin else { return nil }
        let visible = visibleBubbles(width: state.screenWidth)
        let first = firstVisible(selection: state.row.selection, count: state.feed.store.count, visible: visible)
        let slot = (column - leftMargin) / slotWidth
        let index = first + slot
        guard slot < visible, state.feed.store.summaries.indices.contains(index) else { return nil }
        return index
    }

    /// What a click on the row's ‹ (more before) or › (more after) runs, where one is drawn.
    public static func arrow(atColumn physical: Int, row cellRow: Int, state: AppState) -> Command? {
        let column = logicalColumn(physical, state: state)
        guard state.viewer == nil, state.isUsable, state.home.levels.count == 1, cellRow == row + 1 else { return nil }
        let count = state.feed.store.count
        guard count > 0 else { return nil }
        let visible = visibleBubbles(width: state.screenWidth)
        let first = firstVisible(selection: state.row.selection, count: count, visible: visible)
        if column == 0, first > 0 { return .screenfulPrevious }
        if column == state.screenWidth - 1, first + visible < count || state.feed.store.hasMore { return .screenfulNext }
        return nil
    }
}
