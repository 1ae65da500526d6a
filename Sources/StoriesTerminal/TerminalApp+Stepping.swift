import StoriesApp
import StoriesCore

/// `--step`: a recording replayed one input or one frame a key.
extension TerminalApp {
    /// A key while stepping: the next recorded input (→, Space, Enter, l), one frame (.), or
    /// the end of it (q, Esc, Ctrl-C); anything else only shows the keys again.
    func step(_ event: InputEvent) {
        guard var stepper else { return }
        // Through the key map, like every key (`stepping` in keys.conf).
        switch engine.bindings.command(for: event, in: .stepping) {
        case .stepNext?:
            if stepper.next < stepper.recording.entries.count {
                let (time, entry) = stepper.recording.entries[stepper.next]
                stepper.scheduler.run(until: stepper.start + time)
                RecordingFeeder.feed(entry, to: engine, screen: .terminal)
                stepper.next += 1
                stepper.scheduler.run(until: stepper.scheduler.now().uptime)
            }
        case .stepFrame?:
            stepper.scheduler.run(until: stepper.scheduler.now().uptime + 1.0 / 30)
        case .quit?:
            quit(status: 0)
        case .suspend?:
            suspend()
        default:
            break
        }
        self.stepper = stepper
        showStep()
    }

    /// The hint line's replay label and the notice say where the stepping is.
    func showStep() {
        guard let stepper else { return }
        let remaining = stepper.recording.entries.count - stepper.next
        var status = ReplayStatus(name: stepper.name, since: stepper.start, end: stepper.end, stoppedEarly: false)
        status.isOver = remaining == 0
        engine.send(.replay(status))
        let next = stepper.recording.entries[safe: stepper.next].map { entry -> String in
            if case .input(let input) = entry.entry { return "next: \(GestureRecognizer.describe(input)) at \(ReplayStatus.seconds(entry.time)) s" }
            return "next: the end at \(ReplayStatus.seconds(entry.time)) s"
        } ?? "no input left"
        engine.send(.notice("Stepping: → next input · . one frame · q quit · \(next) (\(remaining) left)"))
        stepper.scheduler.run(until: stepper.scheduler.now().uptime)
    }
}
