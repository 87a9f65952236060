package io.vrouter.bench;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * The benchmark process's CPU time (every thread: the service's workers, the journal's writer, GC
 * and JIT included) per operation of an iteration, in microseconds: what issue 22's targets are
 * stated in. The process is the forked benchmark JVM, so nothing but the benchmark runs in it.
 */
public final class ProcessCpuProfiler implements InternalProfiler {
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long cpuAtStart;

    @Override
    public String getDescription() {
        return "process CPU time per operation (us/op)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmark, IterationParams iteration) {
        cpuAtStart = os.getProcessCpuTime();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmark, IterationParams iteration,
                                                       IterationResult result) {
        long cpu = os.getProcessCpuTime() - cpuAtStart;
        long ops = result.getMetadata().getAllOps();
        double perOp = ops == 0 ? Double.NaN : cpu / 1000.0 / ops;
        return List.of(new ScalarResult("cpu", perOp, "us/op", AggregationPolicy.AVG));
    }
}
