// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** Remote contexts name memory a peer was given, and no other: they must be unguessable, unique, never 0. */
class ContextTableTest {

    @Test
    void tagsComeFromACryptographicGenerator() throws IllegalAccessException {
        // Regression: a SplittableRandom seeded once; three observed contexts recovered its state.
        ContextTable table = new ContextTable();
        int generators = 0;
        for (Field field : ContextTable.class.getDeclaredFields()) {
            if (RandomGenerator.class.isAssignableFrom(field.getType())) {
                field.setAccessible(true);
                assertInstanceOf(SecureRandom.class, field.get(table), field.getName());
                generators++;
            }
        }
        assertEquals(1, generators, "one generator draws the tags");
    }

    @Test
    void tagsAreUniqueNonZeroAndFoundAgain() {
        ContextTable table = new ContextTable();
        List<Integer> tags = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 5000; i++) {
            int tag = table.register("r" + i);
            assertNotEquals(0, tag);
            assertTrue(seen.add(tag), "tag " + tag + " handed out twice");
            tags.add(tag);
        }
        for (int i = 0; i < tags.size(); i++) {
            assertEquals("r" + i, table.get(tags.get(i)));
        }
        table.remove(tags.get(7));
        assertNull(table.get(tags.get(7)));
        assertEquals("r8", table.get(tags.get(8)));
        assertNull(table.get(0));
    }

    @Test
    void twoTablesDrawDifferentTags() {
        ContextTable one = new ContextTable();
        ContextTable two = new ContextTable();
        int same = 0;
        for (int i = 0; i < 64; i++) {
            same += one.register(i) == two.register(i) ? 1 : 0;
        }
        assertTrue(same < 2, "two tables agreed on " + same + " of 64 tags");
    }
}
