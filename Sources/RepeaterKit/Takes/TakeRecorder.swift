import Foundation
import Synchronization

/// The control side of recording: a thread of its own ("repeater-takes") drains the input blocks
/// the process callback captures (`InputCapture`) into a history of the last 10.9 s, cuts takes out
/// of it, writes each as a FLAC file, and runs calibrations. The control thread only posts requests
/// and collects results (both under a lock held for a copy), so a slow or full disk never reaches
/// it, and never the audio thread: the capture ring absorbs 10.9 s, then drops whole blocks, and
/// the take that needed them is dropped with a warning.
///
/// Times here are capture tags (engine output frames as the ports carried them, see
/// `InputCapture`): a take of engine output frames [s, e) is the input tagged [s + d + R, e + d + R),
/// d the isolation's delay between the engine's marks and the ports, R the round trip.
///
/// A disturbance (`InputCapture`: a cycle after which the outputs no longer ran back to back in
/// the server's time) at tag Y misplaces the input tagged [Y, Y + R + the hole): what comes back
/// there left the outputs before the hole. A take with input in that span is dropped, with why.
public final class TakeRecorder: @unchecked Sendable {
    public enum Result: Sendable {
        /// A take written: its request's id, the file, the frames in it.
        case saved(id: Int, path: String, frameCount: Int)
        /// A take dropped: why (one line).
        case dropped(id: Int, reason: String)
        /// A calibration: the round trip measured, or nil with why not (`dropout`: the player missed
        /// a period during it, and measuring again may well succeed).
        case calibrated(frames: Int?, reason: String?, dropout: Bool = false)
    }

    enum Request {
        case begin(id: Int, startTag: Int, roundTrip: Int, path: String)
        case end(id: Int, endTag: Int)
        case cancel(id: Int)
        case calibrate
    }

    public let capture: InputCapture
    public let sampleRate: Int
    private let channelCount: Int
    private let shared = Mutex<(requests: [Request], results: [Result])>(([], []))
    private let worker = WorkerThread(name: "repeater-takes")

    // The worker's own state.
    private let historyCapacity = 1 << 19
    private var history: [[Float]]
    /// The history holds the input tagged [historyStart, historyEnd), contiguous.
    private var historyStart = 0
    private var historyEnd = 0
    private struct Segment {
        let id: Int
        let startTag: Int
        let roundTrip: Int
        var endTag: Int?
        let path: String
        var channels: [[Float]]
        var failure: String?
        var nextTag: Int { startTag + channels[0].count }
    }
    private var segments: [Segment] = []
    /// The tags of the disturbances the input showed (the last few), and the blocks' generation.
    private var disturbances: [Int] = []
    /// The capture's count of reported disturbances (xruns) last seen.
    private var reportedSeen = 0
    private var generation: UInt32 = 0
    /// How far past Y + R a disturbance may misplace input: the hole itself (a late cycle's
    /// silence, or the cycles the server skipped), at most a few of the largest periods.
    static let disturbanceMargin = 16_384
    /// The calibration in progress: when it was asked for, the probe's first tag once it left, the
    /// input from there (copied as it comes), and the tag the input stopped following on at (a
    /// block that did not follow on: what comes after is not where its tags say).
    private struct RunningCalibration {
        let started = Date()
        /// The probe was asked of the audio thread.
        var requested = false
        var probeTag: Int?
        var input: [Float] = []
        var brokenAt: Int?
    }
    private var calibration: RunningCalibration?

    public init(capture: InputCapture, sampleRate: Int) {
        self.capture = capture
        self.sampleRate = sampleRate
        channelCount = capture.channelCount
        history = Array(repeating: [Float](repeating: 0, count: 1 << 19), count: capture.channelCount)
    }

    deinit { stop() }

    public func start() {
        worker.start { [unowned self] in
            while !self.worker.stopping {
                self.step()
                usleep(10_000)
            }
        }
    }

    /// Stops the thread; takes not yet complete are dropped (a take is whole or absent).
    public func stop() { worker.stop() }

    // MARK: control thread

    /// A take starts at capture tag `startTag`, to be written to `path`; `roundTrip` is the R its
    /// tags were computed with.
    public func begin(id: Int, startTag: Int, roundTrip: Int, path: String) {
        post(.begin(id: id, startTag: startTag, roundTrip: roundTrip, path: path))
    }
    /// The take `id` ends (exclusive) at capture tag `endTag`; it is written once the input got there.
    public func end(id: Int, endTag: Int) { post(.end(id: id, endTag: endTag)) }
    public func cancel(id: Int) { post(.cancel(id: id)) }
    /// Plays the probe and measures the round trip (a `calibrated` result within ~2.5 s).
    public func calibrate() { post(.calibrate) }

    /// What happened since the last call.
    public func takeResults() -> [Result] {
        shared.withLock { state in
            let results = state.results
            state.results.removeAll()
            return results
        }
    }

    private func post(_ request: Request) { shared.withLock { $0.requests.append(request) } }

    // MARK: the worker

    /// One round: requests, new input, takes to fill and finish, a calibration.
    func step() {
        let requests = shared.withLock { state -> [Request] in
            let taken = state.requests
            state.requests.removeAll()
            return taken
        }
        for request in requests { handle(request) }
        drainInput()
        for index in segments.indices { fill(&segments[index]) }
        finishSegments()
        stepCalibration()
    }

    private func handle(_ request: Request) {
        switch request {
        case .begin(let id, let startTag, let roundTrip, let path):
            segments.append(Segment(id: id, startTag: startTag, roundTrip: roundTrip, endTag: nil, path: path,
                                    channels: Array(repeating: [], count: channelCount)))
        case .end(let id, let endTag):
            if let index = segments.firstIndex(where: { $0.id == id }) { segments[index].endTag = max(segments[index].startTag, endTag) }
        case .cancel(let id):
            segments.removeAll { $0.id == id }
        case .calibrate:
            guard calibration == nil else { return }
            calibration = RunningCalibration()  // (the probe is asked for by `stepCalibration`)
        }
    }

    /// Copies every waiting block into the history; a block that does not follow on starts it over
    /// (the takes get what came before it first).
    private func drainInput() {
        takeReportedDisturbance()
        while let slot = capture.blocks.readableSlot() {
            let tag = capture.blocks.tag(ofSlot: slot)
            let follows = tag.startFrame == historyEnd && historyEnd != historyStart
            if !follows || tag.generation != generation {
                for index in segments.indices { fill(&segments[index]) }
                collectCalibrationInput()
                // (Once the whole window is in, a block that does not follow on changes nothing.)
                if !follows, var running = calibration, let probeTag = running.probeTag, running.brokenAt == nil,
                   running.input.count < calibrationWindow {
                    running.brokenAt = probeTag + running.input.count
                    calibration = running
                }
            }
            if tag.generation != generation {
                generation = tag.generation
                disturbances.append(tag.startFrame)
                if disturbances.count > 64 { disturbances.removeFirst(disturbances.count - 64) }
            }
            if !follows {
                historyStart = tag.startFrame
                historyEnd = tag.startFrame
            }
            for channel in 0..<channelCount {
                let source = capture.blocks.channel(channel, ofSlot: slot)
                for i in 0..<tag.frameCount { history[channel][(tag.startFrame + i) & (historyCapacity - 1)] = source[i] }
            }
            historyEnd += tag.frameCount
            historyStart = max(historyStart, historyEnd - historyCapacity)
            capture.blocks.release()
        }
    }

    /// Copies what the history has of a take's frames into it; a frame the history lost, or one a
    /// disturbance may have misplaced, is a failure.
    private func fill(_ segment: inout Segment) {
        guard segment.failure == nil else { return }
        let from = segment.nextTag
        let to = min(historyEnd, segment.endTag ?? Int.max)
        guard to > from else { return }
        if isMisplaced(segment, through: to) {
            segment.failure = "the player missed a period while it played (a dropout: see xruns, missed cycles and late in the status)"
            return
        }
        if from < historyStart {
            segment.failure = capture.droppedBlocks.load(ordering: .relaxed) > 0
                ? "the input could not be kept up with (the disk or the computer was too slow)"
                : "the input was interrupted"
            return
        }
        for channel in 0..<channelCount {
            segment.channels[channel].reserveCapacity(segment.channels[channel].count + to - from)
            for tag in from..<to { segment.channels[channel].append(history[channel][tag & (historyCapacity - 1)]) }
        }
    }

    /// An xrun the server reported since the last look, as a disturbance at the tag it may date from.
    private func takeReportedDisturbance() {
        let reported = capture.reportedDisturbances.load(ordering: .acquiring)
        guard reported != reportedSeen else { return }
        reportedSeen = reported
        disturbances.append(capture.reportedDisturbanceTag.load(ordering: .relaxed))
        if disturbances.count > 64 { disturbances.removeFirst(disturbances.count - 64) }
    }

    /// Whether a disturbance may have misplaced the segment's input up to tag `to`.
    private func isMisplaced(_ segment: Segment, through to: Int) -> Bool {
        disturbances.contains { y in y < to && y + max(0, segment.roundTrip) + Self.disturbanceMargin > segment.startTag }
    }

    /// Writes the takes whose input is all in, and reports them.
    private func finishSegments() {
        var results: [Result] = []
        // How far the server has run (read before the reports: the callback publishes a report
        // before it moves `lastTag` on, so every report up to here is seen).
        let progress = capture.lastTag.load(ordering: .acquiring)
        takeReportedDisturbance()
        segments.removeAll { segment in
            if let failure = segment.failure {
                results.append(.dropped(id: segment.id, reason: failure))
                return true
            }
            guard let end = segment.endTag, segment.nextTag >= end else { return false }
            // Not before the input has run on past the end by as much as an xrun's report can be
            // late: one reported then may have misplaced this take's last frames.
            guard progress >= end + InputCapture.reportLatencyFrames else { return false }
            if isMisplaced(segment, through: end) {
                results.append(.dropped(id: segment.id, reason: "the player missed a period while it played (a dropout: see xruns, missed cycles and late in the status)"))
                return true
            }
            // The input is copied as it comes, before the end is known: cut at the end.
            let channels = segment.channels.map { Array($0.prefix(end - segment.startTag)) }
            guard !channels[0].isEmpty else { return true }  // an empty take (no gap to answer in) is no take
            do throws(RepeaterError) {
                try TakeFile.write(channels, sampleRate: sampleRate, to: segment.path)
                results.append(.saved(id: segment.id, path: segment.path, frameCount: channels[0].count))
            } catch {
                results.append(.dropped(id: segment.id, reason: error.message))
            }
            return true
        }
        if !results.isEmpty { shared.withLock { $0.results.append(contentsOf: results) } }
    }

    /// The input a calibration listens to: the probe's length and 2 s after it.
    private var calibrationWindow: Int { Calibration.searchFrames(sampleRate: sampleRate) + Calibration.probe.count }

    /// Copies the calibration's input that came since the last look (up to its 2 s window).
    private func collectCalibrationInput() {
        guard var running = calibration, let probeTag = running.probeTag, running.brokenAt == nil else { return }
        let window = calibrationWindow
        let from = probeTag + running.input.count, to = min(historyEnd, probeTag + window)
        guard to > from else { return }
        if from < historyStart {
            running.brokenAt = from
        } else {
            running.input.reserveCapacity(window)
            for tag in from..<to { running.input.append(history[0][tag & (historyCapacity - 1)]) }
        }
        calibration = running
    }

    /// The calibration in progress: waits for the probe to leave, then for 2 s of input after it
    /// (or until the input stops following on), and looks for it there. A disturbance spoils it
    /// only if it may have moved the probe: from `disturbanceMargin` before the probe left (the
    /// hole it made may reach past that) until the probe was all back; one after that, reported in
    /// time (`InputCapture.reportLatencyFrames`), leaves the measurement alone. (Any in the 2 s
    /// window once failed it: on a busy machine, one calibration in three.)
    private func stepCalibration() {
        guard calibration != nil else { return }
        func finish(_ result: Result) {
            capture.probeRequested.store(false, ordering: .relaxed)
            capture.probeStartTag.store(-1, ordering: .releasing)
            calibration = nil
            shared.withLock { $0.results.append(result) }
        }
        if calibration?.requested == false {
            // The probe leaves once the input has run `disturbanceMargin` frames clear of the last
            // dropout (a hole before it may reach past where it leaves), or after a second.
            takeReportedDisturbance()
            let now = capture.lastTag.load(ordering: .acquiring)
            if disturbances.contains(where: { $0 > now - Self.disturbanceMargin }), Date().timeIntervalSince(calibration!.started) < 1 { return }
            capture.probeStartTag.store(-1, ordering: .relaxed)
            capture.probeRequested.store(true, ordering: .releasing)
            calibration?.requested = true
        }
        if calibration?.probeTag == nil {
            let tag = capture.probeStartTag.load(ordering: .acquiring)
            if tag >= 0 {
                calibration?.probeTag = tag
            } else if Date().timeIntervalSince(calibration!.started) > 2 {
                finish(.calibrated(frames: nil, reason: "the probe did not start: is the JACK client running?"))
                return
            } else {
                return
            }
        }
        collectCalibrationInput()
        guard let running = calibration, let probeTag = running.probeTag else { return }
        let window = calibrationWindow
        guard running.input.count >= window || running.brokenAt != nil else {
            if Date().timeIntervalSince(running.started) > 6 {
                finish(.calibrated(frames: nil, reason: "no input arrived: is anything connected to in_1?"))
            }
            return
        }
        // Not before the probe has all left (the audio thread lowers the request then): the next
        // calibration's request must not meet this probe's end.
        if capture.probeRequested.load(ordering: .acquiring) && Date().timeIntervalSince(running.started) < 6 { return }
        let lag = Calibration.locate(running.input)
        // The span a disturbance may have moved the probe in: up to its return's end, once every
        // report from there has had time to come (the whole window until then).
        let returned = lag.map { probeTag + $0 + Calibration.probe.count }
        if let returned, historyEnd < returned + InputCapture.reportLatencyFrames, running.brokenAt != nil,
           Date().timeIntervalSince(running.started) < 6 { return }
        takeReportedDisturbance()
        var spanEnd = probeTag + window
        if let returned, returned + InputCapture.reportLatencyFrames <= historyEnd { spanEnd = returned }
        if disturbances.contains(where: { $0 > probeTag - Self.disturbanceMargin && $0 < spanEnd }) {
            finish(.calibrated(frames: nil, reason: "the player missed a period during the measurement (a dropout): try again", dropout: true))
        } else if let lag {
            finish(.calibrated(frames: lag, reason: nil))
        } else if running.brokenAt != nil {
            finish(.calibrated(frames: nil, reason: "the input was interrupted during the measurement: try again"))
        } else {
            finish(.calibrated(frames: nil, reason: "the probe did not come back in in_1: connect the path out → in you want measured"))
        }
    }
}
