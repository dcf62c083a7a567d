// Copies as plain element loops: the optimiser turns them into vector moves, and unlike the
// standard library's generic `update(from:count:)` they are visibly free of deallocation to the
// compiler's `@_noLocks` check (and visible, element by element, to the thread sanitizer).

/// Real-time thread. `count` samples from `source` to `destination`, front to back (so a copy to a
/// lower address within the same buffer is safe).
@inline(__always)
func copySamples(_ source: UnsafePointer<Float>, to destination: UnsafeMutablePointer<Float>, count: Int) {
    for i in 0..<count { destination[i] = source[i] }
}

/// Real-time thread. `count` zeros from `destination` on.
@inline(__always)
func zeroSamples(_ destination: UnsafeMutablePointer<Float>, count: Int) {
    for i in 0..<count { destination[i] = 0 }
}
