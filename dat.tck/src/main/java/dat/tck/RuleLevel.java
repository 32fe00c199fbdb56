// SPDX-License-Identifier: Apache-2.0
package dat.tck;

/**
 * How binding a TCK rule is, read from its test method's prefix.
 */
public enum RuleLevel {
    /** {@code required_}: every provider must pass it. */
    REQUIRED("required_"),
    /** {@code optional_}: skipped with the reason when the provider's attributes deny the feature. */
    OPTIONAL("optional_"),
    /** {@code untested_}: listed in the index but not verified by this TCK. */
    UNTESTED("untested_");

    private final String prefix;

    RuleLevel(String prefix) {
        this.prefix = prefix;
    }

    /** {@return the method-name prefix} */
    public String prefix() {
        return prefix;
    }

    /**
     * {@return the level of the named test}
     *
     * @param methodName a TCK test method name
     * @throws IllegalArgumentException when the name has none of the three prefixes
     */
    public static RuleLevel of(String methodName) {
        for (RuleLevel level : values()) {
            if (methodName.startsWith(level.prefix)) {
                return level;
            }
        }
        throw new IllegalArgumentException(methodName + " has none of the prefixes required_, optional_, untested_");
    }
}
