import Foundation
import RepeaterEngine
import RTCheck
import Testing

@Suite("Real-time safety", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
struct HearingRealTimeTests {
    static let everyMode: [IsolationMode] = [.centre, .sides, .centre, .bass, .band(lowHz: 200, highHz: 2000), .left, .right,
                                             .through, .off, .sides, .band(lowHz: 0, highHz: 300), .off, .bass, .centre]

    @Test("after the runtime warm-up, setMode and process allocate nothing and take no lock, through every switch", arguments: [2, 1, 3])
    func isolatorIsAllocationFree(channels: Int) {
        if ProcessInfo.processInfo.environment["HEARING_NO_WARM_UP"] == nil { Isolator.warmUpRuntime() }
        var isolator = Isolator(channelCount: channels, sampleRate: 48_000)
        let modes = HearingRealTimeTests.everyMode.filter { isolator.supports($0) }
        let input = (0..<channels).map { noise(frameCount: 96_000, seed: UInt64(30 + $0)) }
        rtcheck_thread_reset()
        var index = 0
        _ = drive(input, blocks: [256, 1, 700, 64, 4096], countRealTime: true, before: { frame in
            // A switch every ~20 ms, often during the one before (pending), now and then at once.
            if frame / 1000 > index {
                index = frame / 1000
                isolator.setMode(modes[index % modes.count], immediately: index % 7 == 3)
            }
        }) { isolator.process($0, frameCount: $1) }
        let counts = rtcheck_thread_counts()
        print("isolator, \(channels) channels, \(index) switches: allocations \(counts.allocs), frees \(counts.frees), locks \(counts.locks)")
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0)
    }

    @Test("setGains and process allocate nothing and take no lock, through ramps and bypass")
    func equalizerIsAllocationFree() {
        var equalizer = Equalizer(channelCount: 2, sampleRate: 48_000)
        let input = [noise(frameCount: 48_000, seed: 40), noise(frameCount: 48_000, seed: 41)]
        let gains: [(Double, Double, Double)] = [(0, 0, 0), (-24, 0, 0), (3, 12, -12), (0, 0, 0), (-40, -40, 12), (0, 0, 0)]
        rtcheck_thread_reset()
        var index = 0
        _ = drive(input, blocks: [256, 3, 1024], countRealTime: true, before: { frame in
            if frame / 4000 > index {
                index = frame / 4000
                let g = gains[index % gains.count]
                equalizer.setGains(lowDB: g.0, midDB: g.1, highDB: g.2, immediately: index % 5 == 4)
            }
        }) { equalizer.process($0, frameCount: $1) }
        let counts = rtcheck_thread_counts()
        print("equalizer: allocations \(counts.allocs), frees \(counts.frees), locks \(counts.locks)")
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0)
    }
}
