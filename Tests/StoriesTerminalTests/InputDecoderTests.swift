import StoriesCore
import Testing
@testable import StoriesTerminal

@Suite struct InputDecoderTests {
    func decode(_ text: String) -> [InputEvent] {
        var decoder = InputDecoder()
        return decoder.decode(text.unicodeScalars.map { .scalar($0) })
    }

    @Test func charactersIncludingCJKAndEmojiClusters() {
        #expect(decode("a山🌸") == [.key(.character("a")), .key(.character("山")), .key(.character("🌸"))])
        #expect(decode("👩‍💻") == [.key(.character("👩‍💻"))])
        #expect(decode("e\u{301}") == [.key(.character("é"))])
    }

    @Test func controlKeys() {
        #expect(decode("\r\n\t\u{7F}") == [.key(.enter), .key(.enter), .key(.tab), .key(.backspace)])
        #expect(decode("\u{03}") == [.key(.character("c"), .control)])
    }

    @Test func aLoneEscapeIsTheEscKeyAndEscapePlusKeyIsAlt() {
        #expect(decode("\u{1B}") == [.key(.escape)])
        #expect(decode("\u{1B}x") == [.key(.character("x"), .alt)])
        #expect(decode("\u{1B}\u{1B}") == [.key(.escape), .key(.escape)])
        #expect(decode("\u{1B}[") == [.key(.character("["), .alt)])
    }

    @Test func csiKeysWithModifiers() {
        #expect(decode("\u{1B}[A\u{1B}[1;2C\u{1B}[1;5D") == [.key(.up), .key(.right, .shift), .key(.left, .control)])
        #expect(decode("\u{1B}[5~\u{1B}[3;2~\u{1B}[15~\u{1B}[Z") ==
                [.key(.pageUp), .key(.delete, .shift), .key(.function(5)), .key(.tab, .shift)])
        #expect(decode("\u{1B}OA\u{1B}OP") == [.key(.up), .key(.function(1))])
    }

    @Test func sgrMousePressReleaseDragAndWheel() {
        #expect(decode("\u{1B}[<0;10;5M") == [.mouse(MouseEvent(kind: .press(.left), column: 9, row: 4))])
        #expect(decode("\u{1B}[<0;10;5m") == [.mouse(MouseEvent(kind: .release(.left), column: 9, row: 4))])
        #expect(decode("\u{1B}[<32;12;5M") == [.mouse(MouseEvent(kind: .drag(.left), column: 11, row: 4))])
        #expect(decode("\u{1B}[<2;1;1M") == [.mouse(MouseEvent(kind: .press(.right), column: 0, row: 0))])
        #expect(decode("\u{1B}[<64;3;4M\u{1B}[<65;3;4M") ==
                [.mouse(MouseEvent(kind: .wheelUp, column: 2, row: 3)), .mouse(MouseEvent(kind: .wheelDown, column: 2, row: 3))])
        #expect(decode("\u{1B}[<20;200;100M") ==
                [.mouse(MouseEvent(kind: .press(.left), column: 199, row: 99, modifiers: [.shift, .control]))])
        #expect(decode("\u{1B}[<35;7;8M") == [.mouse(MouseEvent(kind: .move, column: 6, row: 7))])
    }

    @Test func sequencesSplitAcrossFeedsAndMixedWithText() {
        var decoder = InputDecoder()
        for scalar in "q\u{1B}[<0;3".unicodeScalars { decoder.feed(.scalar(scalar)) }
        for scalar in ";4Mz".unicodeScalars { decoder.feed(.scalar(scalar)) }
        #expect(decoder.flush() == [.key(.character("q")), .mouse(MouseEvent(kind: .press(.left), column: 2, row: 3)),
                                    .key(.character("z"))])
    }

    @Test func garbageNeverTurnsIntoPrintableKeys() {
        #expect(decode("\u{1B}[<0;0;0M") == [])        // coordinates start at 1
        #expect(decode("\u{1B}[99X") == [])            // an unknown CSI final
        #expect(decode("\u{1B}[12;") == [])            // cut off
        #expect(decode("\u{1B}[" + String(repeating: "1", count: 40) + "Ax") == [.key(.character("x"))])
    }

    @Test(arguments: [
        ("KEY_LEFT", InputEvent.key(.left)), ("KEY_SRIGHT", .key(.right, .shift)), ("KEY_SR", .key(.up, .shift)),
        ("kUP", .key(.up, .shift)), ("kDN5", .key(.down, .control)), ("kLFT3", .key(.left, .alt)),
        ("kRIT6", .key(.right, [.shift, .control])), ("KEY_F(12)", .key(.function(12))), ("KEY_ENTER", .key(.enter)),
        ("KEY_BACKSPACE", .key(.backspace)), ("KEY_NPAGE", .key(.pageDown)), ("KEY_BTAB", .key(.tab, .shift)),
    ])
    func ncursesKeyNames(name: String, event: InputEvent) {
        var decoder = InputDecoder()
        #expect(decoder.decode([.keyName(name)]) == [event])
    }

    /// A terminal slower than the start-up probe answers while the app runs: every answer
    /// the probe asks for is read and dropped, whole or in pieces, and none becomes a key.
    @Test func lateAnswersToTheProbeAreNeverKeys() {
        let answers = [
            "\u{1B}_Gi=31;OK\u{1B}\\",                    // kitty graphics
            "\u{1B}_Gi=31;ENOTSUPPORTED:no\u{1B}\\",
            "\u{1B}P>|XTerm(379)\u{1B}\\",                // XTVERSION
            "\u{1B}P>|kitty(0.26.5)\u{07}",
            "\u{1B}[?2;0;1000;1000S",                    // XTSMGRAPHICS
            "\u{1B}[6;15;8t",                            // cell size
            "\u{1B}[?1006;1$y",                          // DECRQM
            "\u{1B}[?62;4;22c",                          // DA1
        ]
        for answer in answers {
            #expect(decode(answer).isEmpty, "\(answer.debugDescription) became keys")
            // A string answer (DCS, APC) cut by reads anywhere once it has begun.
            let scalars = Array(answer.unicodeScalars)
            guard scalars[1] != "[" else { continue }
            for cut in 3..<scalars.count {
                var decoder = InputDecoder()
                let events = decoder.decode(scalars[..<cut].map { .scalar($0) }) + decoder.decode(scalars[cut...].map { .scalar($0) })
                #expect(events.isEmpty, "\(answer.debugDescription) cut at \(cut) became keys: \(events)")
            }
        }
        // Keys around them stay keys.
        #expect(decode("a\u{1B}P>|XTerm(379)\u{1B}\\b") == [.key(.character("a")), .key(.character("b"))])
        // An answer's string never eats what follows its end, nor does it keep an OSC report.
        var decoder = InputDecoder()
        #expect(decoder.decode("\u{1B}_Gi=31;OK\u{1B}\\q".unicodeScalars.map { .scalar($0) }) == [.key(.character("q"))])
        #expect(decoder.takeAnswers() == ["\u{1B}_Gi=31;OK\u{1B}\\"])
    }

    /// Late answers are kept whole for the app to read (a terminal slower than the probe
    /// still gets its pictures), at most 32 between two takes.
    @Test func lateAnswersAreKeptForTheApp() {
        var decoder = InputDecoder()
        let text = "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}[6;19;8t\u{1B}[?62;4c\u{1B}[?1006;1$y"
        #expect(decoder.decode(text.unicodeScalars.map { .scalar($0) }).isEmpty)
        let answers = decoder.takeAnswers()
        #expect(answers == ["\u{1B}_Gi=31;OK\u{1B}\\", "\u{1B}P>|kitty(0.26.5)\u{1B}\\", "\u{1B}[6;19;8t", "\u{1B}[?62;4c", "\u{1B}[?1006;1$y"])
        var replies = ProbeReplies()
        for answer in answers { replies.read(answer: answer) }
        #expect(replies.kittyGraphics == true && replies.sawDA1 && replies.cellPixels?.width == 8 && replies.modes[1006] == 1)
        #expect(decoder.takeAnswers().isEmpty, "taken once")
        let many = String(repeating: "\u{1B}[?62;4c", count: 100)
        _ = decoder.decode(many.unicodeScalars.map { .scalar($0) })
        #expect(decoder.takeAnswers().count == 32)
    }

    @Test func altPAndAltUnderscoreAreStillKeys() {
        #expect(decode("\u{1B}P") == [.key(.character("P"), .alt)])
        #expect(decode("\u{1B}_") == [.key(.character("_"), .alt)])
        // Alt+P then typing that cannot begin an answer: the keys, in order.
        #expect(decode("\u{1B}Pxy") == [.key(.character("P"), .alt), .key(.character("x")), .key(.character("y"))])
        #expect(decode("\u{1B}_q") == [.key(.character("_"), .alt), .key(.character("q"))])
    }

    @Test func unknownKeyNamesAreIgnored() {
        var decoder = InputDecoder()
        #expect(decoder.decode([.keyName("KEY_MOUSE"), .keyName("kFOO")]) == [])
    }
}
