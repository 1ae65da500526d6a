// libFuzzer entry point for what the terminal sends: bytes → `InputDecoder` (escape
// sequences, SGR mouse reports, UTF-8) → events → the real `AppEngine` (gesture recognition,
// the reducer, effects) on the virtual clock → a rendered frame. Built by build.sh from
// StoriesCore, StoriesMedia, StoriesUI and StoriesApp (as modules) and StoriesTerminal's
// InputDecoder.swift, which needs no ncurses; not part of the Swift package.
//
// The input: its first two bytes are the screen's columns and rows (each 1 + byte % 160, so
// the too-small screen and every layout come up); after that, the terminal's bytes. A byte
// 0xFE makes the next byte a pause (in tens of milliseconds, so holds, animations, progress
// and the feed's answers happen between inputs); 0xFD makes the next byte a resize; 0xFC
// makes the next byte one of ncurses' function-key names.
import Dispatch
import Foundation
import StoriesApp
import StoriesCore
import StoriesMedia
import StoriesUI

/// One small photo for the feed (made for each run: a global's bytes would count as a
/// leak to LeakSanitizer).
func fuzzPhoto() -> [SyntheticFeed.Photo] {
    var samples: [UInt8] = []
    for y in 0..<24 { for x in 0..<16 { samples += [UInt8(x * 15), UInt8(y * 10), 120] } }
    guard let data = ImageEncoder.png(samples, width: 16, height: 24, layout: .rgb) else { return [] }
    return [SyntheticFeed.Photo(data: data, width: 16, height: 24, blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj")]
}

let keyNames = ["KEY_LEFT", "KEY_RIGHT", "KEY_UP", "KEY_DOWN", "KEY_HOME", "KEY_END", "KEY_NPAGE", "KEY_PPAGE",
                "KEY_ENTER", "KEY_BACKSPACE", "KEY_DC", "KEY_IC", "KEY_F(1)", "KEY_SLEFT", "KEY_SRIGHT", "kLFT5",
                "kRIT3", "KEY_MOUSE", "KEY_RESIZE", "KEY_BTAB", "nonsense"]

@MainActor
func run(_ bytes: [UInt8]) {
    guard bytes.count >= 2 else { return }
    let width = 1 + Int(bytes[0]) % 160, height = 1 + Int(bytes[1]) % 160
    let start = Moment(uptime: 1000, date: Date(timeIntervalSince1970: 1_795_240_800))
    let scheduler = VirtualScheduler(start: start)
    let client = FeedClient(source: SyntheticFeed(count: 25, seed: 7, photos: fuzzPhoto()), profile: .local)
    let engine = AppEngine(services: VirtualServices(client: client, scheduler: scheduler), scheduler: scheduler,
                           bindings: .standard, width: width, height: height, seen: SeenState(),
                           reduceMotion: bytes[0] & 1 == 0, preload: .on)
    var quit = false
    engine.quit = { _ in quit = true }
    engine.start()
    var decoder = InputDecoder()
    var now = start.uptime
    var index = 2
    func deliver() {
        for event in decoder.flush() where !quit { engine.input(event) }
    }
    while index < bytes.count, !quit {
        let byte = bytes[index]
        index += 1
        switch byte {
        case 0xFE where index < bytes.count:
            deliver()
            now += Double(bytes[index]) / 100
            index += 1
            scheduler.run(until: now)
        case 0xFD where index + 1 < bytes.count:
            deliver()
            engine.resize(width: Int(bytes[index]) * 4, height: Int(bytes[index + 1]))
            index += 2
        case 0xFC where index < bytes.count:
            decoder.feed(.keyName(keyNames[Int(bytes[index]) % keyNames.count]))
            index += 1
        default:
            // Bytes as the terminal sends them: UTF-8 where it is, one scalar per byte where not.
            var end = index
            while end < bytes.count, end - index < 64, bytes[end] < 0xFC { end += 1 }
            let run = [byte] + bytes[index..<end]
            index = end
            for scalar in String(decoding: run, as: UTF8.self).unicodeScalars { decoder.feed(.scalar(scalar)) }
        }
        deliver()
    }
    deliver()
    // What was started finishes (bounded: a failing page would retry forever).
    var steps = 0
    while !quit, engine.isBusy, steps < 20_000, scheduler.runNext() { steps += 1 }
    let canvas = engine.redraw()
    precondition(canvas.width == engine.state.screenWidth && canvas.height == engine.state.screenHeight,
                 "the frame is the size of the screen")
    precondition(canvas.width <= InputLimits.maxScreenSide && canvas.height <= InputLimits.maxScreenSide)
    _ = Snapshot.lines(of: canvas)
    // Stopped as a benchmark run is, and the scheduler emptied: work still queued holds the
    // engine, which would otherwise outlive the run.
    engine.stop()
    steps = 0
    while steps < 100_000, scheduler.runNext() { steps += 1 }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: min(count, 4096)))
    MainActor.assumeIsolated { run(bytes) }
    return 0
}
