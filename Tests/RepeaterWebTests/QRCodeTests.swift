import Foundation
@testable import RepeaterWeb
import Testing

@Suite("The page's QR code for a phone")
struct QRCodeTests {
    @Test("a token URL is a square code with the three finder patterns, drawn in half blocks with the light modules solid")
    func code() throws {
        let url = "http://192.168.100.200:8765/?token=0123456789abcdef0123456789abcdef"
        let modules = try #require(QRCode.modules(url))
        let size = modules.count
        #expect(size >= 29 && (size - 17) % 4 == 0 && modules.allSatisfy { $0.count == size }, "\(size)")
        // A finder pattern: a dark 7×7 ring, a light ring inside, a dark 3×3 core.
        func finder(_ top: Int, _ left: Int) -> Bool {
            (0..<7).allSatisfy { r in
                (0..<7).allSatisfy { c in
                    let ring = max(abs(r - 3), abs(c - 3))
                    return modules[top + r][left + c] == (ring != 2)
                }
            }
        }
        #expect(finder(0, 0) && finder(0, size - 7) && finder(size - 7, 0))
        let rows = QRCode.rows(url)
        let width = size + 2 * QRCode.quietZone
        #expect(rows.count == (width + 1) / 2 && rows.allSatisfy { $0.count == width })
        // The quiet zone is light: the first row is all blocks; the finder's dark ring is blank.
        #expect(rows[0].allSatisfy { $0 == "█" })
        let second = Array(rows[1])
        #expect(second[QRCode.quietZone] == "▀" || second[QRCode.quietZone] == " ", "\(rows[1])")
        // Dark modules are blanks, light ones blocks: the counts agree with the modules.
        let darkModules = modules.joined().filter { $0 }.count
        let blankHalves = rows.joined().reduce(0) { $0 + ($1 == " " ? 2 : ($1 == "█" ? 0 : 1)) }
        let extra = width % 2 == 1 ? width : 0  // the half row below the last, blank
        #expect(blankHalves == darkModules + extra)
    }
}
