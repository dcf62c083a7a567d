import Synchronization

/// Control → audio parameters where the latest value wins (relaxed atomics: each is independent).
public struct EngineControls: ~Copyable, Sendable {
    /// Frames between the engine's output and the listener (JACK's playback latency downstream):
    /// "A here" and the audible position subtract it.
    public let latencyFrames = Atomic<Int>(0)
    /// Playback speed (1: as recorded; 0.8: 80 %).
    public let speed = Atomic<Double>(1)
    /// Pitch shift in semitones.
    public let pitchSemitones = Atomic<Double>(0)

    public init() {}
}
