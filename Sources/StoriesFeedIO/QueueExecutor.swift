import StoriesCore
import Dispatch

/// A task executor that runs its jobs in order on one serial Dispatch queue.
///
/// Swift's cooperative pool is as wide as the machine has cores (two here). Work that must
/// keep its own time — a request measured against its deadline, a server answering on
/// loopback — is given this executor as its preference, so a pool busy with other work
/// (or blocked by it) cannot make a healthy server look as if it stopped answering.
public final class QueueExecutor: TaskExecutor {
    public let queue: DispatchQueue
    /// The label of the executor's queue, readable by a job running on it.
    public static let label = DispatchSpecificKey<String>()

    public init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.label, value: label)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The label of the `QueueExecutor` the caller runs on, nil anywhere else.
    public static var current: String? { DispatchQueue.getSpecific(key: label) }
}
