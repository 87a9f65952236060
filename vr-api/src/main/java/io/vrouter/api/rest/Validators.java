package io.vrouter.api.rest;

import io.vrouter.core.spi.PreconditionFailedException;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.Version;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * RFC 9110's validators of the VR resources, REST's and RESTCONF's alike, from the service's
 * {@link Version}s: a strong ETag and Last-Modified on a VR and what belongs to it (RESTCONF: on the
 * datastore too), a weak ETag on REST's lists (they carry counters sampled at each read); on REST's
 * representation of a VR with the counters the host reports, a {@link #sampled} tag that moves with them;
 * If-None-Match and If-Modified-Since on reads (304), and If-Match on writes, made a condition of the
 * change set so that the service checks it under its lock, atomically with the change (412 when the
 * VR is no longer at that version; If-None-Match on a write likewise). If-Unmodified-Since is RESTCONF's only (RFC 8040 section 3.4.1;
 * REST leaves it out, vr-api/README.md says why). Malformed tag lists are a 400 (Jersey's own
 * evaluation threw a 500), an unreadable date is ignored (RFC 9110 §13.1.3).
 */
public final class Validators {
    /** One entity-tag of an If-Match list: optional W/ and the quoted opaque tag (RFC 9110 §8.8.3). */
    private static final Pattern TAG = Pattern.compile("\\s*(W/)?\"([\\x21\\x23-\\x7e\\x80-\\xff]*)\"\\s*(,|$)");

    private Validators() {
    }

    /**
     * HTTP dates have whole seconds: compared with If-Modified-Since as sent. A sample is compared to
     * the millisecond: read again within the same second, its counters may have moved.
     */
    private static Instant lastModified(Version v) {
        return isSampled(v) ? v.modified() : v.modified().truncatedTo(ChronoUnit.SECONDS);
    }

    /**
     * The validators of a representation that carries, beside the VR of version {@code v}, counters
     * the host reports (vmUpTime, vmCpuTime, I/O and traffic counters), which move without a new
     * version: the tag is the version's, a dot and a digest of those samples, so that it changes
     * whenever the representation does (RFC 9110 §8.8.1) and If-None-Match never answers 304 once a
     * counter moved; Last-Modified is when the sample was read. If-Match and a write's If-None-Match
     * compare the version before the dot: a write is conditional on the VR, not on its counters.
     */
    public static Version sampled(Version v, long digest) {
        return new Version(v.tag() + '.' + Long.toHexString(digest), Instant.now());
    }

    private static boolean isSampled(Version v) {
        return v.tag().indexOf('.') >= 0;
    }

    /** The VR's version a tag names: the tag without its sample's digest. */
    private static String versionOf(String tag) {
        int dot = tag.indexOf('.');
        return dot < 0 ? tag : tag.substring(0, dot);
    }

    /**
     * The response's ETag (weak or strong) and Last-Modified of {@code v}, set as the header lines
     * they are: Jersey would turn an EntityTag or a Date into text on every response through a lookup of
     * its header delegates, a localised message made in advance and a SimpleDateFormat (a tenth of
     * the CPU of a GET of one VR).
     */
    public static Response.ResponseBuilder validators(Response.ResponseBuilder r, Version v, boolean weak) {
        return r.header(HttpHeaders.ETAG, (weak ? "W/\"" : "\"") + v.tag() + '"')
                .header(HttpHeaders.LAST_MODIFIED, httpDate(v.modified()));
    }

    /** An IMF-fixdate (RFC 9110 §5.6.7); the last one made is kept, as many responses carry the same. */
    static String httpDate(Instant t) {
        long second = t.getEpochSecond();
        HttpDate last = lastDate;
        if (last == null || last.second != second) {
            last = new HttpDate(second, HTTP_DATE.format(Instant.ofEpochSecond(second)));
            lastDate = last;
        }
        return last.text;
    }

    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
            .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private record HttpDate(long second, String text) {
    }

    private static volatile HttpDate lastDate;

    /**
     * A read under If-Match (or If-Unmodified-Since, when {@code unmodifiedSince}), If-None-Match and
     * If-Modified-Since (RFC 9110 §13.2.2, in that order): the 304 to answer, with its validators, or
     * null when the representation is to be sent. A failed If-Match or If-Unmodified-Since is a 412.
     * {@code weak}: the representation's ETag is weak (REST's lists), so no tag an If-Match lists matches it.
     */
    public static Response notModified(HttpHeaders headers, boolean weak, Version v, boolean unmodifiedSince) {
        Predicate<Version> holds = condition(headers, weak, unmodifiedSince);
        if (holds != null && !holds.test(v)) throw changed();
        List<String> noneMatch = headers.getRequestHeader(HttpHeaders.IF_NONE_MATCH);
        if (noneMatch != null && !noneMatch.isEmpty()) {
            // Weak comparison: W/ or not, the opaque tags are compared.
            String value = String.join(",", noneMatch).trim();
            if (value.equals("*")) return notModified(v, weak);
            for (String[] t : tags(HttpHeaders.IF_NONE_MATCH, value)) {
                if (t[1].equals(v.tag())) return notModified(v, weak);
            }
            return null;
        }
        Instant since = date(headers.getHeaderString(HttpHeaders.IF_MODIFIED_SINCE));
        return since != null && !lastModified(v).isAfter(since) ? notModified(v, weak) : null;
    }

    private static Response notModified(Version v, boolean weak) {
        return validators(Response.notModified(), v, weak).build();
    }

    /** REST's read: If-Unmodified-Since is not REST's. */
    static Response notModified(HttpHeaders headers, boolean weak, Version v) {
        return notModified(headers, weak, v, false);
    }

    /**
     * The condition a write's headers put on the version of what it writes (RFC 9110 §13.2.2): If-Match,
     * or without it If-Unmodified-Since when {@code unmodifiedSince}, and If-None-Match (none of its
     * tags may be the version's; * never holds, the resource is there); null when there is none. For
     * a write that must hold also when nothing is to change, test it first, then make it the change
     * set's condition.
     */
    public static Predicate<Version> condition(HttpHeaders headers, boolean unmodifiedSince) {
        Predicate<Version> holds = condition(headers, false, unmodifiedSince);
        List<String> noneMatch = headers.getRequestHeader(HttpHeaders.IF_NONE_MATCH);
        if (noneMatch == null || noneMatch.isEmpty()) return holds;
        String value = String.join(",", noneMatch).trim();
        List<String> tags = new ArrayList<>();
        if (!value.equals("*")) {
            for (String[] t : tags(HttpHeaders.IF_NONE_MATCH, value)) tags.add(t[1]);
        }
        for (int i = 0; i < tags.size(); i++) tags.set(i, versionOf(tags.get(i)));
        Predicate<Version> none = v -> !value.equals("*") && !tags.contains(versionOf(v.tag()));
        return holds == null ? none : holds.and(none);
    }

    /** The answer to a condition that does not hold: the service's own refusal, 412 on REST and RESTCONF. */
    public static PreconditionFailedException changed() {
        return new PreconditionFailedException("the resource is no longer at the version If-Match"
                + " or If-Unmodified-Since names");
    }

    private static Predicate<Version> condition(HttpHeaders headers, boolean weakValidator, boolean unmodifiedSince) {
        Predicate<Version> ifMatch = ifMatch(headers.getRequestHeader(HttpHeaders.IF_MATCH), weakValidator);
        if (ifMatch != null || !unmodifiedSince) return ifMatch;
        Instant date = date(headers.getHeaderString(HttpHeaders.IF_UNMODIFIED_SINCE));
        return date == null ? null : v -> !lastModified(v).isAfter(date);
    }

    /** An HTTP date, or null when absent or unreadable (then the field is ignored, RFC 9110 §13.1.3). */
    private static Instant date(String field) {
        if (field == null) return null;
        try {
            return ZonedDateTime.parse(field.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * The condition of If-Match header fields: null when there are none, "*" holds for any version
     * (the VR exists: the service answers 404 otherwise), else one of the listed tags must name the
     * version by strong comparison (a {@link #sampled} tag by its version), so a weak tag never
     * matches (RFC 9110 §13.1.1), nor does any tag a weak validator.
     */
    private static Predicate<Version> ifMatch(List<String> fields, boolean weakValidator) {
        if (fields == null || fields.isEmpty()) return null;
        String value = String.join(",", fields).trim();
        if (value.equals("*")) return v -> true;
        List<String> strong = new ArrayList<>();
        for (String[] t : tags(HttpHeaders.IF_MATCH, value)) {
            if (t[0] == null && !weakValidator) strong.add(versionOf(t[1]));
        }
        return v -> strong.contains(versionOf(v.tag()));
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
