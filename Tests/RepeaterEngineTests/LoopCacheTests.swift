import Foundation
import RepeaterEngine
import RepeaterTestSupport
import RTCheck
import Testing

/// A loop at a steady speed through the engine with the loop cache (issue 31): the engine, the
/// supply (stretchers and loop caches, as the player's), the feeder and the driver.
final class CachedLoop {
    let engine: Engine
    let supply: TestSupply
    let feeder: RampFeeder
    let driver: CycleDriver
    /// Output frames of one pass (the loop's frames over the speed).
    let passFrames: Int

    init(loop: (a: Int, b: Int), speed: Double = 0.75, kind: Stretcher.Kind = .faster, channels: Int = 1, cache: Bool = true,
         cacheBytes: Int = 64 << 20, gap: Int = 0, clickPort: Bool = false, clicks: consuming ClickBank = ClickBank.silent(),
         sourceFrames: Int = 20 * 48_000, signal: @escaping (Int, Int) -> Float) {
        var configuration = Engine.Configuration(channelCount: channels, sourceFrameCount: sourceFrames, startFrame: loop.a, blockFrames: 2048,
                                                 blockCount: 32, headFrames: 96_000, loop: loop, gapFrames: gap)
        configuration.startsHeld = true
        configuration.clickPort = clickPort
        configuration.loopCache = cache
        configuration.loopCacheBytes = cacheBytes
        engine = Engine(configuration, clicks: clicks)
        engine.controls.speed.store(speed, ordering: .relaxed)
        supply = TestSupply(engine: engine, kind: kind, measured: true)
        feeder = RampFeeder(engine: engine, totalFrames: sourceFrames, value: signal)
        driver = CycleDriver(engine: engine)
        passFrames = Int(Double(loop.b - loop.a + gap) / speed)
        for _ in 0..<4 {
            supply.service()
            driver.cycle(256, feeder: feeder)
        }
        engine.send(.start)
    }

    /// Renders `frames` more output frames in 256-frame cycles, servicing the supply after each.
    func run(_ frames: Int, countRealTime: Bool = false) {
        var done = 0
        while done < frames {
            supply.service()
            driver.cycle(min(256, frames - done), feeder: feeder, countRealTime: countRealTime)
            done += 256
        }
    }

    /// Runs until the cache replays (at most `passes` passes); true if it does.
    @discardableResult
    func runUntilReplaying(passes: Int = 5) -> Bool {
        for _ in 0..<(passes * passFrames / 256 + 1) {
            if engine.status.loopCache.load(ordering: .relaxed) == LoopCacheState.replay.rawValue,
               engine.status.replayedPasses.load(ordering: .relaxed) > 0 { return true }
            run(256)
        }
        return false
    }

    var state: LoopCacheState { LoopCacheState(rawValue: engine.status.loopCache.load(ordering: .relaxed)) ?? .off }

    func finish() { supply.drain() }
}

/// The loop cache's switches in a list of events.
func cacheEvents(_ events: [EngineEvent]) -> [(state: LoopCacheState, reason: LoopCacheReason)] {
    events.compactMap { if case .loopCache(let state, let reason) = $0 { return (state, reason) } else { return nil } }
}

/// A music-like test signal: two slow tones and a short burst every 4000 frames, so that passes of a
/// stretched loop differ a little, as they do on music.
func musicLikeSample(_ frame: Int, _ channel: Int) -> Float {
    let t = Double(frame) / 48_000
    var value = 0.25 * sin(2 * Double.pi * 220 * t) + 0.15 * sin(2 * Double.pi * 331 * t + Double(channel))
    let k = frame % 4000
    if k < 64 { value += 0.4 * sin(2 * Double.pi * Double(k) / 16) }
    return Float(value)
}

@Suite("Engine: the loop cache (issue 31)")
struct LoopCacheTests {
    @Test("a loop at 0.75: the second pass is kept, every pass from the third is replayed bit for bit, wraps a pass apart and clicks at the kept offsets")
    func bitIdenticalReplays() throws {
        let beats = stride(from: 48_000 + 3000, to: 72_000, by: 6000).map { $0 }
        let play = CachedLoop(loop: (a: 48_000, b: 72_000), clickPort: true,
                              clicks: ClickBank(beat: [0.5] + [Float](repeating: 0, count: 31), accent: [1] + [Float](repeating: 0, count: 31)),
                              signal: musicLikeSample)
        play.engine.beatTables.push(BeatTable.handOver(BeatTable(frames: beats, downbeats: [beats[0]])))
        play.engine.controls.clickOn.store(true, ordering: .relaxed)
        play.run(8 * play.passFrames)
        play.finish()
        while let bits = play.engine.usedBeatTables.pop() { BeatTable.free(bits) }
        let events = play.driver.events()
        let switches = cacheEvents(events)
        print("loop cache: \(switches.map { "\($0.state.name) (\($0.reason.name))" })")
        try #require(switches.count >= 2)
        #expect(switches[0].state == .filling && switches[1].state == .replay && switches[1].reason == .kept)
        #expect(switches.count == 2, "it stays in the replay: \(switches)")
        let wraps = wrapEvents(events).map(\.outputFrame)
        try #require(wraps.count >= 7)
        // Wrap 1 begins the kept pass, wrap 2 ends it: replayed passes from wrap 2 on.
        let length = wraps[2] - wraps[1]
        let output = play.driver.output[0], clicks = play.driver.output[1]
        let kept = Array(output[wraps[1]..<wraps[2]])
        let keptClicks = (wraps[1]..<wraps[2]).filter { clicks[$0] != 0 }.map { $0 - wraps[1] }
        #expect(keptClicks.count == beats.count, "clicks in the kept pass: \(keptClicks)")
        for pass in 2..<(wraps.count - 1) {
            #expect(wraps[pass + 1] - wraps[pass] == length, "pass \(pass): \(wraps[pass + 1] - wraps[pass]) frames, kept \(length)")
            let replayed = Array(output[wraps[pass]..<wraps[pass + 1]])
            if pass > 2 {
                #expect(replayed == Array(output[wraps[2]..<wraps[3]]), "pass \(pass) is not the replayed pass bit for bit")
            }
            let replayedClicks = (wraps[pass]..<wraps[pass + 1]).filter { clicks[$0] != 0 }.map { $0 - wraps[pass] }
            #expect(replayedClicks == keptClicks, "pass \(pass): clicks at \(replayedClicks), kept at \(keptClicks)")
        }
        // The replay is the kept pass: past the seam (10 ms of the live stream, 256 frames of
        // crossfade), the same frames.
        let seam = 480 + 256
        #expect(Array(output[(wraps[3] + seam)..<wraps[4]]) == Array(kept[seam...]), "the replay differs from the kept pass")
        let replayed = play.engine.status.replayedPasses.load(ordering: .relaxed)
        #expect(replayed >= 5, "\(replayed) passes replayed")
        do { let underruns = play.engine.status.underruns.load(ordering: .relaxed); #expect(underruns == 0) }
    }

    @Test("\"A/B here\" in a replayed pass names the frame it names at the same offset of the live pass it was kept from (the audible frame, which it resolves against)")
    func abHereInReplay() throws {
        let play = CachedLoop(loop: (a: 48_000, b: 72_000), signal: musicLikeSample)
        var wraps: [Int] = []
        // The audible frame at the end of each cycle, by output frame.
        var audible: [Int: Int] = [:]
        while wraps.count < 6 {
            play.run(256)
            audible[play.driver.output[0].count] = play.engine.status.audibleFrame.load(ordering: .relaxed)
            for event in play.driver.events() { if case .wrap(_, _, _, let outputFrame) = event { wraps.append(outputFrame) } }
        }
        play.finish()
        #expect(play.state == .replay)
        // Every offset probed in the kept pass (wrap 1 → 2) against the same offsets of the replayed
        // passes (wraps 2 → 3 … 4 → 5): the same file frame.
        var compared = 0, worst = 0
        for (frame, kept) in audible where frame > wraps[1] && frame < wraps[2] {
            let offset = frame - wraps[1]
            for pass in 2..<5 {
                guard let replayed = audible[wraps[pass] + offset] else { continue }
                compared += 1
                worst = max(worst, abs(replayed - kept))
            }
        }
        print("audible frame in replayed passes against the kept pass: \(compared) points, worst \(worst) frames apart")
        #expect(compared > 20)
        #expect(worst <= 1, "a replayed pass is heard \(worst) frames away from the live one at the same offset")
    }

    /// A change made while a pass is replayed, and what it must do.
    enum Change: String, CaseIterable, CustomStringConvertible {
        case speed, pitch, loop, a, b, seek, gap, countIn, click, line, off, eq, isolation, take
        var description: String { rawValue }
        /// The reason the replay is left for (nil: it stays: these act after the stretcher).
        var reason: LoopCacheReason? {
            switch self {
            case .speed: return .speed
            case .pitch: return .pitch
            case .loop, .a, .b: return .loop
            case .seek: return .seek
            case .gap: return .gap
            case .countIn: return .countIn
            case .click: return .click
            case .line: return .line
            case .off: return .disabled
            case .eq, .isolation, .take: return nil
            }
        }
    }

    @Test("every change leaves the replay for live stretching with no hole and no click (a seek as any seek); isolation, EQ and a take act on the replayed pass itself", arguments: Change.allCases)
    func changeLeaves(change: Change) throws {
        let tone = 220.0
        let play = CachedLoop(loop: (a: 48_000, b: 72_000), channels: 2) { frame, _ in Float(0.5 * sin(2 * Double.pi * tone * Double(frame) / 48_000)) }
        try #require(play.runUntilReplaying(), "no replay")
        play.run(play.passFrames / 3)
        _ = play.driver.events()
        let changedAt = play.driver.output[0].count
        switch change {
        case .speed: play.engine.controls.speed.store(0.8, ordering: .relaxed)
        case .pitch: play.engine.controls.pitchSemitones.store(1, ordering: .relaxed)
        case .loop: play.engine.send(.setLoop(a: 50_000, b: 76_000))
        case .a: play.engine.send(.setA(frame: 52_000))
        case .b: play.engine.send(.setB(frame: 70_000))
        case .seek: play.engine.send(.seek(frame: 100_000))
        case .gap: play.engine.send(.gap(frames: 4800))
        case .countIn: play.engine.send(.countIn(beats: 2, periodFrames: 4800))
        case .click: play.engine.controls.clickOn.store(true, ordering: .relaxed); play.engine.beatTables.push(BeatTable.handOver(BeatTable(frames: [60_000], downbeats: [])))
        case .line: play.engine.send(.setLoopAtWrap(a: 120_000, b: 150_000, gapFrames: 0))
        case .off: play.engine.controls.loopCacheOn.store(false, ordering: .relaxed)
        case .eq: play.engine.send(.equalize(lowDB: -12, midDB: -12, highDB: -12))
        case .isolation: play.engine.send(.isolate(.left))
        case .take: play.engine.send(.compare(take: TakeAudio.handOver(TakeAudio(channels: [[Float](repeating: 0.1, count: 1000)])), mode: .both, atGap: false, pan: 0))
        }
        // Left within two cycles (a seek: after its fade out; a drill's next line: half a second
        // before the pass ends).
        play.run(512)
        var events = play.driver.events()
        if let reason = change.reason, change != .line {
            #expect(cacheEvents(events).first.map { $0.state == .off && $0.reason == reason } == true, "\(change): not left at the next cycle")
        }
        play.run(2 * play.passFrames)
        play.finish()
        while let bits = play.engine.usedBeatTables.pop() { BeatTable.free(bits) }
        while let bits = play.engine.usedTakes.pop() { TakeAudio.free(bits) }
        events += play.driver.events()
        let switches = cacheEvents(events)
        print("\(change): \(switches.map { "\($0.state.name) (\($0.reason.name))" })")
        if change == .line {  // left before the wrap to the next line, which is live
            let left = events.firstIndex { if case .loopCache(.off, .line) = $0 { return true } else { return false } }
            let next = events.firstIndex { if case .wrap(_, _, 120_000, _) = $0 { return true } else { return false } }
            #expect(left != nil && next != nil && left! < next!, "line: left at event \(String(describing: left)), the next line's wrap at \(String(describing: next))")
        }
        if let reason = change.reason {
            #expect(switches.first.map { $0.state == .off && $0.reason == reason } == true, "\(change): \(switches)")
        } else {
            #expect(switches.isEmpty, "\(change) left the replay: \(switches)")
            do { let state = play.state; #expect(state == .replay) }
        }
        let output = Array(play.driver.output[0][changedAt...])
        if change == .seek {  // a seek fades out and primes at the new place, as always; then it plays
            #expect(output.suffix(48_000).contains { abs($0) > 0.3 })
            return
        }
        let level: Float = change == .eq ? 0.5 * 0.25 : (change == .isolation ? 0.5 : 0.5)
        let quiet = longestQuietRun(output, threshold: level * 0.1, in: 0..<output.count)
        let gap = Int(Double(change == .gap ? 4800 : (change == .countIn ? 9600 : 0)) / 0.75) + 256
        #expect(quiet.length <= max(96, gap), "\(change): a hole of \(quiet.length) frames at +\(quiet.at)")
        let toneStep = Float(0.5 * 2 * Double.pi * tone * 1.07 / 48_000)
        var largest: Float = 0, at = 0
        for n in 1..<output.count where abs(output[n] - output[n - 1]) > largest { (largest, at) = (abs(output[n] - output[n - 1]), n) }
        // (A new A or B, or the next line, splices the tone where the loop now wraps, live as
        // replayed; a gap and a count-in start and end in silence; a take is its own signal.)
        if ![.a, .b, .line, .gap, .countIn, .take].contains(change) {
            #expect(largest <= 1.5 * toneStep, "\(change): a step of \(largest) at +\(at) (the tone's: \(toneStep))")
        }
        do { let underruns = play.engine.status.underruns.load(ordering: .relaxed); #expect(underruns == 0) }
    }

    @Test("a loop too long for the cache's memory plays live and says so; one that fits takes no more than it needs, in whole seconds")
    func memoryBounded() throws {
        // 1 MiB for mono floats: 262 144 frames, 5.5 s at 48 kHz. A 5 s loop at 0.75 needs 6.7 s.
        let long = CachedLoop(loop: (a: 48_000, b: 48_000 + 240_000), cacheBytes: 1 << 20, signal: musicLikeSample)
        long.run(3 * long.passFrames)
        long.finish()
        let switches = cacheEvents(long.driver.events())
        #expect(switches.count == 1 && switches.first?.reason == .tooLong, "\(switches.map { "\($0.state.name) (\($0.reason.name))" })")
        #expect(long.supply.loopCaches.made == 0, "nothing allocated for it")
        do { let state = long.state; #expect(state == .off) }
        // A 1 s loop at 0.75 (64 000 frames a pass): one buffer, 2 s of frames (whole seconds), replayed.
        let short = CachedLoop(loop: (a: 48_000, b: 96_000), cacheBytes: 1 << 20, signal: musicLikeSample)
        try #require(short.runUntilReplaying())
        short.finish()
        #expect(short.supply.loopCaches.made == 1)
        let capacity = short.engine.status.loopCacheCapacity.load(ordering: .relaxed)
        print("loop cache: a 1 s loop at 0.75 took a buffer of \(capacity) frames (\(short.supply.loopCaches.largestBytes) bytes)")
        #expect(capacity == 96_000 && short.supply.loopCaches.largestBytes < 1 << 20)
        // --loop-cache off: live, nothing kept, nothing allocated.
        let off = CachedLoop(loop: (a: 48_000, b: 96_000), cache: false, signal: musicLikeSample)
        #expect(!off.runUntilReplaying(passes: 5))
        off.finish()
        #expect(cacheEvents(off.driver.events()).isEmpty && off.supply.loopCaches.made == 0)
    }

    @Test("a drill: each line's passes after its first are replayed, and every next line's wrap is live and exact")
    func drillReplays() throws {
        // Lines of 0.75 s at 0.75 (1 s a pass), three passes each, then the next line.
        let lines = [(a: 48_000, b: 84_000), (a: 120_000, b: 156_000), (a: 192_000, b: 228_000)]
        let play = CachedLoop(loop: lines[0], signal: musicLikeSample)
        var wraps: [(from: Int, to: Int, outputFrame: Int)] = [], switches: [(state: LoopCacheState, reason: LoopCacheReason)] = []
        var line = 0, passesOfLine = 0
        while line < lines.count {
            play.run(256)
            let events = play.driver.events()
            switches += cacheEvents(events)
            for wrap in wrapEvents(events) {
                wraps.append(wrap)
                passesOfLine += 1
                if passesOfLine == 2 {  // the drill queues the next line at the start of a line's last pass
                    if line + 1 < lines.count {
                        play.engine.send(.setLoopAtWrap(a: lines[line + 1].a, b: lines[line + 1].b, gapFrames: 0))
                    } else {
                        play.engine.send(.finishAtWrap)
                    }
                }
                if passesOfLine == 3 { line += 1; passesOfLine = 0 }
            }
            if play.driver.output[0].count > 20 * 48_000 { break }
        }
        play.finish()
        print("drill: \(switches.map { "\($0.state.name) (\($0.reason.name))" })")
        let replays = switches.filter { $0.state == .replay }.count
        #expect(replays >= 2, "lines replayed after their first pass: \(replays)")
        // Every line's wraps: from its B to the next line's A (or its own A), in order.
        let expected = [(84_000, 48_000), (84_000, 48_000), (84_000, 120_000), (156_000, 120_000), (156_000, 120_000), (156_000, 192_000)]
        #expect(wraps.prefix(6).map { [$0.from, $0.to] } == expected.map { [$0.0, $0.1] }, "\(wraps.prefix(6))")
        do { let underruns = play.engine.status.underruns.load(ordering: .relaxed); #expect(underruns == 0) }
    }

    @Test("keeping a pass, switching into it, replaying and leaving: no allocation, no lock on the render thread",
          .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
    func realTimeSafety() throws {
        Engine.warmUpRuntime()
        let play = CachedLoop(loop: (a: 48_000, b: 72_000), channels: 2, signal: musicLikeSample)
        play.engine.controls.clickOn.store(true, ordering: .relaxed)
        play.engine.beatTables.push(BeatTable.handOver(BeatTable(frames: [54_000, 60_000, 66_000], downbeats: [54_000])))
        play.run(256)
        rtcheck_thread_reset()
        for round in 0..<3 {
            // Keep, switch, replay …
            var cycles = 0
            while play.state != .replay || play.engine.status.replayedPasses.load(ordering: .relaxed) < 2 * (round + 1), cycles < 2000 {
                play.run(256, countRealTime: true)
                cycles += 1
            }
            play.run(play.passFrames, countRealTime: true)
            // … and leave: a speed change there and back.
            play.engine.controls.speed.store(round % 2 == 0 ? 0.8 : 0.75, ordering: .relaxed)
            play.run(play.passFrames / 2, countRealTime: true)
        }
        let counts = rtcheck_thread_counts()
        play.finish()
        while let bits = play.engine.usedBeatTables.pop() { BeatTable.free(bits) }
        let replayed = play.engine.status.replayedPasses.load(ordering: .relaxed)
        #expect(replayed >= 4, "replayed \(replayed)")
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0, "allocs \(counts.allocs) frees \(counts.frees) locks \(counts.locks)")
    }
}
