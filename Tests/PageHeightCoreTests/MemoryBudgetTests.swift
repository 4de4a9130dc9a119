import PageHeightCore
import Testing

/// The whole process tree's memory budget (issue 47.8): how it is derived, and which web process
/// goes when the tree holds more (no WebKit: the tree as numbers).
@Suite struct MemoryBudgetTests {
    let gigabyte = 1 << 30
    let megabyte = 1 << 20

    @Test func theBudgetGrowsWithTheJobsAndStaysWithinTheMachine() {
        let machine = 24 * gigabyte
        #expect(MemoryBudget.derived(machineMemory: machine, jobs: 1).bytes == 3 * gigabyte)
        #expect(MemoryBudget.derived(machineMemory: machine, jobs: 4).bytes == 4 * gigabyte + 512 * megabyte)
        #expect(MemoryBudget.derived(machineMemory: machine, jobs: 64).bytes == 18 * gigabyte) // 3/4 of the machine
        #expect(MemoryBudget.derived(machineMemory: 2 * gigabyte, jobs: 4).bytes == 1536 * megabyte)
        #expect(MemoryBudget.derived(machineMemory: 0, jobs: 0).bytes == 3 * gigabyte) // unknown machine, one job
    }

    @Test func theEnvironmentSetsItForTests() {
        let set = MemoryBudget.chosen(environment: ["PAGEHEIGHT_MEMORY_BUDGET_MB": "700"], machineMemory: 24 * gigabyte, jobs: 4)
        #expect(set == MemoryBudget(bytes: 700 * megabyte, jobs: 4, fromEnvironment: true))
        for bad in ["", "0", "-5", "lots"] {
            #expect(MemoryBudget.chosen(environment: ["PAGEHEIGHT_MEMORY_BUDGET_MB": bad], machineMemory: 24 * gigabyte, jobs: 4)
                == MemoryBudget.derived(machineMemory: 24 * gigabyte, jobs: 4))
        }
    }

    @Test func theLargestWebProcessGoesWhenTheTreeIsOver() {
        let budget = MemoryBudget(bytes: 1000 * megabyte, jobs: 4)
        let tree = [MemoryBudget.Process(pid: 1, bytes: 500 * megabyte, isWebProcess: false), // pageheight itself
                    MemoryBudget.Process(pid: 2, bytes: 100 * megabyte, isWebProcess: true),
                    MemoryBudget.Process(pid: 3, bytes: 300 * megabyte, isWebProcess: true)]
        #expect(budget.decide(tree) == .within) // 900 MB
        let over = tree + [MemoryBudget.Process(pid: 4, bytes: 200 * megabyte, isWebProcess: true)]
        #expect(budget.decide(over) == .stop(pid: 3, treeBytes: 1100 * megabyte, processBytes: 300 * megabyte))
        // Being stopped: neither counted nor chosen again.
        #expect(budget.decide(over, stopping: [3]) == .within)
        // Nothing to stop but pageheight's own processes.
        #expect(budget.decide([MemoryBudget.Process(pid: 1, bytes: 2000 * megabyte, isWebProcess: false)]) == .within)
    }

    /// When WebKit's network process holds more than any web process (what pages stored), or more
    /// than a process's limit, the page whose data it is must be found: the verdict says so, with
    /// the largest web process's stop as the fallback when the tree is over.
    @Test func aFullNetworkProcessIsSearchedForThePagesData() {
        let budget = MemoryBudget(bytes: 1000 * megabyte, jobs: 2)
        let tree = [MemoryBudget.Process(pid: 1, bytes: 100 * megabyte, isWebProcess: false),
                    MemoryBudget.Process(pid: 2, bytes: 150 * megabyte, isWebProcess: true),
                    MemoryBudget.Process(pid: 3, bytes: 60 * megabyte, isWebProcess: true),
                    MemoryBudget.Process(pid: 4, bytes: 700 * megabyte, isWebProcess: false, isNetworkProcess: true)]
        #expect(budget.decide(tree) == .findStoredData(treeBytes: 1010 * megabyte, networkBytes: 700 * megabyte,
                                                       fallback: .stop(pid: 2, treeBytes: 1010 * megabyte, processBytes: 150 * megabyte)))
        // Within the budget, a network process below a process's limit is left alone.
        #expect(budget.decide(Array(tree.dropFirst())) == .within)
        let huge = MemoryBudget(bytes: 8000 * megabyte, jobs: 2)
        let past = [MemoryBudget.Process(pid: 4, bytes: 2100 * megabyte, isWebProcess: false, isNetworkProcess: true)]
        #expect(huge.decide(past) == .findStoredData(treeBytes: 2100 * megabyte, networkBytes: 2100 * megabyte, fallback: nil))
        #expect(huge.storedDataMessage(treeBytes: 2100 * megabyte, networkBytes: 2100 * megabyte).contains("filled WebKit's network process (2100 MB"))
    }

    @Test func theMessageNamesTheBudget() {
        let derived = MemoryBudget(bytes: 4608 * megabyte, jobs: 4)
        #expect(derived.message(treeBytes: 4700 * megabyte, processBytes: 2000 * megabyte)
            == "the web process was stopped by pageheight: the process tree exceeded its memory budget (4608 MB, for 4 jobs on "
            + "this machine) at 4700 MB, and this page's web process was the largest (2000 MB)")
        let set = MemoryBudget(bytes: 700 * megabyte, jobs: 1, fromEnvironment: true)
        #expect(set.message(treeBytes: 12 * gigabyte, processBytes: 700 * megabyte).contains("(700 MB, set by PAGEHEIGHT_MEMORY_BUDGET_MB) at 12.0 GB"))
    }
}
