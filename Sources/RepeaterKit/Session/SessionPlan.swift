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
        if !given.contains("--isolate") { sound.isolation = s.isolation }
        if !given.contains("--eq") { sound.equalizer = s.equalizer }
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
