import Foundation

public typealias StoryID = String
public typealias ItemID = String

/// Who posted a story. Text fields are already cleaned by `SafeText`.
public struct Author: Equatable, Sendable {
    public var name: String
    public var handle: String?
    public var avatar: String?

    public init(name: String, handle: String? = nil, avatar: String? = nil) {
        self.name = name
        self.handle = handle
        self.avatar = avatar
    }
}

/// One person's story: what a bubble in the ring row stands for.
public struct Story: Equatable, Sendable, Identifiable {
    public var id: StoryID
    public var author: Author
    public var items: [StoryItem]

    public init(id: StoryID, author: Author, items: [StoryItem]) {
        self.id = id
        self.author = author
        self.items = items
    }
}

/// A picture or video file an item shows.
public struct Media: Equatable, Sendable {
    /// A path relative to the feed folder, or an absolute URL (for HTTP feeds, later).
    public var location: String
    public var width: Int?
    public var height: Int?
    public var bytes: Int?
    public var blurhash: String?

    public init(location: String, width: Int? = nil, height: Int? = nil, bytes: Int? = nil, blurhash: String? = nil) {
        self.location = location
        self.width = width
        self.height = height
        self.bytes = bytes
        self.blurhash = blurhash
    }
}

/// An RGB colour from a feed (`"#RRGGBB"`).
public struct RGB: Equatable, Hashable, Sendable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Parses `#RRGGBB` (the `#` is optional); nil for anything else.
    public init?(hex: String) {
        var digits = Substring(hex)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else { return nil }
        self.init(UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
    }
}

/// A link an item can carry.
public struct Link: Equatable, Sendable {
    public var title: String
    public var url: String

    public init(title: String, url: String) {
        self.title = title
        self.url = url
    }
}

/// One page of a story: a photo, a video, a voice note or a text card.
public struct StoryItem: Equatable, Sendable, Identifiable {
    public enum Content: Equatable, Sendable {
        case image(Media)
        case video(Media)
        /// Sound alone (a voice note): heard, and shown as its waveform, drawn from its
        /// sound by the picture pipeline like a video's first frame.
        case audio(Media)
        case text(String, background: RGB)

        /// The photo, video or sound file, if the item has one.
        public var media: Media? {
            switch self {
            case .image(let media), .video(let media), .audio(let media): media
            case .text: nil
            }
        }

        /// The voice note's file, if the item is one.
        public var voiceNote: Media? {
            if case .audio(let media) = self { media } else { nil }
        }
    }

    public var id: ItemID
    public var content: Content
    /// Seconds the item stays before the viewer advances.
    public var duration: Double
    /// The shortest an item stays: a feed's shorter durations are raised to it.
    public static let minimumDuration = 0.5
    public var caption: String?
    public var createdAt: Date?
    public var link: Link?
    /// What a photo or video shows, in words, for those who do not see it (the feed's
    /// `alt`): the screen-reader mode says it instead of the picture.
    public var alt: String?

    public init(id: ItemID, content: Content, duration: Double = StoryItem.defaultDuration,
                caption: String? = nil, createdAt: Date? = nil, link: Link? = nil, alt: String? = nil) {
        self.id = id
        self.content = content
        self.duration = duration
        self.caption = caption
        self.createdAt = createdAt
        self.link = link
        self.alt = alt
    }

    public static let defaultDuration: Double = 5
}
