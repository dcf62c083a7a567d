import Foundation

/// Test mixes made the way records are made, with their parts known: every part rendered (or read)
/// alone, placed by constant-power panning (left gain cos θ, right sin θ, θ = (pan + 1)·π/4: a
/// centred part carries 0.707 in each channel), optionally sent to a decorrelated stereo reverb
/// (`StereoReverb`, RT60 1.2 s, wet 10 dB below the dry), and summed.
///
/// The accompaniment is either the synthetic `StudioSong` (six parts, panned by a `Layout`) or an
/// excerpt of a real stereo recording (game music from Debian's data packages: its own parts, some
/// centred, are unknown). The lead, in the middle, is a real recorded voice (two of Warzone 2100's
/// tutorial lines, from `base.wz`) or the song's trumpet tune; it is set to 0.8 × the
/// accompaniment's RMS over the whole mix. With reverb the lead's dry signal is the centred part
/// ("voice"), its reverb a part of its own ("voice reverb"): what `centre` is measured against is
/// the dry lead, what panning alone can find.
///
/// The material comes from a seeded generator (`StudioSources`: the seed draws the reverb's noise)
/// and is cached on disk, so the suite renders it once per machine.
public struct StudioMix: Sendable {
    public enum Layout: Sendable, Equatable {
        /// The six parts at −0.7, −0.4, −0.2, +0.2, +0.4, +0.7 (`StudioSong.parts`).
        case spread
        /// Every part at ±`pan`, on the side its spread pan has.
        case uniform(Double)

        public var label: String {
            switch self {
            case .spread: return "±0.2/0.4/0.7"
            case .uniform(let pan): return String(format: "±%.1f", pan)
            }
        }

        func pan(spreadPan: Double) -> Double {
            switch self {
            case .spread: return spreadPan
            case .uniform(let pan): return spreadPan < 0 ? -pan : pan
            }
        }
    }

    public enum Backing: Sendable, Equatable {
        case song(Layout)
        /// A real stereo recording: its short name and which one (`StudioSources.recordings`).
        case recording(String)
    }

    public enum Lead: String, Sendable {
        case voice, trumpet
    }

    public struct Recipe: Sendable {
        public var backing: Backing
        public var lead: Lead
        public var reverb: Bool

        public init(backing: Backing, lead: Lead, reverb: Bool) {
            self.backing = backing
            self.lead = lead
            self.reverb = reverb
        }

        public var name: String {
            switch backing {
            case .song: return "song + \(lead.rawValue)"
            case .recording(let name): return "\(name) + \(lead.rawValue)"
            }
        }

        public var panningLabel: String {
            switch backing {
            case .song(let layout): return layout.label
            case .recording: return "as recorded"
            }
        }
    }

    /// A chord of the accompaniment where it is known: its span and its name.
    public struct KnownChord: Sendable {
        public var startSeconds: Double
        public var endSeconds: Double
        public var name: String
    }

    /// A note of the lead where it is known (the trumpet): its span and MIDI key.
    public struct KnownNote: Sendable {
        public var startSeconds: Double
        public var endSeconds: Double
        public var key: Int
    }

    public var recipe: Recipe
    public var parts: PartMix
    /// The mix: every part summed.
    public var input: PlanarAudio
    /// The name of the lead's centred part.
    public var leadName: String { recipe.lead.rawValue }
    public var chords: [KnownChord]
    public var leadNotes: [KnownNote]

    /// Lead level: RMS over the whole mix, against the accompaniment's.
    public static let leadLevel = 0.8
    /// Reverb: wet energy (both channels) this many dB below the dry's.
    public static let wetBelowDryDB = 10.0
    public static let rt60Seconds = 1.2

    /// Constant-power gains (left, right) for `pan` in −1 … 1.
    public static func gains(pan: Double) -> (left: Float, right: Float) {
        let theta = (pan + 1) * Double.pi / 4
        return (Float(cos(theta)), Float(sin(theta)))
    }

    /// Builds the mix of `recipe` from `sources`.
    public init(_ recipe: Recipe, sources: StudioSources) throws {
        self.recipe = recipe
        let rate = sources.sampleRate
        var parts: [PartMix.Part] = []
        let frameCount: Int
        switch recipe.backing {
        case .song(let layout):
            frameCount = sources.songFrameCount
            for part in StudioSong.parts {
                let mono = try sources.songPart(part.name)
                let level = Float(StudioSong.partLevels[part.name] ?? 1) / Float(Self.rms(mono))
                var audio = Self.panned(mono, pan: layout.pan(spreadPan: part.spreadPan), gain: level, sampleRate: rate)
                if recipe.reverb { audio = try Self.wet(of: part.name, mono: mono, gain: level, sources: sources, adding: audio) }
                parts.append(PartMix.Part(name: part.name, isCentred: false, audio: audio))
            }
            chords = StudioSong.chords.enumerated().map { bar, chord in
                KnownChord(startSeconds: StudioSong.seconds(beat: Double(4 * bar)), endSeconds: StudioSong.seconds(beat: Double(4 * bar + 4)), name: chord.name)
            }
        case .recording(let name):
            let recording = try sources.recording(name)
            frameCount = recording.frameCount
            parts.append(PartMix.Part(name: name, isCentred: false, audio: recording))
            chords = []
        }
        let backing = parts.dropFirst().reduce(parts[0].audio) { Self.added($0, $1.audio) }
        let leadMono: [Float]
        switch recipe.lead {
        case .voice: leadMono = try sources.voice()
        case .trumpet: leadMono = try sources.songPart("trumpet")
        }
        let fitted = Array((leadMono + [Float](repeating: 0, count: max(0, frameCount - leadMono.count))).prefix(frameCount))
        // Constant-power centre: 0.707 a channel, so the lead's RMS over both channels is the mono's / √2.
        let backingRMS = (backing.channels.map { Self.rms($0) * Self.rms($0) }.reduce(0, +) / 2).squareRoot()
        let gain = Float(Self.leadLevel * backingRMS * 2.0.squareRoot() / Self.rms(fitted))
        parts.append(PartMix.Part(name: recipe.lead.rawValue, isCentred: true, audio: Self.panned(fitted, pan: 0, gain: gain, sampleRate: rate)))
        if recipe.reverb {
            let silence = PlanarAudio.silence(channelCount: 2, frameCount: frameCount, sampleRate: rate)
            parts.append(PartMix.Part(name: recipe.lead.rawValue + " reverb", isCentred: false,
                                      audio: try Self.wet(of: recipe.lead.rawValue, mono: leadMono, gain: gain, sources: sources, adding: silence)))
        }
        self.parts = PartMix(parts: parts, sampleRate: rate)
        input = parts.dropFirst().reduce(parts[0].audio) { Self.added($0, $1.audio) }
        leadNotes = recipe.lead == .trumpet ? StudioSong.melody.map {
            KnownNote(startSeconds: StudioSong.seconds(beat: $0.startBeat), endSeconds: StudioSong.seconds(beat: $0.startBeat + $0.lengthBeats), key: $0.key)
        } : []
    }

    static func panned(_ mono: [Float], pan: Double, gain: Float, sampleRate: Int) -> PlanarAudio {
        let (left, right) = gains(pan: pan)
        return PlanarAudio(channels: [scaled(mono, gain * left), scaled(mono, gain * right)], sampleRate: sampleRate)
    }

    /// `samples` × `gain` (a plain loop over the buffer: the debug build's closures are slow here).
    static func scaled(_ samples: [Float], _ gain: Float) -> [Float] {
        [Float](unsafeUninitializedCapacity: samples.count) { output, count in
            samples.withUnsafeBufferPointer { input in for i in 0..<input.count { output[i] = input[i] * gain } }
            count = samples.count
        }
    }

    /// `a` + `gain` × `b`, as long as `a` (`b` cut or padded with silence).
    static func added(_ a: PlanarAudio, _ b: PlanarAudio, gain: Float = 1) -> PlanarAudio {
        var sum = a
        for channel in 0..<sum.channelCount {
            let other = b.channels[channel]
            sum.channels[channel].withUnsafeMutableBufferPointer { output in
                other.withUnsafeBufferPointer { input in for i in 0..<min(output.count, input.count) { output[i] += gain * input[i] } }
            }
        }
        return sum
    }

    /// `dry` with the reverb of a part whose dry mono is `mono` at `gain` added: the send's wet
    /// (cached, unit send), cut to `dry`'s length and scaled so that its energy over both channels
    /// is `wetBelowDryDB` under the dry's.
    static func wet(of name: String, mono: [Float], gain: Float, sources: StudioSources, adding dry: PlanarAudio) throws -> PlanarAudio {
        let wet = try sources.wet(of: name, mono: mono)
        let dryEnergy = Double(gain * gain) * Double(mono.count) * rms(mono) * rms(mono)
        var wetEnergy = 0.0
        for channel in wet.channels { wetEnergy += Double(channel.count) * rms(channel) * rms(channel) }
        return added(dry, wet, gain: Float((dryEnergy / wetEnergy * pow(10, -wetBelowDryDB / 10)).squareRoot()))
    }

    static func rms(_ samples: [Float]) -> Double {
        var sum = 0.0
        samples.withUnsafeBufferPointer { for x in $0 { sum += Double(x) * Double(x) } }
        return max(1e-12, (sum / Double(max(1, samples.count))).squareRoot())
    }

    /// The recipes of the suite: the song with the voice in every layout dry, with the trumpet in
    /// the spread and ±0.2 layouts; with reverb, both leads in the spread layout and the voice at
    /// ±0.2; the three recordings with the voice.
    public static let suite: [Recipe] = {
        var recipes: [Recipe] = []
        for layout in [Layout.spread, .uniform(0.2), .uniform(0.4), .uniform(0.7)] {
            recipes.append(Recipe(backing: .song(layout), lead: .voice, reverb: false))
            if layout == .spread || layout == .uniform(0.2) { recipes.append(Recipe(backing: .song(layout), lead: .trumpet, reverb: false)) }
        }
        recipes.append(Recipe(backing: .song(.spread), lead: .voice, reverb: true))
        recipes.append(Recipe(backing: .song(.spread), lead: .trumpet, reverb: true))
        recipes.append(Recipe(backing: .song(.uniform(0.2)), lead: .voice, reverb: true))
        for name in StudioSources.recordings.map(\.name) { recipes.append(Recipe(backing: .recording(name), lead: .voice, reverb: false)) }
        return recipes
    }()
}
