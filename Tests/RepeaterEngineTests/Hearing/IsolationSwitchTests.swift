import Foundation
import RepeaterEngine
import Testing

@Suite("Isolator: switching modes without clicks or holes")
struct IsolationSwitchTests {
    /// A centred 220 Hz tone at 0.5, through a schedule of switches every `every` frames.
    func switched(_ modes: [IsolationMode], every: Int, first: IsolationMode = .through,
                  blocks: [Int] = [256]) -> (output: [[Float]], switchFrames: [Int], switchLength: Int) {
        let total = every * (modes.count + 1)
        let input = [tone(220, frameCount: total), tone(220, frameCount: total)]
        var isolator = Isolator(channelCount: 2, sampleRate: 48_000)
        isolator.setMode(first, immediately: true)
        var switchFrames: [Int] = []
        var next = 0
        let output = drive(input, blocks: blocks, before: { frame in
            if next < modes.count && frame >= (next + 1) * every {
                isolator.setMode(modes[next])
                switchFrames.append(frame)
                next += 1
            }
        }) { isolator.process($0, frameCount: $1) }
        return (output, switchFrames, isolator.morphFrames)
    }

    @Test("switching among the modes that keep a centred tone makes no step beyond the tone's own and no dip below 50 %")
    func sameLatencySwitches() {
        let modes: [IsolationMode] = [.centre, .bass, .band(lowHz: 100, highHz: 1000), .left, .right, .centre,
                                      .band(lowHz: 150, highHz: 3000), .bass, .through]
        let every = 12_000
        let (output, switches, switchLength) = switched(modes, every: every)
        #expect(switches.count == modes.count)
        var previous = IsolationMode.through
        for (mode, frame) in zip(modes, switches) {
            let window = frame..<(frame + switchLength + 1024)
            print("\(previous) → \(mode): largest step \(largestStep(output[0], window)), lowest envelope \(lowestEnvelope(output[0], window, window: 219))")
            previous = mode
        }
        let toneStep = Float(2 * Double.pi * 220 / 48_000) * 0.5  // the tone's own largest step, 0.0144
        let checked = every..<output[0].count  // from the first switch on (the start is the tone's onset)
        for channel in 0..<2 {
            let step = largestStep(output[channel], checked)
            let envelope = lowestEnvelope(output[channel], checked, window: 48_000 / 220 + 1)
            print("channel \(channel): largest step \(step) (the tone's own \(toneStep)), lowest envelope \(envelope) of 0.5")
            #expect(step <= toneStep * 1.1)
            #expect(envelope >= 0.25)
        }
    }

    @Test("a switch into or out of off crosses a jump of the latency without a click")
    func offSwitches() {
        let every = 12_000
        let (output, switches, switchLength) = switched([.centre, .off, .bass, .off, .sides], every: every, first: .off)
        let toneStep = Float(2 * Double.pi * 220 / 48_000) * 0.5
        let checked = every..<output[0].count
        let step = largestStep(output[0], checked)
        print("off ↔ other modes: largest step \(step) (the tone's own \(toneStep)); lowest envelope in each crossfade:",
              switches.dropLast().map { frame in lowestEnvelope(output[0], frame..<(frame + switchLength + 512), window: 219) })
        #expect(step <= toneStep * 1.1)
        // sides removes the centred tone: after its fade, silence
        let end = output[0].count
        #expect(rms(output[0], (end - 4000)..<end) < 1e-4)
    }

    @Test("a switch asked for during a fade waits for it, and only the latest one waits")
    func requestsDuringAFade() {
        let total = 40_000
        let input = [noise(frameCount: total, seed: 8), noise(frameCount: total, seed: 9)]
        var isolator = Isolator(channelCount: 2, sampleRate: 48_000)
        isolator.setMode(.through, immediately: true)
        var modes: [IsolationMode] = []
        let output = drive(input, blocks: [64], before: { frame in
            switch frame {
            case 4096: isolator.setMode(.centre)
            case 4096 + 256: isolator.setMode(.bass)      // during the fade: waits…
            case 4096 + 512: isolator.setMode(.right)     // …replaced by this one
            default: break
            }
            modes.append(isolator.mode)
        }) { isolator.process($0, frameCount: $1) }
        #expect(modes.last == .right)
        // Two fades later the output is the right channel, delayed, exactly.
        let latency = isolator.latencyFrames, settled = 4096 + 2 * isolator.fadeFrames + 64
        var exact = true
        for i in settled..<total where output[0][i] != input[1][i - latency] || output[1][i] != input[1][i - latency] { exact = false }
        #expect(exact)
    }

    @Test("a switch takes 20 ms: the output is the new mode's from then on")
    func fadeLength() {
        let total = 30_000
        let input = [noise(frameCount: total, seed: 10), noise(frameCount: total, seed: 11)]
        var isolator = Isolator(channelCount: 2, sampleRate: 48_000)
        let fadeFrames = isolator.fadeFrames
        #expect(fadeFrames == 960)
        isolator.setMode(.through, immediately: true)
        let output = drive(input, blocks: [100], before: { frame in if frame == 10_000 { isolator.setMode(.left) } }) {
            isolator.process($0, frameCount: $1)
        }
        let latency = isolator.latencyFrames
        #expect(output[1][10_000 + 959] == input[0][10_000 + 959 - latency])  // the fade's last frame is all new
        #expect(output[1][10_000 + 400] != input[0][10_000 + 400 - latency])  // mid-fade: a mix
        #expect(output[1][9999] == input[1][9999 - latency])
    }
}
