package io.vrouter.api.rest;

import io.vrouter.core.service.ChangeSet;
import io.vrouter.core.service.ValidationException;
import io.vrouter.core.service.Version;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * RFC 9110's validators of the VR resources, from the service's {@link Version}s: a strong ETag and
 * Last-Modified on a VR and what belongs to it, a weak ETag on lists (they carry counters sampled at
 * each read); If-None-Match and If-Modified-Since on reads (304), and If-Match on writes, made a
 * condition of the change set so that the service checks it under its lock, atomically with the
 * change (412 with problem details when the VR is no longer at that version).
 */
final class Validators {
    /** One entity-tag of an If-Match list: optional W/ and the quoted opaque tag (RFC 9110 §8.8.3). */
    private static final Pattern TAG = Pattern.compile("\\s*(W/)?\"([\\x21\\x23-\\x7e\\x80-\\xff]*)\"\\s*(,|$)");

    private Validators() {
    }

    static EntityTag strong(Version v) {
        return new EntityTag(v.tag());
    }

    static EntityTag weak(Version v) {
        return new EntityTag(v.tag(), true);
    }

    /** HTTP dates have whole seconds: compared with If-Modified-Since as sent. */
    static Date lastModified(Version v) {
        return Date.from(v.modified().truncatedTo(ChronoUnit.SECONDS));
    }

    /**
     * A read under If-Match, If-None-Match and If-Modified-Since (RFC 9110 §13.2.2, in that order):
     * the 304 to answer, with its validators, or null when the representation is to be sent. A
     * failed If-Match is a 412; a malformed entity-tag list a 400; a date that cannot be read is
     * ignored, as the RFC says.
     */
    static Response notModified(HttpHeaders headers, EntityTag tag, Version v) {
        Predicate<Version> ifMatch = ifMatch(headers.getRequestHeader(HttpHeaders.IF_MATCH), tag.isWeak());
        if (ifMatch != null && !ifMatch.test(v)) {
            throw new ProblemException(Response.Status.PRECONDITION_FAILED, "the resource is no longer at the version"
                    + " If-Match names", null, null);
        }
        Response notModified = Response.notModified(tag).lastModified(lastModified(v)).build();
        List<String> noneMatch = headers.getRequestHeader(HttpHeaders.IF_NONE_MATCH);
        if (noneMatch != null && !noneMatch.isEmpty()) {
            // Weak comparison: W/ or not, the opaque tags are compared.
            String value = String.join(",", noneMatch).trim();
            if (value.equals("*")) return notModified;
            for (String[] t : tags(HttpHeaders.IF_NONE_MATCH, value)) {
                if (t[1].equals(v.tag())) return notModified;
            }
            return null;
        }
        String since = headers.getHeaderString(HttpHeaders.IF_MODIFIED_SINCE);
        if (since != null) {
            try {
                Instant date = ZonedDateTime.parse(since.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                if (!lastModified(v).toInstant().isAfter(date)) return notModified;
            } catch (DateTimeParseException ignored) {
                // An invalid date: the field is ignored (RFC 9110 §13.1.3).
            }
        }
        return null;
    }

    /** Adds the If-Match of the request, if any, to the set as a condition on the VR's version. */
    static ChangeSet.Builder ifMatch(ChangeSet.Builder set, int vmIndex, HttpHeaders headers) {
        Predicate<Version> holds = ifMatch(headers.getRequestHeader(HttpHeaders.IF_MATCH));
        return holds == null ? set : set.provided(vmIndex, holds);
    }

    /**
     * The condition of If-Match header fields: null when there are none, "*" holds for any version
     * (the VR exists: the service answers 404 otherwise), else one of the listed tags must be the
     * version's by strong comparison, so a weak tag never matches (RFC 9110 §13.1.1), nor does any
     * tag a weak validator.
     */
    static Predicate<Version> ifMatch(List<String> fields) {
        return ifMatch(fields, false);
    }

    private static Predicate<Version> ifMatch(List<String> fields, boolean weakValidator) {
        if (fields == null || fields.isEmpty()) return null;
        String value = String.join(",", fields).trim();
        if (value.equals("*")) return v -> true;
        List<String> strong = new ArrayList<>();
        for (String[] t : tags(HttpHeaders.IF_MATCH, value)) {
            if (t[0] == null && !weakValidator) strong.add(t[1]);
        }
        return v -> strong.contains(v.tag());
    }

    /** The entity-tags of a list: each its W/ (or null) and its opaque tag; a malformed list is a 400. */
    private static List<String[]> tags(String field, String value) {
        List<String[]> tags = new ArrayList<>();
        Matcher m = TAG.matcher(value);
        int at = 0;
        while (at < value.length()) {
            if (!m.find(at) || m.start() != at) {
                throw new ValidationException(field, "must be * or a list of entity tags such as \"1a2b-7\"");
            }
            tags.add(new String[] {m.group(1), m.group(2)});
            at = m.end();
        }
        return tags;
    }
}
