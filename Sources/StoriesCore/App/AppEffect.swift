/// What a wake-up is for. One of each kind is pending at most: a new one replaces it.
public enum WakeID: Hashable, Sendable {
    /// Is the pressed pointer still down, unmoved? Then it is a hold.
    case hold
    /// The backoff after a failed page is over: ask again.
    case retryPage
    /// The backoff after the home sections failed is over: ask again.
    case retryHome
    /// The first page has had `FeedState.firstPagePatience` seconds: if it is still not
    /// here, the loading line says so.
    case firstPageOverdue
    /// The backoff of a photo or video the source did not answer for is over: ask again.
    case retryMedia
    /// The backoff of a story whose items the source did not answer for is over.
    case retryStories
    /// The source has been silent for the policy's longest wait: ask something (`probeSource`).
    case probeSource
}

/// Work in flight that can be called off by name.
public enum EffectID: Hashable, Sendable {
    case story(StoryID)
    case wake(WakeID)
}

/// Work the reducer asks the runtime to do; results come back as actions.
public enum AppEffect: Equatable, Sendable {
    /// Ask the feed for the page at a cursor (nil: the first), then send `.pageLoaded` or
    /// `.pageFailed`.
    case loadPage(FeedCursor?)
    /// Read the first page from the source's cache, then send `.cachedPageLoaded` (nothing
    /// when there is none).
    case loadCachedPage
    /// Load a story's items (as `EffectID.story`), then send `.storyLoaded` or
    /// `.storyFailed`.
    case loadStory(StoryID)
    /// Ask for the home sections, then send `.homeLoaded` or `.homeFailed`.
    case loadHome
    /// Open a web page (an http or https URL), then send `.linkOpened`.
    case openLink(String)
    /// Send `.wake(id)` after this many seconds (as `EffectID.wake(id)`, replacing one
    /// already waiting).
    case wake(WakeID, after: Double)
    /// Call off the work with this id: no answer comes from it.
    case cancel(EffectID)
    /// Build view models off the main queue, then send `.viewModelsBuilt`.
    case buildViewModels(ViewModelJob)
    /// Prepare these photos, most urgent first, cancelling work for any other: the picture
    /// pipeline reports its progress as `.media`.
    case preload(PreloadRequest)
    /// Bring the video players in line with this plan (see `PlayerPlan`); they report as
    /// `.mediaNews(.video)`.
    case players(PlayerPlan)
    /// The video on screen's item has played this long (seconds): its newest frame due is
    /// shown, a stall or its end reported.
    case videoClock(String, Double)
    /// Put text on the terminal's clipboard (OSC 52): only ever because the person asked.
    case copyToClipboard(String)
    /// Forget what the terminal is thought to show and draw every cell again (Ctrl-L:
    /// another program wrote over the screen).
    case redrawScreen
    /// Ctrl-Z (the key map's `suspend`): the runtime gives the terminal back and stops the
    /// process, saying `.app(.suspend)` first and `.app(.resume)` after the shell's `fg`. A
    /// run with no terminal (headless, a replay, tests) has nothing to stop.
    case suspendProcess
    /// Show pictures this way from now on (the reducer's `GraphicsFacts.decided`): the
    /// terminal's runtime sets its picture layer up so.
    case showPictures(GraphicsChoice)
    /// Give the terminal back and end the process.
    case quit
    /// Seen state changed: keep it (the runtime batches the writes).
    case persistSeen(SeenState)
}
