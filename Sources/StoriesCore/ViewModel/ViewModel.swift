import Foundation

/// What a screen reads. Screens never look at stories, seen state or the clock to decide
/// what to write: a factory has already turned those into text cut to its width, on a
/// background queue (LINE's view-model layer). `key` names the model in a relation map.
public protocol ViewModel: Equatable, Sendable {
    associatedtype Key: Hashable & Sendable
    var key: Key { get }
}

/// A bubble of the ring row, and the details line under the row when it is selected.
public struct RingBubbleViewModel: ViewModel {
    public var key: StoryID
    /// The author's name cut to the bubble's width.
    public var name: String
    public var initials: String
    /// The full name, for the details line (cut there to the screen's width).
    public var fullName: String
    public var handle: String?
    public var isSeen: Bool
    /// "3 items, 2 new · 5m".
    public var summary: String
    /// The caption or text of the item the viewer would open at, on one line; nil until the
    /// story's items are loaded.
    public var preview: String?

    public init(key: StoryID, name: String, initials: String, fullName: String, handle: String?, isSeen: Bool,
                summary: String, preview: String?) {
        self.key = key
        self.name = name
        self.initials = initials
        self.fullName = fullName
        self.handle = handle
        self.isSeen = isSeen
        self.summary = summary
        self.preview = preview
    }
}

/// One item of a loaded story as the viewer shows it: header text, and the caption wrapped
/// to the width it was built for.
public struct ViewerItemViewModel: ViewModel {
    public struct Key: Hashable, Sendable {
        public var story: StoryID
        public var item: ItemID
    }

    public var key: Key
    public var initials: String
    public var authorName: String
    /// "handle" (shown with an @), when the author has one.
    public var handle: String?
    /// How long ago the item was posted: "5m".
    public var age: String?
    /// "  @handle · 5m".
    public var detail: String {
        (handle.map { "  @" + $0 } ?? "") + (age.map { " · " + $0 } ?? "")
    }
    /// "2/5".
    public var position: String
    /// The caption, wrapped to `width - 4` columns.
    public var captionLines: [String]
    public var linkTitle: String?
    /// The screen width the caption was wrapped for.
    public var width: Int
    /// A text card's text, wrapped to `width - 8` columns (off the main queue, once, not
    /// per frame); empty for a photo or video.
    public var textLines: [String] = []
}

/// One section of the home as `HomeScreen` draws it: texts cut to the width they are drawn
/// at, seen state looked up. `key` is the section's index on its screen.
public struct HomeSectionViewModel: ViewModel {
    public var key: Int
    public var id: String
    public var style: SectionStyle
    public var title: FormattedText?
    public var cells: [HomeCellViewModel]

    public init(key: Int, id: String, style: SectionStyle, title: FormattedText?, cells: [HomeCellViewModel]) {
        self.key = key
        self.id = id
        self.style = style
        self.title = title
        self.cells = cells
    }
}

/// A cell of a home section, ready to draw.
public struct HomeCellViewModel: Equatable, Sendable {
    public var id: String
    public var title: FormattedText
    public var subtitle: FormattedText?
    public var badge: Badge?
    public var progress: Double?
    /// "66%".
    public var progressLabel: String?
    /// The title cut to a bubble's name width, and its initials (ring-style sections).
    public var name: String
    public var initials: String
    /// The story it opens is seen to the end (its ring is grey).
    public var isSeen: Bool
    public var picture: Media?
    /// What Enter does, in a few words: "open Ayla's story", "3 sections", "↗ example.com".
    public var actionHint: String?

    public init(id: String, title: FormattedText, subtitle: FormattedText?, badge: Badge?, progress: Double?,
                progressLabel: String?, name: String, initials: String, isSeen: Bool, picture: Media?, actionHint: String?) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.badge = badge
        self.progress = progress
        self.progressLabel = progressLabel
        self.name = name
        self.initials = initials
        self.isSeen = isSeen
        self.picture = picture
        self.actionHint = actionHint
    }
}

/// The section view models of one screen of sections, for one generation and width.
public struct HomeViewModels: Equatable, Sendable {
    public var generation: Int
    public var width: Int
    public var sections: ViewModelList<HomeSectionViewModel>

    public init(generation: Int, width: Int, sections: ViewModelList<HomeSectionViewModel>) {
        self.generation = generation
        self.width = width
        self.sections = sections
    }
}

/// View models in screen order with a relation map from key to position, kept right on
/// every insert, update and delete: a change to one story touches one model, and finding
/// it costs a dictionary lookup, not a search.
public struct ViewModelList<Model: ViewModel>: Equatable, Sendable {
    public private(set) var models: [Model] = []
    /// Key → index in `models`.
    public private(set) var positions: [Model.Key: Int] = [:]

    public init(_ models: [Model] = []) {
        for model in models { insert(model, at: self.models.count) }
    }

    public var count: Int { models.count }
    public subscript(index: Int) -> Model { models[index] }

    public func model(for key: Model.Key) -> Model? {
        positions[key].map { models[$0] }
    }

    /// Inserts (or, for a key already here, replaces in place).
    public mutating func insert(_ model: Model, at index: Int) {
        if let existing = positions[model.key] {
            models[existing] = model
            return
        }
        let index = min(max(0, index), models.count)
        models.insert(model, at: index)
        // Everything from the insertion point moved one place.
        for position in index..<models.count { positions[models[position].key] = position }
    }

    /// Replaces the model with the same key; false when there is none.
    @discardableResult
    public mutating func update(_ model: Model) -> Bool {
        guard let position = positions[model.key] else { return false }
        models[position] = model
        return true
    }

    @discardableResult
    public mutating func remove(_ key: Model.Key) -> Model? {
        guard let position = positions.removeValue(forKey: key) else { return nil }
        let model = models.remove(at: position)
        for index in position..<models.count { positions[models[index].key] = index }
        return model
    }
}
