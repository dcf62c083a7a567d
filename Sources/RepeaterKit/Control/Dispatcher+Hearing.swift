import RepeaterAnalysis
import RepeaterEngine

/// Hearing the part: the isolation and the equalizer (sent to the engine, kept in the session) and
/// the note view's mode.
extension Dispatcher {
    func performHearing(_ hearing: HearingCommand, _ command: Command) {
        let source = command.source
        switch hearing {
        case .isolate(let mode): setIsolation(mode, command)
        case .isolateNext:
            let modes: [IsolationMode] = info.channelCount == 2 ? [.off, .centre, .sides, .bass, .left, .right] : [.off, .bass]
            let index = modes.firstIndex(of: session.isolation) ?? 0
            setIsolation(modes[(index + 1) % modes.count], command)
        case .equalize(let low, let mid, let high):
            session.equalizer = EqualizerGains(lowDB: low, midDB: mid, highDB: high)
            send(.equalize(lowDB: low, midDB: mid, highDB: high), source)
            let text = session.equalizer.text
            output.event(PlayerEvent("eq", source: source, note: session.equalizer.isFlat ? "EQ flat" : "EQ \(text) dB") {
                $0.addRaw("eq", "[\(text)]")
            })
        case .notes(let mode):
            guard let view = noteView else { refuse("the note view is off (it runs with the screen, --status json or --osc)", command); return }
            let next = mode ?? (view.mode == .playhead ? .loop : .playhead)
            view.mode = next
            output.event(PlayerEvent("notes", source: source, note: next == .loop ? "notes over the whole loop" : "notes at the playhead") {
                $0.add("mode", next.rawValue)
            })
        }
    }

    private func setIsolation(_ mode: IsolationMode, _ command: Command) {
        if mode.needsStereo, info.channelCount != 2 {
            refuse("isolate \(mode.name) needs a stereo file; '\(info.path)' has \(info.channelCount) channel\(info.channelCount == 1 ? "" : "s") (bass and band:LO-HI work on any)", command)
            return
        }
        session.isolation = mode
        send(.isolate(mode), command.source)
    }

    /// The engine switched the isolation: the event, with the delay it adds.
    func isolationApplied(delayFrames: Int, source: CommandSource) {
        let mode = session.isolation
        output.event(PlayerEvent("isolate", source: source, note: mode == .off ? "isolation off" : "isolating: \(mode.name)") {
            $0.add("mode", mode.name)
            $0.add("latency", delayFrames)
        })
    }

    /// What the sinks show of hearing the part.
    func hearingSnapshot() -> HearingSnapshot {
        var snapshot = HearingSnapshot()
        snapshot.isolation = session.isolation
        snapshot.equalizer = session.equalizer
        if let view = noteView {
            let latest = view.latest()
            snapshot.notes = latest.report
            snapshot.notesMode = latest.mode
        }
        return snapshot
    }
}

/// Hearing the part as the sinks show it.
public struct HearingSnapshot: Sendable {
    public var isolation = IsolationMode.off
    public var equalizer = EqualizerGains()
    /// The note view's latest report (nil: no view, or nothing heard yet).
    public var notes: NoteReport?
    public var notesMode = NoteViewMode.playhead

    public init() {}
}
