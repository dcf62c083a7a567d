import Foundation

// The accuracy set for beat, bar, tempo, meter and key analysis: short pieces written as MIDI
// (drums, bass, chords, a melody) and rendered by FluidSynth, so that their true beats, downbeats,
// tempo, meter and key are known exactly from the score.

/// One piece of the set and what is true about it.
public struct AccuracyPiece: Sendable {
    public var name: String
    public var song: SynthSong
    public var sampleRate: Int
    public var beatsPerBar: Int
    /// Beats before the first bar line (an anacrusis).
    public var pickupBeats: Int
    /// The key: tonic pitch class (0 = C) and mode.
    public var tonic: Int
    public var isMinor: Bool
    /// Beats 0 ..< beatCount are played (the last is the final chord's downbeat).
    public var beatCount: Int

    /// The true beats, in seconds from the start of the rendering.
    public var beatSeconds: [Double] { (0..<beatCount).map { song.seconds(atBeat: Double($0)) } }

    /// The true downbeats (first beats of bars; the pickup's beats are not).
    public var downbeatSeconds: [Double] {
        stride(from: pickupBeats, to: beatCount, by: beatsPerBar).map { song.seconds(atBeat: Double($0)) }
    }

    /// The tempo that lasts longest, in BPM.
    public var mainBPM: Double {
        let last = Double(beatCount - 1)
        var best = (seconds: -1.0, bpm: 0.0)
        for (index, change) in song.tempo.enumerated() {
            let end = index + 1 < song.tempo.count ? min(song.tempo[index + 1].beat, last) : last
            let seconds = song.seconds(atBeat: end) - song.seconds(atBeat: change.beat)
            if seconds > best.seconds { best = (seconds, change.bpm) }
        }
        return best.bpm
    }

    /// The tempo map: (start in seconds, BPM).
    public var tempoSegments: [(startSeconds: Double, bpm: Double)] {
        song.tempo.map { (song.seconds(atBeat: $0.beat), $0.bpm) }
    }

    public var keyName: String { AccuracyPiece.keyName(tonic: tonic, isMinor: isMinor) }

    /// "A minor", "Eb major" (the spelling of the key signature).
    public static func keyName(tonic: Int, isMinor: Bool) -> String {
        let sharps = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
        let flats = ["C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B"]
        let relativeMajor = isMinor ? (tonic + 3) % 12 : tonic
        let flatMajors: Set = isMinor ? [5, 10, 3, 8, 1, 6] : [5, 10, 3, 8, 1]
        return (flatMajors.contains(relativeMajor) ? flats : sharps)[tonic] + (isMinor ? " minor" : " major")
    }
}

/// How the drums play.
public enum DrumStyle: Sendable {
    /// Kick on 1 and 3, snare on 2 and 4, closed hi-hat in eighths (4/4).
    case backbeatEighths
    /// Kick on 1 and 3, snare on 2 and 4, ride on the beats (fast 4/4).
    case backbeatQuarters
    /// Kick on 1, hi-hat and a light snare on 2 and 3 (3/4).
    case waltz
}

/// A progression step: the chord's root above the tonic in semitones, and its intervals above
/// its root.
public struct ChordStep: Sendable {
    public var root: Int
    public var intervals: [Int]

    public static let I = ChordStep(root: 0, intervals: [0, 4, 7])
    public static let ii = ChordStep(root: 2, intervals: [0, 3, 7])
    public static let IV = ChordStep(root: 5, intervals: [0, 4, 7])
    public static let V = ChordStep(root: 7, intervals: [0, 4, 7])
    public static let V7 = ChordStep(root: 7, intervals: [0, 4, 7, 10])
    public static let vi = ChordStep(root: 9, intervals: [0, 3, 7])
    public static let i = ChordStep(root: 0, intervals: [0, 3, 7])
    public static let iv = ChordStep(root: 5, intervals: [0, 3, 7])
    public static let VI = ChordStep(root: 8, intervals: [0, 4, 7])
}

/// Writes one piece: bars of a repeated chord progression over a bass on the roots, drums, and a
/// melody of chord tones, ending on the tonic chord on the downbeat after the last bar.
public struct PieceWriter: Sendable {
    public var name: String
    public var tempo: [(beat: Double, bpm: Double)]
    public var beatsPerBar = 4
    public var pickupBeats = 0
    public var tonic: Int
    public var isMinor: Bool
    public var progression: [ChordStep]
    public var bars: Int
    public var drums: DrumStyle
    /// Bars of quiet sustained pads alone before the band comes in.
    public var introBars = 0
    public var chordProgram = GM.piano
    public var melodyProgram = GM.flute
    public var sampleRate = 48_000

    public init(name: String, bpm: Double, beatsPerBar: Int = 4, tonic: Int, isMinor: Bool, progression: [ChordStep],
                bars: Int, drums: DrumStyle) {
        self.name = name
        self.tempo = [(0, bpm)]
        self.beatsPerBar = beatsPerBar
        self.tonic = tonic
        self.isMinor = isMinor
        self.progression = progression
        self.bars = bars
        self.drums = drums
    }

    // Channels: 0 chords, 1 bass, 2 melody, 3 pads, 9 drums.
    public func piece() -> AccuracyPiece {
        var song = SynthSong()
        song.tempo = tempo
        song.beatsPerBar = beatsPerBar
        song.programs = [0: chordProgram, 1: GM.fingerBass, 2: melodyProgram, 3: GM.strings]
        song.pans = [0: -0.3, 2: 0.3, 3: 0.1]
        song.volumes = [0: 90, 1: 110, 2: 90, 3: 70, 9: 110]
        song.tailBeats = 3
        let chordBase = 60 + tonic > 66 ? 48 + tonic : 60 + tonic
        let bassBase = 36 + tonic > 43 ? 24 + tonic : 36 + tonic
        let melodyBase = 72 + tonic > 77 ? 60 + tonic : 72 + tonic
        let scale = isMinor ? [0, 2, 3, 5, 7, 8, 10, 12] : [0, 2, 4, 5, 7, 9, 11, 12]
        func add(_ channel: Int, _ key: Int, _ velocity: Int, _ beat: Double, _ length: Double) {
            song.notes.append(SynthNote(channel: channel, key: key, velocity: velocity, startBeat: beat, lengthBeats: length))
        }
        let bpb = Double(beatsPerBar)
        // The pickup: a rising melody to the tonic and a snare lead-in.
        for index in 0..<pickupBeats {
            let beat = Double(index)
            add(2, melodyBase - 12 + scale[7 - pickupBeats + index], 85, beat, 0.9)
            add(9, GM.snare, 70, beat, 0.2)
        }
        for bar in 0..<bars {
            let start = Double(pickupBeats) + Double(bar) * bpb
            let chord = progression[bar % progression.count]
            let band = bar >= introBars
            // Pads: the whole bar, quiet; alone in the intro.
            for interval in chord.intervals {
                add(3, chordBase + chord.root + interval - 12, band ? 45 : 60, start, bpb)
            }
            guard band else { continue }
            // Bass on the root (and the fifth on beat 3 in 4/4).
            let bassRoot = bassBase + chord.root
            if beatsPerBar == 3 {
                add(1, bassRoot, 105, start, 0.95)
                add(1, bassRoot + 7, 80, start + 2, 0.9)
            } else {
                add(1, bassRoot, 105, start, 1.5)
                add(1, bassRoot + 7, 90, start + 2, 1)
                add(1, bassRoot, 80, start + 3, 0.9)
            }
            // Chords: on 2 and 3 in 3/4 (oom-pah-pah), on every beat in 4/4.
            for index in 0..<beatsPerBar where beatsPerBar == 4 || index > 0 {
                for interval in chord.intervals {
                    add(0, chordBase + chord.root + interval, index == 0 ? 82 : 68, start + Double(index), 0.8)
                }
            }
            // Melody: chord tones, one per beat, the bar's root first.
            let tones = chord.intervals.map { chord.root + $0 }
            for index in 0..<beatsPerBar {
                let tone = tones[(bar + index * 2) % tones.count]
                add(2, melodyBase + tone - (tone > 7 ? 12 : 0), index == 0 ? 92 : 78, start + Double(index), 0.9)
            }
            addDrums(&song, barStart: start, phraseStart: (bar - introBars) % 4 == 0)
        }
        // The final tonic chord on the next downbeat.
        let end = Double(pickupBeats) + Double(bars) * bpb
        for interval in [0, isMinor ? 3 : 4, 7] { add(0, chordBase + interval, 90, end, 2.5) }
        add(3, chordBase - 12, 60, end, 2.5)
        add(1, bassBase, 110, end, 2.5)
        add(2, melodyBase, 92, end, 2.5)
        add(9, GM.kick, 120, end, 0.3)
        add(9, GM.crash, 100, end, 2)
        return AccuracyPiece(name: name, song: song, sampleRate: sampleRate, beatsPerBar: beatsPerBar, pickupBeats: pickupBeats,
                             tonic: tonic, isMinor: isMinor, beatCount: pickupBeats + bars * beatsPerBar + 1)
    }

    private func addDrums(_ song: inout SynthSong, barStart start: Double, phraseStart: Bool) {
        func hit(_ key: Int, _ velocity: Int, _ beat: Double) {
            song.notes.append(SynthNote(channel: 9, key: key, velocity: velocity, startBeat: start + beat, lengthBeats: 0.2))
        }
        if phraseStart { hit(GM.crash, 90, 0) }
        switch drums {
        case .backbeatEighths:
            hit(GM.kick, 115, 0); hit(GM.kick, 100, 2)
            hit(GM.snare, 105, 1); hit(GM.snare, 105, 3)
            for eighth in 0..<8 { hit(GM.closedHat, eighth % 2 == 0 ? 80 : 55, Double(eighth) / 2) }
        case .backbeatQuarters:
            hit(GM.kick, 115, 0); hit(GM.kick, 100, 2)
            hit(GM.snare, 105, 1); hit(GM.snare, 105, 3)
            for beat in 0..<4 { hit(GM.rideCymbal, 70, Double(beat)) }
        case .waltz:
            hit(GM.kick, 115, 0)
            hit(GM.closedHat, 75, 1); hit(GM.closedHat, 75, 2)
            hit(GM.snare, 50, 1); hit(GM.snare, 50, 2)
        }
    }
}

public enum AccuracySet {
    /// Twelve pieces: 4/4 and 3/4, 60–180 BPM, one tempo change, one soft intro, two pickups,
    /// six major and six minor keys, 44.1 and 48 kHz, 30–60 s each.
    public static let pieces: [AccuracyPiece] = {
        var list: [PieceWriter] = []
        var piece = PieceWriter(name: "pop C 4/4 120", bpm: 120, tonic: 0, isMinor: false, progression: [.I, .IV, .V, .I],
                                bars: 22, drums: .backbeatEighths)
        list.append(piece)
        piece = PieceWriter(name: "ballad Am 4/4 72", bpm: 72, tonic: 9, isMinor: true, progression: [.i, .iv, .V, .i],
                            bars: 13, drums: .backbeatEighths)
        piece.chordProgram = GM.electricPiano
        piece.sampleRate = 44_100
        list.append(piece)
        piece = PieceWriter(name: "waltz F 3/4 96", bpm: 96, beatsPerBar: 3, tonic: 5, isMinor: false,
                            progression: [.I, .IV, .V7, .I], bars: 24, drums: .waltz)
        list.append(piece)
        piece = PieceWriter(name: "waltz Dm 3/4 150", bpm: 150, beatsPerBar: 3, tonic: 2, isMinor: true,
                            progression: [.i, .iv, .V, .i], bars: 36, drums: .waltz)
        piece.sampleRate = 44_100
        list.append(piece)
        piece = PieceWriter(name: "rock Em 4/4 160", bpm: 160, tonic: 4, isMinor: true, progression: [.i, .VI, .iv, .V],
                            bars: 28, drums: .backbeatQuarters)
        piece.chordProgram = GM.steelGuitar
        list.append(piece)
        piece = PieceWriter(name: "slow G 4/4 60", bpm: 60, tonic: 7, isMinor: false, progression: [.I, .IV, .V, .I],
                            bars: 11, drums: .backbeatEighths)
        piece.sampleRate = 44_100
        list.append(piece)
        piece = PieceWriter(name: "fast Bb 4/4 180", bpm: 180, tonic: 10, isMinor: false, progression: [.I, .vi, .IV, .V],
                            bars: 32, drums: .backbeatQuarters)
        piece.chordProgram = GM.organ
        list.append(piece)
        piece = PieceWriter(name: "tempo D 4/4 100→130", bpm: 100, tonic: 2, isMinor: false, progression: [.I, .IV, .V, .I],
                            bars: 26, drums: .backbeatEighths)
        // 16 bars at 100, then 10 at 130: the main tempo (the longest) is unambiguous.
        piece.tempo = [(0, 100), (64, 130)]
        piece.sampleRate = 44_100
        list.append(piece)
        piece = PieceWriter(name: "intro Cm 4/4 110", bpm: 110, tonic: 0, isMinor: true, progression: [.i, .iv, .V, .i],
                            bars: 20, drums: .backbeatEighths)
        piece.introBars = 4
        list.append(piece)
        piece = PieceWriter(name: "waltz Eb 3/4 66", bpm: 66, beatsPerBar: 3, tonic: 3, isMinor: false,
                            progression: [.I, .IV, .V7, .I], bars: 16, drums: .waltz)
        piece.chordProgram = GM.electricPiano
        piece.sampleRate = 44_100
        list.append(piece)
        piece = PieceWriter(name: "pickup Gm 3/4 120", bpm: 120, beatsPerBar: 3, tonic: 7, isMinor: true,
                            progression: [.i, .iv, .V, .i], bars: 28, drums: .waltz)
        piece.pickupBeats = 1
        list.append(piece)
        piece = PieceWriter(name: "pickup E 4/4 136", bpm: 136, tonic: 4, isMinor: false, progression: [.I, .ii, .V, .I],
                            bars: 24, drums: .backbeatEighths)
        piece.pickupBeats = 2
        piece.sampleRate = 44_100
        list.append(piece)
        return list.map { $0.piece() }
    }()
}

extension AccuracySet {
    /// The pieces back to back (repeated from the first as needed) as one song of at least
    /// `seconds`: the bench's long recording.
    public static func medley(seconds: Double) -> SynthSong {
        var song = SynthSong()
        song.programs = pieces[0].song.programs
        song.pans = pieces[0].song.pans
        song.volumes = pieces[0].song.volumes
        song.tempo = []
        var offset = 0.0
        var index = 0
        while song.tempo.isEmpty || song.seconds(atBeat: offset) < seconds {
            let piece = pieces[index % pieces.count].song
            for change in piece.tempo { song.tempo.append((offset + change.beat, change.bpm)) }
            for var note in piece.notes {
                note.startBeat += offset
                song.notes.append(note)
            }
            offset = song.endBeat
            index += 1
        }
        return song
    }
}
