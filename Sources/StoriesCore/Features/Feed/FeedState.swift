/// The Feed feature's slice: the stories paged in and what went wrong getting them.
/// Written by `FeedFeature`, which is handed only this slice, and the parent; the others read it.
public struct FeedState: Equatable, Sendable {
    /// The stories, paged in: the one source of truth for the ring row and the viewer.
    public var store = StoryStore()
    /// Problems found in the feed, newest last; the home screen shows them.
    public var warnings: [FeedWarning] = []
    /// Stories whose items the source did not answer for, retried with backoff while wanted.
    public var storyRetries = Retries<StoryID>()
    /// The first page took longer than `firstPagePatience` (it may still come, or fail
    /// with its reason at the network's timeout).
    public var firstPageOverdue = false
    /// Seconds the first page may take before the loading line says it is late.
    public static let firstPagePatience: Double = 3

    public init(warnings: [FeedWarning] = []) {
        self.warnings = warnings
    }

    /// True until the first page of the feed has arrived.
    public var isLoading: Bool { store.isLoadingFirstPage }
}
