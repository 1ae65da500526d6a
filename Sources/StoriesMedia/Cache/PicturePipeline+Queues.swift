import Foundation
import Dispatch
import StoriesCore

/// Work held until someone runs it (a test deciding what finishes when): what
/// `Execution.manual` hands its work to. Main-actor only, like the tests that drive it.
public protocol ManualWork: Sendable {
    func enqueue(_ work: @escaping @Sendable () -> Void)
}

extension PicturePipeline {
    /// The Dispatch QoS for work of a priority: what the user waits for first.
    nonisolated public static func qos(_ priority: PreloadPriority) -> DispatchQoS.QoSClass {
        switch priority {
        case .visible: .userInitiated
        case .window: .default
        case .adjacent: .utility
        case .feed: .background
        }
    }

    func run(_ work: @escaping @Sendable () -> Void, qos: DispatchQoS.QoSClass) {
        switch execution {
        case .background: DispatchQueue.global(qos: qos).async(execute: work)
        case .inline: work()
        case .manual(let executor): executor.enqueue(work)
        }
    }

    nonisolated static func onMain(_ execution: Execution, _ body: @escaping @MainActor @Sendable () -> Void) {
        switch execution {
        case .background: DispatchQueue.main.async { MainActor.assumeIsolated(body) }
        case .inline, .manual: MainActor.assumeIsolated(body)
        }
    }
}
