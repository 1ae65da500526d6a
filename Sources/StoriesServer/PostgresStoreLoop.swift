import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import StoriesCore
import StoriesFeedIO

/// Where PostgreSQL stores' connections answer and their work runs: an event loop group of
/// their own, one thread.
/// - Not Swift's cooperative pool, which other work can keep busy for long (seen in the
///   full test run: two minutes).
/// - Not a serial queue: that wakes a second thread for every statement the loop answers
///   (the first version; the held minute's p99 was 28 ms, here 9–15 ms).
/// - Not NIO's shared group: every HTTP server in the process answers there, and in the
///   full test suite a wait heard of another replica's batch 2.2–2.7 s late.
/// None of the work blocks: PostgresNIO is asynchronous throughout.
enum PostgresStoreLoop {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let executor = EventLoopExecutor(group.next())
}

/// A Swift task executor that runs its jobs on one NIO event loop.
final class EventLoopExecutor: TaskExecutor {
    let loop: any EventLoop
    init(_ loop: any EventLoop) { self.loop = loop }
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
