import Synchronization

/// An async counting semaphore: at most `permits` holders at once; the others wait in arrival
/// order without holding a thread, and a waiter whose task is cancelled leaves the queue with
/// `CancellationError`. Thread-safe.
final class AdmissionGate: Sendable {
    private struct State {
        var available: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }
    private let state: Mutex<State>

    init(permits: Int) {
        state = Mutex(State(available: max(1, permits)))
    }

    /// Waits for a permit. Every successful `acquire` must be matched by one `release`.
    /// - Throws: `CancellationError` when the task is cancelled before a permit is free.
    func acquire() async throws {
        try Task.checkCancellation()
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admitted = state.withLock { s -> Bool in
                    if s.available > 0 {
                        s.available -= 1
                        return true
                    }
                    s.waiters.append((id, continuation))
                    return false
                }
                if admitted { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: i).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Gives a permit back, to the longest waiter if there is one.
    func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            if s.waiters.isEmpty {
                s.available += 1
                return nil
            }
            return s.waiters.removeFirst().continuation
        }
        next?.resume()
    }

    /// Callers waiting for a permit now.
    var waiting: Int { state.withLock { $0.waiters.count } }
}
