@testable import PageHeight
import Testing

@Suite struct IdleDriverCodeTests {
    /// Only the executable mappings of LLVM and Mesa's drivers are paged out: not their data
    /// (relocated, private), not WebKit's code, not anonymous memory.
    @Test func onlyTheDriversCodeMappingsAreChosen() {
        let maps = """
            55e8e3e14000-55e8e3e15000 r-xp 00001000 00:2f 123 /usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/WebKitWebProcess
            7f997ce00000-7f998357c000 r-xp 00000000 00:2f 456                        /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1
            7f998357d000-7f9983d9b000 r--p 0677c000 00:2f 456 /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1
            7f9983d9b000-7f9983de1000 rw-p 06f9a000 00:2f 456 /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1
            7f9990000000-7f9990400000 r-xp 00100000 00:2f 789 /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so
            7f9991000000-7f9991200000 r-xp 00010000 00:2f 790 /usr/lib/x86_64-linux-gnu/libgallium-24.2.so
            7f99fa308000-7f99fd9b4000 r-xp 00708000 00:2f 111 /usr/lib/x86_64-linux-gnu/libwebkit2gtk-4.1.so.0.19.9
            7f99fe000000-7f99fe100000 r-xp 00000000 00:00 0
            7f99ff000000-7f99ff001000 r-xp 00000000 00:2f 222 /home/me/not_dri.so.bak
            """
        #expect(IdleDriverCode.codeRanges(inMaps: maps) == [
            0x7f99_7ce0_0000..<0x7f99_8357_c000,
            0x7f99_9000_0000..<0x7f99_9040_0000,
            0x7f99_9100_0000..<0x7f99_9120_0000,
        ])
        // Which part of which file each shows, to read back into the page cache.
        #expect(IdleDriverCode.codeMappings(inMaps: maps).map { "\($0.file) \(String($0.offset, radix: 16))" } == [
            "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1 0",
            "/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so 100000",
            "/usr/lib/x86_64-linux-gnu/libgallium-24.2.so 10000",
        ])
        #expect(IdleDriverCode.codeRanges(inMaps: "").isEmpty)
        #expect(IdleDriverCode.codeRanges(inMaps: "garbage\nzz-yy r-xp 0 0 0 /x/libLLVM.so\n").isEmpty)
    }

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
