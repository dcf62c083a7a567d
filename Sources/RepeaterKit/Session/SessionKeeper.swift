import Foundation
import RepeaterEngine

/// Keeps the session file: what was last written, when the next autosave is due, the one-time
/// backup of a `--fresh` start, and saving errors said once per problem. It writes what it is given;
/// the dispatcher assembles the session from the player's state.
public final class SessionKeeper {
    /// How often an unsaved change is written while playing.
    public static let autosaveInterval = 3.0

    /// The session as loaded (named loops, unknown fields): the dispatcher keeps it current.
    public var session: Session
    public let path: String?
    private var lastSavedText: String?
    private var lastSaveError: String?
    private var backupOnFirstSave: Bool
    private var nextAutosave = Date().addingTimeInterval(SessionKeeper.autosaveInterval)

    init(session: Session, path: String?, backupOnFirstSave: Bool) {
        self.session = session
        self.path = path
        self.backupOnFirstSave = backupOnFirstSave
    }

    /// The outcome of a save.
    public enum SaveResult {
        /// Written (or nothing to do: no session, or nothing changed).
        case saved(written: Bool)
        /// Failed; `report` when the error is new (or was asked for), else said already.
        case failed(String, report: Bool)
    }

    /// Writes `current` if there is a session file and (unless `force`) it changed.
    func save(_ current: Session, force: Bool, asked: Bool) -> SaveResult {
        guard let path else { return .saved(written: false) }
        let text = current.text
        if !force && text == lastSavedText { return .saved(written: false) }
        if lastSavedText == nil { SessionStore.removeStaleTemporaries(for: path) }
        do {
            if backupOnFirstSave {
                backupOnFirstSave = false
                let backup = (path as NSString).deletingPathExtension + ".previous.json"
                _ = try? FileManager.default.removeItem(atPath: backup)
                try? FileManager.default.copyItem(atPath: path, toPath: backup)
            }
            try SessionStore.writeAtomically(text, to: path)
        } catch {
            // Said once per distinct problem (autosave retries every few seconds), and always when asked.
            let report = error.message != lastSaveError || asked
            lastSaveError = error.message
            return .failed(error.message, report: report)
        }
        lastSaveError = nil
        lastSavedText = text
        return .saved(written: true)
    }

    /// True once per autosave interval.
    func autosaveDue(now: Date = Date()) -> Bool {
        guard path != nil, now >= nextAutosave else { return false }
        nextAutosave = now.addingTimeInterval(Self.autosaveInterval)
        return true
    }
}
