/// Where the request for the home sections stands: asked once at start, retried with
/// backoff after a failure.
public enum HomeRequest: Equatable, Sendable {
    case notStarted, loaded
    case loading(attempt: Int)
    case failed(attempt: Int)
}
