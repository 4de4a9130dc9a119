/// The worker pool of every run that measures many pages (a batch, a regression suite):
/// `jobs` tasks, each taking the next item in list order until none is left.
public enum MeasuringJobs {
    /// Calls `work` once for every item, `jobs` at once. With each item comes the one that is
    /// next in the list once every job has an item (nil before: the first items start at once,
    /// with no view to make ready for them), so that a view can be made ready for it meanwhile
    /// (`PageHeightEngine.measure(upcoming:)`). Returns when every call has returned.
    public static func run<Item: Sendable>(_ items: [Item], jobs: Int,
                                           _ work: @escaping @Sendable (Item, _ upcoming: Item?) async -> Void) async {
        let queue = Queue(items, jobs: max(1, jobs))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<min(max(1, jobs), max(items.count, 1)) {
                group.addTask {
                    while let (item, upcoming) = await queue.next() { await work(item, upcoming) }
                }
            }
        }
    }

    private actor Queue<Item: Sendable> {
        private var items: ArraySlice<Item>
        private let jobs: Int
        private var handedOut = 0

        init(_ items: [Item], jobs: Int) {
            self.items = items[...]
            self.jobs = jobs
        }

        func next() -> (Item, upcoming: Item?)? {
            guard let item = items.popFirst() else { return nil }
            handedOut += 1
            return (item, handedOut >= jobs ? items.first : nil)
        }
    }
}
