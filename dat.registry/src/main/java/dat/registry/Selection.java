// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of {@link DatRegistry#select}: the IAs that satisfy a query and, for every other IA, why not.
 * Every IA of the registry is in exactly one of the two, in registry order.
 */
public final class Selection {

    private final DatQuery query;
    /** Every IA in registry order with its reasons; an empty list marks a match. */
    private final Map<IaEntry, List<String>> outcomes;
    private final List<IaEntry> matches;
    private final Map<IaEntry, List<String>> rejections;

    /**
     * @param query the query
     * @param outcomes every IA in registry order with the reasons it was rejected, none for a match
     */
    Selection(DatQuery query, Map<IaEntry, List<String>> outcomes) {
        this.query = Objects.requireNonNull(query, "query");
        Map<IaEntry, List<String>> copy = new LinkedHashMap<>();
        Map<IaEntry, List<String>> rejected = new LinkedHashMap<>();
        List<IaEntry> matched = new ArrayList<>();
        outcomes.forEach((ia, reasons) -> {
            copy.put(ia, List.copyOf(reasons));
            if (reasons.isEmpty()) {
                matched.add(ia);
            } else {
                rejected.put(ia, List.copyOf(reasons));
            }
        });
        this.outcomes = Collections.unmodifiableMap(copy);
        this.matches = List.copyOf(matched);
        this.rejections = Collections.unmodifiableMap(rejected);
    }

    /** {@return the query} */
    public DatQuery query() {
        return query;
    }

    /** {@return the available IAs that satisfy the query, in registry order} */
    public List<IaEntry> matches() {
        return matches;
    }

    /** {@return the first match, the one a consumer that does not care which should open} */
    public Optional<IaEntry> first() {
        return matches.stream().findFirst();
    }

    /**
     * {@return every other IA with its reasons, in registry order: each failing condition of the query (naming the
     * attribute, the requirement and the actual value), or {@code unavailable: ...} for an IA that cannot be opened at
     * all}
     */
    public Map<IaEntry, List<String>> rejections() {
        return rejections;
    }

    /**
     * {@return the reasons the first IA named {@code iaName} was rejected; empty when it matched or is unknown}
     *
     * @param iaName an IA name
     */
    public List<String> reasons(String iaName) {
        return rejections.entrySet().stream().filter(e -> e.getKey().name().equals(iaName)).findFirst()
                .map(Map.Entry::getValue).orElse(List.of());
    }

    /**
     * @return the query, then one line per IA in registry order: {@code loopback0: matches} or {@code verbs0:
     *     optimal_buffer_alignment <= 64 failed:
     *     actual 256}, several reasons joined by {@code ; }
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("query: ").append(query).append('\n');
        outcomes.forEach((ia, reasons) -> sb.append(ia.name()).append(": ")
                .append(reasons.isEmpty() ? "matches" : String.join("; ", reasons)).append('\n'));
        return sb.toString();
    }
}
