import Foundation

/// Any folder of photos and videos as a feed, when it has no `feed.json`: each sub-folder
/// is a story (its name the author), its photos and videos the items in capture order
/// (EXIF `DateTimeOriginal` for a JPEG, else the file's modification time); photos and
/// videos loose at the top are one story per day. Captions come from EXIF
/// (`ImageDescription`, `UserComment`) or a sidecar text file (`IMG_1.txt` or
/// `IMG_1.jpg.txt`). Hidden files, other files, links and anything that is not a regular
/// file or folder are left out; nothing is ever written into the folder.
///
/// `init` lists the folder (names and `lstat`, no file contents except the headers of the
/// loose files, whose day decides their story); a page lists its stories' folders; a story's
/// file headers are read when it is loaded.
public struct FolderFeed: FeedSource {
    public let directory: URL
    public let title: String
    let stories: [Entry]
    /// What the loose files' headers said when `init` read them for their day.
    let looseMetadata: [String: PhotoMetadata]
    let warnings: [FeedWarning]
    let timeZone: TimeZone

    /// One story: a sub-folder, or the loose files of one day.
    struct Entry: Sendable {
        var id: StoryID
        var name: String
        /// The folder, relative to `directory` ("" for the loose files at the top).
        var folder: String
        /// For a day's story: its files, as `init` listed them.
        var files: [FileEntry]?
        var latest: Date
    }

    /// File name endings taken as photos and as videos (the bytes decide what they are).
    public static let photoExtensions: Set<String> = ["jpg", "jpeg", "png", "webp"]
    public static let videoExtensions: Set<String> = ["mp4", "m4v", "mov", "webm", "mkv"]
    /// The most entries read from one folder; past it the rest are left out with a line.
    public static let maxEntries = 20_000
    /// The longest sidecar caption read.
    static let maxCaptionBytes = 2000

    public init(directory: URL, timeZone: TimeZone = .current) throws(FeedError) {
        self.directory = directory.standardizedFileURL
        self.timeZone = timeZone
        var info = stat()
        guard lstat(self.directory.path, &info) == 0 else {
            throw FeedError(file: SafeText.line(directory.path), reason: "no such file or folder")
        }
        // The folder named may itself be a link (~/Pictures often is); what is inside is not followed.
        var resolved = stat()
        guard stat(self.directory.path, &resolved) == 0, (resolved.st_mode & S_IFMT) == S_IFDIR else {
            throw FeedError(file: SafeText.line(directory.path), reason: "is a file; give a folder of photos and videos")
        }
        let name = SafeText.line(self.directory.lastPathComponent)
        title = name.isEmpty || name == "/" ? "Photos" : name
        var warnings: [FeedWarning] = []
        let top = Self.list(self.directory, relative: "", warnings: &warnings)
        var entries: [Entry] = []
        var usedIDs = Set<StoryID>()
        for folder in top.folders {
            let id = Self.storyID(for: folder.name, used: &usedIDs)
            entries.append(Entry(id: id, name: SafeText.line(folder.name), folder: folder.name, files: nil, latest: folder.modified))
        }
        // Loose files: one story per day they were taken.
        var days: [String: (date: Date, files: [FileEntry])] = [:]
        var looseMetadata: [String: PhotoMetadata] = [:]
        for file in top.files {
            let meta = file.isVideo ? PhotoMetadata()
                : PhotoMetadata.read(Self.header(of: self.directory.appendingPathComponent(file.name)), timeZone: timeZone)
            looseMetadata[file.name] = meta
            let taken = meta.captured ?? file.modified
            let day = Self.dayKey(taken, timeZone: timeZone)
            days[day, default: (taken, [])].files.append(file)
            if let date = days[day]?.date, taken > date { days[day]?.date = taken }
        }
        for (day, value) in days {
            let id = Self.storyID(for: "day-" + day, used: &usedIDs)
            entries.append(Entry(id: id, name: Self.dayName(value.date, timeZone: timeZone), folder: "", files: value.files, latest: value.date))
        }
        // Newest first, as a ring row is; the name breaks ties so the order is stable.
        self.looseMetadata = looseMetadata
        stories = entries.sorted { ($0.latest, $1.name) > ($1.latest, $0.name) }
        if entries.isEmpty {
            warnings.append(FeedWarning("\(SafeText.line(directory.path)): no photos or videos here, nor in its folders"))
        }
        self.warnings = warnings
    }

    public func page(after cursor: FeedCursor?, limit: Int) throws(FeedError) -> FeedPage {
        let offset = try OffsetCursor.offset(cursor, count: stories.count, file: directory.path)
        let end = min(stories.count, offset + max(1, limit))
        var summaries: [StorySummary] = []
        var warnings = offset == 0 ? self.warnings : []
        for entry in stories[offset..<end] {
            let files = self.files(of: entry, warnings: &warnings)
            guard !files.isEmpty else {
                warnings.append(FeedWarning("\(SafeText.line(entry.name)): no photos or videos in it"))
                continue
            }
            summaries.append(StorySummary(id: entry.id, author: Author(name: entry.name), itemIDs: files.map { $0.name }, latest: entry.latest))
        }
        return FeedPage(stories: summaries, nextCursor: OffsetCursor.next(after: offset, limit: max(1, limit), count: stories.count),
                        warnings: warnings)
    }

    public func story(id: StoryID) throws(FeedError) -> StoryLoad {
        guard let entry = stories.first(where: { $0.id == id }) else {
            throw FeedError(file: SafeText.line(id), reason: "no such story in \(SafeText.line(directory.lastPathComponent))")
        }
        var warnings: [FeedWarning] = []
        let folderURL = entry.folder.isEmpty ? directory : directory.appendingPathComponent(entry.folder)
        var items: [(Date, StoryItem)] = []
        for file in files(of: entry, warnings: &warnings) {
            let url = folderURL.appendingPathComponent(file.name)
            let location = entry.folder.isEmpty ? file.name : entry.folder + "/" + file.name
            let meta = file.isVideo ? PhotoMetadata()
                : (entry.folder.isEmpty ? looseMetadata[file.name] : nil) ?? PhotoMetadata.read(Self.header(of: url), timeZone: timeZone)
            let taken = meta.captured ?? file.modified
            let caption = Self.sidecarCaption(for: file.name, in: folderURL) ?? meta.caption
            let media = Media(location: location, bytes: file.size)
            items.append((taken, StoryItem(id: file.name, content: file.isVideo ? .video(media) : .image(media),
                                          caption: caption, createdAt: taken)))
        }
        guard !items.isEmpty else { throw FeedError(file: SafeText.line(entry.name), reason: "no photos or videos in it") }
        let ordered = items.sorted { ($0.0, $0.1.id) < ($1.0, $1.1.id) }.map(\.1)
        return StoryLoad(story: Story(id: id, author: Author(name: entry.name), items: ordered), warnings: warnings)
    }

    public func media(at location: String, maxBytes: Int) throws(FeedError) -> Data? {
        if let problem = FeedPath.problem(with: location) { throw FeedError(file: SafeText.line(location), reason: problem) }
        do {
            return try SafeFile.read(directory.appendingPathComponent(location).path, maxBytes: maxBytes).0
        } catch {
            throw FeedError(file: SafeText.line(location), reason: SafeFile.describe(error, maxBytes: maxBytes))
        }
    }

    // MARK: - Listing

    struct FileEntry {
        var name: String
        var modified: Date
        var size: Int
        var isVideo: Bool
    }

    struct Listing {
        var folders: [(name: String, modified: Date)] = []
        var files: [FileEntry] = []
    }

    /// One folder's entries, by `lstat`: folders, and photos and videos by their ending.
    /// Hidden names, links, FIFOs, devices and names a path may not hold are left out.
    static func list(_ url: URL, relative: String, warnings: inout [FeedWarning]) -> Listing {
        var listing = Listing()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else {
            warnings.append(FeedWarning("\(SafeText.line(relative.isEmpty ? url.path : relative)): cannot be read"))
            return listing
        }
        if names.count > maxEntries {
            warnings.append(FeedWarning("\(SafeText.line(relative.isEmpty ? url.path : relative)): \(names.count) entries; only the first \(maxEntries) by name are read"))
        }
        var skipped = 0
        for name in names.sorted().prefix(maxEntries) where !name.hasPrefix(".") {
            guard FeedPath.problem(with: name) == nil, SafeText.line(name) == name else { skipped += 1; continue }
            var info = stat()
            guard lstat(url.appendingPathComponent(name).path, &info) == 0 else { continue } // gone since the listing
            let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec))
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                listing.folders.append((name, modified))
            case S_IFREG:
                let ending = (name as NSString).pathExtension.lowercased()
                let isVideo = videoExtensions.contains(ending)
                guard isVideo || photoExtensions.contains(ending) else { continue }
                listing.files.append(FileEntry(name: name, modified: modified, size: Int(info.st_size), isVideo: isVideo))
            default:
                if photoExtensions.contains((name as NSString).pathExtension.lowercased())
                    || videoExtensions.contains((name as NSString).pathExtension.lowercased()) {
                    skipped += 1 // a link, FIFO or device named like media: never opened
                }
            }
        }
        if skipped > 0 {
            warnings.append(FeedWarning("\(SafeText.line(relative.isEmpty ? url.lastPathComponent : relative)): \(skipped) entr\(skipped == 1 ? "y" : "ies") left out (links, special files or names with control characters)"))
        }
        return listing
    }

    func files(of entry: Entry, warnings: inout [FeedWarning]) -> [FileEntry] {
        if let files = entry.files { return files } // listed by `init`
        return Self.list(directory.appendingPathComponent(entry.folder), relative: entry.folder, warnings: &warnings).files
    }

    // MARK: - Metadata

    /// The first bytes of a file (where EXIF is), through no link.
    static func header(of url: URL) -> Data {
        (try? SafeFile.read(url.path, maxBytes: PhotoMetadata.headerBytes, wholeOrNothing: false).0) ?? Data()
    }

    /// `IMG_1.txt` or `IMG_1.jpg.txt` beside the file: its first line, made printable.
    static func sidecarCaption(for name: String, in folder: URL) -> String? {
        let stem = (name as NSString).deletingPathExtension
        for candidate in [stem + ".txt", name + ".txt"] {
            let data = header(of: folder.appendingPathComponent(candidate)).prefix(maxCaptionBytes)
            guard !data.isEmpty else { continue }
            let text = String(decoding: data, as: UTF8.self)
            let line = SafeText.line(String(text.split(whereSeparator: \.isNewline).first ?? "")).trimmingCharacters(in: .whitespaces)
            if !line.isEmpty { return line }
        }
        return nil
    }

    // MARK: - Names

    /// A story id from a folder name: the characters ids may hold, the rest as `-`, unique.
    static func storyID(for name: String, used: inout Set<StoryID>) -> StoryID {
        var id = String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            let value = scalar.value
            let allowed = (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
                || value == 0x2D || value == 0x5F || value == 0x2E
            return allowed ? scalar : "-"
        }).prefix(100))
        while id.hasPrefix(".") { id.removeFirst() }
        if id.isEmpty { id = "story" }
        var unique = id, n = 2
        while used.contains(unique) { unique = "\(id)-\(n)"; n += 1 }
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

    /// "1 June 2024".
    static func dayName(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                      "November", "December"]
        let month = months[safe: (parts.month ?? 1) - 1] ?? ""
        return "\(parts.day ?? 1) \(month) \(parts.year ?? 0)"
    }
}
