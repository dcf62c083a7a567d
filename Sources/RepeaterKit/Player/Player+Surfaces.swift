import Foundation
import RepeaterEngine

/// The surfaces the player hosts (the practice page, `--web`): started with the other sinks, polled
/// with the other sources on the control thread, given the document at every status window, and
/// stopped on the way out. Nothing else in the player knows what they are.
extension Player {
    /// At the start: each surface's sink joins the output, it starts serving, and says where.
    func startSurfaces() {
        for surface in surfaces {
            output.add(surface.sink)
            surface.start(file: file.info)
            for note in surface.startNotes { output.note(note) }
        }
    }

    /// The surfaces' fields of the `start` event.
    func describeSurfaces(into line: inout JSONLine) {
        for surface in surfaces { surface.describe(into: &line) }
    }

    /// Control loop: hands what the surfaces' clients sent to the dispatcher; true for quit. After
    /// commands, the surface gets a status at once (at most every 20 ms), so that a page sees its
    /// key's effect without waiting for the next window.
    func pollSurfaces() -> Bool {
        for surface in surfaces {
            switch surface.poll(into: dispatcher, output: output) {
            case .quit: return true
            case .commands:
                let now = Date()
                guard now.timeIntervalSince(lastSurfaceStatus) >= 0.02 else { break }
                lastSurfaceStatus = now
                surface.sink.status(snapshot(), force: false)
            case .nothing: break
            }
        }
        return false
    }

    /// At every status window: what the surfaces show beside the status.
    func updateSurfaces() {
        guard !surfaces.isEmpty else { return }
        var document = PracticeDocument()
        if let grid = dispatcher.grid {
            document.beatFrames = grid.beatFrames
            document.downbeatFrames = grid.downbeatFrames
        }
        document.lines = dispatcher.linePractice.lines?.lines ?? []
        document.loops = keeper.session.loops
        document.takes = keeper.session.takes
        for surface in surfaces { surface.update(document) }
    }

    func stopSurfaces() {
        for surface in surfaces { surface.stop() }
    }
}
