// TEMPORARY: stands in for the page side of the virtual clock until it is merged.
struct PageClock: Decodable, Sendable {
    var now: Double
    var offset: Double
    var next: Double?
}

extension ProbeReading {
    static func decodeClock(_ json: String) -> PageClock? { nil }
}

extension ProbeScript {
    static let clockCall = "null"
    static func advanceByCall(ms: Double) -> String { "null" }
}

extension PageView {
    func setClock(virtual: Bool) {}
}
