import Foundation

/// A JSON value as a suite file holds it, decoded with `Codable`: each key's value is checked by
/// the code that knows what it means (`SuiteValue`, the option table), which words the problem.
public enum JSONValue: Decodable, Sendable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public var string: String? { if case .string(let text) = self { text } else { nil } }
    public var number: Double? { if case .number(let number) = self { number } else { nil } }
    public var bool: Bool? { if case .bool(let bool) = self { bool } else { nil } }
    public var array: [JSONValue]? { if case .array(let array) = self { array } else { nil } }
    public var object: [String: JSONValue]? { if case .object(let object) = self { object } else { nil } }

    /// As JSON text, for messages: `"fast"`, `12`, `[1,2]`.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let bool): "\(bool)"
        case .number(let number): DecimalText.format(number)
        case .string(let text): "\"\(text)\""
        case .array(let array): "[" + array.map(\.description).joined(separator: ",") + "]"
        case .object(let object): "{" + object.keys.sorted().map { "\"\($0)\":\(object[$0]!)" }.joined(separator: ",") + "}"
        }
    }
}
