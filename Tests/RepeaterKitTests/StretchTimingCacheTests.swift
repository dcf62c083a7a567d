import Foundation
import RepeaterEngine
@testable import RepeaterKit
import RepeaterTestSupport
import Testing

@Suite("The stretcher timings kept between runs")
struct StretchTimingCacheTests {
    private func entry(stored: Double?) -> [String: [Double]] {
        var entry: [String: [Double]] = ["lags": Array(repeating: 1, count: StretchTiming.ratioCount),
                                         "start_offsets": Array(repeating: 0, count: StretchTiming.ratioCount)]
        if let stored { entry["stored"] = [stored] }
        return entry
    }

    @Test("a full file loses the other builds' entries stored longest ago (those from before the time was kept first); this build's entry reads back")
    func evictsOldestFirst() throws {
        let scratch = ScratchDirectory()
        let file = scratch.file("stretch-timing.json")
        // 34 other builds' entries: two without a time, 32 with times given out of their order.
        var table: [String: [String: [Double]]] = [:]
        for index in 0..<2 { table["old-\(index) finer plain 48000"] = entry(stored: nil) }
        for index in 0..<32 { table["b\(index) finer plain 48000"] = entry(stored: Double((index * 7) % 32) + 1000) }
        try JSONSerialization.data(withJSONObject: table).write(to: URL(fileURLWithPath: file))
        var timing = StretchTiming(lags: .init(repeating: 0))
        for index in 0..<StretchTiming.ratioCount { timing.lags[index] = Double(index) / 10; timing.startOffsets[index] = Double(index) }
        StretchTimingCache.store(timing, kind: .finer, pitchConsistent: false, sampleRate: 44_100, in: file, now: 5000)
        let kept = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: [String: [Double]]])
        #expect(kept.count == StretchTimingCache.maximumEntries)
        // 35 entries for 32 places: the two without a time and the one stored longest ago (1000) go.
        let gone = Set(table.keys).subtracting(kept.keys)
        let oldest = table.filter { $0.value["stored"] == [1000] }.map(\.key)
        #expect(oldest.count == 1)
        #expect(gone == Set((0..<2).map { "old-\($0) finer plain 48000" } + oldest))
        #expect(kept[StretchTimingCache.key(kind: .finer, pitchConsistent: false, sampleRate: 44_100)]?["stored"] == [5000])
        let read = try #require(StretchTimingCache.load(kind: .finer, pitchConsistent: false, sampleRate: 44_100, from: file))
        #expect(read == timing)
        #expect(StretchTimingCache.load(kind: .finer, pitchConsistent: true, sampleRate: 44_100, from: file) == nil)
    }
}
