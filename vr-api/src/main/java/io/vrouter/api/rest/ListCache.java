package io.vrouter.api.rest;

import io.vrouter.core.model.VirtualRouterList;
import io.vrouter.core.spi.RouterQuery;
import io.vrouter.core.spi.Version;
import io.vrouter.core.spi.VirtualRouters;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Lists of VRs kept with their encoded bodies while nothing changes. A list of 1,000 VRs is about a
 * megabyte of JSON, and building and encoding it took 5 ms of CPU per request, ten times what nginx
 * spends sending the same bytes; a list asked for again is now sent as the bytes encoded the first
 * time. Any change of the service's version (a VR created, changed, removed, or changing state)
 * makes every kept list stale, and so does age: the columns that count time (vmUpTime, vmCpuTime) are at most
 * {@code rest.list-max-age} old (default 1 s), as Net-SNMP keeps its tables for a few seconds. Stale lists are dropped
 * when the next list is built. A list is kept for the tenant it was built for (null: the provider's,
 * every VR): a tenant's user is never sent a list built for another.
 */
final class ListCache implements WriterInterceptor {
    /** Few lists, and none larger than this many VRs, so that what is kept stays a few megabytes. */
    private static final int MAX_LISTS = 4;
    static final int MAX_VRS = 2000;
    /**
     * Written in slices, a system call each: the JDK copies each write into a temporary direct buffer
     * of its size, kept per thread, and the launcher allows 8 MB of direct memory in all.
     */
    private static final int SLICE = 32 * 1024;

    /** A list as it was built, the service's version then, and its encodings by media type. */
    private record Kept(VirtualRouterList list, Version version, long builtNanos, Map<String, byte[]> encoded) {
    }

    /** A query as asked by a tenant's users (tenant null: the provider's). */
    private record Key(String tenant, RouterQuery query) {
    }

    private final long maxAgeNanos;
    private final VirtualRouters service;
    private final Map<Key, Kept> lists = new LinkedHashMap<>(MAX_LISTS, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Kept> eldest) {
            return size() > MAX_LISTS;
        }
    };
    /** The kept lists by identity, for the interceptor (which sees the entity only). */
    private final Map<VirtualRouterList, Kept> byList = new ConcurrentHashMap<>();

    ListCache(VirtualRouters service, Duration maxAge) {
        this.maxAgeNanos = maxAge.toNanos();
        this.service = service;
    }

    /**
     * The list of the query as the tenant's users see it (null: the provider's), which {@code build}
     * makes: the one kept, when nothing changed since and it is fresh, or a new one.
     * One list is built at a time, so that requests arriving together while it is built (several
     * clients polling) wait for it and share it instead of each building their own.
     */
    VirtualRouterList list(String tenant, RouterQuery query, Supplier<VirtualRouterList> build) {
        Key key = new Key(tenant, query);
        synchronized (lists) {
            Kept k = lists.get(key);
            if (k != null && fresh(k)) return k.list;
            // read before the list, so that the list is of this version or newer (never kept as older than it is)
            Version seen = service.version();
            VirtualRouterList list = build.get();
            long built = System.nanoTime();
            lists.values().removeIf(old -> !fresh(old));
            if (list.virtualRouter != null && list.virtualRouter.size() <= MAX_VRS) {
                lists.put(key, new Kept(list, seen, built, new ConcurrentHashMap<>()));
            }
            byList.clear();
            for (Kept kept : lists.values()) byList.put(kept.list, kept);
            return list;
        }
    }

    private boolean fresh(Kept k) {
        return k.version == service.version() && System.nanoTime() - k.builtNanos < maxAgeNanos;
    }

    /** Writes a kept list as the bytes encoded the first time it was written in that media type. */
    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        Kept k = context.getEntity() instanceof VirtualRouterList list ? byList.get(list) : null;
        if (k == null) {
            context.proceed();
            return;
        }
        String type = context.getMediaType().toString();
        OutputStream out = context.getOutputStream();
        byte[] body;
        synchronized (k) { // encoded once per media type, by the first request that needs it
            body = k.encoded.get(type);
            if (body == null) {
                ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 * 1024);
                context.setOutputStream(buffer);
                context.proceed();
                context.setOutputStream(out);
                body = buffer.toByteArray();
                k.encoded.put(type, body);
            }
        }
        context.getHeaders().putSingle(HttpHeaders.CONTENT_LENGTH, body.length); // sent with it: KnownLength
        for (int off = 0; off < body.length; off += SLICE) out.write(body, off, Math.min(SLICE, body.length - off));
    }
}
