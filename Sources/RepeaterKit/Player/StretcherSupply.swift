import Foundation
import RepeaterEngine

/// The control thread's side of the stretcher hand-off: keeps one primed stretcher queued for the
/// engine while speed or pitch ask for one, and frees the ones the engine hands back. (Creating a
/// Rubber Band stretcher allocates heavily and priming it takes a few milliseconds: never on the
/// audio thread.)
public final class StretcherSupply {
    public let kind: Stretcher.Kind
    private let engine: Engine
    private let sampleRate: Int

    public init(engine: Engine, kind: Stretcher.Kind, sampleRate: Int) {
        self.engine = engine
        self.kind = kind
        self.sampleRate = sampleRate
    }

    /// Control thread, often (each loop turn): frees used stretchers; queues a fresh one when the
    /// targets need stretching and none is queued: with Rubber Band's PitchHighConsistency only when
    /// the pitch moves or the file's rate differs (a speed-only stretcher costs 20–40 % less), at
    /// speed 1 when the engine is in bypass (it pre-rolls the fresh one at the speed that plays, and
    /// glides after the crossfade), else at the targets (a start, a seek, a change of kind).
    public func service() {
        var freed = false
        while let bits = engine.usedStretchers.pop() {
            free(bits)
            freed = true
        }
        if freed { Allocator.giveBackFreePages() }
        let speed = engine.controls.speed.load(ordering: .relaxed)
        let pitch = engine.controls.pitchSemitones.load(ordering: .relaxed)
        let base = engine.configuration.baseRate
        guard speed != 1 || pitch != 0 || base != 1, engine.freshStretchers.count == 0 else { return }
        let consistent = pitch != 0 || base != 1
        let atTargets = engine.status.stretching.load(ordering: .relaxed) || engine.status.cycles.load(ordering: .relaxed) == 0
        let stretcher = UnsafeMutablePointer<Stretcher>.allocate(capacity: 1)
        stretcher.initialize(to: Stretcher(kind: kind, sampleRate: sampleRate, channelCount: engine.channelCount,
                                           timeRatio: atTargets ? 1 / (base * speed) : 1,
                                           pitchScale: atTargets ? base * pitchScale(semitones: consistent ? pitch : 0) : 1,
                                           pitchConsistent: consistent, pitchRange: (base * 0.25)...(base * 4)))
        if !engine.freshStretchers.push(UInt(bitPattern: stretcher)) { free(UInt(bitPattern: stretcher)) }
    }

    /// After the audio thread has stopped: frees whatever is still queued either way.
    public func drain() {
        while let bits = engine.usedStretchers.pop() { free(bits) }
        while let bits = engine.freshStretchers.pop() { free(bits) }
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
