@testable import StoriesFeedIO
import Dispatch
import Foundation
import Testing
import StoriesTestSupport
@testable import StoriesCore

/// A source whose page weighs `pageBytes` and which counts how often it was read.
private final class CountingSource: FeedSource, @unchecked Sendable {
    // `lock` guards `reads`.
    private let lock = NSLock()
    private var reads = 0
    let pageBytes: Int

    init(pageBytes: Int = 1000) { self.pageBytes = pageBytes }

    var title: String { "counting" }
    var readCount: Int { lock.withLock { reads } }

    func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage {
        lock.withLock { reads += 1 }
        return FeedPage(stories: [StorySummary(id: "a", author: Author(name: "A"), itemIDs: ["1"])], nextCursor: nil, bytes: pageBytes)
    }

    func story(id: StoryID) throws(FeedError) -> StoryLoad {
        lock.withLock { reads += 1 }
        throw FeedError(file: "stories/\(id).json", reason: "no such file")
    }

    func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? {
        lock.withLock { reads += 1 }
        return Data(count: 10)
    }
}

/// Waits for one result from the client, and how long it took.
/// The answer and when it was delivered, timed in the completion itself: the test's own
/// task may resume later, when other suites keep the cooperative pool busy.
private func timed<T: Sendable>(_ start: (@escaping @Sendable (Result<T, FeedError>) -> Void) -> Void) async -> (Result<T, FeedError>, Double) {
    let begin = DispatchTime.now().uptimeNanoseconds
    let (result, end) = await withCheckedContinuation { (done: CheckedContinuation<(Result<T, FeedError>, UInt64), Never>) in
        start { done.resume(returning: ($0, DispatchTime.now().uptimeNanoseconds)) }
    }
    return (result, Double(end - begin) / 1e9)
}

@Suite struct FeedClientTests {
    @Test func latencyPassesBeforeTheAnswer() async throws {
        let client = FeedClient(source: CountingSource(), profile: NetworkProfile(name: "t", latency: 0.15))
        let (result, seconds) = await timed { client.page(after: nil, deliverOn: .global(), completion: $0) }
        #expect(try result.get().stories.count == 1)
        #expect(seconds >= 0.14)
    }

    @Test func bigAnswersTakeLongerAtTheSameBandwidth() async throws {
        let profile = NetworkProfile(name: "t", bandwidth: 100_000)
        #expect(profile.transferSeconds(bytes: 30_000) == 0.3)
        #expect(profile.transferSeconds(bytes: 1_000) == 0.01)
        #expect(NetworkProfile.local.transferSeconds(bytes: 1 << 30) == 0)
        // And the client waits it out (a lower bound: a busy machine only adds to it).
        let big = FeedClient(source: CountingSource(pageBytes: 30_000), profile: profile)
        let (_, slow) = await timed { big.page(after: nil, deliverOn: .global(), completion: $0) }
        #expect(slow >= 0.29, "30 KB at 100 KB/s")
        #expect(big.traffic.bytes == 30_000 && big.traffic.requests == 1)
    }

    @Test func aCancelledRequestNeverAnswersAndNeverReachesTheSource() async throws {
        let source = CountingSource()
        let client = FeedClient(source: source, profile: NetworkProfile(name: "t", latency: 0.1))
        let answered = Flag()
        let request = client.page(after: nil, deliverOn: .global()) { _ in answered.set() }
        request.cancel()
        // A second request on the same client shows the time has passed.
        _ = await timed { client.page(after: nil, deliverOn: .global(), completion: $0) }
        let held = await AsyncWait.holds(for: 0.05) { !answered.isSet }
        #expect(held)
        #expect(source.readCount == 1, "only the second request read the source")
        #expect(request.isCancelled)
    }

    @Test func failuresTimeoutsAndOfflineAreErrorsThatSayWhat() async throws {
        let failing = FeedClient(source: CountingSource(), profile: NetworkProfile(name: "flaky", failureRate: 1))
        let (failed, _) = await timed { failing.story(id: "a", deliverOn: .global(), completion: $0) }
        #expect(failed.failure?.description == "stories/a.json: the connection failed (simulated: flaky)")

        let slow = FeedClient(source: CountingSource(pageBytes: 20_000_000), profile: NetworkProfile(name: "t", bandwidth: 1_000_000, timeout: 0.2))
        let (timedOut, seconds) = await timed { slow.page(after: nil, deliverOn: .global(), completion: $0) }
        #expect(timedOut.failure?.description == "first feed page: timed out after 200 ms")
        #expect(seconds >= 0.19 && seconds < 10, "it gives up at the timeout, not after the 20 s transfer")

        let offline = FeedClient(source: CountingSource(), profile: .offline)
        let (none, _) = await timed { offline.media(at: "m.jpg", maxBytes: 100, deliverOn: .global(), completion: $0) }
        #expect(none.failure?.description == "m.jpg: offline (--network offline)")

        let local = FeedClient(source: CountingSource(), profile: .local)
        let (missing, _) = await timed { local.story(id: "zz", deliverOn: .global(), completion: $0) }
        #expect(missing.failure == FeedError(file: "stories/zz.json", reason: "no such file"), "the source's own error comes through")
    }

    @Test func aFailureRateFailsAboutThatShareAndTheSameSeedFailsTheSameRequests() async {
        func outcomes(seed: UInt64) async -> [Bool] {
            let client = FeedClient(source: CountingSource(), profile: NetworkProfile(name: "t", failureRate: 0.3), seed: seed)
            var results: [Bool] = []
            for _ in 0..<200 {
                let (result, _) = await timed { client.page(after: nil, deliverOn: .global(), completion: $0) }
                results.append(result.failure == nil)
            }
            return results
        }
        let first = await outcomes(seed: 9)
        let again = await outcomes(seed: 9)
        #expect(first == again)
        let failures = first.count { !$0 }
        #expect((35...85).contains(failures), "\(failures) of 200 at 30%")
    }
}

@Suite struct NetworkProfileTests {
    @Test func durationsAndRatesParseAsPeopleWriteThem() {
        #expect(NetworkProfile.parseDuration("300ms") == 0.3)
        #expect(NetworkProfile.parseDuration("1.5s") == 1.5)
        #expect(NetworkProfile.parseDuration("250") == 0.25)
        #expect(NetworkProfile.parseDuration("fast") == nil)
        #expect(NetworkProfile.parseDuration("-1s") == nil)
        #expect(NetworkProfile.parseBandwidth("2MB/s") == 2_000_000)
        #expect(NetworkProfile.parseBandwidth("500KB/s") == 500_000)
        #expect(NetworkProfile.parseBandwidth("800k") == 800_000)
        #expect(NetworkProfile.parseBandwidth("1.5mb") == 1_500_000)
        #expect(NetworkProfile.parseBandwidth("0MB/s") == nil)
        #expect(NetworkProfile.parseBandwidth("lots") == nil)
    }

    @Test func namedProfilesAreOrderedBySpeedAndDescribeThemselves() {
        let order = ["wifi", "4g", "3g"].compactMap { NetworkProfile.named[$0] }
        #expect(order.count == 3)
        #expect(zip(order, order.dropFirst()).allSatisfy { $0.latency < $1.latency && ($0.bandwidth ?? 0) > ($1.bandwidth ?? 0) })
        #expect(NetworkProfile.slow.description == "3g: 300 ms ±100 ms, 400 KB/s, 2% fail")
        #expect(NetworkProfile.offline.description == "offline")
    }
}

/// A flag set from any queue; `lock` guards `value`.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
