extension Reduction {
    /// The Chrome feature: the notice line, the problems list, the replay's hint.
    mutating func reduce(_ action: ChromeAction) {
        switch action {
        case .linkOpened(let message):
            state.chrome.notice = SafeText.line(message).truncated(toWidth: 2200)
        case .writeFailed(let failure):
            guard !state.chrome.failedWrites.contains(where: { $0.file == failure.file }) else { break }
            state.chrome.failedWrites.append(failure)
            state.chrome.notice = "⚠ " + failure.line
            delegate(.warn([FeedWarning(failure.line)]))
        case .replay(let status):
            state.chrome.replay = status
        case .notice(let text):
            state.chrome.notice = SafeText.line(text, maxColumns: SafeText.Limit.message)
        }
    }
}
