/// Where a stretcher's output is in its input: the first output frame after a feed carries the
/// input fed so far minus a lag, and each frame retrieved after it `step` more (step: input frames
/// per output frame). Measured on Rubber Band 3.1.2 with bursts: the lag follows the ratio in force,
/// whatever ratio the stretcher started at (R3 at 48 kHz: 2863, 3425, 3978 and 4488 input frames at
/// speeds 0.5, 0.75, 1 and 1.25), so a model that only counts output frames × step from the start
/// (`Engine.inputCursor` alone) drifts by the change in lag whenever the speed changes: 17 ms from 1
/// to 0.75. The engine pulls its cursor towards this instead.
///
/// A pitch-consistent stretcher shifts pitch (and converts a file's rate) by resampling inside, and
/// its lag depends on the ratio `step / pitchScale` alone: measured at pitch scales 0.5–2, R3's lag
/// at step t and scale s is within a few frames of its lag at step t / s and scale 1 (and so is its
/// start offset). Measured at scale 1 only, as a plain function of that ratio, the timing holds for
/// any pitch and any file rate; measured per step alone it was 200 frames off for a 44.1 kHz file
/// on a 48 kHz server (issue 26).
public struct StretchTiming: Sendable, Equatable {
    /// The ratios (step ÷ pitch scale) the timing is measured at; between them it is interpolated,
    /// beyond them extended along the nearest segment. With pitch 0 the ratio is the speed.
    public static let ratioCount = 8
    @inline(__always)
    static func ratio(_ index: Int) -> Double {
        switch index {
        case 0: return 0.25
        case 1: return 0.5
        case 2: return 0.75
        case 3: return 1
        case 4: return 1.25
        case 5: return 1.5
        case 6: return 2
        default: return 3
        }
    }

    /// The lag (input frames) at each ratio.
    public var lags: InlineArray<8, Double>
    /// For a stretcher started at each ratio as the engine starts one (the start pad fed and the
    /// start delay dropped, so that output frame k is taken to carry input frame k × step): how far
    /// the input it really carries is from that (input frames), once its pipeline is full.
    public var startOffsets: InlineArray<8, Double>

    public init(lags: InlineArray<8, Double>, startOffsets: InlineArray<8, Double> = .init(repeating: 0)) {
        self.lags = lags
        self.startOffsets = startOffsets
    }

    public static func == (a: StretchTiming, b: StretchTiming) -> Bool {
        for i in 0..<ratioCount where a.lags[i] != b.lags[i] || a.startOffsets[i] != b.startOffsets[i] { return false }
        return true
    }

    /// Not measured: the engine keeps its own count (a stretcher made by tests).
    public static var unknown: StretchTiming { StretchTiming(lags: .init(repeating: 0)) }
    /// (A measured stretcher always lags at ratio 1.)
    public var isKnown: Bool { lags[3] != 0 }

    /// Input frames between the input fed and the input carried by the first frame out after it, at
    /// `ratio` (step ÷ pitch scale). Real-time thread: arithmetic only.
    @inline(__always)
    public func lag(ratio: Double) -> Double { Self.interpolate(lags, at: ratio) }

    /// The start offset at `ratio` (see `startOffsets`). Real-time thread: arithmetic only.
    @inline(__always)
    public func startOffset(ratio: Double) -> Double { Self.interpolate(startOffsets, at: ratio) }

    @inline(__always)
    static func interpolate(_ values: InlineArray<8, Double>, at ratio: Double) -> Double {
        var upper = 1
        while upper < ratioCount - 1, ratio >= Self.ratio(upper) { upper += 1 }
        let (r0, r1) = (Self.ratio(upper - 1), Self.ratio(upper))
        return values[upper - 1] + (values[upper] - values[upper - 1]) * (ratio - r0) / (r1 - r0)
    }

    /// Control thread: measures a stretcher of this kind at pitch scale 1 by running short bursts
    /// through a new one at each of the ratios (the lag at each: the input fed when a burst's energy
    /// centroid comes out, less where it went in, counted back to the feed).
    public static func measure(kind: Stretcher.Kind, pitchConsistent: Bool, sampleRate: Int) -> StretchTiming {
        var timing = StretchTiming.unknown
        for index in 0..<ratioCount {
            let measured = lagAt(speed: ratio(index), kind: kind, pitchConsistent: pitchConsistent, sampleRate: sampleRate, pitchScale: 1)
            timing.lags[index] = measured.lag
            timing.startOffsets[index] = measured.startOffset
        }
        return timing
    }

    /// The same at one speed and pitch scale (for the tests that check the ratio rule).
    public static func measure(speed: Double, pitchScale: Double, kind: Stretcher.Kind, sampleRate: Int) -> (lag: Double, startOffset: Double) {
        lagAt(speed: speed, kind: kind, pitchConsistent: true, sampleRate: sampleRate, pitchScale: pitchScale)
    }

    private static func lagAt(speed: Double, kind: Stretcher.Kind, pitchConsistent: Bool, sampleRate: Int, pitchScale: Double) -> (lag: Double, startOffset: Double) {
        var stretcher = Stretcher(kind: kind, sampleRate: sampleRate, channelCount: 1, timeRatio: 1 / speed, pitchScale: pitchScale, pitchConsistent: pitchConsistent)
        let burstFrames = max(8, sampleRate / 500)  // 2 ms
        // Off the hop grid, so the bursts sample its phases; at least 1/8 s of output apart, so that
        // the window each burst is looked for in holds that burst alone at any speed.
        let spacing = Int(Double(sampleRate / 8) * max(1, speed)) + 13
        let first = spacing * 2, count = 6
        func sample(_ frame: Int) -> Float {
            let t = frame - first
            guard t >= 0, t / spacing < count, t % spacing < burstFrames else { return 0 }
            return Float(0.8 * cosine(2 * 3.141_592_653_589_793 * Double(t % spacing) / Double(burstFrames / 4)))
        }
        let capacity = 8192
        let input = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
        let inputs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 1)
        let outputs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 1)
        inputs.initialize(to: input)
        outputs.initialize(to: output)
        defer { input.deallocate(); output.deallocate(); inputs.deallocate(); outputs.deallocate() }
        var fed = 0
        var signal: [Float] = []
        var fedAt: [Int] = []
        var sinceFeed: [Int] = []  // frames retrieved since the last feed, per output frame
        var run = 0
        let total = Int(Double(first + spacing * count) / speed) + 4 * capacity
        while signal.count < total {
            let ready = stretcher.available()
            if ready > 0 {
                let got = stretcher.retrieve(into: UnsafePointer(outputs), offset: 0, frameCount: min(ready, capacity))
                for i in 0..<got {
                    signal.append(output[i])
                    fedAt.append(fed)
                    sinceFeed.append(run + i)
                }
                run += got
                continue
            }
            run = 0
            let need = stretcher.samplesRequired()
            for i in 0..<need { input[i] = sample(fed + i) }
            stretcher.process(UnsafePointer(inputs), offset: 0, frameCount: need)
            fed += need
        }
        // Each burst's output: the energy centroid of the window around where it should be.
        var lags: [Double] = []
        var offsets: [Double] = []
        let burstCentroid = Double(burstFrames - 1) / 2
        for index in 1..<count {
            let burst = first + index * spacing
            let expected = Int(Double(burst) / speed)
            let window = Int(Double(spacing) / 3 / max(1, speed))
            let from = max(0, expected - window), to = min(signal.count, expected + window)
            var energy = 0.0, moment = 0.0
            for frame in from..<to {
                let e = Double(signal[frame] * signal[frame])
                energy += e
                moment += e * Double(frame)
            }
            guard energy > 0 else { continue }
            let centre = moment / energy
            let centroid = Int(centre)
            lags.append(Double(fedAt[centroid]) - (Double(burst) + burstCentroid) + Double(sinceFeed[centroid]) * speed)
            // Output frame k counted as input k × speed: where this burst's centre was counted to be.
            offsets.append(Double(burst) + burstCentroid - centre * speed)
        }
        guard !lags.isEmpty else { return (0, 0) }
        return (lags.reduce(0, +) / Double(lags.count), offsets.reduce(0, +) / Double(offsets.count))
    }
}

/// cos without Foundation (a series around the nearest multiple of 2π is plenty for a test tone).
private func cosine(_ x: Double) -> Double {
    let twoPi = 6.283_185_307_179_586
    var y = x - twoPi * Double(Int(x / twoPi))
    if y > 3.141_592_653_589_793 { y -= twoPi }
    var term = 1.0, sum = 1.0
    for n in stride(from: 2, through: 30, by: 2) {
        term *= -y * y / Double((n - 1) * n)
        sum += term
    }
    return sum
}
