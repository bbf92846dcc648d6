import DocOrient
import DocOrientBatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import CMalloc
    import Glibc
#endif

/// Ctrl-C: the first asks the batch to stop after the files in flight; the second exits at once
/// (files are only ever replaced by rename, so no file is left half-written either way).
enum Interrupts {
    private static let count = Atomic<Int>(0)

    static var requested: Bool { count.load(ordering: .relaxed) > 0 }

    static func install() {
        // A parent may have started us with these signals blocked (the mask survives exec): a
        // batch that cannot be interrupted is worse than one that can.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        signal(SIGINT) { _ in
            if Interrupts.count.add(1, ordering: .relaxed).newValue > 1 { _exit(130) }
            let message = "\ndocorient: stopping after the files in flight (Ctrl-C again to quit now)\n"
            _ = message.withCString { write(2, $0, strlen($0)) }
        }
        signal(SIGTERM) { _ in
            if Interrupts.count.add(1, ordering: .relaxed).newValue > 1 { _exit(143) }
        }
    }
}

/// How many heaps glibc's malloc keeps for the process.
enum Heaps {
    /// At most `count` heaps (arenas): one a worker. glibc gives threads that allocate at once
    /// heaps of their own, up to eight a core, and each heap keeps the most it ever held; a
    /// worker's file, decoded, surveyed, read and classified, is tens of megabytes, so heaps
    /// beyond one a worker only raise the peak, in the same time (decision 12). A
    /// `MALLOC_ARENA_MAX`, or `glibc.malloc.arena_max` in `GLIBC_TUNABLES`, that the user set
    /// stands. Keeping each file's buffers for the next (`M_MMAP_THRESHOLD`, `M_TRIM_THRESHOLD`)
    /// saved little time for more memory at the peak, and is not done (decision 12).
    static func limit(to count: Int) {
        #if canImport(Glibc)
            let environment = ProcessInfo.processInfo.environment
            guard environment["MALLOC_ARENA_MAX"] == nil,
                environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.arena_max") != true
            else { return }
            _ = mallopt(M_ARENA_MAX, Int32(clamping: max(1, count)))
        #endif
    }
}

/// The live progress line: redrawn in place on a terminal, a plain line every few seconds otherwise.
final class ProgressLine {
    private let enabled: Bool
    private let terminal: Bool
    private var lastPrint = ContinuousClock.now
    private var drawn = false
    private var printedAny = false

    init(enabled: Bool) {
        self.enabled = enabled
        terminal = isatty(2) == 1
    }

    func update(_ p: BatchRunner.Progress) {
        guard enabled else { return }
        let interval: Duration = terminal ? .milliseconds(200) : .seconds(5)
        guard lastPrint.duration(to: .now) >= interval || !printedAny else { return }
        lastPrint = .now
        printedAny = true
        let todo = p.total - p.alreadyDone
        var line = "\(p.done)/\(todo) files"
        if p.alreadyDone > 0 { line += " (+\(p.alreadyDone) already done)" }
        line += String(format: ", %.1f files/s", p.filesPerSecond)
        if let eta = p.etaSeconds, p.done > 0 { line += ", ETA \(Self.clock(eta))" }
        line += ", fixed \(p.counts.fixed), undecidable \(p.counts.undecidable), failed \(p.counts.failed)"
        if terminal {
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
            drawn = true
        } else {
            FileHandle.standardError.write(Data(("docorient: " + line + "\n").utf8))
        }
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? "\(s / 3600)h\(s % 3600 / 60)m" : s >= 60 ? "\(s / 60)m\(s % 60)s" : "\(s)s"
    }
}
