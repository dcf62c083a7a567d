import Foundation

/// Watches the playing file: cut short (the disk reader says so), deleted or replaced at its path
/// (checked once a second). Each change is reported once.
final class FileWatch {
    enum Change: String {
        case cutShort = "cut-short", deleted, replaced
    }

    private let info: AudioFileInfo
    /// The file as opened (device, inode): a different one at its path later means it was replaced.
    private let identity: (device: UInt, inode: UInt)?
    private var reported: Set<String> = []
    private var nextCheck = Date()

    init(info: AudioFileInfo) {
        self.info = info
        var status = stat()
        identity = stat(info.path, &status) == 0 ? (UInt(status.st_dev), UInt(status.st_ino)) : nil
    }

    /// A change not reported before: what changed, the frame it now ends at (cut short), and the
    /// warning to give. `cutShortAt` is the disk reader's (−1: not cut).
    func check(cutShortAt cut: Int) -> (change: Change, frame: Int?, message: String)? {
        if cut >= 0, report(.cutShort) {
            return (.cutShort, cut, "'\(info.path)' was cut short while playing: it now ends at \(formatTime(frame: cut, sampleRate: info.sampleRate)); playing what is there")
        }
        guard Date() >= nextCheck, let identity else { return nil }
        nextCheck = Date().addingTimeInterval(1)
        var status = stat()
        if stat(info.path, &status) != 0 {
            if report(.deleted) { return (.deleted, nil, "'\(info.path)' was deleted while playing: playing on from the open file (the session keeps your place)") }
        } else if UInt(status.st_dev) != identity.device || UInt(status.st_ino) != identity.inode {
            if report(.replaced) { return (.replaced, nil, "'\(info.path)' was replaced while playing: playing on from the old copy; the next start reads the new one") }
        }
        return nil
    }

    private func report(_ change: Change) -> Bool { reported.insert(change.rawValue).inserted }
}
