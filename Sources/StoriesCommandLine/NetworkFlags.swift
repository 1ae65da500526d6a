import StoriesFeedIO
import ArgumentParser
import Foundation
import StoriesAssets
import StoriesApp
import StoriesCore
import StoriesHTTP
import StoriesTerminal

/// How answers are shaped (`NetworkProfile`): a named profile, with any of its values
/// replaced. The viewer puts it between itself and its feed; `serve` shapes its answers.
public struct ShapingOptions: ParsableArguments, Sendable {
    public init() {}

    @Option(help: ArgumentHelp("A network profile: local (the default: no delay), wifi, 4g, 3g, offline.", valueName: "name"))
    public var network: String?

    @Option(help: ArgumentHelp("Delay before each response, like 300ms or 1.5s (no jitter; at most an hour).", valueName: "time"))
    public var latency: String?

    @Option(help: ArgumentHelp("Transfer rate, like 2MB/s or 500KB/s.", valueName: "rate"))
    public var bandwidth: String?

    @Option(help: ArgumentHelp("Share of requests that fail, 0 to 1 (0.1: one in ten).", valueName: "share"))
    public var fail: Double?

    public var isGiven: Bool { network != nil || latency != nil || bandwidth != nil || fail != nil }

    /// The profile these flags give, over `base` (what stories.conf or a recording said):
    /// `--network` replaces it; `--latency`, `--bandwidth`, `--fail`, `--timeout` change one
    /// value of it.
    public func profile(timeout: String? = nil, base: NetworkProfile = .local) throws -> NetworkProfile {
        var profile = base
        if let network {
            guard let named = NetworkProfile.named[network.lowercased()] else {
                let names = NetworkProfile.named.keys.sorted().joined(separator: ", ")
                throw ValidationError("--network: unknown profile '\(SafeText.line(network))'; choose one of \(names)")
            }
            profile = named
        }
        if (isGiven || timeout != nil) && network == nil && base == .local { profile.name = "custom" }
        if let latency {
            guard let seconds = NetworkProfile.parseDuration(latency), seconds <= NetworkProfile.maxDelay else {
                throw ValidationError("--latency: '\(SafeText.line(latency))' is not a time like 300ms or 1.5s (at most an hour)")
            }
            profile.latency = seconds
            profile.jitter = 0
        }
        if let bandwidth {
            guard let rate = NetworkProfile.parseBandwidth(bandwidth), rate >= 1, rate <= NetworkProfile.maxBandwidth else {
                throw ValidationError("--bandwidth: '\(SafeText.line(bandwidth))' is not a rate like 2MB/s or 500KB/s")
            }
            profile.bandwidth = rate
        }
        if let fail {
            guard (0...1).contains(fail) else { throw ValidationError("--fail takes a share from 0 to 1; got \(fail)") }
            profile.failureRate = fail
        }
        if let timeout {
            guard let seconds = NetworkProfile.parseDuration(timeout), seconds > 0, seconds <= NetworkProfile.maxDelay else {
                throw ValidationError("--timeout: '\(SafeText.line(timeout))' is not a time like 10s (at most an hour)")
            }
            profile.timeout = seconds
        }
        return profile
    }
}

/// The pretend network between the app and its feed: the shaping, and when to give up.
public struct NetworkOptions: ParsableArguments, Sendable {
    public init() {}

    @OptionGroup public var shaping: ShapingOptions

    @Option(help: ArgumentHelp("Give up on a request after this long, like 10s.", valueName: "time"))
    public var timeout: String?

    public var isGiven: Bool { shaping.isGiven || timeout != nil }

    public func profile(base: NetworkProfile = .local) throws -> NetworkProfile { try shaping.profile(timeout: timeout, base: base) }
}
