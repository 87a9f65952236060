package io.vrouter.core.model;

import java.util.Locale;

/**
 * An SMI enumeration: an integer on SNMP, its lower-case label on REST and NETCONF. The lookups
 * here serve every enumeration of the model.
 */
public interface SmiEnum {
    /** The SNMP enumeration value. */
    int code();

    /** The label used by REST and NETCONF: the constant's name in lower camel case (HARD_DISK: hardDisk). */
    default String label() {
        String[] words = ((Enum<?>) this).name().toLowerCase(Locale.ROOT).split("_");
        StringBuilder label = new StringBuilder(words[0]);
        for (int i = 1; i < words.length; i++) label.append(Character.toUpperCase(words[i].charAt(0))).append(words[i], 1, words[i].length());
        return label.toString();
    }

    static <E extends Enum<E> & SmiEnum> E ofCode(Class<E> type, int code) {
        for (E e : type.getEnumConstants()) {
            if (e.code() == code) return e;
        }
        throw new IllegalArgumentException("no " + type.getSimpleName() + " with value " + code);
    }

    static <E extends Enum<E> & SmiEnum> E ofLabel(Class<E> type, String label) {
        for (E e : type.getEnumConstants()) {
            if (e.label().equals(label)) return e;
        }
        throw new IllegalArgumentException("no " + type.getSimpleName() + " named '" + label + "'");
    }
}
