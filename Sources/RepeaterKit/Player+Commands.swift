import Foundation
import RepeaterEngine

/// Keys and stdin commands → engine commands, checked against the file first.
extension Player {
    /// The keys, as `?` shows them and the README lists them.
    static let keyHelp = """
    space play/pause · a / b set A / B here · l loop on/off · ←/→ seek 5 s · Home jump to A
    , / . move A 10 ms earlier / later · < / > move B 10 ms earlier / later · t chime the time
    [ / ] speed −/+5 % · { / } pitch −/+1 semitone · = speed 1, pitch 0
    ↑ / ↓ volume ±1 dB · ( / ) pan left / right · s save the session · n save A–B as a named loop
    1 … 9 play a named loop · q quit · ? keys
    """

    func command(for key: Key) -> ControlCommand? {
        switch key {
        case .character("q"), .character("Q"): return .quit
        case .character(" "): return .toggle
        case .character("?"), .character("h"): return .help
        case .character("a"): return .setA(nil)
        case .character("b"): return .setB(nil)
        case .character("l"): return .toggleLoop
        case .character("t"): return .chimeNow
        case .character("s"): return .save
        case .character("n"): return .loopSaveNew
        case .character(let digit) where ("1"..."9").contains(digit): return .loopSelectIndex(Int(String(digit))! - 1)
        case .character("["): return .rateBy(-0.05)
        case .character("]"): return .rateBy(0.05)
        case .character("{"): return .pitchBy(-1)
        case .character("}"): return .pitchBy(1)
        case .character("="): return .resetRatePitch
        case .character(","): return .nudgeA(-0.010)
        case .character("."): return .nudgeA(0.010)
        case .character("<"): return .nudgeB(-0.010)
        case .character(">"): return .nudgeB(0.010)
        case .up: return .volumeBy(1)
        case .down: return .volumeBy(-1)
        case .character("("): return .panBy(-0.1)
        case .character(")"): return .panBy(0.1)
        case .home: return .jumpToA
        case .left: return .seekBy(-5)
        case .right: return .seekBy(5)
        default: return nil
        }
    }

    /// Commands that read what the engine has made of the commands before them (A and B): they wait
    /// until it has taken those and published the result.
    static func readsEngineState(_ command: ControlCommand) -> Bool {
        switch command {
        case .save, .loopSave, .loopSaveNew: return true
        default: return false
        }
    }

    /// True once the audio thread has taken every command sent so far and published its status
    /// (a command is taken at the start of the next cycle; status is published at its end).
    var engineCaughtUp: Bool { engine.status.cycles.load(ordering: .relaxed) >= lastSentCycle + 2 }

    /// Applies a command in order; returns true for quit. A command that reads the engine's state
    /// waits for the engine to catch up, and everything after it queues behind it.
    func perform(_ command: ControlCommand) -> Bool {
        if !queuedCommands.isEmpty || (Player.readsEngineState(command) && !engineCaughtUp) {
            queuedCommands.append(command)
            return false
        }
        return performNow(command)
    }

    /// Control loop: runs queued commands whose turn has come; returns true for quit.
    func runQueuedCommands() -> Bool {
        while let head = queuedCommands.first {
            if Player.readsEngineState(head) && !engineCaughtUp { return false }
            queuedCommands.removeFirst()
            if performNow(head) { return true }
        }
        return false
    }

    /// Applies a command now; returns true for quit. Anything out of range is an error line or event
    /// and changes nothing.
    func performNow(_ command: ControlCommand) -> Bool {
        let rate = file.info.sampleRate
        let length = file.info.frameCount
        let a = engine.status.loopA.load(ordering: .relaxed)
        let b = engine.status.loopB.load(ordering: .relaxed)
        func time(_ frame: Int) -> String { formatTime(frame: frame, sampleRate: rate) }
        switch command {
        case .quit: return true
        case .play: send(.play)
        case .pause: send(.pause)
        case .toggle: send(.toggle)
        case .jumpToA: send(.seekToA)
        case .seek(let spec):
            let frame = spec.frame(atRate: rate)
            guard frame < length else { return failed("seek \(time(frame)) is past the end (\(time(length)))") }
            send(.seek(frame: frame))
        case .seekBy(let seconds):
            let target = audibleFrame + Int((seconds * Double(rate)).rounded())
            send(.seek(frame: min(max(0, target), length - 1)))
        case .setA(let spec):
            guard let spec else { send(.setA(frame: nil)); break }
            let frame = spec.frame(atRate: rate)
            guard frame < b else { return failed("A \(time(frame)) must be before B \(time(b))") }
            send(.setA(frame: frame))
        case .setB(let spec):
            guard let spec else { send(.setB(frame: nil)); break }
            let frame = spec.frame(atRate: rate)
            guard frame <= length else { return failed("B \(time(frame)) is after the end (\(time(length)))") }
            guard frame > a else { return failed("B \(time(frame)) must be after A \(time(a))") }
            send(.setB(frame: frame))
        case .nudgeA(let seconds):
            let frame = max(0, a + Int((seconds * Double(rate)).rounded()))
            guard frame < b else { return failed("A cannot move to or past B (\(time(b)))") }
            send(.setA(frame: frame))
        case .nudgeB(let seconds):
            let frame = min(length, b + Int((seconds * Double(rate)).rounded()))
            guard frame > a else { return failed("B cannot move to or before A (\(time(a)))") }
            send(.setB(frame: frame))
        case .loop(let spec):
            do {
                let frames = try spec.frames(sampleRate: rate, frameCount: length)
                send(.setLoop(a: frames.a, b: frames.b))
            } catch {
                return failed(error.message)
            }
        case .loopOn(let on): send(.loopEnabled(on))
        case .toggleLoop: send(.loopEnabled(!engine.status.loopOn.load(ordering: .relaxed)))
        case .gap(let spec):
            let frames = spec.frame(atRate: rate)
            guard frames <= 60 * rate else { return failed("gap \(time(frames)) is longer than a minute") }
            send(.gap(frames: frames))
            gapFrames = frames
        case .chime(let hour, let minute): send(.chime(hour: hour, minute: minute))
        case .chimeNow:
            let now = ChimeOptions.now()
            send(.chime(hour: now.hour, minute: now.minute))
        case .rate(let value): engine.controls.speed.store(value, ordering: .relaxed)
        case .pitch(let value): engine.controls.pitchSemitones.store(value, ordering: .relaxed)
        case .rateBy(let delta):
            let value = ((engine.controls.speed.load(ordering: .relaxed) + delta) * 100).rounded() / 100
            guard (0.25...4).contains(value) else { return failed("speed stays between 0.25 and 4") }
            engine.controls.speed.store(value, ordering: .relaxed)
        case .pitchBy(let delta):
            let value = engine.controls.pitchSemitones.load(ordering: .relaxed) + delta
            guard (-24...24).contains(value) else { return failed("pitch stays between -24 and +24 semitones") }
            engine.controls.pitchSemitones.store(value, ordering: .relaxed)
        case .resetRatePitch:
            engine.controls.speed.store(1, ordering: .relaxed)
            engine.controls.pitchSemitones.store(0, ordering: .relaxed)
        case .volume(let gain): engine.setLevel(volume: gain, pan: engine.controls.pan.load(ordering: .relaxed))
        case .volumeBy(let delta):
            let gain = Volume.stepped(engine.controls.volume.load(ordering: .relaxed), by: delta)
            engine.setLevel(volume: gain, pan: engine.controls.pan.load(ordering: .relaxed))
        case .pan(let value), .panBy(let value):
            guard file.info.channelCount <= 2 else { return failed("pan works on mono and stereo files; this one has \(file.info.channelCount) channels") }
            var pan = value
            if case .panBy = command { pan = ((engine.controls.pan.load(ordering: .relaxed) + value) * 10).rounded() / 10 }
            engine.setLevel(volume: engine.controls.volume.load(ordering: .relaxed), pan: min(1, max(-1, pan)))
        case .save, .loopSave, .loopSelect, .loopSelectIndex, .loopDelete, .listLoops, .trainer: performSession(command)
        case .loopSaveNew:
            let taken = Set(session.loops.map(\.name))
            performSession(.loopSave((1...).lazy.map { "loop \($0)" }.first { !taken.contains($0) }!))
        case .status: printStatus(force: true)
        case .help:
            if painter != nil {
                showHelp.toggle()
                printStatus()
            } else {
                clearStatusLine()
                Console.writeErr(Player.keyHelp + "\n")
            }
        }
        return false
    }

    private func failed(_ message: String) -> Bool {
        reportError(message)
        return false
    }

    func send(_ command: EngineCommand) {
        lastSentCycle = engine.status.cycles.load(ordering: .relaxed)
        if !engine.commands.push(command) { reportError("the audio thread is not taking commands (queue full)") }
    }
}
