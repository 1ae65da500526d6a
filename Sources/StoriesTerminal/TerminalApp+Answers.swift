import Dispatch
import Foundation
import StoriesApp
import StoriesCore
import StoriesMedia
import StoriesCells

/// The terminal's answers while the app runs (issue 45, point 3): never keys, whenever they
/// come, in however many pieces; each one read into `replies`, and what it changes — the
/// pictures a late DA1 allows, the background OSC 11 says — sent to the engine as news.
extension TerminalApp {
    /// How long the probe's answers are waited for after it stopped waiting: an ESC read
    /// meanwhile waits `answerGap` for the rest of its sequence (a slow link sends an answer
    /// a few bytes at a time). DA1's answer, always last, ends the wait at once.
    static let answersAwaited: Duration = .seconds(5)
    /// How long a sequence begun waits for its next byte while answers are awaited (or one
    /// is half read): longer than a slow link's gap between two bytes (30 ms seen over ssh),
    /// shorter than a person's between Esc and the next key.
    static let answerGap: Duration = .milliseconds(150)

    /// Whether answers may still come: asked, DA1 not yet answered, and the last answer (or
    /// the question) not long ago — a slow link's answers keep the wait going.
    var awaitsAnswers: Bool {
        probe.asked && !replies.sawDA1 && ContinuousClock.now - lastAnswerAt < Self.answersAwaited
    }

    /// Reads the answers the decoder found into `replies`, and acts on what changed.
    func takeAnswers() {
        let answers = decoder.takeAnswers()
        if decoder.readsAnswer || !answers.isEmpty { lastAnswerAt = .now }
        guard !answers.isEmpty else { return }
        let before = replies
        let time = ContinuousClock.now - askedAt
        for answer in answers { replies.read(answer: answer, at: time) }
        guard replies != before else { return }
        var changed = false
        // DA1 ends the answers: what they say of pictures is news for the reducer, which
        // decides what it changes (nothing, under a protocol said outright).
        if replies.sawDA1, !before.sawDA1 {
            // The terminal has read every question: the shared memory offered goes.
            if let offer = probe.sharedMemoryOffer { KittySharedMemory.remove(offer) }
            let window = graphicsFacts.windowPixels, cellSizeKnown = graphicsFacts.cellSizeKnown || replies.cellPixels != nil
            graphicsFacts = GraphicsFacts(ProbeResult(asked: true, replies: replies), environment: ProcessInfo.processInfo.environment,
                                          tmux: tmux, said: graphicsFacts.said, stepping: graphicsFacts.stepping,
                                          windowPixels: window, cellSizeKnown: cellSizeKnown)
            engine.send(.app(.graphics(graphicsFacts)))
            changed = true
        }
        // The terminal's background (OSC 11), said late: news for the reducer, which decides
        // what it changes (nothing, under a theme said outright).
        if replies.background != before.background, let body = replies.background {
            backgroundFacts.answer = body
            engine.send(.app(.background(backgroundFacts)))
        }
        // 24-bit colour said after the first frame (XTVERSION, XTGETTCAP, the DECRQSS
        // read-back): the screen opens again on the direct-colour entry, as it would have at
        // start, or the notice line says why it cannot.
        if !directColourDecided,
           let reason = DirectColourEvidence.find(environment: ProcessInfo.processInfo.environment, replies: replies, tmux: tmux) {
            directColourDecided = true
            switch terminal.takeDirectColour(because: reason) {
            case .taken: changed = true
            case .refused(let line): engine.send(.notice(line))
            case .kept: break
            }
        }
        if replies.paletteAnswers != before.paletteAnswers { changed = true }
        if replies.cellPixels?.width != before.cellPixels?.width || replies.cellPixels?.height != before.cellPixels?.height { changed = true }
        if changed { engine.setDisplay(display) }
    }

    /// A sequence begun and not ended after this read: while answers are awaited, or one is
    /// half read, it waits `answerGap` for its next byte; otherwise (a lone Esc, Alt+[) it is
    /// ended now, as the key it is. Any read in between puts the wait off.
    func holdPartialSequence() {
        pendingFlush?.cancel()
        pendingFlush = nil
        guard decoder.holdsPartialSequence else { return }
        guard awaitsAnswers || decoder.readsAnswer else {
            dispatch(decoder.flush())
            return
        }
        let flush = DispatchWorkItem { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.pendingFlush = nil
                self.dispatch(self.decoder.flush())
                self.takeAnswers()
            }
        }
        pendingFlush = flush
        let (seconds, attoseconds) = Self.answerGap.components
        DispatchQueue.main.asyncAfter(deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)),
                                      execute: flush)
    }
}
