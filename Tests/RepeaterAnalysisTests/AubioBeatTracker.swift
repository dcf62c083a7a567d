import CAubio
import CRepeaterSupport

/// aubio's beat tracker (`aubio_tempo`, method "default", 1024-frame window, 512-frame hop: what
/// `aubio beat` runs), for the comparison with qm-dsp on the accuracy set.
final class AubioBeatTracker {
    private let tempo: OpaquePointer
    private let input: UnsafeMutablePointer<fvec_t>
    private let output: UnsafeMutablePointer<fvec_t>
    private let hop = 512
    private var fill = 0
    private(set) var beatFrames: [Int] = []

    init?(sampleRate: Int) {
        // aubio plans FFTW transforms under its own mutex; the isolator's and the note view's tests
        // plan under repeater's, so aubio takes that one too.
        repeater_fftw_planner_lock()
        defer { repeater_fftw_planner_unlock() }
        guard let tempo = new_aubio_tempo("default", 1024, UInt32(hop), UInt32(sampleRate)) else { return nil }
        self.tempo = tempo
        input = new_fvec(UInt32(hop))
        output = new_fvec(1)
    }

    deinit {
        repeater_fftw_planner_lock()
        defer { repeater_fftw_planner_unlock() }
        del_aubio_tempo(tempo)
        del_fvec(input)
        del_fvec(output)
    }

    /// Interleaved frames, mixed to mono by the mean of the channels.
    func process(_ interleaved: UnsafeBufferPointer<Float>, channelCount: Int) {
        for frame in 0..<(interleaved.count / channelCount) {
            var sum: Float = 0
            for channel in 0..<channelCount { sum += interleaved[frame * channelCount + channel] }
            input.pointee.data[fill] = sum / Float(channelCount)
            fill += 1
            if fill == hop {
                aubio_tempo_do(tempo, input, output)
                if output.pointee.data[0] != 0 { beatFrames.append(Int(aubio_tempo_get_last(tempo))) }
                fill = 0
            }
        }
    }

    /// aubio's own tempo estimate at the end, in BPM.
    var bpm: Double { Double(aubio_tempo_get_bpm(tempo)) }
}
