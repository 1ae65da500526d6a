import Foundation

/// A feed made up from a seed, for scale: `count` stories with generated names (some CJK,
/// Arabic and emoji among them), 2–6 items each, text cards and photos. Given `photos`
/// (the app passes the demo feed's photos and videos), every media item shows one of them —
/// its own location, the pool's bytes, a video item where the pool's entry is a video — so
/// fetching, decoding and playing run at scale; without, photos are BlurHash only (no
/// bytes: the viewer shows the blur). The same count, seed and pool give the same
/// feed every time.
public struct SyntheticFeed: FeedSource {
    public let count: Int
    public let seed: UInt64
    public let photos: [Photo]

    /// A photo the feed may hand out: its bytes and what an item says of them.
    public struct Photo: Sendable {
        public var data: Data
        public var width: Int?
        public var height: Int?
        public var blurhash: String?
        /// A video: items that hand it out are video items.
        public var isVideo: Bool

        public init(data: Data, width: Int?, height: Int?, blurhash: String?, isVideo: Bool = false) {
            self.data = data
            self.width = width
            self.height = height
            self.blurhash = blurhash
            self.isVideo = isVideo
        }
    }

    public init(count: Int, seed: UInt64 = 1, photos: [Photo] = []) {
        self.count = max(0, count)
        self.seed = seed
        self.photos = photos
    }

    public var title: String { "Synthetic feed" }

    /// Media locations this feed makes up; they name no file.
    public static let scheme = "synthetic:"

    public func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage {
        let offset = try OffsetCursor.offset(cursor, count: count, file: title)
        let end = min(count, offset + max(1, limit))
        let summaries = (offset..<end).map { StorySummary(story($0)) }
        // About what the same page would weigh as JSON.
        return FeedPage(stories: summaries, nextCursor: OffsetCursor.next(after: offset, limit: max(1, limit), count: count),
                        bytes: summaries.count * 180, total: count)
    }

    public func story(id: StoryID) throws(FeedError) -> StoryLoad {
        guard id.hasPrefix("s"), let index = Int(id.dropFirst()), (0..<count).contains(index), Self.id(index) == id else {
            throw FeedError(file: title, field: "stories/\(id)", reason: "no such story")
        }
        let story = story(index)
        return StoryLoad(story: story, bytes: 120 + story.items.count * 260)
    }

    /// A photo's bytes: `synthetic:<pool index>/<item id>` names a photo of the pool; a
    /// location without one (no pool) has no bytes.
    public func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? {
        guard location.hasPrefix(Self.scheme) else {
            throw FeedError(file: location, reason: "not a media location of the synthetic feed")
        }
        let rest = location.dropFirst(Self.scheme.count)
        guard let slash = rest.firstIndex(of: "/"), let index = Int(rest[..<slash]) else { return nil }
        guard photos.indices.contains(index) else { throw FeedError(file: location, reason: "no such photo") }
        let data = photos[index].data
        guard data.count <= maxBytes else {
            throw FeedError(file: location, reason: "\(data.count) bytes is more than the \(maxBytes >> 20) MB allowed here")
        }
        return data
    }

    static func id(_ index: Int) -> StoryID { String(format: "s%05d", index) }

    private static let first = ["Ada", "Bea", "Cai", "Dov", "Eli", "Fen", "Gus", "Hal", "Ivy", "Jo", "Kai", "Lea",
                                "Mo", "Nia", "Oli", "Pia", "Quin", "Rae", "Sol", "Teo", "Uma", "Vik", "Wren", "Yara", "Zed"]
    private static let last = ["Berg", "Costa", "Diaz", "Eklund", "Fox", "Grant", "Haddad", "Ito", "Jensen", "Kaur",
                               "Lind", "Moreau", "Nakamura", "Okafor", "Park", "Quist", "Rossi", "Silva", "Tanaka", "Umar"]
    private static let special = ["山本 さくら", "李 娜", "نور الهدى", "Zoë 🌿", "🎸 Band Practice", "Привет Мир"]
    private static let words = ["morning", "coffee", "train", "rain", "sunset", "notes", "garden", "city", "bread",
                                "river", "market", "music", "friends", "late", "quiet", "bright", "walk", "snow"]
    private static let backgrounds = ["#1d3557", "#6a4c93", "#2a9d8f", "#e76f51", "#264653", "#9d0208", "#3a0ca3", "#588157"]
    // BlurHashes of five demo photos (Assets/demo, made by `stories assets blurhash`).
    private static let blurhashes = [
        "T03[o6-qr=-q?Inhbx={IU-VM{ad",
        "T0D9#O_3?b?bt7oft7RjWBIUIUIU",
        "T0ECwd00IUofM{xuxu-;t7_3RjRj",
        "T1FFss_3M{4nofxuIURjD%?bRjof",
        "T6HTjOtR?G5QE1r=A1~A9vrC%2I=",
    ]

    /// Story `index`, made from its own random stream: any page can be made on its own.
    func story(_ index: Int) -> Story {
        var random = SplitMix(seed: seed &+ UInt64(index) &* 0xD1B5_4A32_D192_ED03)
        let name: String
        if index % 17 == 5 {
            name = Self.special[random.next(Self.special.count)]
        } else {
            name = Self.first[random.next(Self.first.count)] + " " + Self.last[random.next(Self.last.count)]
        }
        let id = Self.id(index)
        let itemCount = 2 + random.next(5)
        let base = Date(timeIntervalSince1970: 1_795_000_000 + Double(index * 37))
        let items = (0..<itemCount).map { n -> StoryItem in
            let itemID = "\(id)-\(n)"
            let caption = (0..<(2 + random.next(5))).map { _ in Self.words[random.next(Self.words.count)] }.joined(separator: " ")
            let created = base.addingTimeInterval(Double(n * 600))
            if random.next(3) == 0 {
                let background = RGB(hex: Self.backgrounds[random.next(Self.backgrounds.count)]) ?? RGB(0x22, 0x22, 0x22)
                return StoryItem(id: itemID, content: .text(caption.capitalized, background: background),
                                 duration: 3 + Double(random.next(4)), createdAt: created)
            }
            let blurhash = Self.blurhashes[random.next(Self.blurhashes.count)]
            let media: Media
            var isVideo = false
            if photos.isEmpty {
                media = Media(location: Self.scheme + itemID, width: 1080, height: 1920, blurhash: blurhash)
            } else {
                let index = random.next(photos.count)
                let photo = photos[index]
                media = Media(location: Self.scheme + "\(index)/" + itemID, width: photo.width, height: photo.height,
                              blurhash: photo.blurhash ?? blurhash)
                isVideo = photo.isVideo
            }
            return StoryItem(id: itemID, content: isVideo ? .video(media) : .image(media), duration: 5, caption: caption,
                             createdAt: created)
        }
        return Story(id: id, author: Author(name: name, handle: "user\(index)"), items: items)
    }
}

/// A small, fast, seedable random source (SplitMix64), so generated feeds (and the
/// generated input sequences of the tests) are reproducible.
public struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 { nextUInt64() }

    public mutating func nextUInt64() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<bound.
    mutating func next(_ bound: Int) -> Int { Int(nextUInt64() % UInt64(max(1, bound))) }
}
