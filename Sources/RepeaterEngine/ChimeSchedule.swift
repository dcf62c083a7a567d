/// The strikes of a minute repeater for h:m, with exact sample offsets.
///
/// `((h + 11) % 12) + 1` low strikes for the hours (12 at 0:xx and 12:xx), then `m / 15` high-low
/// pairs for the quarters, then `m % 15` high strikes for the minutes. Every strike is followed by
/// its interval (0.5 s after an hour strike, 0.4 s from a quarter's high to its low, 0.5 s after a
/// quarter's low, 0.5 s after a minute strike), and a group with strikes waits a further 0.7 s when
/// a group came before it. Worked example, 3:47 (seconds): low 0.0 0.5 1.0 | high 2.2 low 2.6
/// high 3.1 low 3.5 high 4.0 low 4.4 | high 5.6 6.1.
///
/// All intervals are whole tenths of a second, so onsets are computed in tenths and converted to
/// frames once each (`round(tenths × tempo × rate / 10)`): no drift, whatever the length. Pure and
/// allocation-free: the audio thread computes it when a chime is triggered.
public struct ChimeSchedule: Sendable, Equatable {
    public enum Kind: UInt8, BitwiseCopyable, Sendable { case low, high }

    /// At most 12 hour strikes + 3 pairs + 14 minute strikes.
    public static let capacity = 32

    public private(set) var count = 0
    private var onsets = Onsets()

    /// Fixed storage for the onsets (no heap, no Array on the audio thread).
    private struct Onsets: Equatable, Sendable {
        var frames: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int,
                     Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var highMask: UInt32 = 0

        static func == (lhs: Onsets, rhs: Onsets) -> Bool {
            withUnsafeBytes(of: lhs.frames) { a in withUnsafeBytes(of: rhs.frames) { b in a.elementsEqual(b) } }
                && lhs.highMask == rhs.highMask
        }
    }

    public init(hour: Int, minute: Int, sampleRate: Int, tempo: Double = 1) {
        let hours = ((hour % 24 + 24 + 11) % 12) + 1
        let quarters = (minute % 60) / 15
        let minutes = (minute % 60) % 15
        let framesPerTenth = tempo * Double(sampleRate) / 10
        // (No nested closures here: a debug build boxes the variables they capture, on the heap.)
        var tenths = 0
        for _ in 0..<hours {
            append(.low, tenths, framesPerTenth)
            tenths += 5
        }
        if quarters > 0 {
            tenths += 7  // the hours always strike first, so a group came before
            for _ in 0..<quarters {
                append(.high, tenths, framesPerTenth)
                tenths += 4
                append(.low, tenths, framesPerTenth)
                tenths += 5
            }
        }
        if minutes > 0 {
            tenths += 7
            for _ in 0..<minutes {
                append(.high, tenths, framesPerTenth)
                tenths += 5
            }
        }
    }

    private mutating func append(_ kind: Kind, _ tenths: Int, _ framesPerTenth: Double) {
        let frame = Int(Double(tenths) * framesPerTenth + 0.5)  // ≥ 0: round half up
        withUnsafeMutableBytes(of: &onsets.frames) { $0.storeBytes(of: frame, toByteOffset: count * MemoryLayout<Int>.stride, as: Int.self) }
        if kind == .high { onsets.highMask |= 1 << UInt32(count) }
        count += 1
    }

    /// The sample offset of strike `index` from the start of the chime.
    public func onset(_ index: Int) -> Int {
        withUnsafeBytes(of: onsets.frames) { $0.load(fromByteOffset: index * MemoryLayout<Int>.stride, as: Int.self) }
    }

    public func kind(_ index: Int) -> Kind { onsets.highMask & (1 << UInt32(index)) != 0 ? .high : .low }

    /// The strikes, for tests and printing (allocates: not for the audio thread).
    public var strikes: [(kind: Kind, frame: Int)] { (0..<count).map { (kind($0), onset($0)) } }
}
