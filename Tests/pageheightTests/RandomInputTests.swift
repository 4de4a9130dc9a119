import Foundation
import PageHeightTestSupport
import Testing

/// Seeded random inputs to the built binary: 200 random byte strings as pages in one batch, and
/// 200 random argument vectors that are all usage errors. Nothing may crash or hang; every page
/// gets a status; every bad command line exits 64 with "Error: ...".
///
/// The binary is `PageHeightBinary.url` (PAGEHEIGHT_BINARY when set). The seed is in every
/// failure message; `PAGEHEIGHT_SEED` replays another one.
@Suite(.serialized)
struct RandomInputTests {
    static let seed: UInt64 = ProcessInfo.processInfo.environment["PAGEHEIGHT_SEED"].flatMap { UInt64($0) }
        ?? 0x5EED_2024_0611
    // MARK: - Random pages

    @Test func twoHundredRandomByteStringsAsPagesInOneBatch() throws {
        var random = SplitMix64(seed: Self.seed)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageheight-random-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var entries: [String] = []
        for index in 0..<200 {
            let name = String(format: "page-%03d", index) + Self.randomExtension(&random)
            let path = directory.appendingPathComponent(name).path
            try Self.randomPage(&random).write(to: URL(fileURLWithPath: path))
            entries.append(path)
        }
        let list = directory.appendingPathComponent("list.txt").path
        let out = directory.appendingPathComponent("out.jsonl").path
        try entries.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)

        let started = Date()
        let run = try PageHeightBinary.run(["batch", "--jobs", "4", "--offline", "--timeout", "5", "--no-progress", "--out", out, list],
                               within: 240)
        print("random pages (seed \(Self.seed)): wall " + String(format: "%.1f", Date().timeIntervalSince(started))
            + " s; \(run.stderr.split(separator: "\n").first ?? "")")
        #expect(!run.timedOut, "seed \(Self.seed): the batch hung (killed after 240 s)")
        #expect(run.signal == nil, "seed \(Self.seed): the batch died of signal \(run.signal ?? 0)")
        #expect(run.status == 0 || run.status == 1, "seed \(Self.seed): exit \(run.status): \(run.stderr.suffix(400))")

        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == entries.count, "seed \(Self.seed): \(lines.count) lines for \(entries.count) entries")
        let statuses: Set<String> = ["ok", "unstable", "runaway", "fallback", "load-error", "timeout", "crashed"]
        var seen: [Int: Int] = [:]
        var counts: [String: Int] = [:]
        for line in lines {
            let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                                      "seed \(Self.seed): not a JSON object: \(line.prefix(200))")
            let index = try #require(report["index"] as? Int, "seed \(Self.seed): no index")
            let status = report["status"] as? String ?? "none"
            seen[index, default: 0] += 1
            counts[status, default: 0] += 1
            #expect(statuses.contains(status), "seed \(Self.seed): entry \(index) has status \(status)")
            if status != "ok" {
                #expect(!(report["message"] as? String ?? "").isEmpty, "seed \(Self.seed): entry \(index) \(status) without a message")
            }
        }
        print("random pages (seed \(Self.seed)): \(counts.sorted { $0.key < $1.key })")
        #expect(Set(seen.keys) == Set(0..<entries.count) && seen.values.allSatisfy { $0 == 1 },
                "seed \(Self.seed): every entry exactly once; missing \(Set(0..<entries.count).subtracting(seen.keys).sorted())")
    }

    static func randomExtension(_ random: inout SplitMix64) -> String {
        let roll = random.next(below: 20)
        switch roll {
        case 0: return ".txt"
        case 1: return ".bin"
        case 2: return ""
        case 3: return ".htm"
        case 4: return ".png"
        default: return ".html"
        }
    }

    /// Random bytes, sometimes mixed with fragments of markup (so the parser sees tags, attributes,
    /// scripts and entities cut in random places), sometimes empty.
    static func randomPage(_ random: inout SplitMix64) -> Data {
        let fragments = ["<!DOCTYPE html>", "<html>", "<body style=\"margin:0\">", "<div style=\"height:", "px\">", "</div>",
                         "<script>", "</script>", "<style>", "</style>", "<iframe src=\"", "<img src=\"", "\">",
                         "<meta http-equiv=\"refresh\" content=\"0\">", "<meta charset=\"", "<svg>", "<math>",
                         "<table><tr><td>", "&#x", "&amp", "<!--", "-->", "<![CDATA[", "document.write(", "\u{FEFF}",
                         "\u{0}", "\r\n", "<p>", "height:100000px", "position:absolute;top:", "<template>", "<noscript>"]
        var bytes: [UInt8] = []
        let length = random.next(below: 12) == 0 ? 0 : Int(random.next(below: 4096))
        let markup = random.next(below: 2) == 0
        while bytes.count < length {
            if markup && random.next(below: 3) == 0 {
                bytes += Array(fragments[Int(random.next(below: UInt64(fragments.count)))].utf8)
            } else {
                let run = Int(random.next(below: 32)) + 1
                for _ in 0..<run { bytes.append(UInt8(truncatingIfNeeded: random.next())) }
            }
        }
        return Data(bytes.prefix(max(length, 0)))
    }

    // MARK: - Random command lines

    /// Every vector holds at least one sure usage error (an unknown option, a bad or missing
    /// value, a value for a flag, a batch option without batch, a page that does not exist, a
    /// scheme that is not supported), among valid options and junk. No --help or --version: they
    /// would win over a page error.
    @Test func twoHundredRandomArgumentVectorsAreUsageErrors() throws {
        var random = SplitMix64(seed: Self.seed ^ 0xA5A5_A5A5)
        var failures = 0
        let started = Date()
        for number in 0..<200 {
            let arguments = Self.randomArguments(&random)
            let run = try PageHeightBinary.run(arguments, within: 20)
            let shown = arguments.map { $0.count > 60 ? String($0.prefix(60)) + "…" : $0 }
            let firstLine = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let good = !run.timedOut && run.signal == nil && run.status == 64 && firstLine.hasPrefix("Error: ")
                && run.stdout.isEmpty
            #expect(!run.timedOut, "seed \(Self.seed) vector \(number) \(shown): hung (killed after 20 s)")
            #expect(run.signal == nil, "seed \(Self.seed) vector \(number) \(shown): signal \(run.signal ?? 0)")
            #expect(run.status == 64, "seed \(Self.seed) vector \(number) \(shown): exit \(run.status): \(run.stderr.prefix(300))")
            #expect(firstLine.hasPrefix("Error: "), "seed \(Self.seed) vector \(number) \(shown): stderr \(run.stderr.prefix(300))")
            #expect(run.stdout.isEmpty, "seed \(Self.seed) vector \(number) \(shown): stdout \(run.stdout.prefix(200))")
            if !good {
                failures += 1
                if failures >= 10 { break }
            }
        }
        print("random arguments (seed \(Self.seed)): 200 vectors in " + String(format: "%.1f", Date().timeIntervalSince(started)) + " s")
    }

    static let valueOptions = ["--width", "--height", "--font-size", "--zoom", "--metric", "--until", "--quiet", "--timeout",
                               "--threshold", "--schedule", "--header", "--footer", "--snapshot"]
    static let flags = ["--fit", "--no-fit", "--no-javascript", "--offline", "--json", "--verbose", "-v"]
    static let batchOptions = ["--jobs", "-j", "--out", "-o", "--retries", "--shard"]
    static let batchFlags = ["--resume", "--no-progress"]

    static func randomArguments(_ random: inout SplitMix64) -> [String] {
        let batch = random.next(below: 3) == 0
        var arguments: [String] = []
        // Valid pieces and junk, in random number.
        for _ in 0..<random.next(below: 6) {
            switch random.next(below: 6) {
            case 0: arguments.append(flags.randomElement(using: &random))
            case 1:
                let name = valueOptions.randomElement(using: &random)
                if name != "--snapshot" { arguments += [name, validValue(for: name, &random)] }
            case 2: if batch { arguments += ["--jobs", String(random.next(below: 8) + 1)] }
            case 3: arguments.append(junk(&random))
            case 4: if random.next(below: 4) == 0 { arguments.append("--") }
            default: arguments.append(randomValue(&random))
            }
        }
        // At least one sure error, inserted anywhere.
        for _ in 0...random.next(below: 2) {
            let error = sureError(batch: batch, &random)
            let position = Int(random.next(below: UInt64(arguments.count + 1)))
            arguments.insert(contentsOf: error, at: position)
        }
        return batch ? ["batch"] + arguments : arguments
    }

    static func sureError(batch: Bool, _ random: inout SplitMix64) -> [String] {
        switch random.next(below: batch ? 9 : 10) {
        case 0: return ["--" + letters(&random, 3...12) + "-x"]  // unknown option
        case 1:
            let name = ["--width", "--height", "--font-size"].randomElement(using: &random)
            return [name, ["abc", "1.5", "", "0x10", "1e3", " 7", junk(&random) + "z"].randomElement(using: &random)]
        case 2:
            let name = ["--zoom", "--quiet", "--timeout", "--threshold", "--header", "--footer"].randomElement(using: &random)
            return ["\(name)=" + ["nan", "inf", "-inf", "one", "", "1,5", "--"].randomElement(using: &random)]
        case 3: return ["--metric", ["height", "BODY-SCROLL", "", letters(&random, 1...10)].randomElement(using: &random)]
        case 4: return ["--until", ["never", "", "Settled", letters(&random, 1...8)].randomElement(using: &random)]
        case 5: return ["--schedule", ["0", "-1", "a,b", "0.1,,0.2", "", "1;2"].randomElement(using: &random)]
        case 6: return [flags.randomElement(using: &random) + "=" + randomValue(&random)]  // a value for a flag
        case 7: return ["/nonexistent-\(random.next())/" + letters(&random, 1...20) + ".html"]
        case 8: return [["gopher://example.invalid/", "javascript:void(0)", "ftp://x/y", "mailto:a@b", "http://"]
            .randomElement(using: &random)]
        default: return [(batchOptions + batchFlags).randomElement(using: &random)]  // without batch
        }
    }

    static func validValue(for name: String, _ random: inout SplitMix64) -> String {
        switch name {
        case "--metric": ["body-scroll", "max", "lowest-element"].randomElement(using: &random)
        case "--until": ["quiet", "settled", "schedule"].randomElement(using: &random)
        case "--schedule": "0.1,0.2"
        case "--zoom": "1.5"
        default: String(random.next(below: 500) + 1)
        }
    }

    static func randomValue(_ random: inout SplitMix64) -> String {
        switch random.next(below: 6) {
        case 0: return String(Int64(bitPattern: random.next()) % 1_000_000)
        case 1: return String(Double(Int64(bitPattern: random.next()) % 100_000) / 7)
        case 2: return letters(&random, 0...16)
        case 3: return ["-", "--", "=", "nan", "1e309", "0", "-0", ""].randomElement(using: &random)
        default: return junk(&random)
        }
    }

    /// Random printable and non-ASCII characters (no NUL: it cannot be in an argument).
    static func junk(_ random: inout SplitMix64) -> String {
        var text = ""
        for _ in 0..<random.next(below: 24) {
            let pick = random.next(below: 10)
            let scalar: UInt32 = pick < 6 ? UInt32(random.next(below: 94) + 33)
                : pick < 8 ? UInt32(random.next(below: 0x700) + 0xA0) : UInt32(random.next(below: 0x1F000) + 0x1000)
            if let value = Unicode.Scalar(scalar) { text.unicodeScalars.append(value) }
        }
        return text
    }

    static func letters(_ random: inout SplitMix64, _ count: ClosedRange<Int>) -> String {
        let length = count.lowerBound + Int(random.next(below: UInt64(count.count)))
        return String((0..<length).map { _ in Character(Unicode.Scalar(UInt8(97 + random.next(below: 26)))) })
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a small, fast, deterministic generator.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in 0..<bound (bound > 0).
    mutating func next(below bound: UInt64) -> UInt64 {
        bound <= 1 ? 0 : next() % bound
    }
}

extension Array {
    func randomElement(using random: inout SplitMix64) -> Element {
        self[Int(random.next(below: UInt64(count)))]
    }
}
