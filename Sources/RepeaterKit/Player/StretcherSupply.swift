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
    /// targets need stretching and none is queued.
    public func service() {
        while let bits = engine.usedStretchers.pop() { free(bits) }
        let speed = engine.controls.speed.load(ordering: .relaxed)
        let pitch = engine.controls.pitchSemitones.load(ordering: .relaxed)
        let base = engine.configuration.baseRate
        guard speed != 1 || pitch != 0 || base != 1, engine.freshStretchers.count == 0 else { return }
        let stretcher = UnsafeMutablePointer<Stretcher>.allocate(capacity: 1)
        // Primed at the ratios it will start with: its first chunks at those ratios (where Rubber Band
        // 3.1.2 builds resampler state, allocating) are processed here, not on the audio thread.
        stretcher.initialize(to: Stretcher(kind: kind, sampleRate: sampleRate, channelCount: engine.channelCount,
                                           timeRatio: 1 / (base * speed), pitchScale: base * pitchScale(semitones: pitch)))
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
