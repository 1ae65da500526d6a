// libFuzzer entry point for StoriesCore's readers of outside bytes: what a photo folder reads
// (a photo's EXIF, a video's movie header, a cache file, the JSON documents `stories assets
// blurhash` edits), a story document, a recording, seen state on the wire and the two config
// files. Built by
// build.sh with one of FUZZ_EXIF, FUZZ_MOVIE, FUZZ_CACHE, FUZZ_JSONEDITS, FUZZ_STORY,
// FUZZ_RECORDING, FUZZ_SEEN or FUZZ_CONF defined, compiled into one module with StoriesCore's sources
// (so it reaches their internals); not part of the Swift package.
import Foundation
#if FUZZ_EXIF || FUZZ_MOVIE || FUZZ_CACHE
import StoriesCore // compiled with StoriesFeedIO's sources, over StoriesCore's module
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    #if FUZZ_EXIF
    // The whole input, and the walk that decides how much of a file to read.
    _ = PhotoMetadata.read(data, timeZone: TimeZone(identifier: "UTC") ?? .current)
    _ = PhotoMetadata.bytesNeeded(data)
    #elseif FUZZ_MOVIE
    let bytes = [UInt8](data)
    _ = VideoMetadata.creationTime { offset, count in
        guard offset >= 0, offset < bytes.count, count >= 0 else { return Data() }
        return Data(bytes[offset..<min(bytes.count, offset + min(count, bytes.count - offset))])
    }
    #elseif FUZZ_CACHE
    if let document = try? JSONDecoder().decode(PhotoFolderCache.Document.self, from: data) {
        for entry in document.files.values { _ = PhotoFolderCache.checked(entry) }
    }
    #elseif FUZZ_JSONEDITS
    // Any document the walk accepts must still be JSON after a member is set in each object.
    let text = [UInt8](data)
    if let objects = try? JSONEdits.objects(in: text) {
        let edits = objects.suffix(1).map { JSONEdits.setting("blurhash", to: "LEHV6nWB2yk8", in: $0, of: text) }
        let edited = JSONEdits.apply(edits, to: text)
        if (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil,
           (try? JSONSerialization.jsonObject(with: Data(edited), options: [.fragmentsAllowed])) == nil {
            fatalError("an edit broke a valid document")
        }
    }
    #elseif FUZZ_STORY
    if let (story, _) = try? FeedDecoder.story(from: data, file: "s.json", expectedID: "s") {
        // What the decoder lets through is what screens are built from.
        _ = ViewModelFactory.viewerItems(story, now: Date(timeIntervalSince1970: 1_795_197_600), width: 80)
    }
    #elseif FUZZ_RECORDING
    if let recording = try? InputRecording.parse(String(decoding: data, as: UTF8.self), file: "r.jsonl") {
        precondition(recording.width <= InputLimits.maxScreenSide && recording.height <= InputLimits.maxScreenSide)
        _ = recording.text // and written back out
    }
    #elseif FUZZ_SEEN
    // Seen state on the wire, both ends (issue 34): what the server reads of a batch, what
    // the app reads of a receipt and of changes. What is read must be written back to the
    // same value: the two ends agree on every document either accepts.
    if let batch = try? SeenWire.decodeBatch(data) {
        precondition(batch.entries.count <= SeenWire.maxItems && batch.tooltips.count <= SeenWire.maxTooltips)
        precondition((try? SeenWire.decodeBatch(SeenWire.batch(batch))) == batch, "a batch read differs once written back")
    }
    if let receipt = try? SeenWire.decodeReceipt(data, file: "receipt") {
        precondition(receipt.recorded >= 0 && receipt.recorded <= SeenWire.maxItems)
        precondition((try? SeenWire.decodeReceipt(SeenWire.receipt(receipt), file: "receipt")) == receipt, "a receipt read differs once written back")
    }
    if let changes = try? SeenWire.decodeChanges(data, file: "changes") {
        precondition((try? SeenWire.decodeChanges(SeenWire.changes(changes), file: "changes")) == changes, "changes read differ once written back")
    }
    #elseif FUZZ_CONF
    let text = String(decoding: data, as: UTF8.self)
    _ = try? KeyBindings.standard.applying(text, file: "keys.conf")
    _ = try? AppSettings().applying(text, file: "stories.conf")
    #endif
    return 0
}
