// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.tck.BrokenProviders.Broken;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Counts the required rules the kit's self-test proves: a required rule is covered when at least one broken
 * provider ({@link BrokenProviders}) must be caught by it. The rules left uncovered are listed with the reason, and
 * the list must stay exactly the uncovered set.
 */
class BrokenProviderCoverageTest {

    /** Required rules no broken provider is caught by, and why none can be. */
    static final Map<String, String> UNCOVERED = Map.of();

    /** The coverage reached; the test fails when it drops below. */
    private static final int COVERED_AT_LEAST = 170;

    @Test
    void requiredRulesAreCoveredByBrokenProviders() {
        Set<String> required = RulesIndex.rules().stream().filter(r -> r.level() == RuleLevel.REQUIRED)
                .map(TckRule::testName).collect(Collectors.toCollection(TreeSet::new));
        Set<String> covered = BrokenProviders.all().stream().map(Broken::catchingTest).filter(required::contains)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> uncovered = new TreeSet<>(required);
        uncovered.removeAll(covered);
        System.out.printf("required rules covered by a broken provider: %d/%d (%d broken providers)%n",
                covered.size(), required.size(), BrokenProviders.all().size());
        uncovered.forEach(rule -> System.out.println("  not covered: " + rule + ": " + UNCOVERED.get(rule)));
        assertEquals(uncovered, new TreeSet<>(UNCOVERED.keySet()),
                "the required rules without a broken provider, against the list of those that cannot have one");
        assertTrue(covered.size() >= COVERED_AT_LEAST,
                "required rules covered: " + covered.size() + ", at least " + COVERED_AT_LEAST + " expected");
    }
}
