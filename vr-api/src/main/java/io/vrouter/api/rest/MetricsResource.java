package io.vrouter.api.rest;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import io.vrouter.core.metrics.VrMetrics;

/** The Prometheus scrape endpoint, without authentication. */
@Path("metrics")
public class MetricsResource {
    @Inject
    private VrMetrics metrics;

    @GET
    @Produces("text/plain; version=0.0.4; charset=utf-8")
    public String scrape() {
        if (metrics.registry() instanceof PrometheusMeterRegistry prometheus) return prometheus.scrape();
        throw new NotFoundException("metrics are not exported by this server");
    }
}
