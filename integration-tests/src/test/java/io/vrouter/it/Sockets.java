package io.vrouter.it;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Raw TCP clients for the tests of connection limits, from any loopback address (all of 127/8 is lo). */
public final class Sockets {
    private Sockets() {
    }

    /** A connection to a loopback port from the given source address (127.0.0.2, ...). */
    public static Socket connectFrom(String source, int port) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
        return s;
    }

    /** Whether the server closed the socket within the time (reading whatever it wrote before). */
    public static boolean closedWithin(Socket s, int millis) throws IOException {
        s.setSoTimeout(millis);
        try {
            InputStream in = s.getInputStream();
            while (in.read() >= 0) {
                // what the server said before closing
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /** The status code of a REST read with HTTP Basic credentials, sent from the given loopback address. */
    public static String restStatusFrom(String source, int port, String user, String password) throws IOException {
        try (Socket s = connectFrom(source, port)) {
            String auth = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().write(("GET /api/v1/hypervisor HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                    + "Authorization: Basic " + auth + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\n') line.append((char) c);
            return line.toString().split(" ")[1];
        }
    }
}
