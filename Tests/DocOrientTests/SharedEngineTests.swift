import Foundation
import Synchronization
import Testing

@testable import DocOrient

/// The classifier's one engine, shared by every worker (`SharedEngine`): callers use it at once,
/// it is made once, freed when idle and made again, and a failure to make it reaches the caller.
struct SharedEngineTests {
    final class Engine: Sendable {}

    /// Counts the engines made, failing the first `failures` times.
    final class Maker: Sendable {
        let calls = Atomic<Int>(0)
        let failures: Int
        init(failures: Int = 0) { self.failures = failures }
        func make() throws -> Engine {
            let call = calls.add(1, ordering: .relaxed).newValue
            guard call > failures else { throw DocOrientError(.library, "no model, call \(call)") }
            return Engine()
        }
    }

    /// Two callers inside `withEngine` at the same time, each waiting there for the other: with an
    /// engine lent to one caller at a time (`EnginePool` of one), the second would wait for ever.
    @Test func callersUseTheOneEngineAtOnce() throws {
        let maker = Maker()
        let shared = SharedEngine(idleTimeout: .seconds(60)) { try maker.make() }
        let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let met = Mutex<[Bool]>([false, false])
        let seen = Mutex<[ObjectIdentifier]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            try? shared.withEngine { engine in
                seen.withLock { $0.append(ObjectIdentifier(engine)) }
                arrived[i].signal()
                let other = arrived[1 - i].wait(timeout: .now() + 30)
                met.withLock { $0[i] = other == .success }
            }
        }
        #expect(met.withLock { $0 } == [true, true], "both callers were inside at once")
        #expect(Set(seen.withLock { $0 }).count == 1, "the same engine")
        #expect(maker.calls.load(ordering: .relaxed) == 1)
        #expect(shared.enginesMade == 1)
    }

    /// Freed once idle for the timeout, and made again by the next caller. Told by events (the
    /// engine count reaching 0), not by how fast this machine is.
    @Test func anIdleEngineIsFreedAndMadeAgain() async throws {
        let maker = Maker()
        let shared = SharedEngine(idleTimeout: .milliseconds(50)) { try maker.make() }
        try shared.warmUp()
        #expect(shared.enginesMade == 1)
        var waited = Duration.zero
        while shared.engineCount > 0, waited < .seconds(60) {
            try await Task.sleep(for: .milliseconds(20))
            waited += .milliseconds(20)
        }
        #expect(shared.engineCount == 0, "freed after \(waited)")
        try shared.withEngine { _ in }
        #expect(shared.enginesMade == 2)
        #expect(shared.engineCount == 1)
    }

    /// A model that fails to load fails the call that needed it; the next call tries again.
    @Test func aFailureToMakeTheEngineReachesTheCallerAndTheNextCallTriesAgain() throws {
        let maker = Maker(failures: 1)
        let shared = SharedEngine(idleTimeout: .seconds(60)) { try maker.make() }
        #expect(throws: DocOrientError.self) { try shared.warmUp() }
        #expect(shared.engineCount == 0)
        try shared.warmUp()
        #expect(shared.engineCount == 1)
        #expect(maker.calls.load(ordering: .relaxed) == 2)
    }
}
