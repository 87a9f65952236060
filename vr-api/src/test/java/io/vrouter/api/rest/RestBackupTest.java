package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Backup and restore over REST, between two servers: the provider saves one router's VRs (a tenant's
 * user may not), restores them on an empty router, which then holds the same rows field by field, and
 * restores again, which makes nothing; a backup of a later format is refused by name.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestBackupTest {
    private static final String JSON = "application/json";
    private final ObjectMapper json = new ObjectMapper();
    private RestServer a;
    private RestServer b;
    private RestClient restA;
    private RestClient restB;

    @BeforeAll
    void start() throws Exception {
        a = RestServer.start("vrouter-backup-a", RestTenantsTest.TENANTS);
        b = RestServer.start("vrouter-backup-b", RestTenantsTest.TENANTS);
        restA = new RestClient(a.port());
        restB = new RestClient(b.port());
        created(restA.post("/api/v1/routers/batch?wait=10s", RestTenantsTest.INP, JSON, """
                {"virtualRouter":[
                 {"vmIndex":4,"vmName":"edge","vmConfigCpuNumber":2,"vmConfigMemory":1024,"vmConfigDescription":"edge router",
                  "vmConfigCpuWeight":300,"vmNetworkConfigTable":[
                   {"vmNetworkConfigIndex":1,"vmNetworkConfigParent":"br0","vmNetworkConfigPhysAddress":"02:00:5e:00:53:04",
                    "vmNetworkConfigAddressType":"ipv4","vmNetworkConfigAddress":"192.0.2.4","vmNetworkConfigPrefixLength":24,
                    "vmNetworkConfigRateIn":20000,"vmNetworkConfigRateOut":50000}]},
                 {"vmIndex":7,"vmName":"acme-l","vmConfigTenant":"acme","vmNetworkConfigTable":[
                   {"vmNetworkConfigIndex":1,"vmNetworkConfigLinkType":"peer","vmNetworkConfigPeerRouter":8,"vmNetworkConfigPeerInterface":1}]},
                 {"vmIndex":8,"vmName":"acme-r","vmConfigTenant":"acme","vmAdminState":"shutdown","vmNetworkConfigTable":[
                   {"vmNetworkConfigIndex":1,"vmNetworkConfigLinkType":"peer","vmNetworkConfigPeerRouter":7,"vmNetworkConfigPeerInterface":1}]}]}
                """));
    }

    @AfterAll
    void stop() {
        if (a != null) a.close();
        if (b != null) b.close();
    }

    private static void created(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    /** Each VR's configured row, as GET /routers shows it: the columns a client writes, no state. */
    private List<String> rows(RestClient rest) throws Exception {
        HttpResponse<String> r = rest.get("/api/v1/routers", RestTenantsTest.INP, JSON);
        List<String> rows = new ArrayList<>();
        for (JsonNode vr : json.readTree(r.body()).get("virtualRouter")) {
            var row = (com.fasterxml.jackson.databind.node.ObjectNode) vr.deepCopy();
            row.remove(List.of("vmEntry", "vmNetworkTable", "vmCpuTable", "vmStorageTable"));
            rows.add(row.toString());
        }
        return rows;
    }

    @Test
    void theProviderSavesARouterAndRestoresItOnAnEmptyOneFieldByFieldAndAgainMakesNothing() throws Exception {
        assertThat(restA.get("/api/v1/backup", RestTenantsTest.ALICE, JSON).statusCode()).isEqualTo(403);
        HttpResponse<String> saved = restA.get("/api/v1/backup", RestTenantsTest.INP, JSON);
        assertThat(saved.statusCode()).as(saved.body()).isEqualTo(200);
        JsonNode backup = json.readTree(saved.body());
        assertThat(backup.get("format").asInt()).isEqualTo(1);
        assertThat(backup.get("routers")).extracting(r -> r.get("vmName").asText()).containsExactly("edge", "acme-l", "acme-r");
        assertThat(backup.get("routers").get(0).get("vmUUID").asText()).hasSize(36);

        assertThat(restB.post("/api/v1/backup", RestTenantsTest.ALICE, JSON, saved.body()).statusCode()).isEqualTo(403);
        assertThat(b.service().indices()).isEmpty();
        HttpResponse<String> restored = restB.post("/api/v1/backup?wait=10s", RestTenantsTest.INP, JSON, saved.body());
        assertThat(restored.statusCode()).as(restored.body()).isEqualTo(200);
        JsonNode report = json.readTree(restored.body());
        assertThat(report.get("created").asInt()).isEqualTo(3);
        assertThat(report.get("routers")).extracting(r -> r.get("vmName").asText() + " " + r.get("vmIndex").asInt() + " "
                + r.get("action").asText()).containsExactly("edge 4 created", "acme-l 7 created", "acme-r 8 created");
        assertThat(rows(restB)).isEqualTo(rows(restA));
        assertThat(json.readTree(restB.get("/api/v1/routers/4", RestTenantsTest.INP, JSON).body()).get("vmEntry").get("vmUUID"))
                .isEqualTo(backup.get("routers").get(0).get("vmUUID"));

        HttpResponse<String> again = restB.post("/api/v1/backup", RestTenantsTest.INP, JSON, saved.body());
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(json.readTree(again.body()).get("created").asInt()).isZero();
        assertThat(json.readTree(again.body()).get("routers")).extracting(r -> r.get("action").asText()).containsOnly("present");
        assertThat(rows(restB)).isEqualTo(rows(restA));
    }

    @Test
    void aBackupOfALaterFormatIsRefusedByName() throws Exception {
        HttpResponse<String> r = restB.post("/api/v1/backup", RestTenantsTest.INP, JSON, "{\"format\":9,\"routers\":[]}");
        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode problem = json.readTree(r.body());
        assertThat(problem.get("field").asText()).isEqualTo("format");
        assertThat(problem.get("detail").asText()).contains("format 9");
    }
}
