// repeater-bench: measurements that print figures, never assertions.
//
//   repeater-bench [engine] [--seconds 60]
//       the engine in this process (no JACK): stretcher cost through the bare library, the
//       `Stretcher` wrapper and `Engine.render`, at 256-frame periods; bypass against a bare copy.
//   repeater-bench system [--seconds 60] [--rounds 2] [--rate 0.75] [--file F] [--edits-seconds 10]
//                         [--parts stretch,rates,loop,isolate] [--rates-seconds 60] [--before DIR]
//                         [--loop-seconds 60] [--loop-minutes M] [--isolate-seconds 25]
//       whole programs on a private real-time jackd: librubberband alone, repeater, mpv (CPU,
//       stretching's own cost, ratios), the callback's mean/p99.9/worst, xruns, live edits; a file
//       at another rate at speed 1 (44.1 kHz on 48 kHz and back) against the same player with the
//       file at the server's rate and mpv (with DIR's repeater too: a build before a change); a
//       10 s loop at 0.75 replayed from the loop cache against live, speed 1 and mpv (and M minutes
//       of it: late periods and xruns); what `--isolate centre` and `sides` add to the render at
//       speed 1 over `off` (and against DIR's repeater in the same rounds).
//   repeater-bench memory [--minutes 5] [--every 1.5]
//       two players on a private jackd given the same rate/pitch change every 1.5 s (a stretcher
//       built and freed each time), one as shipped and one with glibc's allocator at its defaults:
//       their memory (RSS, own, JACK's shared segment) every 30 s and its growth after a minute.
//   repeater-bench bare FILE --rate R --engine finer|faster [--consistent]
//       librubberband alone over FILE (the system bench runs it as a child to measure its CPU).
//   repeater-bench analyze [--minutes 5] [--rate 44100] [--rounds 3] [--file F]
//   repeater-bench analyze --corpus [N]   (the real-music corpus, beside aubio tempo)
//       a recording's map (beats, bars, key) against aubio's beat tracker, CPU seconds (AnalyzeBench.swift).
//   repeater-bench hearing [--seconds 20] [--paced-seconds 5] [--only centre]
//       the isolator's and the equalizer's CPU cost per mode, tight and paced as a real-time player is.
//   repeater-bench phrases [--minutes 60] [--keep]
//       automatic phrases of an hour of espeak-ng speech: CPU seconds and accuracy (PhrasesBench.swift).
import Foundation
import RepeaterKit
import RepeaterTestSupport

var arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first.flatMap { ["engine", "system", "bare", "memory", "analyze", "phrases", "hearing"].contains($0) ? $0 : nil } ?? "engine"
if arguments.first == mode { arguments.removeFirst() }
do throws(RepeaterError) {
    switch mode {
    case "system": try runSystem(arguments: arguments)
    case "bare": try runBare(arguments: arguments)
    case "memory": try runMemory(arguments: arguments)
    case "analyze": runAnalyzeBench(arguments: arguments)
    case "hearing":
        var seconds = 20.0, paced = 5.0, only: String?
        var rest = arguments
        while rest.count >= 2 {
            let (name, value) = (rest.removeFirst(), rest.removeFirst())
            switch name {
            case "--seconds": seconds = Double(value) ?? 0
            case "--paced-seconds": paced = Double(value) ?? 0
            case "--only": only = value
            default: throw RepeaterError(.input, "repeater-bench hearing: unknown option \(name) (--seconds, --paced-seconds, --only)")
            }
        }
        let setUp = HearingBench.initMilliseconds()
        print(String(format: "Isolator.init (stereo, 48 kHz): %.1f ms the first time, %.1f ms again", setUp.first, setUp.again))
        print(HearingBench.table(HearingBench.measure(seconds: seconds, pacedSeconds: paced, only: only)))
    case "phrases":
        do { try runPhrasesBench(arguments: arguments) } catch { throw RepeaterError(.failure, "\(error)") }
    default:
        var seconds = 60.0
        if let index = arguments.firstIndex(of: "--seconds"), index + 1 < arguments.count, let value = Double(arguments[index + 1]) {
            seconds = value
        }
        frames = Int(seconds * 48_000)
        runEngineBench(seconds: seconds)
    }
} catch {
    Console.error(error.message)
    exit(error.exitCode)
}
