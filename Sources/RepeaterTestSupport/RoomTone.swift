import Foundation

/// Backgrounds laid under test speech: a room's tone or a recorder's hiss, seeded, at an exact
/// RMS level; and a music bed cut from a real track.
public enum RoomTone {
    public enum Kind: String, Sendable {
        /// Pink noise (−3 dB an octave): the low, even rumble of a room, ventilation or traffic.
        case room
        /// White noise: tape, preamp or dither hiss.
        case hiss
    }

    /// `frameCount` samples of `kind` at `dBFS` RMS (exactly, over the whole stretch), repeatable by `seed`.
    public static func noise(_ kind: Kind, dBFS: Double, frameCount: Int, seed: UInt64) -> [Float] {
        var random = SplitMix64(seed: seed)
        var samples = [Float](repeating: 0, count: frameCount)
        switch kind {
        case .hiss:
            for index in samples.indices { samples[index] = 2 * random.nextUnit() - 1 }
        case .room:
            // Paul Kellet's pink filter: white noise through a sum of first-order low-passes,
            // flat to ±0.05 dB against −3 dB an octave from 9 Hz up.
            var b0: Float = 0, b1: Float = 0, b2: Float = 0, b3: Float = 0, b4: Float = 0, b5: Float = 0, b6: Float = 0
            for index in samples.indices {
                let white = 2 * random.nextUnit() - 1
                b0 = 0.99886 * b0 + white * 0.0555179
                b1 = 0.99332 * b1 + white * 0.0750759
                b2 = 0.96900 * b2 + white * 0.1538520
                b3 = 0.86650 * b3 + white * 0.3104856
                b4 = 0.55000 * b4 + white * 0.5329522
                b5 = -0.7616 * b5 - white * 0.0168980
                samples[index] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + white * 0.5362
                b6 = white * 0.115926
            }
        }
        return scaled(samples, toDBFS: dBFS)
    }

    /// A bed `frameCount` long from `track` (mono, at the recording's rate): from `startFrame` on,
    /// looped with a 1 s crossfade where the track runs out, at `dBFS` RMS over the bed.
    public static func musicBed(track: [Float], sampleRate: Int, startFrame: Int, frameCount: Int, dBFS: Double) -> [Float] {
        precondition(track.count > 4 * sampleRate, "a music bed needs a track of more than 4 s")
        let fade = sampleRate
        var bed = [Float](repeating: 0, count: frameCount)
        var position = min(startFrame, track.count - 2 * fade)
        var written = 0
        while written < frameCount {
            // One pass from `position` to the end of the track; the next starts `fade` frames
            // before this one ends, the two crossfaded (equal power).
            let passLength = track.count - position
            for offset in 0..<passLength where written + offset < frameCount {
                var gain: Float = 1
                if written > 0, offset < fade { gain = sin(Float.pi / 2 * Float(offset) / Float(fade)) }
                if offset >= passLength - fade { gain *= cos(Float.pi / 2 * Float(offset - (passLength - fade)) / Float(fade)) }
                bed[written + offset] += gain * track[position + offset]
            }
            written += passLength - fade
            position = 0
        }
        return scaled(bed, toDBFS: dBFS)
    }

    /// The RMS level of `samples` in dBFS (−∞ as −200).
    public static func levelDBFS(_ samples: ArraySlice<Float>) -> Double {
        guard !samples.isEmpty else { return -200 }
        var sum = 0.0
        for sample in samples { sum += Double(sample) * Double(sample) }
        return 10 * log10(max(sum / Double(samples.count), 1e-20))
    }

    static func scaled(_ samples: [Float], toDBFS dBFS: Double) -> [Float] {
        let gain = Float(pow(10, (dBFS - levelDBFS(samples[...])) / 20))
        return samples.map { $0 * gain }
    }
}
