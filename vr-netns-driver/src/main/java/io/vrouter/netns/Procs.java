package io.vrouter.netns;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Host processes as /proc shows them. */
final class Procs {
    private Procs() {
    }

    /**
     * Whether the process runs: it exists and is not a zombie. An exited daemon stays a zombie until
     * init reaps it, which some inits do late.
     */
    static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int close = stat.lastIndexOf(')');
            char state = close < 0 || close + 2 >= stat.length() ? '?' : stat.charAt(close + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException gone) {
            return false;
        }
    }

    /** The process's command name, or empty when there is no such process. */
    static String comm(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip();
        } catch (IOException gone) {
            return "";
        }
    }
}
