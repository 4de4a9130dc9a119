@testable import PageHeightWebKit
import Testing

@Suite struct IdleLibraryPagesTests {
    /// Between pages, the read-only file mappings of this process and the network process are
    /// paged out: code and constants of any file, not writable data, anonymous memory, the
    /// stack or vDSO, nor a file deleted since it was mapped.
    @Test func theLibraryPagesChosenAreReadOnlyFileMappings() {
        let maps = """
            55e8e3e14000-55e8e3e15000 r--p 00000000 00:2f 123 /usr/local/bin/pageheight
            55e8e3e15000-55e8e3e25000 r-xp 00001000 00:2f 123 /usr/local/bin/pageheight
            55e8e3e25000-55e8e3e26000 rw-p 00011000 00:2f 123 /usr/local/bin/pageheight
            55e8e4000000-55e8e4100000 rw-p 00000000 00:00 0                          [heap]
            7f99fa308000-7f99fd9b4000 r-xp 00708000 00:2f 111                        /usr/lib/x86_64-linux-gnu/libwebkit2gtk-4.1.so.0.19.9
            7f99fd9b4000-7f99fda00000 r--p 03db4000 00:2f 111 /usr/lib/x86_64-linux-gnu/libwebkit2gtk-4.1.so.0.19.9
            7f99fe000000-7f99fe100000 r-xp 00000000 00:00 0
            7f99ff000000-7f99ff001000 r-xp 00000000 00:2f 222 /tmp/old.so (deleted)
            7ffd1c9a2000-7ffd1c9a4000 r-xp 00000000 00:00 0                          [vdso]
            """
        #expect(IdleLibraryPages.readOnlyMappings(inMaps: maps).map { "\($0.file) \(String($0.offset, radix: 16))" } == [
            "/usr/local/bin/pageheight 0",
            "/usr/local/bin/pageheight 1000",
            "/usr/lib/x86_64-linux-gnu/libwebkit2gtk-4.1.so.0.19.9 708000",
            "/usr/lib/x86_64-linux-gnu/libwebkit2gtk-4.1.so.0.19.9 3db4000",
        ])
        #expect(IdleLibraryPages.readOnlyMappings(inMaps: "").isEmpty)
    }
}
