import Foundation
import StoriesCells
import StoriesCore
import Testing
@testable import StoriesTerminal
import StoriesTestSupport

/// Issue 31, point 1: the probe's one burst of queries, its answers read in any pieces and
/// from hostile terminals, and a terminal that answers nothing costing 100 ms and no more.
@Suite(.ownThread) struct TerminalProbeTests {
    static let kitty = "\u{1B}_Gi=31;OK\u{1B}\\" + "\u{1B}P>|kitty(0.26.5)\u{1B}\\" + "\u{1B}[6;20;10t"
        + "\u{1B}]11;rgb:0000/0000/0000\u{1B}\\" + "\u{1B}[?1006;2$y" + "\u{1B}[?1004;2$y" + "\u{1B}[?62;c"
    static let vt340 = "\u{1B}P>|XTerm(379)\u{1B}\\" + "\u{1B}[?2;0;1000;1000S" + "\u{1B}]11;rgb:ffff/ffff/ffff\u{07}"
        + "\u{1B}[?1006;1$y" + "\u{1B}[?63;1;2;4;6;9;15;16;17;18;21;22;28c"

    /// kitty's answers and xterm `-ti vt340`'s, fed a byte at a time (a terminal's answer
    /// comes in pieces), each read for what it says.
    @Test func answersAreReadInAnyPieces() throws {
        var kitty = ProbeReplies()
        for byte in Self.kitty.utf8 { kitty.feed([byte]) }
        #expect(kitty.kittyGraphics == true)
        #expect(kitty.version == "kitty(0.26.5)")
        #expect(kitty.cellPixels?.width == 10 && kitty.cellPixels?.height == 20)
        #expect(kitty.background == "11;rgb:0000/0000/0000")
        #expect(kitty.modes == [1006: 2, 1004: 2])
        #expect(kitty.attributes == [62, 0] && kitty.sawDA1)
        #expect(kitty.typed.isEmpty)
        #expect(GraphicsProtocol.detect(ProbeResult(asked: true, replies: kitty), environment: [:], tmux: nil).protocol == .kitty)

        var xterm = ProbeReplies()
        xterm.feed(Array(Self.vt340.utf8))
        #expect(xterm.kittyGraphics == nil, "no answer: the protocol is not known")
        #expect(xterm.version == "XTerm(379)")
        #expect(xterm.sixelGeometry?.width == 1000 && xterm.sixelGeometry?.height == 1000)
        #expect(xterm.background == "11;rgb:ffff/ffff/ffff", "ended by BEL as well as ST")
        #expect(xterm.attributes?.contains(4) == true)
        let sixel = GraphicsProtocol.detect(ProbeResult(asked: true, replies: xterm), environment: [:], tmux: nil)
        #expect(sixel.protocol == .sixel && sixel.reason.contains("DA1"))
    }

    /// The viewer's first frame waits for the answers only where it cannot be drawn without
    /// them (no terminfo entry for TERM: the stand-in needs DA1's answer).
    @Test func theFirstFrameWaitsOnlyWhereTheEntryNeedsTheAnswers() {
        #expect(TerminalProbe.window(environment: ["TERM": "xterm"], exists: { $0 == "xterm" }) == TerminalProbe.firstFrameWait)
        #expect(TerminalProbe.window(environment: ["TERM": "xterm-ghostty"], exists: { $0 == "xterm" }) == TerminalProbe.timeout)
        #expect(TerminalProbe.window(environment: [:], exists: { _ in false }) == TerminalProbe.timeout)
        #expect(TerminalProbe.firstFrameWait < .milliseconds(10) && TerminalProbe.timeout == .milliseconds(100))
    }

    /// What decides the protocol: iTerm2 inline images are known by the environment; a
    /// terminal that answers nothing, or no terminal, gets cells with the reason; kitty of
    /// 0.28 or later is placed through placeholders (tmux: `inTmuxThePicturesTmuxKeeps`).
    @Test func theProtocolAndWhy() {
        var kitty = ProbeReplies()
        kitty.feed(Array(Self.kitty.utf8))
        #expect(GraphicsProtocol.detect(ProbeResult(asked: true, replies: kitty), environment: [:], tmux: nil).placeholders == false,
                "kitty 0.26.5: placement commands")
        var newer = ProbeReplies()
        newer.feed(Array(Self.kitty.replacingOccurrences(of: "0.26.5", with: "0.28.1").utf8))
        let placed = GraphicsProtocol.detect(ProbeResult(asked: true, replies: newer), environment: [:], tmux: nil)
        #expect(placed.protocol == .kitty && placed.placeholders && !placed.throughTmux)
        var da1Only = ProbeReplies()
        da1Only.feed(Array("\u{1B}[?62;22c".utf8))
        let plain = ProbeResult(asked: true, replies: da1Only)
        #expect(GraphicsProtocol.detect(plain, environment: ["TERM_PROGRAM": "iTerm.app"], tmux: nil).protocol == .iterm)
        #expect(GraphicsProtocol.detect(plain, environment: ["TERM_PROGRAM": "WezTerm"], tmux: nil).protocol == .iterm)
        #expect(GraphicsProtocol.detect(plain, environment: [:], tmux: nil).protocol == .cells)
        let silent = GraphicsProtocol.detect(ProbeResult(asked: true), environment: [:], tmux: nil)
        #expect(silent.protocol == .cells && silent.reason.contains("nothing"))
        #expect(GraphicsProtocol.detect(ProbeResult(asked: false), environment: [:], tmux: nil).reason.contains("not a terminal"))
    }

    /// Inside tmux the answers are tmux's own; the terminal outside is what tmux says it is.
    /// Pictures only where tmux keeps them: kitty's placeholders passed through to kitty
    /// 0.28 or Ghostty when tmux allows it, sixel where tmux draws sixel itself; else cells,
    /// each with why — and what tmux says is never taken for the probe's answers.
    @Test func inTmuxThePicturesTmuxKeeps() {
        var tmuxAnswers = ProbeReplies()
        tmuxAnswers.feed(Array("\u{1B}P>|tmux 3.3a\u{1B}\\\u{1B}[?1;2c".utf8))
        let asked = ProbeResult(asked: true, replies: tmuxAnswers)
        let inside = ["TMUX": "/tmp/tmux-0/default,1,0"]
        func kitty(_ version: String, passthrough: Bool?, name: String = "xterm-kitty") -> TmuxClient {
            TmuxClient(version: "3.3a", passthrough: passthrough, terminalName: name, terminalType: version, features: ["RGB", "focus"])
        }
        let through = GraphicsProtocol.detect(asked, environment: inside, tmux: kitty("kitty(0.28.1)", passthrough: true))
        #expect(through.protocol == .kitty && through.placeholders && through.throughTmux, "\(through)")
        #expect(through.reason.contains("kitty(0.28.1)"))
        let ghostty = GraphicsProtocol.detect(asked, environment: inside, tmux: kitty("ghostty 1.1.3", passthrough: true, name: "xterm-ghostty"))
        #expect(ghostty.protocol == .kitty && ghostty.throughTmux)
        let off = GraphicsProtocol.detect(asked, environment: inside, tmux: kitty("kitty(0.28.1)", passthrough: false))
        #expect(off.protocol == .cells && off.reason.contains("allow-passthrough is off"), "\(off.reason)")
        let old = GraphicsProtocol.detect(asked, environment: inside, tmux: kitty("kitty(0.26.5)", passthrough: true))
        #expect(old.protocol == .cells && old.reason.contains("0.28"), "placement commands would be wiped by tmux: \(old.reason)")
        let unsaid = GraphicsProtocol.detect(asked, environment: inside, tmux: kitty("", passthrough: true, name: "xterm-256color"))
        #expect(unsaid.protocol == .cells && unsaid.reason.contains("TERM=xterm-256color"), "\(unsaid.reason)")
        #expect(GraphicsProtocol.detect(asked, environment: inside, tmux: kitty("kitty(0.28.1)", passthrough: nil)).reason.contains("did not say"))
        #expect(GraphicsProtocol.detect(asked, environment: inside, tmux: nil).reason.contains("did not say"))
        // A kitty answer reaching the pane (tmux does not pass answers on) is not trusted:
        // inside tmux only tmux's word counts.
        var kitty = ProbeReplies()
        kitty.feed(Array(Self.kitty.utf8))
        #expect(GraphicsProtocol.detect(ProbeResult(asked: true, replies: kitty), environment: inside, tmux: nil).protocol == .cells)
        // tmux built with sixel lists 4 in its own DA1 answer; only for a sixel terminal.
        var sixelTmux = ProbeReplies()
        sixelTmux.feed(Array("\u{1B}[?1;2;4c".utf8))
        let foot = TmuxClient(version: "3.5a", passthrough: false, terminalName: "foot", terminalType: "foot(1.16.2)", features: ["RGB", "sixel"])
        let sixel = GraphicsProtocol.detect(ProbeResult(asked: true, replies: sixelTmux), environment: inside, tmux: foot)
        #expect(sixel.protocol == .sixel && !sixel.throughTmux, "\(sixel)")
        var noSixel = foot
        noSixel.features = ["RGB"]
        #expect(GraphicsProtocol.detect(ProbeResult(asked: true, replies: sixelTmux), environment: inside, tmux: noSixel).protocol == .cells)
        // Said outright: kitty inside tmux goes through the passthrough as placeholders.
        let said = GraphicsFacts(asked, environment: inside, tmux: nil, said: .kitty).decided
        #expect(said.throughTmux && said.placeholders)
        #expect(!GraphicsFacts(asked, environment: inside, tmux: nil, said: .sixel).decided.throughTmux)
    }

    /// tmux's line, as `TmuxClient.ask` has it printed: fields apart by tabs; anything
    /// else refused; every field printable and short, whatever the terminal outside said.
    @Test func whatTmuxSaysIsReadAndCleaned() throws {
        let line = "3.3a\t1\txterm-kitty\tkitty(0.28.1)\tbpaste,ccolour,RGB,sixel\n"
        let client = try #require(TmuxClient.parse(line))
        #expect(client == TmuxClient(version: "3.3a", passthrough: true, terminalName: "xterm-kitty", terminalType: "kitty(0.28.1)",
                                     features: ["bpaste", "ccolour", "RGB", "sixel"]))
        #expect(TmuxClient.parse("3.4\ton\t\t\t")?.passthrough == true, "no client attached: the fields are empty")
        #expect(TmuxClient.parse("3.4\tall\tx\ty\tz")?.passthrough == true)
        #expect(TmuxClient.parse("3.3a\t0\tx\ty\tz")?.passthrough == false)
        #expect(TmuxClient.parse("3.2\t\tx\ty\tz")?.passthrough == nil, "an older tmux leaves the option empty")
        #expect(TmuxClient.parse("") == nil)
        #expect(TmuxClient.parse("3.3a\t1\tx") == nil, "too few fields")
        #expect(TmuxClient.parse("usage: display-message [-aINpv]") == nil)
        let hostile = try #require(TmuxClient.parse("3.3a\t1\txterm\u{1B}[2J\tkitty(0.28.1)\u{1B}]52;c;AAAA\u{07}" + String(repeating: "x", count: 500) + "\tRGB"))
        #expect(!hostile.terminalName.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        #expect(!hostile.terminalType.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } && hostile.terminalType.count <= 60)
        #expect(TmuxClient.ask(environment: [:]) == nil, "outside tmux nothing is run")
    }

    /// A hostile terminal: keys typed between answers are keys, not answers; an answer
    /// with escapes and control characters in it is printed clean; numbers out of range are
    /// bounded or refused; a sequence too long to be an answer is dropped and what follows
    /// read afresh; no more than `maxBytes` are ever read; an error from the kitty query
    /// says the protocol is known but refused.
    @Test func aHostileTerminalGetsNowhere() {
        var replies = ProbeReplies()
        replies.feed(Array("q\u{1B}P>|evil\u{07}\u{9B}31m name\u{1B}\\j".utf8))
        #expect(replies.typed == Array("qj".utf8))
        #expect(replies.version?.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value) } == true)
        replies.feed(Array("\u{1B}[6;-5;99999999999t\u{1B}[?2;0;0;0S".utf8))
        #expect(replies.cellPixels == nil, "a negative height is refused")
        #expect(replies.sixelGeometry == nil, "a 0×0 sixel size is refused")
        replies.feed(Array("\u{1B}[6;999999999999999;3t".utf8))
        #expect(replies.cellPixels?.height == 100_000 && replies.cellPixels?.width == 3, "bounded before use")
        replies.feed(Array(("\u{1B}P>|" + String(repeating: "B", count: 200) + "\u{1B}\\").utf8))
        #expect(replies.version?.count == 80, "a long version is cut to a line")
        replies.feed(Array(("\u{1B}P>|" + String(repeating: "A", count: 5000) + "\u{07}").utf8))
        replies.feed(Array("\u{1B}]11;rgb:1/2/3\u{1B}\\".utf8))
        #expect(replies.background == "11;rgb:1/2/3", "read afresh after the overlong one was dropped")
        #expect(replies.typed == Array("qj".utf8), "the dropped one's rest is not taken for keys")
        #expect(replies.version?.hasPrefix("B") == true, "the overlong version is not an answer")
        // An ESC that breaks a sequence starts the next: Esc pressed just before DA1's
        // answer, a CSI cut short, an APC never ended.
        var broken = ProbeReplies()
        broken.feed(Array("\u{1B}\u{1B}[?62;4c".utf8))
        #expect(broken.attributes == [62, 4])
        var cut = ProbeReplies()
        cut.feed(Array("\u{1B}[1;\u{1B}[?63c".utf8))
        #expect(cut.attributes == [63] && cut.typed.isEmpty)
        var unended = ProbeReplies()
        unended.feed(Array("\u{1B}_Gi=31;OK\u{1B}[?64;4c".utf8))
        #expect(unended.attributes == [64, 4] && unended.kittyGraphics == nil)
        replies.feed(Array("\u{1B}_Gi=31;ENOTSUPPORTED:no\u{1B}\\".utf8))
        #expect(replies.kittyGraphics == false)
        replies.feed(Array("\u{1B}_Gi=7;OK\u{1B}\\".utf8))
        #expect(replies.kittyGraphics == false, "another picture's answer is not ours")
        var flood = ProbeReplies()
        flood.feed([UInt8](repeating: 0x1B, count: 100_000))
        flood.feed(Array("\u{1B}[?62;4c".utf8))
        #expect(flood.byteCount == ProbeReplies.maxBytes && !flood.sawDA1, "nothing is read past the bound")
    }

    /// Through a real pseudo-terminal: the burst goes out in one piece ending with DA1, the
    /// answers come back in pieces with a pause, and the terminal's modes (echo, lines) are
    /// given back as they were. A terminal that answers nothing costs 100 ms.
    @Test func aPseudoTerminalIsAskedOnceAndGivenBack() throws {
        var master: Int32 = -1, slave: Int32 = -1
        try #require(openpty(&master, &slave, nil, nil, nil) == 0)
        defer { close(master); close(slave) }
        var before = termios()
        tcgetattr(slave, &before)

        let answered = DispatchSemaphore(value: 0)
        let sent = Box()
        let masterFD = master
        Thread.detachNewThread {
            // Read the burst, then answer as kitty would, in two pieces.
            var got: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 512)
            while !got.suffix(3).elementsEqual(Array("\u{1B}[c".utf8)) {
                let n = read(masterFD, &buffer, buffer.count)
                guard n > 0 else { break }
                got += buffer[0..<n]
            }
            sent.bytes = got
            let answer = Array(Self.kitty.utf8)
            _ = write(masterFD, answer, 20)
            Pace.pause(0.01) // the answer in two pieces, as a terminal over a slow line sends it
            _ = write(masterFD, Array(answer[20...]), answer.count - 20)
            answered.signal()
        }
        // A long timeout here: a loaded machine may answer late; what is tested is that
        // DA1's answer ends the wait.
        let result = TerminalProbe.ask(input: slave, output: slave, environment: [:], timeout: .seconds(3))
        _ = answered.wait(timeout: .now() + 2)
        #expect(result.asked && result.replies.sawDA1 && result.replies.kittyGraphics == true)
        #expect(String(decoding: sent.bytes, as: UTF8.self) == TerminalProbe.burst(environment: [:]), "one burst, DA1 last")
        #expect(result.elapsed < .seconds(2) && !result.late, "DA1's answer ends the wait")
        var after = termios()
        tcgetattr(slave, &after)
        #expect(after.c_lflag == before.c_lflag, "echo and line editing as they were")

        // Nobody answers: 100 ms, then cells.
        let clock = ContinuousClock()
        let start = clock.now
        let silent = TerminalProbe.ask(input: slave, output: slave)
        let took = clock.now - start
        #expect(silent.asked && !silent.replies.sawDA1)
        #expect(took >= .milliseconds(95) && took < .milliseconds(250), "\(took): 100 ms, and a loaded machine's wake-up")
        #expect(GraphicsProtocol.detect(silent, environment: [:], tmux: nil).protocol == .cells)
        // A slow terminal (ssh): answers after the timeout are read while lingering, and
        // said to be late, rather than left for the shell.
        Thread.detachNewThread {
            Fault.late(0.2)
            _ = write(masterFD, Array("\u{1B}[?62c".utf8), 6)
        }
        let slow = TerminalProbe.ask(input: slave, output: slave, linger: .seconds(3))
        #expect(slow.replies.sawDA1 && slow.late, "\(slow.elapsed)")
        // Not a terminal: nothing asked, nothing waited for.
        let pipeEnds = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        defer { pipeEnds.deallocate() }
        try #require(pipe(pipeEnds) == 0)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }
        #expect(!TerminalProbe.ask(input: pipeEnds[0], output: pipeEnds[1]).asked)
    }
}

/// Bytes handed from the answering thread. `@unchecked Sendable`: written before
/// `answered` is signalled and read after the wait for it.
private final class Box: @unchecked Sendable {
    var bytes: [UInt8] = []
}
