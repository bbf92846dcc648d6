// libFuzzer targets for every parser docorient owns or feeds. Built two ways:
//   Scripts/fuzz.sh TARGET SECONDS   (-sanitize=fuzzer,address -DFUZZING: libFuzzer's main)
//   swift run DocOrientFuzz TARGET FILE...   (replays files through the same code: regressions)
@_spi(Fuzzing) import DocOrient
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension FuzzTarget {
    static var current: FuzzTarget {
        let name = getenv("DOCORIENT_FUZZ_TARGET").map { String(cString: $0) } ?? "jpeg"
        return FuzzTarget(rawValue: name) ?? .jpeg
    }
}

#if FUZZING
    /// libFuzzer's per-input entry point: runs one input of `size` bytes at `data` through the
    /// target named by `DOCORIENT_FUZZ_TARGET` (default jpeg). Always returns 0, as libFuzzer asks.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        FuzzTarget.current.run(Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    /// The executable's entry point: SwiftPM links it as <module>_main; hands the command line to
    /// libFuzzer's driver, which calls `fuzzOneInput` for each input and returns the exit status.
    @_cdecl("DocOrientFuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var vector = argv
        return runDriver(&count, &vector) { data, size in fuzzOneInput(data, size) }
    }
#else
    @main
    struct Replay {
        static func main() throws {
            let arguments = Array(CommandLine.arguments.dropFirst())
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                print("usage: DocOrientFuzz {\(FuzzTarget.allCases.map(\.rawValue).joined(separator: ","))} FILE...")
                exit(64)
            }
            for path in arguments.dropFirst() {
                target.run([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
                print("ok \(path)")
            }
        }
    }
#endif
