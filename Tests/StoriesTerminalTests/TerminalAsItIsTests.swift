import Foundation
import StoriesCells
import StoriesCore
import Testing
@testable import StoriesTerminal

/// Issue 45: colour depth from what the terminal says, any TERM, and answers that are
/// never keys however slowly they come.
@Suite struct TerminalAsItIsTests {
    /// Every reply form the probe asks for, fed one character a read (a link at 30 ms a
    /// byte): nothing becomes a key, each answer is kept whole, and a key typed after them
    /// is a key.
    @Test func everyAnswerFormAByteAReadIsNeverAKey() {
        let answers = [
            "\u{1B}_Gi=31;EINVAL:quit\u{1B}\\",          // kitty graphics, with a q in it
            "\u{1B}P>|XTerm(379)\u{1B}\\",                // XTVERSION
            "\u{1B}P1+r524742=382F382F38\u{1B}\\",        // XTGETTCAP RGB
            "\u{1B}P1$r0;48:2::1:2:3m\u{1B}\\",           // DECRQSS of SGR
            "\u{1B}[?2;0;1000;1000S",                    // XTSMGRAPHICS
            "\u{1B}[6;20;10t", "\u{1B}[4;600;800t",       // cell and window size
            "\u{1B}]11;rgb:ffff/ffff/ffff\u{07}",         // OSC 11, ended by BEL
            "\u{1B}]10;rgb:0000/0000/0000\u{1B}\\",       // OSC 10, by ST
            "\u{1B}]4;1;rgb:cdcd/0000/0000\u{1B}\\",      // OSC 4
            "\u{1B}[?1006;1$y", "\u{1B}[2;2$y",           // DECRQM, private and ANSI
            "\u{1B}[?12;40;1R",                          // DECXCPR
            "\u{1B}[?0u",                                // kitty keyboard flags
            "\u{1B}[>41;379;0c",                         // DA2
            "\u{1B}[?63;1;2;4;6;9;15;16;17;18;21;22;28c", // DA1
        ]
        var decoder = InputDecoder()
        var events: [InputEvent] = []
        for scalar in answers.joined().unicodeScalars {
            decoder.feed(.scalar(scalar))
            events += decoder.takeEvents()
        }
        #expect(events.isEmpty, "answers became keys: \(events)")
        #expect(!decoder.holdsPartialSequence)
        // Kept whole, a string always ended by ST (BEL is read as its end too).
        #expect(decoder.takeAnswers() == answers.map { $0.replacingOccurrences(of: "\u{07}", with: "\u{1B}\\") })
        for scalar in "\u{1B}[Cq".unicodeScalars { decoder.feed(.scalar(scalar)); events += decoder.takeEvents() }
        #expect(events == [.key(.right), .key(.character("q"))])
        // A lone Esc is held until the run loop says no more came, then it is the Esc key.
        decoder.feed(.scalar("\u{1B}"))
        #expect(decoder.takeEvents().isEmpty && decoder.holdsPartialSequence && !decoder.readsAnswer)
        #expect(decoder.flush() == [.key(.escape)])
        // A string answer begun is never typed, however late its rest comes.
        for scalar in "\u{1B}P>|XTe".unicodeScalars { decoder.feed(.scalar(scalar)) }
        #expect(decoder.readsAnswer && decoder.flush().isEmpty)
        for scalar in "rm(379)\u{1B}\\x".unicodeScalars { decoder.feed(.scalar(scalar)) }
        #expect(decoder.flush() == [.key(.character("x"))])
        #expect(decoder.takeAnswers() == ["\u{1B}P>|XTerm(379)\u{1B}\\"])
        // Shift-F3 (CSI 1;2R) is not taken for a cursor report: that is never asked.
        #expect(!InputDecoder.isAnswer(Array("1;2R".unicodeScalars)))
    }

    /// What the probe reads of XTGETTCAP and DECRQSS, hostile answers included.
    @Test func directColourAnswers() {
        var xterm = ProbeReplies()
        xterm.feed(Array("\u{1B}P1+r524742=382F382F38\u{1B}\\\u{1B}P1$r0;48:2::1:2:3m\u{1B}\\".utf8))
        #expect(xterm.rgbCapability == true && xterm.keepsDirectColour == true)
        var kitty = ProbeReplies()
        kitty.read(answer: "\u{1B}P1$r48:2:1:2:3m\u{1B}\\")
        #expect(kitty.keepsDirectColour == true)
        var semicolons = ProbeReplies()
        semicolons.read(answer: "\u{1B}P1$r48;2;1;2;3m\u{1B}\\")
        #expect(semicolons.keepsDirectColour == true)
        var palette = ProbeReplies()
        palette.feed(Array("\u{1B}P1$r0;48;5;16m\u{1B}\\\u{1B}P0+r524742\u{1B}\\".utf8))
        #expect(palette.keepsDirectColour == false, "mapped to a palette colour")
        #expect(palette.rgbCapability == false)
        var other = ProbeReplies()
        other.read(answer: "\u{1B}P1+r636f6c6f7273=323536\u{1B}\\") // colors=256: not ours
        other.read(answer: "\u{1B}P1$r0;38;2;1;2;3m\u{1B}\\") // a foreground, not the background set
        other.read(answer: "\u{1B}P1$r48;2;1;2m\u{1B}\\")
        other.read(answer: "not an answer")
        #expect(other.rgbCapability == nil && other.keepsDirectColour == false)
    }

    /// The order of evidence for 24-bit colour: COLORTERM, the terminal's answers, its name
    /// and version, tmux's word; nothing inside GNU screen; terminfo decides otherwise.
    @Test func directColourEvidence() {
        func replies(_ text: String) -> ProbeReplies {
            var replies = ProbeReplies()
            replies.feed(Array(text.utf8))
            return replies
        }
        let none = ProbeReplies()
        #expect(DirectColourEvidence.find(environment: ["COLORTERM": "truecolor"], replies: none, tmux: nil) == "COLORTERM=truecolor")
        #expect(DirectColourEvidence.find(environment: ["TERM": "xterm"], replies: none, tmux: nil) == nil)
        let xterm = replies("\u{1B}P>|XTerm(379)\u{1B}\\")
        #expect(DirectColourEvidence.find(environment: ["TERM": "xterm"], replies: xterm, tmux: nil)?.contains("XTerm(379)") == true)
        #expect(DirectColourEvidence.find(environment: ["TERM": "xterm"], replies: replies("\u{1B}P>|XTerm(330)\u{1B}\\"), tmux: nil) == nil,
                "before patch 331")
        for name in ["kitty(0.26.5)", "WezTerm 20230712", "foot(1.13.1)", "ghostty 1.1.3", "Konsole 22.12.3", "VTE(7600)"] {
            #expect(DirectColourEvidence.find(environment: [:], replies: replies("\u{1B}P>|\(name)\u{1B}\\"), tmux: nil) != nil, "\(name)")
        }
        #expect(DirectColourEvidence.find(environment: [:], replies: replies("\u{1B}P>|evil(9)\u{1B}\\"), tmux: nil) == nil)
        #expect(DirectColourEvidence.find(environment: [:], replies: replies("\u{1B}P1$r0;48:2::1:2:3m\u{1B}\\"), tmux: nil)?.contains("DECRQSS") == true)
        #expect(DirectColourEvidence.find(environment: [:], replies: replies("\u{1B}P1+r524742\u{1B}\\"), tmux: nil)?.contains("XTGETTCAP") == true)
        #expect(DirectColourEvidence.find(environment: ["TERM": "screen", "STY": "1.pts"], replies: xterm, tmux: nil) == nil, "GNU screen passes none")
        let inside = ["TMUX": "/tmp/tmux-0/default,1,0", "TERM": "tmux-256color"]
        let rgb = TmuxClient(version: "3.3a", passthrough: false, terminalName: "xterm-kitty", terminalType: "kitty(0.26.5)", features: ["RGB"])
        #expect(DirectColourEvidence.find(environment: inside, replies: none, tmux: rgb)?.contains("tmux 3.3a") == true)
        var plain = rgb
        plain.features = ["focus"]
        #expect(DirectColourEvidence.find(environment: inside, replies: xterm, tmux: plain) == nil, "inside tmux only tmux's word counts")
        #expect(DirectColourEvidence.find(environment: ["VTE_VERSION": "7006"], replies: none, tmux: nil) != nil)
        #expect(DirectColourEvidence.find(environment: ["VTE_VERSION": "3405"], replies: none, tmux: nil) == nil)
        #expect(DirectColourEvidence.find(environment: ["TERM": "mlterm", "MLTERM": "3.9.0"], replies: none, tmux: nil) == "MLTERM=3.9.0 (mlterm)")
        #expect(DirectColourEvidence.find(environment: ["TERM": "mlterm", "MLTERM": ""], replies: none, tmux: nil) == nil)
    }

    /// A TERM with no entry is drawn as xterm-256color when the terminal answers like an
    /// xterm, with a line saying so and how to install the real entry; refused otherwise.
    @Test func anUnknownTermStartsWhenTheTerminalAnswers() throws {
        let answered = TerminalEvidence(truecolor: nil, answersLikeXterm: true)
        let silent = TerminalEvidence(truecolor: nil, answersLikeXterm: false)
        #expect(TerminalEntry.exists("xterm-256color") && TerminalEntry.exists("dumb"))
        #expect(!TerminalEntry.exists("foot-no-such") && !TerminalEntry.exists("") && !TerminalEntry.exists("../x"))
        #expect(TerminalEntry.choose("xterm", evidence: silent)?.name == "xterm")
        let foot = try #require(TerminalEntry.choose("foot-no-such", evidence: answered))
        #expect(foot.name == "xterm-256color")
        let note = try #require(foot.note)
        #expect(note.contains("TERM=foot-no-such has no terminfo entry here") && note.contains("tic -x"), "\(note)")
        #expect(TerminalEntry.choose("foot-no-such", evidence: silent) == nil, "a terminal that answers nothing is refused")
        let hostile = try #require(TerminalEntry.choose("x\u{1B}[2J", evidence: answered)?.note)
        #expect(!hostile.unicodeScalars.contains { $0.value < 0x20 }, "\(hostile.debugDescription)")
    }

    /// The burst: inside tmux or GNU screen, and on the Linux console, no APC or DCS string
    /// (tmux 3.3 made the kitty query the pane's title); elsewhere all of them, DA1 last.
    @Test func theBurstSendsNoStringAMultiplexerTakes() {
        let plain = TerminalProbe.burst(environment: ["TERM": "xterm"])
        #expect(plain.contains("\u{1B}_G") && plain.contains("\u{1B}P+q524742") && plain.contains("\u{1B}P$qm") && plain.hasSuffix("\u{1B}[c"))
        #expect(plain.contains("\u{1B}[48;2;1;2;3m\u{1B}P$qm\u{1B}\\\u{1B}[m"), "the colour set is reset at once")
        for environment in [["TMUX": "/tmp/t,1,0", "TERM": "tmux-256color"], ["TERM": "screen-256color", "STY": "1.pts-0"],
                            ["TERM": "screen"], ["TERM": "linux"]] {
            let burst = TerminalProbe.burst(environment: environment)
            #expect(!burst.contains("\u{1B}_") && !burst.contains("\u{1B}P"), "\(environment)")
            #expect(burst.contains("\u{1B}[>0q") && burst.hasSuffix("\u{1B}[c"))
        }
    }

    /// The probe's window can close in the middle of an answer: what it read of it is
    /// handed to the decoder (`unread`), which reads the rest as the same answer.
    @Test func anAnswerCutByTheWindowIsFinishedByTheDecoder() {
        let answer = "\u{1B}P>|XTerm(379)\u{1B}\\"
        var probe = ProbeReplies()
        probe.feed(Array("k".utf8) + Array(answer.utf8.prefix(6)))
        #expect(probe.typed == Array("k".utf8) && probe.unread == Array(answer.utf8.prefix(6)) && probe.version == nil)
        var decoder = InputDecoder()
        for scalar in String(decoding: probe.typed + probe.unread, as: UTF8.self).unicodeScalars { decoder.feed(.scalar(scalar)) }
        #expect(decoder.takeEvents() == [.key(.character("k"))])
        for scalar in answer.unicodeScalars.dropFirst(6) { decoder.feed(.scalar(scalar)) }
        #expect(decoder.flush().isEmpty)
        var replies = probe
        for late in decoder.takeAnswers() { replies.read(answer: late) }
        #expect(replies.version == "XTerm(379)")
        // An overlong sequence being skipped is not handed on.
        var dropped = ProbeReplies()
        dropped.feed(Array(("\u{1B}P>|" + String(repeating: "A", count: 400)).utf8))
        #expect(dropped.unread.isEmpty)
    }
}
