package io.vrouter.core.spi;

import java.time.Instant;

/**
 * A version of one VR, or of all of them (the datastore), for the interfaces' validators: REST's and
 * RESTCONF's ETag and Last-Modified, and the conditions of a {@link ChangeSet}
 * ({@link ChangeSet.Builder#provided}).
 *
 * <p>A VR's version changes with every change of its row (accepted, or put back when its work failed)
 * and of its state (vmOperState, vmOperStateReason, what the driver applied: every event about it),
 * and never goes back; the datastore's changes with every VR's, and when a VR is gone. The counters
 * and times the host reports (vmUpTime, vmCpuTime, traffic and I/O counters) move between versions
 * without changing them: they are samples, read anew at each read.
 *
 * <p>The {@link #tag} is unique over the life of the data directory: it names the run of the service
 * that made it, so a restart (which starts numbering again) changes every tag once. {@link #modified}
 * is when the change was made; after a restart, the restart's time, which is never earlier than the
 * last change (the service does not keep versions across restarts).
 *
 * <p>Read the version before the representation it is sent with: the representation is then of that
 * version or newer, so a client never holds a tag that claims more than the content it came with.
 */
public record Version(String tag, Instant modified) {
}
