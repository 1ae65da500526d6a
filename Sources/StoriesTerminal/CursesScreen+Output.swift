import CNcursesw
import CStoriesSupport
import Foundation
import StoriesCells
import StoriesCore
import StoriesUI

/// What the screen writes beside ncurses: raw sequences, pictures in real pixels, the
/// text order VTE is told to keep, and the cursor on the focus.
extension CursesScreen {
    func writeRaw(_ text: String) {
        writeRaw(Array(text.utf8))
    }

    /// Writes all of `bytes` (a picture is larger than one write takes), past interruptions
    /// (ncurses has flushed its own output by the end of `doupdate`).
    func writeRaw(_ bytes: [UInt8]) {
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBufferPointer { write(outputFD, $0.baseAddress, $0.count) }
            if n > 0 {
                written += n
            } else if n < 0, errno == EINTR {
                continue
            } else if n < 0, errno == EAGAIN {
                // Non-blocking output (someone else's setting): wait until it takes more, as a
                // blocking write would (giving up mid-picture would leave the terminal inside
                // an escape string).
                var ready = pollfd(fd: outputFD, events: Int16(POLLOUT), revents: 0)
                if poll(&ready, 1, -1) < 0, errno != EINTR { return }
            } else {
                return
            }
        }
    }

    /// Shows `Canvas.pictures` through `graphics` from the next frame on (what the probe
    /// found, or what `--graphics` says).
    /// `placeholders`: kitty's Unicode placeholders rather than placement commands (kitty ≥
    /// 0.28, Ghostty). `throughTmux`: kitty's commands wrapped for tmux's passthrough.
    public func showPictures(_ choice: GraphicsChoice) {
        showPictures(choice.protocol, placeholders: choice.placeholders, throughTmux: choice.throughTmux, sharedMemory: choice.sharedMemory)
    }

    public func showPictures(_ graphics: GraphicsProtocol, placeholders: Bool = false, throughTmux: Bool = false, sharedMemory: Bool = false) {
        guard graphics != pictures.graphics || placeholders != pictures.placeholders || throughTmux != pictures.throughTmux
                || sharedMemory != pictures.sharedMemory else { return }
        let cleared = pictures.clear()
        if !cleared.isEmpty { writeRaw(cleared) }
        pictures = PictureLayer(graphics: graphics, placeholders: placeholders, throughTmux: throughTmux, sharedMemory: sharedMemory)
        stories_restore_deletes_kitty_pictures(deletesOnCrash ? 1 : 0)
        previous = nil
    }

    /// Whether a crash writes kitty's delete-all: for kitty's own pictures, not through
    /// tmux — there it would delete every pane's pictures in the terminal outside, and
    /// ours are text that goes with tmux's alternate screen.
    var deletesOnCrash: Bool { pictures.graphics == .kitty && !pictures.throughTmux }

    public func keepTextOrder() {
        guard !isRestored else { return }
        keepsTextOrder = true
        writeRaw("\u{1B}[8l")
    }

    /// Shows the cursor and puts it on the focus from the next frame on.
    public func showFocus() {
        guard !isRestored else { return }
        showsFocus = true
        leaveok(stories_stdscr(), false)
        curs_set(1)
    }

    /// Moves ncurses' cursor to the frame's focus (before `doupdate`, which puts it there);
    /// a frame without one (a motion) leaves it where it was.
    func placeCursor(_ canvas: Canvas) {
        guard showsFocus else { return }
        if let spot = canvas.cursor, spot.x < canvas.width, spot.y < canvas.height { placedCursor = spot }
        if let spot = placedCursor { wmove(stories_stdscr(), Int32(spot.y), Int32(spot.x)) }
        showCursor(!canvas.isMotion)
    }

    func showCursor(_ shown: Bool) {
        guard shown != cursorShown else { return }
        cursorShown = shown
        curs_set(shown ? 1 : 0)
    }

    /// Whether moving pictures in real pixels reach the terminal in time (false: video
    /// frames are better shown in cells).
    public var picturesKeepUp: Bool { pictures.keepsUp }

    /// The protocol pictures are shown with.
    public var graphics: GraphicsProtocol { pictures.graphics }

    /// A motion's frame, written by itself (issue 31: a cube or zoom frame through ncurses
    /// cost 7 ms at 120×40, nearly all of it `tparm` formatting the changed cells): the
    /// cells that changed since what the terminal shows (`shown`), through the one frame
    /// writer, from the top left. ncurses is not told; when the motion ends its screen is
    /// made whole again (above). False when it cannot be (no colours to write, another size).
    func drawDirectly(_ canvas: Canvas) -> Bool {
        // What the terminal shows (`previous`), taken out of it so that recording the frame
        // changes it in place (a copy of every cell a frame, otherwise).
        guard colorDepth != .none, previous?.width == canvas.width, previous?.height == canvas.height,
              var terminal = previous.take() else { return false }
        let diff = canvas.diff(from: terminal)
        lastDrawnCellCount = diff.changes.count
        // One buffer for the motion's frames (let go when it ends), from the top left.
        motionBytes.removeAll(keepingCapacity: true)
        motionBytes += [0x1B, 0x5B, 0x48] // ESC [ H
        if paletteMemo.depth != colorDepth { paletteMemo = PaletteMemo(depth: colorDepth) }
        FrameWriter.write(diff, of: canvas, shown: &terminal, memo: &paletteMemo, into: &motionBytes)
        let wrote = motionBytes.count > 3
        // The frame writer leaves the cursor top left; in focus mode it goes back on the focus
        // (hidden until the motion ends).
        if showsFocus, wrote, let spot = placedCursor { motionBytes += Array("\u{1B}[\(spot.y + 1);\(spot.x + 1)H".utf8) }
        if showsFocus { showCursor(false) }
        if wrote { writeRaw(motionBytes) }
        previous = terminal
        wroteDirectly = true
        return true
    }
}
