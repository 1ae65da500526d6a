import Foundation
import StoriesAssets
import StoriesCore
import StoriesFeedIO
import Testing
@testable import StoriesApp

/// The one count of work in flight (issue 28, point 4): a piece counts until it is answered
/// or called off, once, and an answer after it was called off is not delivered.
@MainActor @Suite struct WorkCountTests {
    @Test func aPieceCountsUntilAnsweredOrCalledOffOnce() {
        let count = WorkCount()
        let answered = count.begin(), calledOff = count.begin()
        var undone = 0
        calledOff.undo = { undone += 1 }
        #expect(count.pending == 2)
        #expect(answered.finish())
        #expect(!answered.finish(), "answered once")
        calledOff.cancel()
        calledOff.cancel()
        #expect(undone == 1 && count.pending == 0, "called off once, its undo run once")
        #expect(!calledOff.finish(), "an answer after a cancel is not news")
        #expect(count.pending == 0)
    }

    @Test func aStoryCalledOffIsNeverDeliveredAndTheCountComesBack() throws {
        let directory = try #require(DemoFeed.directory)
        let scheduler = VirtualScheduler(start: Moment(uptime: 0, date: Date(timeIntervalSince1970: 0)))
        let services = VirtualServices(client: FeedClient(source: try FeedFolder(directory: directory), profile: .wifi),
                                       scheduler: scheduler)
        var delivered = 0
        let request = services.loadStory("ayla") { _ in delivered += 1 }
        _ = services.loadStory("mika") { _ in delivered += 1 }
        #expect(services.pendingWork == 2)
        request.cancel()
        #expect(services.pendingWork == 1)
        _ = scheduler.run(until: 60)
        #expect(delivered == 1 && services.pendingWork == 0, "only the story not called off came")
    }
}
