package io.vrouter.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document's bounds (the model's {@code @Schema}) are the service's (the column
 * declarations): a client that checks input against the document is refused for nothing else.
 */
class SchemaBoundsTest {

    private static <R> void check(Class<R> row, Column<?>[] columns) throws Exception {
        List<String> checked = new ArrayList<>();
        for (Column<?> c : columns) {
            Schema s = row.getField(c.field()).getAnnotation(Schema.class);
            switch (c.kind()) {
                case INTEGER, UNSIGNED -> {
                    assertThat(s).as(c.field() + " has @Schema").isNotNull();
                    assertThat(s.minimum()).as(c.field()).isEqualTo(Long.toString(c.min()));
                    assertThat(s.maximum()).as(c.field()).isEqualTo(Long.toString(c.max()));
                    checked.add(c.field());
                }
                case TEXT -> {
                    assertThat(s).as(c.field() + " has @Schema").isNotNull();
                    if (c.min() > 0) assertThat(s.minLength()).as(c.field()).isEqualTo(c.min());
                    assertThat(s.maxLength()).as(c.field()).isEqualTo(c.max());
                    checked.add(c.field());
                }
                default -> {
                    // enumerations, truth values, addresses: their type or pattern says it
                }
            }
        }
        assertThat(checked).isNotEmpty();
    }

    @Test
    void theDocumentsBoundsAreTheColumns() throws Exception {
        check(VmConfigEntry.class, ConfigColumn.values());
        check(VmNetworkConfigEntry.class, NetworkColumn.values());
        Schema index = VmNetworkConfigEntry.class.getField("vmNetworkConfigIndex").getAnnotation(Schema.class);
        assertThat(index.maximum()).isEqualTo(Integer.toString(NetworkColumn.MAX_INDEX));
    }
}
