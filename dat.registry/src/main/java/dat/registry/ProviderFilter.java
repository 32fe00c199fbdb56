// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code dat.providers} list: names to use, in order of preference, and {@code ^name} to leave out. A list of
 * only exclusions means every provider but those; an empty list means every provider. A name both listed and
 * excluded is excluded, so {@code ^} always wins.
 *
 * @param origin what the list came from, for reasons: {@code dat.providers=^verbs}
 * @param includes the names to use, in the order given, without repeats; empty for all
 * @param excludes the names to leave out
 * @param only the one provider a tool asked for ({@link DatRegistry.Builder#onlyProvider}), or {@code null}: no
 *     other is asked for its IAs
 */
record ProviderFilter(String origin, List<String> includes, Set<String> excludes, String only) {

    /** Makes the collections immutable. */
    ProviderFilter {
        includes = List.copyOf(includes);
        excludes = Set.copyOf(excludes);
    }

    /** The filter that selects every provider. */
    static final ProviderFilter ALL = new ProviderFilter("", List.of(), Set.of(), null);

    /**
     * {@return the filter; {@link #ALL} for {@code null} or blank text}
     *
     * @param variable the property or variable name, for reasons
     * @param text a comma and/or whitespace separated list, or {@code null}
     */
    static ProviderFilter parse(String variable, String text) {
        if (text == null || text.isBlank()) {
            return ALL;
        }
        Set<String> includes = new LinkedHashSet<>();
        Set<String> excludes = new LinkedHashSet<>();
        // -1 keeps trailing empty tokens, which the checks below skip as they skip a leading one.
        for (String token : text.trim().split("[,\\s]+", -1)) {
            if (token.startsWith("^")) {
                if (token.length() > 1) {
                    excludes.add(token.substring(1));
                }
            } else if (!token.isEmpty()) {
                includes.add(token);
            }
        }
        return new ProviderFilter(variable + "=" + text.trim(), new ArrayList<>(includes), excludes, null);
    }

    /**
     * {@return this filter selecting at most the one provider a tool asked for, which this filter must still select:
     * a provider it excludes stays excluded, with its own reason}
     *
     * @param name the provider asked for
     */
    ProviderFilter narrowedTo(String name) {
        return new ProviderFilter(origin, includes, excludes, name);
    }

    /**
     * {@return whether the provider is to be used}
     *
     * @param name a provider name
     */
    boolean selects(String name) {
        return !excludes.contains(name) && (includes.isEmpty() || includes.contains(name))
                && (only == null || only.equals(name));
    }

    /**
     * {@return why the filter leaves the provider out, for its entry}
     *
     * @param name a provider name {@link #selects} refuses
     */
    String reasonLeftOut(String name) {
        if (excludes.contains(name)) {
            return "excluded by " + origin;
        }
        if (!includes.isEmpty() && !includes.contains(name)) {
            return "not listed in " + origin;
        }
        return "not asked: only provider " + only + " was asked for its IAs";
    }
}
