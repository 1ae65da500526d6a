/// The Chrome feature: the notice line, the problems list, the replay's hint. A scoped
/// reducer (`FeatureReducer`): it sees only `ChromeState`.
enum ChromeFeature: FeatureReducer {
    static func reduce(_ state: inout ChromeState, _ action: ChromeAction, context: Void, into out: inout FeatureOutput) {
        switch action {
        case .linkOpened(let message):
            state.notice = SafeText.line(message).truncated(toWidth: 2200)
        case .writeFailed(let failure):
            guard !state.failedWrites.contains(where: { $0.file == failure.file }) else { break }
            state.failedWrites.append(failure)
            state.notice = "⚠ " + failure.line
            out.delegate(.warn([FeedWarning(failure.line)]))
        case .replay(let status):
            state.replay = status
        case .notice(let text):
            state.notice = SafeText.line(text, maxColumns: SafeText.Limit.message)
        }
    }
}
