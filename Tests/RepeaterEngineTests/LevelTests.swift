import Foundation
import RepeaterEngine
import RTCheck
import Testing

/// Renders `seconds` of a signal through an engine and returns the levels of the last window, pre
/// and post. The first `settle` seconds (the gain ramp) are measured and thrown away.
private func measure(channels: Int, outputs: Int? = nil, seconds: Double = 1, settle: Double = 0.1,
                     volume: Double = 1, pan: Double = 0, signal: @escaping (Int, Int) -> Float)
    -> (pre: [ChannelLevel], post: [ChannelLevel], driver: CycleDriver)
{
    var configuration = Engine.Configuration(channelCount: channels, sourceFrameCount: 10_000_000, blockFrames: 1024, blockCount: 16)
    configuration.outputChannelCount = outputs ?? channels
    let engine = Engine(configuration)
    engine.setLevel(volume: volume, pan: pan)
    let feeder = RampFeeder(engine: engine, totalFrames: 10_000_000, value: signal)
    let driver = CycleDriver(engine: engine)
    let pre = LevelMeters(channelCount: engine.channelCount)
    let post = LevelMeters(channelCount: engine.outputChannelCount)
    driver.run(total: Int(settle * 48_000), pattern: [256], feeder: feeder)
    engine.meters.drain(pre: pre, post: post)
    pre.closeWindow(elapsed: settle)
    post.closeWindow(elapsed: settle)
    for _ in 0..<Int(seconds * 10) {  // the control thread drains at 10 Hz
        driver.run(total: 4800, pattern: [256], feeder: feeder)
        engine.meters.drain(pre: pre, post: post)
    }
    return (pre.closeWindow(elapsed: seconds), post.closeWindow(elapsed: seconds), driver)
}

private func sine(amplitude: Float, frequency: Double = 997) -> (Int, Int) -> Float {
    { frame, _ in amplitude * Float(sin(2 * Double.pi * frequency * Double(frame) / 48_000)) }
}

private func near(_ value: Double, _ expected: Double, _ tolerance: Double = 0.05) -> Bool {
    abs(value - expected) <= tolerance
}

@Suite("Meters, volume and pan")
struct LevelTests {
    @Test("a full-scale sine reads peak 0.0 dBFS and RMS −3.01 dBFS; at amplitude 0.5, −6.02 and −9.03")
    func sineLevels() {
        for (amplitude, peak, rms) in [(Float(1), 0.0, -3.01), (0.5, -6.02, -9.03)] {
            let levels = measure(channels: 2, signal: sine(amplitude: amplitude)).post
            for level in levels {
                #expect(near(level.peakDB, peak), "amplitude \(amplitude): peak \(level.peakDB)")
                #expect(near(level.rmsDB, rms), "amplitude \(amplitude): rms \(level.rmsDB)")
                #expect(level.clipped == 0)
            }
        }
    }

    @Test("silence reads −∞; a full-scale square reads 0 / 0 and does not count as clipped")
    func silenceAndSquare() {
        let silent = measure(channels: 1, signal: { _, _ in 0 }).post[0]
        #expect(silent.peakDB == -.infinity && silent.rmsDB == -.infinity)
        let square = measure(channels: 1, signal: { frame, _ in (frame / 24) % 2 == 0 ? 1 : -1 }).post[0]
        #expect(near(square.peakDB, 0, 0.001) && near(square.rmsDB, 0, 0.001), "\(square)")
        #expect(square.clipped == 0)
    }

    @Test("a single-sample click in a period is caught by the peak; samples beyond full scale are counted")
    func clickAndClipping() {
        let click = measure(channels: 1, signal: { frame, _ in frame == 30_000 ? -0.8 : 0 }).post[0]
        #expect(near(click.peakDB, 20 * log10(0.8), 0.001), "\(click)")
        #expect(near(click.rmsDB, 10 * log10(0.64 / 48_000), 0.001))
        let hot = measure(channels: 1, volume: 2, signal: sine(amplitude: 0.75)).post[0]  // peaks at 1.5
        #expect(near(hot.peakDB, 20 * log10(1.5)))
        #expect(hot.clipped > 1000, "clipped \(hot.clipped)")
    }

    @Test("post-fader: a volume of −6 dB lowers peak and RMS by 6.02 dB; pre-fader still shows the file")
    func volumePostAndPre() {
        let gain = pow(10, -6.0 / 20)
        let result = measure(channels: 2, volume: gain, signal: sine(amplitude: 0.5))
        for channel in 0..<2 {
            #expect(near(result.post[channel].peakDB, -12.04), "\(result.post[channel])")
            #expect(near(result.post[channel].rmsDB, -15.05), "\(result.post[channel])")
            #expect(near(result.pre[channel].peakDB, -6.02) && near(result.pre[channel].rmsDB, -9.03))
        }
    }

    @Test("stereo pan hard left silences the right port (post) while the pre-fader meters still show the file")
    func stereoBalance() {
        let result = measure(channels: 2, pan: -1, signal: sine(amplitude: 0.5))
        #expect(near(result.post[0].rmsDB, -9.03))
        #expect(result.post[1].peakDB == -.infinity)
        #expect(result.driver.output[1].suffix(48_000).allSatisfy { $0 == 0 })
        #expect(near(result.pre[1].rmsDB, -9.03))
        // Half right: the left is at half gain, the right untouched.
        let half = measure(channels: 2, pan: 0.5, signal: sine(amplitude: 0.5))
        #expect(near(half.post[0].rmsDB, -9.03 - 6.02) && near(half.post[1].rmsDB, -9.03))
    }

    @Test("mono to two ports: bit-exact on both at the centre; equal power (+3.01 dB on one side) when panned")
    func monoEqualPower() {
        let signal = sine(amplitude: 0.5)
        let centre = measure(channels: 1, outputs: 2, settle: 0, signal: signal)
        for port in 0..<2 {
            #expect(centre.driver.output[port].enumerated().allSatisfy { $0.element == signal($0.offset, 0) }, "port \(port)")
        }
        let left = measure(channels: 1, outputs: 2, pan: -1, signal: signal)
        #expect(near(left.post[0].rmsDB, -9.03 + 3.01) && left.post[1].rmsDB < -120, "\(left.post)")
        for pan in [-0.6, -0.2, 0.3, 0.9] {
            let levels = measure(channels: 1, outputs: 2, pan: pan, signal: signal).post
            let power = pow(10, levels[0].rmsDB / 10) + pow(10, levels[1].rmsDB / 10)
            #expect(near(10 * log10(power), -9.03 + 3.01), "pan \(pan): \(levels)")  // the sum is constant
        }
    }

    @Test("a volume change ramps over 10 ms in small steps (no zipper), then holds the exact gain")
    func gainRamp() {
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: 1_000_000, blockFrames: 1024, blockCount: 16))
        let feeder = RampFeeder(engine: engine, totalFrames: 1_000_000, value: { _, _ in 0.5 })
        let driver = CycleDriver(engine: engine)
        driver.run(total: 1000, pattern: [256], feeder: feeder)
        engine.setLevel(volume: 0.25, pan: 0)
        driver.run(total: 2000, pattern: [256], feeder: feeder)
        let after = Array(driver.output[0][999...])  // the change takes effect with the next cycle, at 1000
        let steps = zip(after, after.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 <= 0 && $0 >= -0.5 * 0.75 / 480 - 1e-6 }, "a step larger than the ramp's: \(steps.min()!)")
        #expect(after[481...].allSatisfy { $0 == 0.125 }, "the gain did not settle at 0.25 after 480 frames")
        #expect(after[0] == 0.5 && after[1] < 0.5 && after[470] > 0.125)
    }

    @Test("nothing is lost when the control thread stops reading: periods merge until the ring has room")
    func losslessWhenStalled() {
        let engine = Engine(.init(channelCount: 1, sourceFrameCount: 10_000_000, blockFrames: 1024, blockCount: 16))
        let feeder = RampFeeder(engine: engine, totalFrames: 10_000_000, value: { frame, _ in
            frame == 150 * 256 + 7 ? 0.9 : (frame < 100 * 256 ? 0.5 : 0.25)
        })
        let driver = CycleDriver(engine: engine)
        driver.run(total: 200 * 256, pattern: [256], feeder: feeder)  // 200 periods, a ring of 64
        let pre = LevelMeters(channelCount: 1), post = LevelMeters(channelCount: 1)
        engine.meters.drain(pre: pre, post: post)
        driver.run(total: 256, pattern: [256], feeder: feeder)  // the merged rest follows
        engine.meters.drain(pre: pre, post: post)
        let level = post.closeWindow(elapsed: 1)[0]
        let power = (100 * 0.25 + 101 * 0.0625 + (0.81 - 0.0625) / 256) / 201
        #expect(near(level.rmsDB, 10 * log10(power), 0.001), "\(level.rmsDB) vs \(10 * log10(power))")
        #expect(near(level.peakDB, 20 * log10(0.9), 0.001))
    }

    @Test("the peak hold stays for 1.5 s, then falls at 20 dB/s, never below the current peak")
    func peakHold() {
        let meters = LevelMeters(channelCount: 1)
        func window(peak: Double) -> ChannelLevel {
            var fields = [peak, peak * peak * 100, 0]
            fields.withUnsafeMutableBufferPointer { meters.addForTesting(frames: 100, fields: $0.baseAddress!) }
            return meters.closeWindow(elapsed: 0.1)[0]
        }
        #expect(near(window(peak: 1).holdDB, 0, 1e-9))
        for _ in 0..<14 { #expect(near(window(peak: 0.1).holdDB, 0, 1e-9)) }  // 1.4 s
        _ = window(peak: 0.1)  // 1.5 s
        #expect(near(window(peak: 0.1).holdDB, -2, 1e-9))  // 1.6 s: 0.1 s of falling
        for _ in 0..<20 { _ = window(peak: 0.1) }
        #expect(near(window(peak: 0.1).holdDB, -20, 1e-9))  // down to the current peak and no further
    }

    @Test("metering, volume and pan changes make no allocation and take no lock on the audio thread", .enabled(if: rtcheck_available() == 1, "the allocation counter is off in sanitizer builds"))
    func realTimeSafety() throws {
        var configuration = Engine.Configuration(channelCount: 1, sourceFrameCount: 10_000_000, blockFrames: 1024, blockCount: 16)
        configuration.outputChannelCount = 2
        let engine = Engine(configuration)
        let feeder = RampFeeder(engine: engine, totalFrames: 10_000_000)
        let driver = CycleDriver(engine: engine)
        Engine.warmUpRuntime()
        driver.run(total: 2048, pattern: [256], feeder: feeder)
        rtcheck_thread_reset()
        for step in 0..<200 {
            engine.setLevel(volume: Double(step % 7) / 3, pan: Double(step % 5) / 2 - 1)
            driver.run(total: 256 * (1 + step % 3), pattern: [64, 256, 100], feeder: feeder, countRealTime: true)
        }
        let counts = rtcheck_thread_counts()
        #expect(counts.allocs == 0 && counts.frees == 0 && counts.locks == 0, "\(counts)")
    }
}
