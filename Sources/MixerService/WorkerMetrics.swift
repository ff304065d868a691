import Metrics
import MixerTask
import Prometheus
import Synchronization

/// The worker's Prometheus metrics, recorded through swift-metrics: the task count, and per
/// task its fps, frames, bitrate, dropped packets, and each output's and input's state.
final class WorkerMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let taskCount: Metrics.Gauge
    private let perTask = Mutex<[String: TaskGauges]>([:])

    private struct TaskGauges {
        let fps, frames, bitrate, dropped: Metrics.Gauge
        var outputs: [String: Metrics.Gauge] = [:]
        var inputs: [String: Metrics.Gauge] = [:]

        var all: [Metrics.Gauge] { [fps, frames, bitrate, dropped] + Array(outputs.values) + Array(inputs.values) }
    }

    /// Input states as numbers.
    static let inputStates = ["connecting": 0.0, "live": 1, "lost": 2, "ended": 3]

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
        taskCount = Metrics.Gauge(label: "mixer_tasks", factory: factory)
        taskCount.record(0)
    }

    func setTaskCount(_ count: Int) { taskCount.record(count) }

    func record(_ status: TaskStatus, task: String) {
        perTask.withLock { tasks in
            var gauges = tasks[task] ?? TaskGauges(
                fps: gauge("mixer_task_fps", task), frames: gauge("mixer_task_frames", task),
                bitrate: gauge("mixer_task_bitrate_kbps", task), dropped: gauge("mixer_task_dropped_packets", task))
            gauges.fps.record(status.fps)
            gauges.frames.record(Double(status.frames))
            gauges.bitrate.record(status.bitrateKbps)
            gauges.dropped.record(Double(status.droppedPackets))
            for output in status.outputs {
                let gauge = gauges.outputs[output.url] ?? gauge("mixer_output_state", task, [("url", output.url)])
                gauge.record(output.state)
                gauges.outputs[output.url] = gauge
            }
            for input in status.inputs {
                let key = "\(input.roomId)/\(input.userId)/\(input.streamType)"
                let gauge = gauges.inputs[key] ?? gauge("mixer_input_state", task,
                                                        [("room", input.roomId), ("user", input.userId), ("stream", input.streamType)])
                gauge.record(WorkerMetrics.inputStates[input.state] ?? -1)
                gauges.inputs[key] = gauge
            }
            tasks[task] = gauges
        }
    }

    func remove(task: String) {
        perTask.withLock { $0.removeValue(forKey: task) }?.all.forEach { $0.destroy() }
    }

    /// The Prometheus text exposition of every metric.
    func render() -> String { registry.emitToString() }

    private func gauge(_ name: String, _ task: String, _ labels: [(String, String)] = []) -> Metrics.Gauge {
        Metrics.Gauge(label: name, dimensions: [("task", task)] + labels, factory: factory)
    }
}
