import Foundation

/// Everything that shapes a run besides its inputs: where the stories come from, the
/// pretend network and its seed, preloading, motion, the keys in force, the colours. A
/// recording keeps it in its header (`setup`), so a replay meets the same feed, the same
/// delays and failures and the same bindings; flags given on the command line win, and
/// the run says which differ (`differences(from:)`).
public struct SessionSetup: Equatable, Sendable {
    public enum Feed: Equatable, Sendable {
        /// The embedded demo feed.
        case demo
        /// A folder on this machine: a feed folder, or any folder of photos and videos.
        case folder(String)
        /// A feed server's address.
        case server(String)
        /// `--synthetic N`, its names made from a seed (1 unless `--seed` says).
        case synthetic(Int, seed: UInt64)
    }

    public var feed: Feed = .demo
    public var network: NetworkProfile = .local
    /// The seed of the pretend network's draws (delays, failures).
    public var seed: UInt64 = 1
    public var preload: PreloadPolicy = .on
    public var reduceMotion = false
    /// The keys.conf text applied over the default bindings ("" for none).
    public var keys = ""
    /// How the session showed colour: truecolor, 256, 16, 8 or none.
    public var colors = "256"
    /// Photos shown whole at the start (stories.conf `fit`); `f` toggles, as an input.
    public var photosFit = true

    public init(feed: Feed = .demo, network: NetworkProfile = .local, seed: UInt64 = 1, preload: PreloadPolicy = .on,
                reduceMotion: Bool = false, keys: String = "", colors: String = "256", photosFit: Bool = true) {
        self.feed = feed
        self.network = network
        self.seed = seed
        self.preload = preload
        self.reduceMotion = reduceMotion
        self.keys = keys
        self.colors = colors
        self.photosFit = photosFit
    }

    /// Seeds are whole numbers a JSON reader keeps exactly.
    public static let maxSeed: UInt64 = (1 << 53) - 1
    public static let colorNames = ["truecolor", "256", "16", "8", "none"]

    /// A colour depth's name as recordings keep it, from any name `--colors` takes
    /// (`24bit` and `direct` are truecolor, `mono` is none); nil for anything else.
    public static func colorName(_ name: String) -> String? {
        switch name.lowercased() {
        case "truecolor", "24bit", "direct": "truecolor"
        case "mono", "none": "none"
        case let other: colorNames.contains(other) ? other : nil
        }
    }
    /// The most a keys.conf kept in a recording may hold.
    public static let maxKeysLength = 64 << 10

    /// A seed for a run that was given none: different each run, short enough to type.
    public static func randomSeed() -> UInt64 { UInt64.random(in: 1...999_999_999) }

    /// Whether an address names this machine: localhost, ::1, or an IPv4 address in
    /// 127.0.0.0/8 written as four numbers (a name such as 127.example.com is not). A
    /// recording's server is only asked when it is.
    public static func isLoopback(_ address: String) -> Bool {
        guard let host = URLComponents(string: address)?.host?.lowercased() else { return false }
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// What a feed is called in a line about it.
    public static func describe(_ feed: Feed) -> String {
        switch feed {
        case .demo: "the demo feed"
        case .folder(let path): "the folder \(SafeText.line(path, maxColumns: 200))"
        case .server(let address): "the server \(SafeText.line(address, maxColumns: 200))"
        case .synthetic(let count, let seed): "--synthetic \(count) (seed \(seed))"
        }
    }

    /// One line for each thing in which this run differs from the recorded `other`.
    public func differences(from recorded: SessionSetup) -> [String] {
        var lines: [String] = []
        if feed != recorded.feed { lines.append("the feed is \(Self.describe(feed)); the recording used \(Self.describe(recorded.feed))") }
        if network != recorded.network {
            lines.append("the network is \(network); the recording used \(recorded.network)")
        }
        if seed != recorded.seed { lines.append("the seed is \(seed); the recording used \(recorded.seed)") }
        if preload != recorded.preload { lines.append("preloading is \(preload.rawValue); the recording had it \(recorded.preload.rawValue)") }
        if reduceMotion != recorded.reduceMotion {
            lines.append("motion is \(reduceMotion ? "reduced" : "on"); the recording had it \(recorded.reduceMotion ? "reduced" : "on")")
        }
        if keys != recorded.keys { lines.append("the key bindings differ from the recording's") }
        if colors != recorded.colors { lines.append("colours are \(colors); the recording had \(recorded.colors)") }
        if photosFit != recorded.photosFit {
            lines.append("photos start \(photosFit ? "whole" : "filling the screen"); the recording's started \(recorded.photosFit ? "whole" : "filling it")")
        }
        return lines
    }

    // MARK: - JSON

    struct Wire: Codable, Equatable {
        struct FeedWire: Codable, Equatable {
            var demo: Bool?
            var folder: String?
            var server: String?
            var synthetic: Int?
            var seed: UInt64?
        }
        struct NetworkWire: Codable, Equatable {
            var name: String
            var latency: Double
            var jitter: Double
            var bandwidth: Double?
            var fail: Double
            var timeout: Double
            var offline: Bool
        }
        var feed: FeedWire
        var network: NetworkWire
        var seed: UInt64
        var preload: String
        var reduceMotion: Bool
        var keys: String
        var colors: String
        var fit: Bool?
    }

    var wire: Wire {
        let feedWire: Wire.FeedWire = switch feed {
        case .demo: .init(demo: true)
        case .folder(let path): .init(folder: path)
        case .server(let address): .init(server: address)
        case .synthetic(let count, let seed): .init(synthetic: count, seed: seed)
        }
        return Wire(feed: feedWire,
                    network: .init(name: network.name, latency: network.latency, jitter: network.jitter, bandwidth: network.bandwidth,
                                   fail: network.failureRate, timeout: network.timeout, offline: network.isOffline),
                    seed: seed, preload: preload.rawValue, reduceMotion: reduceMotion, keys: keys, colors: colors,
                    fit: photosFit)
    }

    /// The setup a recording's header holds, every value checked and bounded: a hostile
    /// file gets a clear reason (the field and what it must be), never a crash or a value
    /// no flag could give.
    init(_ wire: Wire) throws(SetupProblem) {
        func problem(_ field: String, _ reason: String) -> SetupProblem { SetupProblem(field: "setup.\(field)", reason: reason) }
        let given = [wire.feed.demo == true, wire.feed.folder != nil, wire.feed.server != nil, wire.feed.synthetic != nil].filter { $0 }
        guard given.count == 1 else { throw problem("feed", "must be one of {\"demo\":true}, {\"folder\":…}, {\"server\":…}, {\"synthetic\":N}") }
        if let path = wire.feed.folder {
            guard (1...4096).contains(path.utf8.count), SafeText.line(path) == path else {
                throw problem("feed.folder", "must be a path of 1 to 4096 printable bytes")
            }
            feed = .folder(path)
        } else if let address = wire.feed.server {
            if let reason = HomeDecoder.linkProblem(address) { throw problem("feed.server", reason) }
            feed = .server(address)
        } else if let count = wire.feed.synthetic {
            guard (1...100_000).contains(count) else { throw problem("feed.synthetic", "must be a number of stories from 1 to 100000") }
            let seed = wire.feed.seed ?? 1
            guard seed <= Self.maxSeed else { throw problem("feed.seed", "must be a whole number from 0 to \(Self.maxSeed)") }
            feed = .synthetic(count, seed: seed)
        } else {
            feed = .demo
        }
        let n = wire.network
        let limit = NetworkProfile.maxDelay
        guard (1...40).contains(n.name.count), n.name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw problem("network.name", "must be 1 to 40 letters, digits or -")
        }
        for (field, value) in [("latency", n.latency), ("jitter", n.jitter)] {
            guard value.isFinite, (0...limit).contains(value) else { throw problem("network.\(field)", "must be seconds from 0 to \(Int(limit))") }
        }
        guard n.timeout.isFinite, n.timeout > 0, n.timeout <= limit else {
            throw problem("network.timeout", "must be seconds over 0, at most \(Int(limit))")
        }
        guard n.fail.isFinite, (0...1).contains(n.fail) else { throw problem("network.fail", "must be a share from 0 to 1") }
        if let rate = n.bandwidth {
            guard rate.isFinite, rate >= 1, rate <= NetworkProfile.maxBandwidth else {
                throw problem("network.bandwidth", "must be bytes a second from 1 to \(Int(NetworkProfile.maxBandwidth))")
            }
        }
        network = NetworkProfile(name: n.name, latency: n.latency, jitter: n.jitter, bandwidth: n.bandwidth,
                                 failureRate: n.fail, timeout: n.timeout, isOffline: n.offline)
        guard wire.seed <= Self.maxSeed else { throw problem("seed", "must be a whole number from 0 to \(Self.maxSeed)") }
        seed = wire.seed
        guard let policy = PreloadPolicy(rawValue: wire.preload) else { throw problem("preload", "must be on or off") }
        preload = policy
        reduceMotion = wire.reduceMotion
        guard wire.keys.utf8.count <= Self.maxKeysLength else { throw problem("keys", "must be at most \(Self.maxKeysLength) bytes") }
        keys = wire.keys
        guard Self.colorNames.contains(wire.colors) else { throw problem("colors", "must be one of \(Self.colorNames.joined(separator: ", "))") }
        colors = wire.colors
        photosFit = wire.fit ?? true
    }

    /// The bindings this setup's keys give, over the defaults.
    public func bindings(file: String) throws(ConfigError) -> KeyBindings {
        keys.isEmpty ? .standard : try KeyBindings.standard.applying(keys, file: file)
    }
}

/// A field of a recording's setup that is not what it must be.
struct SetupProblem: Error {
    var field: String
    var reason: String
}
