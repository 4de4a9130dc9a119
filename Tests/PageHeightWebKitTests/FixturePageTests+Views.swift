// FixturePageTests+Views.swift - the views and web processes behind the fixtures: a view reused
// between pages keeps nothing of the page before, a large web process is replaced, garbage is
// collected as it goes, the graphics driver stays out, and idle library pages are given back.

import Foundation
@testable import PageHeightBatch
@testable import PageHeightCore
@testable import PageHeightWebKit
@testable import pageheight
import Testing

extension FixturePageTests {
    /// A page measures the same whichever pages came before it in its view: what one page
    /// stored (a cookie, local and session storage, a database) is gone before the next page.
    @Test func aPageFindsNothingAnEarlierPageStored() async throws {
        let engine = try PageHeightEngine.shared()
        let options = try CommandLineArguments.parse(["x"]).options
        let pages = FixtureCase.pagesDirectory
        for round in 1...3 {
            let leaves = await engine.measure(.file(pages.appendingPathComponent("leaves-traces.html").path), options: options)
            #expect(leaves.status == .ok && leaves.height == 300, "round \(round): leaves-traces gave \(leaves.height ?? -1)")
            let finds = await engine.measure(.file(pages.appendingPathComponent("finds-traces.html").path), options: options)
            #expect(finds.status == .ok && finds.height == 100,
                    "round \(round): finds-traces found traces: \(finds.height ?? -1) px")
        }
    }

    /// Pages measured one after another share a view (and its web process): each comes back
    /// blank to the pool after its page. After `maxUses` pages the view stays and its web
    /// process is replaced: one process of ours ends, a new one measures the next page.
    @Test func consecutivePagesReuseTheView() async throws {
        let engine = try PageHeightEngine.shared()
        let options = try CommandLineArguments.parse(["--font-size", "17", "x"]).options // a pool key of its own
        let page = FixtureCase.pagesDirectory.appendingPathComponent("static.html").path
        var before: Set<Int32> = []
        for round in 0...ViewPool.maxUses {
            if round == ViewPool.maxUses - 1 { before = Set(WebProcesses.ofThisProcess()) }
            let lines = LockedLines()
            let report = await engine.measure(.file(page), options: options, log: { lines.append($0) })
            #expect(report.status == .ok && report.height == 1234, "round \(round)")
            let loading = lines.all.first { $0.contains("loading ") } ?? ""
            let expected = round == 0 ? "in a new view"
                : round == ViewPool.maxUses ? "in a reused view with a new web process"
                : "in a view reused after \(round) page"
            #expect(loading.contains(expected), "round \(round): \(loading)")
        }
        let after = Set(WebProcesses.ofThisProcess())
        #expect(!before.subtracting(after).isEmpty, "no web process ended: \(before) → \(after)")
        #expect(!after.subtracting(before).isEmpty, "no new web process: \(before) → \(after)")
    }

    /// A page measured in a batch, whose views are made ready for the next page while a page is
    /// measured, gives the report it gives alone in a new view: the fixture pages of the default
    /// options and a page that reads `history.length`, in list order with two jobs and in
    /// reverse order with one.
    @Test func aBatchGivesEachPageItsReportAlone() async throws {
        let engine = try PageHeightEngine.shared()
        let options = try CommandLineArguments.parse(["x"]).options
        let pages = try Self.cases.filter { $0.arguments.isEmpty }.map { fixture in
            fixture.servedOverHTTP ? try #require(Self.server).url(for: fixture.pageName).absoluteString : fixture.page.path
        } + [FixtureCase.pagesDirectory.appendingPathComponent("hostile/reads-history.html").path] // its history is a fresh view's
        var alone: [String: PageReport] = [:]
        for page in Set(pages) {
            let source: PageSource = page.hasPrefix("http") ? .url(page) : .file(page)
            let report = await engine.measure(source, options: options, freshView: true)
            // Pages that wait seconds in real time (a font that never answers) add nothing here.
            if (report.timings.realTotal ?? report.timings.total) < 3 { alone[page] = report }
        }
        #expect(alone.count >= 30)
        #expect(alone[pages.last!]?.height == 510, "reads-history alone: \(alone[pages.last!]?.height ?? -1)")
        for (order, jobs) in [(alone.keys.sorted(), 2), (alone.keys.sorted().reversed(), 1)] {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("batch-\(UUID().uuidString).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let runner = BatchRunner(engine: engine, options: options, jobs: jobs, retries: 0)
            let results = BatchResults(log: try ResultLog(path: path, resume: false), total: order.count, progress: nil,
                                       writeFailed: { error, _ in fatalError("\(error)") })
            let summary = await runner.run(order.enumerated().map { PageList.Entry(index: $0.offset, page: $0.element) },
                                           into: results)
            #expect(summary.total == order.count)
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == order.count)
            for line in lines {
                let report = try JSONDecoder().decode(PageReport.self, from: Data(line.utf8))
                let page = order[try #require(report.index)]
                let single = try #require(alone[page])
                let context = "\(URL(fileURLWithPath: page).lastPathComponent), \(jobs) job(s)"
                #expect(report.status == single.status && report.height == single.height, "\(context): \(report.height ?? -1) alone \(single.height ?? -1)")
                #expect(report.strategies.once.height == single.strategies.once.height
                        && report.strategies.schedule.height == single.strategies.schedule.height
                        && report.strategies.observe.height == single.strategies.observe.height, "\(context): strategies")
                #expect(report.quirksMode == single.quirksMode && report.failedResources == single.failedResources, "\(context)")
            }
        }
    }

    /// A page that leaves its web process large has it replaced before the view's next page,
    /// however few pages the view measured (`ViewPool.maxPrivateMemory`).
    @Test func aPageThatLeavesItsWebProcessLargeHasItReplaced() async throws {
        let engine = try PageHeightEngine.shared()
        let options = try CommandLineArguments.parse(["--font-size", "18", "x"]).options // a pool key of its own
        let pages = FixtureCase.pagesDirectory
        let large = await engine.measure(.file(pages.appendingPathComponent("holds-memory.html").path), options: options)
        #expect(large.status == .ok && large.height == 600, "holds-memory gave \(large.height ?? -1)")
        let lines = LockedLines()
        let next = await engine.measure(.file(pages.appendingPathComponent("static.html").path), options: options,
                                        log: { lines.append($0) })
        #expect(next.status == .ok && next.height == 1234)
        let loading = lines.all.first { $0.contains("loading ") } ?? ""
        #expect(loading.contains("in a reused view with a new web process"), "\(loading)")
    }

    /// The same while another view measures: the pool knows each view's own web process, so
    /// the large one is replaced when its own view comes back. Judged by the largest of our web
    /// processes, the other view, back later and alone, renewed its own small one instead.
    @Test func theLargeWebProcessIsFoundWhileAnotherViewMeasures() async throws {
        let engine = try PageHeightEngine.shared()
        // A pool key of its own; the real clock, on which grow-2.5 is still measuring when
        // holds-memory's view comes back.
        let options = try CommandLineArguments.parse(["--font-size", "19", "--clock", "real", "x"]).options
        let pages = FixtureCase.pagesDirectory
        func large() -> Set<Int32> {
            Set(WebProcesses.ofThisProcess().filter { (WebProcesses.privateMemory($0) ?? 0) >= ViewPool.maxPrivateMemory })
        }
        let before = large()
        async let slow = engine.measure(.file(pages.appendingPathComponent("grow-2.5.html").path), options: options)
        let held = await engine.measure(.file(pages.appendingPathComponent("holds-memory.html").path), options: options)
        #expect(held.status == .ok && held.height == 600, "holds-memory gave \(held.height ?? -1)")
        #expect(await slow.height == 1300) // still measuring when holds-memory's view came back
        #expect(large().isSubset(of: before), "a web process left large is still there: \(large()) (before: \(before))")
        let lines = LockedLines()
        async let first = engine.measure(.file(pages.appendingPathComponent("static.html").path), options: options,
                                         log: { lines.append($0) })
        let second = await engine.measure(.file(pages.appendingPathComponent("static.html").path), options: options,
                                          log: { lines.append($0) })
        #expect(await first.height == 1234 && second.height == 1234)
        let loading = lines.all.filter { $0.contains("loading ") }
        #expect(loading.count == 2 && loading.filter { $0.contains("with a new web process") }.count == 1, "\(loading)")
    }

    /// A page that never stops making garbage has it collected as it goes
    /// (`EngineRuntime.garbageBudget`): the web process measuring `error-loop.html` for 3 s
    /// held 52-54 MB of private memory at most, in three runs. With JavaScriptCore's own budget
    /// (`JSC_gcMaxHeapSize=0`) it held 118 MB, and this test fails.
    @Test func anErrorLoopsGarbageIsCollectedAsItGoes() async throws {
        let engine = try PageHeightEngine.shared()
        let options = try CommandLineArguments.parse(["--font-size", "21", "--quiet", "2.5", "x"]).options // a new view
        let page = FixtureCase.pagesDirectory.appendingPathComponent("error-loop.html").path
        let before = Set(WebProcesses.ofThisProcess())
        let largest = LockedMaximum()
        let watcher = Task {
            while !Task.isCancelled {
                for pid in WebProcesses.ofThisProcess() where !before.contains(pid) {
                    largest.record(WebProcesses.privateMemory(pid) ?? 0)
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        let report = await engine.measure(.file(page), options: options)
        watcher.cancel()
        #expect(report.status == .ok && report.height == 1234, "error-loop gave \(report.height ?? -1)")
        #expect(report.timings.total > 2.5, "the loop ran only \(report.timings.total) s")
        #expect(largest.value > 0, "no new web process measured the page")
        #expect(largest.value < 85 << 20,
                "the web process grew to \(largest.value >> 20) MB of private memory")
    }

    /// Pages are drawn in software, so no process of ours loads Mesa's EGL driver (and its LLVM):
    /// this process, WebKit's UI process, opens an EGL without a driver, and the web processes
    /// open ours (`DriverlessEGL`), which has none either; the page still measures as usual.
    @Test func noProcessOfOursLoadsTheGraphicsDriver() async throws {
        let options = try CommandLineArguments.parse(["x"]).options
        let page = FixtureCase.pagesDirectory.appendingPathComponent("static.html").path
        let report = try await PageHeightEngine.shared().measure(.file(page), options: options)
        #expect(report.status == .ok && report.height == 1234)
        /// The files a process maps (their names).
        func libraries(_ pid: Int32) -> Set<String> {
            Set(PageOut.fileMappings(inMaps: WebProcesses.read("/proc/\(pid)/maps") ?? "") { _, _ in true }
                .map { ($0.file as NSString).lastPathComponent })
        }
        func driver(_ pid: Int32) -> [String] {
            libraries(pid).filter { $0.hasPrefix("libLLVM") || $0.hasPrefix("libgallium") || $0.hasSuffix("_dri.so") }.sorted()
        }
        #expect(driver(getpid()).isEmpty, "the UI process loaded Mesa's driver: \(driver(getpid()))")
        let webProcesses = WebProcesses.ofThisProcess()
        #expect(!webProcesses.isEmpty, "no web process of ours")
        for pid in webProcesses {
            #expect(driver(pid).isEmpty, "web process \(pid) loaded Mesa's driver: \(driver(pid))")
            #expect(libraries(pid).contains(DriverlessEGL.libraryName), "web process \(pid) has not opened our EGL")
        }
    }

    /// The engine's thread, which hears the pages' events and takes their settle readings, runs
    /// ahead of the web processes for a core (nice -10); the processes it starts do not inherit
    /// that: web processes, network process and Xvfb run at nice 0.
    @Test(.enabled(if: geteuid() == 0, "a negative nice value needs CAP_SYS_NICE"))
    func theEngineThreadGoesFirstItsProcessesDoNot() async throws {
        let options = try CommandLineArguments.parse(["x"]).options
        let page = FixtureCase.pagesDirectory.appendingPathComponent("static.html").path
        let report = try await PageHeightEngine.shared().measure(.file(page), options: options)
        #expect(report.status == .ok && report.height == 1234)
        /// The nice value of a thread or process (field 19 of its `stat`).
        func nice(_ statPath: String) -> Int? {
            guard let fields = WebProcesses.stat(statPath)?.fields, fields.count > 16 else { return nil }
            return Int(fields[16])
        }
        let engineThread = try PageHeightEngine.shared().threadID
        #expect(WebProcesses.read("/proc/self/task/\(engineThread)/comm") == "pageheight-glib\n")
        #expect(nice("/proc/self/task/\(engineThread)/stat") == -10)
        let children = WebProcesses.descendants()
        #expect(children.contains { $0.name.hasPrefix("WebKitWebProces") }, "no web process: \(children)")
        for child in children {
            #expect(nice("/proc/\(child.pid)/stat") == 0, "\(child.name) (\(child.pid)) runs at nice \(nice("/proc/\(child.pid)/stat") ?? 99)")
        }
    }

    /// After a page, the library code and constants that this process ran once are paged out
    /// of it (`IdleLibraryPages`, after a page, at most once in its `interval`), and the next page,
    /// which reads back what it runs, measures as before. The kernel allows it with CAP_SYS_NICE.
    @Test(.enabled(if: geteuid() == 0, "process_madvise(MADV_PAGEOUT) needs CAP_SYS_NICE"))
    func idleLibraryPagesAreGivenBack() async throws {
        let options = try CommandLineArguments.parse(["x"]).options
        let page = FixtureCase.pagesDirectory.appendingPathComponent("static.html").path
        // This test executable's code and constants, read through so that all of it is resident:
        // only this process maps it.
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let mappings = IdleLibraryPages.readOnlyMappings(inMaps: WebProcesses.read("/proc/self/maps") ?? "")
            .filter { $0.file == executable }
        #expect(!mappings.isEmpty, "no read-only mapping of \(executable)")
        // An earlier test's page gives its pages back at its end: that round must be past before
        // this one reads the executable through, or it pages out what was just read.
        try await Task.sleep(nanoseconds: UInt64((IdleLibraryPages.interval + 0.1) * 1e9))
        var sum: UInt8 = 0
        for mapping in mappings {
            for address in stride(from: mapping.addresses.lowerBound, to: mapping.addresses.upperBound, by: 4096) {
                sum &+= UnsafePointer<UInt8>(bitPattern: address)!.pointee
            }
        }
        let before = residentKB(of: getpid(), in: mappings.map(\.addresses))
        #expect(before >= mappings.map(\.addresses.count).reduce(0, +) / 1024 * 9 / 10, "read through, \(sum)")
        var report = try await PageHeightEngine.shared().measure(.file(page), options: options)
        #expect(report.status == .ok && report.height == 1234)
        var after = residentKB(of: getpid(), in: mappings.map(\.addresses))
        for _ in 0..<30 where after > before / 4 {
            try await Task.sleep(nanoseconds: 100_000_000)
            after = residentKB(of: getpid(), in: mappings.map(\.addresses))
        }
        #expect(after <= before / 4, "\(executable): \(before) KB resident before the page, \(after) KB after")
        report = try await PageHeightEngine.shared().measure(.file(page), options: options)
        #expect(report.status == .ok && report.height == 1234)
    }

    /// One call pages out every range it is given, past the 64 that the shim hands the kernel at
    /// a time: 80 one-page mappings of a file only this process maps, each read, are all out of
    /// this process's memory afterwards. The kernel allows it with CAP_SYS_NICE.
    @Test(.enabled(if: geteuid() == 0, "process_madvise(MADV_PAGEOUT) needs CAP_SYS_NICE"))
    func pageOutTakesAnyNumberOfRanges() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-pageout-\(getpid())").path
        let page = Int(getpagesize())
        try Data(repeating: 7, count: 80 * page).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        fsync(fd) // clean pages: a dirty one would have to be written first
        var mappings: [PageOut.Mapping] = []
        var sum = 0
        for index in 0..<80 {
            // Each mapping below the one before at a higher offset: the kernel cannot merge them.
            let address = try #require(mmap(nil, page, PROT_READ, MAP_PRIVATE, fd, off_t(index * page)))
            #expect(address != MAP_FAILED)
            sum += Int(address.load(as: UInt8.self))
            let start = UInt(bitPattern: address)
            mappings.append(.init(addresses: start..<start + UInt(page), file: path, offset: UInt(index * page)))
        }
        defer { mappings.forEach { munmap(UnsafeMutableRawPointer(bitPattern: $0.addresses.lowerBound), page) } }
        #expect(residentKB(of: getpid(), in: mappings.map(\.addresses)) == 80 * page / 1024, "read: \(sum)")
        #expect(PageOut.pageOut(getpid(), mappings) == .done)
        #expect(residentKB(of: getpid(), in: mappings.prefix(64).map(\.addresses)) == 0)
        #expect(residentKB(of: getpid(), in: mappings.dropFirst(64).map(\.addresses)) == 0)
    }

    /// The resident KB of process `pid` in the mappings that start where `ranges` start.
    private func residentKB(of pid: Int32, in ranges: [Range<UInt>]) -> Int {
        let starts = Set(ranges.map { String($0.lowerBound, radix: 16) })
        var resident = 0
        var inside = false
        for line in (WebProcesses.read("/proc/\(pid)/smaps") ?? "").split(separator: "\n") {
            let head = line.prefix(while: { $0 != " " }).split(separator: "-")
            if head.count == 2, head.allSatisfy({ UInt($0, radix: 16) != nil }) {
                inside = starts.contains(String(head[0]))
            } else if inside, line.hasPrefix("Rss:") {
                resident += Int(line.split(separator: " ")[1]) ?? 0
            }
        }
        return resident
    }

}
