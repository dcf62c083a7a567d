/// Where a stretcher's output is in its input: the first output frame after a feed carries the
/// input fed so far minus a lag that depends on the current ratio, `interceptFrames + slopeFrames ×
/// step` (step: input frames per output frame), and each frame retrieved after it `step` more. Measured on Rubber Band 3.1.2 with bursts: the lag follows the
/// ratio in force, whatever ratio the stretcher started at (R3 at 48 kHz: 2863, 3425, 3978 and 4488
/// input frames at speeds 0.5, 0.75, 1 and 1.25), so a model that only counts output frames × step
/// from the start (`Engine.inputCursor` alone) drifts by the change in lag whenever the speed
/// changes: 17 ms from 1 to 0.75. The engine pulls its cursor towards this instead.
public struct StretchTiming: Sendable, Equatable {
    /// The speeds the lag is measured at (steps of 1: the same in input frames per output frame).
    public static let steps = (0.5, 0.75, 1.0, 1.25, 1.5)
    /// The lag (input frames) at each of `steps`; between them it is interpolated, beyond them
    /// extended along the nearest segment.
    public var lags: (Double, Double, Double, Double, Double)
    /// For a stretcher started at each of `steps` as the engine starts one (the start pad fed and
    /// the start delay dropped, so that output frame k is taken to carry input frame k × step): how
    /// far the input it really carries is from that (input frames), once its pipeline is full.
    public var startOffsets: (Double, Double, Double, Double, Double)

    public init(lags: (Double, Double, Double, Double, Double), startOffsets: (Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0)) {
        self.lags = lags
        self.startOffsets = startOffsets
    }

    public static func == (a: StretchTiming, b: StretchTiming) -> Bool {
        a.lags.0 == b.lags.0 && a.lags.1 == b.lags.1 && a.lags.2 == b.lags.2 && a.lags.3 == b.lags.3 && a.lags.4 == b.lags.4
            && a.startOffsets.0 == b.startOffsets.0 && a.startOffsets.1 == b.startOffsets.1 && a.startOffsets.2 == b.startOffsets.2
            && a.startOffsets.3 == b.startOffsets.3 && a.startOffsets.4 == b.startOffsets.4
    }

    /// Not measured: the engine keeps its own count (a stretcher made by tests).
    public static let unknown = StretchTiming(lags: (0, 0, 0, 0, 0))
    /// (A measured stretcher always lags at speed 1; compared field by field, not with `unknown`,
    /// whose lazy initialisation the audio thread must not reach.)
    public var isKnown: Bool { lags.2 != 0 }

    /// Input frames between the input fed and the input carried by the first frame out after it, at
    /// `step` input frames per output frame. Real-time thread: arithmetic only.
    @inline(__always)
    public func lag(step: Double) -> Double { Self.interpolate(lags, at: step) }

    /// The start offset at `step` (see `startOffsets`). Real-time thread: arithmetic only.
    @inline(__always)
    public func startOffset(step: Double) -> Double { Self.interpolate(startOffsets, at: step) }

    @inline(__always)
    static func interpolate(_ values: (Double, Double, Double, Double, Double), at step: Double) -> Double {
        let (s0, s1, s2, s3, s4) = steps
        let (l0, l1, l2, l3, l4) = values
        if step < s1 { return l0 + (l1 - l0) * (step - s0) / (s1 - s0) }
        if step < s2 { return l1 + (l2 - l1) * (step - s1) / (s2 - s1) }
        if step < s3 { return l2 + (l3 - l2) * (step - s2) / (s3 - s2) }
        return l3 + (l4 - l3) * (step - s3) / (s4 - s3)
    }

    /// Control thread: measures a stretcher of this kind by running short bursts through a new one
    /// at each of `steps` (the lag at each: the input fed when a burst's energy centroid comes out,
    /// less where it went in, counted back to the feed).
    public static func measure(kind: Stretcher.Kind, pitchConsistent: Bool, sampleRate: Int) -> StretchTiming {
        func at(_ speed: Double) -> (lag: Double, startOffset: Double) {
            lagAt(speed: speed, kind: kind, pitchConsistent: pitchConsistent, sampleRate: sampleRate)
        }
        let (s0, s1, s2, s3, s4) = steps
        let (m0, m1, m2, m3, m4) = (at(s0), at(s1), at(s2), at(s3), at(s4))
        return StretchTiming(lags: (m0.lag, m1.lag, m2.lag, m3.lag, m4.lag),
                             startOffsets: (m0.startOffset, m1.startOffset, m2.startOffset, m3.startOffset, m4.startOffset))
    }

    private static func lagAt(speed: Double, kind: Stretcher.Kind, pitchConsistent: Bool, sampleRate: Int) -> (lag: Double, startOffset: Double) {
        var stretcher = Stretcher(kind: kind, sampleRate: sampleRate, channelCount: 1, timeRatio: 1 / speed, pitchConsistent: pitchConsistent)
        let burstFrames = max(8, sampleRate / 500)  // 2 ms
        let spacing = sampleRate / 8 + 13  // off the hop grid, so the bursts sample its phases
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
            let from = max(0, expected - spacing / 3), to = min(signal.count, expected + spacing / 3)
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
