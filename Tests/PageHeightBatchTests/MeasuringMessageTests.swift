import Foundation
@testable import PageHeightBatch
import PageHeightCore
import Testing

/// The engine process's messages and work survive their trip through a pipe: one line each,
/// whatever the text they carry.
struct MeasuringMessageTests {
    @Test func aMessageIsOneLineAndReadsBackTheSame() throws {
        let pretty = "{\n  \"status\" : \"ok\",\n  \"url\" : \"file:///a%20b/é.html\"\n}"
        let messages: [MeasuringMessage] = [
            .started(index: 3),
            .measured(.init(index: 7, status: .crashed, seconds: 0.25, ok: false, output: pretty)),
            .measured(.init(index: 0, status: .ok, seconds: 5.32, ok: true, output: "1234 px \u{1B}[2J\r")),
            .fatal("the display :3 went away (was its Xvfb killed?): the engine cannot go on"),
        ]
        for message in messages {
            #expect(!message.line.contains("\n"), "\(message.line)")
            #expect(MeasuringMessage(line: message.line) == message)
        }
        #expect(MeasuringMessage(line: "not a message") == nil)
        #expect(MeasuringMessage(line: "{\"index\":1,\"url\":\"cut") == nil)
    }

    @Test func workReadsBackTheSame() throws {
        let work = MeasuringWork(pages: [
            .entry(PageList.Entry(index: 4, page: "/pages/a.html")),
            .source(index: 1, .html("<p>from stdin</p>", baseURL: "file:///here/", alsoReadable: ["file:///there/"])),
            .source(index: 2, .url("https://example.org/")),
        ], alone: true)
        #expect(try MeasuringWork(data: work.data) == work)
        #expect(work.pages.map(\.index) == [4, 1, 2])
    }

    @Test func signalsAreNamedAsTheHeadersSpellThem() {
        #expect(EngineSupervisor.name(of: SIGSEGV) == "SIGSEGV")
        #expect(EngineSupervisor.name(of: SIGABRT) == "SIGABRT")
        #expect(EngineSupervisor.name(of: 63) == "signal 63")
    }
}
