package io.vrouter.bench;

import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.service.VirtualRouterService;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The core alone (issue 22's target: 100 us of CPU per operation): the service every interface
 * shares, on the simulated host with no latency, its journal in a data directory of its own (each
 * change set's commit in the history carried by its record, as the server keeps it), no interface or
 * transport in front. Each write goes through {@link VirtualRouterService#apply} and is
 * waited for to the end of its hypervisor work, as an interface's {@code wait} does; reads take one
 * VR's view. Run with {@code -prof io.vrouter.bench.ProcessCpuProfiler} for CPU per operation (the
 * figure the targets are in): the time per operation alone hides the work done on other threads.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class CoreBenchmark {
    /** VRs standing in the registry beside the one the benchmark works on: the cost's dependence on scale. */
    @Param({"1", "1000"})
    public int standing;

    /**
     * Where the data directory goes: a disk's directory pays for the journal's fsync (in the
     * kernel's CPU, which {@link #durableRecord} measures alone), /dev/shm does not, and so shows the
     * core's own CPU.
     */
    @Param({"/tmp", "/dev/shm"})
    public String dataRoot;

    private Path dataDir;
    private java.io.RandomAccessFile floorFile;
    private final byte[] record = new byte[384];
    private VirtualRouterService service;
    private int vmIndex;
    private boolean flip;

    @Setup(Level.Trial)
    public void start() throws Exception {
        dataDir = Files.createTempDirectory(Path.of(dataRoot), "vr-bench");
        SimulatedDriver host = new SimulatedDriver(LatencyProfile.NONE, dataDir.resolve("sim-host.journal"));
        service = new VirtualRouterService(host, new ConfigStore(dataDir, false), VrMetrics.inMemory());
        service.start();
        ChangeSet.Builder batch = ChangeSet.builder();
        for (int i = 0; i < standing; i++) batch.create(row("standing-" + i));
        var applied = service.apply(batch.build());
        applied.completion().get(120, TimeUnit.SECONDS);
        vmIndex = applied.routers().get(0).accepted().vmIndex;
        java.util.Arrays.fill(record, (byte) 'x');
        record[record.length - 1] = '\n';
        floorFile = new java.io.RandomAccessFile(dataDir.resolve("floor.journal").toFile(), "rw");
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        floorFile.close();
        service.close();
        try (Stream<Path> files = Files.walk(dataDir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    /** A VR created and then removed, each to the end of its hypervisor work: two operations. */
    @Benchmark
    @OperationsPerInvocation(2)
    public Object createAndRemove() throws Exception {
        var created = service.apply(ChangeSet.of(new ChangeSet.Create(row("bench")))).only();
        VirtualRouter vr = created.completion().get(10, TimeUnit.SECONDS).orElseThrow();
        service.apply(ChangeSet.builder().remove(vr.vmIndex).build()).completion().get(10, TimeUnit.SECONDS);
        return vr;
    }

    /** One column of a standing VR changed (its description, which the host also records). */
    @Benchmark
    public Object change() throws Exception {
        String description = (flip = !flip) ? "a" : "b";
        return service.apply(ChangeSet.builder().edit(vmIndex, row -> row.vmConfigDescription = description).build())
                .completion().get(10, TimeUnit.SECONDS);
    }

    /**
     * The floor of a durable change on this file system: one journal-sized record (384 bytes)
     * appended and forced to disk, as the journal does once per change set. What a change costs
     * above it is the core's.
     */
    @Benchmark
    public long durableRecord() throws IOException {
        floorFile.write(record);
        floorFile.getFD().sync();
        return floorFile.length();
    }

    /** One VR's view, as every interface's read of one VR takes it. */
    @Benchmark
    public Object read() {
        return service.get(vmIndex).orElseThrow();
    }

    private static VmConfigEntry row(String name) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmName = name;
        return c;
    }
}
