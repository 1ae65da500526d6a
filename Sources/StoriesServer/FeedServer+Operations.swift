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

    /// The store's health, asked at most once a second: callers meanwhile share the answer
    /// kept, or the one being asked. `@unchecked Sendable`: `kept` and `asking` are touched
    /// only under `lock`.
    final class HealthMemo: @unchecked Sendable {
        private let lock = NSLock()
        private var kept: (usable: Bool, at: ContinuousClock.Instant)?
        private var asking: Task<Bool, Never>?

        func state(_ ask: @escaping @Sendable () async -> Bool) async -> Bool {
            let task: Task<Bool, Never> = lock.withLock {
                if let kept, ContinuousClock.now - kept.at < .seconds(1) { return Task { kept.usable } }
                if let asking { return asking }
                let fresh = Task { [self] in
                    let usable = await ask()
                    lock.withLock {
                        kept = (usable, .now)
                        asking = nil
                    }
                    return usable
                }
                asking = fresh
                return fresh
            }
            return await task.value
        }
    }

    // MARK: - The access log

    /// The query parameters whose values the access log shows; every other value is
    /// written `REDACTED`.
    static let loggedParameters: Set<String> = ["since", "wait", "cursor", "limit", "live"]

    /// A request's target as the access log shows it: printable and at most 2 000
    /// characters; of the query (split at `&` and `;`), only the API's own parameters
    /// (`loggedParameters`) keep their values, every other value — or a parameter with no
    /// name — is written `REDACTED`; a fragment is left out; and any piece of the path or
    /// value that holds, once percent-decoded, a run of 32 or more hex digits (a viewer's
    /// token is `st_` and 64) is `REDACTED` too. A client that wrongly puts its token in the
    /// address leaves no copy of it in the log.
    static func loggedTarget(_ target: String) -> String {
        let whole = target.prefix { $0 != "#" }
        let mark = whole.firstIndex(of: "?")
        let path = whole[..<(mark ?? whole.endIndex)].split(separator: "/", omittingEmptySubsequences: false)
            .map { Self.secretLike($0) ? "REDACTED" : String($0) }.joined(separator: "/")
        var out = path
        if let mark {
            var parameters: [Substring] = [], separators: [Character] = []
            var start = whole.index(after: mark)
            for index in whole[start...].indices where whole[index] == "&" || whole[index] == ";" {
                parameters.append(whole[start..<index])
                separators.append(whole[index])
                start = whole.index(after: index)
            }
            parameters.append(whole[start...])
            let shown = parameters.map { pair -> String in
                let name = pair.prefix { $0 != "=" }
                let decoded = (String(name).removingPercentEncoding ?? String(name)).lowercased()
                if pair.isEmpty || (loggedParameters.contains(decoded) && !Self.secretLike(pair)) { return String(pair) }
                return name.count < pair.count && !Self.secretLike(name) ? "\(name)=REDACTED" : "REDACTED"
            }
            out += "?" + shown[0]
            for (separator, parameter) in zip(separators, shown.dropFirst()) { out += String(separator) + parameter }
        }
        let line = SafeText.line(out)
        return line.count > 2000 ? String(line.prefix(2000)) + "…" : line
    }

    /// Whether `text`, percent-decoded, holds a run of 32 or more hex digits.
    static func secretLike(_ text: Substring) -> Bool {
        let decoded = String(text).removingPercentEncoding ?? String(text)
        var run = 0
        for byte in decoded.utf8 {
            run = (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte) ? run + 1 : 0
            if run >= 32 { return true }
        }
        return false
    }

    // MARK: - Where it listens

    /// What `stories serve` says on standard error when it listens on more than this
    /// machine: it speaks plain HTTP, so tokens and seen state cross the network in clear.
    /// Nil for loopback (127.0.0.0/8, ::1, localhost).
    public static func plainHTTPWarning(host: String) -> String? {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || Self.isLoopbackAddress(bare) { return nil }
        let what = bare == "0.0.0.0" || bare == "::" ? "every interface" : SafeText.line(host)
        return "stories serve: listening on \(what) over plain HTTP: what it sends — and viewers' tokens and seen state, with --viewers — would cross the network unencrypted. "
            + "Put TLS in front (nginx with `listen 443 ssl`, proxying to --host 127.0.0.1: docs/deploy.md), serve HTTPS itself (--tls-cert FILE --tls-key FILE), or use it only on a network you trust."
    }

    /// An IP address (not a name) in 127.0.0.0/8, or ::1.
    static func isLoopbackAddress(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
        }
        return false
    }
}
