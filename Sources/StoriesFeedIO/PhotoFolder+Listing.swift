import StoriesCore
import Foundation

extension PhotoFolder {
    // MARK: - Listing

    struct FileEntry {
        var name: String
        var modified: Date
        var modifiedNanoseconds: Int64
        var size: Int
        var isVideo: Bool
        /// Sound alone (a voice note), by its ending.
        var isSound = false
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
            if photoExtensions.contains(ending) || videoExtensions.contains(ending) || soundExtensions.contains(ending) {
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
            let isSound = soundExtensions.contains(ending)
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                listing.folders.append((name, modified))
            case S_IFREG where isPhoto && (name as NSString).deletingPathExtension.lowercased() == "avatar" && !relative.isEmpty:
                listing.avatar = name
            case S_IFREG where isVideo || isPhoto || isSound:
                listing.files.append(FileEntry(name: name, modified: modified, modifiedNanoseconds: PhotoFolderCache.nanoseconds(info.st_mtim),
                                               size: Int(max(0, info.st_size)), isVideo: isVideo, isSound: isSound))
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
    static func metadata(of file: FileEntry, folder: String, in open: OpenFolder, cache: PhotoFolderCache?, timeZone: TimeZone) -> PhotoMetadata {
        if let known = cache?.entry(folder: folder, name: file.name, size: file.size, modified: file.modifiedNanoseconds), known.read == true,
           known.animated != nil || ending(of: file.name) != "gif" {
            return PhotoMetadata(captured: known.captured.map { Date(timeIntervalSince1970: $0) }, caption: known.caption, day: known.day,
                                 animated: known.animated)
        }
        guard let opened = try? open.open(file.name) else { return PhotoMetadata() }
        let meta = file.isVideo || file.isSound ? PhotoMetadata(captured: VideoMetadata.creationTime(file: opened))
            : PhotoMetadata.read(file: opened, timeZone: timeZone)
        cache?.update(folder: folder, name: file.name, size: file.size, modified: file.modifiedNanoseconds) { entry in
            entry.read = true
            entry.captured = meta.captured?.timeIntervalSince1970
            entry.caption = meta.caption
            entry.day = meta.day
            entry.animated = meta.animated ?? (ending(of: file.name) == "gif" ? false : nil) // a .gif that is not one: read once
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
        func plain(_ text: String) -> String {
            String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
                let value = scalar.value
                let allowed = (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
                    || value == 0x2D || value == 0x5F || value == 0x2E
                return allowed ? scalar : "-"
            }).prefix(100))
        }
        var id = plain(name)
        while id.hasPrefix(".") { id.removeFirst() }
        if id != name || id.hasPrefix("-") {
            // Not starting with "-" either: an id is a file name for `init`, and tools read
            // "-…" as a flag. A name with letters beyond ASCII keeps them, as a person would
            // write them in ASCII ("Été 2025 🌞" → "Ete-2025-…", "Лето" → "Leto-…"), one "-"
            // for each run of anything else; an ASCII name's id is what it always was.
            if !name.unicodeScalars.allSatisfy(\.isASCII) {
                let latin = (name.applyingTransform(.toLatin, reverse: false) ?? name)
                    .folding(options: [.diacriticInsensitive], locale: nil)
                id = plain(String(latin.prefix(100))).split(separator: "-", omittingEmptySubsequences: true).joined(separator: "-")
                while id.hasSuffix("-") || id.hasSuffix(".") { id.removeLast() }
            }
            while id.hasPrefix("-") || id.hasPrefix(".") { id.removeFirst() }
            id = (id.isEmpty ? "story" : String(id.prefix(80))) + "-" + String(SeenStore.hash(name).prefix(8))
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
