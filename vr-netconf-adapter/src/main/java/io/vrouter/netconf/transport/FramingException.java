package io.vrouter.netconf.transport;

import java.io.IOException;

/** The peer broke RFC 6242 framing; the session must end (RFC 6242 section 4.2). */
public class FramingException extends IOException {
    public FramingException(String message) {
        super(message);
    }
}
