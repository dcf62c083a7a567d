/// The columns `text` takes on a terminal with a monospaced font.
///
/// Counted per grapheme cluster (what the user sees as one character), so a base letter with
/// combining marks, a Hangul syllable spelt in jamo, an emoji ZWJ sequence or a flag is one unit:
/// - 2 for East Asian Wide and Fullwidth characters (Unicode 15.0, see `EastAsianWidth`), emoji
///   with Emoji_Presentation, a character followed by the emoji selector U+FE0F (`❤️`), and a
///   regional-indicator flag;
/// - 0 for a cluster made only of zero-width parts: combining marks (Mn, Me), format characters
///   (Cf: zero-width joiner and space, direction marks, except the soft hyphen), Hangul medial and
///   final jamo, and controls (C0, C1, DEL: a terminal does not advance for them);
/// - 1 otherwise, including East Asian Ambiguous characters (`°`, `±`, Cyrillic, Greek), which take
///   one column outside CJK locales, where the learners this is for mostly are.
public func displayWidth(of text: String) -> Int {
    var columns = 0
    for character in text { columns += displayWidth(of: character) }
    return columns
}

/// The columns one grapheme cluster takes (see `displayWidth(of: String)`).
public func displayWidth(of character: Character) -> Int {
    var base: Unicode.Scalar?
    var hasEmojiSelector = false
    for scalar in character.unicodeScalars {
        if scalar == "\u{FE0F}" { hasEmojiSelector = true }
        if base == nil, !isZeroWidth(scalar) { base = scalar }
    }
    guard let base else { return 0 }
    if base.properties.generalCategory == .control { return 0 }
    if EastAsianWidth.isWide(base) || base.properties.isEmojiPresentation { return 2 }
    if hasEmojiSelector && base.properties.isEmoji { return 2 }
    if (0x1F1E6...0x1F1FF).contains(base.value) { return 2 }  // regional indicators: flags
    return 1
}

/// Combining marks, format characters and Hangul medial/final jamo take no column of their own.
private func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
    if scalar == "\u{AD}" { return false }  // the soft hyphen shows as a hyphen in terminals
    if (0x1160...0x11FF).contains(scalar.value) || (0xD7B0...0xD7FF).contains(scalar.value) { return true }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return true
    default: return false
    }
}
