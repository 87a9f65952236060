package io.vrouter.api.console;

import io.swagger.v3.oas.annotations.Hidden;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * The web console: static files from the jar, served at {@code /} (at the context path in a servlet
 * container). The console is a client of the public REST API like any other; it needs no credentials
 * to load, and asks for them before it calls the API.
 *
 * <p>Every file goes out with a Content-Security-Policy that allows scripts, styles and connections
 * to this origin only (no inline script, no eval, no framing), and with an ETag, so that a reload
 * costs one 304 per file. Each file is read and gzipped once, on its first request, and kept: a
 * client that accepts gzip gets the compressed bytes (a third of the size or less), others the file.
 */
@Hidden
@Path("")
public class ConsoleResource {
    /** Where the console's files are, beside this class. */
    private static final String ROOT = "/io/vrouter/api/console/";
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "svg", "image/svg+xml");
    /** The chart library, from its WebJar (version from the WebJar's own pom.properties). */
    private static final String UPLOT = "/META-INF/resources/webjars/uplot/%s/dist/%s";
    private static final Map<String, StaticFile> CACHE = new ConcurrentHashMap<>();
    private static volatile String uplotVersion;

    @Context
    private Request request;

    @HeaderParam(HttpHeaders.ACCEPT_ENCODING)
    private String acceptEncoding;

    /** A file as read, and gzipped when that makes it smaller (else null); each with its own ETag. */
    private record StaticFile(byte[] bytes, EntityTag tag, byte[] gzipped, EntityTag gzippedTag, String type) {
    }

    @GET
    public Response index() {
        return serve(ROOT + "index.html");
    }

    @GET
    @Path("{file: [a-z0-9-]+\\.(css|svg)}")
    public Response file(@PathParam("file") String file) {
        return serve(ROOT + file);
    }

    @GET
    @Path("js/{file: [a-z0-9-]+\\.js}")
    public Response script(@PathParam("file") String file) {
        return serve(ROOT + "js/" + file);
    }

    @GET
    @Path("lib/{file: uPlot\\.iife\\.min\\.js|uPlot\\.min\\.css}")
    public Response library(@PathParam("file") String file) {
        return serve(String.format(UPLOT, uplotVersion(), file));
    }

    private Response serve(String path) {
        Optional<StaticFile> found = Optional.ofNullable(CACHE.computeIfAbsent(path, ConsoleResource::load));
        if (found.isEmpty()) throw new jakarta.ws.rs.NotFoundException();
        StaticFile f = found.get();
        boolean gzip = f.gzipped != null && acceptsGzip(acceptEncoding);
        EntityTag tag = gzip ? f.gzippedTag : f.tag;
        Response.ResponseBuilder notModified = request.evaluatePreconditions(tag);
        Response.ResponseBuilder r = notModified != null ? notModified : Response.ok(gzip ? f.gzipped : f.bytes, f.type);
        if (gzip) r.encoding("gzip");
        return r.tag(tag)
                .header(HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING)
                .header("Cache-Control", "no-cache")
                .header("Content-Security-Policy", CSP)
                .header("X-Content-Type-Options", "nosniff")
                .header("Referrer-Policy", "no-referrer")
                .header("X-Frame-Options", "DENY")
                .build();
    }

    private static StaticFile load(String path) {
        try (InputStream in = ConsoleResource.class.getResourceAsStream(path)) {
            if (in == null) return null;
            byte[] bytes = in.readAllBytes();
            String ext = path.substring(path.lastIndexOf('.') + 1);
            String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 12);
            byte[] gzipped = gzip(bytes);
            return gzipped.length < bytes.length
                    ? new StaticFile(bytes, new EntityTag(hash), gzipped, new EntityTag(hash + "-gzip"), TYPES.get(ext))
                    : new StaticFile(bytes, new EntityTag(hash), null, null, TYPES.get(ext));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length / 2);
        // Compressed once per file, so the slowest, smallest level.
        try (GZIPOutputStream gzip = new GZIPOutputStream(out) {
            {
                def.setLevel(Deflater.BEST_COMPRESSION);
            }
        }) {
            gzip.write(bytes);
        }
        return out.toByteArray();
    }

    /**
     * Whether an Accept-Encoding header (RFC 9110 12.5.3) admits gzip: named (or x-gzip), or "*",
     * with a quality above 0. No header means the client asked for no encoding.
     */
    static boolean acceptsGzip(String acceptEncoding) {
        if (acceptEncoding == null) return false;
        Boolean gzip = null;
        boolean any = false;
        for (String coding : acceptEncoding.split(",")) {
            String[] parts = coding.split(";");
            String name = parts[0].trim().toLowerCase(Locale.ROOT);
            boolean wanted = quality(parts) > 0;
            if (name.equals("gzip") || name.equals("x-gzip")) gzip = wanted;
            else if (name.equals("*")) any = wanted;
        }
        return gzip != null ? gzip : any;
    }

    private static double quality(String[] parameters) {
        for (int i = 1; i < parameters.length; i++) {
            String p = parameters[i].trim();
            if (!p.regionMatches(true, 0, "q=", 0, 2)) continue;
            try {
                return Double.parseDouble(p.substring(2).trim());
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return 1;
    }

    private static String uplotVersion() {
        String v = uplotVersion;
        if (v != null) return v;
        try (InputStream in = ConsoleResource.class.getResourceAsStream(
                "/META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
            if (in == null) throw new jakarta.ws.rs.NotFoundException();
            Properties p = new Properties();
            p.load(in);
            return uplotVersion = p.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
