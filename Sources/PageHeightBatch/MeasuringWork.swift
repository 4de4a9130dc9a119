import Foundation
import PageHeightCore

/// What an engine process is given to measure, as one JSON document on its standard input: the
/// command's pages still to measure, each with its index, and whether to measure them one at a
/// time.
public struct MeasuringWork: Codable, Sendable, Equatable {
    /// One page of the command, with its index in the command's pages.
    public enum Page: Codable, Sendable, Equatable {
        /// A batch list's entry as written: the engine process reads it as a batch does (a bad
        /// entry is that page's `load-error`).
        case entry(PageList.Entry)
        /// A page argument of a single run, read already (standard input, a template's fragment).
        case source(index: Int, PageSource)

        public var index: Int {
            switch self {
            case .entry(let entry): entry.index
            case .source(let index, _): index
            }
        }
    }

    public var pages: [Page]
    /// One page at a time, the next only once the one before is reported, so that a page is alone
    /// in flight when the process dies (`EngineSupervisor` measures the pages that were in flight
    /// together again so).
    public var alone: Bool

    public init(pages: [Page], alone: Bool) {
        (self.pages, self.alone) = (pages, alone)
    }

    public var data: Data {
        guard let data = try? JSONEncoder().encode(self) else { preconditionFailure("work that does not encode") }
        return data
    }

    public init(data: Data) throws {
        self = try JSONDecoder().decode(MeasuringWork.self, from: data)
    }
}
