// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.api.DatFields;
import dat.api.DatIaAttr;
import dat.api.DatProviderAttr;
import dat.spi.DatIaInfo;
import java.lang.reflect.RecordComponent;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The attributes a query can name: {@code ia_name}, then every field of {@link DatProviderAttr} and of
 * {@link DatIaAttr} under its DAT name, typed from the record components so a query is checked before any
 * provider is asked.
 */
final class QueryAttributes {

    /** The value kinds a query distinguishes. */
    enum Kind {
        BOOLEAN("a boolean"),
        INTEGER("an integer"),
        STRING("a string"),
        ENUM("an enum"),
        MAP("a map");

        private final String description;

        Kind(String description) {
            this.description = description;
        }

        /** {@return the kind with its article, for messages: {@code a boolean}} */
        String description() {
            return description;
        }

        /** {@return whether a value of this kind can stand where a condition is expected (C-style for integers)} */
        boolean isCondition() {
            return this == BOOLEAN || this == INTEGER;
        }
    }

    /**
     * One attribute.
     *
     * @param name the DAT field name
     * @param kind its kind
     * @param enumType the enum class when {@code kind} is {@link Kind#ENUM}, else {@code null}
     */
    record Attribute(String name, Kind kind, Class<?> enumType) {
    }

    /** The name of the pseudo-attribute holding {@link DatIaInfo#iaName()}. */
    static final String IA_NAME = "ia_name";

    private static final Map<String, Attribute> ATTRIBUTES = collect();

    private QueryAttributes() {
    }

    private static Map<String, Attribute> collect() {
        Map<String, Attribute> all = new LinkedHashMap<>();
        all.put(IA_NAME, new Attribute(IA_NAME, Kind.STRING, null));
        for (Class<?> record : List.of(DatProviderAttr.class, DatIaAttr.class)) {
            for (RecordComponent c : record.getRecordComponents()) {
                String name = DatFields.datName(c.getName());
                all.putIfAbsent(name, new Attribute(name, kindOf(c.getType()), c.getType().isEnum() ? c.getType()
                        : null));
            }
        }
        return Collections.unmodifiableMap(all);
    }

    private static Kind kindOf(Class<?> type) {
        if (type == boolean.class) {
            return Kind.BOOLEAN;
        }
        if (type == int.class || type == long.class) {
            return Kind.INTEGER;
        }
        if (type == String.class || type == InetAddress.class) {
            return Kind.STRING;
        }
        if (type.isEnum()) {
            return Kind.ENUM;
        }
        if (Map.class.isAssignableFrom(type)) {
            return Kind.MAP;
        }
        // A new field type in dat.api must get a kind here; failing at class initialisation makes that obvious.
        throw new IllegalStateException("no query kind for attribute type " + type);
    }

    /** {@return every attribute by name, in declaration order} */
    static Map<String, Attribute> all() {
        return ATTRIBUTES;
    }

    /**
     * {@return the attribute, or {@code null}}
     *
     * @param name a DAT field name
     */
    static Attribute find(String name) {
        return ATTRIBUTES.get(name);
    }

    /**
     * The values of one IA under the attribute names: integers as {@link Long}, addresses as their textual
     * form, enums as enums.
     *
     * @param ia the IA description
     * @return name to value
     */
    static Map<String, Object> valuesOf(DatIaInfo ia) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put(IA_NAME, ia.iaName());
        for (Map<String, Object> fields : List.of(DatFields.of(ia.providerAttr()), DatFields.of(ia.iaAttr()))) {
            for (Map.Entry<String, Object> field : fields.entrySet()) {
                values.putIfAbsent(field.getKey(), normalize(field.getValue()));
            }
        }
        return values;
    }

    private static Object normalize(Object value) {
        if (value instanceof Integer i) {
            return i.longValue();
        }
        if (value instanceof InetAddress address) {
            return address.getHostAddress();
        }
        return value;
    }

    /**
     * The nearest candidates to a misspelt name: by edit distance, then names containing it.
     *
     * @param name what was written
     * @param candidates the valid names
     * @return at most three suggestions, nearest first
     */
    static List<String> suggestions(String name, Collection<String> candidates) {
        int limit = Math.max(2, name.length() / 3);
        record Scored(String candidate, int score) {
        }
        List<Scored> scored = new ArrayList<>();
        String lowerName = name.toLowerCase(Locale.ROOT);
        for (String candidate : candidates) {
            String lowerCandidate = candidate.toLowerCase(Locale.ROOT);
            int distance = editDistance(lowerName, lowerCandidate);
            if (distance <= limit) {
                scored.add(new Scored(candidate, distance));
            } else if (name.length() >= 3 && lowerCandidate.contains(lowerName)) {
                // "alignment" should find optimal_buffer_alignment although they are far apart by edits.
                scored.add(new Scored(candidate, limit + 1));
            }
        }
        scored.sort(Comparator.comparingInt(Scored::score).thenComparing(Scored::candidate));
        return scored.stream().limit(3).map(Scored::candidate).toList();
    }

    /** {@return the Levenshtein distance: insertions, deletions and substitutions} */
    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /**
     * {@return {@code "; did you mean a, b or c?"}, or {@code ""} when there are none}
     *
     * @param suggestions from {@link #suggestions}
     */
    static String didYouMean(List<String> suggestions) {
        if (suggestions.isEmpty()) {
            return "";
        }
        if (suggestions.size() == 1) {
            return "; did you mean " + suggestions.getFirst() + "?";
        }
        return "; did you mean " + String.join(", ", suggestions.subList(0, suggestions.size() - 1)) + " or "
                + suggestions.getLast() + "?";
    }
}
