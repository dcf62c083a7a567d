#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The knobs of `PitchEstimator`, with the values the accuracy tests were measured with.
struct PitchTuning {
    /// Salience weight of partial m of a fundamental f0: (f0 + α) / (m·f0 + β) (Klapuri 2006),
    /// which favours low partials of high notes and spreads the weight of low notes over many.
    var alphaHz: Float = 27
    var betaHz: Float = 320
    /// Peak amplitudes are compressed (a^exponent) before summing, a stand-in for spectral
    /// whitening: one loud partial should not outvote a full harmonic series.
    var compression: Float = 0.5
    /// Partials considered per fundamental.
    var maxHarmonics = 20
    /// A partial matches within ±(base + perHarmonic·m) cents (piano strings' partials run sharp).
    var toleranceBaseCents: Float = 30
    var tolerancePerHarmonicCents: Float = 2
    var toleranceMaxCents: Float = 60
    /// Another note is reported while its salience is at least this share of the first note's…
    var stopSalienceRatio: Float = 0.2
    /// …and its partials carry at least this share of all peak power.
    var minPowerShare: Float = 0.01
    /// A note's partials must stand out: their mean power at least this many dB over the median
    /// power of the peaks no note explains (or over the peak-picking threshold when fewer than
    /// 8 are left). Noise gives 3–6 dB (its strongest peaks fit some fundamental), the
    /// SoundFont's notes and chords 18–58 dB.
    var minProminenceDB: Float = 10
    /// Peaks used for the salience (the strongest ones).
    var maxPeaks = 64
    /// Partials 2 … this one are cancelled with spectral smoothing (the octaves, fifths and thirds
    /// a chord's tones share); higher ones whole.
    var smoothedPartials = 6
    /// A note on a partial of a note already found must carry at least this share of that note's
    /// power (a doubled octave does; what smoothing leaves of a loud partial does not).
    var minPowerOverParent: Float = 0.25
    /// A hidden bass (see `hiddenBass`) is taken within this range of the strongest peak.
    var hiddenBassRangeDB: Float = 30
    /// From this fundamental up, a note needs a spectral peak at its fundamental.
    var fundamentalRequiredHz: Float = 80
}

/// Finds the fundamentals of several simultaneous harmonic sounds from spectral peaks.
///
/// Each peak votes for every fundamental it could be partial m of (f/m, m = 1 … 20) on a 10-cent
/// grid, with the weight (f0 + α)/(m·f0 + β); the best fundamental is taken, its partials are
/// removed from the peaks, and the vote is repeated on what is left (iterative estimation and
/// cancellation, after Klapuri 2006, "Multiple fundamental frequency estimation by summing
/// harmonic amplitudes"). A partial is thus explained by its fundamental before it can be named
/// as a note of its own. On top of that, each rule with the case it is for:
/// - a fundamental from 80 Hz up needs a peak of its own (a chord's partials line up under
///   fundamentals nobody played);
/// - a candidate within 10 cents of partial 7, 11, 13 or 14 of a lower peak is that peak's partial
///   (no equal-tempered note lies there);
/// - partials 2…6 are cancelled only down to their neighbours (spectral smoothness), so that a
///   chord tone on another note's octave or twelfth keeps its excess; a note on a partial of a
///   note found before must then carry a quarter of that note's power;
/// - a bass whose partials were all taken by notes above it is recovered from its fundamental;
/// - a note's partials must stand 10 dB above the median of the peaks left unexplained (noise).
/// It cannot tell a chord whose tones all lie on one note's harmonic series (F2 under F3 C4 F4 A4)
/// from that note alone: such tones are named only when they are loud against the bass.
struct PitchEstimator {
    struct Estimate: Equatable {
        var frequencyHz: Float
        /// Power (amplitude²) of the partials attributed to this note.
        var power: Float
        var salience: Float
        /// Mean power of its partials over the median power of the peaks left unexplained.
        var prominence: Float = 0
    }

    var tuning = PitchTuning()
    /// Lowest fundamental considered: just under A0 − 50 cents.
    let lowestHz: Float = 26
    /// Highest fundamental considered: just over C8 + 50 cents.
    let highestHz: Float = 4_320
    let stepCents: Float = 10
    let gridCount: Int
    private var salience: [Float]
    private var residual: [Float] = []
    private var order: [Int] = []
    private var scratch: [Float] = []
    private var explained: [Bool] = []

    init() {
        gridCount = Int((1200 * log2f(highestHz / lowestHz) / stepCents).rounded(.up)) + 1
        salience = [Float](repeating: 0, count: gridCount)
        residual.reserveCapacity(4096)
        order.reserveCapacity(4096)
    }

    /// Up to `maxNotes` fundamentals in the order they were found (most salient first).
    /// `floorPower` is the power below which no peak was picked.
    mutating func estimate(peaks: [SpectralPeak], floorPower: Float, maxNotes: Int) -> [Estimate] {
        guard !peaks.isEmpty else { return [] }
        residual.removeAll(keepingCapacity: true)
        explained.removeAll(keepingCapacity: true)
        var totalPower: Float = 0
        for peak in peaks {
            residual.append(peak.amplitude)
            explained.append(false)
            totalPower += peak.amplitude * peak.amplitude
        }
        keepStrongest(peaks)
        var found: [Estimate] = []
        var dropped: [Float] = []
        var firstSalience: Float = 0
        let minProminence = pow10(tuning.minProminenceDB / 10)
        for _ in 0..<(2 * maxNotes) where found.count < maxNotes {
            computeSalience(peaks)
            guard let (f0, value) = bestFundamental(peaks, excluding: found.map(\.frequencyHz) + dropped) else { break }
            if found.isEmpty { firstSalience = value } else if value < tuning.stopSalienceRatio * firstSalience { break }
            let (power, partialCount) = cancelPartials(peaks, of: f0)
            // Too little of its own, or what smoothing left of a loud partial of a note already
            // found: not a note, but lower notes may still come.
            if power < tuning.minPowerShare * totalPower
                || found.contains(where: { isPartial(f0, of: $0.frequencyHz) && power < tuning.minPowerOverParent * $0.power }) {
                dropped.append(f0)
                continue
            }
            found.append(Estimate(frequencyHz: f0, power: power, salience: value, prominence: power / Float(max(1, partialCount))))
        }
        if found.count < maxNotes, let bass = hiddenBass(peaks, below: found) {
            let (power, partialCount) = cancelPartials(peaks, of: bass)
            found.append(Estimate(frequencyHz: bass, power: power, salience: 0, prominence: power / Float(max(1, partialCount))))
        }
        // Prominence against what is left once every note has taken its partials (noise, and the
        // parts of the sound no note explains).
        let reference = unexplainedMedianPower(peaks, floorPower: floorPower)
        for i in found.indices { found[i].prominence /= reference }
        return found.filter { $0.prominence >= minProminence }
    }

    /// A bass whose partials all lie on notes already found (E2 under E3 and B3: its octave and
    /// twelfth took them), so that only its fundamental is left to show it: the strongest peak
    /// nothing explains that lies below every note found, on f/2 … f/6 of one of them, within
    /// `hiddenBassRangeDB` of the strongest peak.
    private func hiddenBass(_ peaks: [SpectralPeak], below found: [Estimate]) -> Float? {
        guard let lowest = found.map(\.frequencyHz).min() else { return nil }
        let strongest = peaks.reduce(Float(0)) { max($0, $1.amplitude) }
        let threshold = strongest * pow10(-tuning.hiddenBassRangeDB / 20)
        var best: Int?
        for i in peaks.indices where !explained[i] && residual[i] > threshold && peaks[i].frequencyHz < lowest * 0.97 {
            guard peaks[i].frequencyHz >= lowestHz, residual[i] > (best.map { residual[$0] } ?? 0) else { continue }
            if found.contains(where: { note in (2...6).contains(Int((note.frequencyHz / peaks[i].frequencyHz).rounded())) && isPartial(note.frequencyHz, of: peaks[i].frequencyHz) }) {
                best = i
            }
        }
        return best.map { peaks[$0].frequencyHz }
    }

    /// Whether `frequencyHz` is within 10 cents of partial 7, 11, 13 or 14 of a peak at least a
    /// tenth as strong (−20 dB): such a partial is 31–49 cents away from any equal-tempered
    /// interval above that peak, so it is the lower sound's partial, not a note played with it
    /// (the natural seventh of a piano's C3, 917 Hz, is not a B♭5).
    private func isOffScalePartial(_ frequencyHz: Float, amplitude: Float, _ peaks: [SpectralPeak]) -> Bool {
        for k in [7, 11, 13, 14] {
            let sub = frequencyHz / Float(k)
            guard sub >= lowestHz else { break }
            let ratio = exp2f(10 / 1200)
            var index = firstPeak(atOrAbove: sub / ratio, in: peaks)
            while index < peaks.count && peaks[index].frequencyHz <= sub * ratio {
                if peaks[index].amplitude >= 0.1 * amplitude { return true }
                index += 1
            }
        }
        return false
    }

    /// Whether `frequencyHz` lies on partial m ≥ 2 of `f0`, within the partial tolerance.
    private func isPartial(_ frequencyHz: Float, of f0: Float) -> Bool {
        let m = (frequencyHz / f0).rounded()
        guard m >= 2 && Int(m) <= tuning.maxHarmonics else { return false }
        return abs(1200 * log2f(frequencyHz / (m * f0))) <= toleranceCents(harmonic: Int(m))
    }

    /// The most salient fundamental at least 60 cents from each of `frequencies`, refined from
    /// its partials. A fundamental from `fundamentalRequiredHz` up must have a spectral peak of its
    /// own (only low strings sound with a weak or missing fundamental; higher up, a candidate
    /// without one is a coincidence of other notes' partials).
    private func bestFundamental(_ peaks: [SpectralPeak], excluding frequencies: [Float]) -> (Float, Float)? {
        var excluded = frequencies.map { gridPosition($0) }
        for _ in 0..<8 {
            guard let (index, value) = bestGridPoint(excluding: excluded) else { return nil }
            let f0 = refinedFundamental(peaks, near: gridFrequency(index))
            if f0 < tuning.fundamentalRequiredHz || (fundamentalPeak(peaks, near: f0).map { !isOffScalePartial(f0, amplitude: peaks[$0].amplitude, peaks) } ?? false) {
                return (f0, value)
            }
            excluded.append(Float(index))
        }
        return nil
    }

    /// The strongest peak within the fundamental's tolerance of `frequencyHz`, if any.
    private func fundamentalPeak(_ peaks: [SpectralPeak], near frequencyHz: Float) -> Int? {
        let ratio = exp2f(toleranceCents(harmonic: 1) / 1200)
        var index = firstPeak(atOrAbove: frequencyHz / ratio, in: peaks)
        var best: Int?
        while index < peaks.count && peaks[index].frequencyHz <= frequencyHz * ratio {
            if peaks[index].amplitude > (best.map { peaks[$0].amplitude } ?? 0) { best = index }
            index += 1
        }
        return best
    }

    // MARK: - Salience

    /// Zeroes the residual of all but the `maxPeaks` strongest peaks (they still count in the total).
    private mutating func keepStrongest(_ peaks: [SpectralPeak]) {
        guard peaks.count > tuning.maxPeaks else { return }
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: peaks.indices)
        order.sort { peaks[$0].amplitude > peaks[$1].amplitude }
        for i in order[tuning.maxPeaks...] { residual[i] = 0 }
    }

    private func gridFrequency(_ index: Int) -> Float { lowestHz * exp2f(Float(index) * stepCents / 1200) }

    private func gridPosition(_ frequencyHz: Float) -> Float { 1200 * log2f(frequencyHz / lowestHz) / stepCents }

    private func toleranceCents(harmonic m: Int) -> Float {
        min(tuning.toleranceMaxCents, tuning.toleranceBaseCents + tuning.tolerancePerHarmonicCents * Float(m))
    }

    private mutating func computeSalience(_ peaks: [SpectralPeak]) {
        let count = gridCount
        var votes: [Float] = []
        swap(&votes, &salience)
        defer { swap(&votes, &salience) }
        votes.withUnsafeMutableBufferPointer { grid in
            for j in 0..<count { grid[j] = 0 }
            for i in peaks.indices where residual[i] > 0 {
                let vote = powf(residual[i], tuning.compression)
                let frequency = peaks[i].frequencyHz
                for m in 1...tuning.maxHarmonics {
                    let f0 = frequency / Float(m)
                    if f0 < lowestHz { break }
                    if f0 > highestHz { continue }
                    let weight = vote * (f0 + tuning.alphaHz) / (frequency + tuning.betaHz)
                    let x = gridPosition(f0)
                    let reach = toleranceCents(harmonic: m) / stepCents
                    let lower = max(0, Int((x - reach).rounded(.up))), upper = min(count - 1, Int((x + reach).rounded(.down)))
                    guard lower <= upper else { continue }
                    for j in lower...upper {
                        grid[j] += weight * (1 - abs(Float(j) - x) / (reach + 1))
                    }
                }
            }
        }
    }

    /// The grid point of highest salience at least 60 cents from every excluded grid position.
    private func bestGridPoint(excluding excluded: [Float]) -> (Int, Float)? {
        let guardPoints = 60 / stepCents
        var best: (Int, Float)?
        for j in 0..<gridCount where salience[j] > (best?.1 ?? 0) {
            if excluded.contains(where: { abs($0 - Float(j)) < guardPoints }) { continue }
            best = (j, salience[j])
        }
        return best
    }

    // MARK: - Partials

    /// For each partial m of `f0`, the index of the strongest remaining peak within tolerance, if any.
    private func matchPartials(_ peaks: [SpectralPeak], of f0: Float) -> [(harmonic: Int, peak: Int)] {
        var matches: [(harmonic: Int, peak: Int)] = []
        for m in 1...tuning.maxHarmonics {
            let target = f0 * Float(m)
            if target > peaks[peaks.count - 1].frequencyHz * 1.05 { break }
            let ratio = exp2f(toleranceCents(harmonic: m) / 1200)
            let low = target / ratio, high = target * ratio
            var index = firstPeak(atOrAbove: low, in: peaks)
            var best: Int?
            while index < peaks.count && peaks[index].frequencyHz <= high {
                if residual[index] > 0 && residual[index] > (best.map { residual[$0] } ?? 0) { best = index }
                index += 1
            }
            if let best { matches.append((m, best)) }
        }
        return matches
    }

    private func firstPeak(atOrAbove frequencyHz: Float, in peaks: [SpectralPeak]) -> Int {
        var low = 0, high = peaks.count
        while low < high {
            let mid = (low + high) / 2
            if peaks[mid].frequencyHz < frequencyHz { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The fundamental that best fits the low partials found near `estimate` (each partial's
    /// frequency divided by its number, weighted by amplitude over number, so that the sharp upper
    /// partials of strings pull little).
    private func refinedFundamental(_ peaks: [SpectralPeak], near estimate: Float) -> Float {
        var f0 = estimate
        for _ in 0..<2 {
            var sum: Float = 0, weights: Float = 0
            for (m, index) in matchPartials(peaks, of: f0) where m <= 8 {
                let weight = residual[index] / Float(m * m)
                sum += weight * peaks[index].frequencyHz / Float(m)
                weights += weight
            }
            guard weights > 0 else { break }
            f0 = sum / weights
        }
        return f0
    }

    /// Removes the partials of `f0` from the residual; returns the power removed and the number of
    /// partials. The fundamental and the partials above `smoothedPartials` go whole; partials 2 …
    /// `smoothedPartials` only down to the stronger of their neighbours m−1 and m+1 (spectral
    /// smoothness, after Klapuri 2003): such a partial standing out of its own series is probably
    /// the octave, twelfth or third of another note, which keeps the excess.
    private mutating func cancelPartials(_ peaks: [SpectralPeak], of f0: Float) -> (power: Float, count: Int) {
        let matches = matchPartials(peaks, of: f0)
        var amplitudes = [Float](repeating: 0, count: tuning.maxHarmonics + 2)
        for (m, index) in matches { amplitudes[m] = residual[index] }
        var power: Float = 0
        for (m, index) in matches {
            let amplitude = residual[index]
            let removed = m == 1 || m > tuning.smoothedPartials ? amplitude : min(amplitude, max(amplitudes[m - 1], amplitudes[m + 1]))
            power += removed * removed
            residual[index] = amplitude - removed > 0.1 * peaks[index].amplitude ? amplitude - removed : 0
            explained[index] = true
        }
        return (power, matches.count)
    }

    /// The median power of the peaks no note has explained: the noise (and the rest of the music)
    /// a note must stand out from; `floorPower` when fewer than 8 are left.
    private mutating func unexplainedMedianPower(_ peaks: [SpectralPeak], floorPower: Float) -> Float {
        scratch.removeAll(keepingCapacity: true)
        for i in peaks.indices where !explained[i] { scratch.append(peaks[i].amplitude * peaks[i].amplitude) }
        guard scratch.count >= 8 else { return max(floorPower, .leastNormalMagnitude) }
        scratch.sort()
        return max(scratch[scratch.count / 2], floorPower, .leastNormalMagnitude)
    }
}
