import Foundation
@testable import RepeaterEngine
import Testing

/// The splitter's polynomial exponential, logarithm, reciprocal square root and softplus, against
/// libm in double, over the ranges the masks feed them: each within the error its documentation
/// states (the masks' weights need a few digits; these bounds are what the studio-mix figures
/// were measured with).
@Suite("The splitter's fast functions: within their stated errors")
struct SplitterMathTests {
    /// `count` values from `low` to `high`, geometrically (both > 0) or linearly.
    static func grid(_ low: Double, _ high: Double, count: Int, geometric: Bool) -> [Float] {
        (0..<count).map { i in
            let t = Double(i) / Double(count - 1)
            return Float(geometric ? low * pow(high / low, t) : low + (high - low) * t)
        }
    }

    /// The worst error of `fast` against `exact` over `values`, eight lanes at a time; relative or
    /// absolute.
    static func worstError(_ values: [Float], relative: Bool, _ fast: (SIMD8<Float>) -> SIMD8<Float>,
                           _ exact: (Double) -> Double) -> Double {
        var worst = 0.0
        var i = 0
        while i < values.count {
            var lanes = SIMD8<Float>(repeating: values[i])
            for j in 0..<8 where i + j < values.count { lanes[j] = values[i + j] }
            let result = fast(lanes)
            for j in 0..<8 where i + j < values.count {
                let want = exact(Double(lanes[j]))
                let error = abs(Double(result[j]) - want) / (relative ? abs(want) : 1)
                worst = max(worst, error)
            }
            i += 8
        }
        return worst
    }

    @Test("e^x within 5·10⁻⁶ (relative) for x in [−87, 0]")
    func exponential() {
        let error = Self.worstError(Self.grid(-87, 0, count: 200_003, geometric: false), relative: true, fastExp, exp)
        print("fastExp: worst relative error \(error)")
        #expect(error < 5e-6)
    }

    @Test("log10 x within 10⁻⁵ (absolute) for x from 10⁻³⁰ to 10³⁰")
    func logarithm() {
        let error = Self.worstError(Self.grid(1e-30, 1e30, count: 200_003, geometric: true), relative: false, fastLog10, log10)
        print("fastLog10: worst absolute error \(error)")
        #expect(error < 1e-5)
    }

    @Test("1/√x within 5·10⁻⁶ (relative) for x from 10⁻³⁰ to 10³⁰")
    func reciprocalSquareRoot() {
        let error = Self.worstError(Self.grid(1e-30, 1e30, count: 200_003, geometric: true), relative: true,
                                    fastReciprocalSquareRoot) { 1 / $0.squareRoot() }
        print("fastReciprocalSquareRoot: worst relative error \(error)")
        #expect(error < 5e-6)
    }

    @Test("ln(1 + e^x) within 6·10⁻⁴ (absolute) for x in [−200, 200], and never negative")
    func softplus() {
        let values = Self.grid(-200, 200, count: 400_001, geometric: false)
        let error = Self.worstError(values, relative: false, fastSoftplus) { $0 > 30 ? $0 : log1p(exp($0)) }
        print("fastSoftplus: worst absolute error \(error)")
        #expect(error < 6e-4)
        #expect(Self.worstError(values, relative: false, { lanes in
            SIMD8<Float>().replacing(with: 1, where: fastSoftplus(lanes) .< 0)
        }, { _ in 0 }) == 0, "a softplus below zero")
    }
}
