// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.tck.rules.RuleSupport;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Loopback passes every required rule, and every rule it skips is explained by its attributes. Run through the
 * launcher, as {@code dat tck} runs it.
 */
class LoopbackTckTest {

    @Test
    void loopbackPassesTheWholeKit() {
        TckLauncher.Result result = TckLauncher.run(TckLauncher.Options.verification(LoopbackVerification.class)
                .strict(true), null);
        System.out.printf("loopback TCK (strict): rules passed=%d failed=%d skipped=%d%n", result.passed(),
                result.failed(), result.skipped());
        result.skips().forEach((rule, why) -> System.out.println("  skipped " + rule + ": " + why));
        assertEquals(List.of(), result.failures(), "failed rules");
        assertTrue(result.passed() > 60, "rules passed: " + result.passed());
        for (Map.Entry<String, String> skip : result.skips().entrySet()) {
            String reason = skip.getValue();
            boolean explained = skip.getKey().startsWith("untested_")
                    || reason.contains(RuleSupport.NOT_APPLICABLE)
                    || reason.contains("provider attribute denies");
            assertTrue(explained, "unexplained skip of " + skip.getKey() + ": " + reason);
        }
    }
}
