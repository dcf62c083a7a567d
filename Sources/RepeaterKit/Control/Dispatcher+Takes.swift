import Foundation
import RepeaterEngine

/// What the dispatcher needs of the JACK client for recording (the Player sets it).
public protocol RecordingPorts: AnyObject {
    /// Everything connected to the audio ports now, as one key (a calibration holds for it).
    var connectionKey: String { get }
    /// The round trip JACK reports: out_1's playback latency plus in_1's capture latency.
    var reportedRoundTripFrames: Int { get }
    var sampleRate: Int { get }
}

/// The dispatcher's part for takes: recording armed, the take being recorded, the round trip, and
/// the take being heard.
struct TakePractice {
    var recorder: TakeRecorder?
    weak var ports: (any RecordingPorts)?
    /// Where take files go, and the session's folder (take files are named relative to it).
    var folder = ""
    var sessionFolder: String?
    var armed = false
    /// A calibration runs: its probe replaces the output, so no take is made meanwhile.
    var calibrating = false
    /// The measurement of this calibration under way (a dropout disturbs one: it is measured again,
    /// up to `calibrationTries` in all, before the calibration fails).
    var calibrationTry = 0
    static let calibrationTries = 5
    var roundTrip = 0
    var roundTripMeasured = false
    var latencyStore = LatencyStore()
    /// The isolation's delay between the engine's marks and the ports.
    var isolationDelay = 0
    var nextID = 1
    var open: TakeInProgress?
    var pending: [Int: TakeInProgress] = [:]
    var compare = CompareMode.alternate
    var comparePan = 0.0
    var takesMax = 50
    /// The take heard now (its number), and the gap to restore when it stops.
    var playing: Int?
    var gapBeforePlaying: Int?
}

/// A take between its start mark and its file.
struct TakeInProgress {
    let id: Int
    let number: Int
    let kind: Take.Kind
    let pass: Int
    let line: Int?
    let startFrame: Int
    let endFrame: Int
    let speed: Double
    let roundTrip: Int
    let measured: Bool
    let path: String
}

/// Recording yourself against the loop: every pass of the loop (in a drill, every answer in the gap
/// after a line) is a take, cut from the input by the engine's own marks of where each pass starts
/// and ends as heard, moved by the round trip out → … → in, so that a take's frame k is what came
/// back while the output frame k after its start was playing.
extension Dispatcher {
    func performTake(_ take: TakeCommand, _ command: Command) {
        let source = command.source
        switch take {
        case .compare(let mode):
            takePractice.compare = mode
            output.event(PlayerEvent("compare", source: source, note: "takes are heard: \(mode.rawValue)") { $0.add("mode", mode.rawValue) })
            if let playing = takePractice.playing { playTake(playing, source: source, command: command) }
            return
        case .play(let number): playTake(number, source: source, command: command); return
        case .stop: stopTake(source: source); return
        case .playToggle:
            if takePractice.playing != nil { stopTake(source: source) } else { playTake(nil, source: source, command: command) }
            return
        case .keep(let number):
            guard let index = session.takes.firstIndex(where: { $0.number == number }) else { refuse("there is no take \(number)", command); return }
            keeper.session.takes[index].kept = true
            output.event(PlayerEvent("take-kept", source: source, note: "take \(number) is kept") { $0.add("number", number) })
            saveSession(reason: "take")
            return
        case .delete(let number):
            guard let index = session.takes.firstIndex(where: { $0.number == number }) else { refuse("there is no take \(number)", command); return }
            if takePractice.playing == number { stopTake(source: source) }
            removeTake(at: index)
            output.event(PlayerEvent("take-deleted", source: source, note: "take \(number) deleted") { $0.add("number", number) })
            saveSession(reason: "take")
            return
        case .record, .calibrate: break
        }
        guard let recorder = takePractice.recorder else {
            refuse("recording needs input ports: play with --record auto (or --record PATTERN)", command)
            return
        }
        switch take {
        case .record(let on):
            let armed = on ?? !takePractice.armed
            takePractice.armed = armed
            recorder.capture.armed.store(armed, ordering: .relaxed)
            if armed { refreshRoundTrip() } else { cancelOpenTake() }
            output.event(PlayerEvent("record", source: source, note: armed ? "recording: every pass is a take" : "recording off") {
                $0.add("on", armed)
                $0.add("round_trip", self.takePractice.roundTrip)
                $0.add("measured", self.takePractice.roundTripMeasured)
            })
        case .calibrate:
            cancelOpenTake()
            takePractice.calibrating = true
            takePractice.calibrationTry = 1
            recorder.calibrate()
            output.event(PlayerEvent("calibrating", source: source, note: "calibrating: a short noise from the outputs, listened for on in_1"))
        default: break
        }
    }

    /// The round trip for the connections now: measured for them before, else what JACK reports.
    func refreshRoundTrip() {
        guard let ports = takePractice.ports else { return }
        if let measured = takePractice.latencyStore.roundTrip(connections: ports.connectionKey, sampleRate: ports.sampleRate) {
            takePractice.roundTrip = measured
            takePractice.roundTripMeasured = true
        } else {
            takePractice.roundTrip = ports.reportedRoundTripFrames
            takePractice.roundTripMeasured = false
        }
    }

    // MARK: marks from the engine

    /// A pass starts being heard at `outputFrame`: an answer being recorded ends; a take of this
    /// pass begins (recording armed, no drill).
    func takesPassStarted(frame: Int, outputFrame: Int) {
        if let open = takePractice.open {
            if open.kind == .answer { endOpenTake(at: outputFrame) } else { cancelOpenTake() }
        }
        guard takePractice.armed, !takePractice.calibrating, linePractice.drill == nil else { return }
        beginTake(kind: .pass, line: nil, startFrame: frame, endFrame: loopB, at: outputFrame)
    }

    /// A pass ends (the gap starts) at `outputFrame`: its take ends; in a drill, the answer begins.
    func takesWrapped(from: Int, to: Int, outputFrame: Int) {
        if let open = takePractice.open {
            if open.kind == .pass { endOpenTake(at: outputFrame) } else { cancelOpenTake() }
        }
        guard takePractice.armed, !takePractice.calibrating, let drill = linePractice.drill, let lines = linePractice.lines,
              lines.lines.indices.contains(drill.line), drill.spec.gapFactor > 0 else { return }
        let line = lines.lines[drill.line]
        beginTake(kind: .answer, line: drill.line + 1, startFrame: line.startFrame, endFrame: line.endFrame, at: outputFrame)
    }

    /// The source ended at `outputFrame`: a drill's last answer ends there; a pass take is dropped.
    func takesFinished(outputFrame: Int) {
        guard let open = takePractice.open else { return }
        if open.kind == .answer { endOpenTake(at: outputFrame) } else { cancelOpenTake() }
    }

    /// A seek, a pause or a loop moved: the take being recorded is not a pass any more.
    func takesInterrupted(answersToo: Bool) {
        guard let open = takePractice.open else { return }
        if open.kind == .pass || answersToo { cancelOpenTake() }
    }

    private func beginTake(kind: Take.Kind, line: Int?, startFrame: Int, endFrame: Int, at outputFrame: Int) {
        guard let recorder = takePractice.recorder else { return }
        refreshRoundTrip()
        let id = takePractice.nextID
        takePractice.nextID += 1
        let used = session.takes.map(\.number) + takePractice.pending.values.map(\.number)
        let number = (used.max() ?? 0) + 1
        let path = takePractice.folder + "/take-\(String(format: "%04d", number)).flac"
        let take = TakeInProgress(id: id, number: number, kind: kind, pass: engine.status.passes.load(ordering: .relaxed) + (kind == .pass ? 1 : 0),
                                  line: line, startFrame: startFrame, endFrame: endFrame, speed: engine.controls.speed.load(ordering: .relaxed),
                                  roundTrip: takePractice.roundTrip, measured: takePractice.roundTripMeasured, path: path)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: takePractice.folder, isDirectory: &isDirectory)
        var problem: String?
        if exists && !isDirectory.boolValue {
            problem = "it is a file"
        } else if !exists {
            do { try FileManager.default.createDirectory(atPath: takePractice.folder, withIntermediateDirectories: true) } catch {
                problem = error.localizedDescription
            }
        }
        if let problem {
            takeWarning("cannot make the takes folder '\(takePractice.folder)' (\(problem)); take \(number) is dropped, the music goes on")
            return
        }
        takePractice.open = take
        recorder.begin(id: id, startTag: outputFrame + takePractice.isolationDelay + take.roundTrip, roundTrip: take.roundTrip, path: path)
    }

    private func endOpenTake(at outputFrame: Int) {
        guard let open = takePractice.open, let recorder = takePractice.recorder else { return }
        takePractice.open = nil
        takePractice.pending[open.id] = open
        recorder.end(id: open.id, endTag: outputFrame + takePractice.isolationDelay + open.roundTrip)
    }

    private func cancelOpenTake() {
        guard let open = takePractice.open else { return }
        takePractice.open = nil
        takePractice.recorder?.cancel(id: open.id)
    }

    // MARK: results

    /// Control loop: takes written or dropped, calibrations done, takes the engine let go of.
    func pollTakes() {
        while let bits = engine.usedTakes.pop() { TakeAudio.free(bits) }
        guard let recorder = takePractice.recorder else { return }
        for result in recorder.takeResults() {
            switch result {
            case .saved(let id, let path, let frameCount):
                guard let made = takePractice.pending.removeValue(forKey: id) else { continue }
                takeSaved(made, path: path, frameCount: frameCount)
            case .dropped(let id, let reason):
                let made = takePractice.pending.removeValue(forKey: id)
                takeWarning("take \(made.map { String($0.number) } ?? "") dropped: \(reason); the music goes on")
            case .calibrated(let frames, let reason, let dropout):
                if frames == nil, dropout, takePractice.calibrationTry < TakePractice.calibrationTries {
                    // A dropout says nothing of the path: measure again, as the user would.
                    takePractice.calibrationTry += 1
                    let attempt = takePractice.calibrationTry
                    output.event(PlayerEvent("calibrating", note: "a dropout disturbed the measurement: measuring again (\(attempt) of \(TakePractice.calibrationTries))") {
                        $0.add("try", attempt)
                        $0.add("reason", "dropout")
                    })
                    recorder.calibrate()
                    continue
                }
                takePractice.calibrating = false
                guard let frames, let ports = takePractice.ports else {
                    let tries = takePractice.calibrationTry
                    let why = dropout && tries > 1 ? "\(reason ?? "a dropout"), \(tries) times" : reason ?? "no probe"
                    output.event(PlayerEvent("calibrated", note: "calibration failed: \(why)") {
                        $0.addRaw("frames", "null")
                        $0.add("reason", why)
                    })
                    continue
                }
                let reported = ports.reportedRoundTripFrames
                takePractice.roundTrip = frames
                takePractice.roundTripMeasured = true
                if let problem = takePractice.latencyStore.save(connections: ports.connectionKey, sampleRate: ports.sampleRate, frames: frames) {
                    takeWarning(problem)
                }
                output.event(PlayerEvent("calibrated", note: "round trip \(frames) frames (\(String(format: "%.1f", Double(frames) * 1000 / Double(ports.sampleRate))) ms); JACK reports \(reported)") {
                    $0.add("frames", frames)
                    $0.add("ms", Double(frames) * 1000 / Double(ports.sampleRate))
                    $0.add("reported_frames", reported)
                    $0.add("connections", ports.connectionKey)
                })
            }
        }
    }

    private func takeSaved(_ made: TakeInProgress, path: String, frameCount: Int) {
        let file = takePractice.sessionFolder.map { folder in
            path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path
        } ?? path
        let take = Take(number: made.number, file: file, kind: made.kind, pass: made.pass, line: made.line, startFrame: made.startFrame,
                        endFrame: made.endFrame, speed: made.speed, frameCount: frameCount,
                        sampleRate: takePractice.ports?.sampleRate ?? rate, roundTripFrames: made.roundTrip,
                        roundTripMeasured: made.measured, recorded: ISO8601DateFormatter().string(from: Date()))
        keeper.session.takes.append(take)
        while keeper.session.takes.count > takePractice.takesMax, let oldest = keeper.session.takes.firstIndex(where: { !$0.kept }) {
            removeTake(at: oldest)
        }
        output.event(PlayerEvent("take", note: "take \(take.number) saved (\(take.kind == .answer ? "answer to line \(take.line ?? 0)" : "pass \(take.pass)"))") {
            $0.add("number", take.number)
            $0.add("file", path)
            $0.add("kind", take.kind.rawValue)
            $0.add("pass", take.pass)
            if let line = take.line { $0.add("line", line) }
            $0.add("start", take.startFrame)
            $0.add("end", take.endFrame)
            $0.add("start_s", self.seconds(take.startFrame))
            $0.add("end_s", self.seconds(take.endFrame))
            $0.add("speed", take.speed)
            $0.add("frames", frameCount)
            $0.add("round_trip", take.roundTripFrames)
            $0.add("measured", take.roundTripMeasured)
        })
        saveSession(reason: "take")
    }

    private func removeTake(at index: Int) {
        let take = keeper.session.takes.remove(at: index)
        unlink(takePath(take))
    }

    func takePath(_ take: Take) -> String {
        take.file.hasPrefix("/") ? take.file : (takePractice.sessionFolder ?? takePractice.folder) + "/" + take.file
    }

    private func takeWarning(_ text: String) {
        output.event(PlayerEvent("warning", note: text) { $0.add("message", text) })
    }

    // MARK: hearing a take

    /// Take `number` (nil: the last) over its loop, as `compare` says; its speed is the take's.
    private func playTake(_ number: Int?, source: CommandSource, command: Command) {
        guard let take = number.map({ n in session.takes.first { $0.number == n } }) ?? session.takes.last else {
            refuse(number.map { "there is no take \($0)" } ?? "there are no takes yet: R arms recording", command)
            return
        }
        let path = takePath(take)
        guard FileManager.default.fileExists(atPath: path) else {
            if let index = session.takes.firstIndex(where: { $0.number == take.number }) { keeper.session.takes.remove(at: index) }
            saveSession(reason: "take")
            refuse("take \(take.number)'s file is gone ('\(path)'): removed from the session", command)
            return
        }
        let audio: (channels: [[Float]], sampleRate: Int)
        do { audio = try TakeFile.read(path) } catch {
            refuse("take \(take.number) cannot be read: \(error.message)", command)
            return
        }
        if let ports = takePractice.ports, audio.sampleRate != ports.sampleRate {
            refuse("take \(take.number) was recorded at \(audio.sampleRate) Hz, JACK runs at \(ports.sampleRate) Hz", command)
            return
        }
        if linePractice.drill != nil { stopDrill(source: source) }
        if takePractice.gapBeforePlaying == nil { takePractice.gapBeforePlaying = gapFrames }
        let mode: TakeCompare = take.kind == .answer ? .alternate : [.alternate: .alternate, .both: .both, .take: .take][takePractice.compare]!
        let bits = TakeAudio.handOver(TakeAudio(channels: audio.channels))
        if abs(engine.controls.speed.load(ordering: .relaxed) - take.speed) > 1e-9 { _ = performNow(Command(.rate(take.speed), source: source)) }
        if take.kind == .answer {
            // The line, the answer in the gap after it, the line again: the gap lasts the answer.
            let fileFramesPerOutputFrame = take.speed * Double(rate) / Double(audio.sampleRate)
            send(.gap(frames: Int((Double(audio.channels.first?.count ?? 0) * fileFramesPerOutputFrame).rounded())), source)
        }
        if !engine.send(.compare(take: bits, mode: mode, atGap: take.kind == .answer, pan: Float(takePractice.comparePan)), source: source) {
            TakeAudio.free(bits)
        }
        send(.setLoop(a: take.startFrame, b: take.endFrame), source)
        send(.seek(frame: take.startFrame), source)
        takePractice.playing = take.number
        output.event(PlayerEvent("take-play", source: source, note: "take \(take.number): \(take.kind == .answer ? "the line, your answer, the line again" : takePractice.compare.rawValue)") {
            $0.add("number", take.number)
            $0.add("mode", take.kind == .answer ? "answer" : self.takePractice.compare.rawValue)
        })
    }

    private func stopTake(source: CommandSource) {
        guard takePractice.playing != nil else { return }
        send(.compareOff, source)
        if let gap = takePractice.gapBeforePlaying { send(.gap(frames: gap), source) }
        takePractice.gapBeforePlaying = nil
        takePractice.playing = nil
        output.event(PlayerEvent("take-play", source: source, note: "the recording alone") { $0.addRaw("number", "null") })
    }

    /// What the sinks show of recording.
    func takesSnapshot() -> TakesSnapshot {
        var snapshot = TakesSnapshot()
        guard let recorder = takePractice.recorder else { return snapshot }
        snapshot.enabled = true
        snapshot.armed = takePractice.armed
        snapshot.recording = takePractice.open != nil
        snapshot.roundTrip = takePractice.roundTrip
        snapshot.measured = takePractice.roundTripMeasured
        snapshot.takeCount = session.takes.count
        snapshot.playing = takePractice.playing
        snapshot.dropped = recorder.capture.droppedBlocks.load(ordering: .relaxed)
        return snapshot
    }
}

/// Recording as the sinks show it.
public struct TakesSnapshot: Sendable {
    /// Input ports exist (`--record`).
    public var enabled = false
    public var armed = false
    /// A take is being recorded now.
    public var recording = false
    public var roundTrip = 0
    public var measured = false
    public var takeCount = 0
    public var playing: Int?
    /// Input blocks the capture had no room for.
    public var dropped = 0
    /// The input meters (one per input port).
    public var input: [ChannelLevel] = []

    public init() {}
}
