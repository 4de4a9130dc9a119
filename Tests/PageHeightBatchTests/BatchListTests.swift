import Foundation
@testable import PageHeightBatch
@testable import PageHeightCore
import Testing

@Suite struct PageListTests {
    @Test func listFilesSkipBlankLinesAndCommentsAndResolveAgainstTheirDirectory() {
        let list = PageList(text: "# articles\n\na.html\n  /abs/b.html  \nhttps://example.org/c\r\n# end\n",
                            baseDirectory: "/lists")
        #expect(list.entries.map(\.page) == ["/lists/a.html", "/abs/b.html", "https://example.org/c"])
        #expect(list.entries.map(\.index) == [0, 1, 2])
    }

    @Test func aDirectoryIsEveryHTMLFileUnderItSorted() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-list-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        for path in ["b/2.html", "a.html", "b/1.HTML", "c.txt"] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data().write(to: url)
        }
        let list = try PageList.read(root.path)
        #expect(list.entries.map { String($0.page.dropFirst(root.path.count)) } == ["/a.html", "/b/1.HTML", "/b/2.html"])
        #expect(throws: InputError.self) { try PageList.read(root.appendingPathComponent("none").path) }
    }

    /// Issue 45.10: a folder of symbolic links to article folders is a list; a link back up is
    /// followed once.
    @Test func aDirectoryListFollowsLinkedFoldersOnce() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-linked-\(getpid())")
        defer { try? FileManager.default.removeItem(at: base) }
        let manager = FileManager.default
        try manager.createDirectory(at: base.appendingPathComponent("articles/one"), withIntermediateDirectories: true)
        try manager.createDirectory(at: base.appendingPathComponent("list"), withIntermediateDirectories: true)
        try Data().write(to: base.appendingPathComponent("articles/one/source.html"))
        try manager.createSymbolicLink(atPath: base.appendingPathComponent("list/one").path, withDestinationPath: "../articles/one")
        try manager.createSymbolicLink(atPath: base.appendingPathComponent("list/up").path, withDestinationPath: "..")
        let list = try PageList.read(base.appendingPathComponent("list").path)
        #expect(list.entries.map { String($0.page.dropFirst(base.path.count)) } == ["/list/one/source.html"], "\(list.entries)")
    }

    /// A list with no page is an error with its reason, not "0 of 0 pages" and success.
    @Test func aListWithNoPageIsAnError() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-empty-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data().write(to: root.appendingPathComponent("sub/notes.txt"))
        #expect(throws: InputError.noPages(root.path, directory: true)) { try PageList.read(root.path) }
        let comments = root.appendingPathComponent("list.txt")
        try Data("# nothing yet\n\n   \n".utf8).write(to: comments)
        #expect(throws: InputError.noPages(comments.path, directory: false)) { try PageList.read(comments.path) }
        #expect(throws: InputError.noPages("-", directory: false)) { try PageList.read("-", standardInput: { Data() }) }
        #expect(InputError.noPages(comments.path, directory: false).description.contains("only blank lines and # comments"))
    }
}

@Suite struct ShardTests {
    let list = PageList(entries: (0..<500).map { PageList.Entry(index: $0, page: "/corpus/page-\($0)/source.html") })

    @Test func everyPageIsInExactlyOneShardInListOrder() throws {
        for count in [1, 2, 3, 7] {
            let shards = (1...count).map { Shard(parsing: "\($0)/\(count)")!.slice(list) }
            let indexes = shards.flatMap { $0.entries.map(\.index) }
            #expect(indexes.sorted() == Array(0..<500), "count \(count)")
            #expect(Set(indexes).count == 500)
            for shard in shards {
                #expect(shard.entries.map(\.index) == shard.entries.map(\.index).sorted())
                if count > 1 { #expect(shard.entries.count > 500 / count / 2, "shards are roughly even") }
            }
        }
    }

    @Test func theSplitIsStableAndAddingPagesMovesNoOther() {
        let shard = Shard(parsing: "2/4")!
        let before = shard.slice(list).entries.map(\.page)
        #expect(shard.slice(list).entries.map(\.page) == before)
        var longer = list
        longer.entries.append(contentsOf: (500..<600).map { PageList.Entry(index: $0, page: "/corpus/new-\($0).html") })
        #expect(Array(shard.slice(longer).entries.map(\.page).prefix(before.count)) == before)
    }

    @Test func malformedShardsAreRejected() {
        for text in ["0/4", "5/4", "1/0", "a/b", "1", "1/2/3", "-1/4"] { #expect(Shard(parsing: text) == nil, "\(text)") }
        #expect(Shard(parsing: "4/4")?.description == "4/4")
    }
}

@Suite struct ListLineTests {
    /// A byte order mark, CR-only line ends and a path with a colon: every entry as written.
    @Test func aByteOrderMarkCROnlyLinesAndColonsInPathsKeepEveryEntry() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-list-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "<p>x</p>".write(to: directory.appendingPathComponent("a:b.html"), atomically: true, encoding: .utf8)
        let base = directory.path
        let list = PageList(text: "\u{FEFF}first.html\rsecond.html\r\nthird.html\n# note\ra:b.html\rhttps://example.com/x\rjavascript:x",
                            baseDirectory: base)
        #expect(list.entries.map(\.page) == ["\(base)/first.html", "\(base)/second.html", "\(base)/third.html",
                                             "\(base)/a:b.html", "https://example.com/x", "javascript:x"])
    }

    /// On the command line, `a:b.html` that names a file is that file; one that does not is an
    /// unknown scheme.
    @Test func aRelativePathWithAColonIsAFileWhenOneIsThere() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-colon-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "<p>x</p>".write(to: directory.appendingPathComponent("a:b.html"), atomically: true, encoding: .utf8)
        let source = try PageSource.parse("a:b.html", currentDirectory: directory.path, standardInput: { nil })
        #expect(source == .file(directory.appendingPathComponent("a:b.html").path))
        #expect(throws: InputError.unsupportedScheme("c:d.html", scheme: "c")) {
            try PageSource.parse("c:d.html", currentDirectory: directory.path, standardInput: { nil })
        }
    }
}

@Suite struct ResumeCheckTests {
    static func recorded(_ index: Int, _ url: String, _ options: MeasureOptions) -> ResumeCheck.Recorded {
        let json = String(decoding: try! JSONEncoder().encode(options), as: UTF8.self)
        return ResumeCheck.Recorded(index: index, url: url, options: json)
    }

    @Test func theSameListAndOptionsResume() {
        let list = PageList(entries: [.init(index: 0, page: "https://a.example/1"), .init(index: 1, page: "https://a.example/2")])
        #expect(ResumeCheck.mismatch([Self.recorded(0, "https://a.example/1", MeasureOptions())], list: list,
                                     options: MeasureOptions()) == nil)
    }

    /// Another width, or another list, is refused with the difference named.
    @Test func anotherWidthOrAnotherListIsRefusedNamingTheDifference() {
        let list = PageList(entries: [.init(index: 0, page: "https://a.example/1"), .init(index: 1, page: "https://a.example/2")])
        var wide = MeasureOptions()
        wide.width = 1024
        let widthMessage = ResumeCheck.mismatch([Self.recorded(0, "https://a.example/1", MeasureOptions())], list: list, options: wide)
        #expect(widthMessage?.contains("width 390") == true && widthMessage?.contains("1024") == true, "\(widthMessage ?? "nil")")
        let listMessage = ResumeCheck.mismatch([Self.recorded(1, "https://b.example/other", MeasureOptions())], list: list,
                                               options: MeasureOptions())
        #expect(listMessage?.contains("another list") == true && listMessage?.contains("https://a.example/2") == true)
        let beyond = ResumeCheck.mismatch([Self.recorded(7, "https://a.example/8", MeasureOptions())], list: list, options: MeasureOptions())
        #expect(beyond?.contains("entry 7") == true)
    }
}

@Suite struct ResultLogTests {
    @Test func resumeKnowsWhatIsDoneAndRepairsACutOffLastLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-log-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("{\"index\":3,\"status\":\"ok\"}\n{\"index\":0,\"status\":\"ok\"}\n{\"index\":7,\"sta".utf8)
            .write(to: URL(fileURLWithPath: path))
        do {
            let log = try ResultLog(path: path, resume: true)
            #expect(log.done == [3, 0])
            #expect(log.repaired)
            try log.write("{\"index\":7,\"status\":\"ok\"}")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text == "{\"index\":3,\"status\":\"ok\"}\n{\"index\":0,\"status\":\"ok\"}\n{\"index\":7,\"status\":\"ok\"}\n")
            // While it is open, the file is locked: a second writer is refused.
            #expect(throws: OutputError.inUse(path)) { try ResultLog(path: path, resume: true) }
        }

        let fresh = try ResultLog(path: path, resume: false)
        #expect(fresh.done.isEmpty)
        #expect(try String(contentsOfFile: path, encoding: .utf8).isEmpty)
    }

    /// A last line without its newline that parses whole is a result, kept (the newline is added);
    /// only a line that does not parse is cut.
    @Test func resumeKeepsACompleteLastLineWithoutItsNewline() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-log2-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("{\"index\":3,\"status\":\"ok\"}\n{\"index\":4,\"status\":\"ok\"}".utf8).write(to: URL(fileURLWithPath: path))
        let log = try ResultLog(path: path, resume: true)
        #expect(log.done == [3, 4] && !log.repaired)
        try log.write("{\"index\":5}")
        #expect(try String(contentsOfFile: path, encoding: .utf8)
                == "{\"index\":3,\"status\":\"ok\"}\n{\"index\":4,\"status\":\"ok\"}\n{\"index\":5}\n")
    }
}

/// Options recorded before the clock could be chosen (no `clock` key) were measured on the real
/// clock: such a report still decodes, and a batch written then resumes, but not under another clock.
@Suite struct OptionsWithoutAClockTests {
    static let recordedBefore: String = {
        var real = MeasureOptions()
        real.clock = .real
        let json = String(decoding: try! JSONEncoder().encode(real), as: UTF8.self)
        return json.replacingOccurrences(of: #","clock":"real""#, with: "").replacingOccurrences(of: #""clock":"real","#, with: "")
    }()

    @Test func theyDecodeAsTheRealClock() throws {
        #expect(!Self.recordedBefore.contains("clock"))
        let options = try JSONDecoder().decode(MeasureOptions.self, from: Data(Self.recordedBefore.utf8))
        var real = MeasureOptions()
        real.clock = .real
        #expect(options == real && options.clock == .real)
        var virtual = MeasureOptions()
        virtual.clock = .virtual
        let again = try JSONDecoder().decode(MeasureOptions.self, from: JSONEncoder().encode(virtual))
        #expect(again.clock == .virtual)
    }

    @Test func aBatchWrittenThenResumesOnTheRealClockOnly() {
        let list = PageList(entries: [.init(index: 0, page: "https://a.example/1")])
        let recorded = [ResumeCheck.Recorded(index: 0, url: "https://a.example/1", options: Self.recordedBefore)]
        var real = MeasureOptions()
        real.clock = .real
        #expect(ResumeCheck.mismatch(recorded, list: list, options: real) == nil)
        var virtual = MeasureOptions()
        virtual.clock = .virtual
        let message = ResumeCheck.mismatch(recorded, list: list, options: virtual)
        #expect(message?.contains("clock \"real\"") == true && message?.contains("\"virtual\"") == true, "\(message ?? "nil")")
    }
}
