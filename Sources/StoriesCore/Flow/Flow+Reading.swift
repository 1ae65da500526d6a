import Foundation

/// Reading a flow: every line by the one JSON reader (`JSONValue.parseLine`), every member
/// checked by kind and bounded before use; a bad line is one error naming the file, the
/// line and the field, as for recordings.
extension Flow {
    /// The most points a `drag` may pass through, and the longest text an expectation looks
    /// for.
    public static let maxDragPoints = 1000
    public static let maxText = 1000
    /// The most expectations one flow holds (each renders and reads the screen).
    public static let maxExpectations = 10_000
    /// How often a written-out drag reports the pointer (a terminal's mouse reports while
    /// moving come about this often).
    public static let dragStep = 1.0 / 30

    public static func parse(_ text: String, file: String) throws(ConfigError) -> Flow {
        let lines = TextLines.split(text)
        func fail(_ line: Int, _ reason: String) -> ConfigError { ConfigError(file: file, line: line, reason: reason) }
        guard let first = lines.first, !first.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw fail(1, "empty: a flow starts with {\"stories-flow\":1,…} (or is a recording)")
        }
        let header: [String: JSONValue]
        switch JSONValue.parseLine(first) {
        case .success(.object(let members)): header = members
        case .success(let other): throw fail(1, "not a flow header: expected an object, found \(other.kindName)")
        case .failure(let failure): throw fail(1, "not a flow header: \(failure.reason)")
        }
        var flow: Flow
        if header["stories-recording"] != nil {
            // Any recording is a flow without expectations.
            let recording = try InputRecording.parse(text, file: file)
            guard recording.duration <= maxDuration else {
                throw fail(1, "a recording run as a flow (checked or rendered) lasts at most \(Int(maxDuration)) s; this one lasts \(Int(recording.duration)) s")
            }
            flow = Flow(file: file, width: recording.width, height: recording.height, started: recording.started,
                        seen: recording.seen, setup: recording.setup ?? SessionSetup(), setupGiven: recording.setup != nil, steps: [])
            for (index, (time, entry)) in recording.entries.enumerated() {
                flow.steps.append(Step(line: index + 2, at: time, kind: .inputs([(0, entry)])))
            }
            return flow
        }
        flow = try readHeader(header, fail: { fail(1, $0) }, file: file)
        var total = 0.0
        var lastAt = 0.0
        var expectations = 0
        for (offset, raw) in lines.enumerated().dropFirst() {
            let number = offset + 1
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            // Blank lines and comments (# or //) are for the person editing the flow.
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix("//") { continue }
            let members: [String: JSONValue]
            switch JSONValue.parseLine(raw) {
            case .success(.object(let object)): members = object
            case .success(let other): throw fail(number, "expected a JSON object, found \(other.kindName)")
            case .failure(let failure): throw fail(number, failure.reason)
            }
            let step: Step
            do { step = try readStep(members, line: number, fail: { fail(number, $0) }) } catch let problem as ConfigError {
                throw problem
            } catch let problem as InputRecording.Fields.Problem {
                throw fail(number, problem.reason)
            } catch {
                throw fail(number, "\(error)")
            }
            if let at = step.at {
                guard at >= lastAt else { throw fail(number, "\"t\" must not be smaller than the \"t\" before it (\(lastAt))") }
                lastAt = at
                total = max(total, at)
            }
            switch step.kind {
            case .wait(let seconds): total += seconds
            case .inputs(let entries): total += entries.reduce(0) { $0 + $1.after }
            case .settle, .expect: break // usually no time at all; the run itself is bounded (`maxRunTime`)
            }
            guard total <= maxDuration else {
                throw fail(number, "the flow would run past \(Int(maxDuration)) s of virtual time (its waits and gestures add up)")
            }
            if case .expect(.text(_, let place, _), _) = step.kind {
                // A place off the screen the flow starts on could never be looked at.
                let corner: (x: Int, y: Int)? = switch place {
                case .anywhere: nil
                case .region(let x, let y, _, _): (x, y)
                case .cell(let x, let y): (x, y)
                }
                if let corner, corner.x >= flow.width || corner.y >= flow.height {
                    throw fail(number, "the text's place starts at column \(corner.x), row \(corner.y): off the \(flow.width)×\(flow.height) screen the flow starts on")
                }
            }
            if case .expect = step.kind {
                expectations += 1
                guard expectations <= maxExpectations else { throw fail(number, "a flow holds at most \(maxExpectations) expectations") }
            }
            flow.steps.append(step)
        }
        return flow
    }

    private static func readHeader(_ members: [String: JSONValue], fail: (String) -> ConfigError, file: String) throws(ConfigError) -> Flow {
        guard let version = InputRecording.Fields.wholeNumber(members["stories-flow"]) else {
            throw fail("not a flow header (expected {\"stories-flow\":\(formatVersion),…} or a recording's header)")
        }
        guard version == formatVersion else {
            throw fail("flow version \(version) is not supported (this stories reads version \(formatVersion))")
        }
        let fields = InputRecording.Fields(members)
        let side = InputLimits.maxScreenSide
        let width: Int, height: Int, started: Double
        var seen = SeenState()
        do {
            width = InputRecording.Fields.clampedInt(try fields.optional("width", InputRecording.Fields.number, "a number") ?? 80)
            height = InputRecording.Fields.clampedInt(try fields.optional("height", InputRecording.Fields.number, "a number") ?? 24)
            started = try fields.optional("started", InputRecording.Fields.number, "a number") ?? 1_795_240_800
            if let value = members["seen"], value != .null {
                guard case .object(let stories) = value else { throw fail("\"seen\" must be an object of story ids, each with a list of item ids") }
                var items: [StoryID: Set<ItemID>] = [:]
                for (story, list) in stories {
                    guard let ids = InputRecording.Fields.strings(list) else {
                        throw fail("\"seen\" must be an object of story ids, each with a list of item ids")
                    }
                    items[story] = Set(ids)
                }
                seen = SeenState(items: items)
            }
            // Home tooltips already shown (as a recording's header keeps them).
            if let tooltips = try fields.optional("tooltips", InputRecording.Fields.strings, "a list of tooltip ids") {
                seen = SeenState(items: seen.items, tooltips: Set(tooltips))
            }
        } catch let problem as InputRecording.Fields.Problem {
            throw fail(problem.reason)
        } catch let problem as ConfigError {
            throw problem
        } catch {
            throw fail("\(error)")
        }
        guard (1...side).contains(width), (1...side).contains(height) else {
            throw fail("width and height must be from 1 to \(side) (the largest screen, as for --size)")
        }
        guard started.isFinite, (0...InputLimits.maxWallClock).contains(started) else {
            throw fail("\"started\" must be seconds since 1970, up to the year 5000")
        }
        var setup = SessionSetup()
        let given = members["setup"].map { $0 != .null } ?? false
        if given, let value = members["setup"] {
            // A flow names only what it changes: the rest is the defaults'.
            guard case .object(var partial) = value else { throw fail("\"setup\" must be an object, not \(value.kindName)") }
            guard case .object(var whole) = SessionSetup().json else { throw fail("setup") }
            if case .string(let name)? = partial["network"] {
                guard let profile = NetworkProfile.named[name.lowercased()] else {
                    throw fail("\"setup.network\" names no network profile ('\(SafeText.line(String(name.prefix(40))))'; \(NetworkProfile.named.keys.sorted().joined(separator: ", ")))")
                }
                partial["network"] = SessionSetup(network: profile).json.member("network")
            }
            for (key, member) in partial { whole[key] = member }
            do { setup = try SessionSetup(json: .object(whole)) } catch { throw fail("\"\(error.field)\" \(error.reason)") }
        }
        return Flow(file: file, width: width, height: height, started: started, seen: seen, setup: setup, setupGiven: given, steps: [])
    }
}

extension JSONValue {
    /// An object's member (nil for anything else).
    func member(_ key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }
}
