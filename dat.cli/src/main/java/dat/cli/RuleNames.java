// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.tck.RulesIndex;
import dat.tck.TckRule;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The kit's rule names as {@code dat tck --only} and {@code --exclude} patterns select them ({@code *} matches any run
 * of characters, the whole name must match, as the kit's launcher reads them), and the nearest names to a pattern
 * that matches none, so a typo is refused with what was meant instead of running nothing.
 */
final class RuleNames {

    /** How many nearest names a refusal suggests. */
    static final int SUGGESTIONS = 5;

    private RuleNames() {
    }

    /** {@return every rule's test name, in the kit's index order} */
    static List<String> all() {
        return RulesIndex.rules().stream().map(TckRule::testName).toList();
    }

    /**
     * {@return whether {@code pattern} matches {@code name}}
     *
     * @param pattern a test name with {@code *} wildcards
     * @param name a test name
     */
    static boolean matches(String pattern, String name) {
        return Pattern.compile(Pattern.quote(pattern).replace("*", "\\E.*\\Q")).matcher(name).matches();
    }

    /**
     * {@return {@code null} when {@code pattern} matches a rule, else why not: the nearest names, and the hint that
     * rule names drop the {@code dat_} prefix when the pattern carries one}
     *
     * @param pattern a test name with {@code *} wildcards
     */
    static String unmatched(String pattern) {
        List<String> names = all();
        if (names.stream().anyMatch(n -> matches(pattern, n))) {
            return null;
        }
        String hint = pattern.contains("dat_") && names.stream().anyMatch(n -> matches(pattern.replace("dat_", ""), n))
                ? "; rule names drop the dat_ prefix: '" + pattern.replace("dat_", "") + "' matches" : "";
        return "'" + Text.safe(pattern) + "' matches no rule" + hint + "; nearest: " + String.join(", ",
                nearest(pattern, names)) + " (dat tck --list-rules lists all " + names.size() + ")";
    }

    /** The names closest to the pattern's literal parts, each found anywhere in the name, fewest edits first. */
    private static List<String> nearest(String pattern, List<String> names) {
        List<String> parts = Pattern.compile("\\*+").splitAsStream(pattern).filter(p -> !p.isEmpty()).toList();
        return names.stream()
                .sorted(Comparator.comparingInt((String n) -> parts.stream().mapToInt(p -> distance(p, n)).sum())
                        .thenComparing(Comparator.naturalOrder()))
                .limit(SUGGESTIONS).collect(Collectors.toList());
    }

    /**
     * {@return the fewest edits that turn {@code part} into some substring of {@code name} (Sellers' approximate
     * substring match: the substring may start and end anywhere), ignoring case}
     */
    static int distance(String part, String name) {
        String p = part.toLowerCase(Locale.ROOT);
        String n = name.toLowerCase(Locale.ROOT);
        int[] previous = new int[n.length() + 1];
        int[] current = new int[n.length() + 1];
        for (int i = 1; i <= p.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= n.length(); j++) {
                int substitute = previous[j - 1] + (p.charAt(i - 1) == n.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        int best = Integer.MAX_VALUE;
        for (int d : previous) {
            best = Math.min(best, d);
        }
        return best;
    }
}
