package io.vrouter.api.rest;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;

/** An RFC 9457 problem details object; XML in the RFC's namespace. */
@XmlRootElement(name = "problem", namespace = Problem.XML_NAMESPACE)
@XmlType(name = "problem", namespace = Problem.XML_NAMESPACE,
        propOrder = {"type", "title", "status", "detail", "instance", "field", "errorId"})
@XmlAccessorType(XmlAccessType.FIELD)
public class Problem {
    public static final String XML_NAMESPACE = "urn:ietf:rfc:7807";
    public static final MediaType JSON = new MediaType("application", "problem+json");
    public static final MediaType XML = new MediaType("application", "problem+xml");

    public String type;
    public String title;
    public int status;
    public String detail;
    public String instance;
    /** The MIB object name of the offending field, when one field is at fault. */
    public String field;
    /** For a 5xx: the id of this error in the server's log. */
    public String errorId;

    public Problem() {
    }

    public Problem(Response.StatusType status, String detail, String field) {
        this.type = "about:blank";
        this.title = status.getReasonPhrase();
        this.status = status.getStatusCode();
        this.detail = detail;
        this.field = field;
    }
}
