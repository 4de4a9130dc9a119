/// Decimal numbers for tables: at most three places, no trailing zeros (`0.1`, `2`, `1.25`).
public enum DecimalText {
    public static func format(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return "\(Int(rounded))" }
        return "\(rounded)"
    }
}
