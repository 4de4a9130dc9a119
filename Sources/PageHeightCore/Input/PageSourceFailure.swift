/// Why a suite page or a batch entry cannot become a `PageSource` (a missing file, a bad template).
public struct PageSourceFailure: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
