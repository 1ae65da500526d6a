@testable import StoriesFeedIO
import Foundation
import StoriesAssets
import Testing
@testable import StoriesCore

/// `home.json` / `GET /v1/home`: every style and action, and every way a document can be
/// wrong without being fatal.
@Suite struct HomeDecoderTests {
    func decode(_ json: String) throws(FeedError) -> HomeLoad {
        try HomeDecoder.decode(Data(json.utf8), file: "home.json")
    }

    func document(_ sections: String) -> String { #"{"version":1,"sections":["# + sections + "]}" }

    @Test func decodesEveryStyleAndEveryAction() throws {
        let load = try decode(document("""
        {"id":"b","style":"banner","title":[{"text":"Fea","bold":true},{"text":"tured ","italic":true,"color":"#ff0000"},{"text":"now","underline":true,"color":"accent"}],
         "cells":[{"id":"c1","title":"One","subtitle":"sub","badge":{"text":"NEW","color":"green"},"progress":0.25,
                   "tooltip":{"id":"tip-1","text":"Hello there"},"picture":{"path":"media/a.jpg","blurhash":"LKO2"},
                   "action":{"type":"story","story":"ayla"}}]},
        {"id":"c","style":"cards","cells":[{"id":"c2","title":"Two","action":{"type":"link","url":"https://example.org/a?b=c","title":"Example"}}]},
        {"id":"r","style":"ring","cells":[{"id":"c3","title":"Three"}]},
        {"id":"l","style":"list","cells":[{"id":"c4","title":"Four","action":{"type":"sections","title":"More",
            "sections":[{"id":"inner","style":"list","cells":[{"id":"c5","title":"Five","action":{"type":"story","story":"mika"}}]}]}}]}
        """))
        #expect(load.warnings.isEmpty)
        let sections = load.layout.sections
        #expect(sections.map(\.style) == [.banner, .cards, .ring, .list])
        #expect(sections[0].title == FormattedText([
            .init("Fea", bold: true), .init("tured ", italic: true, color: RGB(0xFF, 0, 0)),
            .init("now", underline: true, color: HomeDecoder.namedColors["accent"]),
        ]), "spans keep their emphasis, colours and the space between words")
        let cell = sections[0].cells[0]
        #expect(cell.title.plain == "One")
        #expect(cell.subtitle?.plain == "sub")
        #expect(cell.badge == Badge(text: "NEW", color: try #require(HomeDecoder.namedColors["green"])))
        #expect(cell.progress == 0.25)
        #expect(cell.tooltip == Tooltip(id: "tip-1", text: "Hello there"))
        #expect(cell.picture == Media(location: "media/a.jpg", blurhash: "LKO2"))
        #expect(cell.action == .openStory("ayla"))
        #expect(sections[1].cells[0].action == .openLink(Link(title: "Example", url: "https://example.org/a?b=c")))
        #expect(sections[2].cells[0].action == nil)
        guard case .openSections(let title, let inner)? = sections[3].cells[0].action else {
            Issue.record("expected a sections action")
            return
        }
        #expect(title == "More")
        #expect(inner.first?.cells.first?.action == .openStory("mika"))
    }

    @Test func unknownStylesAndActionsAreSkippedWithAWarningNeverFatal() throws {
        let load = try decode(document("""
        {"id":"a","style":"carousel","cells":[{"id":"x","title":"X"}]},
        {"id":"b","style":"list","cells":[{"id":"y","title":"Y","action":{"type":"share","what":"everything"}},{"id":"z","title":"Z"}]}
        """))
        #expect(load.layout.sections.map(\.id) == ["b"], "the unknown style is skipped, the rest shows")
        #expect(load.layout.sections[0].cells.map(\.id) == ["y", "z"], "a cell with an unknown action still shows")
        #expect(load.layout.sections[0].cells[0].action == nil)
        #expect(load.warnings.map(\.message) == [
            "home.json: sections[0].style: 'carousel' is not a section style this app knows (ring, cards, list, banner); section skipped",
            "home.json: sections[1].cells[0].action.type: 'share' is not an action this app knows (story, sections, link); the cell shows without it",
        ])
    }

    @Test(arguments: [
        (#"{"id":"x"}"#, "home.json: sections[0].cells[0].title: missing; cell skipped"),
        (#"{"id":"x","title":"T","progress":1.5}"#, "home.json: sections[0].cells[0].progress: expected a number from 0 to 1 or \"seen\", found 1.5; cell skipped"),
        (#"{"id":"x","title":"T","progress":"half"}"#, "home.json: sections[0].cells[0].progress: expected a number from 0 to 1 or \"seen\", found 'half'; cell skipped"),
        (#"{"id":"x","title":"T","hide":"always"}"#, "home.json: sections[0].cells[0].hide: expected \"seen\" (the cell goes once its story is seen); cell skipped"),
        (#"{"id":"x","title":"T","badge":{"text":"B","color":"chartreuse-ish"}}"#,
         "home.json: sections[0].cells[0].badge.color: expected a colour like \"#e63946\" or one of accent, blue, green, grey, muted, orange, pink, purple, red, warning, white, yellow; cell skipped"),
        (#"{"id":"x","title":"T","action":{"type":"link","url":"javascript:alert(1)"}}"#,
         "home.json: sections[0].cells[0].action.url: expected an http or https URL; cell skipped"),
        (#"{"id":"x","title":"T","action":{"type":"link","url":"https://a b.example"}}"#,
         "home.json: sections[0].cells[0].action.url: a link may not hold spaces or control characters; cell skipped"),
        (#"{"id":"x","title":"T","action":{"type":"story","story":"../etc"}}"#,
         "home.json: sections[0].cells[0].action.story: '../etc' is not a story id; cell skipped"),
        (#"{"id":"x","title":"\u001b[2J"}"#, "home.json: sections[0].cells[0].title: has no printable characters; cell skipped"),
        (#"{"id":"x","title":"T","picture":{"path":"/etc/passwd"}}"#,
         "home.json: sections[0].cells[0].picture.path: '/etc/passwd' must be a relative path inside the feed folder; cell skipped"),
    ])
    func aBadCellIsSkippedWithItsFieldAndReason(cell: String, message: String) throws {
        let load = try decode(document(#"{"id":"s","style":"list","cells":["# + cell + #",{"id":"ok","title":"Fine"}]}"#))
        #expect(load.layout.sections.first?.cells.map(\.id) == ["ok"], "the other cell still shows")
        #expect(load.warnings.map(\.message) == [message])
    }

    @Test(arguments: [
        ("not json", "home.json: not valid JSON"),
        (#"{"version":2,"sections":[]}"#, "home.json: version: unsupported version 2; this build reads version 1"),
        (#"{"version":1,"sections":{}}"#, "home.json: sections: expected an array, found an object"),
        (#"[]"#, "home.json: expected an object, found an array"),
    ])
    func aDocumentThatIsNotAHomeThrowsWithTheReason(json: String, message: String) {
        do {
            _ = try decode(json)
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    @Test func everythingIsBounded() throws {
        func sections(_ count: Int, cells: Int) -> String {
            let cells = (0..<cells).map { #"{"id":"c\#($0)","title":"\#(String(repeating: "w", count: 400))"}"# }.joined(separator: ",")
            return (0..<count).map { #"{"id":"s\#($0)","style":"list","cells":[\#(cells)]}"# }.joined(separator: ",")
        }
        // 40 sections: the first 32, and a warning that says so.
        let many = try decode(document(sections(40, cells: 2)))
        #expect(many.layout.sections.count == HomeDecoder.maxSections)
        #expect(many.warnings.map(\.message) == ["home.json: sections: 40 sections; only the first 32 are shown"])
        #expect(many.layout.sections[0].cells[0].title.plain.displayWidth <= HomeDecoder.maxTextLength)
        // 25 sections of 150 cells: 100 cells a section, 2000 in the document.
        let load = try decode(document(sections(25, cells: 150)))
        #expect(load.layout.sections[0].cells.count == HomeDecoder.maxCells)
        #expect(load.layout.sections.reduce(0) { $0 + $1.cells.count } == HomeDecoder.maxTotalCells,
                "the document's cell budget holds over all sections")
        #expect(load.warnings.count <= HomeDecoder.maxWarnings + 1, "the problems line is not flooded")

        // Sections nested past the limit: the too-deep action is dropped with a warning.
        var nested = #"{"id":"leaf","style":"list","cells":[{"id":"l","title":"Leaf"}]}"#
        for depth in 0..<6 {
            nested = #"{"id":"n\#(depth)","style":"list","cells":[{"id":"c","title":"Open","action":{"type":"sections","sections":[\#(nested)]}}]}"#
        }
        let deep = try decode(document(nested))
        var depth = 1
        var level = deep.layout.sections
        while case .openSections(_, let inner)? = level.first?.cells.first?.action {
            depth += 1
            level = inner
        }
        #expect(depth == HomeDecoder.maxDepth)
        #expect(deep.warnings.contains { $0.message.contains("sections nested more than \(HomeDecoder.maxDepth) deep") })
    }

    @Test func duplicateIDsAndEmptySectionsAreSkipped() throws {
        let load = try decode(document("""
        {"id":"a","style":"list","cells":[{"id":"x","title":"X"},{"id":"x","title":"again"}]},
        {"id":"a","style":"list","cells":[{"id":"y","title":"Y"}]},
        {"id":"e","style":"cards","cells":[]}
        """))
        #expect(load.layout.sections.map(\.id) == ["a"])
        #expect(load.layout.sections[0].cells.map(\.title.plain) == ["X"])
        #expect(load.warnings.count == 3)
    }

    @Test func theDemoHomeShowsEveryStyleAndEveryActionWithNoProblems() throws {
        let feed = try FeedFolder(directory: try #require(DemoFeed.directory))
        let load = try feed.home()
        #expect(load.warnings.isEmpty, "\(load.warnings)")
        #expect(Set(load.layout.sections.map(\.style)) == Set(SectionStyle.allCases))
        var kinds = Set<String>()
        var stories = Set<StoryID>()
        func walk(_ sections: [HomeSection]) {
            for cell in sections.flatMap(\.cells) {
                switch cell.action {
                case .openStory(let id)?: kinds.insert("story"); stories.insert(id)
                case .openSections(_, let inner)?: kinds.insert("sections"); walk(inner)
                case .openLink?: kinds.insert("link")
                case nil: kinds.insert("none")
                }
            }
        }
        walk(load.layout.sections)
        #expect(kinds == ["story", "sections", "link", "none"])
        #expect(stories.isSubset(of: Set(feed.index.storyIDs)), "every story a cell opens is in the demo feed")
        let cells = load.layout.sections.flatMap(\.cells)
        #expect(cells.contains { $0.tooltip != nil } && cells.contains { $0.badge != nil } && cells.contains { $0.progress != nil }
                && cells.contains { $0.picture != nil })
    }

    @Test func aFolderWithoutHomeJSONHasNoSections() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"version":1,"stories":[]}"#.utf8).write(to: folder.appendingPathComponent("feed.json"))
        #expect(try FeedFolder(directory: folder).home().layout == .empty)
    }

    @Test func formattedTextIsCutToAWidthAcrossSpans() {
        let text = FormattedText([.init("Continue ", bold: true), .init("watching", color: RGB(1, 2, 3))])
        #expect(text.truncated(toWidth: 40) == text)
        #expect(text.truncated(toWidth: 12).plain == "Continue wa…")
        #expect(text.truncated(toWidth: 12).spans.map(\.bold) == [true, false])
        #expect(text.truncated(toWidth: 5).plain == "Cont…")
        #expect(text.truncated(toWidth: 0).spans.isEmpty)
    }

    @Test func tooltipsShownAreKeptAcrossRestarts() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tips-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let environment = ["XDG_STATE_HOME": folder.path]
        var seen = SeenState()
        seen.markSeen(story: "a", item: "1")
        seen.markTooltipShown("tip-1")
        let store = SeenStore(feedKey: "/feed", environment: environment, delay: .milliseconds(0))
        store.save(seen)
        store.flush()
        let loaded = SeenStore(feedKey: "/feed", environment: environment).load()
        #expect(loaded.warning == nil)
        #expect(loaded.state.hasShownTooltip("tip-1"))
        #expect(loaded.state == seen)
    }

    @Test func theReducerAsksForSectionViewModelsAndBuildsNoneItself() {
        let now = Moment(uptime: 100, date: Date(timeIntervalSince1970: 1_795_197_600))
        var state = AppState(title: "T", now: now)
        _ = AppReducer.reduce(&state, .start, at: now)
        let sections = [HomeSection(id: "s", style: .list, cells: [HomeCell(id: "c", title: FormattedText("C"))])]
        let effects = AppReducer.reduce(&state, .homeLoaded(HomeLoad(layout: HomeLayout(sections: sections))), at: now)
        let jobs = effects.compactMap { effect -> ViewModelJob? in
            if case .buildViewModels(let job) = effect { return job }
            return nil
        }
        #expect(jobs.count == 1)
        #expect(jobs.first?.home?.sections == sections && jobs.first?.home?.generation == state.home.generation)
        #expect(state.currentHomeModels == nil, "nothing is built in the reducer: the job goes off the main queue")
        // An answer for another screen of sections is dropped; the one asked for is taken.
        guard let job = jobs.first else { return }
        var stale = ViewModelFactory.build(job)
        stale.home?.generation -= 1
        _ = AppReducer.reduce(&state, .viewModelsBuilt(stale), at: now)
        #expect(state.currentHomeModels == nil)
        _ = AppReducer.reduce(&state, .viewModelsBuilt(ViewModelFactory.build(job)), at: now)
        #expect(state.currentHomeModels?.sections.count == 1)
    }
}
