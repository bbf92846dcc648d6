import DocOrient
import Foundation
import Synchronization

extension BatchRunner {
    /// What a batch run reports as it goes, for a consumer of `events(files:)`.
    public enum Event: Sendable, Equatable {
        /// A file was handled (in the order of the files given, as `run`'s `onRecord`).
        case record(FixRecord)
        /// The counts so far: after each group of results and at least every
        /// `BatchRunner.progressMilliseconds`.
        case progress(Progress)
        /// The run is over (every file handled, or stopped early: `stopped` says which); last event.
        case finished(Progress)
    }

    /// Runs the batch on its own threads and reports it as an asynchronous sequence, for services
    /// that show progress or stream records without blocking a task.
    ///
    /// Stopping: when the consumer stops iterating (the stream is terminated, or the task reading
    /// it is cancelled), no new file is started; files in flight finish and are journalled, so a
    /// later run over the same files picks up where this one stopped. A runner runs one batch at a
    /// time: do not start another `run` or `events` on it before this one has finished.
    /// - Parameter files: the files to handle, in the order records are reported.
    /// - Returns: records, progress and a final `.finished`; throws the journal's errors.
    public func events(files: [String]) -> AsyncThrowingStream<Event, Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Event.self)
        let stop = StopFlag()
        continuation.onTermination = { _ in stop.set() }
        let thread = Thread { [self] in
            do {
                let final = try run(
                    files: files, onRecord: { continuation.yield(.record($0)) },
                    onProgress: { continuation.yield(.progress($0)) }, shouldStop: { stop.isSet })
                continuation.yield(.finished(final))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        thread.start()
        return stream
    }
}

/// A one-way flag shared between the stream's consumer and the runner's threads.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}
