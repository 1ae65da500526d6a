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
/// lists its stories' folders; a story's file headers are read when it is loaded. With a `FolderCache`, what the headers said is
/// kept (so a second start reads no file), and each file's BlurHash is worked
/// out in the background the first time its story is loaded.
public struct FolderFeed: FeedSource {
    public let directory: URL
    /// The folder, held open: every file and folder in it is reached from its descriptor.
    public let named: NamedFolder
    /// The folder as it is open now (opened again only when the one held was removed or
    /// replaced under its name).
    public var root: OpenFolder { named.current() }
    public let title: String
    let timeZone: TimeZone
    let cache: FolderCache?
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

    /// File name endings taken as photos and as videos (the bytes decide what they are).
    public static let photoExtensions: Set<String> = ["jpg", "jpeg", "png", "webp"]
    public static let videoExtensions: Set<String> = ["mp4", "m4v", "mov", "webm", "mkv"]
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
    public init(directory: URL, timeZone: TimeZone = .current, cache: FolderCache? = nil, now: Date = Date(),
                maxEntries: Int = FolderFeed.maxEntries) throws(FeedError) {
        // The folder named may itself be a link (~/Pictures often is); what is inside is not followed.
        let open: OpenFolder
        do { open = try OpenFolder.open(directory.standardizedFileURL.path) } catch {
            throw FeedError(file: SafeText.line(directory.path), reason: Self.folderProblem(error))
        }
        self.init(root: NamedFolder(open), directory: directory, timeZone: timeZone, cache: cache, now: now, maxEntries: maxEntries)
    }

    /// Over a folder already open (a server reads the same descriptor for its files).
    public init(root: NamedFolder, directory: URL, timeZone: TimeZone = .current, cache: FolderCache? = nil, now: Date = Date(),
                maxEntries: Int = FolderFeed.maxEntries) {
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

    static func scan(_ root: OpenFolder, _ directory: URL, timeZone: TimeZone, cache: FolderCache?, now: Date,
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
        for folder in top.folders {
            let id = Self.storyID(for: folder.name, used: &usedIDs)
            entries.append(Entry(id: id, name: SafeText.line(folder.name), folder: folder.name, files: nil, latest: folder.modified))
        }
        // Newest first, as a ring row is; the name breaks ties so the order is stable.
        let stories = entries.sorted { ($0.latest, $1.name) > ($1.latest, $0.name) }
        let place = Dictionary(stories.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        if entries.isEmpty {
            warnings.append(FeedWarning("\(SafeText.line(directory.path)): no photos or videos here, nor in its folders"))
        }
        return Scan(stories: stories, place: place, looseMetadata: looseMetadata, warnings: warnings)
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
        var next = offset
        while next < stories.count, summaries.count < wanted, next - offset < max(wanted, Self.maxScannedPerPage) {
            let entry = stories[next]
            next += 1
            // A folder that cannot be read has said why; an empty one says so here.
            guard let (listing, _) = self.listing(of: entry, warnings: &warnings) else { continue }
            guard !listing.files.isEmpty else {
                warnings.append(FeedWarning(Self.nothingIn(entry, listing)))
                continue
            }
            summaries.append(StorySummary(id: entry.id, author: Author(name: entry.name, avatar: avatar(of: entry, listing)),
                                          itemIDs: listing.files.map { $0.name }, latest: entry.latest))
        }
        warnings += cache?.takeWarnings() ?? []
        return FeedPage(stories: summaries, nextCursor: next < stories.count ? String(next) : nil, warnings: warnings)
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
            items.append((taken, StoryItem(id: file.name, content: file.isVideo ? .video(media) : .image(media),
                                          caption: caption, createdAt: taken)))
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
        guard let name = listing.avatar ?? listing.files.first(where: { !$0.isVideo })?.name else { return nil }
        return entry.folder + "/" + name
    }

    public func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? {
        if let problem = FeedPath.problem(with: location) { throw FeedError(file: SafeText.line(location), reason: problem) }
        do {
            return try root.read(location, maxBytes: maxBytes).0
        } catch {
            throw FeedError(file: SafeText.line(location), reason: SafeFile.describe(error, maxBytes: maxBytes))
        }
    }

    /// Whether `location` is one a folder feed's items or pictures can have: a photo or
    /// video by its ending, at the top or one folder down, no part hidden (what a server of
    /// a folder sends; everything else in the folder stays there).
    public static func isMediaPath(_ location: String) -> Bool {
        guard FeedPath.problem(with: location) == nil, SafeText.line(location) == location else { return false }
        let parts = location.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }) else { return false }
        let ending = (location as NSString).pathExtension.lowercased()
        return photoExtensions.contains(ending) || videoExtensions.contains(ending)
    }

    // MARK: - Listing

    struct FileEntry {
        var name: String
        var modified: Date
        var modifiedNanoseconds: Int64
        var size: Int
        var isVideo: Bool
    }

    struct Listing {
        /// The folder listed, open: its files are read from this descriptor.
        var open: OpenFolder?
        var folders: [(name: String, modified: Date)] = []
        var files: [FileEntry] = []
        /// Names of the `.txt` files beside them (captions), so only those are opened.
        var sidecars: Set<String> = []
        /// A photo named `avatar.*`: the story's picture, not one of its items.
        var avatar: String?
    }

    /// One folder's entries, by `lstat` from the folder's descriptor: folders, and photos and
    /// videos by their ending. Hidden names, links, FIFOs, devices and names a path may not
    /// hold are left out, with a line saying how many; nil (with a line saying why) when the
    /// folder cannot be read. `shownAs` names the folder in lines (its place in the feed).
    ///
    /// A folder larger than `maxEntries` keeps the last `maxEntries` of its folders, of its
    /// photos and videos and of its captions by name (cameras number their files in the
    /// order taken), whatever order the file system lists them in: every name is read, and
    /// the ones kept are those a bounded heap holds at the end.
    static func list(_ parent: OpenFolder, relative: String, shownAs: String? = nil, maxEntries: Int = maxEntries,
                     warnings: inout [FeedWarning]) -> Listing? {
        let shown = SafeText.line(shownAs ?? relative)
        let folder: OpenFolder
        do { folder = try relative.isEmpty ? parent : parent.folder(relative) } catch {
            let reason = switch error {
            case .missing: "gone since it was listed"
            case .link: "no longer a folder (a link now)"
            case .notFolder: "no longer a folder"
            case .cannotOpen(let why): why
            default: error.description
            }
            warnings.append(FeedWarning("\(shown): cannot be read (\(reason))"))
            return nil
        }
        // A folder removed since it was opened lists as empty: it is said instead.
        if let info = folder.status(), info.st_nlink == 0 {
            warnings.append(FeedWarning("\(shown): cannot be read (removed since it was opened)"))
            return nil
        }
        var listing = Listing(open: folder)
        var folders = LastByName(keeping: maxEntries), files = LastByName(keeping: maxEntries), sidecars = LastByName(keeping: maxEntries)
        var skipped = 0, total = 0, stopped = false
        let failed = folder.forEachName { name, listed in
            total += 1
            // A file system that does not say what an entry is (d_type unknown): lstat says,
            // so that other files never take the place of folders.
            var type = listed
            if type == UInt8(DT_UNKNOWN), let name, let info = folder.status(of: name) {
                switch info.st_mode & S_IFMT {
                case S_IFDIR: type = UInt8(DT_DIR)
                case S_IFREG: type = UInt8(DT_REG)
                default: type = UInt8(DT_LNK) // not a file or folder: left out as one
                }
            }
            if total > maxCounted { stopped = true; return false }
            guard let name else { skipped += 1; return true } // not UTF-8: no path of ours could name it
            guard !name.hasPrefix(".") else { return true }
            let ending = Self.ending(of: name)
            if photoExtensions.contains(ending) || videoExtensions.contains(ending) {
                files.offer(name)
            } else if ending == "txt", type == UInt8(DT_REG) || type == UInt8(DT_UNKNOWN) {
                sidecars.offer(name)
            } else if type == UInt8(DT_DIR) || type == UInt8(DT_UNKNOWN) {
                folders.offer(name) // a folder (lstat below tells, where the listing did not)
            } else if type != UInt8(DT_REG) {
                skipped += 1 // a link, FIFO, socket or device: never opened
            }
            return true
        }
        if let failed {
            warnings.append(FeedWarning("\(shown): cannot be read (\(failed == String(cString: strerror(EACCES)) ? "permission denied" : failed))"))
            return nil
        }
        if stopped || files.dropped > 0 || folders.dropped > 0 || sidecars.dropped > 0 {
            let count = stopped ? "more than \(maxCounted)" : "\(total)"
            warnings.append(FeedWarning("\(shown): \(count) entries; only the last \(maxEntries) of its photos and videos, of its folders and of its captions by name are read"))
        }
        var vanished = 0
        for name in folders.sorted() + files.sorted() + sidecars.sorted() {
            guard FeedPath.problem(with: name) == nil, SafeText.line(name) == name else { skipped += 1; continue }
            guard let info = folder.status(of: name) else { vanished += 1; continue }
            // Clamped to years 1970–9999: a time a file system allows is not always one a date format writes.
            let modified = Date(timeIntervalSince1970: Double(min(max(0, info.st_mtim.tv_sec), 253_402_300_799)))
            let ending = Self.ending(of: name)
            let isVideo = videoExtensions.contains(ending), isPhoto = photoExtensions.contains(ending)
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                listing.folders.append((name, modified))
            case S_IFREG where isPhoto && (name as NSString).deletingPathExtension.lowercased() == "avatar" && !relative.isEmpty:
                listing.avatar = name
            case S_IFREG where isVideo || isPhoto:
                listing.files.append(FileEntry(name: name, modified: modified, modifiedNanoseconds: FolderCache.nanoseconds(info.st_mtim),
                                               size: Int(max(0, info.st_size)), isVideo: isVideo))
            case S_IFREG where ending == "txt":
                listing.sidecars.insert(name)
            case S_IFREG:
                break // another kind of file: not a photo or video
            default:
                skipped += 1 // a link (to a folder too), FIFO, socket or device: never opened
            }
        }
        let place = SafeText.line(relative.isEmpty ? URL(fileURLWithPath: shownAs ?? parent.path).lastPathComponent : relative)
        if skipped > 0 {
            warnings.append(FeedWarning("\(place): \(skipped) entr\(skipped == 1 ? "y" : "ies") left out (links, special files or names with control characters)"))
        }
        if vanished > 0 {
            warnings.append(FeedWarning("\(place): \(vanished) file\(vanished == 1 ? "" : "s") went away while the folder was read"))
        }
        return listing
    }

    /// A name's ending after its last dot, in lower case ("" when it has none, or the dot is
    /// its first character), as `NSString.pathExtension` gives it but without bridging: a
    /// listing asks it of every name in the folder.
    static func ending(of name: String) -> String {
        let bytes = name.utf8
        guard let dot = bytes.lastIndex(of: 0x2E), dot != bytes.startIndex else { return "" }
        let tail = bytes[bytes.index(after: dot)...]
        guard !tail.isEmpty, tail.count <= 8, !tail.contains(0x2F) else { return "" }
        return String(decoding: tail.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// A story's files and its folder, open (nil, with a line, when its folder cannot be
    /// read): at most `maxItemsPerStory`, the last by name (cameras number their files in
    /// the order taken).
    func listing(of entry: Entry, warnings: inout [FeedWarning]) -> (Listing, OpenFolder)? {
        guard var listing = entry.files ?? Self.list(root, relative: entry.folder, shownAs: entry.folder.isEmpty ? directory.path : nil,
                                                    maxEntries: maxEntries, warnings: &warnings) else { return nil }
        let folder = listing.open ?? root
        if listing.files.count > Self.maxItemsPerStory {
            warnings.append(FeedWarning("\(SafeText.line(entry.name)): \(listing.files.count) photos and videos; the story shows the last \(Self.maxItemsPerStory) by name"))
            listing.files = Array(listing.files.sorted { $0.name < $1.name }.suffix(Self.maxItemsPerStory))
        }
        return (listing, folder)
    }

    // MARK: - Metadata

    /// What a file's header says (capture time, caption), from the cache while the file is
    /// unchanged, else read (a photo's EXIF, a video's movie header) and kept.
    static func metadata(of file: FileEntry, folder: String, in open: OpenFolder, cache: FolderCache?, timeZone: TimeZone) -> PhotoMetadata {
        if let known = cache?.entry(folder: folder, name: file.name, size: file.size, modified: file.modifiedNanoseconds), known.read == true {
            return PhotoMetadata(captured: known.captured.map { Date(timeIntervalSince1970: $0) }, caption: known.caption, day: known.day)
        }
        guard let opened = try? open.open(file.name) else { return PhotoMetadata() }
        let meta = file.isVideo ? PhotoMetadata(captured: VideoMetadata.creationTime(file: opened))
            : PhotoMetadata.read(file: opened, timeZone: timeZone)
        cache?.update(folder: folder, name: file.name, size: file.size, modified: file.modifiedNanoseconds) { entry in
            entry.read = true
            entry.captured = meta.captured?.timeIntervalSince1970
            entry.caption = meta.caption
            entry.day = meta.day
        }
        return meta
    }

    /// `IMG_1.txt` or `IMG_1.jpg.txt` beside the file (when the listing has it): its first
    /// line, made printable.
    static func sidecarCaption(for name: String, in folder: OpenFolder, sidecars: Set<String>) -> String? {
        let stem = (name as NSString).deletingPathExtension
        for candidate in [stem + ".txt", name + ".txt"] where sidecars.contains(candidate) {
            let data = (try? folder.read(candidate, maxBytes: maxCaptionBytes, wholeOrNothing: false).0) ?? Data()
            guard !data.isEmpty else { continue }
            let text = String(decoding: data, as: UTF8.self)
            let first = SafeText.line(String(text.split(whereSeparator: \.isNewline).first ?? ""))
            let line = first.split(whereSeparator: \.isWhitespace).joined(separator: " ") // runs of spaces as one
            if !line.isEmpty { return line }
        }
        return nil
    }

    // MARK: - Names

    /// A story id from a folder name: the name itself when it is a valid id; otherwise the
    /// characters ids may hold (the rest as `-`) and a hash of the whole name, so that two
    /// names that read alike stay apart and an id does not change when other folders come
    /// or go (seen state is kept by id).
    static func storyID(for name: String, used: inout Set<StoryID>) -> StoryID {
        var id = String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            let value = scalar.value
            let allowed = (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
                || value == 0x2D || value == 0x5F || value == 0x2E
            return allowed ? scalar : "-"
        }).prefix(100))
        while id.hasPrefix(".") { id.removeFirst() }
        if id != name || id.hasPrefix("-") {
            // Not starting with "-" either: an id is a file name for `init`, and tools read "-…" as a flag.
            while id.hasPrefix("-") || id.hasPrefix(".") { id.removeFirst() }
            id = (id.isEmpty ? "story" : id) + "-" + String(SeenStore.hash(name).prefix(8))
        }
        // Only a name made to match another's hash gets here more than once; bounded anyway.
        var unique = id, n = 2
        while used.contains(unique) {
            unique = n <= 100 ? "\(id)-\(n)" : "\(id)-\(SeenStore.hash(name + "\u{0}" + String(n)).prefix(12))"
            n += 1
        }
        used.insert(unique)
        return unique
    }

    static func dayKey(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        let year = parts.year ?? 0, month = parts.month ?? 0, day = parts.day ?? 0
        return String(format: "%04d-%02d-%02d", year, month, day)
    }

    /// "1 Jun" in the year of `now`, "1 Jun 2024" in another, from a day key ("2024-06-01"):
    /// short enough for a bubble's label (the viewer's header shows it whole).
    static func dayName(_ key: String, timeZone: TimeZone, now: Date = Date()) -> String {
        guard let (year, month, day) = dayParts(key) else { return key }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let name = months[safe: month - 1] ?? ""
        return year == calendar.component(.year, from: now) ? "\(day) \(name)" : "\(day) \(name) \(year)"
    }

    /// Year, month and day of a key "YYYY-MM-DD"; nil for anything else.
    static func dayParts(_ key: String) -> (Int, Int, Int)? {
        let parts = key.split(separator: "-", omittingEmptySubsequences: false)
        guard key.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        return (year, month, day)
    }
}

/// The last `limit` names by name among those offered, in a bounded min-heap: a folder's
/// newest files (cameras number them in the order taken) whatever order the file system
/// lists them in, in memory for `limit` names however many are offered.
struct LastByName {
    let limit: Int
    private var heap: [String] = []
    /// How many offered names were not kept.
    private(set) var dropped = 0

    init(keeping limit: Int) { self.limit = max(0, limit) }

    var count: Int { heap.count }

    mutating func offer(_ name: String) {
        if heap.count < limit {
            heap.append(name)
            siftUp(heap.count - 1)
            return
        }
        dropped += 1
        // Full: the new name replaces the smallest kept when it comes after it.
        guard let smallest = heap.first, name > smallest else { return }
        heap[0] = name
        siftDown(0)
    }

    func sorted() -> [String] { heap.sorted() }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left] < heap[smallest] { smallest = left }
            if right < heap.count, heap[right] < heap[smallest] { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
