/// The key hints on the screen's last row: which ones are shown for where the keyboard is,
/// which survive on a narrow screen (the most important: `?` help, the way back, the main
/// action), and where each one is, so that a click on a hint does what its key does. The
/// reducer hit-tests clicks with it and the screens draw it, so they cannot disagree.
public enum HintLine {
    /// One key of a hint, and what a click on it runs.
    public struct Key: Equatable, Sendable {
        public var text: String
        public var command: Command?
    }

    public struct Hint: Equatable, Sendable {
        public var keys: [Key]
        public var meaning: String
        /// What a click on the meaning runs.
        public var command: Command
        /// Lower is kept longer when the line does not fit.
        public var priority: Int

        public var keyText: String { keys.map(\.text).joined() }
        public var width: Int { keyText.displayWidth + 1 + meaning.displayWidth }
    }

    public struct Placed: Equatable, Sendable {
        public var hint: Hint
        public var x: Int
    }

    /// The hints for where the keyboard is now (none while the `/` field is open: it takes
    /// the line). Each key is written as the first key bound to its command in keys.conf (or
    /// the defaults), so the line shows the keys in force; a hint whose commands have no key
    /// left is not shown.
    public static func hints(_ state: AppState) -> [Hint] {
        guard state.row.search == nil else { return [] }
        // In the viewer a notice (a link opened or copied) takes the line until the next key.
        if state.viewer != nil, state.chrome.notice != nil { return [] }
        // The help or the problems list has the keyboard while it is open: its keys, as bound.
        let context: InputContext = state.chrome.modal != nil ? .box : state.viewer == nil ? .home : .viewer
        /// `keys`: the commands whose keys are shown, in order; a pair is written joined ("←→"),
        /// `spaced` apart ("[ ]").
        func hint(_ keys: [Command], _ meaning: String, _ command: Command, _ priority: Int, spaced: Bool = false) -> Hint? {
            var shown: [Key] = []
            for key in keys {
                guard let name = state.bindings.bindings(in: context).first(where: { $0.command == key })?.inputs.first?.description
                else { continue }
                if spaced, !shown.isEmpty { shown.append(Key(text: " ", command: nil)) }
                shown.append(Key(text: name, command: key))
            }
            return shown.isEmpty ? nil : Hint(keys: shown, meaning: meaning, command: command, priority: priority)
        }
        if state.chrome.modal != nil {
            return [hint([.screenfulPrevious, .screenfulNext], "scroll", .screenfulNext, 2, spaced: true),
                    hint([.closeBox], "close", .closeBox, 0)].compactMap { $0 }
        }
        if let viewer = state.viewer {
            if viewer.isWaiting || state.feed.store.story(at: viewer.storyIndex) == nil {
                return [hint([.previousItem, .nextItem], "skip", .nextItem, 2), hint([.dismiss], "close", .dismiss, 1),
                        hint([.toggleHelp], "help", .toggleHelp, 0)].compactMap { $0 }
            }
            return [hint([.previousItem, .nextItem], "item", .nextItem, 2),
                    hint([.previousStory, .nextStory], "story", .nextStory, 3, spaced: true),
                    hint([.togglePause], viewer.isPaused ? "play" : "pause", .togglePause, 4),
                    hint([.nextUnseen], "unseen", .nextUnseen, 5),
                    // A video with sound, or a voice note: m, said as what it does now.
                    state.visibleItem.map(state.hasSound) == true ? hint([.toggleSound], state.media.sound.on ? "mute" : "sound", .toggleSound, 6) : nil,
                    hint([.dismiss], "close", .dismiss, 1), hint([.toggleHelp], "help", .toggleHelp, 0)].compactMap { $0 }
        }
        guard let focused = state.home.level.focusedCell else {
            let hasSections = !state.home.level.sections.isEmpty
            return [hint([.selectPrevious, .selectNext], "choose", .selectNext, 2),
                    hasSections ? hint([.focusDown], "sections", .focusDown, 5) : nil,
                    hint([.open], "open", .open, 1), hint([.search], "find", .search, 4),
                    state.feed.warnings.isEmpty ? nil : hint([.toggleProblems], "problems", .toggleProblems, 3),
                    hint([.toggleHelp], "help", .toggleHelp, 0), hint([.quit], "quit", .quit, 1)].compactMap { $0 }
        }
        let action = state.currentHomeModels?.sections.model(for: focused.section)?.cells[safe: focused.cell]?.actionHint
        return [hint([.selectPrevious, .selectNext], "choose", .selectNext, 2),
                hint([.focusUp, .focusDown], "sections", .focusDown, 3),
                hint([.open], action ?? "open", .open, 1),
                hint([.dismiss], "back", .dismiss, 1), hint([.toggleHelp], "help", .toggleHelp, 0)].compactMap { $0 }
    }

    /// The hints that fit a line `width` wide, in their order, each with its column: the
    /// least important go first when they do not all fit.
    public static func layout(_ hints: [Hint], width: Int) -> [Placed] {
        var kept = hints
        func needed(_ hints: [Hint]) -> Int { 1 + hints.reduce(0) { $0 + $1.width + 2 } - 2 }
        while !kept.isEmpty, needed(kept) >= width {
            guard let drop = kept.indices.max(by: { kept[$0].priority < kept[$1].priority }) else { break }
            kept.remove(at: drop)
        }
        var x = 1
        return kept.map { hint in
            defer { x += hint.width + 2 }
            return Placed(hint: hint, x: x)
        }
    }

    /// What the right end of the line says during a live replay ("▶ replaying r.jsonl 3.2/9.5 s").
    public static func replayLabel(_ state: AppState) -> String? {
        state.chrome.replay.map { $0.label(at: state.now.uptime) }
    }

    /// The columns the hints may take: the line, less the replay label and its margin.
    public static func room(_ state: AppState) -> Int {
        state.screenWidth - (replayLabel(state).map { $0.displayWidth + 3 } ?? 0)
    }

    /// What a click at this column of the hint line runs, if anything.
    public static func command(atColumn column: Int, row: Int, state: AppState) -> Command? {
        guard state.isUsable, row == state.screenHeight - 1 else { return nil }
        for placed in layout(hints(state), width: room(state)) {
            var x = placed.x
            for key in placed.hint.keys {
                let width = key.text.displayWidth
                if column >= x, column < x + width { return key.command }
                x += width
            }
            if column >= x, column < placed.x + placed.hint.width { return placed.hint.command }
        }
        return nil
    }
}
