import Foundation
import Testing

/// Issue 28, point 1: each feature writes only its own slice of `AppState`. Every file of a
/// feature (`Sources/StoriesCore/Features/<Feature>/`) is read: a write to another
/// feature's slice or to the shared context, a mutating call on the feed's store outside
/// the Feed feature, or a call into another feature's reducer fails here, with the file and
/// line (a function another feature declares under the same name, as `reduce` and `apply`
/// are, cannot be told apart and is let through). What a feature wants of another's slice it asks the parent for (`Delegate`). The
/// parent — `Sources/StoriesCore/App` and the Navigation feature — composes the features
/// and is not read.
@Suite struct FeatureOwnershipTests {
    /// Each child feature's folder and the slice it owns.
    static let slices: [String: String] = [
        "Feed": "feed", "Row": "row", "Home": "home", "Viewer": "viewing", "Pointer": "gesture",
        "Media": "media", "ViewModels": "viewModels", "Chrome": "chrome",
    ]
    /// The parent's folders and files: they may write any slice.
    static let parent: Set<String> = ["Navigation"]

    static var core: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/StoriesCore")
    }

    /// The stored properties of `AppState`: slices and the shared context.
    static func stateProperties() throws -> Set<String> {
        let text = try String(contentsOf: core.appendingPathComponent("App/AppState.swift"), encoding: .utf8)
        return Set(matches(of: #"(?m)^    public var (\w+)(?:\s*[:=])"#, in: text).filter { !$0.isEmpty })
    }

    /// Names of mutating functions declared in these files.
    static func mutatingNames(_ texts: [String]) -> Set<String> {
        Set(texts.flatMap { matches(of: #"mutating func (\w+)"#, in: $0) })
    }

    static let standardMutators: Set<String> = [
        "append", "insert", "remove", "removeAll", "removeFirst", "removeLast", "removeValue", "formUnion", "subtract",
        "toggle", "sort", "popLast", "replaceSubrange", "updateValue", "merge",
    ]

    static func matches(of pattern: String, in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// The lines of one feature's file that reach outside its slice.
    static func violations(in text: String, feature: String, owns slice: String, properties: Set<String>,
                           mutators: Set<String>, storeMutators: Set<String>, othersFunctions: Set<String>) -> [String] {
        var found: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // String literals emptied first (a "//" in one is no comment), then the comment
            // cut, and `self.` dropped (a call through it is still a call).
            let code = String(raw).replacingOccurrences(of: #""(?:[^"\\]|\\.)*""#, with: "\"\"", options: .regularExpression)
                .replacingOccurrences(of: #"/\*.*?\*/"#, with: "", options: .regularExpression)
            let line = String(code.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .replacingOccurrences(of: "self.", with: "")
            func say(_ what: String) { found.append("\(feature):\(number + 1): \(what): \(raw.trimmingCharacters(in: .whitespaces))") }
            // state.<property>… = (or any compound assignment), &state.<property>…, .mutator(
            let path = #"(?:[?!]?\.\w+|[?!]?\[[^\]]*\])*[?!]?"#
            for target in matches(of: #"\bstate\.(\w+)"# + path + #"\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)"#, in: line)
                + matches(of: #"(?<![&\w\])])&\s*state\.(\w+)"#, in: line) // inout, not &&
            where target != slice && properties.contains(target) {
                say("writes state.\(target)")
            }
            for call in matchPairs(#"\bstate\.(\w+)"# + path + #"\.(\w+)\("#, in: line)
            where call.0 != slice && properties.contains(call.0) && mutators.contains(call.1) {
                say("changes state.\(call.0) (\(call.1))")
            }
            if slice != "feed" {
                // store.<chain> = …, or store.<chain>.<mutating call>(
                for (chain, operation) in matchPairs(#"(?<![\w.])store((?:[?!]?\.\w+|[?!]?\[[^\]]*\])+)\s*(\(|(?:[-+*/%&|^]|<<|>>)?=(?!=))"#,
                                                     in: line) {
                    let last = matches(of: #"\.(\w+)[?!]?$"#, in: chain).last ?? ""
                    if operation != "(" || storeMutators.union(standardMutators).contains(last) {
                        say("changes the feed's store (\(chain))")
                    }
                }
                if line.range(of: #"(?<![&\w\])])&\s*store\."#, options: .regularExpression) != nil { say("changes the feed's store (inout)") }
            }
            for name in matches(of: #"(?<![\w.])(\w+)\("#, in: line) where othersFunctions.contains(name) {
                if !line.contains("func \(name)") { say("calls another feature's \(name)") }
            }
        }
        return found
    }

    static func matchPairs(_ pattern: String, in text: String) -> [(String, String)] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).map { match in
            let first = Range(match.range(at: 1), in: text).map { String(text[$0]) } ?? ""
            let second = match.numberOfRanges > 2 ? Range(match.range(at: 2), in: text).map { String(text[$0]) } ?? "" : ""
            return (first, second.trimmingCharacters(in: .whitespaces))
        }
    }

    static func featureFiles() throws -> [String: [String]] {
        let folder = core.appendingPathComponent("Features")
        var texts: [String: [String]] = [:]
        for feature in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let directory = folder.appendingPathComponent(feature)
            // Sub-folders of a feature are the feature's too.
            let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                texts[feature, default: []].append(try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8))
            }
        }
        return texts
    }

    @Test func everyFeatureWritesOnlyItsOwnSlice() throws {
        let properties = try Self.stateProperties()
        #expect(properties.isSuperset(of: Set(Self.slices.values)) && properties.contains("seen") && properties.contains("title"),
                "the slices and the shared context are read from AppState: \(properties.sorted())")
        let files = try Self.featureFiles()
        #expect(Set(files.keys) == Set(Self.slices.keys).union(Self.parent), "every feature folder is a child or the parent: \(files.keys.sorted())")
        let allTexts = try FileManager.default.enumerator(atPath: Self.core.path)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOf: Self.core.appendingPathComponent($0), encoding: .utf8) } ?? []
        let mutators = Self.mutatingNames(allTexts).union(Self.standardMutators)
        let storeText = try String(contentsOf: Self.core.appendingPathComponent("Store/StoryStore.swift"), encoding: .utf8)
        let storeMutators = Self.mutatingNames([storeText])
        // The parent's own steps (route, settle): a feature asks through `delegate`; it may
        // add a retry's wake-up (`scheduleRetry` only adds an effect).
        let parentTexts = try FileManager.default.contentsOfDirectory(atPath: Self.core.appendingPathComponent("App").path)
            .filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOf: Self.core.appendingPathComponent("App/\($0)"), encoding: .utf8) }
        let parentSteps = Self.mutatingNames(parentTexts).subtracting(["delegate", "scheduleRetry"])
        #expect(parentSteps.contains("settle") && parentSteps.contains("sourceAnswered"), "\(parentSteps.sorted())")
        var lines = 0
        var violations: [String] = []
        for (feature, slice) in Self.slices {
            let own = Self.mutatingNames(files[feature] ?? [])
            let others = Self.mutatingNames(files.filter { $0.key != feature }.flatMap(\.value)).union(parentSteps).subtracting(own)
            for text in files[feature] ?? [] {
                lines += text.split(separator: "\n").count
                violations += Self.violations(in: text, feature: feature, owns: slice, properties: properties, mutators: mutators,
                                              storeMutators: storeMutators, othersFunctions: others)
            }
        }
        #expect(lines > 500, "the features' files were read (\(lines) lines)")
        #expect(violations.isEmpty, "a feature reaches outside its slice (ask the parent with a Delegate):\n\(violations.joined(separator: "\n"))")
    }

    /// The reader finds each kind of reach it is there to find (so a clean run means
    /// something), and leaves reads and the feature's own writes alone.
    @Test func theReaderFindsEachKindOfReach() {
        let properties: Set<String> = ["row", "chrome", "seen", "title", "feed"]
        func check(_ line: String) -> [String] {
            Self.violations(in: line, feature: "Row", owns: "row", properties: properties, mutators: ["append", "markSeen"],
                            storeMutators: ["cancelLoadingItems"], othersFunctions: ["show"])
        }
        #expect(check("state.chrome.notice = \"x\"").count == 1)
        #expect(check("state.title = title").count == 1)
        #expect(check("state.seen.markSeen(story: id, item: item)").count == 1)
        #expect(check("state.feed.warnings.append(warning)").count == 1)
        #expect(check("store.paging = .loading(cursor: nil, attempt: 1)").count == 1)
        #expect(check("if store.cancelLoadingItems(of: id) { }").count == 1)
        #expect(check("show(story: 1, item: nil)").count == 1)
        #expect(check("state.row.selection = 3").isEmpty)
        #expect(check("if state.chrome.notice == nil, store.story(at: 1) != nil { }").isEmpty)
        #expect(check("// state.chrome.notice = \"in a comment\"").isEmpty)
        #expect(check("delegate(.notice(\"x\"))").isEmpty)
        // The forms a write can take.
        #expect(check("state.row.search?.matches = 1").isEmpty, "its own slice, through an optional")
        #expect(check("state.chrome.notice? = \"x\"").count == 1)
        #expect(check("state.feed.warnings[0] = w").count == 1)
        #expect(check("state.chrome.modalScroll += 1").count == 1)
        #expect(check("state.chrome.modalScroll |= 1").count == 1)
        #expect(check("swap(&state.chrome.modalScroll, &x)").count == 1)
        #expect(check("store.items[id] = .loading").count == 1)
        #expect(check("store.paging.cursor = nil").count == 1)
        #expect(check("store.summaries.removeAll()").count == 1)
        #expect(check("self.show(story: 1, item: nil)").count == 1)
        #expect(check("let url = \"https://a.example/\"; state.chrome.notice = url").count == 1, "a // in a string is no comment")
        #expect(check("/* note */ state.chrome.notice = nil").count == 1)
        #expect(check("if store.items[id] == nil, state.feed.warnings.isEmpty { }").isEmpty, "reads")
        #expect(check("let ok = state.viewer == nil && state.chrome.modal == nil && store.hasMore").isEmpty, "&& is no inout")
        #expect(check("if let story = store.story(at: 1) { }").isEmpty, "a read through a call")
    }
}
