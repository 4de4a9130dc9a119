/// The points no other point beats: a point is dominated when another is as low on every
/// objective and lower on one. Lower is better on every objective.
public enum ParetoFront {
    /// The indices of the undominated points, in input order. Every point has the same number
    /// of objectives.
    public static func indices(_ points: [[Double]]) -> [Int] {
        // Sorted by the objectives in order, a point can only be dominated by one before it.
        let order = points.indices.sorted { points[$0].lexicographicallyPrecedes(points[$1]) }
        var front: [Int] = []
        for index in order where !front.contains(where: { dominates(points[$0], points[index]) }) {
            front.append(index)
        }
        return front.sorted()
    }

    public static func dominates(_ a: [Double], _ b: [Double]) -> Bool {
        precondition(a.count == b.count, "points with different numbers of objectives")
        var better = false
        for (x, y) in zip(a, b) {
            if x > y { return false }
            if x < y { better = true }
        }
        return better
    }
}
