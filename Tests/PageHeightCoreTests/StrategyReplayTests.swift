import PageHeightCore
import Testing

@Suite struct StrategyReplayTests {
    let replay = StrategyReplay(schedule: .readerApp, threshold: 5)

    /// Content added at 2.5 s after load: once shows the first height, the 3.3 s poll catches it.
    @Test func scheduleCatchesALateChangeAtTheNextPoll() {
        let samples = [
            HeightSample(t: 0.2, height: 800, source: .load),
            HeightSample(t: 0.3, height: 800, source: .poll, poll: 1),
            HeightSample(t: 0.5, height: 800, source: .poll, poll: 2),
            HeightSample(t: 1.0, height: 800, source: .poll, poll: 3),
            HeightSample(t: 2.0, height: 800, source: .poll, poll: 4),
            HeightSample(t: 2.7, height: 1300, source: .observer, cause: "mutation"),
            HeightSample(t: 3.2, height: 1300, source: .poll, cause: "settle-check"),
        ]
        let timeline = RecordedTimeline(samples: samples, finishedAt: 0.2, recordedSchedule: .readerApp, horizon: .settled)
        let result = replay.replay(timeline, height: 1300)
        #expect(result.once.height == 800)
        #expect(result.once.error == -500)
        #expect(result.schedule.height == 1300)
        #expect(result.schedule.jumps.map(\.height) == [800, 1300])
        #expect(abs(result.schedule.jumps[1].t - 3.5) < 1e-9, "the virtual poll at 3.3 s after load")
        #expect(result.schedule.error == 0)
        #expect(result.observe.jumps.map(\.height) == [800, 1300])
    }

    @Test func smallMovesAreNotJumpsAndZeroIsIgnored() {
        let samples = [
            HeightSample(t: 0.1, height: 0, source: .load),
            HeightSample(t: 0.2, height: 500, source: .poll, poll: 1),
            HeightSample(t: 0.4, height: 503, source: .poll, poll: 2),
            HeightSample(t: 0.9, height: 0, source: .poll, poll: 3),
        ]
        let timeline = RecordedTimeline(samples: samples, finishedAt: 0.1, recordedSchedule: .readerApp, horizon: .settled)
        let result = replay.replay(timeline, height: 503)
        #expect(result.once.height == nil)
        #expect(result.schedule.jumps.map(\.height) == [500])
        #expect(result.schedule.error == -3)
    }

    @Test func pollsAfterAnUnsettledEndAreUnknown() {
        let samples = [HeightSample(t: 0.1, height: 500, source: .load),
                       HeightSample(t: 0.2, height: 520, source: .poll, poll: 1)]
        let timeline = RecordedTimeline(samples: samples, finishedAt: 0.1, recordedSchedule: .readerApp,
                                        horizon: .watched(until: 0.2))
        let result = replay.replay(timeline, height: 900)
        #expect(result.schedule.height == 520)
        #expect(!result.schedule.complete)
    }
}
