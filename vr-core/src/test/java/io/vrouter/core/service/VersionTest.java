package io.vrouter.core.service;

import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.Accepted;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.NotFoundException;
import io.vrouter.core.spi.PreconditionFailedException;
import io.vrouter.core.spi.RouterQuery;
import io.vrouter.core.spi.Version;
import io.vrouter.core.spi.VrException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The versions behind REST's and RESTCONF's ETags, and the If-Match of a change set. */
class VersionTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private static VmConfigEntry named(String name) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmName = name;
        return c;
    }

    @Test
    void aVrsVersionChangesWithItsRowAndItsStateAndNotWithReads() throws Exception {
        try (ServiceFixture f = new ServiceFixture(dir)) {
            Set<String> seen = new HashSet<>();
            Accepted a = SingleVr.create(f.service, vr("v1"));
            int i = a.accepted().vmIndex;
            assertThat(seen.add(a.version().tag())).isTrue();
            a.await(WAIT);
            Version running = f.service.version(i).orElseThrow();
            assertThat(seen.add(running.tag())).as("preparing -> running is a new version").isTrue();
            f.service.get(i);
            f.service.list(new RouterQuery(null, null, null, 0, 10));
            assertThat(f.service.version(i)).contains(running);

            Version store = f.service.version();
            Accepted renamed = SingleVr.reconfigure(f.service, i, named("v1b"));
            assertThat(renamed.version().tag()).as("the row as accepted is a new version").isNotEqualTo(running.tag());
            assertThat(seen.add(renamed.version().tag())).isTrue();
            assertThat(f.service.version().tag()).isNotEqualTo(store.tag());
            renamed.await(WAIT);
            assertThat(seen.add(f.service.version(i).orElseThrow().tag())).as("configChanged once renamed on the host").isTrue();

            Version beforeStop = f.service.version(i).orElseThrow();
            SingleVr.setAdminState(f.service, i, AdminState.SHUTDOWN).await(WAIT);
            Version stopped = f.service.version(i).orElseThrow();
            assertThat(stopped.tag()).isNotEqualTo(beforeStop.tag());
            assertThat(stopped.modified()).isAfterOrEqualTo(beforeStop.modified());

            // A VR's change is the datastore's; a VR gone is too, though it has no version left.
            int other = SingleVr.create(f.service, vr("v2")).accepted().vmIndex;
            Version withOther = f.service.version();
            SingleVr.remove(f.service, other).await(WAIT);
            assertThat(f.service.version(other)).isEmpty();
            assertThat(f.service.version().tag()).isNotEqualTo(withOther.tag());
            assertThat(f.service.version(i)).contains(stopped);
        }
    }

    @Test
    void tagsDoNotRepeatAcrossARestart() throws Exception {
        String before;
        int i;
        try (ServiceFixture f = new ServiceFixture(dir)) {
            i = SingleVr.create(f.service, vr("kept")).accepted().vmIndex;
            f.service.version(i);
            Thread.sleep(5); // the next run's name is its start's millisecond
            before = f.service.version(i).orElseThrow().tag();
        }
        try (ServiceFixture f = new ServiceFixture(dir)) {
            assertThat(f.service.version(i).orElseThrow().tag()).isNotEqualTo(before);
        }
    }

    @Test
    void aSetWhoseConditionFailsIsRefusedAndChangesNothing() throws Exception {
        try (ServiceFixture f = new ServiceFixture(dir)) {
            int i = SingleVr.create(f.service, vr("cond")).accepted().vmIndex;
            Version read = f.service.version(i).orElseThrow();
            SingleVr.reconfigure(f.service, i, named("meanwhile")).await(WAIT);
            ChangeSet stale = ChangeSet.builder().edit(i, ChangeSet.columns(named("mine")))
                    .provided(i, v -> v.equals(read)).build();
            assertThatThrownBy(() -> f.service.apply(stale)).isInstanceOfSatisfying(PreconditionFailedException.class,
                    e -> {
                        assertThat(e.reason()).isEqualTo(VrException.Reason.CHANGED);
                        assertThat(e.vmIndex()).isEqualTo(i);
                    });
            assertThatThrownBy(() -> f.service.validate(stale)).isInstanceOf(PreconditionFailedException.class);
            assertThat(f.service.getConfig(i).orElseThrow().vmName).isEqualTo("meanwhile");

            Version now = f.service.version(i).orElseThrow();
            f.service.apply(ChangeSet.builder().edit(i, ChangeSet.columns(named("mine")))
                    .provided(i, v -> v.equals(now)).build()).only().await(WAIT);
            assertThat(f.service.getConfig(i).orElseThrow().vmName).isEqualTo("mine");

            // The datastore's condition, and a VR that is not there (its 404 comes before any 412).
            Version store = f.service.version();
            SingleVr.create(f.service, vr("another"));
            assertThatThrownBy(() -> f.service.apply(ChangeSet.builder().remove(i).provided(v -> v.equals(store)).build()))
                    .isInstanceOf(PreconditionFailedException.class);
            assertThatThrownBy(() -> f.service.apply(ChangeSet.builder().remove(999).provided(999, v -> false).build()))
                    .isInstanceOf(NotFoundException.class);
        }
    }
}
