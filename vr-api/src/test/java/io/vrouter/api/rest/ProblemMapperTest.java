package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A failure inside the server: the client gets an id, the log gets the id and the story. */
class ProblemMapperTest {

    @Test
    void aFiveHundredCarriesAnIdTheLogNamesAndNoExceptionText() {
        Logger logger = (Logger) LoggerFactory.getLogger(ProblemMapper.class);
        ListAppender<ILoggingEvent> seen = new ListAppender<>();
        seen.start();
        logger.addAppender(seen);
        try {
            Response r = new ProblemMapper().toResponse(new NullPointerException("Cannot invoke \"secret.internal()\""));
            Problem p = (Problem) r.getEntity();
            assertThat(p.status).isEqualTo(500);
            assertThat(p.errorId).isNotBlank();
            assertThat(p.detail).contains(p.errorId).doesNotContain("NullPointer", "secret", "java.");
            assertThat(seen.list).anySatisfy(e -> {
                assertThat(e.getFormattedMessage()).contains(p.errorId);
                assertThat(e.getThrowableProxy().getClassName()).isEqualTo(NullPointerException.class.getName());
            });
        } finally {
            logger.detachAppender(seen);
        }
    }
}
