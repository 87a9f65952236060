package io.vrouter.it.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.vrouter.client.ApiClient;
import io.vrouter.client.ApiException;
import io.vrouter.client.api.HypervisorApi;
import io.vrouter.client.api.RoutersApi;
import io.vrouter.client.model.VirtualRouter;
import io.vrouter.client.model.VirtualRouters;
import io.vrouter.client.model.VmEntry;
import io.vrouter.client.model.VmNetworkConfigEntry;
import io.vrouter.it.ServerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole VR lifecycle through a Java client generated from docs/openapi.yaml by openapi-generator. */
class GeneratedClientIT {
    @TempDir
    Path dir;

    private static ApiClient client(ServerProcess server, String user, String password) {
        ApiClient c = new ApiClient();
        c.updateBaseUri(server.restBase());
        String basic = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        c.setRequestInterceptor(b -> b.header("Authorization", "Basic " + basic));
        return c;
    }

    @Test
    void theGeneratedClientRunsTheLifecycle() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir)) {
            RoutersApi routers = new RoutersApi(client(server, "admin", "admin"));

            VirtualRouter gen1 = new VirtualRouter().vmName("gen1").vmConfigMemory(256)
                    .addVmNetworkConfigTableItem(new VmNetworkConfigEntry().vmNetworkConfigParent("xenbr0")
                            .vmNetworkConfigAddress("198.51.100.1"));
            VirtualRouter created = routers.createRouter(gen1, "10s", null, "gen1-once");
            assertThat(created.getVmIndex()).isPositive();
            // Sent again with its Idempotency-Key (the answer was lost, say): the same VR, not a 409.
            assertThat(routers.createRouter(gen1, "10s", null, "gen1-once").getVmIndex()).isEqualTo(created.getVmIndex());
            assertThat(created.getVmEntry().getVmOperState()).isEqualTo(VmEntry.VmOperStateEnum.RUNNING);
            int i = created.getVmIndex();

            VirtualRouter read = routers.getRouter(i, null, null);
            assertThat(read.getVmName()).isEqualTo("gen1");
            assertThat(read.getVmEntry().getVmRouterAddr()).isEqualTo("198.51.100.1");
            assertThat(read.getVmNetworkTable()).hasSize(1);

            assertThat(routers.stopRouter(i, "10s", null, "*", null).getVmEntry().getVmOperState())
                    .isEqualTo(VmEntry.VmOperStateEnum.SHUTDOWN);
            VirtualRouter resized = routers.reconfigureRouter(i, new VirtualRouter().vmConfigMemory(512), "10s", null, null, null);
            assertThat(resized.getVmConfigMemory()).isEqualTo(512);
            assertThat(routers.startRouter(i, "10s", null, null, null).getVmEntry().getVmOperState())
                    .isEqualTo(VmEntry.VmOperStateEnum.RUNNING);

            VmNetworkConfigEntry added = routers.addInterface(i,
                    new VmNetworkConfigEntry().vmNetworkConfigParent("xenbr1"), "10s", null, null, null);
            assertThat(added.getVmNetworkConfigIndex()).isEqualTo(2);
            assertThat(routers.listInterfaces(i, null, null).getVmNetworkConfigEntry()).hasSize(2);

            VirtualRouters batch = routers.createRouters(new VirtualRouters()
                    .virtualRouter(List.of(new VirtualRouter().vmName("gen2"), new VirtualRouter().vmName("gen3"))), "10s", null, null);
            assertThat(batch.getVirtualRouter()).extracting(VirtualRouter::getVmName).containsExactly("gen2", "gen3");
            VirtualRouters page = routers.listRouters("gen*", "running", null, 0, 10, null, null);
            assertThat(page.getTotal()).isEqualTo(3);

            assertThat(new HypervisorApi(client(server, "viewer", "viewer")).getHypervisor().getVmConfiguredVMs()).isEqualTo(3);

            // Errors arrive as ApiException with the problem details body.
            ApiException conflict = catchThrowableOfType(ApiException.class,
                    () -> routers.createRouter(new VirtualRouter().vmName("gen1"), null, null, null));
            assertThat(conflict.getCode()).isEqualTo(409);
            assertThat(conflict.getResponseBody()).contains("\"field\":\"vmName\"");
            ApiException stale = catchThrowableOfType(ApiException.class,
                    () -> routers.stopRouter(i, null, null, "\"not-its-version\"", null));
            assertThat(stale.getCode()).isEqualTo(412);
            ApiException forbidden = catchThrowableOfType(ApiException.class,
                    () -> new RoutersApi(client(server, "viewer", "viewer")).removeRouter(i, null, null, null, null));
            assertThat(forbidden.getCode()).isEqualTo(403);

            routers.removeRouter(i, "10s", null, null, null);
            ApiException gone = catchThrowableOfType(ApiException.class, () -> routers.getRouter(i, null, null));
            assertThat(gone.getCode()).isEqualTo(404);
        }
    }
}
