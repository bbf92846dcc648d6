import Foundation

/// One engine with a model loaded, used by any number of callers at once: for an engine whose
/// calls are thread-safe (the orientation classifier's onnxruntime session), where an engine per
/// caller (`EnginePool`) would hold the model and its runtime's buffers once per worker for nothing.
///
/// Thread-safe: made when first needed, kept while any caller uses it, and freed once no caller
/// has used it for `idleTimeout`; the next caller makes it again.
final class SharedEngine<Engine: AnyObject & Sendable>: @unchecked Sendable {
    let idleTimeout: Duration
    // All mutable state below is guarded by `condition`'s lock.
    private let condition = NSCondition()
    private let make: @Sendable () throws -> Engine
    private var engine: Engine?
    private var making = false
    private var users = 0
    private var lastUse = ContinuousClock.now
    private var made = 0
    private var trimScheduled = false

    /// The engine `make` makes, made when first needed and freed after `idleTimeout` unused.
    init(idleTimeout: Duration, make: @escaping @Sendable () throws -> Engine) {
        self.make = make
        self.idleTimeout = idleTimeout
    }

    /// Runs `body` with the engine, which other callers may be using meanwhile.
    func withEngine<R>(_ body: (Engine) throws -> R) throws -> R {
        let engine = try borrow()
        defer { giveBack() }
        return try body(engine)
    }

    /// Engines alive now: 1 or 0.
    var engineCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return engine == nil ? 0 : 1
    }

    /// Engines made since this was, freed ones included.
    var enginesMade: Int {
        condition.lock()
        defer { condition.unlock() }
        return made
    }

    /// Makes the engine now, so that a missing or broken model fails at setup, not mid-batch.
    func warmUp() throws {
        try withEngine { _ in }
    }

    private func borrow() throws -> Engine {
        condition.lock()
        defer { condition.unlock() }
        // One caller makes the engine; the others wait for it rather than load the model again.
        while engine == nil, making { condition.wait() }
        if let engine {
            users += 1
            return engine
        }
        making = true
        condition.unlock()
        let result = Result { try make() }
        condition.lock()
        making = false
        condition.broadcast()
        let fresh = try result.get()
        engine = fresh
        made += 1
        users += 1
        return fresh
    }

    private func giveBack() {
        condition.lock()
        users -= 1
        lastUse = .now
        let schedule = users == 0 && !trimScheduled
        if schedule { trimScheduled = true }
        condition.unlock()
        if schedule { scheduleTrim() }
    }

    private func scheduleTrim() { afterIdleTimeout(idleTimeout, self) { $0.trimIdle() } }

    /// Frees the engine when no caller has used it for `idleTimeout`; looks again later while it is
    /// in use or was used since.
    private func trimIdle() {
        condition.lock()
        var expired: Engine?
        if users == 0, ContinuousClock.now - lastUse >= idleTimeout {
            expired = engine
            engine = nil
        }
        let again = engine != nil && users == 0
        trimScheduled = again
        condition.unlock()
        if again { scheduleTrim() }
        _ = expired  // the engine is freed here, outside the lock, as `expired` goes
    }
}
