package io.vrouter.api.console;

import io.swagger.v3.oas.annotations.Hidden;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The web console: static files from the jar, served at {@code /} (at the context path in a servlet
 * container). The console is a client of the public REST API like any other; it needs no credentials
 * to load, and asks for them before it calls the API.
 *
 * <p>Every file goes out with a Content-Security-Policy that allows scripts, styles and connections
 * to this origin only (no inline script, no eval, no framing), and with an ETag, so that a reload
 * costs one 304 per file.
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

    private record StaticFile(byte[] bytes, String type, EntityTag tag) {
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
        Response.ResponseBuilder notModified = request.evaluatePreconditions(f.tag);
        Response.ResponseBuilder r = notModified != null ? notModified : Response.ok(f.bytes, f.type);
        return r.tag(f.tag)
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
            return new StaticFile(bytes, TYPES.get(ext), new EntityTag(hash));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
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
