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
    /// Videos with their sound at the start (`--mute`, `sound =`); `m` toggles, as an input.
    /// `stories render` puts the sound of what played into the video when it was on.
    public var sound = true

    public init(feed: Feed = .demo, network: NetworkProfile = .local, seed: UInt64 = 1, preload: PreloadPolicy = .on,
                reduceMotion: Bool = false, keys: String = "", colors: String = "256", photosFit: Bool = true, sound: Bool = true) {
        self.feed = feed
        self.network = network
        self.seed = seed
        self.preload = preload
        self.reduceMotion = reduceMotion
        self.keys = keys
        self.colors = colors
        self.photosFit = photosFit
        self.sound = sound
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
        if sound != recorded.sound { lines.append("sound is \(sound ? "on" : "off"); the recording had it \(recorded.sound ? "on" : "off")") }
        if photosFit != recorded.photosFit {
            lines.append("photos start \(photosFit ? "whole" : "filling the screen"); the recording's started \(recorded.photosFit ? "whole" : "filling it")")
        }
        return lines
    }

    // MARK: - JSON

    /// The setup as a recording's header writes it (read back by `init(json:)`).
    var json: JSONValue {
        let feedWire: [String: JSONValue] = switch feed {
        case .demo: ["demo": true]
        case .folder(let path): ["folder": .string(path)]
        case .server(let address): ["server": .string(address)]
        case .synthetic(let count, let seed): ["synthetic": .int(count), "seed": .number(Double(seed))]
        }
        var networkWire: [String: JSONValue] = [
            "name": .string(network.name), "latency": .number(network.latency), "jitter": .number(network.jitter),
            "fail": .number(network.failureRate), "timeout": .number(network.timeout), "offline": .bool(network.isOffline),
        ]
        networkWire.put("bandwidth", network.bandwidth.map(JSONValue.number))
        let wire: [String: JSONValue] = [
            "feed": .object(feedWire), "network": .object(networkWire), "seed": .number(Double(seed)),
            "preload": .string(preload.rawValue), "reduceMotion": .bool(reduceMotion), "keys": .string(keys), "colors": .string(colors),
            "fit": .bool(photosFit), "sound": .bool(sound),
        ]
        return .object(wire)
    }

    /// The setup a recording's header holds, every value checked and bounded, each field by
    /// its own rule: a hostile or damaged file gets a clear reason that names the field and
    /// what it must be (a seed of -1, 1.5 or 2^64 is "must be a whole number from 0 to …",
    /// never "the header cannot be read"), never a crash or a value no flag could give.
    init(json: JSONValue) throws(SetupProblem) {
        let top = try SetupFields(json, at: "setup")
        let feedFields = try SetupFields(top.required("feed"), at: "setup.feed")
        let demo = try feedFields.bool("demo")
        let folder = try feedFields.string("folder", rule: "must be a path of 1 to 4096 printable bytes")
        let server = try feedFields.string("server", rule: "expected an http or https URL")
        let synthetic = try feedFields.whole("synthetic", in: 1...100_000, rule: "must be a number of stories from 1 to 100000")
        let feedSeed = try feedFields.whole("seed", in: 0...Int(Self.maxSeed), rule: "must be a whole number from 0 to \(Self.maxSeed)")
        let given = [demo == true, folder != nil, server != nil, synthetic != nil].filter { $0 }
        guard given.count == 1 else {
            throw SetupProblem(field: "setup.feed", reason: "must be one of {\"demo\":true}, {\"folder\":…}, {\"server\":…}, {\"synthetic\":N}")
        }
        if let path = folder {
            guard (1...4096).contains(path.utf8.count), SafeText.line(path) == path else {
                throw feedFields.problem("folder", "must be a path of 1 to 4096 printable bytes")
            }
            feed = .folder(path)
        } else if let address = server {
            if let reason = HomeDecoder.linkProblem(address) { throw feedFields.problem("server", reason) }
            feed = .server(address)
        } else if let count = synthetic {
            feed = .synthetic(count, seed: UInt64(feedSeed ?? 1))
        } else {
            feed = .demo
        }

        let n = try SetupFields(top.required("network"), at: "setup.network")
        let limit = NetworkProfile.maxDelay
        let nameRule = "must be 1 to 40 letters, digits or -"
        guard let name = try n.string("name", rule: nameRule) else { throw n.problem("name", "is missing") }
        guard (1...40).contains(name.count), name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { throw n.problem("name", nameRule) }
        let delayRule = "must be seconds from 0 to \(Int(limit))"
        let latency = try n.requiredNumber("latency", in: 0...limit, rule: delayRule)
        let jitter = try n.requiredNumber("jitter", in: 0...limit, rule: delayRule)
        let timeoutRule = "must be seconds over 0, at most \(Int(limit))"
        let timeout = try n.requiredNumber("timeout", in: 0...limit, rule: timeoutRule)
        guard timeout > 0 else { throw n.problem("timeout", timeoutRule) }
        let fail = try n.requiredNumber("fail", in: 0...1, rule: "must be a share from 0 to 1")
        let bandwidth = try n.number("bandwidth", in: 1...NetworkProfile.maxBandwidth,
                                     rule: "must be bytes a second from 1 to \(Int(NetworkProfile.maxBandwidth))")
        guard let offline = try n.bool("offline") else { throw n.problem("offline", "is missing") }
        network = NetworkProfile(name: name, latency: latency, jitter: jitter, bandwidth: bandwidth,
                                 failureRate: fail, timeout: timeout, isOffline: offline)

        let seedRule = "must be a whole number from 0 to \(Self.maxSeed)"
        guard let seed = try top.whole("seed", in: 0...Int(Self.maxSeed), rule: seedRule) else { throw top.problem("seed", "is missing") }
        self.seed = UInt64(seed)
        guard let preloadName = try top.string("preload", rule: "must be on or off") else { throw top.problem("preload", "is missing") }
        guard let policy = PreloadPolicy(rawValue: preloadName) else { throw top.problem("preload", "must be on or off") }
        preload = policy
        guard let reduce = try top.bool("reduceMotion") else { throw top.problem("reduceMotion", "is missing") }
        reduceMotion = reduce
        let keysRule = "must be text of at most \(Self.maxKeysLength) bytes"
        guard let keys = try top.string("keys", rule: keysRule) else { throw top.problem("keys", "is missing") }
        guard keys.utf8.count <= Self.maxKeysLength else { throw top.problem("keys", "must be at most \(Self.maxKeysLength) bytes") }
        self.keys = keys
        let colorsRule = "must be one of \(Self.colorNames.joined(separator: ", "))"
        guard let colors = try top.string("colors", rule: colorsRule) else { throw top.problem("colors", "is missing") }
        guard Self.colorNames.contains(colors) else { throw top.problem("colors", colorsRule) }
        self.colors = colors
        photosFit = try top.bool("fit") ?? true
        sound = try top.bool("sound") ?? true
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

/// One object of a recording's setup, read field by field: each getter gives nil for a field
/// that is not there (or is null) and a problem naming the field, with its rule, for one
/// of the wrong kind or out of bounds.
struct SetupFields {
    let fields: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, at path: String) throws(SetupProblem) {
        guard case .object(let fields) = value else { throw SetupProblem(field: path, reason: "must be an object, not \(value.kindName)") }
        self.fields = fields
        self.path = path
    }

    func problem(_ key: String, _ reason: String) -> SetupProblem {
        SetupProblem(field: "\(path).\(key)", reason: reason)
    }

    func value(_ key: String) -> JSONValue? {
        guard let value = fields[key], value != .null else { return nil }
        return value
    }

    func required(_ key: String) throws(SetupProblem) -> JSONValue {
        guard let value = value(key) else { throw problem(key, "is missing") }
        return value
    }

    func string(_ key: String, rule: String) throws(SetupProblem) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw problem(key, rule) }
        return text
    }

    func bool(_ key: String) throws(SetupProblem) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw problem(key, "must be true or false") }
        return flag
    }

    /// A finite number within `range`.
    func number(_ key: String, in range: ClosedRange<Double>, rule: String) throws(SetupProblem) -> Double? {
        guard let value = value(key) else { return nil }
        guard case .number(let number) = value, number.isFinite, range.contains(number) else { throw problem(key, rule) }
        return number
    }

    func requiredNumber(_ key: String, in range: ClosedRange<Double>, rule: String) throws(SetupProblem) -> Double {
        guard let number = try number(key, in: range, rule: rule) else { throw problem(key, "is missing") }
        return number
    }

    /// A whole number within `range` (1.5, -1, 2^64 and "1" are not), checked before any
    /// conversion to an integer.
    func whole(_ key: String, in range: ClosedRange<Int>, rule: String) throws(SetupProblem) -> Int? {
        guard let value = value(key) else { return nil }
        guard case .number(let number) = value, number.isFinite, number == number.rounded(.towardZero),
              number >= Double(range.lowerBound), number <= Double(range.upperBound) else { throw problem(key, rule) }
        return Int(number)
    }
}
