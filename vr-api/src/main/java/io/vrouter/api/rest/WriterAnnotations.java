package io.vrouter.api.rest;

import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.lang.annotation.Annotation;

/**
 * Hands the message body writers no annotations. Jersey passes them the resource method's, and
 * Jackson's JAX-RS provider looks up its configuration for the endpoint by their hash, which for an
 * annotation is computed by reflection over all its members, nested annotations included, on every
 * response: with the OpenAPI annotations on each resource method that was the largest single cost of
 * a GET of one VR (16% of its CPU). None of them is for a writer: no resource method carries a
 * Jackson annotation (such as {@code @JsonView}) or a JAXB one ({@code WriterAnnotationsTest}).
 */
final class WriterAnnotations implements WriterInterceptor {
    private static final Annotation[] NONE = {};

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        context.setAnnotations(NONE);
        context.proceed();
    }
}
