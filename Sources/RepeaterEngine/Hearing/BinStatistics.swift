import Glibc

/// A few statistics per frequency bin (`fieldCount` of them, each `binCount` floats), smoothed over
/// time by a one-pole filter folded once per analysed frame, and read back summed over the
/// ±`binRadius` neighbouring bins (`box`). `StereoSplitter` keeps three of these, one per time
/// scale.
///
/// Each field sits in one allocation with `binRadius` zeros either side, which are never written:
/// the sum over ±`binRadius` bins is then a plain sum of shifted arrays (the bins past either end
/// count as zero), which the compiler vectorises.
struct BinStatistics: ~Copyable, @unchecked Sendable {
    let binCount: Int
    let binRadius: Int
    let fieldCount: Int
    /// The weight of the past when one frame is folded in per hop: exp(−hop / (seconds × rate)).
    let smoothing: Float
    /// The same for one frame folded in per `stride` hops (the time constant is kept).
    let stridedSmoothing: Float
    /// The smoothed statistics (field f at `fields + f * paddedCount + binRadius`).
    private let storage: UnsafeMutablePointer<Float>
    /// `box`'s output, field after field (`binCount` each).
    private let boxed: UnsafeMutablePointer<Float>
    private var paddedCount: Int { binCount + 2 * binRadius }

    /// Control thread.
    init(fieldCount: Int, binCount: Int, binRadius: Int, seconds: Double, hopFrames: Int, sampleRate: Int, stride: Int) {
        self.fieldCount = fieldCount
        self.binCount = binCount
        self.binRadius = binRadius
        let perHop = exp(-Double(hopFrames) / (seconds * Double(sampleRate)))
        smoothing = Float(perHop)
        stridedSmoothing = Float(pow(perHop, Double(stride)))
        let padded = binCount + 2 * binRadius
        storage = .zeroed(fieldCount * padded)
        boxed = .zeroed(fieldCount * binCount)
    }

    deinit {
        storage.deallocate()
        boxed.deallocate()
    }

    /// Real-time thread. Field `index`, bins 0..<binCount (to fold into).
    @inline(__always)
    func field(_ index: Int) -> UnsafeMutablePointer<Float> { storage + index * paddedCount + binRadius }

    /// Real-time thread. Field `index` summed over ±`binRadius` bins, as the last `box()` left it
    /// (with a radius of 0, the field itself: there is nothing to sum).
    @inline(__always)
    func boxedField(_ index: Int) -> UnsafeMutablePointer<Float> {
        binRadius == 0 ? field(index) : boxed + index * binCount
    }

    /// Real-time thread. Sums every field over ±`binRadius` bins into `boxedField`: eight bins at
    /// a time, the sum kept in registers over the shifts and stored once (a pass over the field
    /// per shift loaded and stored every sum 2·`binRadius` times); the additions in the same order,
    /// so the same bits.
    func box() {
        if binRadius == 0 { return }
        let width = 2 * binRadius + 1, count = binCount
        for index in 0..<fieldCount {
            let source = UnsafeRawPointer(storage + index * paddedCount), target = boxed + index * binCount
            var k = 0
            while k + 8 <= count {
                var sum = source.loadUnaligned(fromByteOffset: 4 * k, as: SIMD8<Float>.self)
                for shift in 1..<width {
                    sum += source.loadUnaligned(fromByteOffset: 4 * (k + shift), as: SIMD8<Float>.self)
                }
                UnsafeMutableRawPointer(target + k).storeBytes(of: sum, as: SIMD8<Float>.self)
                k += 8
            }
            let values = source.assumingMemoryBound(to: Float.self)
            while k < count {
                var sum = values[k]
                for shift in 1..<width { sum += values[k + shift] }
                target[k] = sum
                k += 1
            }
        }
    }

    /// Subnormal values among the statistics.
    func subnormalCount() -> Int {
        var count = 0
        for index in 0..<fieldCount {
            let values = field(index)
            for k in 0..<binCount where values[k].isSubnormal { count += 1 }
        }
        return count
    }
}

extension UnsafeMutablePointer where Pointee == Float {
    /// Control thread. `count` floats, allocated and set to 0 (the splitter's per-bin state).
    static func zeroed(_ count: Int) -> UnsafeMutablePointer<Float> {
        let values = UnsafeMutablePointer<Float>.allocate(capacity: count)
        values.initialize(repeating: 0, count: count)
        return values
    }
}
