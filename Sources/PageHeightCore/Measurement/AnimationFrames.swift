/// Animation frames on the virtual clock: when the driver steps the page's clock frame by frame.
///
/// A page that keeps requesting animation frames is animating, and what its frames draw depends
/// on how many frames it gets (an animation that counts frames) or on the time each frame sees
/// (one that reads `performance.now()` or `Date`). While it animates, the driver steps its clock
/// `interval` (1/60 s of the page's time) at a time and runs one frame at each step, as fast as
/// the engine runs them, the way Chromium's virtual time with frame control does: both kinds of
/// animation end where they would at 60 frames a second.
///
/// **The rule for endless loops** (a spinner, a canvas, a game loop): frames cost real time only
/// while the layout they produce keeps changing. The driver steps frames while the page waits for
/// one and the metric moved (by any amount) within the last `patience` frames, or since something
/// else moved the page (a timer ran, a reading moved). Otherwise the clock jumps as it does for
/// a page without frames (to its next timer, poll or settle check), and one frame runs at the time
/// of each jump before anything is read, so a reading after a jump sees what the page draws in the
/// frame that follows it; a frame there that moves the metric starts stepping again. An endless
/// loop that never moves the layout costs `patience` frames after each thing that moved, and one
/// frame per jump. One whose every frame moves the layout is stepped to the end of the
/// measurement (`--timeout` of the page's time at most: 60 frames a second of it).
///
/// Times are seconds of the page's time since the load started. Pure: no WebKit.
public struct AnimationFrames: Sendable, Equatable {
    /// The page's time from one stepped frame to the next, seconds: 60 frames a second.
    public static let interval = 1.0 / 60
    /// Frames in a row that did not move the metric after which frames are no longer stepped.
    public static let patience = 12

    /// Frames run since the metric last moved (or since anything else moved the page).
    public private(set) var framesSinceMove = 0
    /// The metric after the last frame.
    public private(set) var lastValue: Double?
    /// The page's time of the last frame run.
    public private(set) var lastFrameAt: Double?
    /// Every frame run, stepped or after a jump.
    public private(set) var count = 0

    public init() {}

    /// Whether the next frame is stepped: the page waits for a frame (`waiting` callbacks) and is
    /// still moving.
    public func steps(waiting: Int) -> Bool {
        waiting > 0 && framesSinceMove < Self.patience
    }

    /// When the next stepped frame is due: one `interval` after the last frame, and not before
    /// `now` (the first frame after a pause runs at once).
    public func nextFrame(now: Double) -> Double {
        guard let lastFrameAt else { return now }
        return max(lastFrameAt + Self.interval, now)
    }

    /// A frame ran at `t` and the metric read `value` after it (nil: no value).
    public mutating func frameRan(at t: Double, value: Double?) {
        count += 1
        lastFrameAt = t
        if let value, let lastValue, value != lastValue { framesSinceMove = 0 } else { framesSinceMove += 1 }
        if let value { lastValue = value }
    }

    /// Something other than a frame moved the page (a timer ran, a reading moved): the frames
    /// that follow may animate it, so they are stepped again.
    public mutating func pageMoved(value: Double?) {
        framesSinceMove = 0
        if let value { lastValue = value }
    }
}
