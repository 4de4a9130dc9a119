import PageHeightServe
import Testing

struct ListenAddressTests {
    @Test func readsHostsAndPortsAndKnowsLoopback() {
        #expect(ListenAddress(parsing: "127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(ListenAddress(parsing: ":9000") == ListenAddress(host: "127.0.0.1", port: 9000))
        #expect(ListenAddress(parsing: "localhost:0") == ListenAddress(host: "127.0.0.1", port: 0))
        #expect(ListenAddress(parsing: "[::1]:8080") == ListenAddress(host: "::1", port: 8080))
        #expect(ListenAddress(parsing: "0.0.0.0:8080")?.isLoopback == false)
        #expect(ListenAddress(parsing: "127.0.0.2:8080")?.isLoopback == true)
        #expect(ListenAddress(parsing: "[::]:8080")?.isLoopback == false)
        for bad in ["8080", "example.com:80", "127.0.0.1:70000", "::1:8080", "127.0.0.1:", "256.0.0.1:80"] {
            #expect(ListenAddress(parsing: bad) == nil, "\(bad)")
        }
    }
}
