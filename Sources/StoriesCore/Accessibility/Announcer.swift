import Foundation

/// What the screen-reader mode (`--screen-reader`, issue 33) tells a listener: the app's
/// state reduced to what a person would say about the screen. A pure function of the
/// state, like a screen; `Announcer.lines` turns two of them into the sentences for what
/// changed.
public struct SpokenScreen: Equatable, Sendable {
    public enum Place: Equatable, Sendable {
        /// The feed's first page is on its way.
        case loading
        /// The ring row, with this story selected (nil: no stories).
        case row(story: Int?)
        /// A story's items are on their way; the viewer opens when they come.
        case opening(story: Int)
        /// The viewer: a story's item, and whether it is on screen (its photo or video is
        /// here, or failed) and its clock runs.
        case viewer(story: Int, item: Int, shown: Bool)
        /// The viewer is waiting for a story (its items or the next page).
        case viewerWaiting(story: Int)
        /// A home section's cell has the keyboard.
        case section(section: Int, cell: Int)
        /// The `/` field: what is typed and how many stories match.
        case search(text: String, matches: Int)
        /// A box over the screen (help, problems).
        case box(Modal)
    }

    public var place: Place
    public var paused = false
    /// The item played its time and waits for `next` (the screen-reader mode).
    public var ended = false
    public var notice: String?
    public var problem: String?
    /// How many stories, as the home's corner says it (nil while the first page loads), and
    /// the number itself.
    public var count: String?
    public var storyCount = 0
    /// When this was taken, and how far the viewer's item had played then (to tell an item
    /// that ended from one skipped).
    public var uptime: Double = 0
    public var elapsed: Double = 0
    public var duration: Double = 0

    public init(_ state: AppState) {
        uptime = state.now.uptime
        notice = state.chrome.notice
        problem = state.pagingNotice
        count = state.isLoading ? nil : state.feed.store.countText(spoken: true)
        storyCount = state.feed.store.count
        if let modal = state.chrome.modal {
            place = .box(modal)
        } else if let viewer = state.viewer {
            if viewer.isWaiting || state.feed.store.story(at: viewer.storyIndex) == nil {
                place = .viewerWaiting(story: viewer.storyIndex)
            } else {
                // Once on screen it stays said: a photo drawn again (f, a resize) is not news.
                let seenBefore = state.visibleMedia.map { state.media.shown.contains($0.location) } ?? false
                place = .viewer(story: viewer.storyIndex, item: viewer.itemIndex,
                                shown: !state.awaitsMedia || Self.failure(state) != nil || seenBefore)
                paused = viewer.isPaused || state.isHeld
                ended = state.itemWaitsAtItsEnd
                elapsed = viewer.playback.elapsed(at: state.now.uptime)
                if let item = state.feed.store.story(at: viewer.storyIndex)?.items[safe: viewer.itemIndex] {
                    duration = state.duration(of: item)
                }
            }
        } else if state.isLoading {
            place = .loading
        } else if let search = state.row.search {
            place = .search(text: search.text, matches: search.matches)
        } else if let focused = state.home.level.focusedCell {
            place = .section(section: focused.section, cell: focused.cell)
        } else if let opening = state.row.opening, let index = state.feed.store.positions[opening] {
            place = .opening(story: index)
        } else {
            place = .row(story: state.feed.store.count > 0 ? state.row.selection : nil)
        }
    }

    /// Nothing a listener is told of differs (the clock aside).
    public func tellsTheSame(as other: SpokenScreen) -> Bool {
        place == other.place && paused == other.paused && ended == other.ended && notice == other.notice && problem == other.problem
            && storyCount == other.storyCount
    }

    /// Why the viewer's photo or video is not shown, when it failed.
    static func failure(_ state: AppState) -> String? {
        guard let media = state.visibleMedia else { return nil }
        if let reason = state.media.status[media.location]?.failure { return reason }
        if let video = state.visibleVideo, let reason = state.media.videos[video.location]?.failure { return reason }
        return nil
    }
}

/// The sentences for what changed between two spoken screens.
public enum Announcer {
    /// What to say now: `old` is what was said last (nil at the start).
    public static func lines(from old: SpokenScreen?, to new: SpokenScreen, state: AppState) -> [String] {
        var lines: [String] = []
        let store = state.feed.store
        switch new.place {
        case .loading:
            if old == nil { lines.append("Loading \(clean(state.title))…") }
        case .row(let story):
            if case .row(let before)? = old?.place, before == story {
                break
            }
            if case .loading? = old?.place ?? .loading {
                lines.append(store.count == 0 ? state.emptyRowMessage : "\(clean(state.title)): \(countText(state)).")
            }
            if case .viewer? = old?.place { lines.append("Back to the stories.") }
            if case .viewerWaiting? = old?.place { lines.append("Back to the stories.") }
            if case .box? = old?.place { lines.append("Box closed.") }
            if case .opening? = old?.place, case .failed(let reason)? = store.summaries[safe: story ?? -1].flatMap({ store.items[$0.id] }) {
                lines.append("The story did not load: \(clean(reason)). open tries again.")
            }
            if let story { lines.append(storyLine(story, state: state)) }
        case .opening(let story):
            if old?.place != new.place, let summary = store.summaries[safe: story] {
                lines.append("Opening story \(story + 1), \(clean(summary.author.name))…")
            }
        case .viewerWaiting(let story):
            if old?.place != new.place {
                lines.append(store.summaries[safe: story].map { "Loading \(clean($0.author.name))'s story…" } ?? "Loading more stories…")
            }
        case .viewer(let story, let item, let shown):
            var sameStory = false, sameItem = false
            if case .viewer(let oldStory, let oldItem, let oldShown)? = old?.place {
                sameStory = oldStory == story
                sameItem = sameStory && oldItem == item
                // The item before ran to its end (rather than being skipped).
                if !sameItem, oldShown, let old, !old.ended, old.duration > 0, old.elapsed + (new.uptime - old.uptime) >= old.duration - 0.05,
                   let count = store.story(at: oldStory)?.items.count {
                    lines.append("Item \(oldItem + 1) of \(count) ended.")
                }
                if sameItem, oldShown == shown {
                    if new.ended, old?.ended != true, let count = store.story(at: story)?.items.count {
                        let last = item == count - 1 && story == store.count - 1 && !store.hasMore
                        lines.append("Item \(item + 1) of \(count) ended. " + (last ? "That was the last story: next closes it." : "next goes on."))
                    } else if old?.paused != new.paused {
                        lines.append(new.paused ? "Paused." : "Playing.")
                    }
                    break
                }
            } else if case .box? = old?.place {
                lines.append("Box closed.")
                break
            } else if let old, old.place == .row(story: story) || old.place == .opening(story: story) || old.place == .viewerWaiting(story: story) {
                // Its story was just said, on the row or while it loaded.
                sameStory = true
            }
            if !sameStory { lines.append(storyLine(story, state: state, counting: false)) }
            if shown { lines.append(itemLine(story: story, item: item, state: state)) }
        case .section(let section, let cell):
            if old?.place != new.place { lines.append(sectionLine(section: section, cell: cell, state: state)) }
        case .search(let text, let matches):
            if case .search? = old?.place {} else { lines.append("Search: type a name, then Enter. Esc cancels.") }
            if old?.place != new.place, !text.isEmpty {
                lines.append("\(clean(text)): " + (matches == 0 ? "no match" : matches == 1 ? "1 match" : "\(matches) matches") + ".")
            }
        case .box(let modal):
            if old?.place != new.place, let content = ModalLayout.content(state) {
                lines.append(clean(content.title) + (modal == .help ? ", \(content.rows.count) lines:" : ":"))
                for row in content.rows where !(row.keys + row.text).trimmingCharacters(in: .whitespaces).isEmpty {
                    lines.append(row.keys.isEmpty ? clean(row.text) : "\(clean(row.keys)): \(clean(row.text))")
                }
                lines.append("Esc closes it.")
            }
        }
        // Pages that add stories: one line, so a later "Story 12 of 20" is not news.
        // Said when the number grows (not when paging stalls and goes on, which changes only
        // "so far"), unless a line above has just said the count.
        if let old, old.count != nil, let now = new.count, new.storyCount > old.storyCount,
           !lines.contains(where: { $0.hasSuffix(": \(now).") }) {
            lines.append("Now \(now).")
        }
        if let notice = new.notice, notice != old?.notice { lines.append(clean(notice)) }
        if let problem = new.problem, problem != old?.problem { lines.append(clean(problem)) }
        return lines
    }

    /// "Story 3 of 12, Ayla Demir, 3 items, 2 new." (in the viewer, without what is new:
    /// the item on screen is seen as soon as it shows).
    public static func storyLine(_ index: Int, state: AppState, counting: Bool = true) -> String {
        let store = state.feed.store
        guard let summary = store.summaries[safe: index] else { return "No story here." }
        let items = store.story(at: index)?.items.map(\.id) ?? summary.itemIDs
        var line = "Story \(index + 1) of \(countText(state, stories: false)), \(clean(summary.author.name)), "
            + "\(items.count) \(items.count == 1 ? "item" : "items")"
        if counting {
            let unseen = state.seen.unseenCount(story: summary.id, items: items)
            line += ", " + (unseen == 0 ? "all seen" : unseen == items.count ? "all new" : "\(unseen) new")
        }
        return line + "."
    }

    /// Where things are, said again (`where`, an empty line).
    public static func whereabouts(_ state: AppState) -> [String] {
        let screen = SpokenScreen(state)
        switch screen.place {
        case .viewer(let story, let item, let shown):
            return [storyLine(story, state: state, counting: false)]
                + (shown ? [itemLine(story: story, item: item, state: state)] : ["Item \(item + 1) is loading."])
                + (screen.ended ? ["It has ended: next goes on."] : screen.paused ? ["Paused."] : [])
        case .loading, .row, .box:
            var before = screen
            before.place = .loading
            before.notice = nil
            before.problem = nil
            return Array(lines(from: before, to: screen, state: state).drop { $0.hasPrefix(clean(state.title) + ":") })
        default:
            return lines(from: nil, to: screen, state: state)
        }
    }

    /// "11 stories", or "10 stories so far" while more pages may come (`StoryStore.countText`,
    /// as the home's corner says it); without the noun, for "Story 3 of 11".
    static func countText(_ state: AppState, stories: Bool = true) -> String {
        let store = state.feed.store
        if stories { return store.countText(spoken: true) }
        if let total = store.total, store.hasMore, total > store.count { return "\(total)" }
        return "\(store.count)" + (store.hasMore ? " so far" : "")
    }

    /// "Item 1 of 3: photo, An astronaut…. ‘Training day at the space centre.’ 5 seconds."
    public static func itemLine(story: Int, item index: Int, state: AppState) -> String {
        guard let story = state.feed.store.story(at: story), let item = story.items[safe: index] else { return "No item here." }
        var parts = ["Item \(index + 1) of \(story.items.count):"]
        let kind: String
        switch item.content {
        case .image: kind = state.played(item) != nil ? "animation" : "photo"
        case .video: kind = "video"
        case .audio: kind = "voice note"
        case .text(let text, _): kind = "text, ‘" + clean(text) + "’"
        }
        var described = kind
        if let alt = item.alt { described += ", " + clean(alt) }
        if let failure = SpokenScreen.failure(state) { described += ", which did not load: " + clean(failure) }
        parts.append(described + (endsSentence(described) ? "" : "."))
        if let caption = item.caption { parts.append("‘" + clean(caption) + "’") }
        if let link = item.link { parts.append("Link: \(clean(link.title)) (link opens it).") }
        parts.append(seconds(state.duration(of: item)) + ".")
        return parts.joined(separator: " ")
    }

    /// Whether text already ends a sentence (a full stop, question or exclamation mark, in
    /// any script, before a closing quote or not).
    static func endsSentence(_ text: String) -> Bool {
        var last = text.last
        if let mark = last, "’”\"'»".contains(mark) { last = text.dropLast().last }
        return last.map { ".!?。！？…؟".contains($0) } ?? false
    }

    /// "Featured, Rocket club, 2 of 4."
    static func sectionLine(section: Int, cell: Int, state: AppState) -> String {
        let level = state.home.level
        guard let placed = level.sections[safe: section], let focused = placed.cells[safe: cell] else { return "Nothing here." }
        var parts: [String] = []
        if let title = placed.title?.plain, !title.isEmpty { parts.append(clean(title)) }
        parts.append(clean(focused.title.plain))
        if let subtitle = focused.subtitle?.plain, !subtitle.isEmpty { parts.append(clean(subtitle)) }
        if let badge = focused.badge { parts.append(clean(badge.text)) }
        parts.append("\(cell + 1) of \(placed.cells.count)")
        return parts.joined(separator: ", ") + "."
    }

    /// "5 seconds", "12.5 seconds", "1 second".
    static func seconds(_ value: Double) -> String {
        let tenths = (max(0, min(value, 86_400)) * 10).rounded()
        let text = tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : String(format: "%.1f", tenths / 10)
        return text + (text == "1" ? " second" : " seconds")
    }

    /// One line, no control characters, not endless: what reaches a speech synthesiser.
    static func clean(_ text: String) -> String {
        SafeText.line(text.replacingOccurrences(of: "\n", with: " "), maxColumns: 2_400)
    }
}
