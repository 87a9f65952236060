package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.api.restconf.RestconfResource;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.ServerContext;
import jakarta.ws.rs.Path;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link WriterAnnotations} hands the body writers none of a resource method's annotations, which is
 * right only while none of them is for a writer: no Jackson annotation (such as {@code @JsonView}) and
 * no JAXB one on any method of a resource the REST application registers.
 */
class WriterAnnotationsTest {
    @Test
    void noResourceMethodCarriesAnAnnotationForTheWriters() throws Exception {
        var dir = Files.createTempDirectory("vrouter-writer-annotations");
        Settings settings = Settings.of(Map.of("data-dir", dir.toString()));
        VirtualRouterService service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.named("none")),
                new ConfigStore(dir), VrMetrics.inMemory());
        try {
            var rc = RestApplication.create(new ServerContext(service, settings, Credentials.from(settings),
                    VrMetrics.inMemory()));
            // registered as classes, or as instances (those given what they serve: RESTCONF's, the migration's)
            Set<Class<?>> resources = java.util.stream.Stream.concat(rc.getClasses().stream(),
                    rc.getInstances().stream().map(Object::getClass)).filter(c -> c.isAnnotationPresent(Path.class))
                    .collect(Collectors.toSet());
            assertThat(resources).contains(RoutersResource.class, RestconfResource.class);
            List<String> forWriters = new ArrayList<>();
            for (Class<?> resource : resources) {
                for (Method m : resource.getDeclaredMethods()) {
                    for (Annotation a : m.getAnnotations()) {
                        String pkg = a.annotationType().getPackageName();
                        if (pkg.startsWith("com.fasterxml.jackson") || pkg.startsWith("jakarta.xml.bind")) {
                            forWriters.add(resource.getSimpleName() + "." + m.getName() + ": @" + a.annotationType().getName());
                        }
                    }
                }
            }
            assertThat(forWriters).isEmpty();
        } finally {
            service.close();
        }
    }
}
