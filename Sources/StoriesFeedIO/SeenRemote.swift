import StoriesCore

/// Seen state kept somewhere besides this machine (a server's `/v1/seen`, issue 34): what
/// is seen here is pushed to it, and what the same viewer saw elsewhere arrives from it.
/// The app's runtime hands it the state and takes its news as actions; it decides nothing
/// about what is shown.
public protocol SeenRemote: AnyObject, Sendable {
    /// Starts syncing from `local` (what this machine has): `arrived` gets what was seen
    /// elsewhere, `problem` a line when syncing stops working (nil when it works again),
    /// `changed` is called when the remote's state moved (what it works out from it, a
    /// server's home, is worth asking for again). All are called on any thread.
    func start(local: SeenState, arrived: @escaping @Sendable (SeenState) -> Void, problem: @escaping @Sendable (String?) -> Void,
               changed: @escaping @Sendable () -> Void)
    /// The state now: what is new in it is queued (on disk) and sent.
    func push(_ state: SeenState)
    /// Sends what is queued, waiting at most `timeout` seconds (the app is quitting); what
    /// is not sent stays queued on disk for the next run.
    func finish(timeout: Double)
}
