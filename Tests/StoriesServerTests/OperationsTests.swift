import Foundation
import Testing
@testable import StoriesServer

/// Issue 51, point 4: what the access log shows of a request's target, and which binds are
/// loopback.
@Suite struct OperationsTests {
    @Test func theLogShowsOnlyTheAPIsOwnParameters() {
        let token = "st_" + String(repeating: "ab12", count: 16)
        let cases: [(String, String)] = [
            ("/v1/seen?since=3&wait=30", "/v1/seen?since=3&wait=30"),
            ("/v1/feed?cursor=abc&limit=10", "/v1/feed?cursor=abc&limit=10"),
            ("/v1/health?live", "/v1/health?live"),
            ("/v1/feed?token=secret", "/v1/feed?token=REDACTED"),
            ("/v1/feed?jwt=x&sig=y&code=z", "/v1/feed?jwt=REDACTED&sig=REDACTED&code=REDACTED"),
            ("/v1/feed?a=1;token=X", "/v1/feed?a=REDACTED;token=REDACTED"),
            ("/v1/feed?X", "/v1/feed?REDACTED"),
            ("/v1/feed?limit=2#token=X", "/v1/feed?limit=2"),
            ("/v1/feed?&&limit=1", "/v1/feed?&&limit=1"),
            ("/v1/media/\(token)/x.jpg", "/v1/media/REDACTED/x.jpg"),
            ("/v1/seen?cursor=st%5f\(token.dropFirst(3))", "/v1/seen?cursor=REDACTED"),
            ("/v1/stories/ST_\(token.dropFirst(3).uppercased())", "/v1/stories/REDACTED"),
            ("/v1/stories/st_\(token.dropFirst(3).prefix(30))%2F\(token.dropFirst(33))", "/v1/stories/REDACTED"),
            ("/v1/seen?since=\(token.dropFirst(3))&wait=30", "/v1/seen?since=REDACTED&wait=30"),
            ("/v1/media/abc123.jpg?limit=5", "/v1/media/abc123.jpg?limit=5"),
            ("/v1/feed?%6Cimit=5", "/v1/feed?%6Cimit=5"),
            ("/v1/feed?x=\u{1B}[31m", "/v1/feed?x=REDACTED"),
            ("/v1/stories/\u{1B}[31m", "/v1/stories/\u{FFFD}[31m"),
        ]
        for (target, logged) in cases {
            let shown = FeedServer.loggedTarget(target)
            #expect(shown == logged || (logged.contains("\u{FFFD}") && !shown.contains("\u{1B}")), "\(target) → \(shown)")
        }
        // A long target is cut (one request cannot write a line of hundreds of kilobytes).
        let long = FeedServer.loggedTarget("/v1/feed?" + Array(repeating: "a", count: 40_000).joined(separator: "&"))
        #expect(long.count == 2001 && long.hasSuffix("…"))
    }

    @Test func aLowFileLimitIsSaid() {
        #expect(ProcessLimits.openFilesWarning(1024)?.contains("at most 1024 open files") == true)
        #expect(ProcessLimits.openFilesWarning(4096) == nil && ProcessLimits.raiseOpenFiles() > 0)
    }

    @Test func onlyLoopbackAddressesAreQuiet() {
        for host in ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"] {
            #expect(FeedServer.plainHTTPWarning(host: host) == nil, "\(host)")
        }
        for host in ["0.0.0.0", "::", "192.168.1.5", "127.0.0.1.nip.io", "128.0.0.1", "::2", "example.org"] {
            #expect(FeedServer.plainHTTPWarning(host: host)?.contains("plain HTTP") == true, "\(host)")
        }
    }
}
