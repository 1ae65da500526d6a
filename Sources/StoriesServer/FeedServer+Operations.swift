import Foundation
import Hummingbird
import ServiceLifecycle
import StoriesCore
import StoriesFeedIO

/// What an operator meets: the health answer, the access log's line, the warning about a
/// bind to the network.
extension FeedServer {
    // MARK: - Health

    /// `GET /v1/health` (or HEAD), for nginx and orchestrators, with no token:
    /// `{"live":true,"ready":…,"database":"ok|unavailable|none|stopping","status":…}`.
    /// Ready (200) while the seen store answers (or there is none); 503 with `Retry-After`
    /// while it cannot be used, or while the server stops. `/v1/health?live` is 200 while
    /// the process answers at all, whatever the store (a liveness probe that restarts a
    /// replica only when it is stuck, not when PostgreSQL is away). The store is asked at
    /// most once a second however often the health is; why it cannot be used is said on
    /// `/v1/seen` and in the log, not here (a health answer may be seen by anyone).
    func health(_ request: Request, query: [String: String]) async -> APIResponse {
        var fields: [String: JSONValue] = ["live": .bool(true)]
        let ready: Bool
        if Task.isShuttingDownGracefully {
            fields["database"] = .string("stopping")
            ready = false
        } else if query["live"] != nil {
            ready = true
        } else if let seen {
            let usable = await healthMemo.state { await seen.database.usable() }
            fields["database"] = .string(usable ? "ok" : "unavailable")
            ready = usable
        } else {
            fields["database"] = .string("none")
            ready = true
        }
        if query["live"] == nil { fields["ready"] = .bool(ready) }
        let status = ready ? 200 : 503
        fields["status"] = .int(status)
        let body = JSONValue.object(fields).data()
        return APIResponse(status: status,
                           headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store"),
                                     ("Content-Length", String(body.count))] + (ready ? [] : [("Retry-After", "2")]),
                           body: request.method == .head ? Data() : body)
    }

    /// The store's health, asked at most once a second. `@unchecked Sendable`: `kept` is
    /// touched only under `lock`.
    final class HealthMemo: @unchecked Sendable {
        private let lock = NSLock()
        private var kept: (usable: Bool, at: ContinuousClock.Instant)?

        func state(_ ask: @Sendable () async -> Bool) async -> Bool {
            if let kept = lock.withLock({ kept }), ContinuousClock.now - kept.at < .seconds(1) { return kept.usable }
            let usable = await ask()
            lock.withLock { kept = (usable, .now) }
            return usable
        }
    }

    // MARK: - The access log

    /// A request's target as the access log shows it: printable, and the value of any query
    /// parameter whose name speaks of a token, password, secret, key or authorization
    /// replaced by `REDACTED` (a client that wrongly put its token in the address leaves no
    /// copy of it in the log).
    static func loggedTarget(_ target: String) -> String {
        guard let mark = target.firstIndex(of: "?") else { return SafeText.line(target) }
        let path = target[..<mark]
        let parameters = target[target.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let name = pair.prefix { $0 != "=" }
            let decoded = (String(name).removingPercentEncoding ?? String(name)).lowercased()
            guard ["token", "password", "passwd", "secret", "key", "auth", "bearer"].contains(where: { decoded.contains($0) }), name.count < pair.count else {
                return String(pair)
            }
            return "\(name)=REDACTED"
        }
        return SafeText.line(String(path) + "?" + parameters.joined(separator: "&"))
    }

    // MARK: - Where it listens

    /// What `stories serve` says on standard error when it listens on more than this
    /// machine: it speaks plain HTTP, so tokens and seen state cross the network in clear.
    /// Nil for loopback (127.0.0.0/8, ::1, localhost).
    public static func plainHTTPWarning(host: String) -> String? {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" || bare.hasPrefix("127.") { return nil }
        let what = bare == "0.0.0.0" || bare == "::" ? "every interface" : SafeText.line(host)
        return "stories serve: listening on \(what) over plain HTTP: viewers' tokens and seen state would cross the network unencrypted. "
            + "Put TLS in front (nginx with `listen 443 ssl`, proxying to --host 127.0.0.1: docs/deploy.md), or use it only on a network you trust."
    }
}
