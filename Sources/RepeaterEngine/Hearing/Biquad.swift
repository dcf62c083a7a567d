import Glibc

/// The coefficients of one second-order IIR section, normalised (a0 = 1):
/// y[n] = b0·x[n] + b1·x[n−1] + b2·x[n−2] − a1·y[n−1] − a2·y[n−2].
///
/// The designs are Robert Bristow-Johnson's "Cookbook formulae for audio EQ biquad filter
/// coefficients". In double precision: a 30 Hz section at 48 kHz has its poles within 0.4 % of
/// z = 1, where single-precision coefficients and state would add audible noise and drift.
public struct BiquadCoefficients: Sendable, Equatable {
    public var b0: Double
    public var b1: Double
    public var b2: Double
    public var a1: Double
    public var a2: Double

    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0
        self.b1 = b1
        self.b2 = b2
        self.a1 = a1
        self.a2 = a2
    }

    /// Passes everything unchanged.
    public static var identity: BiquadCoefficients { BiquadCoefficients(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0) }

    private init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.init(b0: b0 / a0, b1: b1 / a0, b2: b2 / a0, a1: a1 / a0, a2: a2 / a0)
    }

    /// Second-order low-pass, −3 dB at `frequency` when `q` is 1/√2 (Butterworth).
    public static func lowPass(frequency: Double, q: Double, sampleRate: Double) -> BiquadCoefficients {
        let w0 = 2 * Double.pi * frequency / sampleRate, cosine = libmCos(w0), alpha = libmSin(w0) / (2 * q)
        return BiquadCoefficients(b0: (1 - cosine) / 2, b1: 1 - cosine, b2: (1 - cosine) / 2,
                                  a0: 1 + alpha, a1: -2 * cosine, a2: 1 - alpha)
    }

    /// Second-order high-pass, −3 dB at `frequency` when `q` is 1/√2 (Butterworth).
    public static func highPass(frequency: Double, q: Double, sampleRate: Double) -> BiquadCoefficients {
        let w0 = 2 * Double.pi * frequency / sampleRate, cosine = libmCos(w0), alpha = libmSin(w0) / (2 * q)
        return BiquadCoefficients(b0: (1 + cosine) / 2, b1: -(1 + cosine), b2: (1 + cosine) / 2,
                                  a0: 1 + alpha, a1: -2 * cosine, a2: 1 - alpha)
    }

    /// Low shelf: `gainDB` below `frequency` (the half-gain point), 0 dB above; `slope` 1 is the
    /// steepest without a bump.
    public static func lowShelf(frequency: Double, gainDB: Double, slope: Double = 1, sampleRate: Double) -> BiquadCoefficients {
        let a = libmPow(10, gainDB / 40), w0 = 2 * Double.pi * frequency / sampleRate, cosine = libmCos(w0)
        let alpha = libmSin(w0) / 2 * libmSqrt((a + 1 / a) * (1 / slope - 1) + 2)
        let twoRootAAlpha = 2 * libmSqrt(a) * alpha
        return BiquadCoefficients(b0: a * ((a + 1) - (a - 1) * cosine + twoRootAAlpha),
                                  b1: 2 * a * ((a - 1) - (a + 1) * cosine),
                                  b2: a * ((a + 1) - (a - 1) * cosine - twoRootAAlpha),
                                  a0: (a + 1) + (a - 1) * cosine + twoRootAAlpha,
                                  a1: -2 * ((a - 1) + (a + 1) * cosine),
                                  a2: (a + 1) + (a - 1) * cosine - twoRootAAlpha)
    }

    /// High shelf: `gainDB` above `frequency` (the half-gain point), 0 dB below.
    public static func highShelf(frequency: Double, gainDB: Double, slope: Double = 1, sampleRate: Double) -> BiquadCoefficients {
        let a = libmPow(10, gainDB / 40), w0 = 2 * Double.pi * frequency / sampleRate, cosine = libmCos(w0)
        let alpha = libmSin(w0) / 2 * libmSqrt((a + 1 / a) * (1 / slope - 1) + 2)
        let twoRootAAlpha = 2 * libmSqrt(a) * alpha
        return BiquadCoefficients(b0: a * ((a + 1) + (a - 1) * cosine + twoRootAAlpha),
                                  b1: -2 * a * ((a - 1) + (a + 1) * cosine),
                                  b2: a * ((a + 1) + (a - 1) * cosine - twoRootAAlpha),
                                  a0: (a + 1) - (a - 1) * cosine + twoRootAAlpha,
                                  a1: 2 * ((a - 1) - (a + 1) * cosine),
                                  a2: (a + 1) - (a - 1) * cosine - twoRootAAlpha)
    }

    /// Peaking bell: `gainDB` at `frequency`, bandwidth set by `q`.
    public static func peaking(frequency: Double, gainDB: Double, q: Double, sampleRate: Double) -> BiquadCoefficients {
        let a = libmPow(10, gainDB / 40), w0 = 2 * Double.pi * frequency / sampleRate, cosine = libmCos(w0)
        let alpha = libmSin(w0) / (2 * q)
        return BiquadCoefficients(b0: 1 + alpha * a, b1: -2 * cosine, b2: 1 - alpha * a,
                                  a0: 1 + alpha / a, a1: -2 * cosine, a2: 1 - alpha / a)
    }

    /// The quality factors of the two sections of a 4th-order Butterworth filter: 1/(2·cos(π/8))
    /// and 1/(2·cos(3π/8)).
    public static var butterworth4Q: (Double, Double) { (0.541_196_100_146_197, 1.306_562_964_876_376_5) }

    /// The gain (linear) at `frequency`.
    public func magnitude(atFrequency frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        let (c1, s1, c2, s2) = (cos(w), sin(w), cos(2 * w), sin(2 * w))
        let nr = b0 + b1 * c1 + b2 * c2, ni = -(b1 * s1 + b2 * s2)
        let dr = 1 + a1 * c1 + a2 * c2, di = -(a1 * s1 + a2 * s2)
        return ((nr * nr + ni * ni) / (dr * dr + di * di)).squareRoot()
    }

    /// The coefficients a fraction `t` of the way from `self` to `other` (linear in each
    /// coefficient: between two stable sections, every step is stable too, because the set of
    /// stable (a1, a2) is a triangle, which is convex).
    @inline(__always)
    public func interpolated(to other: BiquadCoefficients, by t: Double) -> BiquadCoefficients {
        BiquadCoefficients(b0: b0 + (other.b0 - b0) * t, b1: b1 + (other.b1 - b1) * t, b2: b2 + (other.b2 - b2) * t,
                           a1: a1 + (other.a1 - a1) * t, a2: a2 + (other.a2 - a2) * t)
    }
}

// libm, which the compiler's performance check cannot see into: pure arithmetic, no allocation or
// lock, so safe on the audio thread (the EQ designs sections there during a ramp, a band mode when
// it starts).
@inline(__always) private func libmCos(_ x: Double) -> Double { _unsafePerformance { cos(x) } }
@inline(__always) private func libmSin(_ x: Double) -> Double { _unsafePerformance { sin(x) } }
@inline(__always) private func libmSqrt(_ x: Double) -> Double { _unsafePerformance { sqrt(x) } }
@inline(__always) func libmPow(_ x: Double, _ y: Double) -> Double { _unsafePerformance { pow(x, y) } }

/// The memory of one second-order section on one channel, direct form I: the last two inputs and
/// outputs. Direct form I keeps the signal itself as state, so coefficients may change between
/// samples without the state meaning something else afterwards (the EQ's ramps), and a section
/// whose input history equals its output history is exactly where an identity section would be
/// (the EQ engages a band from bypass that way).
public struct BiquadState: Sendable, Equatable {
    public var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    public init() {}

    /// Real-time thread. One sample through the section.
    @inline(__always)
    public mutating func process(_ x: Double, _ c: BiquadCoefficients) -> Double {
        let y = c.b0 * x + c.b1 * x1 + c.b2 * x2 - c.a1 * y1 - c.a2 * y2
        x2 = x1
        x1 = x
        y2 = y1
        y1 = y
        return y
    }

    /// Real-time thread. Zeroes values too small to matter: a section decaying in silence would
    /// otherwise reach subnormal numbers, which are slow on x86.
    @inline(__always)
    public mutating func flushTiny() {
        if abs(x1) < 1e-30 { x1 = 0 }
        if abs(x2) < 1e-30 { x2 = 0 }
        if abs(y1) < 1e-30 { y1 = 0 }
        if abs(y2) < 1e-30 { y2 = 0 }
    }

    public var isSubnormal: Bool { x1.isSubnormal || x2.isSubnormal || y1.isSubnormal || y2.isSubnormal }
}
