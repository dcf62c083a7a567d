import Foundation
import RepeaterAnalysis
import RepeaterTestSupport

/// `repeater-bench analyze --corpus`: the map's CPU cost on the real-music corpus
/// (`Tests/Corpus/music/tracks.tsv`: Ogg Vorbis files as Debian installs them), track by track
/// beside `aubio tempo` on the same file in the same run, as process CPU seconds. Reading (Vorbis
/// decoding through libsndfile) is measured alone too, since the player pays it as well.
func runCorpusBench(limit: Int?) {
    do {
        let corpus = try MusicCorpus.load()
        let tracks = corpus.tracks.filter(\.isInstalled).prefix(limit ?? .max)
        guard !tracks.isEmpty else {
            FileHandle.standardError.write(Data("repeater-bench analyze --corpus: no track of the corpus is installed: run scripts/setup\n".utf8))
            exit(1)
        }
        print("track                                      | seconds | read only | read+analyse | aubio tempo")
        var totals = [Double](repeating: 0, count: 4)
        for track in tracks {
            let readOnly = try cpuSeconds { try readAll(track.path) }
            let whole = try cpuSeconds { _ = try analyse(track.path) }
            let aubio = childCPUSeconds("/usr/bin/aubio", ["tempo", track.path])
            for (index, value) in [track.seconds, readOnly, whole, aubio].enumerated() { totals[index] += value }
            print(String(format: "%-42@ | %7.1f | %7.3f s | %10.3f s | %9.3f s", track.name as NSString, track.seconds, readOnly, whole, aubio))
        }
        let per5 = 300 / totals[0]
        print(String(format: "all %d tracks, %.1f min: read only %.2f s, read+analyse %.2f s, aubio tempo %.2f s", tracks.count, totals[0] / 60,
                     totals[1], totals[2], totals[3]))
        print(String(format: "per 5 min of audio: read+analyse %.2f s (analysis alone %.2f s; goal ≤ 2 s), aubio tempo %.2f s",
                     totals[2] * per5, (totals[2] - totals[1]) * per5, totals[3] * per5))
    } catch {
        FileHandle.standardError.write(Data("repeater-bench analyze --corpus: \(error)\n".utf8))
        exit(1)
    }
}
