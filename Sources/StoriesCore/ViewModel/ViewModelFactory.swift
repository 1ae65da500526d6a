import Dispatch
import Foundation

/// What to (re)build: the ring bubbles of some stories, the viewer item models of some loaded
/// stories, with the seen state, time and width to build them for. The reducer makes jobs
/// (cheap: it only picks what changed); `ViewModelBuilder` runs them off the main queue.
public struct ViewModelJob: Equatable, Sendable {
    public struct RingInput: Equatable, Sendable {
        public var summary: StorySummary
        /// The story's items, when loaded (for the preview line).
        public var story: Story?

        public init(summary: StorySummary, story: Story?) {
            self.summary = summary
            self.story = story
        }
    }

    /// The sections of the screen of sections shown, to build for `width`.
    public struct HomeInput: Equatable, Sendable {
        public var generation: Int
        public var sections: [HomeSection]
        /// The items of the stories the cells open, as far as the feed has paged in (for
        /// the seen colour of ring-style cells).
        public var storyItems: [StoryID: [ItemID]]
        /// The names of those stories' authors ("open Ayla's story").
        public var storyAuthors: [StoryID: String]

        public init(generation: Int, sections: [HomeSection], storyItems: [StoryID: [ItemID]] = [:],
                    storyAuthors: [StoryID: String] = [:]) {
            self.generation = generation
            self.sections = sections
            self.storyItems = storyItems
            self.storyAuthors = storyAuthors
        }
    }

    public var ring: [RingInput]
    public var stories: [Story]
    public var home: HomeInput?
    public var seen: SeenState
    public var now: Date
    public var width: Int

    public init(ring: [RingInput], stories: [Story], home: HomeInput? = nil, seen: SeenState, now: Date, width: Int) {
        self.ring = ring
        self.stories = stories
        self.home = home
        self.seen = seen
        self.now = now
        self.width = width
    }

    public var isEmpty: Bool { ring.isEmpty && stories.isEmpty && home == nil }
}

/// Built view models, handed to the main queue in one step (one action).
public struct ViewModelUpdate: Equatable, Sendable {
    public var ring: [RingBubbleViewModel]
    public var items: [StoryID: [ViewerItemViewModel]]
    public var home: HomeViewModels?
    /// The width the item models were built for.
    public var width: Int

    public init(ring: [RingBubbleViewModel], items: [StoryID: [ViewerItemViewModel]], home: HomeViewModels? = nil, width: Int) {
        self.ring = ring
        self.items = items
        self.home = home
        self.width = width
    }
}

/// Turns stories into view models. Pure; `ViewModelBuilder` calls it on a background queue.
public enum ViewModelFactory {
    /// Columns a bubble's name may take.
    public static let bubbleNameWidth = 9

    public static func build(_ job: ViewModelJob) -> ViewModelUpdate {
        let ring = job.ring.map { ringBubble($0.summary, story: $0.story, seen: job.seen, now: job.now) }
        var items: [StoryID: [ViewerItemViewModel]] = [:]
        for story in job.stories { items[story.id] = viewerItems(story, now: job.now, width: job.width) }
        let home = job.home.map { homeSections($0, seen: job.seen, width: job.width) }
        return ViewModelUpdate(ring: ring, items: items, home: home, width: job.width)
    }

    /// The section view models of a screen of sections: every text cut to the width its
    /// style draws it at (`HomeGeometry`).
    public static func homeSections(_ input: ViewModelJob.HomeInput, seen: SeenState, width: Int) -> HomeViewModels {
        let area = max(1, width - 2 * HomeGeometry.leftMargin)
        let models = input.sections.enumerated().map { index, section in
            let textWidth: Int = switch section.style {
            case .ring: bubbleNameWidth
            case .cards: min(HomeGeometry.cardWidth, area) - 4
            case .list, .banner: area
            }
            let cells = section.cells.map { cell -> HomeCellViewModel in
                var isSeen = false
                var hint: String?
                var progress = cell.progress
                var badge = cell.badge
                let counts = badge?.text.contains(Badge.newCount) == true
                if counts { badge = nil }
                switch cell.action {
                case .openStory(let id)?:
                    if let items = input.storyItems[id] {
                        isSeen = seen.isFullySeen(story: id, items: items)
                        // What a home template leaves to the seen state (a local feed's
                        // home.json; a server with viewers sends the numbers).
                        let unseen = seen.unseenCount(story: id, items: items)
                        if cell.progressFromSeen, !items.isEmpty { progress = Double(items.count - unseen) / Double(items.count) }
                        if counts, unseen > 0, let template = cell.badge {
                            badge = Badge(text: template.text.replacingOccurrences(of: Badge.newCount, with: String(unseen)), color: template.color)
                        }
                    }
                    hint = input.storyAuthors[id].map { "open \($0)'s story" } ?? "open the story"
                case .openSections(let title, let sections)?:
                    let count = sections.count == 1 ? "1 section" : "\(sections.count) sections"
                    hint = title.isEmpty ? count : "\(title) · \(count)"
                case .openLink(let link)?:
                    hint = "↗ " + (URLHost.of(link.url) ?? link.url)
                case nil:
                    hint = nil
                }
                return HomeCellViewModel(
                    id: cell.id,
                    title: cell.title.truncated(toWidth: max(1, textWidth)),
                    subtitle: cell.subtitle?.truncated(toWidth: max(1, textWidth)),
                    badge: badge,
                    progress: progress,
                    progressLabel: progress.map { "\(Int(($0 * 100).rounded()))%" },
                    name: cell.title.plain.truncated(toWidth: bubbleNameWidth),
                    initials: initials(of: cell.title.plain),
                    isSeen: isSeen,
                    picture: cell.picture,
                    actionHint: hint?.truncated(toWidth: max(1, area))
                )
            }
            return HomeSectionViewModel(key: index, id: section.id, style: section.style,
                                        title: section.title?.truncated(toWidth: area), cells: cells)
        }
        return HomeViewModels(generation: input.generation, width: width, sections: ViewModelList(models))
    }

    public static func ringBubble(_ summary: StorySummary, story: Story?, seen: SeenState, now: Date) -> RingBubbleViewModel {
        let itemCount = summary.itemIDs.count
        let unseen = seen.unseenCount(story: summary.id, items: summary.itemIDs)
        let items = itemCount == 1 ? "1 item" : "\(itemCount) items"
        var line = unseen == 0 ? "\(items), all seen" : (unseen == itemCount ? "\(items), new" : "\(items), \(unseen) new")
        if let latest = summary.latest { line += " · " + RelativeTime.short(from: latest, to: now) }
        var preview: String?
        if let story, !story.items.isEmpty {
            let next = story.items[seen.firstUnseenIndex(in: story)]
            if let text = next.caption ?? next.textContent {
                // One line, and no longer than any screen could show.
                preview = text.split(whereSeparator: \.isNewline).joined(separator: " ").truncated(toWidth: 400)
            }
        }
        return RingBubbleViewModel(
            key: summary.id,
            name: (datedName(summary.author.name).map { "\($0.day) \($0.month)’\($0.year % 100 < 10 ? "0" : "")\($0.year % 100)" }
                ?? summary.author.name).truncated(toWidth: bubbleNameWidth),
            initials: datedName(summary.author.name).map { "\(initials(of: summary.author.name))’\($0.year % 100 < 10 ? "0" : "")\($0.year % 100)" }
                ?? initials(of: summary.author.name),
            fullName: summary.author.name.truncated(toWidth: 400),
            handle: summary.author.handle?.truncated(toWidth: 200),
            isSeen: seen.isFullySeen(story: summary.id, items: summary.itemIDs),
            summary: line,
            preview: preview
        )
    }

    public static func viewerItems(_ story: Story, now: Date, width: Int) -> [ViewerItemViewModel] {
        let initials = initials(of: story.author.name)
        let name = story.author.name.truncated(toWidth: max(1, width))
        return story.items.enumerated().map { index, item in
            var textLines: [String] = []
            if case .text(let text, _) = item.content { textLines = TextWrap.lines(text, width: max(1, width - 8)) }
            return ViewerItemViewModel(
                key: .init(story: story.id, item: item.id),
                initials: initials,
                authorName: name,
                handle: story.author.handle.map { $0.truncated(toWidth: max(1, width)) },
                age: item.createdAt.map { RelativeTime.short(from: $0, to: now) },
                position: "\(index + 1)/\(story.items.count)",
                captionLines: item.caption.map { TextWrap.lines($0, width: max(1, width - 4)) } ?? [],
                linkTitle: item.link?.title.truncated(toWidth: max(1, width)),
                width: width,
                textLines: textLines
            )
        }
    }

    /// A day story of another year, named "3 Nov 2024" (a folder's loose files): its parts,
    /// so the bubble can keep the year in its few columns ("3 Nov’24", and "3N’24" inside).
    static func datedName(_ name: String) -> (day: Int, month: String, year: Int)? {
        let words = name.split(separator: " ")
        guard words.count == 3, let day = Int(words[0]), (1...31).contains(day), RelativeTime.months.contains(String(words[1])),
              words[2].count == 4, let year = Int(words[2]) else { return nil }
        return (day, String(words[1]), year)
    }

    /// First grapheme of the first two words, upper-cased: "Ayla Demir" → "AD", "山田 花子" → "山花".
    public static func initials(of name: String) -> String {
        let words = name.split(separator: " ").prefix(2)
        // A word that is a short number counts whole: "22 Nov" is 22N, not 2N like "2 Nov".
        let letters = words.compactMap { word -> String? in
            let digits = word.prefix { $0.isASCII && $0.isNumber }
            if digits.count == 2 { return String(digits) }
            return word.first.map { String($0).uppercased() }
        }.joined()
        return letters.truncated(toWidth: 4, ellipsis: false)
    }
}

/// The host of a URL, for saying where a link goes.
enum URLHost {
    static func of(_ url: String) -> String? {
        URLComponents(string: url)?.host.flatMap { $0.isEmpty ? nil : SafeText.line($0) }
    }
}

extension StoryItem {
    /// The words of a text item, nil for media.
    public var textContent: String? {
        if case .text(let text, _) = content { return text }
        return nil
    }
}
