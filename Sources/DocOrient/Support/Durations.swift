/// `Duration` as the plain numbers records, logs and timers take: the one place a duration's
/// seconds and attoseconds are added up.
extension Duration {
    /// The duration in milliseconds, fractions kept.
    package var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// The duration in seconds, fractions kept.
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
