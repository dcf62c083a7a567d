import RepeaterEngine
import RTCheck
import Testing

/// Strike lists written out by hand from the rules (kind, onset in tenths of a second).
private let expected: [String: [(ChimeSchedule.Kind, Int)]] = [
    "0:00": (0..<12).map { (.low, $0 * 5) },
    "12:00": (0..<12).map { (.low, $0 * 5) },
    "1:01": [(.low, 0), (.high, 12)],
    "3:47": [(.low, 0), (.low, 5), (.low, 10), (.high, 22), (.low, 26), (.high, 31), (.low, 35), (.high, 40), (.low, 44),
             (.high, 56), (.high, 61)],
    "11:59": (0..<11).map { (.low, $0 * 5) }
        + [(.high, 62), (.low, 66), (.high, 71), (.low, 75), (.high, 80), (.low, 84)]
        + (0..<14).map { (.high, 96 + $0 * 5) },
    "12:14": (0..<12).map { (.low, $0 * 5) } + (0..<14).map { (.high, 67 + $0 * 5) },
]

@Suite("Minute repeater")
struct ChimeTests {
    @Test("the strike list is exact in kind and sample offset", arguments: ["0:00", "12:00", "1:01", "3:47", "11:59", "12:14"], [48_000, 44_100])
    func schedule(time: String, rate: Int) throws {
        let parts = time.split(separator: ":").map { Int($0)! }
        let schedule = ChimeSchedule(hour: parts[0], minute: parts[1], sampleRate: rate)
        let want = try #require(expected[time])
        #expect(schedule.strikes.map(\.kind) == want.map(\.0))
        #expect(schedule.strikes.map(\.frame) == want.map { $0.1 * rate / 10 })
    }

    @Test("--chime-tempo scales every interval")
    func tempo() {
        let schedule = ChimeSchedule(hour: 3, minute: 47, sampleRate: 48_000, tempo: 1.5)
        #expect(schedule.strikes.map(\.frame) == [0, 5, 10, 22, 26, 31, 35, 40, 44, 56, 61].map { $0 * 7200 })
    }

    @Test("strikes are mixed at their exact offsets; a second trigger is refused, never queued")
    func mixAndRefuse() {
        let low = [Float](repeating: 0.25, count: 1000), high = [Float](repeating: 0.5, count: 1000)
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 0, blockFrames: 16, blockCount: 2, headFrames: 1,
                                  sampleRate: 1000), gongs: GongBank(low: low, high: high))
        let driver = CycleDriver(engine: engine)
        engine.send(.chime(hour: 1, minute: 1))  // low at 0, high at 1.2 s = frame 1200
        driver.cycle(7, feeder: nil)
        for _ in 0..<9 { engine.send(.chime(hour: 12, minute: 0)) }
        driver.run(total: 3000, pattern: [37, 256], feeder: nil)
        let left = driver.output[0]
        #expect(left[0..<1000].allSatisfy { $0 == 0.25 })
        #expect(left[1000..<1200].allSatisfy { $0 == 0 })
        #expect(left[1200..<2200].allSatisfy { $0 == 0.5 })
        #expect(left[2200...].allSatisfy { $0 == 0 })
        #expect(driver.output[1] == left)
        let events = driver.events()
        #expect(events.filter { $0 == .chimeBusy }.count == 9)
        #expect(events.contains(.chimeStarted(hour: 1, minute: 1, strikes: 2)))
        #expect(events.filter { $0 == .chimeEnded }.count == 1)
    }

    @Test("chimes over music make no allocation and take no lock", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
    func realTimeSafety() throws {
        Engine.warmUpRuntime()
        let engine = Engine(.init(channelCount: 2, sourceFrameCount: 400_000, blockFrames: 1024, blockCount: 16, headFrames: 5000,
                                  loop: (a: 1000, b: 9000)),
                            gongs: GongBank(low: [Float](repeating: 0.1, count: 20_000), high: [Float](repeating: 0.2, count: 20_000)))
        let feeder = RampFeeder(engine: engine, totalFrames: 400_000)
        let driver = CycleDriver(engine: engine)
        driver.run(total: 4096, pattern: [256], feeder: feeder)
        rtcheck_thread_reset()
        for (hour, minute) in [(11, 59), (3, 47), (0, 0)] {
            engine.send(.chime(hour: hour, minute: minute))
            engine.send(.chime(hour: hour, minute: minute))
            driver.run(total: 20 * 48_000, pattern: [1, 37, 256, 4096], feeder: feeder, countRealTime: true)
        }
        let counts = rtcheck_thread_counts()
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0)
        #expect(driver.events().filter { $0 == .chimeEnded }.count == 3)
    }
}
