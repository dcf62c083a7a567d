import CQREncode
import Foundation

/// A QR code of the page's address for a phone's camera (libqrencode), as rows of text: two rows of
/// modules to a row of text, in half blocks. The *light* modules and the quiet zone are drawn (a
/// block), the dark ones left blank, so that on the screen's light-on-dark colours it reads dark on
/// light, as scanners expect.
public enum QRCode {
    /// Modules of light around the code (the standard asks for 4; 2 scan reliably on a screen).
    static let quietZone = 2

    /// The modules (true: dark), row by row; nil if the text cannot be encoded.
    public static func modules(_ text: String) -> [[Bool]]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        return (0..<width).map { row in (0..<width).map { column in code.pointee.data[row * width + column] & 1 == 1 } }
    }

    /// The code as text rows (`quietZone` of light around it).
    public static func rows(_ text: String) -> [String] {
        guard let modules = modules(text) else { return [] }
        let size = modules.count + 2 * quietZone
        func light(_ row: Int, _ column: Int) -> Bool {
            let (r, c) = (row - quietZone, column - quietZone)
            guard r >= 0, c >= 0, r < modules.count, c < modules.count else { return true }
            return !modules[r][c]
        }
        return stride(from: 0, to: size, by: 2).map { row in
            String((0..<size).map { column -> Character in
                switch (light(row, column), row + 1 < size ? light(row + 1, column) : false) {
                case (true, true): return "█"
                case (true, false): return "▀"
                case (false, true): return "▄"
                case (false, false): return " "
                }
            })
        }
    }
}
