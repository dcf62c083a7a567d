/// One MIDI message as a foot pedal or controller sends it, decoded from the bytes of one JACK MIDI
/// event. Only what repeater can act on is decoded: control change, note on/off, program change.
///
/// JACK delivers one complete message per event, running status resolved. Anything else a port may
/// carry (SysEx, real-time and system-common bytes, pitch bend, aftertouch, a message without its
/// status byte as under running status, truncated or overlong messages, data bytes ≥ 0x80) decodes
/// to nil: the engine ignores it and counts it. Pure and allocation-free: it runs on the audio
/// thread and is fuzzed.
public struct MIDIMessage: BitwiseCopyable, Sendable, Equatable {
    public enum Kind: UInt8, BitwiseCopyable, Sendable {
        case controlChange, noteOn, noteOff, programChange
    }

    public var kind: Kind
    /// 0 … 15.
    public var channel: UInt8
    /// Controller, note or program number, 0 … 127.
    public var number: UInt8
    /// Controller value or velocity, 0 … 127 (program change: 127).
    public var value: UInt8

    public init(kind: Kind, channel: UInt8, number: UInt8, value: UInt8) {
        self.kind = kind
        self.channel = channel
        self.number = number
        self.value = value
    }

    /// A press, as a pedal means it: controller value ≥ 64, a note on with velocity > 0, any program
    /// change. A release (value < 64, note off, note on with velocity 0) is not.
    public var isPress: Bool {
        switch kind {
        case .controlChange: return value >= 64
        case .noteOn: return value > 0
        case .noteOff: return false
        case .programChange: return true
        }
    }

    /// Decodes one event's bytes; nil for anything repeater does not act on (see the type's comment).
    public static func decode(_ bytes: UnsafePointer<UInt8>, count: Int) -> MIDIMessage? {
        guard count >= 1 else { return nil }
        let status = bytes[0]
        guard status & 0x80 != 0, status < 0xF0 else { return nil }  // running status, system messages
        let channel = status & 0x0F
        let expected: Int
        let kind: Kind
        switch status & 0xF0 {
        case 0xB0: kind = .controlChange; expected = 3
        case 0x90: kind = .noteOn; expected = 3
        case 0x80: kind = .noteOff; expected = 3
        case 0xC0: kind = .programChange; expected = 2
        default: return nil  // pitch bend, poly and channel pressure
        }
        guard count == expected else { return nil }
        for index in 1..<count where bytes[index] & 0x80 != 0 { return nil }
        if kind == .programChange { return MIDIMessage(kind: kind, channel: channel, number: bytes[1], value: 127) }
        return MIDIMessage(kind: kind, channel: channel, number: bytes[1], value: bytes[2])
    }

    /// The message as people write it: "cc 64 127 ch 1", "note 60 100 ch 10", "program 3 ch 1".
    public var description: String {
        switch kind {
        case .controlChange: return "cc \(number) \(value) ch \(channel + 1)"
        case .noteOn: return "note \(number) \(value) ch \(channel + 1)"
        case .noteOff: return "note-off \(number) ch \(channel + 1)"
        case .programChange: return "program \(number) ch \(channel + 1)"
        }
    }
}

/// What a pedal press does.
public enum MIDIAction: UInt8, BitwiseCopyable, Sendable, CaseIterable {
    case none = 0
    /// Play / pause (in `drive` mode: start / stop the JACK transport).
    case playPause
    /// "A/B here" in turn: A, then B and the loop on, then the loop off and cleared.
    case abHere
    /// Loop on / off.
    case loopToggle
    /// Back to A: restart the pass.
    case restart
    /// Speed +5 % / −5 %.
    case faster, slower
    /// Strike the minute repeater for the time now.
    case chime
    /// Seek 5 s back.
    case back
    /// Select named loop n + 1 (n: the program number, or the controller's or note's number).
    case selectLoop
    /// The next isolation (off → centre → sides → bass → off).
    case isolate
    /// The metronome on / off.
    case click
    /// The next line (a language lab's pedal).
    case nextLine

    /// The name `learn ACTION` and midi.json use.
    public var name: String {
        switch self {
        case .none: return "none"
        case .playPause: return "play-pause"
        case .abHere: return "ab-here"
        case .loopToggle: return "loop"
        case .restart: return "restart"
        case .faster: return "faster"
        case .slower: return "slower"
        case .chime: return "chime"
        case .back: return "back"
        case .selectLoop: return "select-loop"
        case .isolate: return "isolate"
        case .click: return "click"
        case .nextLine: return "next-line"
        }
    }

    public init?(name: String) {
        guard let action = MIDIAction.allCases.first(where: { $0.name == name }), action != .none else { return nil }
        self = action
    }

    /// Done on the audio thread at the event's frame (the others go to the control thread).
    public var isRealTime: Bool {
        switch self {
        case .playPause, .abHere, .loopToggle, .restart: return true
        default: return false
        }
    }
}

/// Audio → control: a MIDI press (or, while learning, any decoded message) and what became of it.
public struct MIDIReport: BitwiseCopyable, Sendable, Equatable {
    public var message: MIDIMessage
    /// The action bound to it (`.none` when unbound or while learning).
    public var action: MIDIAction
    /// True when the audio thread performed the action at the event's frame; false when the control
    /// thread is to do it (or to learn the message).
    public var performed: Bool
    /// The output frame of the event (counted over all cycles).
    public var outputFrame: Int
    /// The source frame audible at the event's frame (latency compensated, as "A here" resolves it).
    public var audibleFrame: Int
}
