import Foundation

/// Shared by the system bench's parts: the range of a cell over the rounds, padded columns, and the
/// CPU seconds the finished children have used.

/// "low–high" over the rounds (one value alone, or "—" for none), two decimals.
func rangeText(_ values: [Double]?) -> String {
    guard let values, let low = values.min(), let high = values.max() else { return "—" }
    return low == high || values.count == 1 ? String(format: "%.2f", low) : String(format: "%.2f–%.2f", low, high)
}

/// The median of `values` (not empty): the middle one, or the mean of the middle two.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// `text` padded with spaces to `width` characters.
func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }

/// User + system CPU seconds of the children waited for so far (getrusage).
func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
