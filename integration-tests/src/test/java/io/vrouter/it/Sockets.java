package io.vrouter.it;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

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
}
