package io.vrouter.server;

import io.vrouter.api.rest.ClientAddress;
import io.vrouter.api.rest.RestApplication;
import io.vrouter.core.config.Settings;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.ServletRegistration;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import org.glassfish.jersey.servlet.ServletContainer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * vrouter inside a servlet container (Tomcat 10.1): the container serves REST through Jersey's
 * servlet, and the server started here hosts the service and the other interfaces (SNMP, NETCONF).
 *
 * <p>Settings, lowest first: the config file ({@code vrouter.config} context parameter or system
 * property, else {@code VROUTER_CONFIG}), the environment ({@code VROUTER_*}), context parameters
 * and system properties named {@code vrouter.KEY}. The data directory defaults to
 * {@code $CATALINA_BASE/vrouter-data}.
 */
public final class VrouterWebApp implements ServletContextListener {
    private static final Logger log = LoggerFactory.getLogger(VrouterWebApp.class);
    private static final String PREFIX = "vrouter.";

    private VrouterServer server;

    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext ctx = event.getServletContext();
        try {
            Settings settings = settings(ctx);
            server = VrouterServer.startWithout(settings, "rest");
            ServletRegistration.Dynamic jersey = ctx.addServlet("vrouter-rest",
                    new ServletContainer(RestApplication.create(server.context())));
            jersey.addMapping("/*");
            jersey.setLoadOnStartup(1);
            jersey.setAsyncSupported(true);
            // The client's address, for the brake on password guessing (Jersey does not pass it on).
            ctx.addFilter("vrouter-client-address", (jakarta.servlet.Filter) (request, response, chain) -> {
                ClientAddress.set(java.net.InetAddress.getByName(request.getRemoteAddr()));
                try {
                    chain.doFilter(request, response);
                } finally {
                    ClientAddress.clear();
                }
            }).addMappingForServletNames(null, false, "vrouter-rest");
            log.info("REST on {} (in the servlet container), data in {}", ctx.getContextPath() + "/api/v1", settings.dataDir());
        } catch (Exception e) {
            throw new IllegalStateException("vrouter cannot start: " + e.getMessage(), e);
        }
    }

    private static Settings settings(ServletContext ctx) throws Exception {
        String configFile = System.getProperty(PREFIX + "config", ctx.getInitParameter(PREFIX + "config"));
        Map<String, String> values = SettingsLoader.load(configFile == null ? null : Path.of(configFile), System.getenv());
        for (String name : Collections.list(ctx.getInitParameterNames())) {
            if (name.startsWith(PREFIX)) values.put(name.substring(PREFIX.length()), ctx.getInitParameter(name));
        }
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(PREFIX))
                .forEach(k -> values.put(k.substring(PREFIX.length()), System.getProperty(k)));
        String catalinaBase = System.getProperty("catalina.base");
        if (!values.containsKey("data-dir") && catalinaBase != null) {
            values.put("data-dir", Path.of(catalinaBase, "vrouter-data").toString());
        }
        return Settings.of(values);
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        if (server != null) server.close();
    }
}
