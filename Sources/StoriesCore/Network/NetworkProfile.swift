import Foundation

/// How the pretend network between the app and its feed behaves: a delay before the first
/// byte (latency plus or minus jitter), a transfer rate (so big media take longer), a share
/// of requests that fail, and a timeout. `FeedClient` applies it to any `FeedSource`.
public struct NetworkProfile: Equatable, Sendable, CustomStringConvertible {
    public var name: String
    /// Seconds before the first byte.
    public var latency: Double
    /// Up to this many seconds more or less, uniformly.
    public var jitter: Double
    /// Bytes per second; nil: no limit.
    public var bandwidth: Double?
    /// The share of requests that fail (0...1).
    public var failureRate: Double
    /// A request that would take longer fails after this many seconds.
    public var timeout: Double
    /// Every request fails at once.
    public var isOffline: Bool

    public init(name: String, latency: Double = 0, jitter: Double = 0, bandwidth: Double? = nil,
                failureRate: Double = 0, timeout: Double = 15, isOffline: Bool = false) {
        self.name = name
        self.latency = latency
        self.jitter = jitter
        self.bandwidth = bandwidth
        self.failureRate = failureRate
        self.timeout = timeout
        self.isOffline = isOffline
    }

    /// Seconds to move `bytes` at this profile's bandwidth (0 without a limit).
    public func transferSeconds(bytes: Int) -> Double {
        bandwidth.map { Double(max(0, bytes)) / $0 } ?? 0
    }

    /// The longest delay (latency, jitter, timeout) and the fastest rate any source of a
    /// profile may give: the command line's flags, stories.conf, a recording.
    public static let maxDelay: Double = 3600
    public static let maxBandwidth: Double = 1e12

    /// No network at all: files straight from the disk.
    public static let local = NetworkProfile(name: "local")
    public static let wifi = NetworkProfile(name: "wifi", latency: 0.02, jitter: 0.01, bandwidth: 12_500_000)
    public static let lte = NetworkProfile(name: "4g", latency: 0.08, jitter: 0.04, bandwidth: 3_000_000, failureRate: 0.005)
    public static let slow = NetworkProfile(name: "3g", latency: 0.3, jitter: 0.1, bandwidth: 400_000, failureRate: 0.02)
    public static let offline = NetworkProfile(name: "offline", isOffline: true)

    public static let named: [String: NetworkProfile] = [
        "local": .local, "wifi": .wifi, "4g": .lte, "3g": .slow, "offline": .offline,
    ]

    public var description: String {
        if isOffline { return "offline" }
        var parts = ["\(Self.format(seconds: latency))"]
        if jitter > 0 { parts[0] += " ±\(Self.format(seconds: jitter))" }
        parts.append(bandwidth.map { Self.format(bytesPerSecond: $0) } ?? "unlimited")
        if failureRate > 0 { parts.append("\(Self.trim(failureRate * 100))% fail") }
        return "\(name): " + parts.joined(separator: ", ")
    }

    // MARK: - Parsing the command line's values

    /// `300ms`, `1.5s`, `2s`, or a bare number of milliseconds.
    public static func parseDuration(_ text: String) -> Double? {
        let lower = text.trimmingCharacters(in: .whitespaces).lowercased()
        let (number, scale): (Substring, Double)
        if lower.hasSuffix("ms") { (number, scale) = (lower.dropLast(2), 0.001) }
        else if lower.hasSuffix("s") { (number, scale) = (lower.dropLast(1), 1) }
        else { (number, scale) = (Substring(lower), 0.001) }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0 else { return nil }
        return value * scale
    }

    /// `2MB/s`, `500KB/s`, `1.5mb`, `800k`, or a bare number of bytes per second
    /// (K and M are 1000 and 1000², as network speeds are).
    public static func parseBandwidth(_ text: String) -> Double? {
        var lower = text.trimmingCharacters(in: .whitespaces).lowercased()
        if lower.hasSuffix("/s") { lower.removeLast(2) }
        if lower.hasSuffix("b") { lower.removeLast() }
        var scale = 1.0
        if lower.hasSuffix("k") { scale = 1_000; lower.removeLast() }
        else if lower.hasSuffix("m") { scale = 1_000_000; lower.removeLast() }
        else if lower.hasSuffix("g") { scale = 1_000_000_000; lower.removeLast() }
        guard let value = Double(lower.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0 else { return nil }
        return value * scale
    }

    public static func format(seconds: Double) -> String {
        seconds < 1 ? "\(trim(seconds * 1000)) ms" : "\(trim(seconds)) s"
    }

    public static func format(bytesPerSecond: Double) -> String {
        bytesPerSecond >= 1_000_000 ? "\(trim(bytesPerSecond / 1_000_000)) MB/s" : "\(trim(bytesPerSecond / 1_000)) KB/s"
    }

    private static func trim(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
