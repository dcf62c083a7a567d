import Foundation
import RepeaterEngine

/// The control thread's side of the meters and the callback load: once per status window it takes
/// the audio thread's meter records and load sums and closes the display window.
final class Measurements {
    let pre: LevelMeters
    let post: LevelMeters
    private var lastWindow = Date()
    private var lastBusy = 0
    private var lastPeriod = 0
    private(set) var load = (window: 0.0, peak: 0.0)
    /// The process callback's worst cycle in the window, when the engine renders ahead elsewhere.
    private(set) var callbackPeak: Double?

    init(engine: Engine) {
        pre = LevelMeters(channelCount: engine.channelCount)
        post = LevelMeters(channelCount: engine.outputChannelCount)
    }

    func update(engine: Engine, load callbackLoad: CallbackLoad?, callback: CallbackLoad? = nil) {
        callbackPeak = callback?.takePeak()
        let now = Date()
        let elapsed = now.timeIntervalSince(lastWindow)
        lastWindow = now
        engine.meters.drain(pre: pre, post: post)
        pre.closeWindow(elapsed: elapsed)
        post.closeWindow(elapsed: elapsed)
        if let callbackLoad {
            let busy = callbackLoad.busyMicroseconds.load(ordering: .relaxed)
            let period = callbackLoad.periodMicroseconds.load(ordering: .relaxed)
            let window = period > lastPeriod ? Double(busy - lastBusy) / Double(period - lastPeriod) : 0
            (lastBusy, lastPeriod) = (busy, period)
            load = (window, callbackLoad.takePeak())
        }
    }

    func levels(_ stage: MeterStage) -> [ChannelLevel] { stage == .pre ? pre.levels : post.levels }
}
