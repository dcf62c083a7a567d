import Foundation
import RepeaterEngine

/// The dispatcher's part for lines: where they came from, the line heard (for the `line` event),
/// and a drill in progress.
struct LinePractice {
    var lines: RecordingLines?
    /// The line heard at the last status (its index), to report a change once.
    var reported: Int?? = .none
    /// The line loop is on: moving to a line makes it the loop.
    var lineLoop = false
    var drill: DrillState?
    /// The gap the user had before a drill (restored when it stops).
    var gapBeforeDrill: Int?
}

/// A drill in progress: the line being drilled, the passes done at it, and whether the engine has
/// the next line (or the end) queued for its next wrap.
struct DrillState {
    var spec: DrillSpec
    var line: Int
    var passesDone = 0
    var queued = false
}

/// Playing by lines, and drills: every line is a loop like any other (exact to the frame, with the
/// gap and the trainer); a drill plays each line N times, each pass followed by a gap of K × its
/// length, and moves on to the next line at a wrap the engine was told of in advance
/// (`setLoopAtWrap`), so the next line starts right after the gap, exactly.
extension Dispatcher {
    var recordingLines: RecordingLines? { linePractice.lines }

    func performLine(_ line: LineCommand, _ command: Command) {
        guard let lines = linePractice.lines, !lines.lines.isEmpty else {
            refuse("no lines for this recording: play with --subs FILE (SRT, WebVTT, LRC, Audacity labels) or --phrases auto", command)
            return
        }
        let heard = audibleFrame
        let current = lines.indexAtOrBefore(heard)
        switch line {
        case .next:
            guard let next = lines.lines.firstIndex(where: { $0.startFrame > heard }) else { refuse("this is the last line", command); return }
            go(toLine: next, command.source)
        case .previous: go(toLine: max(0, current - 1), command.source)
        case .again: go(toLine: max(0, current), command.source)
        case .number(let number):
            guard number <= lines.lines.count else { refuse("line \(number): there are \(lines.lines.count) lines", command); return }
            go(toLine: number - 1, command.source)
        case .loop(let on):
            let value = on ?? !(linePractice.lineLoop && loopOn)
            linePractice.lineLoop = value
            if value {
                let index = lines.index(at: heard) ?? max(0, current)
                let target = lines.lines[index]
                send(.setLoop(a: target.startFrame, b: target.endFrame), command.source)
            } else {
                send(.loopEnabled(false), command.source)
            }
            output.event(PlayerEvent("line-loop", source: command.source, note: value ? "looping the line" : "line loop off") { $0.add("on", value) })
        case .drill(let spec):
            if let spec { startDrill(spec, at: max(0, current), source: command.source) } else { stopDrill(source: command.source) }
        }
    }

    /// Moves to line `index`: it becomes the loop when a loop is on (the line loop, one set by
    /// hand, or a drill's); playback continues from its start.
    private func go(toLine index: Int, _ source: CommandSource) {
        guard let lines = linePractice.lines else { return }
        let target = lines.lines[index]
        if linePractice.drill != nil {
            startDrill(linePractice.drill!.spec, at: index, source: source)
            return
        }
        // A loop on (the line's or one by hand) moves to the line: it becomes the line loop.
        if loopOn { linePractice.lineLoop = true }
        if linePractice.lineLoop { send(.setLoop(a: target.startFrame, b: target.endFrame), source) }
        send(.seek(frame: target.startFrame), source)
    }

    // MARK: drills

    /// Starts (or restarts) a drill at line `index`: the line is the loop, with its gap, from its
    /// start (`seek` false: the engine is there already).
    func startDrill(_ spec: DrillSpec, at index: Int, source: CommandSource, seek: Bool = true) {
        guard let lines = linePractice.lines, lines.lines.indices.contains(index) else { return }
        if linePractice.gapBeforeDrill == nil { linePractice.gapBeforeDrill = gapFrames }
        send(.cancelAtWrap, source)
        let line = lines.lines[index]
        send(.gap(frames: drillGap(spec, line)), source)
        send(.setLoop(a: line.startFrame, b: line.endFrame), source)
        if seek { send(.seek(frame: line.startFrame), source) }
        linePractice.drill = DrillState(spec: spec, line: index)
        session.drill = spec
        session.drillLine = index + 1
        announceDrill(source: source)
        queueNextIfDue(source: source)
    }

    func stopDrill(source: CommandSource) {
        guard linePractice.drill != nil else { return }
        linePractice.drill = nil
        session.drill = nil
        send(.cancelAtWrap, source)
        if let gap = linePractice.gapBeforeDrill { send(.gap(frames: gap), source) }
        linePractice.gapBeforeDrill = nil
        output.event(PlayerEvent("drill", source: source, note: "drill off") { $0.add("state", "off") })
    }

    /// The gap after each pass of `line`: K × its length, in the recording's frames (the engine
    /// stretches it with the line, so it lasts K × the line at the current speed).
    private func drillGap(_ spec: DrillSpec, _ line: MapLine) -> Int {
        Int((spec.gapFactor * Double(line.endFrame - line.startFrame)).rounded())
    }

    /// When the pass now playing is the line's last: the next line (or the end) for the next wrap.
    private func queueNextIfDue(source: CommandSource) {
        guard var drill = linePractice.drill, !drill.queued, drill.passesDone >= drill.spec.passes - 1, let lines = linePractice.lines else { return }
        if drill.line + 1 < lines.lines.count {
            let next = lines.lines[drill.line + 1]
            send(.setLoopAtWrap(a: next.startFrame, b: next.endFrame, gapFrames: drillGap(drill.spec, next)), source)
        } else {
            send(.finishAtWrap, source)
        }
        drill.queued = true
        linePractice.drill = drill
    }

    /// A wrap while drilling: another pass of the line, or on to the next line, or (at the end) done.
    func drillWrapped(from: Int, to: Int) {
        guard var drill = linePractice.drill, let lines = linePractice.lines else { return }
        if from == to {  // the drill's last pass: the source ends here
            linePractice.drill = nil
            session.drill = drill.spec
            session.drillLine = 1  // done: the next drill starts from the top
            output.event(PlayerEvent("drill", source: .player, note: "drill done: \(lines.lines.count) lines") { $0.add("state", "done") })
            saveSession(reason: "drill")
            return
        }
        if drill.line + 1 < lines.lines.count, to == lines.lines[drill.line + 1].startFrame, drill.queued {
            drill = DrillState(spec: drill.spec, line: drill.line + 1)
            linePractice.drill = drill
            session.drillLine = drill.line + 1
            announceDrill(source: .player)
            saveSession(reason: "drill")
        } else if to == lines.lines[drill.line].startFrame {
            drill.passesDone += 1
            linePractice.drill = drill
        }
        queueNextIfDue(source: .player)
    }

    private func announceDrill(source: CommandSource) {
        guard let drill = linePractice.drill, let lines = linePractice.lines else { return }
        let line = lines.lines[drill.line]
        output.event(PlayerEvent("drill", source: source, note: "drill: line \(drill.line + 1) of \(lines.lines.count), \(drill.spec.passes) × with gaps of \(drill.spec.gapFactor) × the line") {
            $0.add("state", "line")
            $0.add("line", drill.line + 1)
            $0.add("lines", lines.lines.count)
            $0.add("passes", drill.spec.passes)
            $0.add("gap_factor", drill.spec.gapFactor)
            $0.add("start_s", self.seconds(line.startFrame))
            $0.add("end_s", self.seconds(line.endFrame))
        })
    }

    // MARK: the line heard

    /// Control loop: a `line` event when the line heard changes (and the snapshot's line).
    func linesSnapshot(at frame: Int) -> LinesSnapshot {
        var snapshot = LinesSnapshot()
        guard let lines = linePractice.lines else { return snapshot }
        snapshot.count = lines.lines.count
        snapshot.source = lines.source
        let index = lines.index(at: frame)
        if let index {
            let line = lines.lines[index]
            snapshot.current = (index + 1, line.text, seconds(line.startFrame), seconds(line.endFrame))
        }
        let after = index.map { $0 + 1 } ?? lines.lines.firstIndex { $0.startFrame > frame }
        if let after, after < lines.lines.count { snapshot.next = lines.lines[after].text }
        if let drill = linePractice.drill { snapshot.drill = (drill.line + 1, drill.passesDone + 1, drill.spec.passes) }
        if linePractice.reported != .some(index) {
            linePractice.reported = .some(index)
            output.event(PlayerEvent("line") {
                if let current = snapshot.current {
                    $0.add("index", current.index)
                    $0.add("text", current.text)
                    $0.add("start_s", current.start)
                    $0.add("end_s", current.end)
                } else {
                    $0.addRaw("index", "null")
                }
            })
        }
        return snapshot
    }
}

/// The lines as the sinks show them.
public struct LinesSnapshot: Sendable {
    /// Lines known, and where they came from (nil: none).
    public var count = 0
    public var source: String?
    /// The line heard: 1-based index, text, start and end in seconds.
    public var current: (index: Int, text: String, start: Double, end: Double)?
    /// The next line's text.
    public var next: String?
    /// A drill in progress: the line, the pass (1-based) and the passes per line.
    public var drill: (line: Int, pass: Int, passes: Int)?

    public init() {}
}
