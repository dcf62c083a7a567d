import Foundation

/// The recording's map for one `repeater play` run: made before the start for `--loop bars:`, else
/// in the background while it plays; kept once known, so that a reconnect hands it to the new
/// dispatcher before its first cycle.
final class MapFeed {
    /// The map in effect before the first cycle (made for `--loop bars:`, or known before a reconnect).
    private(set) var known: (grid: BeatGrid, cached: Bool)?
    /// Whether `known` was made before the start (then there is no background analysis).
    private let madeBeforeStart: Bool
    private var runner: MapAnalysisRunner?

    init() { madeBeforeStart = false }

    /// `--loop bars:FIRST-LAST`: the map is needed before the first frame (from the cache, or made
    /// now with a progress bar); the user's corrections apply. Returns the loop's frames.
    init(barsLoop bars: ClosedRange<Int>, path: String, corrections: MapCorrections) throws(RepeaterError) {
        var progress = ProgressBar(label: "analysing for --loop bars:", enabled: isatty(2) == 1, total: 1000, sampleRate: 0)
        let made = try MapAnalysis.grid(path: path, progress: { progress.update(fraction: $0) }, warn: { Console.warning($0) })
        if !made.cached { progress.finish() }
        known = made
        madeBeforeStart = true
        let grid = corrections.apply(to: made.grid)
        do { loopFrames = try grid.frames(ofBars: bars.lowerBound, bars.upperBound) } catch {
            throw .input("--loop bars:\(bars.lowerBound)-\(bars.upperBound): \(error.message)")
        }
    }

    /// The frames of the `--loop bars:` loop (nil without one).
    private(set) var loopFrames: (a: Int, b: Int)?

    /// At the first start: the map made before the start is announced; otherwise the background
    /// analysis starts.
    func start(path: String, dispatcher: Dispatcher) {
        if madeBeforeStart, let known {
            dispatcher.announceMap(cached: known.cached)
            return
        }
        let runner = MapAnalysisRunner()
        runner.start(path: path)
        self.runner = runner
    }

    /// The background analysis's news: its progress, the map when ready, a cache entry it could not
    /// use, or why it failed.
    func poll(into dispatcher: Dispatcher, output: Output) {
        dispatcher.reclaimBeatTables()
        guard let runner else { return }
        for update in runner.poll() {
            switch update {
            case .progress(let fraction): dispatcher.mapProgress(fraction)
            case .ready(let grid, let cached):
                known = (grid, cached)
                dispatcher.mapReady(grid, cached: cached)
            case .warning(let message): output.note(message)
            case .failed(let message): dispatcher.mapFailed(message)
            }
        }
    }

    func cancel() { runner?.cancel() }
}
