import Foundation
import RepeaterEngine

/// Which session a run of `repeater play` uses.
public enum SessionChoice: Sendable, Equatable {
    /// The one kept for the audio file under `$XDG_STATE_HOME/repeater/sessions` (the default).
    case keyed
    /// A session file named on the command line (`play SESSION.json`, or `--session PATH`).
    case file(String)
    /// None: nothing read, nothing written (`--no-session`).
    case none
}

/// What the session decided before anything plays: the audio, the sound, the session to keep.
struct SessionPlan {
    var audioPath: String
    var sessionPath: String?
    var session: Session
    /// `--fresh` over an existing keyed session: keep the old one as `….previous.json` on first save.
    var backupOnFirstSave = false

    /// Resolves `options` into the audio file and the session (loaded, or new). Throws one-line
    /// errors for a session that cannot be read; writes nothing.
    static func resolve(_ options: PlayOptions) throws(RepeaterError) -> SessionPlan {
        let positionalIsSession = options.path.lowercased().hasSuffix(".json")
        if positionalIsSession {
            if case .file = options.session { throw .input("give either a SESSION.json or a FILE with --session PATH, not both") }
            if case .none = options.session { throw .input("--no-session and a SESSION.json contradict each other") }
            let (session, audioPath) = try SessionStore.load(options.path)
            return SessionPlan(audioPath: audioPath, sessionPath: options.path, session: options.fresh ? fresh(session) : session)
        }
        let audioPath = options.path
        var sessionPath: String?
        switch options.session {
        case .none: sessionPath = nil
        case .keyed: sessionPath = SessionStore.keyedPath(forAudio: audioPath)
        case .file(let path): sessionPath = path
        }
        let newSession = { (path: String?) -> Session in
            Session(audio: path.map { Session.audioReference(audioPath, sessionPath: $0) } ?? Session.absolute(audioPath), sampleRate: 0)
        }
        guard let sessionPath, FileManager.default.fileExists(atPath: sessionPath) else {
            return SessionPlan(audioPath: audioPath, sessionPath: sessionPath, session: newSession(sessionPath))
        }
        if options.fresh {
            return SessionPlan(audioPath: audioPath, sessionPath: sessionPath, session: newSession(sessionPath), backupOnFirstSave: true)
        }
        let shown = "'\(sessionPath)'"
        var session: Session
        do { session = try SessionStore.read(sessionPath) } catch {
            guard case .keyed = options.session else { throw error }
            throw .input(error.message + " (or play with --fresh to start over; the old file is kept as .previous.json)")
        }
        if Session.absolute(session.audioPath(sessionPath: sessionPath)) != Session.absolute(audioPath) {
            Console.warning("session \(shown) was for '\(session.audio)'; it now follows '\(audioPath)'")
            session.audio = Session.audioReference(audioPath, sessionPath: sessionPath)
        }
        return SessionPlan(audioPath: audioPath, sessionPath: sessionPath, session: session)
    }

    /// `--fresh` on a session file: its loops stay (they are the work), the rest starts over.
    private static func fresh(_ session: Session) -> Session {
        var started = Session(audio: session.audio, sampleRate: session.sampleRate)
        started.loops = session.loops
        started.extra = session.extra
        return started
    }

    /// The sound to start with: the session's, with every option given on the command line winning.
    func sound(commandLine: SoundOptions, given: Set<String>, trainer: TrainerSpec?) -> SoundOptions {
        var sound = commandLine
        let s = session
        if !given.contains("--rate") { sound.speed = s.speed }
        if !given.contains("--pitch") { sound.pitch = s.pitch }
        if !given.contains("--volume") { sound.volume = s.volume }
        if !given.contains("--pan") { sound.pan = s.pan }
        if !given.contains("--gap") && s.gapSeconds > 0 { sound.gap = .seconds(s.gapSeconds) }
        if !given.contains("--declick") { sound.declickMilliseconds = s.declickMilliseconds }
        if !given.contains("--loop"), let loop = s.loop, loop.on {
            sound.loop = LoopSpec(start: .frames(loop.a), end: .frames(loop.b))
        }
        if !given.contains("--from") && !given.contains("--loop") {
            // Resume at the position, or at A when the resumed loop does not hold it.
            let outsideLoop = sound.loop != nil && !(s.loop.map { $0.a <= s.position && s.position < $0.b } ?? false)
            sound.from = outsideLoop ? nil : .frames(s.position)
        }
        if let trainer = trainer?.trainer ?? s.trainer { sound.speed = trainer.speed }
        return sound
    }
}

/// Sessions in the player: named loops, the trainer, saving (now, periodically, on every way out).
extension Player {
    /// How often an unsaved change is written while playing.
    static let autosaveInterval = 3.0

    /// The session as it stands now (what a save writes).
    func currentSession() -> Session {
        var session = self.session
        let rate = file.info.sampleRate
        session.sampleRate = rate
        guard let engine else { return session }
        let length = file.info.frameCount
        session.position = finishedCycle >= 0 ? 0 : min(max(0, audibleFrame), length - 1)
        let a = engine.status.loopA.load(ordering: .relaxed), b = engine.status.loopB.load(ordering: .relaxed)
        let on = engine.status.loopOn.load(ordering: .relaxed)
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
        return session
    }

    /// Writes the session if there is one and (unless `force`) it changed. Returns false on failure
    /// (reported as one line; playback goes on).
    @discardableResult
    func saveSession(reason: String, force: Bool = false) -> Bool {
        guard let sessionPath else { return true }
        let text = currentSession().text
        if !force && text == lastSavedText { return true }
        if lastSavedText == nil { SessionStore.removeStaleTemporaries(for: sessionPath) }
        do {
            if backupOnFirstSave {
                backupOnFirstSave = false
                let backup = (sessionPath as NSString).deletingPathExtension + ".previous.json"
                _ = try? FileManager.default.removeItem(atPath: backup)
                try? FileManager.default.copyItem(atPath: sessionPath, toPath: backup)
            }
            try SessionStore.writeAtomically(text, to: sessionPath)
        } catch {
            // Said once per distinct problem (autosave retries every few seconds), and always when asked.
            if error.message != lastSaveError || reason == "request" { reportError(error.message) }
            lastSaveError = error.message
            return false
        }
        lastSaveError = nil
        lastSavedText = text
        emitEvent("saved") { $0.add("path", sessionPath); $0.add("reason", reason) }
        return true
    }

    /// Control loop: a periodic save while something changed.
    func autosaveIfDue() {
        guard sessionPath != nil, Date() >= nextAutosave else { return }
        nextAutosave = Date().addingTimeInterval(Player.autosaveInterval)
        saveSession(reason: "auto")
    }

    /// Applies a session command; returns false after reporting an error.
    func performSession(_ command: ControlCommand) {
        let rate = file.info.sampleRate
        func time(_ frame: Int) -> String { formatTime(frame: frame, sampleRate: rate) }
        switch command {
        case .save:
            if sessionPath == nil { reportError("no session (--no-session): nothing to save"); return }
            if saveSession(reason: "request", force: true) { note("saved the session to \(sessionPath!)") }
        case .loopSave(let name):
            let a = engine.status.loopA.load(ordering: .relaxed), b = engine.status.loopB.load(ordering: .relaxed)
            guard engine.status.loopOn.load(ordering: .relaxed) || a != 0 || b != file.info.frameCount else {
                reportError("set A and B first (a / b), then `loop save \(name)`")
                return
            }
            if let index = session.loops.firstIndex(where: { $0.name == name }) {
                session.loops[index].start = a
                session.loops[index].end = b
            } else {
                session.loops.append(NamedLoop(name: name, start: a, end: b))
            }
            session.activeLoop = name
            emitEvent("loop-saved") { $0.add("name", name); $0.add("a", a); $0.add("b", b) }
            note("saved loop '\(name)': \(time(a)) – \(time(b))")
            saveSession(reason: "loop")
        case .loopSelect(let name):
            // A name first; else a number counts like the keys 1…9 (`loop 2`: the second loop).
            let byNumber = Int(name).flatMap { session.loops.indices.contains($0 - 1) ? $0 - 1 : nil }
            guard let index = session.loops.firstIndex(where: { $0.name == name }) ?? byNumber else {
                reportError(session.loops.isEmpty ? "no loop named '\(name)': none saved yet (`loop save NAME`)"
                                                  : "no loop named '\(name)'; saved: \(session.loops.map(\.name).joined(separator: ", "))")
                return
            }
            selectLoop(index)
        case .loopSelectIndex(let index):
            guard index < session.loops.count else {
                reportError("no loop \(index + 1): \(session.loops.count) saved")
                return
            }
            selectLoop(index)
        case .loopDelete(let name):
            guard let index = session.loops.firstIndex(where: { $0.name == name }) else {
                reportError("no loop named '\(name)'")
                return
            }
            session.loops.remove(at: index)
            if session.activeLoop == name { session.activeLoop = nil }
            emitEvent("loop-deleted") { $0.add("name", name) }
            note("deleted loop '\(name)'")
            saveSession(reason: "loop")
        case .listLoops:
            if options.status == .json {
                var line = JSONLine()
                line.add("event", "loops")
                line.addRaw("loops", "[" + session.loops.map { named in
                    var item = JSONLine()
                    item.add("name", named.name)
                    item.add("a", named.start)
                    item.add("b", named.end)
                    item.add("a_s", seconds(named.start))
                    item.add("b_s", seconds(named.end))
                    return item.text
                }.joined(separator: ",") + "]")
                if let active = session.activeLoop { line.add("active", active) }
                emit(line)
            } else {
                let list = session.loops.enumerated().map { "\($0.offset + 1) \($0.element.name) \(time($0.element.start))–\(time($0.element.end))" }
                note(list.isEmpty ? "no loops saved yet (`loop save NAME`, or a/b then s)" : list.joined(separator: " · "))
            }
        case .trainer(let spec):
            if let spec {
                let started = spec.trainer
                trainer = started
                engine.controls.speed.store(started.speed, ordering: .relaxed)
                emitTrainer()
                note("trainer: \(Int((spec.from * 100).rounded())) % → \(Int((spec.to * 100).rounded())) %, \(spec.step > 0 ? "+" : "")\(Int((spec.step * 100).rounded())) % every \(spec.every) passes")
            } else {
                trainer = nil
                note("trainer off")
            }
        default:
            break
        }
    }

    private func selectLoop(_ index: Int) {
        let named = session.loops[index]
        send(.setLoop(a: named.start, b: named.end))
        send(.seek(frame: named.start))
        session.activeLoop = named.name
        emitEvent("loop-selected") { $0.add("name", named.name); $0.add("a", named.start); $0.add("b", named.end) }
    }

    /// Control thread, on each wrap: the trainer counts the pass and may step the speed.
    func trainerPassCompleted() {
        guard var running = trainer else { return }
        let next = running.passCompleted()
        trainer = running
        if let next {
            engine.controls.speed.store(next, ordering: .relaxed)
            emitTrainer()
            if running.isDone { note("trainer done: \(Int((next * 100).rounded())) %") }
        }
    }

    func emitTrainer() {
        guard let trainer else { return }
        emitEvent("trainer") { $0.add("speed", trainer.speed); $0.add("passes", trainer.passes); $0.add("done", trainer.isDone) }
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
        guard sessionPath != nil || !session.loops.isEmpty else { return nil }
        let loops = session.loops.prefix(9).enumerated().map { index, named in
            named.name == session.activeLoop ? "[\(index + 1) \(named.name)]" : "\(index + 1) \(named.name)"
        }
        let name = sessionPath.map { ($0 as NSString).lastPathComponent } ?? "no session"
        return loops.isEmpty ? "session \(name) · no named loops (a, b, then `loop save NAME` or s)" : "session \(name) · " + loops.joined(separator: "  ")
    }
}
