import Foundation
import RepeaterKit
import Testing

@Suite("The screen's practice page line and QR code")
struct ScreenPageTests {
    private let url = "http://192.168.1.20:8765/?token=0123456789abcdef0123456789abcdef"

    /// A QR code's rows as the page gives them (its size here: 33 modules and the quiet zone).
    private var rows: [String] { (0..<19).map { index in String(repeating: index % 2 == 0 ? "█" : "▀", count: 37) } }

    private func state(loopbackOnly: Bool) -> ScreenState {
        var state = exampleScreenState()
        var page = PageStatus(url: loopbackOnly ? "http://127.0.0.1:8765/" : url, listen: ["0.0.0.0:8765"], loopbackOnly: loopbackOnly,
                              qrRows: loopbackOnly ? [] : rows)
        page.clients = 2
        page.refused = 3
        state.page = page
        return state
    }

    @Test("the page's address whole (a cut token is no use), the pages open and the refusals; none at all where it does not fit", arguments: [40, 80, 132])
    func line(width: Int) {
        let lines = Screen.render(state(loopbackOnly: false), width: width, color: false)
        let line = lines.first { $0.contains("192.168.1.20:8765") }
        if width >= url.count {
            #expect(line?.contains(url) == true, "\(lines)")
        } else {
            #expect(line == nil, "a cut address: \(line ?? "")")
        }
        if width >= 132 { #expect(line?.contains("pages 2  refused 3") == true && line?.contains("open to the network") == true, "\(line ?? "")") }
        let local = Screen.render(state(loopbackOnly: true), width: width, color: false)
        #expect(local.contains { $0.hasPrefix("page http://127.0.0.1:8765/") }, "\(local)")
    }

    @Test("? shows the QR code under the keys when the screen has the rows for all of it, in light-on-dark colours; none on the loopback")
    func qrCode() {
        var open = state(loopbackOnly: false)
        open.showHelp = true
        open.keyHelp = "space play/pause\nq quit"
        let tall = Screen.render(open, width: 80, color: false, height: 60)
        #expect(tall.suffix(rows.count) == rows[...], "\(tall.suffix(rows.count))")
        let coloured = Screen.render(open, width: 80, color: true, height: 60)
        #expect(coloured.suffix(rows.count).allSatisfy { $0.hasPrefix("\u{1b}[97;40m") })
        let short = Screen.render(open, width: 80, color: false, height: 24)
        #expect(!short.contains { $0.contains("▀▀▀▀") }, "a QR code cut by the screen's height")
        var local = state(loopbackOnly: true)
        local.showHelp = true
        #expect(!Screen.render(local, width: 80, color: false, height: 60).contains(rows[0]))
    }
}
