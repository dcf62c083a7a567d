import Synchronization

/// Which action each MIDI message triggers: a fixed table of 3 × 128 entries (controller, note and
/// program numbers, any channel), written by the control thread, read by the audio thread.
///
/// Each entry is its own relaxed atomic byte: an entry is read or written whole, entries are
/// independent, and a binding that changes while a pedal is pressed acts either the old way or the
/// new way. Allocated once; nothing allocates afterwards.
public struct MIDIBindings: ~Copyable, @unchecked Sendable {
    public static let tableSize = 3 * 128
    private let entries: UnsafeMutablePointer<Atomic<UInt8>>

    /// The default map (docs/manual.md: *Playing along*): CC 64 play/pause, CC 65 "A/B here", CC 66 loop
    /// on/off, CC 67 back to A; notes 60, 62, 64, 65 the same; any program change n selects named
    /// loop n + 1.
    public init() {
        entries = .allocate(capacity: Self.tableSize)
        for index in 0..<Self.tableSize { (entries + index).initialize(to: Atomic<UInt8>(0)) }
        setDefaults()
    }

    deinit {
        entries.deinitialize(count: Self.tableSize)
        entries.deallocate()
    }

    /// The default bindings: `(kind, number, action)`.
    public static let defaults: [(MIDIMessage.Kind, UInt8, MIDIAction)] = [
        (.controlChange, 64, .playPause), (.controlChange, 65, .abHere), (.controlChange, 66, .loopToggle),
        (.controlChange, 67, .restart),
        (.noteOn, 60, .playPause), (.noteOn, 62, .abHere), (.noteOn, 64, .loopToggle), (.noteOn, 65, .restart),
    ]

    /// Control thread. Clears the table and binds the defaults.
    public func setDefaults() {
        for index in 0..<Self.tableSize { entries[index].store(0, ordering: .relaxed) }
        for (kind, number, action) in Self.defaults { bind(kind, number, to: action) }
        for program in 0..<128 { bind(.programChange, UInt8(program), to: .selectLoop) }
    }

    /// Control thread. Binds messages of `kind` with `number` (note off counts as note on).
    public func bind(_ kind: MIDIMessage.Kind, _ number: UInt8, to action: MIDIAction) {
        entries[Self.index(kind, number)].store(action.rawValue, ordering: .relaxed)
    }

    /// Audio thread (and control thread). The action bound to `message`.
    @inline(__always)
    public func action(for message: MIDIMessage) -> MIDIAction {
        MIDIAction(rawValue: entries[Self.index(message.kind, message.number)].load(ordering: .relaxed)) ?? .none
    }

    @inline(__always)
    static func index(_ kind: MIDIMessage.Kind, _ number: UInt8) -> Int {
        let row: Int
        switch kind {
        case .controlChange: row = 0
        case .noteOn, .noteOff: row = 1
        case .programChange: row = 2
        }
        return row * 128 + Int(number & 0x7F)
    }
}
