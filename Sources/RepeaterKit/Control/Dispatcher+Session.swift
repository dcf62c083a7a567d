import Foundation
import RepeaterEngine

/// The session's part of the command path: named loops, the trainer, and saving (on request,
/// periodically, on every way out).
extension Dispatcher {
    var session: Session {
        get { keeper.session }
        set { keeper.session = newValue }
    }

    /// The session as it stands now (what a save writes).
    func currentSession() -> Session {
        var session = keeper.session
        session.sampleRate = rate
        let length = info.frameCount
        session.position = finishedCycle >= 0 ? 0 : min(max(0, audibleFrame), length - 1)
        let a = loopA, b = loopB, on = loopOn
        if on || a != 0 || b != length {
            var loop = CurrentLoop(a: a, b: b, on: on)
            loop.extra = session.loop?.extra ?? JSONObject()
            session.loop = loop
        } else {
            session.loop = nil
        }
        session.speed = trainer?.speed ?? engine.controls.speed.load(ordering: .relaxed)
        session.pitch = engine.controls.pitchSemitones.load(ordering: .relaxed)
        session.volume = engine.controls.volume.load(ordering: .relaxed)
        session.pan = engine.controls.pan.load(ordering: .relaxed)
        session.gapSeconds = Double(gapFrames) / Double(rate)
        session.trainer = trainer
        session.transport = transportMode == .off ? nil : transportMode.name
        return session
    }

    /// Writes the session if there is one and (unless `force`) it changed. False on failure
    /// (reported once per problem; playback goes on).
    @discardableResult
    func saveSession(reason: String, force: Bool = false, source: CommandSource = .player) -> Bool {
        switch keeper.save(currentSession(), force: force, asked: reason == "request") {
        case .saved(let written):
            if written, let path = keeper.path {
                output.event(PlayerEvent("saved", source: source) { $0.add("path", path); $0.add("reason", reason) })
            }
            return true
        case .failed(let message, let report):
            if report { output.error(message, source: source) }
            return false
        }
    }

    /// Control loop: a periodic save while something changed.
    func autosaveIfDue() {
        if keeper.autosaveDue() { saveSession(reason: "auto") }
    }

    /// Applies a session command.
    func performSession(_ command: Command) {
        let source = command.source
        switch command.action {
        case .save:
            guard let path = keeper.path else { refuse("no session (--no-session): nothing to save", command); return }
            if saveSession(reason: "request", force: true, source: source) { output.note("saved the session to \(path)") }
        case .loopSaveNew:
            let taken = Set(session.loops.map(\.name))
            let name = (1...).lazy.map { "loop \($0)" }.first { !taken.contains($0) }!
            performSession(Command(.loopSave(name), source: source, reply: command.reply))
        case .loopSave(let name):
            let a = loopA, b = loopB
            guard loopOn || a != 0 || b != info.frameCount else {
                refuse("set A and B first (a / b), then `loop save \(name)`", command)
                return
            }
            if !session.loops.contains(where: { $0.name == name }) { session.loops.append(NamedLoop(name: name, start: a, end: b)) }
            let index = session.loops.firstIndex { $0.name == name }!
            session.loops[index].start = a
            session.loops[index].end = b
            // A loop of whole bars keeps its bar numbers: selected again after the grid was
            // corrected, it is those bars of the corrected grid.
            if let bars = grid?.bars(a: a, b: b) {
                session.loops[index].extra["bars"] = .array([.int(bars.first), .int(bars.last)])
            } else {
                session.loops[index].extra["bars"] = nil
            }
            session.activeLoop = name
            output.event(PlayerEvent("loop-saved", source: source) { $0.add("name", name); $0.add("a", a); $0.add("b", b) })
            output.note("saved loop '\(name)': \(time(a)) – \(time(b))")
            saveSession(reason: "loop", source: source)
        case .loopSelect(let name):
            // A name first; else a number counts like the keys 1…9 (`loop 2`: the second loop).
            let byNumber = Int(name).flatMap { session.loops.indices.contains($0 - 1) ? $0 - 1 : nil }
            guard let index = session.loops.firstIndex(where: { $0.name == name }) ?? byNumber else {
                refuse(session.loops.isEmpty ? "no loop named '\(name)': none saved yet (`loop save NAME`)"
                                             : "no loop named '\(name)'; saved: \(session.loops.map(\.name).joined(separator: ", "))", command)
                return
            }
            selectLoop(index, source: source)
        case .loopSelectIndex(let index):
            guard index < session.loops.count else {
                refuse("no loop \(index + 1): \(session.loops.count) saved", command)
                return
            }
            selectLoop(index, source: source)
        case .loopDelete(let name):
            guard let index = session.loops.firstIndex(where: { $0.name == name }) else {
                refuse("no loop named '\(name)'", command)
                return
            }
            session.loops.remove(at: index)
            if session.activeLoop == name { session.activeLoop = nil }
            output.event(PlayerEvent("loop-deleted", source: source) { $0.add("name", name) })
            output.note("deleted loop '\(name)'")
            saveSession(reason: "loop", source: source)
        case .listLoops:
            let list = session.loops.enumerated().map { "\($0.offset + 1) \($0.element.name) \(time($0.element.start))–\(time($0.element.end))" }
            output.event(PlayerEvent("loops", source: source,
                                     note: list.isEmpty ? "no loops saved yet (`loop save NAME`, or a/b then s)" : list.joined(separator: " · ")) {
                $0.addRaw("loops", "[" + self.session.loops.map { named in
                    var item = JSONLine()
                    item.add("name", named.name)
                    item.add("a", named.start)
                    item.add("b", named.end)
                    item.add("a_s", self.seconds(named.start))
                    item.add("b_s", self.seconds(named.end))
                    return item.text
                }.joined(separator: ",") + "]")
                if let active = self.session.activeLoop { $0.add("active", active) }
            })
        case .trainer(let spec):
            if let spec {
                let started = spec.trainer
                trainer = started
                engine.setSpeed(started.speed)
                emitTrainer(source: source)
                output.note("trainer: \(Int((spec.from * 100).rounded())) % → \(Int((spec.to * 100).rounded())) %, \(spec.step > 0 ? "+" : "")\(Int((spec.step * 100).rounded())) % every \(spec.every) passes")
            } else {
                trainer = nil
                output.note("trainer off")
            }
        default:
            break
        }
    }

    private func selectLoop(_ index: Int, source: CommandSource) {
        var named = session.loops[index]
        if case .array(let bars) = named.extra["bars"] ?? .null, bars.count == 2, case .int(let first) = bars[0], case .int(let last) = bars[1],
           let frames = try? grid?.frames(ofBars: first, last) {
            (named.start, named.end) = frames
            session.loops[index] = named
        }
        send(.setLoop(a: named.start, b: named.end), source)
        send(.seek(frame: named.start), source)
        session.activeLoop = named.name
        output.event(PlayerEvent("loop-selected", source: source) { $0.add("name", named.name); $0.add("a", named.start); $0.add("b", named.end) })
    }

    /// On each wrap: the trainer (a source of its own) counts the pass and may step the speed.
    func trainerPassCompleted() {
        guard var running = trainer else { return }
        let next = running.passCompleted()
        trainer = running
        if let next {
            engine.setSpeed(next)
            emitTrainer(source: .trainer)
            if running.isDone { output.note("trainer done: \(Int((next * 100).rounded())) %") }
        }
    }

    func emitTrainer(source: CommandSource) {
        guard let trainer else { return }
        output.event(PlayerEvent("trainer", source: source) { $0.add("speed", trainer.speed); $0.add("passes", trainer.passes); $0.add("done", trainer.isDone) })
    }

    /// The trainer's line for the screen, or nil.
    var trainerLine: String? {
        guard let trainer else { return nil }
        func percent(_ speed: Double) -> String { "\(Int((speed * 100).rounded())) %" }
        if trainer.isDone { return "trainer done: \(percent(trainer.to))" }
        return "trainer \(percent(trainer.speed)) → \(percent(trainer.to)), \(trainer.step > 0 ? "+" : "")\(percent(trainer.step)) every \(trainer.every) passes: \(trainer.passes) of \(trainer.every)"
    }

    /// The session's line for the screen: the file and the numbered loops, the active one marked.
    var sessionLine: String? {
        guard keeper.path != nil || !session.loops.isEmpty else { return nil }
        let loops = session.loops.prefix(9).enumerated().map { index, named in
            named.name == session.activeLoop ? "[\(index + 1) \(named.name)]" : "\(index + 1) \(named.name)"
        }
        let name = keeper.path.map { ($0 as NSString).lastPathComponent } ?? "no session"
        return loops.isEmpty ? "session \(name) · no named loops (a, b, then `loop save NAME` or s)" : "session \(name) · " + loops.joined(separator: "  ")
    }
}
