import Foundation

/// The secret a client must send as `Authorization: Bearer <token>` (`--token-file`), compared in
/// constant time: how long a refusal takes says nothing about how much of the token was right.
public struct BearerToken: Sendable {
    private let secret: [UInt8]

    /// Shorter tokens are refused: they can be guessed.
    public static let minimumLength = 16

    /// The token of the file at `path`: its text without surrounding white space.
    public static func load(_ path: String) throws(TokenError) -> BearerToken {
        guard let data = FileManager.default.contents(atPath: path) else { throw TokenError("cannot read \(path)") }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count >= minimumLength else {
            throw TokenError("the token in \(path) has \(text.utf8.count) bytes; at least \(minimumLength) are needed")
        }
        guard !text.contains(where: { $0.isWhitespace || !$0.isASCII }) else {
            throw TokenError("the token in \(path) must be one word of ASCII characters")
        }
        return BearerToken(text)
    }

    public init(_ text: String) { secret = Array(text.utf8) }

    /// Whether `authorization` (the header field's value) is `Bearer <this token>`.
    public func accepts(_ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let given = Array(authorization.utf8)
        let scheme = Array("bearer ".utf8)
        guard given.count > scheme.count,
              zip(given.prefix(scheme.count), scheme).allSatisfy({ ($0 | 0x20) == $1 }) else { return false }
        let token = given.dropFirst(scheme.count)
        // Every byte is looked at whatever differs, and the lengths are compared the same way.
        var difference = token.count ^ secret.count
        for index in 0..<secret.count {
            let byte = index < token.count ? token[token.startIndex + index] : 0
            difference |= Int(byte ^ secret[index])
        }
        return difference == 0
    }
}

/// Why the token file cannot be used.
public struct TokenError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
