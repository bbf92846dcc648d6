import Foundation

/// Engines with a model loaded (Tesseract's, the orientation classifier's), reused across images
/// and threads: loading a model takes tens of milliseconds, using a loaded one a few.
///
/// Thread-safe: `withEngine` lends each engine to exactly one caller at a time. It creates engines
/// on demand up to `capacity`; further callers wait until one is given back. An engine left unused
/// for `idleTimeout` is freed. Init runs once per engine, never per image.
final class EnginePool<Engine: AnyObject>: @unchecked Sendable {
    let capacity: Int
    let idleTimeout: Duration
    // All mutable state below is guarded by `condition`'s lock.
    private let condition = NSCondition()
    private let make: @Sendable () throws -> Engine
    private var idle: [(engine: Engine, since: ContinuousClock.Instant)] = []
    private var alive = 0
    private var made = 0
    private var trimScheduled = false

    /// A pool of at most `capacity` engines, each made by `make` when first needed.
    init(capacity: Int, idleTimeout: Duration, make: @escaping @Sendable () throws -> Engine) {
        self.make = make
        self.capacity = max(1, capacity)
        self.idleTimeout = idleTimeout
    }

    /// Runs `body` with an engine that no other caller uses meanwhile, waiting for one when
    /// `capacity` engines are all lent out.
    func withEngine<R>(_ body: (Engine) throws -> R) throws -> R {
        let engine = try borrow()
        defer { giveBack(engine) }
        return try body(engine)
    }

    /// Engines alive now, lent out or idle.
    var engineCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return alive
    }

    /// Engines made since the pool was, freed ones included: how a test tells that a call loaded
    /// a model, whatever the idle timeout freed meanwhile.
    var enginesMade: Int {
        condition.lock()
        defer { condition.unlock() }
        return made
    }

    /// Engines waiting to be lent.
    var idleCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return idle.count
    }

    /// Creates one engine now, so that a missing or broken model fails at setup, not mid-batch.
    func warmUp() throws {
        try withEngine { _ in }
    }

    private func borrow() throws -> Engine {
        condition.lock()
        while idle.isEmpty, alive >= capacity { condition.wait() }
        if let entry = idle.popLast() {
            condition.unlock()
            return entry.engine
        }
        alive += 1
        made += 1
        condition.unlock()
        do {
            return try make()
        } catch {
            condition.lock()
            alive -= 1
            made -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ engine: Engine) {
        condition.lock()
        idle.append((engine, .now))
        let schedule = !trimScheduled
        trimScheduled = true
        condition.signal()
        condition.unlock()
        if schedule { scheduleTrim() }
    }

    private func scheduleTrim() { afterIdleTimeout(idleTimeout, self) { $0.trimIdle() } }

    /// Frees the engines idle for `idleTimeout` or longer; looks again later while any stay idle.
    private func trimIdle() {
        let now = ContinuousClock.now
        condition.lock()
        let expired = idle.filter { now - $0.since >= idleTimeout }
        idle.removeAll { now - $0.since >= idleTimeout }
        alive -= expired.count
        let again = !idle.isEmpty
        trimScheduled = again
        if !expired.isEmpty { condition.broadcast() }
        condition.unlock()
        if again { scheduleTrim() }
        _ = expired  // the engines are freed here, outside the lock, as `expired` goes
    }
}

/// Calls `trim` on `holder` once `idleTimeout` has passed (a zero timeout still waits a moment), on
/// a utility queue, unless the holder is gone by then: how the engine holders (`EnginePool`,
/// `SharedEngine`) look again for an engine left unused, without a thread of their own.
func afterIdleTimeout<Holder: AnyObject & Sendable>(
    _ idleTimeout: Duration, _ holder: Holder, _ trim: @escaping @Sendable (Holder) -> Void
) {
    let delay = max(0.01, idleTimeout.seconds)
    DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) { [weak holder] in
        if let holder { trim(holder) }
    }
}
