import Foundation

/// One expectation's outcome in a run.
public struct FlowResult: Equatable, Sendable {
    /// The flow file's line.
    public var line: Int
    /// The step's `name`, else the expectation in words.
    public var name: String
    public var expected: String
    public var verdict: FlowVerdict
    /// Seconds of virtual time since the run started.
    public var time: Double
    /// A snapshot expectation not met: its file and the screen's lines then (what
    /// `check --update-snapshots` writes).
    public var snapshot: (file: String, lines: [String])?

    public init(line: Int, name: String, expected: String, verdict: FlowVerdict, time: Double) {
        (self.line, self.name, self.expected, self.verdict, self.time) = (line, name, expected, verdict, time)
    }

    public static func == (a: FlowResult, b: FlowResult) -> Bool {
        a.line == b.line && a.name == b.name && a.expected == b.expected && a.verdict == b.verdict && a.time == b.time
            && a.snapshot?.file == b.snapshot?.file && a.snapshot?.lines == b.snapshot?.lines
    }
}

/// A flow's run: its results, how long it ran (virtual seconds), and notes about it (what
/// differs from the flow's setup).
public struct FlowRunReport: Equatable, Sendable {
    public var file: String
    public var results: [FlowResult]
    public var duration: Double
    /// The inputs stopped early with inputs left (the app quit, or an `end` line): said, not
    /// a failure.
    public var endedEarly: Double?
    /// What ended them.
    public var endedBy = "the app quit"

    public init(file: String, results: [FlowResult], duration: Double, endedEarly: Double? = nil) {
        (self.file, self.results, self.duration, self.endedEarly) = (file, results, duration, endedEarly)
    }

    public var failures: Int { results.filter { !$0.verdict.passed }.count }

    /// One line per expectation (a failure followed by what it expected, what was there and
    /// its evidence, indented; met ones left out without `passes`), then the flow's tally.
    public func lines(passes: Bool = true) -> [String] {
        let name = SafeText.line(file)
        var out: [String] = []
        for result in results {
            let place = "\(name):\(result.line)"
            let when = String(format: "%.2f s", result.time)
            if result.verdict.passed {
                if passes { out.append("✓ \(place) \(result.name) (\(when))") }
            } else {
                out.append("✗ \(place) \(result.name) (\(when))")
                if result.name != result.expected { out.append("    expected: \(result.expected)") }
                out.append("    found:    \(result.verdict.actual)")
                out.append(contentsOf: result.verdict.evidence.map { "    " + $0 })
            }
        }
        if let endedEarly { out.append("  \(name): \(endedBy) at \(String(format: "%.2f", endedEarly)) s; later inputs were not fed") }
        let tally = failures == 0 ? "passed" : "FAILED"
        out.append("\(tally) \(name): \(results.count - failures) of \(results.count) expectations met, \(String(format: "%.2f", duration)) s of virtual time")
        return out
    }
}

/// JUnit XML, the shape CI systems read: a suite per flow, a test case per expectation.
public enum JUnitReport {
    public static func xml(_ reports: [FlowRunReport], problems: [(file: String, reason: String)] = []) -> String {
        let tests = reports.reduce(0) { $0 + $1.results.count } + problems.count
        let failures = reports.reduce(0) { $0 + $1.failures }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"stories check\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(problems.count)\">\n"
        for report in reports {
            let suite = escape(report.file)
            out += "  <testsuite name=\"\(suite)\" tests=\"\(report.results.count)\" failures=\"\(report.failures)\" errors=\"0\""
                + " time=\"\(String(format: "%.3f", report.duration))\">\n"
            var previous = 0.0
            for result in report.results {
                let time = max(0, result.time - previous)
                previous = result.time
                out += "    <testcase classname=\"\(suite)\" name=\"\(escape("line \(result.line): \(result.name)"))\" time=\"\(String(format: "%.3f", time))\""
                if result.verdict.passed {
                    out += "/>\n"
                } else {
                    out += ">\n      <failure message=\"\(escape("expected \(result.expected); found \(result.verdict.actual)"))\">"
                    out += escape((["expected: \(result.expected)", "found:    \(result.verdict.actual)"] + result.verdict.evidence).joined(separator: "\n"))
                    out += "</failure>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        for problem in problems {
            let suite = escape(problem.file)
            out += "  <testsuite name=\"\(suite)\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
            out += "    <testcase classname=\"\(suite)\" name=\"read the flow\">\n"
            out += "      <error message=\"\(escape(problem.reason))\"/>\n    </testcase>\n  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    /// Text as XML 1.0 may hold it: the five specials escaped, and characters it forbids
    /// (controls but tab and line ends, lone surrogates cannot occur in a Swift string,
    /// U+FFFE/U+FFFF) made U+FFFD.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            case "\r": out += "&#13;"
            default:
                let value = scalar.value
                if value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) || value == 0xFFFE || value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
