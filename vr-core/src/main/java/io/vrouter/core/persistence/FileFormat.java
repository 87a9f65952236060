package io.vrouter.core.persistence;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The format versions of the files in the data directory. Every file says which format it is written
 * in (the files of the releases before versions were written say none: they are format 1). A release
 * reads every format that it or an earlier release wrote, and refuses a newer one, naming the file and
 * the version, rather than guess at it: an operator who goes back to an older release after an upgrade
 * is told so instead of finding files called damaged.
 */
public final class FileFormat {
    /** The field (JSON) or key (properties) that holds the version. */
    public static final String FIELD = "format";
    private static final JsonFactory JSON = new JsonFactory();

    private FileFormat() {
    }

    /**
     * The version a file (or, with {@code where}, a line of it) says it is in, null meaning none (format
     * 1), when this release reads it.
     *
     * @throws IllegalStateException naming the file, the place and the version, when it does not
     */
    public static int readable(Path file, String where, Integer stated, int newest) {
        int version = stated == null ? 1 : stated;
        if (version >= 1 && version <= newest) return version;
        throw new IllegalStateException(file + where + " is in format " + version + ", which this release of vrouter "
                + "does not read (it reads formats 1 to " + newest + "; a newer release writes later ones). Nothing has "
                + "been changed. Run the release that wrote it, or restore the data directory from the backup taken "
                + "before the upgrade.");
    }

    /**
     * The version a JSON object states in its first field, read before the object is bound, so that a
     * newer format's other fields cannot make it look damaged; null when it states none.
     */
    static Integer leadingVersion(byte[] b, int offset, int length) {
        try (JsonParser p = JSON.createParser(b, offset, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT || !FIELD.equals(p.nextFieldName())) return null;
            return p.nextToken() == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : null;
        } catch (IOException notJson) {
            return null; // what binding the object then says
        }
    }

    /**
     * Replaces {@code file} whole with {@code bytes}, durably: written to a sibling {@code .tmp} and forced,
     * renamed over the file, and the directory forced so that the rename itself survives a crash. Not a
     * FileChannel for the write: one closes for good when its thread is interrupted (see ConfigStore).
     */
    public static void replaceDurably(Path file, byte[] bytes) throws java.io.IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(tmp.toFile(), "rw")) {
            f.setLength(0);
            f.write(bytes);
            f.getFD().sync();
        }
        java.nio.file.Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        try (java.nio.channels.FileChannel dir = java.nio.channels.FileChannel.open(file.toAbsolutePath().getParent(),
                java.nio.file.StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
