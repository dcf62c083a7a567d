/// What the isolator lets through ("hearing the part").
public enum IsolationMode: Sendable, Equatable {
    /// Everything, untouched and undelayed: the samples bit for bit (latency 0).
    case off
    /// Everything, untouched but delayed by the isolator's latency: the whole mix on the same time
    /// base as the modes below, so A/B comparisons with them never jump in time.
    case through
    /// What is panned to the middle (voice, bass, lead), on both channels. Stereo only.
    case centre
    /// Everything but the middle (karaoke), each part where it was panned. Stereo only.
    case sides
    /// The left channel alone, on every output. Stereo only.
    case left
    /// The right channel alone, on every output. Stereo only.
    case right
    /// The bass register, `IsolationMode.bassBand`, on every channel.
    case bass
    /// A band-pass from `lowHz` to `highHz` (each edge −3 dB, 24 dB per octave outside), on every
    /// channel. The edges stay within the open band, 10 Hz to 0.45 × the sample rate (at most
    /// 20 kHz): `band(lowHz: 0, highHz: 300)` is a low-pass at 300 Hz (and a high-pass at 10 Hz).
    case band(lowHz: Double, highHz: Double)

    /// The `bass` mode's band: 30 Hz (below a 4-string's low E1, 41.2 Hz, which it passes at
    /// −0.3 dB) to 400 Hz (G4, the top of the bass's range, and the second harmonic of the G3 that
    /// bass lines rarely go above: the harmonics that carry a low note's pitch on small speakers
    /// stay in; from there up the guitars, keys and voices dominate).
    public static var bassBand: (lowHz: Double, highHz: Double) { (30, 400) }

    /// Needs two channels (centre, sides, left, right).
    public var needsStereo: Bool {
        switch self {
        case .centre, .sides, .left, .right: return true
        case .off, .through, .bass, .band: return false
        }
    }

    /// Where the mode's signal comes from, before its band (if any).
    var source: IsolationSource {
        switch self {
        case .off: return .input
        case .through, .bass, .band: return .delayed
        case .centre: return .centre
        case .sides: return .sides
        case .left: return .left
        case .right: return .right
        }
    }

    /// The band of a filtering mode (`bass`, `band`).
    var filterBand: (lowHz: Double, highHz: Double)? {
        switch self {
        case .bass: return IsolationMode.bassBand
        case .band(let low, let high): return (low, high)
        default: return nil
        }
    }
}

/// The signal a mode starts from: the input as it comes (`off`), or `latencyFrames` later: as it
/// was, the centre, the sides, one channel.
enum IsolationSource: Equatable {
    case input, delayed, centre, sides, left, right
}
