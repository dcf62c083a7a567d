import CRepeaterSupport
import Foundation
import Synchronization
import RepeaterEngine

/// The control thread's side of the stretcher hand-off: keeps one primed stretcher queued for the
/// engine while speed or pitch ask for one, and takes back the ones the engine is done with.
/// (Creating a Rubber Band stretcher allocates heavily and priming it takes a few milliseconds:
/// never on the audio thread.)
///
/// Used stretchers are kept and re-armed (`Stretcher.rearm`: the same output as a new one, sample for
/// sample, tested) rather than freed and built again. Building one per rate or pitch change made the
/// allocator's heap creep up for minutes, and handing out freshly mapped memory meant the audio
/// thread's first touches of it were page faults. Kept, the few stretchers a run needs are built
/// once and memory stays where it is (docs/troubleshooting.md).
public final class StretcherSupply {
    public let kind: Stretcher.Kind
    private let engine: Engine
    private let sampleRate: Int
    /// Used stretchers waiting to be re-armed, at most `sparesPerFlavour` of each (plain,
    /// pitch-consistent, resampler): the engine never holds more than a running one and an incoming one.
    private var spares: [UnsafeMutablePointer<Stretcher>] = []
    private let sparesPerFlavour = 2
    /// `REPEATER_STRETCHER_REUSE=0` frees used stretchers and builds each one new, as before:
    /// `repeater-bench memory`'s baseline in the same run.
    private let reuse = ProcessInfo.processInfo.environment["REPEATER_STRETCHER_REUSE"] != "0"
    /// Stretchers built, and used ones re-armed, so far.
    public private(set) var built = 0, rearmed = 0

    /// The loop cache's buffers, serviced with the stretchers.
    public let loopCaches: LoopCacheSupply

    public init(engine: Engine, kind: Stretcher.Kind, sampleRate: Int) {
        self.engine = engine
        loopCaches = LoopCacheSupply(engine: engine)
        self.kind = kind
        self.sampleRate = sampleRate
    }

    /// Control thread, often (each loop turn): takes back used stretchers; queues a primed one when
    /// the targets need one and none is queued: the resampler (libsoxr) where only the file's rate
    /// differs from the output's (speed 1, pitch 0); else Rubber Band, with PitchHighConsistency
    /// only when the pitch moves or the file's rate differs (a speed-only stretcher costs 20–40 %
    /// less), at speed 1 when the engine is in bypass (it pre-rolls the fresh one at the speed that
    /// plays, and glides after the crossfade), else at the targets (a start, a seek, a change of kind).
    public func service() {
        loopCaches.service()
        while let bits = engine.usedStretchers.pop() { takeBack(bits) }
        let speed = engine.controls.speed.load(ordering: .relaxed)
        let pitch = engine.controls.pitchSemitones.load(ordering: .relaxed)
        let base = engine.configuration.baseRate
        guard speed != 1 || pitch != 0 || base != 1, engine.freshStretchers.count == 0 else { return }
        let flavour = Stretcher.Flavour(speed: speed, pitch: pitch, baseRate: base)
        let stretcher: UnsafeMutablePointer<Stretcher>
        if let index = spares.firstIndex(where: { $0.pointee.flavour == flavour }) {
            stretcher = spares.remove(at: index)
            if flavour != .resampler { stretcher.pointee.timing = Self.timing(kind: kind, pitchConsistent: flavour == .consistent, sampleRate: sampleRate) }
            let (timeRatio, pitchScale) = startRatios(speed: speed, pitch: pitch, base: base, consistent: flavour == .consistent)
            stretcher.pointee.rearm(timeRatio: timeRatio, pitchScale: pitchScale)
            rearmed += 1
        } else if flavour == .resampler {
            guard let made = Stretcher(resamplingFrom: engine.configuration.sourceSampleRate, to: sampleRate,
                                       channelCount: engine.channelCount, kind: kind) else { return }
            stretcher = .allocate(capacity: 1)
            stretcher.initialize(to: made)
            built += 1
        } else {
            let consistent = flavour == .consistent
            let (timeRatio, pitchScale) = startRatios(speed: speed, pitch: pitch, base: base, consistent: consistent)
            let timing = Self.timing(kind: kind, pitchConsistent: consistent, sampleRate: sampleRate)
            stretcher = .allocate(capacity: 1)
            stretcher.initialize(to: Stretcher(kind: kind, sampleRate: sampleRate, channelCount: engine.channelCount,
                                               timeRatio: timeRatio, pitchScale: pitchScale,
                                               pitchConsistent: consistent, pitchRange: (base * 0.25)...(base * 4), timing: timing))
            built += 1
        }
        if !engine.freshStretchers.push(UInt(bitPattern: stretcher)) { takeBack(UInt(bitPattern: stretcher)) }
    }

    /// The ratios a Rubber Band stretcher is armed at: the targets when the engine stretches (or
    /// has not started), else speed 1 (it is pre-rolled at the speed that plays).
    private func startRatios(speed: Double, pitch: Double, base: Double, consistent: Bool) -> (time: Double, pitch: Double) {
        let atTargets = engine.status.stretching.load(ordering: .relaxed) || engine.status.cycles.load(ordering: .relaxed) == 0
        return (atTargets ? 1 / (base * speed) : 1, atTargets ? base * pitchScale(semitones: consistent ? pitch : 0) : 1)
    }

    /// Each kind of stretcher's timing, measured once per build (`StretchTiming.measure`, about
    /// 0.3 s of CPU for R3; kept in `StretchTimingCache`): a measurement under way is waited for,
    /// not made twice.
    private static let timings = Mutex<[String: (semaphore: DispatchSemaphore, timing: StretchTiming?)]>([:])

    static func timing(kind: Stretcher.Kind, pitchConsistent: Bool, sampleRate: Int) -> StretchTiming {
        let key = "\(kind) \(pitchConsistent) \(sampleRate)"
        let (entry, mine) = timings.withLock { table -> ((semaphore: DispatchSemaphore, timing: StretchTiming?), Bool) in
            if let entry = table[key] { return (entry, false) }
            let entry = (semaphore: DispatchSemaphore(value: 0), timing: StretchTiming?.none)
            table[key] = entry
            return (entry, true)
        }
        if let known = entry.timing { return known }
        if !mine {
            entry.semaphore.wait()
            entry.semaphore.signal()
            return timings.withLock { $0[key]?.timing } ?? .unknown
        }
        var measured: StretchTiming
        if let cached = StretchTimingCache.load(kind: kind, pitchConsistent: pitchConsistent, sampleRate: sampleRate) {
            measured = cached
        } else {
            measured = StretchTiming.measure(kind: kind, pitchConsistent: pitchConsistent, sampleRate: sampleRate)
            StretchTimingCache.store(measured, kind: kind, pitchConsistent: pitchConsistent, sampleRate: sampleRate)
        }
        timings.withLock { $0[key]?.timing = measured }
        entry.semaphore.signal()
        return measured
    }

    /// Starts measuring, in the background, the timing of the stretchers this run will most likely
    /// ask for first: the speed-only one, and with a file at another rate the pitch-consistent one
    /// (which also converts the rate); the first switch then finds it ready.
    public func measureAhead() {
        let kind = self.kind, rate = sampleRate, consistentToo = engine.configuration.baseRate != 1
        Thread.detachNewThread {
            // At the normal priority: the control thread waits for this measurement when it needs a
            // stretcher before it is done (a start at --rate, the first speed change).
            _ = StretcherSupply.timing(kind: kind, pitchConsistent: false, sampleRate: rate)
            if consistentToo { _ = StretcherSupply.timing(kind: kind, pitchConsistent: true, sampleRate: rate) }
        }
    }

    /// After the audio thread has stopped: frees whatever is still queued either way, and the spares.
    public func drain() {
        loopCaches.drain()
        while let bits = engine.usedStretchers.pop() { free(bits) }
        while let bits = engine.freshStretchers.pop() { free(bits) }
        while let spare = spares.popLast() { free(UInt(bitPattern: spare)) }
    }

    private func takeBack(_ bits: UInt) {
        guard let pointer = UnsafeMutablePointer<Stretcher>(bitPattern: bits) else { return }
        let flavour = pointer.pointee.flavour
        if reuse, spares.count(where: { $0.pointee.flavour == flavour }) < sparesPerFlavour {
            spares.append(pointer)
        } else {
            free(bits)
        }
    }

    private func free(_ bits: UInt) {
        guard let pointer = UnsafeMutablePointer<Stretcher>(bitPattern: bits) else { return }
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}

/// 2^(semitones/12), rounded to whole cents as the engine does.
func pitchScale(semitones: Double) -> Double {
    pow(2, (semitones * 100).rounded() / 1200)
}
