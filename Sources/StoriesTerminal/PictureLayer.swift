import Foundation
import StoriesCells
import StoriesCore
import StoriesMedia
import StoriesUI

/// Real pixels beside ncurses (issue 31, points 2 and 3). ncurses keeps text, input and its
/// idea of every cell, the picture's own cells included; this layer writes the pictures a
/// frame asks for (`Canvas.pictures`) over those cells, and knows which rectangles it holds:
///
/// - **Before ncurses draws** (`prepare`), a picture that goes (and is not replaced by one
///   at the same place) has its rows given back: for sixel and iTerm2 the terminal's pixels
///   lie in its cells, so ncurses is told those lines are spoilt and writes every cell of
///   them again (a cell written over a picture shows the cell); kitty's pictures lie on a
///   layer of their own, so their placement is deleted.
/// - **While a picture stays at its place**, even as its picture changes (a video's
///   frames), ncurses is not given the cells beneath (`CursesScreen` keeps them as they
///   were): they would only be written over.
/// - **After** (`finish`), a picture that is new, moved, changed, or whose cells ncurses
///   just wrote (a full redraw: Ctrl-L, a resize, coming back from Ctrl-Z) is written: kitty
///   places the picture it sent once (sending it first if it has not), sixel and iTerm2
///   write their stream, encoded once a region and kept while it is on screen.
///
/// A video's frames are written as they come, each over the last: the write blocks until
/// the terminal has read all but what its pseudo-terminal buffers (a few kilobytes), so
/// never more than one frame is queued to it (through kitty's shared memory, at most
/// `sharedInFlight` objects the terminal has not read yet), and a frame the player would show late is
/// dropped before it is made. Frames that take longer to make and write than a frame
/// lasts say the terminal cannot keep up (`keepsUp`); the app then shows moving pictures
/// in cells.
///
/// The cursor is saved and restored around everything written here, so ncurses' idea of
/// where it is stays true. `clear` takes every picture off (quitting, Ctrl-Z).
/// Main-actor only, like ncurses.
@MainActor
final class PictureLayer {
    let graphics: GraphicsProtocol
    /// kitty: pictures shown through Unicode placeholders (kitty ≥ 0.28, Ghostty) — text in
    /// the cells, given back to ncurses like sixel's — rather than placement commands.
    let placeholders: Bool
    /// kitty inside tmux: every command wrapped for tmux's passthrough, to the terminal
    /// outside; always through placeholders (tmux keeps them as text and draws them again),
    /// their ids colours of the 256 (16…255, which tmux passes on unchanged).
    let throughTmux: Bool
    /// kitty on this machine: pictures' pixels go through shared memory (`t=s`), not as PNG
    /// in the escape sequence (`KittySharedMemory`).
    let sharedMemory: Bool
    /// The next shared-memory object's number (from a random start: a new layer's names
    /// never meet an old layer's command still in flight), and the objects written that the
    /// terminal has not read yet (it unlinks each once read). At most `sharedInFlight` wait:
    /// past that the terminal is behind, and pictures go as PNG, whose blocking write holds
    /// the player back as before. What is unread when the pictures go (quitting, a terminal
    /// closed under the app) is removed here, never left in /dev/shm.
    private var sharedSerial = Int.random(in: 0..<(1 << 40))
    private var sharedNames: [String] = []
    static let sharedInFlight = 4
    /// What is on screen now.
    private(set) var shown: [Canvas.PictureRegion] = []
    /// kitty: the pictures the terminal holds, oldest first, with their ids and sizes.
    private var sent: [(picture: PixelPicture, id: UInt32, bytes: Int)] = []
    private var nextID: UInt32 = 1
    /// sixel and iTerm2: each region's stream, while it is on screen.
    private var streams: [(region: Canvas.PictureRegion, bytes: [UInt8])] = []
    /// sixel: the palette of the last picture sent to each place on screen, tried first for
    /// the next one there from the same source (a video's frames), while one is shown there.
    private var sixelPalettes: [Rect: (source: String, palette: SixelPalette)] = [:]
    /// How long the last replacing frames took to make and write, seconds (the latest few).
    private var frameCosts: [Double] = []

    /// How much kitty is asked to hold: a few pictures (the one shown and the ones just
    /// left, for going back), well inside its 320 MB quota.
    static let kittyBudget = 96 << 20
    static let kittyPictures = 6
    /// The mean cost of the latest frames over this (a frame at 24 fps), and moving
    /// pictures are better in cells.
    static let costBeforeGivingUp = 1.0 / 24
    static let costsKept = 12

    init(graphics: GraphicsProtocol, placeholders: Bool = false, throughTmux: Bool = false, sharedMemory: Bool = false) {
        self.graphics = graphics
        self.throughTmux = throughTmux && graphics == .kitty
        self.sharedMemory = sharedMemory && graphics == .kitty && !throughTmux
        self.placeholders = (placeholders || throughTmux) && graphics == .kitty
        // Through tmux the terminal outside is shared with every pane: the ids start at a
        // place of their own, so two viewers in two panes seldom name the same picture.
        if self.throughTmux { nextID = UInt32.random(in: Self.tmuxIDs) }
    }

    /// The ids used through tmux: 16…255 (below 16 tmux may write the colour as one of
    /// the 16 named ones).
    static let tmuxIDs: ClosedRange<UInt32> = 16...255

    /// Whether moving pictures in pixels reach the terminal in time.
    var keepsUp: Bool {
        guard frameCosts.count >= Self.costsKept else { return true }
        return frameCosts.reduce(0, +) / Double(frameCosts.count) <= Self.costBeforeGivingUp
    }

    /// kitty's placement id for a region: its place on screen, so the placement a region
    /// made is the one taken off, whatever else came and went in between.
    static func placement(_ region: Canvas.PictureRegion) -> UInt32 {
        UInt32(clamping: max(0, region.rect.y) * 4096 + max(0, region.rect.x) % 4096 + 1)
    }

    /// Whether `region` takes the place of a picture on screen (the same rectangle).
    func replaces(_ region: Canvas.PictureRegion) -> Bool { shown.contains { $0.rect == region.rect } }

    /// Before ncurses draws `next`: the screen rows whose cells must all be written again
    /// (sixel, iTerm2), and what to write first (kitty's deletions).
    func prepare(next: [Canvas.PictureRegion], height: Int) -> (rows: [Range<Int>], output: [UInt8]) {
        guard graphics.showsPixels else { return ([], []) }
        var rows: [Range<Int>] = []
        var output: [UInt8] = []
        for region in shown where !next.contains(where: { $0.rect == region.rect }) {
            switch graphics {
            case .kitty where !usesPlaceholders(region):
                if let id = id(of: region.picture) { output += forTerminal(KittyGraphics.remove(id: id, placement: Self.placement(region))) }
            case .sixel, .iterm, .kitty:
                // Pixels (or placeholders) in the cells: ncurses writes every cell again.
                let low = max(0, region.rect.y), high = min(height, region.rect.maxY)
                if low < high { rows.append(low..<high) }
            case .cells:
                break
            }
        }
        return (rows, output)
    }

    /// After ncurses drew `next` (`redrawnRows`: rows it wrote cells in; `full`: every
    /// cell): what to write for the pictures.
    func finish(next: [Canvas.PictureRegion], redrawnRows: Set<Int>, full: Bool, width: Int, height: Int) -> [UInt8] {
        guard graphics.showsPixels else { shown = []; return [] }
        // A full redraw cleared the screen (ED 2), and kitty frees every picture a clear
        // leaves without a placement: whatever it held is sent again.
        if full, graphics == .kitty { sent.removeAll() }
        let clock = ContinuousClock()
        let started = clock.now
        var output: [UInt8] = []
        var nowShown: [Canvas.PictureRegion] = []
        var replaced = false
        for region in next {
            let rect = region.rect
            guard rect.x >= 0, rect.y >= 0, rect.maxX <= width, rect.maxY <= height, rect.width > 0, rect.height > 0 else { continue }
            let before = shown.first { $0.rect == rect }
            let isNew = before != region
            let spoilt = full || (rect.y..<rect.maxY).contains { redrawnRows.contains($0) }
            // A video's next frame where the last is: its cost is measured.
            // Through tmux, a picture larger than placeholders can number stays cells (a
            // placement would be wiped by tmux's next redraw).
            if throughTmux, !usesPlaceholders(region) { continue }
            if let before, isNew, !spoilt, before.source == region.source, !region.source.isEmpty { replaced = true }
            nowShown.append(region)
            switch graphics {
            case .kitty where usesPlaceholders(region):
                guard isNew || spoilt else { continue }
                let (id, sending) = send(region.picture, into: &output)
                guard id != 0 else { continue }
                output += sending
                for row in 0..<rect.height {
                    output += Self.cursor(x: rect.x, y: rect.y + row)
                        + KittyPlaceholders.cells(id: id, row: region.sourceRow + row, columns: 0..<rect.width, indexed: throughTmux)
                }
            case .kitty:
                guard isNew || full else { continue }
                let placed = place(region, placement: Self.placement(region), into: &output)
                output += placed
                // The frame it replaces: its placement off, now the new one covers it.
                if let before, before.picture !== region.picture, let id = id(of: before.picture) {
                    output += KittyGraphics.remove(id: id, placement: Self.placement(before))
                }
            case .sixel, .iterm:
                guard isNew || spoilt else { continue }
                output += Self.cursor(x: rect.x, y: rect.y) + stream(for: region)
            case .cells:
                break
            }
        }
        shown = nowShown
        // Streams of regions no longer shown are let go.
        streams.removeAll { entry in !nowShown.contains(entry.region) }
        sixelPalettes = sixelPalettes.filter { rect, _ in nowShown.contains { $0.rect == rect } }
        measuring = replaced
        if replaced {
            frameCosts.append((clock.now - started).seconds)
            if frameCosts.count > Self.costsKept { frameCosts.removeFirst() }
        }
        guard !output.isEmpty else { return [] }
        // The cursor as ncurses left it, and its attributes.
        return Array("\u{1B}7".utf8) + output + Array("\u{1B}8".utf8)
    }

    /// Counts the time the terminal took to be written to (after `finish`'s bytes went out)
    /// into the cost of the video frame `finish` just measured (a still's write is not one).
    func addWriteTime(_ seconds: Double) {
        guard measuring, !frameCosts.isEmpty else { return }
        frameCosts[frameCosts.count - 1] += seconds
    }

    /// Whether the last `finish` wrote a video's next frame.
    private var measuring = false

    /// Takes every picture off the screen and has kitty forget them (quitting; Ctrl-Z, after
    /// which the screen is drawn again whole and they are sent again).
    func clear() -> [UInt8] {
        defer { shown = []; sent.removeAll() }
        for name in sharedNames { KittySharedMemory.remove(name) }
        sharedNames.removeAll()
        guard graphics == .kitty else { return [] }
        return forTerminal(sent.flatMap { KittyGraphics.delete(id: $0.id) })
    }

    /// The kitty ids in use (tests).
    var sentIDs: [UInt32] { sent.map(\.id) }

    // MARK: - kitty

    private func id(of picture: PixelPicture) -> UInt32? { sent.first { $0.picture === picture }?.id }

    /// Whether `region` is shown through placeholders: where the terminal draws them and a
    /// mark numbers each of the picture's rows and columns.
    private func usesPlaceholders(_ region: Canvas.PictureRegion) -> Bool {
        placeholders && region.picture.columns <= KittyPlaceholders.marks.count && region.picture.rows <= KittyPlaceholders.marks.count
    }

    /// The id the terminal holds `picture` under, and what sends it first when it does not
    /// (deleting the oldest it holds beyond the budget into `output`). With placeholders,
    /// its virtual placement over all its cells goes with it.
    private func send(_ picture: PixelPicture, into output: inout [UInt8]) -> (id: UInt32, bytes: [UInt8]) {
        if let index = sent.firstIndex(where: { $0.picture === picture }) {
            let id = sent[index].id
            sent.append(sent.remove(at: index)) // the most recently used last
            return (id, [])
        }
        // Ids below 2^24: a placeholder's colour names its picture in 24 bits (through
        // tmux, in 8).
        let id = nextID
        if throughTmux {
            nextID = nextID >= Self.tmuxIDs.upperBound ? Self.tmuxIDs.lowerBound : nextID + 1
        } else {
            nextID = nextID >= (1 << 24) - 1 ? 1 : nextID + 1
        }
        var bytes: [UInt8]
        if sharedMemory { sharedNames.removeAll { !KittySharedMemory.exists($0) } }
        let sharedName = KittySharedMemory.name(sharedSerial)
        if sharedMemory, sharedNames.count < Self.sharedInFlight,
           let shared = KittySharedMemory.transmit(picture.image, id: id, name: sharedName) {
            sharedNames.append(sharedName)
            sharedSerial += 1
            bytes = shared
        } else if let png = ImageEncoder.png(picture.image, fast: true) {
            bytes = KittyGraphics.transmit(png: png, id: id)
        } else {
            return (0, [])
        }
        if placeholders { bytes += KittyPlaceholders.place(id: id, columns: picture.columns, rows: picture.rows) }
        bytes = forTerminal(bytes)
        sent.append((picture, id, picture.image.byteCount))
        // Beyond the budget: the oldest go, never one on screen.
        while sent.count > Self.kittyPictures || sent.reduce(0, { $0 + $1.bytes }) > Self.kittyBudget,
              let oldest = sent.firstIndex(where: { entry in !shown.contains { $0.picture === entry.picture } && entry.id != id }) {
            output += forTerminal(KittyGraphics.delete(id: sent[oldest].id))
            sent.remove(at: oldest)
        }
        return (id, bytes)
    }

    /// Places `region` (sending its picture first when the terminal does not hold it).
    private func place(_ region: Canvas.PictureRegion, placement: UInt32, into output: inout [UInt8]) -> [UInt8] {
        let picture = region.picture
        let (id, bytes) = send(picture, into: &output)
        guard id != 0 else { return [] }
        let top = min(max(0, region.sourceRow) * picture.cellHeight, picture.image.height)
        let pixelRows = top..<min(picture.image.height, top + region.rect.height * picture.cellHeight)
        guard !pixelRows.isEmpty else { return bytes } // rows the picture does not have (h=0 is "all" to kitty)
        return bytes + Self.cursor(x: region.rect.x, y: region.rect.y)
            + KittyGraphics.place(id: id, placement: placement, width: min(picture.image.width, region.rect.width * picture.cellWidth),
                                  rows: pixelRows, columns: region.rect.width, cellRows: region.rect.height)
    }

    /// kitty's commands as the terminal is to get them: wrapped for tmux's passthrough when
    /// inside it.
    private func forTerminal(_ commands: [UInt8]) -> [UInt8] {
        throughTmux ? TmuxPassthrough.wrap(commands) : commands
    }

    // MARK: - sixel and iTerm2

    private func stream(for region: Canvas.PictureRegion) -> [UInt8] {
        if let kept = streams.first(where: { $0.region == region }) { return kept.bytes }
        let picture = region.picture
        let top = region.sourceRow * picture.cellHeight
        var image = picture.image.rows(top..<(top + region.rect.height * picture.cellHeight))
        let width = region.rect.width * picture.cellWidth
        if image.width > width { image = image.columns(0..<width) }
        // Another picture gets a palette of its own; the next frame of the same video (or the
        // same photo drawn again) tries the last one.
        var palette = sixelPalettes[region.rect].flatMap { !region.source.isEmpty && $0.source == region.source ? $0.palette : nil }
        let bytes = PictureEncoding.bytes(image, as: graphics, columns: region.rect.width, rows: region.rect.height, sixelPalette: &palette)
        sixelPalettes[region.rect] = palette.map { (region.source, $0) }
        streams.append((region, bytes))
        return bytes
    }

    /// Moves the cursor to cell (x, y), counted from 0.
    static func cursor(x: Int, y: Int) -> [UInt8] {
        Array("\u{1B}[\(y + 1);\(x + 1)H".utf8)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
