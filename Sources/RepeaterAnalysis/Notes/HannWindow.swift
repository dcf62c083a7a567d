#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The periodic Hann window, written into `window` (its whole count); returns the sum of its
/// values, which the spectrum's amplitude scale needs.
@discardableResult
func fillHannWindow(_ window: UnsafeMutableBufferPointer<Float>) -> Float {
    let count = window.count
    var sum: Float = 0
    for n in 0..<count {
        let value = Float(0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(count)))
        window[n] = value
        sum += value
    }
    return sum
}

/// The scale that turns |X(k)|² of a window summing to `windowSum` into amplitude²: a sine of
/// amplitude A then peaks at A² (|X| = A·Σw/2 at its frequency).
func amplitudeSquaredScale(windowSum: Float) -> Float {
    let factor = 2 / max(windowSum, .leastNormalMagnitude)
    return factor * factor
}
