import Foundation

extension RecordingLines {
    /// The lines to practise in `repeater play`: `--subs FILE`, else `--phrases auto`, else the
    /// session's (a file beside it, or "auto"), else a file of the recording's name beside it. The
    /// session remembers the choice. A line file that cannot be read is one line naming the file,
    /// the line and the problem.
    static func chosen(options: PlayOptions, plan: SessionPlan, info: AudioFileInfo, keeper: SessionKeeper) throws(RepeaterError) -> RecordingLines? {
        let sessionFolder = plan.sessionPath.map { ($0 as NSString).deletingLastPathComponent } ?? ""
        func remember(_ path: String) {
            guard let sessionPath = plan.sessionPath else { return }
            keeper.session.linesSource = Session.audioReference(path, sessionPath: sessionPath)
        }
        if let subs = options.subs {
            let lines = try read(path: subs, info: info)
            remember(subs)
            return lines
        }
        if options.phrases {
            keeper.session.linesSource = "auto"
            return try phrases(path: info.path)
        }
        if let source = keeper.session.linesSource {
            if source == "auto" { return try phrases(path: info.path) }
            let path = source.hasPrefix("/") || sessionFolder.isEmpty ? source : (sessionFolder as NSString).appendingPathComponent(source)
            guard FileManager.default.fileExists(atPath: path) else {
                throw .input("the session's line file '\(source)' is missing (looked for \(path)): put it back, pass --subs FILE, or remove \"lines\" from the session")
            }
            return try read(path: path, info: info)
        }
        if let sidecar = sidecar(forAudio: info.path) {
            let lines = try read(path: sidecar, info: info)
            remember(sidecar)
            return lines
        }
        return nil
    }

    /// The line a drill in the session starts (or goes on) at.
    func drillLine(_ session: Session) -> MapLine? {
        guard session.drill != nil, !lines.isEmpty else { return nil }
        return lines[min(lines.count, max(1, session.drillLine ?? 1)) - 1]
    }
}
