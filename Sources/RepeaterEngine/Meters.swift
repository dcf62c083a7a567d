import Glibc

/// The audio → control hand-off of level measurements: a single-producer/single-consumer ring of
/// fixed-size records, one per JACK period normally.
///
/// A record is `1 + 3 × (preChannels + postChannels)` doubles: the frames it covers, then per
/// channel the peak |x|, the sum of squares and the number of samples beyond full scale (|x| > 1),
/// first for the pre-fader stage (the source, before volume and pan) and then for the post-fader
/// stage (what leaves the ports).
///
/// Tear-free: the audio thread writes a whole record into a free slot and then publishes it with one
/// release store of the ring counter; the control thread acquires the counter before reading, so it
/// only ever sees complete records, and hands the slot back with a release store after reading.
/// Lossless: the audio thread accumulates into `pending` and only clears it once it has been copied
/// into the ring; when the ring is full (a stalled control thread) the periods merge in `pending`
/// (peaks by maximum, sums and counts by addition) until a slot frees up. Nothing is dropped and
/// nothing waits.
public struct MeterRing: ~Copyable, @unchecked Sendable {
    public let preChannels: Int
    public let postChannels: Int
    public let recordSize: Int
    let indices: RingIndices
    let storage: UnsafeMutablePointer<Double>
    /// Audio thread only: what has been measured and not yet published.
    let pending: UnsafeMutablePointer<Double>

    public init(preChannels: Int, postChannels: Int, capacity: Int = 64) {
        self.preChannels = preChannels
        self.postChannels = postChannels
        recordSize = 1 + 3 * (preChannels + postChannels)
        indices = RingIndices(capacity: capacity)
        storage = .allocate(capacity: capacity * recordSize)
        storage.initialize(repeating: 0, count: capacity * recordSize)
        pending = .allocate(capacity: recordSize)
        pending.initialize(repeating: 0, count: recordSize)
    }

    deinit {
        storage.deallocate()
        pending.deallocate()
    }

    // MARK: producer (audio thread)

    /// Producer. Measures `frameCount` samples of `channels` buffers into the stage starting at
    /// channel index `first` (0: pre; `preChannels`: post).
    @inline(__always)
    public func measure(_ buffers: UnsafePointer<UnsafeMutablePointer<Float>>, channels: Int, first: Int, frameCount: Int) {
        for channel in 0..<channels {
            let (peak, squares, clipped) = MeterRing.scan(UnsafePointer(buffers[channel]), frameCount: frameCount)
            let field = pending + 1 + 3 * (first + channel)
            let peakValue = Double(peak)
            field[0] = peakValue > field[0] ? peakValue : field[0]
            field[1] += Double(squares)
            field[2] += Double(clipped)
        }
    }

    /// One channel's peak |x|, sum of squares and count of |x| > 1, eight lanes at a time (the
    /// serial sum the compiler may not reorder was most of the meters' cost), the tail one by one.
    @inline(__always)
    static func scan(_ samples: UnsafePointer<Float>, frameCount: Int) -> (peak: Float, squares: Float, clipped: Int) {
        var peaks = SIMD8<Float>(repeating: 0), squares = SIMD8<Float>(repeating: 0)
        var clipped = SIMD8<Int32>(repeating: 0)
        let one = SIMD8<Float>(repeating: 1)
        let whole = frameCount & ~7
        var i = 0
        while i < whole {
            let x = UnsafeRawPointer(samples + i).loadUnaligned(as: SIMD8<Float>.self)
            // (`replacing` inlines; `pointwiseMax` stayed a call per step)
            let magnitude = x.replacing(with: -x, where: x .< 0)
            peaks.replace(with: magnitude, where: magnitude .> peaks)
            squares += x * x
            clipped &-= unsafeBitCast(magnitude .> one, to: SIMD8<Int32>.self)  // a true lane is −1
            i += 8
        }
        var peak = peaks.max(), sum = squares.sum(), count = Int(clipped.wrappedSum())
        while i < frameCount {
            let x = samples[i], magnitude = x.magnitude
            peak = magnitude > peak ? magnitude : peak
            sum += x * x
            count &+= magnitude > 1 ? 1 : 0
            i += 1
        }
        return (peak, sum, count)
    }

    /// Producer. Ends a period of `frameCount` frames: publishes everything pending when a slot is
    /// free (true), else keeps it for the next period (false).
    @inline(__always)
    @discardableResult
    public func publish(frameCount: Int) -> Bool {
        pending[0] += Double(frameCount)
        guard indices.writableCount() > 0 else { return false }
        let slot = storage + (indices.producerPosition() & indices.mask) * recordSize
        for i in 0..<recordSize {
            slot[i] = pending[i]
            pending[i] = 0
        }
        indices.commitWrite(1)
        return true
    }

    // MARK: consumer (control thread)

    /// Consumer. Adds every published record to the meters of each stage and frees the slots.
    public func drain(pre: LevelMeters, post: LevelMeters) {
        let count = indices.readableCount()
        guard count > 0 else { return }
        var position = indices.consumerPosition()
        for _ in 0..<count {
            let record = UnsafePointer(storage + (position & indices.mask) * recordSize)
            pre.add(frames: record[0], fields: record + 1)
            post.add(frames: record[0], fields: record + 1 + 3 * preChannels)
            position &+= 1
        }
        indices.commitRead(count)
    }
}

/// One channel's level over a display window, in dBFS (−∞ for silence).
public struct ChannelLevel: Equatable, Sendable {
    /// RMS over the window: 10·log10(Σx² / n). A full-scale sine reads −3.01.
    public var rmsDB: Double
    /// The largest |x| in the window: 20·log10(peak).
    public var peakDB: Double
    /// The held peak: the highest window peak of the last `holdSeconds`, then falling.
    public var holdDB: Double
    /// Samples beyond full scale (|x| > 1) since the start.
    public var clipped: Int

    public init(rmsDB: Double, peakDB: Double, holdDB: Double, clipped: Int) {
        self.rmsDB = rmsDB
        self.peakDB = peakDB
        self.holdDB = holdDB
        self.clipped = clipped
    }

    public static let silent = ChannelLevel(rmsDB: -.infinity, peakDB: -.infinity, holdDB: -.infinity, clipped: 0)
}

/// Control thread: turns the measurements of one stage (pre or post) into levels per display
/// window, with a peak hold that stays for `holdSeconds` and then falls at `fallDBPerSecond`.
public final class LevelMeters: @unchecked Sendable {
    public let channelCount: Int
    public var holdSeconds = 1.5
    public var fallDBPerSecond = 20.0
    private var frames = 0.0
    private var peaks: [Double]
    private var squares: [Double]
    private var clipped: [Int]
    private var holds: [Double]
    private var holdAges: [Double]
    public private(set) var levels: [ChannelLevel]

    public init(channelCount: Int) {
        self.channelCount = channelCount
        peaks = Array(repeating: 0, count: channelCount)
        squares = Array(repeating: 0, count: channelCount)
        clipped = Array(repeating: 0, count: channelCount)
        holds = Array(repeating: -.infinity, count: channelCount)
        holdAges = Array(repeating: 0, count: channelCount)
        levels = Array(repeating: .silent, count: channelCount)
    }

    /// Adds one record's fields for this stage (peak, squares, clipped per channel).
    func add(frames count: Double, fields: UnsafePointer<Double>) {
        frames += count
        for channel in 0..<channelCount {
            peaks[channel] = max(peaks[channel], fields[3 * channel])
            squares[channel] += fields[3 * channel + 1]
            clipped[channel] += Int(fields[3 * channel + 2])
        }
    }

    /// Closes the display window that lasted `elapsed` seconds: computes the levels, moves the peak
    /// holds, and starts a new window. A window with no frames in it keeps the last levels.
    @discardableResult
    public func closeWindow(elapsed: Double) -> [ChannelLevel] {
        guard frames > 0 else { return levels }
        for channel in 0..<channelCount {
            let rms = Self.decibels(power: squares[channel] / frames)
            let peak = Self.decibels(amplitude: peaks[channel])
            if peak >= holds[channel] {
                holds[channel] = peak
                holdAges[channel] = 0
            } else {
                holdAges[channel] += elapsed
                if holdAges[channel] > holdSeconds + 1e-9 {
                    holds[channel] = max(peak, holds[channel] - fallDBPerSecond * elapsed)
                }
            }
            levels[channel] = ChannelLevel(rmsDB: rms, peakDB: peak, holdDB: holds[channel], clipped: clipped[channel])
            peaks[channel] = 0
            squares[channel] = 0
        }
        frames = 0
        return levels
    }

    /// 20·log10(amplitude); −∞ for 0.
    public static func decibels(amplitude: Double) -> Double { amplitude > 0 ? 20 * log10(amplitude) : -.infinity }
    /// 10·log10(power); −∞ for 0.
    public static func decibels(power: Double) -> Double { power > 0 ? 10 * log10(power) : -.infinity }
}

extension LevelMeters {
    /// Tests: adds a record's fields as if drained from the ring.
    public func addForTesting(frames count: Double, fields: UnsafePointer<Double>) { add(frames: count, fields: fields) }
}
