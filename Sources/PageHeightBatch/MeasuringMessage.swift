import Foundation
import PageHeightCore

/// What an engine process (`EngineProcess`) tells its supervisor, one JSON object a line: that a
/// page started, what it measured, and why it cannot go on.
///
/// A page that started and has no `measured` message yet is in flight: if the process dies by a
/// signal, that page was being measured when it did.
public enum MeasuringMessage: Codable, Sendable, Equatable {
    /// The work item `index` is being measured.
    case started(index: Int)
    /// The work item's result.
    case measured(Measured)
    /// The engine cannot go on (its display went away): the process ends next, and the
    /// supervisor says this, with what was written, and stops.
    case fatal(String)
    /// The process measures no more pages (its own memory grew past `EngineProcess.renewalMemory`):
    /// it ends once the pages it started are measured, and the supervisor starts another for the rest.
    case renewing

    /// A measured page: what the command writes for it, and what its summary counts.
    public struct Measured: Codable, Sendable, Equatable {
        public var index: Int
        public var status: PageStatus
        /// The seconds the page took on the wall clock (`Timings.wallSeconds`).
        public var seconds: Double
        /// Whether the page and each of its steps are ok, and its snapshot was written.
        public var ok: Bool
        /// The text the command writes for the page (a batch's JSON line; a single run's line or
        /// JSON), as it would have written it in one process.
        public var output: String
        /// The page timed out waiting only for requests to the network, none of which answered
        /// (`PendingRequests.suggestsOffline`): the summary counts these.
        public var waitedForNetwork: Bool

        public init(index: Int, status: PageStatus, seconds: Double, ok: Bool, output: String, waitedForNetwork: Bool = false) {
            (self.index, self.status, self.seconds, self.ok, self.output) = (index, status, seconds, ok, output)
            self.waitedForNetwork = waitedForNetwork
        }

        /// The message for `report`, written as `output`.
        public init(index: Int, report: PageReport, ok: Bool, output: String) {
            self.init(index: index, status: report.status, seconds: report.timings.wallSeconds, ok: ok, output: output,
                      waitedForNetwork: report.waitedForNetwork)
        }
    }

    /// The message as its line (without the newline).
    public var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let data = try? encoder.encode(self) else { preconditionFailure("a message that does not encode: \(self)") }
        return String(decoding: data, as: UTF8.self)
    }

    /// The message a line holds; nil for a line that is not one (the supervisor ignores it).
    public init?(line: String) {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let message = try? decoder.decode(MeasuringMessage.self, from: Data(line.utf8)) else { return nil }
        self = message
    }
}
