package io.vrouter.api.rest;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** A tiny HTTP client for the tests: real requests over loopback with the JDK's client. */
final class RestClient {
    final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    RestClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    HttpRequest.Builder request(String path, String auth) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (auth != null) b.header("Authorization", auth);
        return b;
    }

    HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path, String auth, String accept) throws IOException, InterruptedException {
        return send(request(path, auth).header("Accept", accept).GET());
    }

    HttpResponse<String> post(String path, String auth, String contentType, String body)
            throws IOException, InterruptedException {
        return send(request(path, auth).header("Content-Type", contentType).header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    HttpResponse<String> delete(String path, String auth) throws IOException, InterruptedException {
        return send(request(path, auth).DELETE());
    }

    HttpClient http() {
        return http;
    }
}
