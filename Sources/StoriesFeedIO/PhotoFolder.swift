import StoriesCore
import Foundation

/// Any folder of photos and videos as a feed, when it has no `feed.json`: each sub-folder
/// is a story (its name the author), its photos and videos the items in capture order
/// (EXIF `DateTimeOriginal` for a JPEG, else the file's modification time); photos and
/// videos loose at the top are one story per day. Captions come from EXIF
/// (`ImageDescription`, `UserComment`) or a sidecar text file (`IMG_1.txt` or
/// `IMG_1.jpg.txt`). Hidden files, other files, links and anything that is not a regular
/// file or folder are left out; nothing is ever written into the folder.
///
/// `init` only checks the folder; the first page lists it (names and `lstat`, no file
/// contents except the headers of the loose files, whose day decides their story); a page
/// lists its stories' folders; a story's file headers are read when it is loaded. With a `PhotoFolderCache`, what the headers said is
/// kept (so a second start reads no file), and each file's BlurHash is worked
/// out in the background the first time its story is loaded.
public struct PhotoFolder: FeedSource {
    public let directory: URL
    /// The folder, held open: every file and folder in it is reached from its descriptor.
    public let named: NamedFolder
    /// The folder as it is open now (opened again only when the one held was removed or
    /// replaced under its name).
    public var root: OpenFolder { named.current() }
    public let title: String
    let timeZone: TimeZone
    let cache: PhotoFolderCache?
    let maxEntries: Int
    let now: Date
    /// The listing of the top folder, made once, by the first call that needs it (off the
    /// main queue: `FeedClient` runs every call on its queues), so the screen comes up
    /// before a large folder has been read.
    private let once = ScanOnce()

    /// What the top folder's listing gave.
    struct Scan: Sendable {
        var stories: [Entry]
        /// Where each story is in `stories`, by id.
        var place: [StoryID: Int]
        /// What the loose files' headers said when the listing read them for their day.
        var looseMetadata: [String: PhotoMetadata]
        var warnings: [FeedWarning]
    }

    /// The scan, made once it works. `@unchecked Sendable`: `scan` is touched only under
    /// `lock` (held while the scan runs, so a second caller waits for the first one's result);
    /// a failure is not kept, so the next call (a retry) lists the folder again.
    final class ScanOnce: @unchecked Sendable {
        private let lock = NSLock()
        private var scan: Scan?

        func get(_ make: () throws(FeedError) -> Scan) throws(FeedError) -> Scan {
            let result = lock.withLock { () -> Result<Scan, FeedError> in
                if let scan { return .success(scan) }
                do throws(FeedError) {
                    let made = try make()
                    scan = made
                    return .success(made)
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }
    }

    /// A folder's calls block on the disk (the first lists the folder and reads the loose
    /// photos' headers): each runs on a queue of its own, as a network source's do, so they
    /// never hold the few threads of the shared pool.
    public var waitsOnNetwork: Bool { true }

    /// Lists the folder now (it is otherwise listed by the first page), saying why it cannot.
    public func prepare() throws(FeedError) { _ = try scan() }

    /// The stories, listing the folder the first time.
    func scan() throws(FeedError) -> Scan {
        try once.get { () throws(FeedError) -> Scan in
            try Self.scan(root, directory, timeZone: timeZone, cache: cache, now: now, maxEntries: maxEntries)
        }
    }

    /// One story: a sub-folder, or the loose files of one day.
    struct Entry: Sendable {
        var id: StoryID
        var name: String
        /// The folder, relative to `directory` ("" for the loose files at the top).
        var folder: String
        /// For a day's story: its files, as `init` listed them.
        var files: Listing?
        var latest: Date
    }

    /// File name endings taken as photos, as videos and as voice notes (the bytes decide
    /// what they are).
    public static let photoExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "gif"]
    public static let videoExtensions: Set<String> = ["mp4", "m4v", "mov", "webm", "mkv"]
    public static let soundExtensions: Set<String> = ["m4a", "mp3", "ogg", "oga", "opus", "wav", "flac"]
    /// The most entries read from one folder; past it the rest are left out with a line.
    public static let maxEntries = 20_000
    /// The most items one story has: a story is watched item by item (and its document must
    /// stay within the 4 MB a feed document may be, written by `init` or served).
    public static let maxItemsPerStory = FeedDecoder.maxItemsPerStory
    /// How many names a listing reads before it stops reading the folder (every name is read
    /// up to here, so that the last by name are found whatever order the folder lists them in).
    static let maxCounted = 10_000_000
    /// The longest sidecar caption read.
    static let maxCaptionBytes = 2000

    /// `now` decides which days are "this year" (named without it); `maxEntries` bounds
    /// each folder's listing.
    public init(directory: URL, timeZone: TimeZone = .current, cache: PhotoFolderCache? = nil, now: Date = Date(),
                maxEntries: Int = PhotoFolder.maxEntries) throws(FeedError) {
        // The folder named may itself be a link (~/Pictures often is); what is inside is not followed.
        let open: OpenFolder
        do { open = try OpenFolder.open(directory.standardizedFileURL.path) } catch {
            throw FeedError(file: SafeText.line(directory.path), reason: Self.folderProblem(error))
        }
        self.init(root: NamedFolder(open), directory: directory, timeZone: timeZone, cache: cache, now: now, maxEntries: maxEntries)
    }

    /// Over a folder already open (a server reads the same descriptor for its files).
    public init(root: NamedFolder, directory: URL, timeZone: TimeZone = .current, cache: PhotoFolderCache? = nil, now: Date = Date(),
                maxEntries: Int = PhotoFolder.maxEntries) {
        named = root
        self.directory = directory.standardizedFileURL
        self.timeZone = timeZone
        self.cache = cache
        self.maxEntries = max(1, maxEntries)
        let name = SafeText.line(self.directory.lastPathComponent)
        title = name.isEmpty || name == "/" ? "Photos" : name
        self.now = now
    }

    /// Why a folder named as a feed cannot be one, in words.
    public static func folderProblem(_ error: SafeFile.Failure) -> String {
        switch error {
        case .missing: "no such file or folder"
        case .notFolder("a file"):
            "is a file; give a folder of photos and videos (to show one photo: stories print FILE, one video: stories play FILE)"
        case .notFolder(let kind): "is \(kind), not a folder of photos and videos"
        case .cannotOpen("permission denied"): "cannot be read (permission denied)"
        case .cannotOpen(let why): why
        default: error.description
        }
    }

    static func scan(_ root: OpenFolder, _ directory: URL, timeZone: TimeZone, cache: PhotoFolderCache?, now: Date,
                     maxEntries: Int) throws(FeedError) -> Scan {
        var warnings: [FeedWarning] = []
        guard let top = Self.list(root, relative: "", shownAs: directory.path, maxEntries: maxEntries, warnings: &warnings) else {
            // The line says the path already: only its reason goes after the path here.
            let line = warnings.first?.message ?? ""
            let reason = line.range(of: ": cannot be read").map { String(line[line.index($0.lowerBound, offsetBy: 2)...]) } ?? "cannot be read"
            throw FeedError(file: SafeText.line(directory.path), reason: reason)
        }
        var entries: [Entry] = []
        var usedIDs = Set<StoryID>()
        // Loose files: one story per day they were taken (their ids first: "day-…" stays
        // theirs whatever folders there are).
        var days: [String: (date: Date, files: [FileEntry])] = [:]
        var looseMetadata: [String: PhotoMetadata] = [:]
        for file in top.files {
            let meta = Self.metadata(of: file, folder: "", in: root, cache: cache, timeZone: timeZone)
            looseMetadata[file.name] = meta
            let taken = meta.captured ?? file.modified
            let day = meta.day ?? Self.dayKey(taken, timeZone: timeZone)
            days[day, default: (taken, [])].files.append(file)
            if let date = days[day]?.date, taken > date { days[day]?.date = taken }
        }
        cache?.prune(folder: "", keeping: Set(top.files.map(\.name)))
        for (day, value) in days.sorted(by: { $0.key < $1.key }) {
            let id = Self.storyID(for: "day-" + day, used: &usedIDs)
            let files = Listing(open: top.open, files: value.files, sidecars: top.sidecars)
            entries.append(Entry(id: id, name: Self.dayName(day, timeZone: timeZone, now: now), folder: "", files: files, latest: value.date))
        }
        // A folder's place in the row: when its photos and videos were taken, newest first,
        // not when the folder last changed (copying a 2024 trip today must not put it first).
        var headerBudget = Self.maxOrderingReads
        for folder in top.folders {
            let id = Self.storyID(for: folder.name, used: &usedIDs)
            var ignored: [FeedWarning] = [] // said by the page that lists it for its story
            // The last 64 by name are enough to find the newest (cameras number in the order
            // taken; names are read, only those 64 are looked at), so start-up stays bounded.
            let taken = Self.list(root, relative: folder.name, maxEntries: min(maxEntries, Self.orderingEntries), warnings: &ignored).flatMap { listing in
                Self.newestCapture(of: listing, folder: folder.name, cache: cache, timeZone: timeZone, budget: &headerBudget)
            }
            entries.append(Entry(id: id, name: SafeText.line(folder.name), folder: folder.name, files: nil, latest: taken ?? folder.modified))
        }
        // Newest first, as a ring row is; the name breaks ties so the order is stable.
        let stories = entries.sorted { ($0.latest, $1.name) > ($1.latest, $0.name) }
        let place = Dictionary(stories.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        if entries.isEmpty {
            warnings.append(FeedWarning("\(SafeText.line(directory.path)): no photos or videos here, nor in its folders"))
        }
        return Scan(stories: stories, place: place, looseMetadata: looseMetadata, warnings: warnings)
    }

    /// The most headers read to order the folders (about 45 µs each, cold): past it, a
    /// folder is placed by what the cache knows and its files' times.
    static let maxOrderingReads = 2_000
    /// Entries of a folder looked at to place it (the last by name).
    static let orderingEntries = 64

    /// When the newest of a folder's photos and videos was taken: every capture time the
    /// cache knows, and the headers of the files likeliest to be newest (the last two by
    /// name, as cameras number them, and the two last changed) read when it does not; a
    /// file with no capture time counts by its modification time. nil for an empty folder.
    static func newestCapture(of listing: Listing, folder: String, cache: PhotoFolderCache?, timeZone: TimeZone,
                              budget: inout Int) -> Date? {
        guard !listing.files.isEmpty, let open = listing.open else { return nil }
        var newest: Date?
        func count(_ date: Date) { if newest.map({ date > $0 }) ?? true { newest = date } }
        var unknown: [FileEntry] = []
        for file in listing.files {
            if let known = cache?.entry(folder: folder, name: file.name, size: file.size, modified: file.modifiedNanoseconds), known.read == true {
                count(known.captured.map { Date(timeIntervalSince1970: $0) } ?? file.modified)
            } else {
                unknown.append(file)
            }
        }
        guard !unknown.isEmpty else { return newest }
        let byName = unknown.sorted { $0.name < $1.name }.suffix(2)
        let byTime = unknown.sorted { $0.modified < $1.modified }.suffix(2)
        var read = Set<String>()
        for file in Array(byName) + Array(byTime) where !read.contains(file.name) {
            read.insert(file.name)
            guard budget > 0 else {
                count(file.modified)
                continue
            }
            budget -= 1
            count(Self.metadata(of: file, folder: folder, in: open, cache: cache, timeZone: timeZone).captured ?? file.modified)
        }
        return newest
    }

    /// The most folders one page looks into while looking for `limit` with something in
    /// them (empty folders are passed over; the next page goes on from there).
    static let maxScannedPerPage = 50

    public func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage {
        let scan = try self.scan()
        let stories = scan.stories
        let offset = try OffsetCursor.offset(cursor, count: stories.count, file: directory.path)
        let wanted = max(1, limit)
        var summaries: [StorySummary] = []
        var warnings = offset == 0 ? scan.warnings : []
        var next = offset, skipped = 0
        while next < stories.count, summaries.count < wanted, next - offset < max(wanted, Self.maxScannedPerPage) {
            let entry = stories[next]
            next += 1
            // A folder that cannot be read has said why; an empty one says so here.
            guard let (listing, _) = self.listing(of: entry, warnings: &warnings) else { skipped += 1; continue }
            guard !listing.files.isEmpty else {
                warnings.append(FeedWarning(Self.nothingIn(entry, listing)))
                skipped += 1
                continue
            }
            summaries.append(StorySummary(id: entry.id, author: Author(name: entry.name, avatar: avatar(of: entry, listing)),
                                          itemIDs: listing.files.map { $0.name }, latest: entry.latest))
        }
        warnings += cache?.takeWarnings() ?? []
        return FeedPage(stories: summaries, nextCursor: next < stories.count ? String(next) : nil, warnings: warnings, skipped: skipped)
    }

    public func story(id: StoryID) throws(FeedError) -> StoryLoad {
        let scan = try self.scan()
        guard let index = scan.place[id], let entry = scan.stories[safe: index] else {
            throw FeedError(file: SafeText.line(id), reason: "no such story in \(SafeText.line(directory.lastPathComponent))")
        }
        var warnings: [FeedWarning] = []
        var items: [(Date, StoryItem)] = []
        guard let (listing, folder) = self.listing(of: entry, warnings: &warnings) else {
            throw FeedError(file: SafeText.line(entry.name), reason: warnings.last.map { Self.reason(of: $0.message) } ?? "cannot be read")
        }
        var missingPreviews: [(name: String, size: Int, modified: Int64)] = []
        for file in listing.files {
            let location = entry.folder.isEmpty ? file.name : entry.folder + "/" + file.name
            let meta = (entry.folder.isEmpty ? scan.looseMetadata[file.name] : nil)
                ?? Self.metadata(of: file, folder: entry.folder, in: folder, cache: cache, timeZone: timeZone)
            let taken = meta.captured ?? file.modified
            let caption = (listing.sidecars.isEmpty ? nil : Self.sidecarCaption(for: file.name, in: folder, sidecars: listing.sidecars))
                ?? meta.caption
            let known = cache?.entry(folder: entry.folder, name: file.name, size: file.size, modified: file.modifiedNanoseconds)
            if known?.blurhash == nil, known?.noPreview != true {
                missingPreviews.append((file.name, file.size, file.modifiedNanoseconds))
            }
            let media = Media(location: location, bytes: file.size, blurhash: known?.blurhash)
            let content: StoryItem.Content = file.isSound ? .audio(media) : file.isVideo || meta.animated == true ? .video(media) : .image(media)
            items.append((taken, StoryItem(id: file.name, content: content, caption: caption, createdAt: taken)))
        }
        guard !items.isEmpty else { throw FeedError(file: SafeText.line(entry.name), reason: Self.reason(of: Self.nothingIn(entry, listing))) }
        cache?.requestPreviews(folder: entry.folder, in: folder, files: missingPreviews)
        // A day's story is some of the loose files: theirs are pruned by `init`, which lists them all.
        if !entry.folder.isEmpty { cache?.prune(folder: entry.folder, keeping: Set(listing.files.map(\.name))) }
        warnings += cache?.takeWarnings() ?? []
        let ordered = items.sorted { ($0.0, $0.1.id) < ($1.0, $1.1.id) }.map(\.1)
        let author = Author(name: entry.name, avatar: avatar(of: entry, listing))
        return StoryLoad(story: Story(id: id, author: author, items: ordered), warnings: warnings)
    }

    /// "Trip: no photos or videos in it", saying so when they are a folder further down.
    static func nothingIn(_ entry: Entry, _ listing: Listing) -> String {
        let name = SafeText.line(entry.name)
        let deeper = listing.folders.count
        guard deeper > 0 else { return "\(name): no photos or videos in it" }
        return "\(name): no photos or videos in it (only its \(deeper) folder\(deeper == 1 ? "" : "s"); a story is one folder down, no deeper)"
    }

    /// What follows "place: " in a line.
    static func reason(of line: String) -> String {
        line.range(of: ": ").map { String(line[$0.upperBound...]) } ?? line
    }

    /// A sub-folder's picture: its `avatar.*` photo, else its first photo by name.
    func avatar(of entry: Entry, _ listing: Listing) -> String? {
        guard !entry.folder.isEmpty else { return nil }
        guard let name = listing.avatar ?? listing.files.first(where: { !$0.isVideo && !$0.isSound })?.name else { return nil }
        return entry.folder + "/" + name
    }

    public func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? {
        if let problem = FeedPath.problem(with: location) { throw FeedError(file: SafeText.line(location), reason: problem) }
        do {
            return try root.read(location, maxBytes: maxBytes).0
        } catch {
            throw FeedError(file: SafeText.line(location), reason: SafeFile.describe(error, maxBytes: maxBytes), isTransient: root.mayPass(error, reading: location))
        }
    }

    /// Whether `location` is one a photo folder's items or pictures can have: a photo, video
    /// or voice note by its ending, at the top or one folder down, no part hidden (what a server of
    /// a folder sends; everything else in the folder stays there).
    public static func isMediaPath(_ location: String) -> Bool {
        guard FeedPath.problem(with: location) == nil, SafeText.line(location) == location else { return false }
        let parts = location.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }) else { return false }
        let ending = (location as NSString).pathExtension.lowercased()
        return photoExtensions.contains(ending) || videoExtensions.contains(ending) || soundExtensions.contains(ending)
    }

}

