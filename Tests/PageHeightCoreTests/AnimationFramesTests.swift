// AnimationFramesTests.swift - when the virtual clock steps a page's animation frames
// (AnimationFrames), and how stepped frames appear among the clock's jumps. Pure: no WebKit.

@testable import PageHeightCore
import Testing

struct AnimationFramesTests {
    /// A page that moves in every frame is stepped frame by frame, 1/60 s apart, for as long as
    /// it moves and waits for a frame.
    @Test func aMovingAnimationIsSteppedFrameByFrame() {
        var frames = AnimationFrames()
        #expect(frames.steps(waiting: 1))
        #expect(!frames.steps(waiting: 0))
        #expect(frames.nextFrame(now: 0.5) == 0.5) // the first frame at once
        var t = 0.5
        for i in 0..<50 {
            frames.frameRan(at: t, value: 200 + Double(i) * 10)
            #expect(frames.steps(waiting: 1))
            t = frames.nextFrame(now: t + 0.001) // real time passed meanwhile
        }
        #expect(abs(t - (0.5 + 50 * AnimationFrames.interval)) < 1e-9)
        #expect(frames.count == 50)
    }

    /// An endless loop that never moves the layout (a spinner) is stepped `patience` frames, then
    /// not until something moves the page again; a frame that moves starts stepping again.
    @Test func aLoopThatDoesNotMoveStopsBeingStepped() {
        var frames = AnimationFrames()
        var t = 0.0
        for _ in 0..<AnimationFrames.patience { frames.frameRan(at: t, value: 1500); t += AnimationFrames.interval }
        #expect(!frames.steps(waiting: 1))
        frames.frameRan(at: 1.8, value: 1500) // the frame after a jump
        #expect(!frames.steps(waiting: 1))
        frames.pageMoved(value: 1600)          // a timer ran
        #expect(frames.steps(waiting: 1))
        #expect(frames.nextFrame(now: 2.0) == 2.0) // after a pause: at once
        for _ in 0..<AnimationFrames.patience { frames.frameRan(at: t, value: 1600) }
        #expect(!frames.steps(waiting: 1))
        frames.frameRan(at: 3.3, value: 1610)  // a frame after a jump moved it
        #expect(frames.steps(waiting: 1))
    }

    /// Stepped frames in a row are one entry among the clock's jumps, from the first to the last.
    @Test func steppedFramesAreOneJump() {
        var session = MeasurementSession(options: MeasureOptions())
        session.clockJumped(ClockJump(from: 0.3, to: 0.5, real: 0.05, reason: .timer))
        for i in 0..<10 {
            let from = 0.5 + Double(i) / 60
            session.clockJumped(ClockJump(from: from, to: from + 1.0 / 60, real: 0.06 + Double(i) * 0.001, reason: .frames))
        }
        session.clockJumped(ClockJump(from: 0.7, to: 0.8, real: 0.08, reason: .poll))
        session.clockJumped(ClockJump(from: 0.8, to: 0.82, real: 0.081, reason: .frames))
        #expect(session.clockJumps.map(\.reason.rawValue) == ["timer", "frames", "poll", "frames"])
        #expect(session.clockJumps[1].from == 0.5 && abs(session.clockJumps[1].to - (0.5 + 10.0 / 60)) < 1e-9)
        #expect(abs(session.clockJumps[1].real - 0.069) < 1e-9)
    }
}
