import CRepeaterSupport
import Foundation
import RepeaterAnalysis
import RepeaterEngine
import Synchronization

/// The note view: which notes sound (named with octave and cents), their energy per piano key, and
/// a chord guess, from the engine's tap of what is heard (after speed, pitch and isolation). A
/// thread of its own (behind the control thread: nice 5) drains the tap ten times a second and analyses either
/// the last ~170 ms (`playhead`) or everything heard since the loop began (`loop`, averaged); the
/// control thread takes the latest report, never waiting for an analysis.
public final class NoteView: @unchecked Sendable {
    public let sampleRate: Int
    private let engine: Engine
    private let mailbox = Mutex<Mailbox>(Mailbox())
    private let worker = WorkerThread(name: "repeater-notes")

    struct Mailbox {
        var report: NoteReport?
        var mode = NoteViewMode.playhead
        /// Set by the control thread: the loop average starts again (a new loop, another pitch).
        var resetLoop = false
        /// Analyses done, and the longest one (ms), for the status.
        var analyses = 0
        var longestMilliseconds = 0.0
    }

    public init(engine: Engine, sampleRate: Int) {
        self.engine = engine
        self.sampleRate = sampleRate
    }

    deinit { stop() }

    public func start() {
        guard !worker.isRunning else { return }
        engine.controls.tapOn.store(true, ordering: .relaxed)
        worker.start { [self] in
            // Behind the control thread, but not starved: the strip must follow the music on a
            // machine busy with other work (at nice 19 it showed nothing for 15 s beside two busy
            // loops), and it shares the FFT planner's lock and its mailbox with the control thread.
            _ = repeater_thread_set_nice(5)
            run()
        }
    }

    /// Stops the analysis (waiting at most `seconds` for its thread, which runs at the lowest
    /// priority; nil: until it has stopped).
    public func stop(waitingAtMost seconds: Double? = nil) {
        guard worker.isRunning else { return }  // (an old view going away must not turn a new one's tap off)
        engine.controls.tapOn.store(false, ordering: .relaxed)
        worker.stop(waitingAtMost: seconds)
    }

    /// Control thread: the latest report, and the mode it was made in.
    public func latest() -> (report: NoteReport?, mode: NoteViewMode) { mailbox.withLock { ($0.report, $0.mode) } }

    public var mode: NoteViewMode {
        get { mailbox.withLock { $0.mode } }
        set {
            mailbox.withLock {
                if $0.mode != newValue { $0.resetLoop = true }
                $0.mode = newValue
            }
        }
    }

    /// Control thread: the loop average starts again at the next block (a new loop, another pitch).
    public func resetLoop() { mailbox.withLock { $0.resetLoop = true } }

    /// Analyses so far and the longest (ms).
    public var cost: (analyses: Int, longestMilliseconds: Double) { mailbox.withLock { ($0.analyses, $0.longestMilliseconds) } }

    private func run() {
        let analyzer = NoteAnalyzer(sampleRate: Double(sampleRate))
        var history: [Float] = []
        var fresh: [Float] = []
        while !worker.stopping {
            usleep(100_000)
            fresh.removeAll(keepingCapacity: true)
            engine.tap.drain(into: &fresh)
            let (mode, reset) = mailbox.withLock { box -> (NoteViewMode, Bool) in
                defer { box.resetLoop = false }
                return (box.mode, box.resetLoop)
            }
            if reset { analyzer.resetLoop() }
            history.append(contentsOf: fresh)
            if history.count > analyzer.playheadFrameCount { history.removeFirst(history.count - analyzer.playheadFrameCount) }
            let start = DispatchTime.now()
            let report: NoteReport
            switch mode {
            case .playhead:
                guard !fresh.isEmpty else { continue }  // nothing new heard (paused): keep the last
                report = analyzer.analyze(window: history)
            case .loop:
                if !fresh.isEmpty { analyzer.addToLoop(fresh) }
                report = analyzer.loopReport()
            }
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
            mailbox.withLock { box in
                box.report = report
                box.analyses += 1
                box.longestMilliseconds = max(box.longestMilliseconds, milliseconds)
            }
        }
    }
}
