// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The kit's rules, read from its own tests: every {@link Test} method of the nested rule classes of a
 * verification class, with its {@link DatRule}. This is what {@code --list-rules} prints, so coverage of each
 * man page can be read off without running anything.
 */
public final class RulesIndex {

    private RulesIndex() {
    }

    /** {@return every rule of {@link DatProviderVerification}, by call, then section, then test name} */
    public static List<TckRule> rules() {
        return rules(DatProviderVerification.class);
    }

    /**
     * {@return the rules of {@code verification}, by call, then section, then test name}
     *
     * @param verification a verification class whose {@link Nested} classes hold rule tests
     * @throws IllegalStateException when a test breaks the kit's conventions (see {@link #problems})
     */
    public static List<TckRule> rules(Class<?> verification) {
        List<String> problems = problems(verification);
        if (!problems.isEmpty()) {
            throw new IllegalStateException("TCK rules break the kit's conventions: " + problems);
        }
        List<TckRule> rules = new ArrayList<>();
        for (Method m : testMethods(verification)) {
            DatRule r = m.getAnnotation(DatRule.class);
            rules.add(new TckRule(r.call(), r.section(), r.rule(), Arrays.asList(r.returns()),
                    RuleLevel.of(m.getName()), m.getDeclaringClass().getSimpleName(), m.getName()));
        }
        rules.sort(Comparator.comparing(TckRule::call).thenComparing(TckRule::section)
                .thenComparing(TckRule::testName));
        return List.copyOf(rules);
    }

    /**
     * Checks the kit's conventions: every test has a {@link DatRule}; its name is
     * {@code <level>_<call without dat_>_<rule>}; no two tests share a name.
     *
     * @param verification a verification class
     * @return one line per broken convention; empty when all hold
     */
    public static List<String> problems(Class<?> verification) {
        List<String> problems = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (Method m : testMethods(verification)) {
            String name = m.getName();
            DatRule r = m.getAnnotation(DatRule.class);
            if (r == null) {
                problems.add(name + " has no @DatRule");
                continue;
            }
            RuleLevel level;
            try {
                level = RuleLevel.of(name);
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
                continue;
            }
            String callPart = r.call().startsWith("dat_") ? r.call().substring(4) : r.call();
            if (!name.startsWith(level.prefix() + callPart + "_")) {
                problems.add(name + " should start with " + level.prefix() + callPart + "_");
            }
            if (seen.contains(name)) {
                problems.add(name + " is declared twice");
            }
            seen.add(name);
        }
        return problems;
    }

    /**
     * {@return the rule, if the kit has it}
     *
     * @param testName a rule's test method name
     */
    public static Optional<TckRule> find(String testName) {
        return rules().stream().filter(r -> r.testName().equals(testName)).findFirst();
    }

    private static List<Method> testMethods(Class<?> verification) {
        List<Method> methods = new ArrayList<>();
        for (Class<?> nested : verification.getDeclaredClasses()) {
            if (!nested.isAnnotationPresent(Nested.class) || Modifier.isStatic(nested.getModifiers())) {
                continue;
            }
            for (Class<?> c = nested; c != null && c != Object.class; c = c.getSuperclass()) {
                for (Method m : c.getDeclaredMethods()) {
                    if (m.isAnnotationPresent(Test.class)) {
                        methods.add(m);
                    }
                }
            }
        }
        return methods;
    }
}
