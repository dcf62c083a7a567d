import Foundation
import RepeaterEngine

/// The studio mixes of `StudioMix.suite`, each with what the isolator makes of it, made once per
/// test process (the isolation tests and the note view's tests read the same outputs).
public enum StudioMixSet {
    public struct Entry: Sendable {
        public var mix: StudioMix
        /// The mix through `centre` and through `sides`, aligned with the input.
        public var centre: PlanarAudio
        public var sides: PlanarAudio

        /// The whole mix.
        public var input: PlanarAudio { mix.input }

        /// Plain (L + R)/2, on both channels.
        public var plainCentre: PlanarAudio {
            let input = self.input
            let mid = zip(input.channels[0], input.channels[1]).map { ($0 + $1) / 2 }
            return PlanarAudio(channels: [mid, mid], sampleRate: input.sampleRate)
        }
    }

    public static let entries: Result<[Entry], Error> = Result {
        let sources = try StudioSources()
        return try StudioMix.suite.map { recipe in
            let mix = try StudioMix(recipe, sources: sources)
            return Entry(mix: mix, centre: mix.input.isolated(.centre)!, sides: mix.input.isolated(.sides)!)
        }
    }
}
