/// Control → audio: events that must arrive in order and must not be lost. (Parameters where the
/// latest value wins travel as atomics in `EngineStatus`/`EngineParameters` instead.)
public enum EngineCommand: BitwiseCopyable, Sendable, Equatable {
    case play
    case pause
    case toggle
    /// Continue from this source frame (after a short fade out; the fade in follows).
    case seek(frame: Int)
}

/// Audio → disk reader: where the block stream must continue.
public enum ReaderRequest: BitwiseCopyable, Sendable, Equatable {
    /// Read from `frame` on, tagging blocks with `generation`.
    case seek(frame: Int, generation: UInt32)
}

/// Audio → control: things that happened, in order.
public enum EngineEvent: BitwiseCopyable, Sendable, Equatable {
    /// The last source frame has been written to the outputs in cycle `cycle`; silence starts at
    /// output frame `outputFrame` (counted over all cycles).
    case finished(frame: Int, cycle: Int, outputFrame: Int)
    /// A seek took effect at this source frame.
    case seeked(frame: Int)
    /// The source had no data in time; silence was output from this source frame.
    case underrun(frame: Int)
}
