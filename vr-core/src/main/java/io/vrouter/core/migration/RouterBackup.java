package io.vrouter.core.migration;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.VirtualRouters;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A whole router's configuration in one document: every VR with its interfaces, links, rates, CPU
 * weight and identity. {@code GET /api/v1/backup} writes it, a restore re-creates from it what is
 * missing, and a migration carries one VR in the same format. Versioned as the data directory's files
 * are ({@link io.vrouter.core.persistence.FileFormat}): it states its format first, and a release reads the formats it or an
 * earlier release wrote and refuses a later one by name, so that a backup made by this release
 * restores in the next.
 */
@JsonPropertyOrder({"format", "taken", "driver", "routers"})
public class RouterBackup {
    /** The format this release writes; it reads 1 to this. */
    public static final int FORMAT = 1;

    public Integer format;
    /** When it was taken (ISO 8601, UTC). */
    public String taken;
    /** The driver of the router it was taken on (informative: a backup restores on any driver that offers what it uses). */
    public String driver;
    public List<BackedUpRouter> routers = new ArrayList<>();

    /** Every VR the caller's view shows, in vmIndex order. */
    public static RouterBackup of(VirtualRouters view) {
        return of(view, List.copyOf(view.indices()));
    }

    /** The given VRs (a migration's one), those that exist. */
    public static RouterBackup of(VirtualRouters view, List<Integer> indices) {
        RouterBackup b = empty(view.driverName());
        for (int vmIndex : indices) {
            view.getConfig(vmIndex).ifPresent(row -> b.routers.add(BackedUpRouter.of(row,
                    view.get(vmIndex).map(vr -> vr.vmEntry == null ? null : vr.vmEntry.vmUUID).orElse(null))));
        }
        return b;
    }

    /**
     * The stored rows of a stopped server's data directory: no vmUUID, which the host gives and the
     * data directory does not keep (a restore then lets the host give new ones).
     */
    public static RouterBackup ofRows(String driver, List<VmConfigEntry> rows) {
        RouterBackup b = empty(driver);
        rows.forEach(row -> b.routers.add(BackedUpRouter.of(row, null)));
        return b;
    }

    private static RouterBackup empty(String driver) {
        RouterBackup b = new RouterBackup();
        b.format = FORMAT;
        b.taken = Instant.now().toString();
        b.driver = driver;
        return b;
    }

    public byte[] toJson() {
        try {
            return ModelJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(this);
        } catch (IOException e) {
            throw new IllegalStateException("a backup that cannot be written as JSON", e);
        }
    }

    /**
     * Reads a backup, checking its format before binding the rest, so that a later release's fields
     * are reported as its format, not as mistakes.
     *
     * @throws ValidationException naming what is wrong (field {@code format}, or where the JSON is)
     */
    public static RouterBackup read(byte[] json) {
        ObjectMapper mapper = ModelJson.mapper();
        JsonNode tree;
        try {
            tree = mapper.readTree(json);
        } catch (JsonProcessingException e) {
            throw new ValidationException("body", "a backup is a JSON object: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ValidationException("body", "a backup is a JSON object: " + e.getMessage());
        }
        if (tree == null || !tree.isObject()) throw new ValidationException("body", "a backup is a JSON object");
        JsonNode f = tree.get("format");
        if (f == null || !f.isInt()) throw new ValidationException("format", "a backup states its format (an integer)");
        if (f.intValue() < 1 || f.intValue() > FORMAT) {
            throw new ValidationException("format", "the backup is in format " + f.intValue() + ", which this release"
                    + " of vrouter does not read (it reads formats 1 to " + FORMAT + "; a newer release writes later"
                    + " ones): restore it with the release that took it, or a later one");
        }
        try {
            RouterBackup b = mapper.treeToValue(tree, RouterBackup.class);
            if (b.routers == null) b.routers = new ArrayList<>();
            return b;
        } catch (JsonProcessingException e) {
            throw new ValidationException("body", "not a vrouter backup: " + e.getOriginalMessage());
        }
    }
}
