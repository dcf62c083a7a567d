import Foundation
import RepeaterKit
import RepeaterTestSupport

// The real-speech half of `repeater-bench phrases`: an hour (--minutes) of the recorded voices of
// Tests/Corpus/speech (every voice set, pauses 0.35–1.5 s, room tone at −50 dBFS), made by the
// tests' own generator, and the same hour as a podcast (a music bed 25 dB under the speech, from
// hedgewars-data). Each is found by `RecordingLines.phrases(path:)` (what `repeater phrases` and
// `play --phrases auto` run), from a 44.1 kHz mono WAV (the rate most spoken-word files have) and
// a 48 kHz stereo FLAC (converted by sox); CPU = getrusage user + system from opening the file to
// the phrases, with the sentences' tally against the known voiced spans.

func runRealSpeechPhrasesBench(minutes: Double, directory: String, keep: Bool, processCPUSeconds: () -> Double) throws {
    let sentenceCount = Int(minutes * 60 / 3.9)  // a sentence and its pause last 3.9 s on average
    let bed = "hedgewars-data:/usr/share/games/hedgewars/Data/Music/Nature.ogg"
    let plans = [
        RealSpeechPlan(name: "real-speech", kind: .speech, voiceSets: [], sentenceCount: sentenceCount, seed: 60, pauseSeconds: 0.35...1.5,
                       noise: .room, noiseDBFS: -50, line: "bench real-speech \(sentenceCount)"),
        RealSpeechPlan(name: "real-podcast", kind: .podcast, voiceSets: [], sentenceCount: sentenceCount, seed: 61, pauseSeconds: 0.35...1.5,
                       noise: .room, noiseDBFS: -60, musicPackage: "hedgewars-data", musicPath: String(bed.split(separator: ":")[1]),
                       bedDB: -25, line: "bench real-podcast \(sentenceCount) \(bed)"),
    ]
    print("\nreal speech: making \(Int(minutes)) min of recorded voices, plain and with a music bed…")
    var files: [(path: String, recording: RealSpeechRecording, scale: Double)] = []
    for plan in plans {
        let recording = try RealSpeechSet.recording(plan, sampleRate: 44_100, directory: directory)
        files.append((recording.path, recording, 1))
        if plan.kind == .speech {
            let at48 = try RealSpeechSet.recording(plan, sampleRate: 48_000, directory: directory)
            let flac = directory + "/\(plan.name)-48000-stereo.flac"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
            process.arguments = [at48.path, "-c", "2", flac]
            try process.run()
            process.waitUntilExit()
            files.append((flac, at48, 1))
        }
    }
    print("file                                CPU s  × real time  s an hour  sentences  phrases  whole and alone  merged  split  cut")
    for file in files {
        _ = try RecordingLines.phrases(path: file.path)  // once, so the file is in the page cache for the measured pass
        let start = processCPUSeconds()
        let lines = try RecordingLines.phrases(path: file.path)
        let cpu = processCPUSeconds() - start
        let tally = SentenceTally(phrases: lines.lines.map { $0.startFrame..<$0.endFrame },
                                  voicedSpans: file.recording.sentences.map { $0.voicedStartFrame..<$0.voicedEndFrame })
        let hours = file.recording.durationSeconds / 3600
        print(((file.path as NSString).lastPathComponent).padding(toLength: 34, withPad: " ", startingAt: 0)
              + String(format: "%7.2f  %11.0f  %9.2f  %9d  %7d  %7d (%5.1f %%)  %6d  %5d  %3d", cpu, file.recording.durationSeconds / cpu, cpu / hours,
                       tally.sentenceCount, tally.phraseCount, tally.wholeAndAloneCount, tally.wholeAndAlonePercent, tally.mergedCount,
                       tally.splitCount, tally.cutCount))
    }
    if !keep {
        for file in files { try? FileManager.default.removeItem(atPath: file.path) }
        for plan in plans {
            for rate in [44_100, 48_000] {
                try? FileManager.default.removeItem(atPath: directory + "/\(plan.name)-\(rate).wav")
                try? FileManager.default.removeItem(atPath: directory + "/\(plan.name)-\(rate).tsv")
            }
        }
    }
}
