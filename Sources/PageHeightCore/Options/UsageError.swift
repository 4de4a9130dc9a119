/// A mistake in the command line: printed as `Error: …`, the usage line and a hint; exit 64.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
