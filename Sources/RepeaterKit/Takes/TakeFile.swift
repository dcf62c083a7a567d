import CSndfile
import Foundation

/// Take files: FLAC, 24-bit. Samples are scaled by 2²³ and written as integers (libsndfile's own
/// float → integer conversion scales by 2²³ − 1, which would change every 16- and 24-bit value), so
/// that whatever a 16- or 24-bit file carried comes back bit for bit.
public enum TakeFile {
    /// Writes planar `channels` to `path` (through a temporary name, renamed when complete: a take
    /// file is whole or absent). Throws a one-line reason.
    public static func write(_ channels: [[Float]], sampleRate: Int, to path: String) throws(RepeaterError) {
        let frameCount = channels.first?.count ?? 0
        let partial = path + ".part"
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels.count)
        info.format = Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_24)
        guard let handle = sf_open(partial, Int32(SFM_WRITE), &info) else {
            throw RepeaterError(.failure, "cannot write '\(partial)': \(String(cString: sf_strerror(nil)))")
        }
        var normalize = Int32(SF_FALSE)
        sf_command(handle, Int32(SFC_SET_NORM_FLOAT), &normalize, 0)
        let block = 4096
        var interleaved = [Float](repeating: 0, count: block * channels.count)
        var done = 0
        var failure: String?
        while done < frameCount {
            let n = min(block, frameCount - done)
            for frame in 0..<n {
                for channel in 0..<channels.count {
                    interleaved[frame * channels.count + channel] = max(-8_388_608, min(8_388_607, (channels[channel][done + frame] * 8_388_608).rounded()))
                }
            }
            if sf_writef_float(handle, interleaved, sf_count_t(n)) != n {
                failure = String(cString: sf_strerror(handle))
                break
            }
            done += n
        }
        if sf_close(handle) != 0, failure == nil { failure = "the file could not be completed" }
        if let failure {
            unlink(partial)
            throw RepeaterError(.failure, "writing '\(path)' failed: \(failure)")
        }
        guard rename(partial, path) == 0 else {
            unlink(partial)
            throw RepeaterError(.failure, "cannot rename '\(partial)' to '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    /// Reads a take back (planar), for playing it.
    public static func read(_ path: String) throws(RepeaterError) -> (channels: [[Float]], sampleRate: Int) {
        let file = try AudioFile(path: path)
        let info = file.info
        var interleaved = [Float](repeating: 0, count: info.frameCount * info.channelCount)
        let got = interleaved.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frameCount: info.frameCount) }
        let channels = (0..<info.channelCount).map { channel in
            stride(from: channel, to: got * info.channelCount, by: info.channelCount).map { interleaved[$0] }
        }
        return (channels, info.sampleRate)
    }
}
