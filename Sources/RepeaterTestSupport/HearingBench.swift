import Foundation
import RepeaterEngine

/// What one processing setting costs, as a share of one core: CPU seconds per second of audio.
public struct HearingCost: Sendable {
    public var name: String
    /// Blocks processed back to back (the steady cost, caches warm).
    public var tightPercent: Double
    /// One block per period of real time, sleeping between, as a real-time player runs (caches
    /// cooled by the sleeps and by whatever else the machine does).
    public var pacedPercent: Double
    /// The mean and the longest time (wall clock) one paced block took, in microseconds.
    public var pacedMeanMicroseconds: Double
    public var pacedWorstMicroseconds: Double
}

/// `repeater-bench hearing`: the cost of the isolator's modes and of the equalizer, at 48 kHz in
/// 256-frame blocks. Figures only; no assertion.
public enum HearingBench {
    /// The settings measured.
    enum Setting {
        /// The input copied in and nothing done: what the measurement itself costs (paced, mostly
        /// the sleeps' system calls, which the thread's CPU clock counts too).
        case nothing
        case isolator(channels: Int, mode: IsolationMode, label: String)
        /// A switch every half second, around the modes.
        case switching
        case equalizer(gains: (Double, Double, Double), label: String, ramping: Bool)
    }

    static let settings: [Setting] = [
        .nothing,
        .isolator(channels: 2, mode: .off, label: "isolator off (stereo)"),
        .isolator(channels: 2, mode: .through, label: "isolator through"),
        .isolator(channels: 2, mode: .centre, label: "isolator centre"),
        .isolator(channels: 2, mode: .sides, label: "isolator sides"),
        .isolator(channels: 2, mode: .left, label: "isolator left"),
        .isolator(channels: 2, mode: .right, label: "isolator right"),
        .isolator(channels: 2, mode: .bass, label: "isolator bass"),
        .isolator(channels: 2, mode: .band(lowHz: 200, highHz: 2000), label: "isolator band 200–2000"),
        .switching,
        .isolator(channels: 1, mode: .bass, label: "isolator bass (mono)"),
        .equalizer(gains: (0, 0, 0), label: "equalizer flat", ramping: false),
        .equalizer(gains: (-6, 3, -3), label: "equalizer 3 bands", ramping: false),
        .equalizer(gains: (-6, 3, -3), label: "equalizer ramping", ramping: true),
    ]

    /// Measures every setting (or those whose label contains `only`): `seconds` of audio back to
    /// back, then `pacedSeconds` of real time paced (0: skip).
    public static func measure(seconds: Double, pacedSeconds: Double, only: String? = nil, sampleRate: Int = 48_000,
                               blockFrames: Int = 256) -> [HearingCost] {
        Isolator.warmUpRuntime()
        return settings.filter { only.map(label($0).contains) ?? true }.map { setting in
            let tight = run(setting, seconds: seconds, paced: false, sampleRate: sampleRate, blockFrames: blockFrames)
            let paced = pacedSeconds > 0 ? run(setting, seconds: pacedSeconds, paced: true, sampleRate: sampleRate, blockFrames: blockFrames) : nil
            return HearingCost(name: label(setting), tightPercent: tight.percent, pacedPercent: paced?.percent ?? .nan,
                               pacedMeanMicroseconds: paced?.meanMicroseconds ?? .nan, pacedWorstMicroseconds: paced?.worstMicroseconds ?? .nan)
        }
    }

    /// Milliseconds `Isolator.init` takes for stereo at `sampleRate` (FFTW's planning, with
    /// FFTW_MEASURE): the first in the process, and a second (FFTW's wisdom remembers the plans).
    public static func initMilliseconds(sampleRate: Int = 48_000) -> (first: Double, again: Double) {
        func time() -> Double {
            var start = timespec(), end = timespec()
            clock_gettime(CLOCK_MONOTONIC, &start)
            let isolator = Isolator(channelCount: 2, sampleRate: sampleRate)
            clock_gettime(CLOCK_MONOTONIC, &end)
            _ = isolator.latencyFrames
            return Double(end.tv_sec - start.tv_sec) * 1e3 + Double(end.tv_nsec - start.tv_nsec) / 1e6
        }
        return (time(), time())
    }

    /// The figures as a table.
    public static func table(_ costs: [HearingCost], sampleRate: Int = 48_000, blockFrames: Int = 256) -> String {
        let periodMicroseconds = 1e6 * Double(blockFrames) / Double(sampleRate)
        let title = "CPU, % of one core, \(sampleRate / 1000) kHz, \(blockFrames)-frame blocks (a period is "
            + String(format: "%.0f µs)", periodMicroseconds)
        var lines = [title,
                     "  tight: CPU time of blocks run back to back; paced: CPU time of a paced run (the sleeps' system calls",
                     "  included, see `nothing`); blocks: the paced blocks' own wall time over the period",
                     "setting                    tight    paced   blocks    paced block mean / worst"]
        for cost in costs {
            let blocks = 100 * cost.pacedMeanMicroseconds / periodMicroseconds
            lines.append(cost.name.padding(toLength: 25, withPad: " ", startingAt: 0)
                         + String(format: "%7.2f  %7.2f  %7.2f    %6.1f / %6.1f µs", cost.tightPercent, cost.pacedPercent, blocks,
                                  cost.pacedMeanMicroseconds, cost.pacedWorstMicroseconds))
        }
        return lines.joined(separator: "\n")
    }

    static func label(_ setting: Setting) -> String {
        switch setting {
        case .isolator(_, _, let label), .equalizer(_, let label, _): return label
        case .switching: return "isolator switching /0.5 s"
        case .nothing: return "nothing (the harness)"
        }
    }

    struct Run {
        var percent: Double
        var meanMicroseconds: Double
        var worstMicroseconds: Double
    }

    /// The input: a stereo mix-like signal (noise, a centred tone, a left-leaning tone), long enough
    /// not to sit in cache as a whole.
    static func makeInput(channels: Int, frameCount: Int, sampleRate: Int) -> UnsafeMutablePointer<Float> {
        let input = UnsafeMutablePointer<Float>.allocate(capacity: channels * frameCount)
        var state: UInt64 = 12345
        for i in 0..<frameCount {
            let t = Double(i) / Double(sampleRate)
            let centre = 0.3 * sin(2 * Double.pi * 220 * t), side = 0.2 * sin(2 * Double.pi * 330 * t)
            for channel in 0..<channels {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = 0.1 * (Double(state >> 40) / Double(1 << 23) - 1)
                input[channel * frameCount + i] = Float(centre + (channel == 0 ? side : 0.2 * side) + noise)
            }
        }
        return input
    }

    static func run(_ setting: Setting, seconds: Double, paced: Bool, sampleRate: Int, blockFrames: Int) -> Run {
        let channels: Int
        switch setting {
        case .isolator(let count, _, _): channels = count
        case .switching, .equalizer, .nothing: channels = 2
        }
        let inputFrames = 10 * sampleRate
        let input = makeInput(channels: channels, frameCount: inputFrames, sampleRate: sampleRate)
        let block = UnsafeMutablePointer<Float>.allocate(capacity: channels * blockFrames)
        let pointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channels)
        for channel in 0..<channels { (pointers + channel).initialize(to: block + channel * blockFrames) }
        defer {
            input.deallocate()
            block.deallocate()
            pointers.deallocate()
        }
        var isolator = Isolator(channelCount: channels, sampleRate: sampleRate)
        var equalizer = Equalizer(channelCount: channels, sampleRate: sampleRate)
        let switchModes: [IsolationMode] = [.centre, .bass, .sides, .through, .band(lowHz: 300, highHz: 3000), .left, .off, .centre]
        switch setting {
        case .isolator(_, let mode, _): isolator.setMode(mode, immediately: true)
        case .switching: isolator.setMode(.through, immediately: true)
        case .nothing: break
        case .equalizer(let gains, _, _): equalizer.setGains(lowDB: gains.0, midDB: gains.1, highDB: gains.2, immediately: true)
        }
        let blocks = Int(seconds * Double(sampleRate)) / blockFrames
        let period = blockFrames * 1_000_000_000 / sampleRate
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        var cpuStart = timespec(), cpuEnd = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpuStart)
        var wallTotal = 0.0, wallWorst = 0.0
        var position = 0
        for index in 0..<blocks {
            if paced {
                deadline.tv_nsec += period
                if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_nsec -= 1_000_000_000; deadline.tv_sec += 1 }
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil)
            }
            var start = timespec(), end = timespec()
            if paced { clock_gettime(CLOCK_MONOTONIC, &start) }
            if position + blockFrames > inputFrames { position = 0 }
            for channel in 0..<channels {
                let source = input + channel * inputFrames + position, destination = block + channel * blockFrames
                for i in 0..<blockFrames { destination[i] = source[i] }
            }
            position += blockFrames
            switch setting {
            case .nothing: break
            case .isolator:
                isolator.process(pointers, frameCount: blockFrames)
            case .switching:
                let every = sampleRate / 2 / blockFrames
                if index % every == 0 { isolator.setMode(switchModes[(index / every) % switchModes.count]) }
                isolator.process(pointers, frameCount: blockFrames)
            case .equalizer(let gains, _, let ramping):
                if ramping && index % 20 == 0 {  // a new setting every 107 ms: ramping a fifth of the time
                    let sign = (index / 20) % 2 == 0 ? 1.0 : -1.0
                    equalizer.setGains(lowDB: gains.0 * sign, midDB: gains.1 * sign, highDB: gains.2 * sign)
                }
                equalizer.process(pointers, frameCount: blockFrames)
            }
            if paced {
                clock_gettime(CLOCK_MONOTONIC, &end)
                let micros = Double(end.tv_sec - start.tv_sec) * 1e6 + Double(end.tv_nsec - start.tv_nsec) / 1e3
                wallTotal += micros
                wallWorst = max(wallWorst, micros)
            }
        }
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpuEnd)
        let cpu = Double(cpuEnd.tv_sec - cpuStart.tv_sec) + Double(cpuEnd.tv_nsec - cpuStart.tv_nsec) / 1e9
        let audio = Double(blocks * blockFrames) / Double(sampleRate)
        return Run(percent: 100 * cpu / audio, meanMicroseconds: paced ? wallTotal / Double(blocks) : .nan,
                   worstMicroseconds: paced ? wallWorst : .nan)
    }
}
