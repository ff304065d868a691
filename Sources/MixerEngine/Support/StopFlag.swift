import Synchronization

/// A one-way flag set by one thread and polled by others.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// A counter updated on one thread and read for status on others.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    func add(_ amount: Int = 1) { value.add(amount, ordering: .relaxed) }
    var current: Int { value.load(ordering: .relaxed) }
}
