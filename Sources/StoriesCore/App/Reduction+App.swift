extension Reduction {
    /// The App feature: the run loop, the screen's size, the terminal's display, the clock.
    mutating func reduce(_ event: AppEvent) {
        switch event {
        case .start:
            if store.paging == .notStarted {
                state.startedAt = state.now.uptime
                store.paging = .loading(cursor: nil, attempt: 1)
                effects.append(.loadPage(nil))
                effects.append(.loadCachedPage)
                effects.append(.wake(.firstPageOverdue, after: FeedState.firstPagePatience))
            }
            if state.home.request == .notStarted {
                state.home.request = .loading(attempt: 1)
                effects.append(.loadHome)
            }
        case .resized(let width, let height):
            resize(width: width, height: height)
        case .display(let display):
            state.display = display
            decideBackground()
            decideGraphics()
        case .background(let facts):
            state.backgroundFacts = facts
            decideBackground()
        case .graphics(let facts):
            let before = state.graphics?.choice
            let decision = GraphicsDecision.deciding(facts, after: state.graphics)
            state.graphics = decision
            decideGraphics()
            if before.map({ !$0.drawsAlike(decision.choice) }) ?? true { effects.append(.showPictures(decision.choice)) }
        case .picturesFellBehind:
            guard !state.movingFramesInCells else { break }
            state.movingFramesInCells = true
            decideGraphics()
            scope(ChromeFeature.self, \.chrome, .notice("Video frames are drawn in cells: this terminal did not take them in pixels in time"))
        case .suspend:
            state.isSuspended = true
        case .resume:
            state.isSuspended = false
        case .focus(let focused):
            state.isInBackground = !focused
        case .tick:
            viewer(.tick)
            advanceIfItemEnded()
        }
    }

    /// The background text is kept readable on, as the facts reported say (a run that
    /// reports none — a test, a replay's display — keeps the display's own).
    mutating func decideBackground() {
        guard let facts = state.backgroundFacts else { return }
        (state.display.background, state.display.backgroundKnown) = facts.decided
    }

    /// How pictures are shown, as the facts reported say (a run that reports none — a
    /// test, a replay's display — keeps the display's own): the protocol, the largest sixel
    /// picture, and whether a video's frames are pixels too.
    mutating func decideGraphics() {
        if state.movingFramesInCells { state.display.movingPixels = false }
        guard let decision = state.graphics else { return }
        let graphics = decision.choice.protocol
        state.display.graphics = graphics
        state.display.largestPicture = graphics == .sixel ? decision.facts.sixelLimit : nil
    }

    mutating func resize(width: Int, height: Int) {
        guard width > 0, height > 0, width <= InputLimits.maxScreenSide, height <= InputLimits.maxScreenSide else { return }
        // A resize interrupts: the animation ends and a gesture in progress is called off
        // (its cells no longer mean what they did). The g log says so.
        if width != state.screenWidth || height != state.screenHeight {
            var decision = GestureDecision(time: state.now.uptime, input: "resize to \(width)×\(height)", gesture: "resize",
                                           handler: "app")
            if state.viewing.transition != nil { decision.notes.append("the animation ended at once") }
            if !state.gesture.pointer.isIdle { decision.notes.append("the mouse gesture in progress is called off") }
            if !ScreenLayout.isUsable(width: width, height: height) {
                decision.notes.append("too small to show anything (at least \(ScreenLayout.minimumWidth)×\(ScreenLayout.minimumHeight))")
            }
            scope(PointerFeature.self, \.gesture, .log(decision), context: state.isUsable)
        }
        completeTransition()
        state.gesture.pointer = .idle
        if width != state.screenWidth {
            // Every loaded story's item models depend on the width; until the new ones arrive
            // the old ones draw.
            itemModelsChanged += state.viewModels.items.keys.sorted()
            if !state.home.level.sections.isEmpty { homeChanged = true }
        }
        state.screenWidth = width
        state.screenHeight = height
    }
}
