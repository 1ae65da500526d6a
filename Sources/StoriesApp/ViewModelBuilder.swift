import Dispatch
import StoriesCore

/// Runs view-model jobs on one low-priority serial queue (`.utility`: input and drawing
/// come first) and hands each result to `deliver` on the main queue. Serial, so results
/// arrive in the order the jobs were made and a newer state always lands last.
public final class ViewModelBuilder: Sendable {
    public let queue = DispatchQueue(label: "stories.viewmodels", qos: .utility)
    private let build: @Sendable (ViewModelJob) -> ViewModelUpdate

    public init(build: @escaping @Sendable (ViewModelJob) -> ViewModelUpdate = ViewModelFactory.build) {
        self.build = build
    }

    public func submit(_ job: ViewModelJob, deliverOn: DispatchQueue = .main,
                       deliver: @escaping @Sendable (ViewModelUpdate) -> Void) {
        let build = self.build
        queue.async {
            let update = build(job)
            deliverOn.async { deliver(update) }
        }
    }
}
