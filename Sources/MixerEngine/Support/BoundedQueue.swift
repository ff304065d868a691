import Foundation

/// A bounded FIFO between two threads, with blocking and non-blocking ends and a close
/// that wakes everyone (FFmpeg's thread_queue, in miniature). Elements are Sendable
/// values; no FFmpeg object ever travels through it.
final class BoundedQueue<Element: Sendable>: @unchecked Sendable {
    // @unchecked: every stored property below is read and written only under `condition`.
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    private let capacity: Int
    private var closed = false

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Waits for room, then appends. Returns false if the queue was closed.
    @discardableResult
    func push(_ item: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed && items.count - head >= capacity { condition.wait() }
        guard !closed else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Appends only if there is room; false when full or closed (the caller counts a drop).
    func offer(_ item: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, items.count - head < capacity else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Waits for an element; nil once the queue is closed and drained.
    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed { condition.wait() }
        return takeLocked()
    }

    /// Waits at most until the monotonic time `deadline`; nil when nothing came (or closed and drained).
    func pop(before deadline: Double) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !closed {
            let remaining = deadline - MonotonicClock.now()
            if remaining <= 0 || !condition.wait(until: Date(timeIntervalSinceNow: remaining)) { break }
        }
        return takeLocked()
    }

    /// An element if one is waiting, without blocking.
    func poll() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        return takeLocked()
    }

    /// No more pushes; pops drain what is left, then return nil.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    private func takeLocked() -> Element? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return item
    }
}
