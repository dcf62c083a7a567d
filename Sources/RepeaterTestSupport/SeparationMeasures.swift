import Foundation

/// How well a separation kept or removed the parts of a `PartMix`.
public enum SeparationMeasures {
    /// Scale-invariant signal-to-distortion ratio (Le Roux, Wisdom, Erdogan, Hershey, "SDR –
    /// half-baked or well done?", ICASSP 2019), in dB: the estimate's best-scaled projection on the
    /// reference against everything else. Channels are concatenated (a stereo signal is one vector).
    public static func siSDR(estimate: PlanarAudio, reference: PlanarAudio) -> Double {
        var dot = 0.0, referenceEnergy = 0.0
        for (e, r) in zip(estimate.channels, reference.channels) {
            for i in 0..<min(e.count, r.count) {
                dot += Double(e[i]) * Double(r[i])
                referenceEnergy += Double(r[i]) * Double(r[i])
            }
        }
        let alpha = dot / referenceEnergy
        var target = 0.0, noise = 0.0
        for (e, r) in zip(estimate.channels, reference.channels) {
            for i in 0..<min(e.count, r.count) {
                let t = alpha * Double(r[i])
                target += t * t
                noise += (Double(e[i]) - t) * (Double(e[i]) - t)
            }
        }
        return 10 * log10(target / max(noise, 1e-300))
    }

    /// Octave bands from 22 Hz up (the parts are high-passed at 20 Hz): edges 22, 44, … 11 360 Hz,
    /// then the Nyquist frequency.
    public static let octaveEdgesHz: [Double] = [22.1, 44.2, 88.4, 176.8, 353.6, 707.1, 1414.2, 2828.4, 5656.9, 11313.7]

    /// One part's gain through a process, from least-squares shares.
    public struct PartLevel: Sendable {
        public var name: String
        /// Output energy over input energy of the part, summed over every band (the spectrum as a
        /// whole, every band counted by its energy), in dB.
        public var energyWeightedDB: Double
        /// Per octave band (nil where the part holds less than 1 % of its energy).
        public var bandDB: [Double?]
        /// The lowest and the highest level among the bands holding ≥ 1 % of the part's energy.
        public var lowestBandDB: Double
        public var highestBandDB: Double
    }

    /// Each part's level in `output`, octave band by octave band: in every band and output channel
    /// the output is regressed on the parts (least squares: output ≈ Σ g_p · m_p, m_p the part's
    /// two channels summed), and g_p² · E(m_p) is the part's energy in that output channel. A
    /// process that leaves some band untouched pays for it in that band.
    public static func partLevels(output: PlanarAudio, parts: [(name: String, audio: PlanarAudio)]) -> [PartLevel] {
        let length = output.frameCount, size = Spectrum.size(for: length), rate = Double(output.sampleRate)
        let outputs = output.channels.map { Spectrum.forward($0, size: size) }
        let monos = parts.map { part in
            Spectrum.forward(zip(part.audio.channels[0], part.audio.channels[1]).map { $0 + $1 }, size: size)
        }
        let partChannels = parts.map { part in part.audio.channels.map { Spectrum.forward($0, size: size) } }
        let edges = octaveEdgesHz + [rate / 2 + 1]
        let p = parts.count
        var inputEnergy = Array(repeating: Array(repeating: 0.0, count: edges.count - 1), count: p)
        var outputEnergy = inputEnergy
        for band in 0..<(edges.count - 1) {
            let low = Int((edges[band] * Double(size) / rate).rounded(.up))
            let high = min(size / 2, Int((edges[band + 1] * Double(size) / rate).rounded(.up)) - 1)
            guard low <= high else { continue }
            func dot(_ a: [Double], _ b: [Double]) -> Double {
                var sum = 0.0
                for k in low...high { sum += a[2 * k] * b[2 * k] + a[2 * k + 1] * b[2 * k + 1] }
                return sum
            }
            var gram = Array(repeating: Array(repeating: 0.0, count: p), count: p)
            for i in 0..<p { for j in i..<p { gram[i][j] = dot(monos[i], monos[j]); gram[j][i] = gram[i][j] } }
            for i in 0..<p { inputEnergy[i][band] = partChannels[i].reduce(0) { $0 + dot($1, $1) } }
            let trace = (0..<p).reduce(0.0) { $0 + gram[$1][$1] }
            for i in 0..<p { gram[i][i] += 1e-12 * trace + 1e-300 }
            for channel in outputs {
                let rhs = (0..<p).map { dot(monos[$0], channel) }
                let gains = solve(gram, rhs)
                for i in 0..<p { outputEnergy[i][band] += gains[i] * gains[i] * gram[i][i] }
            }
        }
        return (0..<p).map { i in
            let total = inputEnergy[i].reduce(0, +)
            let bands: [Double?] = (0..<(edges.count - 1)).map { band in
                inputEnergy[i][band] >= 0.01 * total ? 10 * log10(max(outputEnergy[i][band], 1e-300) / inputEnergy[i][band]) : nil
            }
            let counted = bands.compactMap { $0 }
            return PartLevel(name: parts[i].name, energyWeightedDB: 10 * log10(max(outputEnergy[i].reduce(0, +), 1e-300) / total),
                             bandDB: bands, lowestBandDB: counted.min() ?? 0, highestBandDB: counted.max() ?? 0)
        }
    }

    /// Gaussian elimination with partial pivoting (the systems are tiny: one unknown per part).
    static func solve(_ matrix: [[Double]], _ rhs: [Double]) -> [Double] {
        var a = matrix, b = rhs
        let n = b.count
        for column in 0..<n {
            let pivot = (column..<n).max { abs(a[$0][column]) < abs(a[$1][column]) }!
            a.swapAt(column, pivot)
            b.swapAt(column, pivot)
            for row in (column + 1)..<n where a[column][column] != 0 {
                let factor = a[row][column] / a[column][column]
                for k in column..<n { a[row][k] -= factor * a[column][k] }
                b[row] -= factor * b[column]
            }
        }
        var x = Array(repeating: 0.0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = b[row]
            for k in (row + 1)..<n { sum -= a[row][k] * x[k] }
            x[row] = a[row][row] != 0 ? sum / a[row][row] : 0
        }
        return x
    }
}
