import RepeaterTestSupport
import Testing

@Suite("Cost (prints only)")
struct HearingCostTests {
    @Test("prints the CPU table: isolator modes and equalizer, 48 kHz, 256-frame blocks, tight and paced")
    func printCosts() {
        #if DEBUG
        let build = "debug build: far slower than release; the figures to quote come from `hearing-bench` built with -c release"
        #else
        let build = "release build"
        #endif
        let setUp = HearingBench.initMilliseconds()
        print("Isolator.init (stereo): \(setUp.first) ms, again \(setUp.again) ms")
        let costs = HearingBench.measure(seconds: 2, pacedSeconds: 0.5)
        print("(\(build))\n" + HearingBench.table(costs))
    }
}
