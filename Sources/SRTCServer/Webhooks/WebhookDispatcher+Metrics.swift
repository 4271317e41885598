// Webhook delivery on `/metrics`: the queue waiting to be delivered and what attempts came to.

extension WebhookDispatcher: MetricsSource {
    func render(into text: inout PrometheusText) {
        let pending = (try? database.query(
            "SELECT COUNT(*) FROM webhook_deliveries WHERE delivered_at IS NULL AND attempts < ?", [.integer(Int64(maxAttempts))]))?
            .first?.first?.int ?? 0
        let outcomes = outcomes.withLock { $0 }
        text.family("srtc_webhook_queue_depth", "gauge", "Webhook events stored and not yet delivered (retries included).")
        text.sample("srtc_webhook_queue_depth", Int(pending))
        text.family("srtc_webhook_deliveries_total", "counter", "Webhook attempts answered with a 2xx status.")
        text.sample("srtc_webhook_deliveries_total", outcomes.delivered)
        text.family("srtc_webhook_failures_total", "counter", "Webhook attempts that failed (network error or non-2xx status).")
        text.sample("srtc_webhook_failures_total", outcomes.failed)
        text.family("srtc_webhook_abandoned_total", "counter", "Webhook events given up after the last attempt.")
        text.sample("srtc_webhook_abandoned_total", outcomes.abandoned)
    }
}
