import Foundation

/// The page's files, embedded in the binary at build time (Page/: no CDN, no external fonts, no
/// file read from the disk): what `/`, `/page.js`, `/page.css` and `/icon.svg` serve.
enum PageAssets {
    struct Asset {
        let type: String
        let bytes: [UInt8]
    }

    static let html = Asset(type: "text/html; charset=utf-8", bytes: PackageResources.page_html)
    static let script = Asset(type: "text/javascript; charset=utf-8", bytes: PackageResources.page_js)
    static let style = Asset(type: "text/css; charset=utf-8", bytes: PackageResources.page_css)
    static let icon = Asset(type: "image/svg+xml", bytes: PackageResources.icon_svg)

    /// The file at `path`, if the page has one.
    static func asset(at path: String) -> Asset? {
        switch path {
        case "/", "/index.html": return html
        case "/page.js": return script
        case "/page.css": return style
        case "/icon.svg": return icon
        default: return nil
        }
    }
}
