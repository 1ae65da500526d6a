import Dispatch
import Foundation
import StoriesApp
import StoriesCore
import Testing

/// The view-model builder: the runtime's queue for building view models off the main thread.
@Suite struct ViewModelBuilderTests {
    let now = Date(timeIntervalSince1970: 1_795_240_800)

    @Test func viewModelsAreBuiltOnTheBuildersQueueAndDeliveredOnMain() async {
        let key = DispatchSpecificKey<String>()
        let builder = ViewModelBuilder { job in
            // The factory, checked from where it runs.
            let onBuilderQueue = DispatchQueue.getSpecific(key: key) == "builder"
            var update = ViewModelFactory.build(job)
            update.width = onBuilderQueue && !Thread.isMainThread ? job.width : -1
            return update
        }
        builder.queue.setSpecific(key: key, value: "builder")
        DispatchQueue.main.setSpecific(key: key, value: "main")
        let story = Story(id: "a", author: Author(name: "A"), items: (0..<3).map { StoryItem(id: "a\($0)", content: .text("t", background: RGB(0, 0, 0))) })
        let job = ViewModelJob(ring: [.init(summary: StorySummary(story), story: story)], stories: [story],
                               seen: SeenState(), now: now, width: 60)
        let (update, deliveredOnMain) = await withCheckedContinuation { (done: CheckedContinuation<(ViewModelUpdate, Bool), Never>) in
            builder.submit(job) { update in done.resume(returning: (update, DispatchQueue.getSpecific(key: key) == "main")) }
        }
        #expect(update.width == 60, "built on the builder's queue, not the main thread")
        #expect(deliveredOnMain, "handed over on the main queue")
        #expect(update.ring.count == 1 && update.items["a"]?.count == 3)
    }
}
