import Foundation
import PageHeightCore
import PageHeightWebKit

/// A snapshot as the HTML report shows it: a JPEG thumbnail inlined, its full size, and, for a
/// failed case, a link to the full-size PNG.
public struct ReportPicture: Sendable, Equatable {
    /// The full-size snapshot's pixel size.
    public var size: PNGSize
    public var thumbnail: SnapshotPictures.Thumbnail?
    /// The full-size PNG's path relative to the report's directory.
    public var link: String?
    /// The thumbnail's file relative to the report's directory, when the report links its
    /// thumbnails instead of inlining them (`HTMLReport.linkingThumbnails`).
    public var thumbnailFile: String?

    public init(size: PNGSize, thumbnail: SnapshotPictures.Thumbnail?, link: String? = nil) {
        (self.size, self.thumbnail, self.link) = (size, thumbnail, link)
    }
}

/// What the report knows of the pixels that changed between the two snapshots.
public enum ChangedPixels: Sendable, Equatable {
    case notCompared
    case none
    case region(SnapshotPictures.Region)
}

extension HTMLReport.Entry {
    /// The widest thumbnail of a case, px. A failed case's is as large as the report can
    /// afford: 360 px (headings readable) while there are at most 20 failures, then shrinking so
    /// that the failures' thumbnails together stay about the same size, down to 100 px (the
    /// layout and where it changed; the full-size PNGs are linked). A passed case's (`--all`)
    /// shows only the page's shape. A report of hundreds of cases stays small enough to mail
    /// (its size: BENCHMARKS.md).
    public static func thumbnailWidth(passed: Bool, failedCases: Int) -> Double {
        passed ? 80 : min(360, max(100, 360 * (20 / Double(max(failedCases, 1))).squareRoot()))
    }

    static let thumbnailQuality = 50

    /// An entry whose snapshots are read from `baselinePNG` and `currentPNG`: compared at full
    /// resolution, thumbnails made at one scale for both (at most `thumbnailWidth` px wide); a
    /// failed case links its full-size PNGs: the baseline's where it is, relative to
    /// `reportDirectory`, the current one copied to `fullSize/` under it.
    public init(comparison: CaseComparison, samples: [HeightSample], baselineSamples: [HeightSample]?,
                baselinePNG: String?, currentPNG: String?, currentSnapshotError: String? = nil, reportDirectory: String?,
                thumbnailWidth: Double) {
        // Each file decoded once: the comparison and the thumbnail use the same pixels.
        let images = [baselinePNG, currentPNG].map { path in path.flatMap { path in SnapshotPictures.Image(path: path).map { (path, $0) } } }
        let widest = Double(images.compactMap { $0?.1.width }.max() ?? 1)
        let scale = thumbnailWidth / max(widest, 1)
        let pictures = zip(images, ["baseline", "current"]).map { loaded, role -> ReportPicture? in
            guard let (path, image) = loaded else { return nil }
            var link: String?
            if !comparison.passed, let directory = reportDirectory {
                link = role == "baseline" ? Self.relativePath(path, from: directory) : Self.keepBeside(path, in: directory, as: comparison.testCase.fileStem)
            }
            return ReportPicture(size: PNGSize(width: image.width, height: image.height),
                                 thumbnail: image.thumbnail(scale: scale, quality: Self.thumbnailQuality), link: link)
        }
        var changed = ChangedPixels.notCompared
        var alignment: RowAlignment?
        if let (_, a) = images[0], let (_, b) = images[1] {
            changed = a.changedRegion(b).map(ChangedPixels.region) ?? .none
            if changed != .none { alignment = RowAlignment(baseline: a.rowSignatures(), current: b.rowSignatures()) }
        }
        self.init(comparison: comparison, samples: samples, baselineSamples: baselineSamples,
                  baseline: pictures[0], current: pictures[1], changed: changed, currentSnapshotError: currentSnapshotError)
        self.alignment = alignment
    }

    /// `path` as a link from a file in `directory` (both made absolute).
    static func relativePath(_ path: String, from directory: String) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let base = URL(fileURLWithPath: directory).standardizedFileURL.pathComponents
        let shared = zip(target, base).prefix { $0 == $1 }.count
        return (Array(repeating: "..", count: base.count - shared) + target[shared...]).joined(separator: "/")
    }

    /// The current snapshot (in a scratch directory that goes away) as `fullSize/<stem>.png`
    /// under `directory`: a hard link where the file system allows it, else a copy.
    static func keepBeside(_ path: String, in directory: String, as stem: String) -> String? {
        let name = "fullSize/" + stem + ".current.png", target = directory + "/" + name
        try? FileManager.default.createDirectory(atPath: directory + "/fullSize", withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: target)
        if (try? FileManager.default.linkItem(atPath: path, toPath: target)) != nil { return name }
        return (try? FileManager.default.copyItem(atPath: path, toPath: target)) != nil ? name : nil
    }
}

extension HTMLReport {
    /// The most thumbnail bytes a report inlines: a report within it is one file that can be
    /// mailed; past it, each thumbnail is a file under `thumbnails/` beside `index.html`, so the
    /// page stays small however many cases failed.
    public static let inlineBudget = 2 << 20

    /// `entries` as the report at `directory` shows them: unchanged while their thumbnails
    /// together stay within `budget` bytes, else with each thumbnail written to
    /// `directory/thumbnails/` and linked (a thumbnail that cannot be written stays inlined).
    public static func linkingThumbnails(_ entries: [Entry], in directory: String, budget: Int = inlineBudget) -> [Entry] {
        let total = entries.reduce(0) { sum, entry in
            sum + [entry.baseline, entry.current].reduce(0) { $0 + ($1?.thumbnail?.jpeg.count ?? 0) }
        }
        guard total > budget else { return entries }
        let folder = directory + "/thumbnails"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        func linked(_ picture: ReportPicture?, _ name: String) -> ReportPicture? {
            guard var picture, let jpeg = picture.thumbnail?.jpeg else { return picture }
            if FileManager.default.createFile(atPath: folder + "/" + name, contents: jpeg) { picture.thumbnailFile = "thumbnails/" + name }
            return picture
        }
        return entries.map { entry in
            var entry = entry
            let stem = entry.comparison.testCase.fileStem
            entry.baseline = linked(entry.baseline, stem + ".baseline.jpg")
            entry.current = linked(entry.current, stem + ".current.jpg")
            return entry
        }
    }
}
