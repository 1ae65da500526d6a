import Foundation
import Testing
import StoriesTestSupport

/// Issue 31, point 5: `stories doctor` as a person runs it — in tmux (which answers the
/// probe itself and passes no pictures through unless allowed), and with no terminal at all.
@Suite(.serialized, .ownThread) struct DoctorEndToEndTests {
    /// In plain tmux: cells, because tmux passes no pictures through, with how to allow
    /// it; tmux's own answers read (it answers DA1 and XTVERSION); every line printable.
    @Test func inPlainTmuxItSaysCellsAndHowToAllowPassthrough() throws {
        let binary = try Binary.requireBuilt()
        let tmux = try Tmux(width: 140, height: 40)
        try tmux.type("\(binary) doctor; echo DOCTOR-DONE")
        _ = try tmux.waitFor("doctor's report") { $0.contains("DOCTOR-DONE") } // the echo's own line, not the command's
        let screen = try tmux.screen().joined(separator: "\n")
        #expect(screen.contains("pictures    cells: inside tmux"), "\(screen)")
        #expect(screen.contains("allow-passthrough off"))
        #expect(screen.contains("tmux set -g allow-passthrough on"))
        #expect(screen.contains("asked       every answer in"), "tmux answers DA1: \(screen)")
        #expect(screen.contains("tmux 3"), "its XTVERSION or `tmux -V`")
        #expect(screen.contains("locale"))
    }

    /// With no terminal (as in CI): nothing asked, said plainly, and the rest from the
    /// environment; exit 0.
    @Test func withNoTerminalItSaysSoAndStillReports() throws {
        let (status, out, err) = try Binary.run(["doctor"], environment: ["TERM": "xterm-256color", "COLORTERM": "", "TMUX": "", "NO_COLOR": "",
                                                            "TERM_PROGRAM": "", "LC_TERMINAL": "",
                                                            "PULSE_SERVER": "unix:/nonexistent/native"])
        #expect(status == 0, "\(err)")
        #expect(out.contains("sound       none: no sound server (PulseAudio or PipeWire)"), "\(out)")
        #expect(out.contains("Not a terminal"))
        #expect(out.contains("pictures    cells: not a terminal"), "\(out)")
        #expect(out.contains("colours     256 (TERM's terminfo entry; the terminal did not say it shows more)"), "\(out)")
        #expect(!out.contains("asked "), "nothing was asked, so no timing")
    }

    /// `print --graphics sixel`: a sixel picture sized as its cells would be (10×20 pixels
    /// a cell with no terminal to say), the whole photo for `fit`; any other kind refused
    /// with one clear line.
    @Test func printWritesSixelsWhenAsked() throws {
        let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/demo/media/chelsea.jpg").path
        let fill = try Binary.run(["print", photo, "--graphics", "sixel", "--size", "20x10", "--fit", "fill"])
        #expect(fill.status == 0)
        #expect(fill.out.hasPrefix("\u{1B}P0;1;0q\"1;1;200;200#0;2;"), "\(fill.out.prefix(40).debugDescription)")
        #expect(fill.out.hasSuffix("\u{1B}\\\n"))
        let fit = try Binary.run(["print", photo, "--graphics", "sixel", "--size", "40x10"])
        #expect(fit.status == 0 && fit.out.hasPrefix("\u{1B}P0;1;0q\"1;1;"))
        // kitty: sent and shown in one command, sized in cells (200×100 pixels: 20×5 cells of 10×20).
        let kitty = try Binary.run(["print", photo, "--graphics", "kitty", "--size", "20x10", "--fit", "fill"])
        // No id: it replaces no picture an earlier print left on screen.
        #expect(kitty.status == 0 && kitty.out.hasPrefix("\u{1B}_Ga=T,c=20,r=10,f=100,t=d,q=2,m=1;iVBORw0KGgo"), "\(kitty.out.prefix(60).debugDescription)")
        let iterm = try Binary.run(["print", photo, "--graphics", "iterm", "--size", "20x10", "--fit", "fill"])
        #expect(iterm.status == 0 && iterm.out.hasPrefix("\u{1B}]1337;File=inline=1;size="), "\(iterm.out.prefix(60).debugDescription)")
        #expect(iterm.out.contains(";width=20;height=10;preserveAspectRatio=0:iVBORw0KGgo") && iterm.out.hasSuffix("\u{07}\n"))
        let bad = try Binary.run(["print", photo, "--graphics", "png\u{1B}[2J"])
        #expect(bad.status != 0 && bad.err.contains("--graphics takes kitty, sixel, iterm, cells; got 'png'"), "\(bad.err)")
    }
}

